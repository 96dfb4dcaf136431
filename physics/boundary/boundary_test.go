package boundary

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

func TestRect2DSamplesTheOutlines(t *testing.T) {
	// A 1 m × 0.5 m tank at spacing 0.1 m in two layers: the first outline has 10 and 5 steps
	// per side, 2·(10 + 5) = 30 samples; the second lies one spacing outside, 1.2 m × 0.7 m,
	// 2·(12 + 7) = 38. Every sample is in the plane and on its outline (to round-off); an
	// obstacle's second layer lies one spacing inside instead.
	const s, tol = 0.1, 1e-12
	onOutline := func(p physics.Vec3, lo, hi [2]float64) bool {
		inX := p[0] >= lo[0]-tol && p[0] <= hi[0]+tol
		inY := p[1] >= lo[1]-tol && p[1] <= hi[1]+tol
		onX := math.Abs(p[0]-lo[0]) < tol || math.Abs(p[0]-hi[0]) < tol
		onY := math.Abs(p[1]-lo[1]) < tol || math.Abs(p[1]-hi[1]) < tol
		return inX && inY && (onX || onY) && p[2] == 0
	}
	for _, c := range []struct {
		inverted bool
		off      float64
		second   int
	}{{true, s, 38}, {false, -s, 22}} {
		x, err := Rect2D(physics.Vec3{0, 0, -3}, physics.Vec3{1, 0.5, 7}, s, 2, c.inverted)
		if err != nil {
			t.Fatal(err)
		}
		if len(x) != 30+c.second {
			t.Fatalf("inverted %v: %d samples, want 30 + %d", c.inverted, len(x), c.second)
		}
		for i, p := range x {
			lo, hi := [2]float64{0, 0}, [2]float64{1, 0.5}
			if i >= 30 {
				lo, hi = [2]float64{-c.off, -c.off}, [2]float64{1 + c.off, 0.5 + c.off}
			}
			if !onOutline(p, lo, hi) {
				t.Fatalf("inverted %v: sample %d at %v is not on its outline %v–%v", c.inverted, i, p, lo, hi)
			}
		}
	}
	if _, err := Rect2D(physics.Vec3{0, 0, 0}, physics.Vec3{1, 0, 0}, s, 2, true); err == nil {
		t.Error("a rectangle of no height was accepted")
	}
}

// TestThinEqualsSortAndCompact: thin gives, point for point, the plainest form of its rule
// (sort by cell of side s/2, then by position; keep the first point of each cell) on 20,000
// points with repeats and with points on cell faces.
func TestThinEqualsSortAndCompact(t *testing.T) {
	const s = 0.05
	rng := rand.New(rand.NewPCG(1, 2))
	pts := make([]physics.Vec3, 20000)
	for i := range pts {
		switch {
		case i%10 == 0 && i > 0:
			pts[i] = pts[rng.IntN(i)] // a repeat
		case i%7 == 0:
			pts[i] = physics.Vec3{float64(rng.IntN(40)) * s / 2, rng.Float64() - 0.5, float64(rng.IntN(40)) * s / 2}
		default:
			pts[i] = physics.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}
		}
	}
	key := func(p physics.Vec3) [3]int64 {
		q := 0.5 * s
		return [3]int64{int64(math.Floor(p[0] / q)), int64(math.Floor(p[1] / q)), int64(math.Floor(p[2] / q))}
	}
	want := slices.Clone(pts)
	slices.SortFunc(want, func(x, y physics.Vec3) int {
		kx, ky := key(x), key(y)
		if c := slices.Compare(kx[:], ky[:]); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]), cmp.Compare(x[2], y[2]))
	})
	want = slices.CompactFunc(want, func(x, y physics.Vec3) bool { return key(x) == key(y) })
	got := thin(slices.Clone(pts), s)
	if !slices.Equal(got, want) {
		t.Fatalf("thin kept %d points, the plain sort and compact %d (or others)", len(got), len(want))
	}
	if len(want) == len(pts) || len(want) < len(pts)/2 {
		t.Fatalf("the test's points do not exercise the thinning: %d of %d kept", len(want), len(pts))
	}
}
