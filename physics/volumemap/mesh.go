package volumemap

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/physics"
)

// mesh is a validated closed triangle mesh with the angle-weighted pseudo-normals of its faces,
// edges and vertices (Bærentzen & Aanæs 2005) and a bounding-volume tree for nearest-triangle
// queries.
type mesh struct {
	v    []physics.Vec3
	tris [][3]int32
	fn   []physics.Vec3 // unit face normals
	en   []physics.Vec3 // edge pseudo-normals, 3 per triangle (edge e runs from corner e to e+1)
	vn   []physics.Vec3 // vertex pseudo-normals
	lo   physics.Vec3   // bounding box
	hi   physics.Vec3
	ts   []tri // the triangles prepared for distance queries
	tree []bvhNode
	ord  []int32 // triangle order of the tree's leaves
}

type bvhNode struct {
	lo, hi      physics.Vec3
	left, right int32 // children; left < 0 marks a leaf holding ord[start:start+count]
	start       int32
	count       int32
}

const leafSize = 4

// newMesh checks that verts and tris form a closed, consistently oriented triangle mesh that
// encloses a positive volume (counter-clockwise seen from outside), and prepares it for
// distance queries.
func newMesh(verts []physics.Vec3, tris [][3]int32) (*mesh, error) {
	if len(verts) < 4 || len(tris) < 4 {
		return nil, fmt.Errorf("volumemap: mesh has %d vertices and %d triangles; a closed mesh needs at least 4 of each", len(verts), len(tris))
	}
	m := &mesh{v: verts, tris: tris}
	m.lo = physics.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	m.hi = physics.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, p := range verts {
		if !physics.Finite(p) {
			return nil, fmt.Errorf("volumemap: vertex %d is %v, not finite", i, p)
		}
		for d := 0; d < 3; d++ {
			m.lo[d], m.hi[d] = min(m.lo[d], p[d]), max(m.hi[d], p[d])
		}
	}
	diag := physics.Norm(m.hi.Sub(m.lo))
	if !(diag > 0) {
		return nil, fmt.Errorf("volumemap: all %d vertices coincide", len(verts))
	}
	// A triangle whose area is below this share of the box's squared diagonal has no usable
	// normal: its cross product is round-off.
	minArea := 1e-14 * diag * diag
	m.fn = make([]physics.Vec3, len(tris))
	vol := 0.0
	for t, tr := range tris {
		for c := 0; c < 3; c++ {
			if tr[c] < 0 || int(tr[c]) >= len(verts) {
				return nil, fmt.Errorf("volumemap: triangle %d corner %d is vertex %d, outside [0, %d)", t, c, tr[c], len(verts))
			}
		}
		a, b, c := verts[tr[0]], verts[tr[1]], verts[tr[2]]
		cr := b.Sub(a).Cross(c.Sub(a))
		area2 := physics.Norm(cr)
		if !(area2/2 > minArea) {
			return nil, fmt.Errorf("volumemap: triangle %d (vertices %d, %d, %d) has area %g m², below %g m² (degenerate)", t, tr[0], tr[1], tr[2], area2/2, minArea)
		}
		m.fn[t] = cr.Mul(1 / area2)
		m.ts = append(m.ts, tri{a: a, ab: b.Sub(a), ac: c.Sub(a), n: m.fn[t]})
		vol += a.Dot(b.Cross(c)) / 6 // signed volume of the tetrahedron (0, a, b, c)
	}
	if err := m.edges(); err != nil {
		return nil, err
	}
	if !(vol > 0) {
		return nil, fmt.Errorf("volumemap: mesh encloses volume %g m³ ≤ 0: its triangles must be counter-clockwise seen from outside (reverse them)", vol)
	}
	m.vertexNormals()
	m.build()
	return m, nil
}

