// Package surface turns a body of fluid particles into a closed triangle mesh for renderers:
// the level set where the particles' volume fraction φ(x) = Σ_j V_j W(x − x_j) falls to ½
// (1 in the bulk at rest, ½ at the free surface: the SPH colour field, Monaghan 1992, with the
// simulation's own kernel and rest volume), sampled on a block-sparse grid and polygonised by
// marching tetrahedra.
//
// Marching tetrahedra (each grid cube split into six tetrahedra around its main diagonal, the
// Freudenthal-Kuhn split, so neighbouring cubes' faces are cut alike) needs no case table and
// never leaves a crack: a mesh vertex is the crossing on one grid edge, shared by every
// triangle that cuts that edge, and the grid is padded beyond the kernel's support, so the
// mesh is closed (every edge shared by two triangles) and oriented outward.
package surface

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// Mesh is an indexed triangle mesh; triangles are counter-clockwise seen from outside.
type Mesh struct {
	V    []physics.Vec3
	Tris [][3]int32
}

// Volume returns the volume the closed mesh encloses (the divergence theorem over its
// triangles: Σ a·(b × c)/6).
func (m *Mesh) Volume() float64 {
	v := 0.0
	for _, t := range m.Tris {
		a, b, c := m.V[t[0]], m.V[t[1]], m.V[t[2]]
		v += a.Dot(b.Cross(c))
	}
	return v / 6
}

// Iso is the volume fraction of the surface: ½, where the fraction falls from the bulk's 1.
const Iso = 0.5

// blockSide is the number of grid points along a side of a block of the sparse grid.
const blockSide = 8

// MaxPoints bounds the grid points a surface may allocate (8 bytes each): 2.5·10⁸, 2 GB.
const MaxPoints = 250_000_000

// Extract returns the surface of the particles x (each of rest volume vol) under kernel k,
// sampled on a grid of spacing cell (m; r, half the particle spacing, resolves what the
// particles do). Only blocks of the grid within the kernel's support of a particle are
// allocated. It fails when the grid would exceed MaxPoints.
func Extract(x []physics.Vec3, vol float64, k *physics.Kernel, cell float64) (*Mesh, error) {
	if !(cell > 0) || !(vol > 0) {
		return nil, fmt.Errorf("surface: cell %g m and volume %g m³ must be > 0", cell, vol)
	}
	m := &Mesh{}
	if len(x) == 0 {
		return m, nil
	}
	g, err := newGrid(x, k.H, cell)
	if err != nil {
		return nil, err
	}
	g.splat(x, vol, k)
	g.polygonise(m)
	return m, nil
}

// grid is the block-sparse grid of φ: point (i, j, l) is at origin + cell·(i, j, l); block
// (bi, bj, bl) holds the points with i/blockSide = bi, ...; blocks[slot] is -1 when absent.
type grid struct {
	origin     physics.Vec3
	cell       float64
	n          [3]int // points per axis
	nb         [3]int // blocks per axis
	slot       []int32
	phi        []float64 // blockSide³ values per allocated block
	edgeVertex map[uint64]int32
}

func newGrid(x []physics.Vec3, h, cell float64) (*grid, error) {
	lo, hi := x[0], x[0]
	for _, p := range x {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = math.Min(lo[d], p[d]), math.Max(hi[d], p[d])
		}
	}
	g := &grid{cell: cell}
	pad := h + 2*cell // beyond the support: φ < Iso all around, so the mesh closes
	total := 1.0
	for d := 0; d < 3; d++ {
		g.origin[d] = lo[d] - pad
		g.n[d] = int(math.Ceil((hi[d]-lo[d]+2*pad)/cell)) + 1
		g.nb[d] = (g.n[d] + blockSide - 1) / blockSide
		total *= float64(g.nb[d])
	}
	if total > MaxPoints/float64(blockSide*blockSide*blockSide)*8 {
		return nil, fmt.Errorf("surface: a grid of %d x %d x %d points of %g m is too large; use a coarser cell", g.n[0], g.n[1], g.n[2], cell)
	}
	g.slot = make([]int32, g.nb[0]*g.nb[1]*g.nb[2])
	for i := range g.slot {
		g.slot[i] = -1
	}
	// allocate the blocks the particles' supports reach, in particle order (deterministic)
	reach := int(math.Ceil(h / cell))
	allocated := 0
	for _, p := range x {
		var b0, b1 [3]int
		for d := 0; d < 3; d++ {
			c := int(math.Floor((p[d] - g.origin[d]) / cell))
			b0[d] = max(0, c-reach) / blockSide
			b1[d] = min(g.n[d]-1, c+reach+1) / blockSide
		}
		for bi := b0[0]; bi <= b1[0]; bi++ {
			for bj := b0[1]; bj <= b1[1]; bj++ {
				for bl := b0[2]; bl <= b1[2]; bl++ {
					s := &g.slot[(bi*g.nb[1]+bj)*g.nb[2]+bl]
					if *s < 0 {
						*s = int32(allocated)
						allocated++
					}
				}
			}
		}
	}
	if allocated*blockSide*blockSide*blockSide > MaxPoints {
		return nil, fmt.Errorf("surface: %d grid blocks of %g m points exceed %d points; use a coarser cell", allocated, cell, MaxPoints)
	}
	g.phi = make([]float64, allocated*blockSide*blockSide*blockSide)
	return g, nil
}

