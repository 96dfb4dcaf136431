package volumemap

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// PlaneVolume is V at distance phi in front of an infinite flat wall, for the options'
// kernel, support radius and factor: the ball's slices at height t along the normal have area
// π(H² − t²) and lie at φ + t, so V(φ) = c·∫_{−H}^{H} γ(φ + t) π(H² − t²) dt, here by the
// 3-point Gauss–Legendre rule on 512 panels split at γ's kinks (φ + t = 0 and H), far below
// 1e-9 of V in error.
func PlaneVolume(o Options, phi float64) float64 {
	kr := physics.NewKernel(o.Kernel, o.H)
	h, w0 := o.H, kr.W(0)
	gamma := func(s float64) float64 {
		if s <= 0 {
			return 1
		}
		return kr.W(s) / w0
	}
	gx := [3]float64{-math.Sqrt(0.6), 0, math.Sqrt(0.6)}
	gw := [3]float64{5.0 / 9, 8.0 / 9, 5.0 / 9}
	edges := []float64{-h}
	for _, k := range []float64{-phi, h - phi} {
		if k > -h && k < h {
			edges = append(edges, k)
		}
	}
	edges = append(edges, h)
	const panels = 512
	sum := 0.0
	for e := 0; e+1 < len(edges); e++ {
		a, b := edges[e], edges[e+1]
		n := max(1, int(math.Ceil(panels*(b-a)/(2*h))))
		step := (b - a) / float64(n)
		for p := 0; p < n; p++ {
			c := a + (float64(p)+0.5)*step
			for q := range gx {
				t := c + 0.5*step*gx[q]
				sum += 0.5 * step * gw[q] * gamma(phi+t) * math.Pi * (h*h - t*t)
			}
		}
	}
	return o.VolumeFactor * sum
}

// RestDistance is the distance from a flat wall's map surface at which a layer of fluid
// particles of radius R rests: where the wall's virtual particle gives a particle of the
// layer the density its fluid lacks there, the half of the cubic lattice of spacing 2R and
// particle volume V0 (physics.Kernel.LatticeVolume) beyond its layer:
// V(φ)·W(Offset(φ, R)) = V0·Σ_{lattice points below the layer} W. The left side falls with φ
// from one particle radius on, so bisection on [R, H] finds it; 2.33R for the cubic spline at
// H = 4R and the factor 0.8.
func RestDistance(o Options) float64 {
	kr := physics.NewKernel(o.Kernel, o.H)
	sp := 2 * o.R
	v0 := kr.LatticeVolume(sp)
	n := int(o.H/sp) + 1
	missing := 0.0
	for i := -n; i <= n; i++ {
		for j := -n; j <= n; j++ {
			for k := 1; k <= n; k++ {
				dx, dy, dz := float64(i)*sp, float64(k)*sp, float64(j)*sp
				missing += v0 * kr.W(math.Sqrt(dx*dx+dy*dy+dz*dz))
			}
		}
	}
	lo, hi := o.R, o.H
	for range 60 {
		m := 0.5 * (lo + hi)
		if PlaneVolume(o, m)*kr.W(Offset(m, o.R)) > missing {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}
