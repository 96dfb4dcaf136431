package sluice_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// elasticMaterial is an elastic solid of density rho with G = K = mod and no viscosity (so
// nothing but the elastic and pressure forces act inside it).
func elasticMaterial(rho, mod float64) components.Material {
	m := components.DefaultMaterial()
	m.RestDensity = rho
	m.Viscosity = 0
	m.Elastic.ShearModulus, m.Elastic.BulkModulus = mod, mod
	return m
}

// momenta returns the body's total linear momentum, angular momentum about its centre of
// mass, and Σ m|v| (the scale against which round-off in the momentum is judged).
func momenta(w *sluice.World, e sluice.Entity) (p, l mgl64.Vec3, scale float64) {
	pp := w.Particles(e)
	m := w.Material(e).RestDensity * w.Sim().Volume0
	var c mgl64.Vec3
	for _, x := range pp.X {
		c = c.Add(x)
	}
	c = c.Mul(1 / float64(len(pp.X)))
	for i, x := range pp.X {
		v := pp.V[i]
		p = p.Add(v.Mul(m))
		l = l.Add(x.Sub(c).Cross(v).Mul(m))
		scale += m * v.Len()
	}
	return p, l, scale
}

// spinningCube is the paper's rotation test (§5.1, Fig. 2) in the form of the issue: a
// 0.4 m jelly cube (8³ particles at r = 0.025 m, G = K = 1e6 Pa) spinning freely at ω =
// 2 rad/s about a tilted axis, no gravity, no walls.
func spinningCube(t testing.TB, correction bool) (*sluice.World, sluice.Entity, mgl64.Vec3) {
	s := components.DefaultSolver()
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	mat := elasticMaterial(1000, 1e6)
	mat.Elastic.NoCorrection = !correction
	e, err := w.AddElasticBlock("jelly", mat, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.4, 0.4}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	omega := mgl64.Vec3{0.6, 1.6, 0.9}.Normalize().Mul(2)
	p := w.Particles(e)
	var c mgl64.Vec3
	for _, x := range p.X {
		c = c.Add(x)
	}
	c = c.Mul(1 / float64(len(p.X)))
	for i, x := range p.X {
		p.V[i] = omega.Cross(x.Sub(c))
	}
	return w, e, omega
}

const (
	// linMomentumTol: elastic (Eq. 9, symmetric rest lists) and pressure forces cancel
	// pairwise and the CG keeps Σ v of its warm start, so the total momentum of a body
	// spinning about its centre stays zero up to round-off of Σ m|v|.
	linMomentumTol = 1e-10
	// angMomentumTol is the bound on the drift of the angular momentum over 3 s.
	angMomentumTol = 0.01
	// spinStrainTol: the strain of a spinning cube is its centrifugal stretch, ρω²a²/G ≈
	// 1e-4 here, plus vibration; an uncorrected cube reads its rotation as strain of order 1.
	spinStrainTol = 1e-2
)

func TestSpinningElasticCubeConservesMomentum(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("3 s of simulation")
	}
	w, e, _ := spinningCube(t, true)
	defer w.Close()
	_, l0, _ := momenta(w, e)
	maxIt := 0.0
	for frame := 0; frame < 180; frame++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		maxIt = max(maxIt, st.ElasticIterations)
	}
	p, l, scale := momenta(w, e)
	strain := w.ElasticState(e).Body.Strain(w.Particles(e).X)
	dl := l.Sub(l0).Len() / l0.Len()
	t.Logf("after 3 s: |P| = %.3g kg m/s (Σm|v| = %.3g), |ΔL|/|L0| = %.2e, max strain %.3g, max avg CG iterations %.1f", p.Len(), scale, dl, strain, maxIt)
	if p.Len() > linMomentumTol*scale {
		t.Errorf("linear momentum %v, want below %g·%g", p, linMomentumTol, scale)
	}
	if dl > angMomentumTol {
		t.Errorf("angular momentum changed by %.2f %%, want below %.0f %%", 100*dl, 100*angMomentumTol)
	}
	if strain > spinStrainTol {
		t.Errorf("strain under rotation %g, want below %g", strain, spinStrainTol)
	}
}

// uncorrectedLossMin: without the kernel correction the rotation reads as strain and the
// restoring force pulls the cube back; over 1 s it loses most of its spin (the paper's Fig. 2
// "suppresses rotation"). A third is far outside the corrected cube's 1 %.
const uncorrectedLossMin = 0.3

func TestSpinningCubeWithoutCorrectionIsPulledBack(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1 s of simulation")
	}
	w, e, omega := spinningCube(t, false)
	defer w.Close()
	_, l0, _ := momenta(w, e)
	for frame := 0; frame < 60; frame++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	_, l, _ := momenta(w, e)
	// The spin left about the original axis.
	loss := 1 - l.Dot(omega.Normalize())/l0.Dot(omega.Normalize())
	t.Logf("uncorrected: angular momentum about the spin axis lost %.1f %% in 1 s", 100*loss)
	if loss < uncorrectedLossMin {
		t.Errorf("uncorrected cube lost only %.1f %% of its spin, want at least %.0f %%", 100*loss, 100*uncorrectedLossMin)
	}
}