// at returns the index of point (i, j, l) in phi, or -1 when its block is absent (φ = 0).
func (g *grid) at(i, j, l int) int {
	if i < 0 || j < 0 || l < 0 || i >= g.n[0] || j >= g.n[1] || l >= g.n[2] {
		return -1
	}
	s := g.slot[((i/blockSide)*g.nb[1]+j/blockSide)*g.nb[2]+l/blockSide]
	if s < 0 {
		return -1
	}
	return int(s)*blockSide*blockSide*blockSide + ((i%blockSide)*blockSide+j%blockSide)*blockSide + l%blockSide
}

// value returns φ at point (i, j, l).
func (g *grid) value(i, j, l int) float64 {
	if k := g.at(i, j, l); k >= 0 {
		return g.phi[k]
	}
	return 0
}

// splat adds every particle's V W(p − x) to the points within its support, particle by
// particle (a fixed order: the sums do not depend on anything else).
func (g *grid) splat(x []physics.Vec3, vol float64, k *physics.Kernel) {
	h2 := k.H * k.H
	for _, p := range x {
		var lo, hi [3]int // the points within the support's bounding box
		for d := 0; d < 3; d++ {
			lo[d] = int(math.Ceil((p[d] - k.H - g.origin[d]) / g.cell))
			hi[d] = int(math.Floor((p[d] + k.H - g.origin[d]) / g.cell))
		}
		for i := lo[0]; i <= hi[0]; i++ {
			dx := g.origin[0] + float64(i)*g.cell - p[0]
			for j := lo[1]; j <= hi[1]; j++ {
				dy := g.origin[1] + float64(j)*g.cell - p[1]
				if dx*dx+dy*dy >= h2 {
					continue
				}
				for l := lo[2]; l <= hi[2]; l++ {
					dz := g.origin[2] + float64(l)*g.cell - p[2]
					r2 := dx*dx + dy*dy + dz*dz
					if r2 >= h2 {
						continue
					}
					if q := g.at(i, j, l); q >= 0 {
						g.phi[q] += vol * k.W(math.Sqrt(r2))
					}
				}
			}
		}
	}
}

// The cube's corners, corner c at offset (c>>2 & 1, c>>1 & 1, c & 1), and its six
// tetrahedra around the main diagonal 0–7 (Freudenthal-Kuhn): each walks from corner 0 to 7
// along the three axes in one order.
var tets = [6][4]int{
	{0, 4, 6, 7}, {0, 4, 5, 7}, {0, 2, 6, 7}, {0, 2, 3, 7}, {0, 1, 5, 7}, {0, 1, 3, 7},
}

// polygonise walks the cubes of the allocated blocks in index order and cuts each of their
// tetrahedra by the level Iso.
func (g *grid) polygonise(m *Mesh) {
	g.edgeVertex = map[uint64]int32{}
	for bi := 0; bi < g.nb[0]; bi++ {
		for bj := 0; bj < g.nb[1]; bj++ {
			for bl := 0; bl < g.nb[2]; bl++ {
				if g.slot[(bi*g.nb[1]+bj)*g.nb[2]+bl] < 0 {
					continue
				}
				for i := bi * blockSide; i < min((bi+1)*blockSide, g.n[0]-1); i++ {
					for j := bj * blockSide; j < min((bj+1)*blockSide, g.n[1]-1); j++ {
						for l := bl * blockSide; l < min((bl+1)*blockSide, g.n[2]-1); l++ {
							g.cube(m, i, j, l)
						}
					}
				}
			}
		}
	}
}

