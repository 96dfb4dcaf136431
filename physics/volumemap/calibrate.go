package volumemap

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// Offset returns how far beyond a fluid particle at distance phi from a wall (m, φ > 0) the
// wall's one virtual boundary particle lies, along the wall's normal: d = max(φ + r/2, 2r)
// for particles of radius r, half a radius behind the surface and never closer than a
// particle diameter, where the kernel's gradient would push the particle hard (the placement
// of the reference implementation of Bender et al. 2019, SPlisHSPlasH).
func Offset(phi, r float64) float64 { return max(phi+0.5*r, 2*r) }

// Occupancy is the γ of the volume map: 1 inside the wall (φ ≤ 0), the kernel's fall-off
// W(φ)/W(0) over the support beyond the surface, 0 from the support radius on (the reference
// implementation's smoothing of the boundary's indicator).
func Occupancy(kr *physics.Kernel, phi float64) float64 {
	switch {
	case phi <= 0:
		return 1
	case phi < kr.H:
		return kr.W(phi) / kr.W(0)
	}
	return 0
}

// PlaneVolume is the boundary volume ∫_{|y|<h} γ(φ(x + y)) dy (without the factor) at the
// distance phi in front of an infinite flat wall, where φ(x + y) = phi + y·n: the slices of
// the support at height t along the normal have area π(h² − t²), so
// V(φ) = ∫_{−h}^{h} γ(φ + t) π(h² − t²) dt, here by the composite Gauss–Legendre rule on 256
// panels (γ is smooth on each side of its kinks at φ + t = 0 and h; the rule's error is far
// below 1e-9 of V).
func PlaneVolume(kr *physics.Kernel, phi float64) float64 {
	h := kr.H
	const panels = 256
	// 3-point Gauss–Legendre on [−1, 1]
	x := [3]float64{-math.Sqrt(0.6), 0, math.Sqrt(0.6)}
	w := [3]float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
	// panel edges at the kinks so that each panel's integrand is smooth
	edges := []float64{-h}
	for _, k := range []float64{-phi, h - phi} {
		if k > -h && k < h {
			edges = append(edges, k)
		}
	}
	edges = append(edges, h)
	sum := 0.0
	for e := 0; e+1 < len(edges); e++ {
		a, b := edges[e], edges[e+1]
		n := max(1, int(math.Ceil(panels*(b-a)/(2*h))))
		step := (b - a) / float64(n)
		for p := 0; p < n; p++ {
			c := a + (float64(p)+0.5)*step
			for q := range x {
				t := c + 0.5*step*x[q]
				sum += 0.5 * step * w[q] * Occupancy(kr, phi+t) * math.Pi * (h*h - t*t)
			}
		}
	}
	return sum
}
