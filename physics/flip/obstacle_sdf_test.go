package flip

import (
	"math"
	"testing"
)

// TestSDFObstacleMatchesBox: a box given by its signed distance (ObstacleSDF, how a world's
// solid walls enter) blurs into exactly the volume fractions of Eq. 3.13 that the same box as
// an ObstacleBox gives, on the cells and on every face lattice, and a particle moved into it
// is clipped to the same point. The two differ only in who evaluates the distance, so the
// fractions (which read only the distance's sign) must agree exactly; the clipped point is
// x − d·n for the SDF and a clamp for the box, equal up to round-off (roundoff).
func TestSDFObstacleMatchesBox(t *testing.T) {
	p := DefaultParams()
	p.Dims = [3]int{8, 8, 8}
	p.CellSize = 0.1
	lo, hi := Vec3{0.23, 0.1, 0.31}, Vec3{0.52, 0.47, 0.6}
	c := lo.Add(hi).Mul(0.5)
	half := hi.Sub(lo).Mul(0.5)
	sdf := func(x Vec3) (float64, Vec3) {
		// the exact box distance, written independently of Obstacle.distance
		var q, o Vec3
		for d := 0; d < 3; d++ {
			q[d] = math.Abs(x[d]-c[d]) - half[d]
			o[d] = math.Max(q[d], 0)
		}
		if l := math.Sqrt(o[0]*o[0] + o[1]*o[1] + o[2]*o[2]); l > 0 {
			for d := 0; d < 3; d++ {
				o[d] = math.Copysign(o[d]/l, x[d]-c[d])
			}
			return l, o
		}
		ax := 0
		for d := 1; d < 3; d++ {
			if q[d] > q[ax] {
				ax = d
			}
		}
		var n Vec3
		n[ax] = math.Copysign(1, x[ax]-c[ax])
		return q[ax], n
	}
	a := newTestSim(t, p, []Obstacle{{Kind: ObstacleBox, Min: lo, Max: hi}}, 1)
	b := newTestSim(t, p, []Obstacle{{Kind: ObstacleSDF, Min: lo, Max: hi, SDF: sdf}}, 1)
	for i := range a.vc {
		if a.vc[i] != b.vc[i] {
			t.Fatalf("cell %d: fraction %v (box) and %v (SDF)", i, a.vc[i], b.vc[i])
		}
	}
	for d := 0; d < 3; d++ {
		for i := range a.vf[d] {
			if a.vf[d][i] != b.vf[d][i] {
				t.Fatalf("face %d of component %d: fraction %v (box) and %v (SDF)", i, d, a.vf[d][i], b.vf[d][i])
			}
		}
	}
	from, to := Vec3{0.1, 0.3, 0.45}, Vec3{0.3, 0.3, 0.45}
	xa, xb := a.clip(from, to), b.clip(from, to)
	if xa.Sub(xb).Len() > roundoff || xa[0] > lo[0] || xb[0] > lo[0] {
		t.Fatalf("clipped to %v (box) and %v (SDF); the face is at x = %g", xa, xb, lo[0])
	}
	if _, err := New(p, []Obstacle{{Kind: ObstacleSDF, Min: lo, Max: hi}}, a.pool); err == nil {
		t.Fatal("an ObstacleSDF without its SDF was accepted")
	}
}