// cube cuts the six tetrahedra of the cube with lowest corner (i, j, l).
func (g *grid) cube(m *Mesh, i, j, l int) {
	var idx [8][3]int
	var val [8]float64
	inside := 0
	for c := 0; c < 8; c++ {
		idx[c] = [3]int{i + c>>2&1, j + c>>1&1, l + c&1}
		val[c] = g.value(idx[c][0], idx[c][1], idx[c][2])
		if val[c] > Iso {
			inside++
		}
	}
	if inside == 0 || inside == 8 {
		return
	}
	var inBuf, outBuf [4]int
	for _, t := range tets {
		in, out := inBuf[:0], outBuf[:0]
		for _, c := range t {
			if val[c] > Iso {
				in = append(in, c)
			} else {
				out = append(out, c)
			}
		}
		switch len(in) {
		case 1:
			g.tri(m, &idx, &val, [3][2]int{{in[0], out[0]}, {in[0], out[1]}, {in[0], out[2]}}, in, out)
		case 3:
			g.tri(m, &idx, &val, [3][2]int{{in[0], out[0]}, {in[1], out[0]}, {in[2], out[0]}}, in, out)
		case 2:
			e := [4][2]int{{in[0], out[0]}, {in[0], out[1]}, {in[1], out[1]}, {in[1], out[0]}}
			g.tri(m, &idx, &val, [3][2]int{e[0], e[1], e[2]}, in, out)
			g.tri(m, &idx, &val, [3][2]int{e[0], e[2], e[3]}, in, out)
		}
	}
}

// tri adds the triangle through the crossings on three edges (inside corner, outside
// corner), turned so that its normal points from the inside corners to the outside ones.
func (g *grid) tri(m *Mesh, idx *[8][3]int, val *[8]float64, edges [3][2]int, in, out []int) {
	var v [3]int32
	for k, e := range edges {
		v[k] = g.vertex(m, idx[e[0]], idx[e[1]], val[e[0]], val[e[1]])
	}
	if v[0] == v[1] || v[1] == v[2] || v[0] == v[2] {
		return // a crossing at a corner collapses the triangle
	}
	var ci, co physics.Vec3
	for _, c := range in {
		ci = ci.Add(g.point(idx[c]))
	}
	for _, c := range out {
		co = co.Add(g.point(idx[c]))
	}
	dir := co.Mul(1 / float64(len(out))).Sub(ci.Mul(1 / float64(len(in))))
	a, b, c := m.V[v[0]], m.V[v[1]], m.V[v[2]]
	if b.Sub(a).Cross(c.Sub(a)).Dot(dir) < 0 {
		v[1], v[2] = v[2], v[1]
	}
	m.Tris = append(m.Tris, v)
}

func (g *grid) point(p [3]int) physics.Vec3 {
	return physics.Vec3{g.origin[0] + float64(p[0])*g.cell, g.origin[1] + float64(p[1])*g.cell, g.origin[2] + float64(p[2])*g.cell}
}

// key numbers a grid point.
func (g *grid) key(p [3]int) uint64 {
	return uint64((p[0]*g.n[1]+p[1])*g.n[2] + p[2])
}

// vertex returns the mesh vertex where φ crosses Iso on the edge from point a (inside, φ =
// fa) to point b (outside), made once per edge: linear interpolation of φ.
func (g *grid) vertex(m *Mesh, a, b [3]int, fa, fb float64) int32 {
	ka, kb := g.key(a), g.key(b)
	lo, hi := min(ka, kb), max(ka, kb)
	n := uint64(g.n[0] * g.n[1] * g.n[2])
	key := lo*n + hi
	if v, ok := g.edgeVertex[key]; ok {
		return v
	}
	t := (fa - Iso) / (fa - fb)
	pa, pb := g.point(a), g.point(b)
	v := int32(len(m.V))
	m.V = append(m.V, pa.Add(pb.Sub(pa).Mul(t)))
	g.edgeVertex[key] = v
	return v
}
