package scene

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
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
