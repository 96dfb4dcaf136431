package game

import (
	"math"
	"testing"
)

// pinholeInView is an independent check of a framing: it builds the camera with the usual
// look-at basis (right = forward × up, up' = right × forward) and projects the corners.
func pinholeInView(lo, hi, dir [3]float64, dist, fovY, aspect float64) bool {
	l := math.Sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])
	f := [3]float64{-dir[0] / l, -dir[1] / l, -dir[2] / l}
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	rt := cross(f, [3]float64{0, 1, 0})
	n := math.Sqrt(rt[0]*rt[0] + rt[1]*rt[1] + rt[2]*rt[2])
	rt = [3]float64{rt[0] / n, rt[1] / n, rt[2] / n}
	up := cross(rt, f)
	c := [3]float64{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2}
	ty := math.Tan(fovY * math.Pi / 360)
	for k := 0; k < 8; k++ {
		p := [3]float64{lo[0], lo[1], lo[2]}
		for d := 0; d < 3; d++ {
			if k&(1<<d) != 0 {
				p[d] = hi[d]
			}
		}
		var x, y, z float64
		for d := 0; d < 3; d++ {
			q := p[d] - (c[d] - f[d]*dist)
			x, y, z = x+q*rt[d], y+q*up[d], z+q*f[d]
		}
		if z <= 0 || math.Abs(x) > ty*aspect*z || math.Abs(y) > ty*z {
			return false
		}
	}
	return true
}

// TestFrameDistanceKeepsTheBoxInView: for boxes of many shapes, viewing directions and window
// shapes, every corner of the box is in view from the distance FrameDistance gives (checked
// with an independent pinhole projection), and the distance is tight: at 0.9 of it (the
// margin 1.05 and then some) a corner is out of view.
func TestFrameDistanceKeepsTheBoxInView(t *testing.T) {
	const fovY = 45.0
	const tight = 0.9
	boxes := [][2][3]float64{
		{{0, 0, 0}, {1, 1, 1}},
		{{0, 0, 0}, {3.2, 2, 1.2}},         // the dam-break tank
		{{-0.1, 0, -0.1}, {0.1, 0.2, 0.1}}, // a jelly without a tank
		{{0, 0, 0}, {0.1, 2, 0.1}},         // a tall column
		{{0, 0, 0}, {4, 0.05, 4}},          // a flat sheet
	}
	dirs := [][3]float64{{0.3, 0.45, 1}, {1, 1, 1}, {0, 0.2, 1}, {-1, 0.3, 0.2}, {0.05, 1, 0.05}}
	for _, b := range boxes {
		for _, aspect := range []float64{16.0 / 9, 4.0 / 3, 1, 0.6} {
			for _, dir := range dirs {
				d := FrameDistance(b[0], b[1], dir, fovY, aspect)
				if !pinholeInView(b[0], b[1], dir, d, fovY, aspect) {
					t.Errorf("box %v, direction %v, aspect %.2f: a corner is out of view at distance %.4g", b, dir, aspect, d)
				}
				if pinholeInView(b[0], b[1], dir, tight*d, fovY, aspect) {
					t.Errorf("box %v, direction %v, aspect %.2f: still in view at %g of the distance %.4g: not tight", b, dir, aspect, tight, d)
				}
			}
		}
	}
}
