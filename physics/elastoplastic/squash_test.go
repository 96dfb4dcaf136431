package elastoplastic

import "testing"

const (
	// squashKeep is the bound for a very plastic body: after the squeezing field is
	// released it keeps at least 80 % of the imposed height reduction.
	squashKeep = 0.8
)

// TestPlasticSquashKeepsShape runs the chapter's Fig. 4.8 scenario for a very plastic
// material: an analytic force field that grows away from the centre plane (a = −k z ẑ)
// squeezes an 8×8×8 block by more than 30 % for 0.5 s and is then released. The block must
// stay finite and keep ≥ 80 % of the squash.
func TestPlasticSquashKeepsShape(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a 1.5 s simulation; skipped under -race and -short")
	}
	s := newSim(t, block(8, 8, 8, testSpacing), testMaterial(200, 100), 2)
	s.damping = 5
	h0 := extents(s.x)[2]
	s.accel = func(x Vec3, tt float64) Vec3 {
		if tt > 0.5 {
			return Vec3{}
		}
		return Vec3{0, 0, -250 * x[2]}
	}
	hLoaded := 0.0
	yielded := 0
	for s.t < 1.5 {
		yielded += s.step(t).Yielded
		if s.t > 0.5 && hLoaded == 0 {
			hLoaded = extents(s.x)[2]
		}
	}
	if !finiteAll(s.x) {
		t.Fatal("non-finite positions")
	}
	h1 := extents(s.x)[2]
	keep := (h0 - h1) / (h0 - hLoaded)
	t.Logf("height %.4f → %.4f loaded → %.4f released: keeps %.1f %% of the squash; %d particle-steps flowed",
		h0, hLoaded, h1, 100*keep, yielded)
	if (h0-hLoaded)/h0 < 0.3 {
		t.Fatalf("the field squashed the block by only %.1f %%: not a large deformation", 100*(h0-hLoaded)/h0)
	}
	if keep < squashKeep {
		t.Fatalf("kept %.1f %% of the squash, want ≥ %.0f %%", 100*keep, 100*squashKeep)
	}
}
