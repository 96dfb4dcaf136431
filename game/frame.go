package game

import "math"

// frameMargin widens the framing distance so the scene does not touch the window's edges.
const frameMargin = 1.05

// FrameDistance returns how far from the centre of the box [lo, hi] a perspective camera
// looking at the centre from direction dir (from the centre towards the camera; y up), with
// vertical field of view fovY (degrees) and aspect ratio width/height, must stand for every
// corner of the box to be in view, with a 5 % margin: the first frame then never clips the
// scene, whatever its shape. The distance is the smallest that keeps the corners in view
// (bisected below the box's bounding-sphere distance, which always does).
func FrameDistance(lo, hi, dir [3]float64, fovY, aspect float64) float64 {
	dx, dy, dz := hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2]
	r := 0.5 * math.Sqrt(dx*dx+dy*dy+dz*dz)
	if r == 0 {
		return 1
	}
	half := fovY / 2 * math.Pi / 180
	if h := math.Atan(math.Tan(half) * aspect); h < half {
		half = h
	}
	a, b := 0.0, r/math.Sin(half) // b: the bounding sphere fits, so every corner does
	for i := 0; i < 50; i++ {
		m := 0.5 * (a + b)
		if BoxInView(lo, hi, dir, m, fovY, aspect) {
			b = m
		} else {
			a = m
		}
	}
	return frameMargin * b
}

// BoxInView reports whether every corner of the box [lo, hi] projects inside the image of a
// perspective camera at distance dist from the box's centre in direction dir, looking at the
// centre with y up, vertical field of view fovY (degrees) and aspect ratio width/height.
func BoxInView(lo, hi, dir [3]float64, dist, fovY, aspect float64) bool {
	l := math.Sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])
	f := [3]float64{-dir[0] / l, -dir[1] / l, -dir[2] / l} // viewing direction
	rt := [3]float64{-f[2], 0, f[0]}                       // f × (0, 1, 0)
	rl := math.Sqrt(rt[0]*rt[0] + rt[2]*rt[2])
	if rl == 0 {
		rt, rl = [3]float64{1, 0, 0}, 1 // looking straight up or down
	}
	rt = [3]float64{rt[0] / rl, 0, rt[2] / rl}
	up := [3]float64{rt[1]*f[2] - rt[2]*f[1], rt[2]*f[0] - rt[0]*f[2], rt[0]*f[1] - rt[1]*f[0]}
	c := [3]float64{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2}
	eye := [3]float64{c[0] - f[0]*dist, c[1] - f[1]*dist, c[2] - f[2]*dist}
	ty := math.Tan(fovY / 2 * math.Pi / 180)
	tx := ty * aspect
	for k := 0; k < 8; k++ {
		p := lo
		for d := 0; d < 3; d++ {
			if k>>d&1 == 1 {
				p[d] = hi[d]
			}
		}
		q := [3]float64{p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]}
		z := q[0]*f[0] + q[1]*f[1] + q[2]*f[2]
		x := q[0]*rt[0] + q[1]*rt[1] + q[2]*rt[2]
		y := q[0]*up[0] + q[1]*up[1] + q[2]*up[2]
		if z <= 0 || math.Abs(x) > tx*z || math.Abs(y) > ty*z {
			return false
		}
	}
	return true
}
