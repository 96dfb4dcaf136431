package rigid

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Distance returns the signed distance from the shape's surface to p (body frame; negative
// inside) and the outward unit normal there (the distance's gradient). Meshes read the grid
// built by Prepare; boxes, spheres and capsules are exact.
func (s *Shape) Distance(p Vec3) (float64, Vec3) {
	switch s.Kind {
	case Box:
		return boxDistance(s.HalfExtents, p)
	case Sphere:
		return roundDistance(p, s.Radius)
	case Capsule:
		c := Vec3{0, math.Max(-s.HalfLength, math.Min(s.HalfLength, p[1])), 0}
		return roundDistance(sub(p, c), s.Radius)
	case Mesh:
		return s.grid.distance(p)
	}
	return math.Inf(1), Vec3{0, 1, 0}
}

// roundDistance is the distance to a sphere of radius r about the origin, with d = p/|p|
// (up at the centre itself, where every direction is equally right).
func roundDistance(p Vec3, r float64) (float64, Vec3) {
	l := norm(p)
	if l == 0 {
		return -r, Vec3{0, 1, 0}
	}
	return l - r, scale(p, 1/l)
}

// boxDistance is the exact signed distance to the box of half extents h. Outside, the normal
// points from the nearest surface point; inside, along the axis of the nearest face.
func boxDistance(h, p Vec3) (float64, Vec3) {
	var q, o Vec3
	for d := 0; d < 3; d++ {
		q[d] = math.Abs(p[d]) - h[d]
		o[d] = math.Max(q[d], 0)
	}
	if l := norm(o); l > 0 {
		for d := 0; d < 3; d++ {
			o[d] = math.Copysign(o[d]/l, p[d])
		}
		return l, o
	}
	ax := 0
	if q[1] > q[ax] {
		ax = 1
	}
	if q[2] > q[ax] {
		ax = 2
	}
	var n Vec3
	n[ax] = math.Copysign(1, p[ax])
	return q[ax], n
}

// Prepare builds what Distance needs for a mesh: a signed distance grid of cell size about
// half the particle spacing over the mesh's bounds widened by band. Exact point-triangle
// distances are computed at the nodes within band of a triangle, farther nodes keep ±band;
// the sign comes from the parity of crossings along a ray in x through each row of nodes.
// Other shapes need nothing.
func (s *Shape) Prepare(spacing, band float64) error {
	if s.Kind != Mesh {
		return nil
	}
	lo, hi := s.Bounds()
	c := 0.5 * spacing
	const maxNodes = 1 << 22 // 4M nodes, 32 MB: coarsen the grid for very large bodies
	for {
		n := 1.0
		for d := 0; d < 3; d++ {
			n *= math.Ceil((hi[d]-lo[d]+2*band)/c) + 1
		}
		if n <= maxNodes {
			break
		}
		c *= 1.25
	}
	g := &distanceGrid{cell: c, band: band}
	for d := 0; d < 3; d++ {
		g.lo[d] = lo[d] - band
		g.n[d] = int(math.Ceil((hi[d]-lo[d]+2*band)/c)) + 1
	}
	nx, ny, nz := g.n[0], g.n[1], g.n[2]
	g.d = make([]float64, nx*ny*nz)
	for i := range g.d {
		g.d[i] = band
	}
	for _, t := range s.Tris {
		a, b, cc := s.V[t[0]], s.V[t[1]], s.V[t[2]]
		var i0, i1 [3]int
		for d := 0; d < 3; d++ {
			tl := min(a[d], b[d], cc[d]) - band
			th := max(a[d], b[d], cc[d]) + band
			i0[d] = max(0, int(math.Floor((tl-g.lo[d])/c)))
			i1[d] = min(g.n[d]-1, int(math.Ceil((th-g.lo[d])/c)))
		}
		for k := i0[2]; k <= i1[2]; k++ {
			for j := i0[1]; j <= i1[1]; j++ {
				for i := i0[0]; i <= i1[0]; i++ {
					p := g.node(i, j, k)
					d := math.Sqrt(pointTriangleDist2(p, a, b, cc))
					idx := (k*ny+j)*nx + i
					if d < g.d[idx] {
						g.d[idx] = d
					}
				}
			}
		}
	}
	// Sign by ray parity: the row's line meets the triangles at the x of its crossings; nodes
	// with an odd number of crossings to their left are inside. A row offset by a tiny
	// irrational fraction of a cell never passes exactly through an edge of a grid-aligned mesh.
	var xs []float64
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			py := g.lo[1] + (float64(j)+1.23e-7)*c
			pz := g.lo[2] + (float64(k)+2.71e-7)*c
			xs = xs[:0]
			for _, t := range s.Tris {
				if x, ok := rayX(py, pz, s.V[t[0]], s.V[t[1]], s.V[t[2]]); ok {
					xs = append(xs, x)
				}
			}
			if len(xs)%2 == 1 {
				return fmt.Errorf("mesh is not watertight: a ray crosses its surface %d times", len(xs))
			}
			slices.SortFunc(xs, cmp.Compare[float64])
			for q := 0; q+1 < len(xs); q += 2 {
				for i := 0; i < nx; i++ {
					x := g.lo[0] + float64(i)*c
					if x > xs[q] && x < xs[q+1] {
						idx := (k*ny+j)*nx + i
						g.d[idx] = -g.d[idx]
					}
				}
			}
		}
	}
	s.grid = g
	return nil
}

