package elastoplastic

import (
	"math"
	"testing"
)

// flowTol bounds round-off in the plastic update's logarithms and exponentials.
const flowTol = 1e-13

func TestPlasticFlowPreservesVolume(t *testing.T) {
	mat := testMaterial(100, 1e3)
	s := [3]float64{1.3, 1.0, 0.7}
	det0 := s[0] * s[1] * s[2]
	alpha := 0.0
	if !plasticFlow(&s, &alpha, &mat, 1e-4) {
		t.Fatal("a 30 % stretch did not yield at 100 Pa")
	}
	if d := s[0] * s[1] * s[2]; math.Abs(d-det0) > flowTol {
		t.Fatalf("det F̂ changed from %g to %g: plastic flow is not volume preserving", det0, d)
	}
	if !(s[0] < 1.3 && s[2] > 0.7) || !(alpha > 0) {
		t.Fatalf("flow did not move F̂ toward its volumetric part: %v, α = %g", s, alpha)
	}
}

func TestPlasticFlowYieldAndRate(t *testing.T) {
	mat := testMaterial(0, 0)
	// A stretch whose deviatoric stress norm is known: ŝ = (1+e, 1, 1) gives
	// P̂ = 2μ(e,0,0) + λe, deviator 2μe(2/3, −1/3, −1/3), norm 2μe√(2/3).
	e := 0.01
	dn := 2 * mat.Mu * e * math.Sqrt(2.0/3)
	mat.FlowRate = 10
	mat.YieldStress = dn * 1.001
	s := [3]float64{1 + e, 1, 1}
	a := 0.0
	if plasticFlow(&s, &a, &mat, 1e-3) {
		t.Fatal("flowed below the yield stress")
	}
	mat.YieldStress = dn * 0.5
	dt := 1e-3
	if !plasticFlow(&s, &a, &mat, dt) {
		t.Fatal("did not flow at twice the yield stress")
	}
	// γ = ν Δt (‖P′‖ − P_Y)/‖P′‖ = 10·1e-3·0.5: the deviatoric log strain shrinks by 1 − γ.
	gamma := 10 * dt * 0.5
	l := [3]float64{math.Log(1 + e), 0, 0}
	m := l[0] / 3
	want := math.Exp(l[0] - gamma*(l[0]-m))
	if math.Abs(s[0]-want) > flowTol {
		t.Fatalf("σ₁ = %.15g after one step, want %.15g (γ = %g)", s[0], want, gamma)
	}
	// Hardening: the accumulated strain raises the yield stress by K·α.
	mat.Hardening = 1e12
	s2 := [3]float64{1 + e, 1, 1}
	if plasticFlow(&s2, &a, &mat, dt) {
		t.Fatalf("flowed although K·α = %g Pa exceeds the excess stress", mat.Hardening*a)
	}
	// γ is capped at 1: the whole deviatoric part goes in one step, leaving det^(1/3)·I.
	mat.Hardening, mat.FlowRate = 0, 1e6
	s3 := [3]float64{1.2, 0.9, 0.95}
	c := math.Cbrt(s3[0] * s3[1] * s3[2])
	a = 0
	plasticFlow(&s3, &a, &mat, 1)
	for k := range s3 {
		if math.Abs(s3[k]-c) > flowTol {
			t.Fatalf("full flow left %v, want %g·I", s3, c)
		}
	}
}
