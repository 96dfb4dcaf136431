// Package boundary samples static geometry with boundary particles after N. Akinci, M. Ihmsen,
// G. Akinci, B. Solenthaler, M. Teschner, "Versatile Rigid-Fluid Coupling for Incompressible SPH
// Fluids", ACM TOG 31(4), 2012. The particles' volumes Ψ come from their own number density
// (physics.BoundaryVolumes), so the sampling need not be regular; this package places samples
// at about the fluid's particle spacing on box surfaces and rectangles.
package boundary

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/physics"
)

// Box samples the surface of the axis-aligned box [lo, hi] with spacing about s (each edge is
// divided into a whole number of steps, so corners and edges are sampled exactly once). layers
// ≥ 1 surfaces are sampled, each s further from the region the fluid may occupy: outward for a
// tank (inverted, fluid inside), inward for an obstacle (fluid outside).
func Box(lo, hi physics.Vec3, s float64, layers int, inverted bool) ([]physics.Vec3, error) {
	if err := checkBox(lo, hi, s, layers, 3); err != nil {
		return nil, err
	}
	area := 2 * ((hi[0]-lo[0])*(hi[1]-lo[1]) + (hi[1]-lo[1])*(hi[2]-lo[2]) + (hi[0]-lo[0])*(hi[2]-lo[2]))
	if est := float64(layers) * area / (s * s); est > physics.MaxSamples {
		return nil, fmt.Errorf("box surface would hold %.3g samples at spacing %g m, more than the limit %.0g", est, s, float64(physics.MaxSamples))
	}
	var out []physics.Vec3
	for l := 0; l < layers; l++ {
		off := float64(l) * s
		if !inverted {
			off = -off
		}
		a := physics.Vec3{lo[0] - off, lo[1] - off, lo[2] - off}
		b := physics.Vec3{hi[0] + off, hi[1] + off, hi[2] + off}
		if b[0] <= a[0] || b[1] <= a[1] || b[2] <= a[2] {
			break // an obstacle thinner than its layers: the inner layers vanish
		}
		out = append(out, shell(a, b, s)...)
	}
	return out, nil
}

// Rect2D is Box for a 2D world: the outline of the rectangle [lo, hi] of the x–y plane (the
// box's z extent is ignored), sampled at z = 0 with spacing about s (each side divided into a
// whole number of steps, so corners are sampled once), in layers ≥ 1 outlines each s further
// from the fluid's region: outward for a tank (inverted), inward for an obstacle.
func Rect2D(lo, hi physics.Vec3, s float64, layers int, inverted bool) ([]physics.Vec3, error) {
	if err := checkBox(lo, hi, s, layers, 2); err != nil {
		return nil, err
	}
	if est := float64(layers) * 2 * ((hi[0] - lo[0]) + (hi[1] - lo[1])) / s; est > physics.MaxSamples {
		return nil, fmt.Errorf("rectangle outline would hold %.3g samples at spacing %g m, more than the limit %.0g", est, s, float64(physics.MaxSamples))
	}
	var out []physics.Vec3
	for l := 0; l < layers; l++ {
		off := float64(l) * s
		if !inverted {
			off = -off
		}
		a := physics.Vec3{lo[0] - off, lo[1] - off, 0}
		b := physics.Vec3{hi[0] + off, hi[1] + off, 0}
		if b[0] <= a[0] || b[1] <= a[1] {
			break // an obstacle thinner than its layers: the inner layers vanish
		}
		var n [2]int
		var step [2]float64
		for d := 0; d < 2; d++ {
			n[d] = max(1, int(math.Round((b[d]-a[d])/s)))
			step[d] = (b[d] - a[d]) / float64(n[d])
		}
		for j := 0; j <= n[1]; j++ {
			for i := 0; i <= n[0]; i++ {
				if j != 0 && j != n[1] && i != 0 && i != n[0] {
					continue
				}
				out = append(out, physics.Vec3{a[0] + float64(i)*step[0], a[1] + float64(j)*step[1], 0})
			}
		}
	}
	return out, nil
}

// checkBox checks the spacing, the layer count and that [lo, hi] is not empty along its first
// dims axes.
func checkBox(lo, hi physics.Vec3, s float64, layers, dims int) error {
	if !(s > 0) {
		return fmt.Errorf("boundary spacing %g must be > 0", s)
	}
	if layers < 1 {
		return fmt.Errorf("boundary layers %d must be ≥ 1", layers)
	}
	for d := 0; d < dims; d++ {
		if !(hi[d] > lo[d]) {
			return fmt.Errorf("box max[%d] = %g must exceed min[%d] = %g", d, hi[d], d, lo[d])
		}
	}
	return nil
}

// shell returns the lattice points on the surface of [a, b].
func shell(a, b physics.Vec3, s float64) []physics.Vec3 {
	var n [3]int
	var step [3]float64
	for d := 0; d < 3; d++ {
		n[d] = max(1, int(math.Round((b[d]-a[d])/s)))
		step[d] = (b[d] - a[d]) / float64(n[d])
	}
	var out []physics.Vec3
	for k := 0; k <= n[2]; k++ {
		for j := 0; j <= n[1]; j++ {
			onYZ := j == 0 || j == n[1] || k == 0 || k == n[2]
			for i := 0; i <= n[0]; i++ {
				if !onYZ && i != 0 && i != n[0] {
					continue
				}
				out = append(out, physics.Vec3{a[0] + float64(i)*step[0], a[1] + float64(j)*step[1], a[2] + float64(k)*step[2]})
			}
		}
	}
	return out
}