// edges pairs every directed edge with its opposite: a closed, consistently oriented mesh
// uses each undirected edge exactly twice, once in each direction. The edge pseudo-normal is
// the sum of the two faces' unit normals (each face sees the edge under the angle π).
func (m *mesh) edges() error {
	type half struct {
		a, b int32 // a < b
		fwd  bool  // the triangle runs a → b
		slot int32 // 3·triangle + local edge
	}
	hs := make([]half, 0, 3*len(m.tris))
	for t, tr := range m.tris {
		for e := 0; e < 3; e++ {
			a, b := tr[e], tr[(e+1)%3]
			h := half{a: a, b: b, fwd: true, slot: int32(3*t + e)}
			if a > b {
				h.a, h.b, h.fwd = b, a, false
			}
			hs = append(hs, h)
		}
	}
	slices.SortFunc(hs, func(x, y half) int {
		if c := cmp.Compare(x.a, y.a); c != 0 {
			return c
		}
		if c := cmp.Compare(x.b, y.b); c != 0 {
			return c
		}
		return cmp.Compare(x.slot, y.slot)
	})
	m.en = make([]physics.Vec3, 3*len(m.tris))
	for i := 0; i < len(hs); {
		j := i
		for j < len(hs) && hs[j].a == hs[i].a && hs[j].b == hs[i].b {
			j++
		}
		if j-i != 2 {
			return fmt.Errorf("volumemap: mesh is not closed: edge (%d, %d) belongs to %d triangles (triangle %d among them); a closed mesh needs exactly 2", hs[i].a, hs[i].b, j-i, hs[i].slot/3)
		}
		if hs[i].fwd == hs[i+1].fwd {
			return fmt.Errorf("volumemap: triangles %d and %d run along edge (%d, %d) in the same direction: the mesh is not consistently oriented", hs[i].slot/3, hs[i+1].slot/3, hs[i].a, hs[i].b)
		}
		n := m.fn[hs[i].slot/3].Add(m.fn[hs[i+1].slot/3])
		m.en[hs[i].slot], m.en[hs[i+1].slot] = n, n
		i = j
	}
	return nil
}

// vertexNormals sums each face's unit normal times its interior angle at the vertex.
func (m *mesh) vertexNormals() {
	m.vn = make([]physics.Vec3, len(m.v))
	for t, tr := range m.tris {
		for c := 0; c < 3; c++ {
			p := m.v[tr[c]]
			u := m.v[tr[(c+1)%3]].Sub(p)
			w := m.v[tr[(c+2)%3]].Sub(p)
			ang := math.Atan2(physics.Norm(u.Cross(w)), u.Dot(w))
			m.vn[tr[c]] = m.vn[tr[c]].Add(m.fn[t].Mul(ang))
		}
	}
}

// build makes the bounding-volume tree: nodes split their triangles at the median centroid
// along the box's longest axis (ties by triangle index, so the tree is deterministic).
func (m *mesh) build() {
	m.ord = make([]int32, len(m.tris))
	cen := make([]physics.Vec3, len(m.tris))
	for t, tr := range m.tris {
		m.ord[t] = int32(t)
		cen[t] = m.v[tr[0]].Add(m.v[tr[1]]).Add(m.v[tr[2]]).Mul(1.0 / 3)
	}
	m.tree = make([]bvhNode, 0, 2*len(m.tris)/leafSize+1)
	m.node(cen, 0, int32(len(m.tris)))
}

