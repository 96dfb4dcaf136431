package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// micropolarWater is water with the micropolar model of the tests: ν_t = 1e-3 m²/s and
// Θ = 1e-4 m² (Θ⁻¹ = 1e4 m⁻², a microinertia of the order of (h/4)² at r = 1 cm), so ω relaxes
// towards half the vorticity at the rate 2Θ⁻¹ν_t = 20/s.
func micropolarWater() components.Material {
	m := components.DefaultMaterial()
	m.Micropolar = components.Micropolar{Vorticity: 1e-3, InertiaInverse: 1e4, OmegaSmoothing: 0.05}
	return m
}

// rotatingDrop is a free water ball of radius 0.1 m at r = 1 cm in zero gravity, rotating
// rigidly about z at omega rad/s.
func rotatingDrop(t *testing.T, mat components.Material, omega, r float64, workers int) (*sluice.World, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = r
	s.Gravity = mgl64.Vec3{}
	s.DtMax = 0.002
	s.DomainMin, s.DomainMax = mgl64.Vec3{-2, -2, -2}, mgl64.Vec3{2, 2, 2}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidSphere("drop", mat, mgl64.Vec3{}, 0.1, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	for i, x := range p.X {
		p.V[i] = mgl64.Vec3{-omega * x[1], omega * x[0], 0}
	}
	return w, e
}

// dropState measures the packed particles of a one-body world: the linear angular momentum
// Σ m (x − c) × v about the centre of mass c, the microrotation part Σ m Θ ω, the rigid
// rotation rate Ω_z = L_z/I_z of the linear motion, and the mean ω of the particles farther
// than inner from the surface (whose neighbourhoods are full).
func dropState(w *sluice.World, theta, radius, inner float64) (lLin, lMicro mgl64.Vec3, omegaZ float64, wIn mgl64.Vec3, nIn int) {
	f := &w.Sim().Fluid
	var c mgl64.Vec3
	mt := 0.0
	for k, x := range f.X {
		c = c.Add(x.Mul(f.M[k]))
		mt += f.M[k]
	}
	c = c.Mul(1 / mt)
	iz := 0.0
	for k, x := range f.X {
		r := x.Sub(c)
		lLin = lLin.Add(r.Cross(f.V[k]).Mul(f.M[k]))
		lMicro = lMicro.Add(f.Omega[k].Mul(f.M[k] * theta))
		iz += f.M[k] * (r[0]*r[0] + r[1]*r[1])
		if r.Len() < radius-inner {
			wIn = wIn.Add(f.Omega[k])
			nIn++
		}
	}
	return lLin, lMicro, lLin[2] / iz, wIn.Mul(1 / float64(nIn)), nIn
}

func TestMicropolarDropRelaxesToHalfVorticity(t *testing.T) {
	// A rigidly rotating drop (Ω = 2 rad/s about z, vorticity ∇×v = 2Ω) with ω = 0 at the
	// start. The micropolar ω equation (Bender et al. 2019, Eq. 10) drives ω towards
	// ∇×v/2 = Ω at the rate 2Θ⁻¹ν_t = 20/s; after 0.5 s (10 relaxation times) the mean ω of
	// the inner particles (more than a support radius h = 4 cm from the surface, where the
	// discrete curl is that of the continuum) must equal the drop's current rotation rate
	// Ω_z = L_z/I_z within relTol. Measured: see the log. relTol is set by the curl's
	// discretisation error on the particle lattice and the few-percent shape change of the
	// spinning drop, not by the model: halving ν_t's torque (the ∇×v term) would put ω at Ω/2.
	const relTol = 0.05
	// ω's components off the axis must stay below offTol·Ω (the flow has no x, y vorticity).
	const offTol = 0.01
	// Total angular momentum of the micropolar medium, Σ m x × v + Σ m Θ ω (the paper's
	// conserved quantity), must stay within lTol of its start: the pair terms balance exactly
	// (physics/micropolar), so only round-off and the single-precision gradients remain (the
	// plain rotating drop keeps 1e-6, TestRotatingDropKeepsAngularMomentum). The microrotation
	// holds 0.6 % of L here, so leaving out the reaction torque would break lTol by
	// orders of magnitude.
	const lTol = 1e-5
	// and the micro part must hold at least microMin of |L| (the exchange happened; it is
	// negative: the inner particles spin with the drop, the surface ones, whose curl sees the
	// free surface's jump, against it, and the latter weigh more).
	const microMin = 0.003
	if raceEnabled {
		t.Skip("micropolar drop: 0.5 s of simulation, slow under the race detector")
	}
	const theta = 1e-4
	w, _ := rotatingDrop(t, micropolarWater(), 1, 0.005, 0)
	defer w.Close()
	if _, err := w.Step(1e-9); err != nil { // pack the particles so the state can be read
		t.Fatal(err)
	}
	l0, m0, _, _, _ := dropState(w, theta, 0.1, 0.02)
	L0 := l0.Add(m0)
	worst := 0.0
	for i := 0; i < 18; i++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
		l, m, _, _, _ := dropState(w, theta, 0.1, 0.02)
		worst = max(worst, l.Add(m).Sub(L0).Len()/L0.Len())
	}
	l, m, oz, win, nIn := dropState(w, theta, 0.1, 0.02)
	t.Logf("%d particles, %d inner: Ω_z = %.5f rad/s, inner mean ω = (%.3g, %.3g, %.5f) 1/s (ω_z/Ω_z = %.4f); L_lin %.6g, L_micro %.6g (%.2f %%), worst |ΔL|/|L0| = %.3g",
		w.Sim().Fluid.Len(), nIn, oz, win[0], win[1], win[2], win[2]/oz, l[2], m[2], 100*m[2]/L0[2], worst)
	if math.Abs(win[2]/oz-1) > relTol {
		t.Errorf("inner ω_z = %.5f, Ω_z = %.5f: off by %.3g, want ≤ %g", win[2], oz, win[2]/oz-1, relTol)
	}
	if math.Hypot(win[0], win[1]) > offTol*oz {
		t.Errorf("inner ω off the axis %.3g 1/s, want ≤ %g·Ω", math.Hypot(win[0], win[1]), offTol)
	}
	if worst > lTol {
		t.Errorf("total angular momentum drifted by %.3g of |L0|, want ≤ %g", worst, lTol)
	}
	if math.Abs(m[2]) < microMin*L0[2] {
		t.Errorf("microrotation holds %.3g of L, want |·| ≥ %g", m[2]/L0[2], microMin)
	}
}
