package elastoplastic

import (
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// detachedSpeedTol: with F = I the block's stresses are round-off of the SVD of I (~1e-16·E),
// the speeds they cause in one step far below 1e-12 m/s (TestBodyAtRest's bound).
const detachedSpeedTol = 1e-12

// TestDetachedParticleCarriesNoStress: a particle with fewer than MinNeighbors neighbours (one
// that splashed off or sits at a thin tip) keeps its last F, which no longer describes any
// neighbourhood; it must not push its neighbours with that stale stress. A 3×3×3 block at
// rest (F = I, so no stress of its own) has one outlier 0.9 h from a corner, with fewer than
// six neighbours and F = diag(2, 1, 1). After one step every velocity must still be exactly
// zero up to round-off: the block's particles have no stress, the outlier's is dropped.
// (Without this guard the outlier moves at 0.89 m/s after the step: its stale stress acts
// through Eq. 4.10; in the world a dough block that splashed on impact blew up.)
func TestDetachedParticleCarriesNoStress(t *testing.T) {
	x := block(3, 3, 3, testSpacing)
	c := x[0] // the corner (−s, −s, −s)
	d := 0.9 * 2 * testSpacing / 1.7320508075688772
	x = append(x, Vec3{c[0] - d, c[1] - d, c[2] - d})
	mat := Material{Mu: 2e4, Lambda: 3e4, YieldStress: 1e12, ZeroModeDamping: 0.5}
	s := newSim(t, x, mat, 1)
	st := s.b.Save()
	out := len(x) - 1
	st.F[out] = [9]float64{2, 0, 0, 0, 1, 0, 0, 0, 1}
	copy(st.XPrev, x)
	st.HasPrev = true
	if err := s.b.Restore(st); err != nil {
		t.Fatal(err)
	}
	r, err := s.b.Step(s.x, s.v, s.dt, s.pool)
	if err != nil {
		t.Fatal(err)
	}
	if r.FewNeighbors == 0 {
		t.Fatalf("the outlier was not detected as detached: %+v", r)
	}
	for i, v := range s.v {
		if physics.Norm(v) > detachedSpeedTol {
			t.Errorf("particle %d moved at %v m/s: a detached particle's stale stress acted", i, v)
		}
	}
}