func (m *mesh) node(cen []physics.Vec3, start, end int32) int32 {
	id := int32(len(m.tree))
	nd := bvhNode{left: -1, start: start, count: end - start}
	nd.lo = physics.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	nd.hi = physics.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, t := range m.ord[start:end] {
		for _, vi := range m.tris[t] {
			p := m.v[vi]
			for d := 0; d < 3; d++ {
				nd.lo[d], nd.hi[d] = min(nd.lo[d], p[d]), max(nd.hi[d], p[d])
			}
		}
	}
	m.tree = append(m.tree, nd)
	if end-start <= leafSize {
		return id
	}
	ext := nd.hi.Sub(nd.lo)
	ax := 0
	if ext[1] > ext[ax] {
		ax = 1
	}
	if ext[2] > ext[ax] {
		ax = 2
	}
	slices.SortFunc(m.ord[start:end], func(a, b int32) int {
		if c := cmp.Compare(cen[a][ax], cen[b][ax]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	mid := (start + end) / 2
	l := m.node(cen, start, mid)
	r := m.node(cen, mid, end)
	m.tree[id].left, m.tree[id].right = l, r
	return id
}

// boxDist2 is the squared distance from p to the box [lo, hi] (0 inside).
func boxDist2(p, lo, hi physics.Vec3) float64 {
	s := 0.0
	for d := 0; d < 3; d++ {
		if q := lo[d] - p[d]; q > 0 {
			s += q * q
		} else if q := p[d] - hi[d]; q > 0 {
			s += q * q
		}
	}
	return s
}

// Closest-point features of a triangle: its face, an edge (from corner e to e+1) or a corner.
const (
	featFace = iota
	featEdge0
	featEdge1
	featEdge2
	featVert0
	featVert1
	featVert2
)

// tri is a triangle prepared for distance queries: corner a, edges ab and ac, and the unit
// normal n.
type tri struct {
	a, ab, ac, n [3]float64
}

func dot(u, v [3]float64) float64 { return u[0]*v[0] + u[1]*v[1] + u[2]*v[2] }

// closest returns the squared distance from p to the triangle, the point of the triangle
// nearest p and the feature it lies on, by the Voronoi regions of the corners, edges and face
// (Ericson 2005, "Real-Time Collision Detection", Sec. 5.1.5), written from the barycentric
// conditions.
func (t *tri) closest(p [3]float64) (float64, [3]float64, int) {
	ap := [3]float64{p[0] - t.a[0], p[1] - t.a[1], p[2] - t.a[2]}
	d1, d2 := dot(t.ab, ap), dot(t.ac, ap)
	// u, v: the closest point is a + u·ab + v·ac.
	var u, v float64
	f := featFace
	switch {
	case d1 <= 0 && d2 <= 0:
		f = featVert0
	default:
		d3, d4 := d1-dot(t.ab, t.ab), d2-dot(t.ac, t.ab) // ab·(p − b), ac·(p − b)
		d5, d6 := d1-dot(t.ab, t.ac), d2-dot(t.ac, t.ac) // ab·(p − c), ac·(p − c)
		vc := d1*d4 - d3*d2
		vb := d5*d2 - d1*d6
		va := d3*d6 - d5*d4
		switch {
		case d3 >= 0 && d4 <= d3:
			u, f = 1, featVert1
		case vc <= 0 && d1 >= 0 && d3 <= 0:
			u, f = d1/(d1-d3), featEdge0
		case d6 >= 0 && d5 <= d6:
			v, f = 1, featVert2
		case vb <= 0 && d2 >= 0 && d6 <= 0:
			v, f = d2/(d2-d6), featEdge2
		case va <= 0 && d4-d3 >= 0 && d5-d6 >= 0:
			w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
			u, v, f = 1-w, w, featEdge1
		default:
			den := 1 / (va + vb + vc)
			u, v = vb*den, vc*den
		}
	}
	var c [3]float64
	s := 0.0
	for d := 0; d < 3; d++ {
		c[d] = t.a[d] + u*t.ab[d] + v*t.ac[d]
		q := p[d] - c[d]
		s += q * q
	}
	return s, c, f
}

// signedDistance returns the distance from p to the mesh, negative inside, with the sign of
// (p − c)·n for the closest point c and the angle-weighted pseudo-normal n of the feature c
// lies on (Bærentzen & Aanæs 2005, Theorem 1: the sign is right for any closed, oriented
// mesh). guess is a triangle to try first (its distance bounds the search); the nearest
// triangle is returned for the next query.
func (m *mesh) signedDistance(p physics.Vec3, guess int32) (float64, int32) {
	best, bt := math.Inf(1), int32(-1)
	try := func(t int32) {
		tr := &m.ts[t]
		// The distance to the triangle's plane bounds the distance to the triangle from below.
		if h := (p[0]-tr.a[0])*tr.n[0] + (p[1]-tr.a[1])*tr.n[1] + (p[2]-tr.a[2])*tr.n[2]; h*h > best {
			return
		}
		if d2, _, _ := tr.closest(p); d2 < best || (d2 == best && t < bt) {
			best, bt = d2, t
		}
	}
	if guess >= 0 {
		try(guess)
	}
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		nd := &m.tree[stack[sp]]
		if boxDist2(p, nd.lo, nd.hi) > best {
			continue
		}
		if nd.left < 0 {
			for _, t := range m.ord[nd.start : nd.start+nd.count] {
				try(t)
			}
			continue
		}
		l, r := nd.left, nd.right
		dl := boxDist2(p, m.tree[l].lo, m.tree[l].hi)
		dr := boxDist2(p, m.tree[r].lo, m.tree[r].hi)
		if dl < dr { // visit the nearer child first: push it last
			l, r = r, l
		}
		stack[sp], stack[sp+1] = l, r
		sp += 2
	}
	tr := m.tris[bt]
	_, c, f := m.ts[bt].closest(p)
	var n physics.Vec3
	switch f {
	case featFace:
		n = m.fn[bt]
	case featEdge0, featEdge1, featEdge2:
		n = m.en[3*int(bt)+f-featEdge0]
	default:
		n = m.vn[tr[f-featVert0]]
	}
	d := math.Sqrt(best)
	if (p[0]-c[0])*n[0]+(p[1]-c[1])*n[1]+(p[2]-c[2])*n[2] < 0 {
		d = -d
	}
	return d, bt
}