// rayX intersects the line {y = py, z = pz} with triangle abc, returning the x of the crossing.
func rayX(py, pz float64, a, b, c Vec3) (float64, bool) {
	// barycentric coordinates of (py, pz) in the triangle projected on the yz plane
	d := (b[1]-a[1])*(c[2]-a[2]) - (c[1]-a[1])*(b[2]-a[2])
	if d == 0 {
		return 0, false
	}
	u := ((py-a[1])*(c[2]-a[2]) - (c[1]-a[1])*(pz-a[2])) / d
	v := ((b[1]-a[1])*(pz-a[2]) - (py-a[1])*(b[2]-a[2])) / d
	if u < 0 || v < 0 || u+v > 1 {
		return 0, false
	}
	return a[0] + u*(b[0]-a[0]) + v*(c[0]-a[0]), true
}

// pointTriangleDist2 is the squared distance from p to the triangle abc (the closest point by
// Voronoi regions of the vertices, edges and face).
func pointTriangleDist2(p, a, b, c Vec3) float64 {
	ab, ac, ap := sub(b, a), sub(c, a), sub(p, a)
	d1, d2 := dot(ab, ap), dot(ac, ap)
	if d1 <= 0 && d2 <= 0 {
		return dot(ap, ap)
	}
	bp := sub(p, b)
	d3, d4 := dot(ab, bp), dot(ac, bp)
	if d3 >= 0 && d4 <= d3 {
		return dot(bp, bp)
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		q := sub(ap, scale(ab, d1/(d1-d3)))
		return dot(q, q)
	}
	cp := sub(p, c)
	d5, d6 := dot(ab, cp), dot(ac, cp)
	if d6 >= 0 && d5 <= d6 {
		return dot(cp, cp)
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		q := sub(ap, scale(ac, d2/(d2-d6)))
		return dot(q, q)
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		q := sub(p, add(b, scale(sub(c, b), w)))
		return dot(q, q)
	}
	den := 1 / (va + vb + vc)
	v, w := vb*den, vc*den
	q := sub(ap, add(scale(ab, v), scale(ac, w)))
	return dot(q, q)
}

// distanceGrid is a signed distance sampled at the nodes lo + cell·(i, j, k), read by
// trilinear interpolation.
type distanceGrid struct {
	lo   Vec3
	cell float64
	band float64
	n    [3]int
	d    []float64
}

func (g *distanceGrid) node(i, j, k int) Vec3 {
	return Vec3{g.lo[0] + float64(i)*g.cell, g.lo[1] + float64(j)*g.cell, g.lo[2] + float64(k)*g.cell}
}

// distance interpolates the grid trilinearly; its gradient is the interpolant's, normalised.
// Outside the grid the body is at least band away.
func (g *distanceGrid) distance(p Vec3) (float64, Vec3) {
	var i [3]int
	var f [3]float64
	for d := 0; d < 3; d++ {
		x := (p[d] - g.lo[d]) / g.cell
		if !(x >= 0 && x <= float64(g.n[d]-1)) {
			return g.band + g.cell, Vec3{0, 1, 0}
		}
		i[d] = min(int(x), g.n[d]-2)
		f[d] = x - float64(i[d])
	}
	nx, ny := g.n[0], g.n[1]
	at := func(a, b, c int) float64 { return g.d[((i[2]+c)*ny+i[1]+b)*nx+i[0]+a] }
	c000, c100, c010, c110 := at(0, 0, 0), at(1, 0, 0), at(0, 1, 0), at(1, 1, 0)
	c001, c101, c011, c111 := at(0, 0, 1), at(1, 0, 1), at(0, 1, 1), at(1, 1, 1)
	x, y, z := f[0], f[1], f[2]
	c00 := c000 + x*(c100-c000)
	c10 := c010 + x*(c110-c010)
	c01 := c001 + x*(c101-c001)
	c11 := c011 + x*(c111-c011)
	c0 := c00 + y*(c10-c00)
	c1 := c01 + y*(c11-c01)
	d := c0 + z*(c1-c0)
	gx := (1-y)*(1-z)*(c100-c000) + y*(1-z)*(c110-c010) + (1-y)*z*(c101-c001) + y*z*(c111-c011)
	gy := (1-z)*(c10-c00) + z*(c11-c01)
	gz := c1 - c0
	n := Vec3{gx, gy, gz}
	if l := norm(n); l > 0 {
		n = scale(n, 1/l)
	} else {
		n = Vec3{0, 1, 0}
	}
	return d, n
}
