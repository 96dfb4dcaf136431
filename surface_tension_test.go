package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/surface"
)

// wadell returns Wadell's sphericity π^{1/3}(6V)^{2/3}/A of the fluid's surface as
// physics/surface extracts it (the colour field's ½ level set, cell r/2): 1 for a ball, 0.806
// for a cube; the particles' kernel rounds a block's edges, so a sampled cube reads about 0.85.
func wadell(t testing.TB, w *sluice.World, x []mgl64.Vec3) float64 {
	s := w.Sim()
	m, err := surface.Extract(x, s.Volume0, &s.Kernel, w.Settings().ParticleRadius/2)
	if err != nil {
		t.Fatal(err)
	}
	a := 0.0
	for _, tr := range m.Tris {
		p, q, r := m.V[tr[0]], m.V[tr[1]], m.V[tr[2]]
		a += q.Sub(p).Cross(r.Sub(p)).Len() / 2
	}
	return math.Cbrt(math.Pi) * math.Pow(6*m.Volume(), 2.0/3) / a
}

// Zero-gravity water: a cube of 11³ particles (r = 5 mm) with γ = 1.
const (
	stR     = 0.005
	stEdge  = 0.11
	stGamma = 1.0
)

// sphereTol is the sphericity a zero-gravity cube must reach: Wadell's sphericity
// ≥ 0.95 of its surface. The sampled cube reads 0.867, and still does after 0.5 s without
// the force (the test logs both), so the bound tells the two shapes apart.
const sphereTol = 0.95

