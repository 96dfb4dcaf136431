package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// TestPlanarBeamSagsAsEulerBernoulli is TestPinnedBeamSagsInWorld in a 2D world: a beam 8
// particles high (a = 5 cm, L = 10a, G = K = 10 MPa, ρ = 1000 kg/m³) clamped by pinning its
// particles at x < 0, run through the whole world step in 0.25 s steps for 2 s. With every
// particle at z = 0 the deformation gradient has no z part, so the strain is plane strain
// (ε_zz = 0, as in SPlisHSPlasH's 2D elasticity, which sets F_zz = 1), and the closed form is
// Euler–Bernoulli per metre of depth with the plane-strain modulus E/(1 − ν²): tip deflection
// qL⁴/(8 E/(1 − ν²) a³/12), q = ρ g a. The settled tip must match it within inWorldBeamTol
// (measured 1.1336, the 3D beam's 1.126), the last step must move it less than beamSettleTol,
// the clamp must not move and no particle may leave the plane.
func TestPlanarBeamSagsAsEulerBernoulli(t *testing.T) {
	if raceEnabled {
		t.Skip("a 704-particle beam for 2 s")
	}
	const a, n, step = 0.05, 8, 0.25
	s := a / n
	set := components.DefaultSolver()
	set.ParticleRadius, set.Dimensions, set.DtMax = s/2, 2, step
	w, err := sluice.NewWorld(set, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var x []mgl64.Vec3
	for i := -n; i < 10*n; i++ {
		for j := 0; j < n; j++ {
			x = append(x, mgl64.Vec3{(float64(i) + 0.5) * s, (float64(j) + 0.5) * s, 0})
		}
	}
	mat := elasticMaterial(1000, 1e7)
	mat.Elastic.MaxIterations = 5000
	mat.Elastic.PinnedMin = mgl64.Vec3{-a - s, -s, -s}
	mat.Elastic.PinnedMax = mgl64.Vec3{0, a + s, s}
	e, err := w.AddElasticParticles("beam", mat, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := 10 * a
	const E, nu = 1e7 * 9 / 4, 0.125 // 9KG/(3K+G) and (3K−2G)/(2(3K+G)) with K = G
	q := mat.RestDensity * 9.81 * a
	eb := q * math.Pow(l, 4) / (8 * E / (1 - nu*nu) * math.Pow(a, 3) / 12)
	last, prev, its := settleBeam(t, w, e, l, s, 8, step)
	for i, x := range w.Particles(e).X {
		if x[2] != 0 {
			t.Fatalf("particle %d at %v: off the plane", i, x)
		}
	}
	ratio := last / eb
	t.Logf("settled tip deflection %.5f m = %.4f × plane-strain Euler–Bernoulli %.5f m (last step moved it %.2e m); %.0f CG iterations per solve at the end", last, ratio, eb, last-prev, its)
	if math.Abs(last-prev) > beamSettleTol*last {
		t.Errorf("the beam has not settled: the last step moved the tip %.3g m of %.4f m", last-prev, last)
	}
	if math.Abs(ratio-1) > inWorldBeamTol {
		t.Errorf("tip deflection %.4f × Euler–Bernoulli, want within ±%.0f %%", ratio, 100*inWorldBeamTol)
	}
}
