package boundary

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// diamondMesh is the cube [−½, ½]³ turned 45° about z: its section with z = 0 is the square of
// side 1 with corners (±√½, 0) and (0, ±√½). Triangles are counter-clockwise seen from outside.
func diamondMesh() ([]physics.Vec3, [][3]int32) {
	var v []physics.Vec3
	c, sn := math.Cos(math.Pi/4), math.Sin(math.Pi/4)
	for i := 0; i < 8; i++ {
		x, y, z := float64(i&1)-0.5, float64(i>>1&1)-0.5, float64(i>>2&1)-0.5
		v = append(v, physics.Vec3{c*x - sn*y, sn*x + c*y, z})
	}
	// faces of the unit cube by corner index bits (x = 1, y = 2, z = 4), outward winding
	tris := [][3]int32{
		{0, 2, 3}, {0, 3, 1}, // z = −½
		{4, 5, 7}, {4, 7, 6}, // z = +½
		{0, 1, 5}, {0, 5, 4}, // y = −½
		{2, 6, 7}, {2, 7, 3}, // y = +½
		{0, 4, 6}, {0, 6, 2}, // x = −½
		{1, 3, 7}, {1, 7, 5}, // x = +½
	}
	return v, tris
}

// squareDistance is the signed distance of p from the diamond's section, the square
// |x| + |y| ≤ √½ (negative inside): in the square's own axes u = (x + y)/√2, w = (x − y)/√2
// (taken with |x|, |y| by symmetry) it is the box distance of (u, |w|) from the half side ½.
func squareDistance(p physics.Vec3) float64 {
	x, y := math.Abs(p[0]), math.Abs(p[1])
	u, w := (x+y)/math.Sqrt2, (x-y)/math.Sqrt2
	du, dw := u-0.5, math.Abs(w)-0.5
	if du > 0 && dw > 0 {
		return math.Hypot(du, dw)
	}
	return max(du, dw)
}

// TestSection2DSamplesTheOutline: the diamond's section sampled at s = 0.05 in two layers.
// Outward (a tank): every sample lies at z = 0, the first layer on the outline and the second
// s outside it (both within sectionTol); every point of the outline has a first-layer sample
// within s. Inward (an obstacle): the second layer lies inside, no farther than s from the
// outline.
func TestSection2DSamplesTheOutline(t *testing.T) {
	const s = 0.05
	const sectionTol = 1e-12 // the cut points are exact up to a few roundings
	v, tris := diamondMesh()
	for _, outward := range []bool{true, false} {
		pts := Section2D(v, tris, s, 2, outward)
		var on []physics.Vec3
		for _, p := range pts {
			if p[2] != 0 {
				t.Fatalf("outward %v: sample %v off the plane", outward, p)
			}
			d := squareDistance(p)
			switch {
			case math.Abs(d) <= sectionTol:
				on = append(on, p)
			case outward && math.Abs(d-s) <= 1e-9:
			case !outward && d < 0 && d >= -s-1e-9:
			default:
				t.Errorf("outward %v: sample %v at signed distance %g from the outline: neither on it nor on the second layer", outward, p, d)
			}
		}
		// the outline, walked in steps of s/20: a first-layer sample within s everywhere
		worst := 0.0
		for k := 0; k < 4*20*20; k++ {
			a := 2 * math.Pi * float64(k) / (4 * 20 * 20)
			// the outline point in direction a: |x| + |y| = √½
			dx, dy := math.Cos(a), math.Sin(a)
			r := math.Sqrt(0.5) / (math.Abs(dx) + math.Abs(dy))
			q := physics.Vec3{r * dx, r * dy, 0}
			best := math.Inf(1)
			for _, p := range on {
				best = min(best, physics.Norm(p.Sub(q)))
			}
			worst = max(worst, best)
		}
		t.Logf("outward %v: %d samples, %d on the outline (perimeter %g m = %g spacings); farthest outline point from a sample %.4f m", outward, len(pts), len(on), 4.0, 4/s, worst)
		if worst > s {
			t.Errorf("outward %v: an outline point lies %.4f m from the nearest sample, more than s = %g", outward, worst, s)
		}
		if len(on) < int(4/s) {
			t.Errorf("outward %v: %d samples on an outline %g spacings long", outward, len(on), 4/s)
		}
	}
}