// zeroGravityCube returns a world with the cube of water at rest in zero gravity.
func zeroGravityCube(t *testing.T, gamma float64, workers int) (*sluice.World, sluice.Entity) {
	s := components.DefaultSolver()
	s.ParticleRadius = stR
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	m := components.DefaultMaterial()
	m.SurfaceTension = gamma
	e, err := w.AddFluidBlock("cube", m, mgl64.Vec3{}, mgl64.Vec3{stEdge, stEdge, stEdge}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// TestCubeBecomesSphere: a cube of water in zero gravity becomes a ball under surface
// tension within 0.5 s (Wadell's sphericity ≥ sphereTol), and without it stays a cube.
func TestCubeBecomesSphere(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("long validation (1.5 s of CPU)")
	}
	t.Parallel()
	for _, gamma := range []float64{stGamma, 0} {
		w, e := zeroGravityCube(t, gamma, 1)
		start := wadell(t, w, w.Particles(e).X)
		for w.Time() < 0.5-1e-9 {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		got := wadell(t, w, w.Particles(e).X)
		w.Close()
		t.Logf("γ = %g: Wadell sphericity %.4f at t = 0, %.4f at t = 0.5 s", gamma, start, got)
		if gamma > 0 && got < sphereTol {
			t.Errorf("γ = %g: sphericity %.4f after 0.5 s, want ≥ %g", gamma, got, sphereTol)
		}
		if gamma == 0 && got >= sphereTol {
			t.Errorf("without surface tension the cube reads sphericity %.4f ≥ %g: the measure does not tell a cube from a ball", got, sphereTol)
		}
	}
}

// TestSurfaceTensionDeterministic: a world with surface tension steps bit-identically with
// 1, 2 and 5 workers (the cube's 1331 particles span 6 blocks).
func TestSurfaceTensionDeterministic(t *testing.T) {
	var ref []mgl64.Vec3
	for _, workers := range []int{1, 2, 5} {
		w, e := zeroGravityCube(t, stGamma, workers)
		for k := 0; k < 3; k++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		x := append([]mgl64.Vec3(nil), w.Particles(e).X...)
		w.Close()
		if ref == nil {
			ref = x
			if ref[0] == (mgl64.Vec3{stR, stR, stR}) {
				t.Fatal("the corner particle did not move: the test does not exercise the surface tension")
			}
			continue
		}
		for i := range ref {
			if x[i] != ref[i] {
				t.Fatalf("%d workers: particle %d at %v, 1 worker %v", workers, i, x[i], ref[i])
			}
		}
	}
}

// dropQuad returns ⟨z²⟩ − ½⟨x² + y²⟩ about the centroid (m²): 0 for a ball, > 0 for a drop
// stretched along z, < 0 for one flattened.
func dropQuad(x []mgl64.Vec3) float64 {
	var c mgl64.Vec3
	for _, p := range x {
		c = c.Add(p)
	}
	c = c.Mul(1 / float64(len(x)))
	s := 0.0
	for _, p := range x {
		d := p.Sub(c)
		s += d[2]*d[2] - 0.5*(d[0]*d[0]+d[1]*d[1])
	}
	return s / float64(len(x))
}

// TestDropletOscillates kicks a ball of water (radius 7 cm, r = 5 mm, ν = 0.001 m²/s, zero
// gravity) into its l = 2 mode with the divergence-free velocity c·(x, y, −2z) and follows
// q = ⟨z²⟩ − ½⟨x² + y²⟩. With surface tension the drop flattens, turns back, passes through
// the ball and overshoots into the opposite (stretched) shape: q changes sign after its first
// extremum. Without it the drop only flattens. The test logs the times of q's extrema and the
// surface tension σ = ω²ρR³/8 Rayleigh's formula (l = 2) implies from the first half period;
// docs/surface_tension.md says why the period is not checked against Rayleigh's formula.
func TestDropletOscillates(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("long validation (2 s of CPU)")
	}
	t.Parallel()
	const rad, nu, c, tEnd = 0.07, 0.001, 0.3, 0.6
	for _, gamma := range []float64{stGamma, 0} {
		s := components.DefaultSolver()
		s.ParticleRadius = stR
		s.Gravity = mgl64.Vec3{}
		w, err := sluice.NewWorld(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		m := components.DefaultMaterial()
		m.SurfaceTension, m.Viscosity = gamma, nu
		e, err := w.AddFluidSphere("drop", m, mgl64.Vec3{}, rad, mgl64.Vec3{})
		if err != nil {
			t.Fatal(err)
		}
		p := w.Particles(e)
		for i, x := range p.X {
			p.V[i] = mgl64.Vec3{c * x[0], c * x[1], -2 * c * x[2]}
		}
		var ts, qs []float64
		for w.Time() < tEnd-1e-9 {
			if _, err := w.Step(frame / 2); err != nil {
				t.Fatal(err)
			}
			ts, qs = append(ts, w.Time()), append(qs, dropQuad(w.Particles(e).X))
		}
		n := w.Particles(e).Len()
		vol := float64(n) * w.Sim().Volume0
		w.Close()
		var ext []int
		for k := 1; k+1 < len(qs); k++ {
			if (qs[k]-qs[k-1])*(qs[k+1]-qs[k]) < 0 {
				ext = append(ext, k)
			}
		}
		overshoot := len(ext) >= 2 && qs[ext[0]] < 0 && qs[ext[1]] > 0
		if gamma == 0 {
			if overshoot {
				t.Errorf("without surface tension the drop overshot (q = %.3g then %.3g): something else pulls it round", qs[ext[0]], qs[ext[1]])
			}
			continue
		}
		if !overshoot {
			t.Fatalf("γ = %g: the drop does not oscillate: extrema at %v", gamma, ext)
		}
		half := ts[ext[1]] - ts[ext[0]]
		omega := math.Pi / half
		r3 := 3 * vol / (4 * math.Pi)
		for _, k := range ext {
			t.Logf("extremum of q: t = %.4f s, q = %.3g m²", ts[k], qs[k])
		}
		t.Logf("γ = %g, R = %.4f m (%d particles): first half period %.4f s, Rayleigh's l = 2 formula gives σ = ω²ρR³/8 = %.3g N/m", gamma, math.Cbrt(r3), n, half, omega*omega*1000*r3/8)
	}
}
