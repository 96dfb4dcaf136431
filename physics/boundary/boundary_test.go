package boundary

import (
	"math"
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
