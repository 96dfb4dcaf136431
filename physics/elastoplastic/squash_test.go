package elastoplastic

import (
	"math"
	"testing"
)

const (
	// squashKeep is the bound for a very plastic body: after the squeezing field is
	// released it keeps at least 80 % of the imposed height reduction.
	squashKeep = 0.8
	// returnTol is the bound for an elastic body: after release it returns to within
	// 2 % of its original extents.
	returnTol = 0.02
	// volumeTol is the bound on the volume change of a plastic body after a large
	// deformation. Plastic flow is volume preserving by construction (det F̂* = 1); what
	// remains is the elastic volume change and the fit's error.
	volumeTol = 0.02
	// kElastic and kPlastic (1/s²) are the strengths of the squeezing field: enough to
	// squeeze the elastic block by more than 5 % and the plastic one by more than 30 %.
	kElastic = 500
	kPlastic = 250
)

// squash runs the chapter's Fig. 4.8 scenario on an n×n×n block: an analytic field that grows
// away from the centre plane, a = −k z ẑ, squeezes it for 0.5 s and is then released; the run
// ends at tEnd. It returns the initial and loaded heights and the final positions.
func squash(t *testing.T, n int, mat Material, k, tEnd float64) (h0, hLoaded float64, s *sim) {
	return squashC(t, n, mat, k, tEnd, 0.25)
}

// squashC is squash with the step Δt = courant·s/c.
func squashC(t *testing.T, n int, mat Material, k, tEnd, courant float64) (h0, hLoaded float64, s *sim) {
	s = newSim(t, block(n, n, n, testSpacing), mat, 2)
	s.dt = courant * testSpacing / mat.WaveSpeed(testRho)
	s.damping = 2
	h0 = extents(s.x)[2]
	s.accel = func(x Vec3, tt float64) Vec3 {
		if tt > 0.5 {
			return Vec3{}
		}
		return Vec3{0, 0, -k * x[2]}
	}
	for s.t < tEnd {
		s.step(t)
		if s.t > 0.5 && hLoaded == 0 {
			hLoaded = extents(s.x)[2]
		}
	}
	return h0, hLoaded, s
}

// TestElasticSqueezeReturns: a block that never yields returns to within 2 % of its extents
// after the squeeze is released.
func TestElasticSqueezeReturns(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a 2.5 s simulation; skipped under -race and -short")
	}
	h0, hL, s := squash(t, 8, testMaterial(math.Inf(1), 0), kElastic, 2.5)
	if !finiteAll(s.x) {
		t.Fatal("non-finite positions")
	}
	e := extents(s.x)
	t.Logf("height %.4f → %.4f loaded → extents %.4f %.4f %.4f", h0, hL, e[0], e[1], e[2])
	if (h0-hL)/h0 < 0.05 {
		t.Fatalf("the field squeezed the block by only %.1f %%", 100*(h0-hL)/h0)
	}
	for d := 0; d < 3; d++ {
		if r := math.Abs(e[d]/h0 - 1); r > returnTol {
			t.Fatalf("extent %d is %.4f m, %.2f %% off the original %.4f m", d, e[d], 100*r, h0)
		}
	}
}

// TestPlasticSquashKeepsShapeAndVolume: a plastic block (yield 1 kPa, about 3 % deviatoric
// strain) squashed by more than 30 % keeps ≥ 80 % of the squash after release, and its
// volume (latticeVolume, with no tetrahedron inverted) stays within 2 %.
func TestPlasticSquashKeepsShapeAndVolume(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a 2.5 s simulation; skipped under -race and -short")
	}
	const n = 8
	h0, hL, s := squash(t, n, testMaterial(1000, 100), kPlastic, 2.5)
	if !finiteAll(s.x) {
		t.Fatal("non-finite positions")
	}
	h1 := extents(s.x)[2]
	keep := (h0 - h1) / (h0 - hL)
	v0 := math.Pow(float64(n-1)*testSpacing, 3)
	v1, inv := latticeVolume(s.x, n)
	t.Logf("height %.4f → %.4f loaded → %.4f released: keeps %.1f %% of the squash; volume %.6f → %.6f m³ (%+.2f %%), %d inverted tetrahedra",
		h0, hL, h1, 100*keep, v0, v1, 100*(v1/v0-1), inv)
	if (h0-hL)/h0 < 0.3 {
		t.Fatalf("the field squashed the block by only %.1f %%: not a large deformation", 100*(h0-hL)/h0)
	}
	if keep < squashKeep {
		t.Fatalf("kept %.1f %% of the squash, want ≥ %.0f %%", 100*keep, 100*squashKeep)
	}
	if inv != 0 {
		t.Fatalf("%d tetrahedra inverted: the volume measure does not apply", inv)
	}
	if e := math.Abs(v1/v0 - 1); e > volumeTol {
		t.Fatalf("volume changed by %.2f %%, want ≤ %.0f %%", 100*e, 100*volumeTol)
	}
}