// Rect samples the parallelogram origin + a·u + b·v, a, b ∈ [0, 1], with spacing about s: a
// plane patch such as a floor or a ramp. layers > 1 repeat it along −n, n = u×v/|u×v|, so the
// fluid should be on the side n points to.
func Rect(origin, u, v physics.Vec3, s float64, layers int) ([]physics.Vec3, error) {
	lu, lv := physics.Norm(u), physics.Norm(v)
	if !(s > 0) || !(lu > 0) || !(lv > 0) || layers < 1 {
		return nil, fmt.Errorf("rect needs spacing > 0, non-zero edges and layers ≥ 1 (got s=%g |u|=%g |v|=%g layers=%d)", s, lu, lv, layers)
	}
	nx := u[1]*v[2] - u[2]*v[1]
	ny := u[2]*v[0] - u[0]*v[2]
	nz := u[0]*v[1] - u[1]*v[0]
	ln := math.Sqrt(nx*nx + ny*ny + nz*nz)
	if ln < 1e-12*lu*lv {
		return nil, fmt.Errorf("rect edges %v and %v are parallel", u, v)
	}
	if est := float64(layers) * (lu/s + 1) * (lv/s + 1); est > physics.MaxSamples {
		return nil, fmt.Errorf("rect would hold %.3g samples at spacing %g m, more than the limit %.0g", est, s, float64(physics.MaxSamples))
	}
	nu := max(1, int(math.Round(lu/s)))
	nv := max(1, int(math.Round(lv/s)))
	var out []physics.Vec3
	for l := 0; l < layers; l++ {
		o := float64(l) * s / ln
		for j := 0; j <= nv; j++ {
			for i := 0; i <= nu; i++ {
				a, b := float64(i)/float64(nu), float64(j)/float64(nv)
				out = append(out, physics.Vec3{
					origin[0] + a*u[0] + b*v[0] - o*nx,
					origin[1] + a*u[1] + b*v[1] - o*ny,
					origin[2] + a*u[2] + b*v[2] - o*nz,
				})
			}
		}
	}
	return out, nil
}

// Mesh places points on every triangle of a mesh at spacing about s (a barycentric lattice
// dividing the longest edge into whole steps) in layers at distances first, first+s, … along
// the triangle's normal when outward, or against it otherwise, and thins the points to one per
// cell of side s/2 (merging the coincident samples of shared edges), sorted, so the sampling
// is deterministic. Normals follow the winding: counter-clockwise seen from outside points out.
func Mesh(v []physics.Vec3, tris [][3]int32, s float64, layers int, first float64, outward bool) []physics.Vec3 {
	var pts []physics.Vec3
	for _, t := range tris {
		if len(pts) > physics.MaxSamples {
			break // the caller reports the oversize sampling
		}
		a, b, c := v[t[0]], v[t[1]], v[t[2]]
		ab, ac := b.Sub(a), c.Sub(a)
		n := ab.Cross(ac)
		nl := n.Len()
		if nl == 0 {
			continue // degenerate triangle
		}
		n = n.Mul(1 / nl)
		if !outward {
			n = n.Mul(-1)
		}
		longest := max(ab.Len(), ac.Len(), c.Sub(b).Len())
		k := max(1, int(math.Ceil(longest/s)))
		for l := 0; l < layers; l++ {
			off := n.Mul(first + float64(l)*s)
			for i := 0; i <= k; i++ {
				for j := 0; i+j <= k; j++ {
					u, w := float64(i)/float64(k), float64(j)/float64(k)
					pts = append(pts, a.Add(ab.Mul(u)).Add(ac.Mul(w)).Add(off))
				}
			}
		}
	}
	return thin(pts, s)
}

// thin keeps at most one point per cell of side s/2: a fine mesh (tens of thousands of tiny
// triangles) would otherwise put thousands of samples in a kernel support. Two samples a
// spacing apart never share such a cell (its diagonal is 0.87 s), so the regular samples of
// large faces all stay; coincident samples on shared edges merge. Sorting by the cell, then by
// position, keeps the result independent of the triangle order's accidents.
func thin(pts []physics.Vec3, s float64) []physics.Vec3 {
	q := 0.5 * s
	// each point's cell computed once, not in every comparison of the sort
	type keyed struct {
		k [3]int64
		p physics.Vec3
	}
	a := make([]keyed, len(pts))
	for i, p := range pts {
		a[i] = keyed{[3]int64{int64(math.Floor(p[0] / q)), int64(math.Floor(p[1] / q)), int64(math.Floor(p[2] / q))}, p}
	}
	slices.SortFunc(a, func(x, y keyed) int {
		for d := 0; d < 3; d++ {
			if x.k[d] != y.k[d] {
				return cmp.Compare(x.k[d], y.k[d])
			}
		}
		for d := 0; d < 3; d++ {
			if x.p[d] != y.p[d] {
				return cmp.Compare(x.p[d], y.p[d])
			}
		}
		return 0
	})
	out := pts[:0]
	for i := range a {
		if i == 0 || a[i].k != a[i-1].k {
			out = append(out, a[i].p)
		}
	}
	return out
}
