package scene

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/boundary"
)

// Mesh is a triangle mesh: vertex positions and triangles as vertex index triples.
type Mesh struct {
	V    []mgl64.Vec3
	Tris [][3]int32
}

// LoadOBJ reads the vertices (v) and faces (f) of a Wavefront OBJ file; texture coordinates,
// normals, groups and materials are ignored. Polygons are split into triangle fans.
func LoadOBJ(path string) (*Mesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := ReadOBJ(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadOBJ parses OBJ text (see LoadOBJ). Face indices may be negative (relative to the end),
// and may carry /texture/normal parts.
func ReadOBJ(r io.Reader) (*Mesh, error) {
	m := &Mesh{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "v":
			if len(fields) < 4 {
				return nil, fmt.Errorf("line %d: vertex needs 3 coordinates", line)
			}
			var v mgl64.Vec3
			for d := 0; d < 3; d++ {
				x, err := strconv.ParseFloat(fields[1+d], 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("line %d: bad vertex coordinate %q", line, fields[1+d])
				}
				v[d] = x
			}
			m.V = append(m.V, v)
		case "f":
			if len(fields) < 4 {
				return nil, fmt.Errorf("line %d: face needs at least 3 vertices", line)
			}
			idx := make([]int32, 0, len(fields)-1)
			for _, fv := range fields[1:] {
				s, _, _ := strings.Cut(fv, "/")
				k, err := strconv.Atoi(s)
				if err != nil || k == 0 {
					return nil, fmt.Errorf("line %d: bad face index %q", line, fv)
				}
				if k < 0 {
					k = len(m.V) + k + 1
				}
				if k < 1 || k > len(m.V) {
					return nil, fmt.Errorf("line %d: face index %d out of range (1..%d)", line, k, len(m.V))
				}
				idx = append(idx, int32(k-1))
			}
			for t := 1; t+1 < len(idx); t++ {
				m.Tris = append(m.Tris, [3]int32{idx[0], idx[t], idx[t+1]})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(m.Tris) == 0 {
		return nil, fmt.Errorf("no faces")
	}
	return m, nil
}

// Transform applies scale, then the rotation by angle (radians) about axis, then the
// translation: SPlisHSPlasH's order for rigid bodies and fluid models.
func (m *Mesh) Transform(scale, axis mgl64.Vec3, angle float64, translation mgl64.Vec3) error {
	var rot mgl64.Mat3
	if angle != 0 {
		l := axis.Len()
		if !(l > 0) {
			return fmt.Errorf("rotation axis %v has zero length", axis)
		}
		rot = mgl64.HomogRotate3D(angle, axis.Mul(1/l)).Mat3()
	} else {
		rot = mgl64.Ident3()
	}
	for i, v := range m.V {
		s := mgl64.Vec3{v[0] * scale[0], v[1] * scale[1], v[2] * scale[2]}
		m.V[i] = rot.Mul3x1(s).Add(translation)
	}
	return nil
}

// SampleSurface places points on every triangle at spacing about s in layers, each s further
// along the triangle's normal when outward, or against it otherwise (see boundary.Mesh).
func (m *Mesh) SampleSurface(s float64, layers int, outward bool) []mgl64.Vec3 {
	return boundary.Mesh(m.V, m.Tris, s, layers, 0, outward)
}

// Closed reports whether every edge is shared by exactly two triangles (a watertight mesh).
func (m *Mesh) Closed() bool {
	edges := map[[2]int32]int{}
	for _, t := range m.Tris {
		for e := 0; e < 3; e++ {
			a, b := t[e], t[(e+1)%3]
			if a > b {
				a, b = b, a
			}
			edges[[2]int32{a, b}]++
		}
	}
	for _, c := range edges {
		if c != 2 {
			return false
		}
	}
	return true
}

// Welded returns the mesh with vertices at identical positions merged (OBJ exporters often
// repeat a corner once per face for its normals or texture coordinates), so that Closed sees
// the shared edges. Triangles keep their order.
func (m *Mesh) Welded() *Mesh {
	idx := make(map[mgl64.Vec3]int32, len(m.V))
	out := &Mesh{Tris: make([][3]int32, len(m.Tris))}
	remap := make([]int32, len(m.V))
	for i, v := range m.V {
		k, ok := idx[v]
		if !ok {
			k = int32(len(out.V))
			idx[v] = k
			out.V = append(out.V, v)
		}
		remap[i] = k
	}
	for t, tri := range m.Tris {
		out.Tris[t] = [3]int32{remap[tri[0]], remap[tri[1]], remap[tri[2]]}
	}
	return out
}

// OpenEdges counts the edges not shared by exactly two triangles, after welding: zero for a
// closed (watertight) mesh, which is what a volume needs.
func (m *Mesh) OpenEdges() int {
	w := m.Welded()
	edges := map[[2]int32]int{}
	for _, t := range w.Tris {
		for e := 0; e < 3; e++ {
			a, b := t[e], t[(e+1)%3]
			if a > b {
				a, b = b, a
			}
			edges[[2]int32{a, b}]++
		}
	}
	n := 0
	for _, c := range edges {
		if c != 2 {
			n++
		}
	}
	return n
}

// Volume returns the volume the mesh encloses (divergence theorem: the sum of the signed
// volumes of the tetrahedra from the origin to each triangle), positive for outward-facing
// triangles. It is meaningful for a closed mesh only.
func (m *Mesh) Volume() float64 {
	v := 0.0
	for _, t := range m.Tris {
		v += m.V[t[0]].Dot(m.V[t[1]].Cross(m.V[t[2]]))
	}
	return v / 6
}

// SampleVolume fills the inside of a closed mesh with particles of spacing s: the points of
// the cubic lattice lo + s·(1+i, 1+j, 1+k) (lo the mesh's lower bounding-box corner) that lie
// inside the mesh and at least s/2 = r from its surface, so every particle's own sphere fits
// inside. For a box this is exactly the fluid-block rule (physics.FluidBlock: a 1 m cube at
// r = 0.025 gives 19³ = 6859 particles), and for a sphere the fluid-sphere rule (points up to
// R − r from the centre). Inside is decided by ray parity: one ray along +x per lattice
// column, its crossings with every triangle over that column sorted, so the cost is the
// number of columns a triangle covers, not points × triangles. The rays are shifted by a
// millionth of a spacing in y and z so that they do not run exactly through edges and
// vertices of axis-aligned meshes; the shift changes the verdict only for points closer to
// the surface than the shift, which the distance test removes anyway. The result is sorted by
// z, then y, then x, so it is deterministic. The mesh must be closed (see OpenEdges).
func (m *Mesh) SampleVolume(s float64) ([]mgl64.Vec3, error) {
	if !(s > 0) {
		return nil, fmt.Errorf("spacing %g must be > 0", s)
	}
	lo, hi := m.V[0], m.V[0]
	for _, v := range m.V {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], v[d]), max(hi[d], v[d])
		}
	}
	var n [3]int
	total := 1.0
	for d := 0; d < 3; d++ {
		n[d] = int(math.Floor((hi[d] - lo[d]) / s))
		total *= float64(max(n[d], 0))
	}
	if total > physics.MaxSamples {
		return nil, fmt.Errorf("the mesh's bounding box holds %.3g lattice points at spacing %g m, more than the limit %.0g", total, s, float64(physics.MaxSamples))
	}
	if n[0] < 1 || n[1] < 1 || n[2] < 1 {
		return nil, nil
	}
	coord := func(d, i int) float64 { return lo[d] + s*float64(1+i) }
	dy, dz := 1e-6*s*0.7548776662, 1e-6*s*0.5698402910 // irrational-looking shifts

	// Crossings of each column's ray with the triangles above or below it.
	cross := make([][]float64, n[1]*n[2])
	for _, t := range m.Tris {
		a, b, c := m.V[t[0]], m.V[t[1]], m.V[t[2]]
		j0 := max(0, int(math.Ceil((min(a[1], b[1], c[1])-lo[1]-dy)/s))-1)
		j1 := min(n[1]-1, int(math.Floor((max(a[1], b[1], c[1])-lo[1]-dy)/s))-1)
		k0 := max(0, int(math.Ceil((min(a[2], b[2], c[2])-lo[2]-dz)/s))-1)
		k1 := min(n[2]-1, int(math.Floor((max(a[2], b[2], c[2])-lo[2]-dz)/s))-1)
		// Barycentric coordinates in the yz projection.
		det := (b[1]-a[1])*(c[2]-a[2]) - (c[1]-a[1])*(b[2]-a[2])
		if det == 0 {
			continue // the triangle is edge-on to the rays
		}
		for k := k0; k <= k1; k++ {
			z := coord(2, k) + dz
			for j := j0; j <= j1; j++ {
				y := coord(1, j) + dy
				u := ((y-a[1])*(c[2]-a[2]) - (c[1]-a[1])*(z-a[2])) / det
				v := ((b[1]-a[1])*(z-a[2]) - (y-a[1])*(b[2]-a[2])) / det
				if u < 0 || v < 0 || u+v > 1 {
					continue
				}
				x := a[0] + u*(b[0]-a[0]) + v*(c[0]-a[0])
				cross[k*n[1]+j] = append(cross[k*n[1]+j], x)
			}
		}
	}
	near := newTriGrid(m, s, 0.5*s)
	// A point exactly r from a face stays, as in the block rule (a box of 7.5 spacings holds
	// round(7.5) − 1 = 7 particles per axis); the relative 1e-9 absorbs the round-off of the
	// placed vertices that would otherwise decide such ties at random.
	r2 := 0.25 * s * s * (1 - 1e-9)
	var out []mgl64.Vec3
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			xs := cross[k*n[1]+j]
			slices.Sort(xs)
			c := 0 // crossings left of the current point
			for i := 0; i < n[0]; i++ {
				p := mgl64.Vec3{coord(0, i), coord(1, j), coord(2, k)}
				for c < len(xs) && xs[c] < p[0] {
					c++
				}
				if c%2 == 1 && near.farther(m, p, r2) {
					out = append(out, p)
				}
			}
		}
	}
	if len(out) > physics.MaxSamples {
		return nil, fmt.Errorf("more than %d particles at spacing %g m", physics.MaxSamples, s)
	}
	return out, nil
}