// TestZeroModeDampingNeeded: the elastic squeeze of TestElasticSqueezeReturns without the
// zero-mode damping (ε = 0) does not return within 2 % (or does not stay finite): the
// particle-scale modes the fit and the forces cannot see grow.
func TestZeroModeDampingNeeded(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a 2.5 s simulation; skipped under -race and -short")
	}
	mat := testMaterial(math.Inf(1), 0)
	mat.ZeroModeDamping = 0
	s := newSim(t, block(8, 8, 8, testSpacing), mat, 2)
	s.damping = 2
	h0 := extents(s.x)[2]
	s.accel = func(x Vec3, tt float64) Vec3 {
		if tt > 0.5 {
			return Vec3{}
		}
		return Vec3{0, 0, -kElastic * x[2]}
	}
	for s.t < 2.5 {
		s.step(t)
	}
	e := extents(s.x)
	t.Logf("extents without zero-mode damping: %.4g %.4g %.4g m (original %.4f)", e[0], e[1], e[2], h0)
	if !finiteAll(s.x) {
		return
	}
	worst := 0.0
	for d := 0; d < 3; d++ {
		worst = max(worst, math.Abs(e[d]/h0-1))
	}
	if worst <= returnTol {
		t.Fatalf("the undamped elastic block returned within %.2f %%: the damping is not needed", 100*worst)
	}
}

// TestStabilityLimit measures StableCourant's margin: at Δt = C·s/c and at 1.5C the elastic
// squeeze still returns within 2 % and the plastic one keeps ≥ 80 % of its squash; at 2C the
// elastic run blows up (non-finite, or its extents off by more than half), so the limit is
// within a factor of two of the method's own and at least 1.5 below it.
func TestStabilityLimit(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("five 2.5 s simulations; skipped under -race and -short")
	}
	for _, c := range []float64{StableCourant, 1.5 * StableCourant} {
		h0, _, s := squashC(t, 8, testMaterial(math.Inf(1), 0), kElastic, 2.5, c)
		e := extents(s.x)
		t.Logf("elastic at C = %g: extents %.4f %.4f %.4f of the original", c, e[0]/h0, e[1]/h0, e[2]/h0)
		for d := 0; d < 3; d++ {
			if !finiteAll(s.x) || math.Abs(e[d]/h0-1) > returnTol {
				t.Fatalf("elastic at C = %g: extents %v, original %.4f", c, e, h0)
			}
		}
		h0, hL, s := squashC(t, 8, testMaterial(1000, 100), kPlastic, 2.5, c)
		keep := (h0 - extents(s.x)[2]) / (h0 - hL)
		t.Logf("plastic at C = %g: keeps %.1f %% of the squash", c, 100*keep)
		if !finiteAll(s.x) || keep < squashKeep {
			t.Fatalf("plastic at C = %g: keeps %.1f %% of the squash", c, 100*keep)
		}
	}
	h0, _, s := squashC(t, 8, testMaterial(math.Inf(1), 0), kElastic, 2.5, 2*StableCourant)
	e := extents(s.x)
	t.Logf("elastic at C = %g: extents %.4g %.4g %.4g m", 2*StableCourant, e[0], e[1], e[2])
	if finiteAll(s.x) && math.Abs(e[0]/h0-1) < 0.5 && math.Abs(e[1]/h0-1) < 0.5 && math.Abs(e[2]/h0-1) < 0.5 {
		t.Fatalf("elastic at 2C = %g stayed bounded: the limit is more than a factor of two below the method's own", 2*StableCourant)
	}
}
