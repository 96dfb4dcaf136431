package physics

import "math"

// ColorVolume returns the volume enclosed by a set of particles' surface (m³): the region
// where the colour field
//
//	c(x) = Σ_j V0 W(|x − x_j|)
//
// is at least ½, counted on a grid of cubic cells of side cell. c is the colour field of
// Müller et al. 2003 (Sec. 3.3, "Surface Tracking") with the rest volume V0 in place of
// m_j/ρ_j: it is 1 inside a fluid at rest (V0 is the lattice volume, Kernel.LatticeVolume),
// and on a flat surface it falls to ½ where the half-space of particles ends — by the kernel's
// symmetry, half a spacing beyond the last layer, where the particles' cubes of side 2r end.
// So the count measures the fluid's geometric volume: unlike Σ m/ρ, which counts a surface
// particle's missing neighbours as extra volume, it neither grows at a free surface nor
// shrinks where the surface touches a wall, and it changes only if the particles' spacing
// does. Cell centres sit at the particles' bounding-box minimum plus half-integer multiples
// of cell, so for cell = r on a lattice of spacing 2r no centre lies on a flat surface.
// The cost is one kernel evaluation per particle and cell within its support; it is a
// measurement for tests and tools, not part of a step.
func ColorVolume(x []Vec3, v0 float64, kr *Kernel, cell float64) float64 {
	if len(x) == 0 || !(cell > 0) {
		return 0
	}
	lo := Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range x {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], p[d]), max(hi[d], p[d])
		}
	}
	h := kr.H
	reach := int(math.Ceil(h / cell))
	var n [3]int
	var o Vec3 // centre of cell (0, 0, 0)
	for d := 0; d < 3; d++ {
		o[d] = lo[d] - float64(reach)*cell + 0.5*cell
		n[d] = int(math.Ceil((hi[d]-lo[d])/cell)) + 2*reach + 1
	}
	c := make([]float64, n[0]*n[1]*n[2])
	for _, p := range x {
		var a, b [3]int
		for d := 0; d < 3; d++ {
			a[d] = max(0, int(math.Floor((p[d]-h-o[d])/cell)))
			b[d] = min(n[d]-1, int(math.Ceil((p[d]+h-o[d])/cell)))
		}
		for k := a[2]; k <= b[2]; k++ {
			dz := o[2] + float64(k)*cell - p[2]
			for j := a[1]; j <= b[1]; j++ {
				dy := o[1] + float64(j)*cell - p[1]
				row := (k*n[1] + j) * n[0]
				for i := a[0]; i <= b[0]; i++ {
					dx := o[0] + float64(i)*cell - p[0]
					r2 := dx*dx + dy*dy + dz*dz
					if r2 < h*h {
						c[row+i] += v0 * kr.W(math.Sqrt(r2))
					}
				}
			}
		}
	}
	inside := 0
	for _, v := range c {
		if v >= 0.5 {
			inside++
		}
	}
	return float64(inside) * cell * cell * cell
}