// triGrid bins triangles into cubic cells so that the triangles within a distance of a point
// are found in the point's cell alone: each triangle is entered in every cell its bounding
// box, widened by that distance, overlaps.
type triGrid struct {
	cell  float64
	cells map[[3]int64][]int32
}

func newTriGrid(m *Mesh, cell, reach float64) *triGrid {
	g := &triGrid{cell: cell, cells: map[[3]int64][]int32{}}
	for ti, t := range m.Tris {
		a, b, c := m.V[t[0]], m.V[t[1]], m.V[t[2]]
		var k0, k1 [3]int64
		for d := 0; d < 3; d++ {
			k0[d] = int64(math.Floor((min(a[d], b[d], c[d]) - reach) / cell))
			k1[d] = int64(math.Floor((max(a[d], b[d], c[d]) + reach) / cell))
		}
		for x := k0[0]; x <= k1[0]; x++ {
			for y := k0[1]; y <= k1[1]; y++ {
				for z := k0[2]; z <= k1[2]; z++ {
					key := [3]int64{x, y, z}
					g.cells[key] = append(g.cells[key], int32(ti))
				}
			}
		}
	}
	return g
}

// farther reports whether p is at least sqrt(d2) from every triangle (d2 at most reach²).
func (g *triGrid) farther(m *Mesh, p mgl64.Vec3, d2 float64) bool {
	key := [3]int64{int64(math.Floor(p[0] / g.cell)), int64(math.Floor(p[1] / g.cell)), int64(math.Floor(p[2] / g.cell))}
	for _, ti := range g.cells[key] {
		t := m.Tris[ti]
		if q := closestOnTriangle(p, m.V[t[0]], m.V[t[1]], m.V[t[2]]); q.Sub(p).LenSqr() < d2 {
			return false
		}
	}
	return true
}

// closestOnTriangle returns the point of triangle abc closest to p (Ericson, Real-Time
// Collision Detection, §5.1.5: the Voronoi regions of the vertices, edges and face).
func closestOnTriangle(p, a, b, c mgl64.Vec3) mgl64.Vec3 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.Add(ab.Mul(d1 / (d1 - d3)))
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.Add(ac.Mul(d2 / (d2 - d6)))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.Add(c.Sub(b).Mul((d4 - d3) / ((d4 - d3) + (d5 - d6))))
	}
	den := va + vb + vc
	if den == 0 {
		return a // degenerate triangle
	}
	v, w := vb/den, vc/den
	return a.Add(ab.Mul(v)).Add(ac.Mul(w))
}
