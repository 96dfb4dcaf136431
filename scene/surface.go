package scene

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/surface"
)

// SurfaceFormat is a triangle-mesh file format for fluid surfaces.
type SurfaceFormat string

// The surface formats: Wavefront OBJ (text) and binary little-endian PLY, which Blender and
// Houdini read.
const (
	SurfaceOBJ SurfaceFormat = "obj"
	SurfacePLY SurfaceFormat = "ply"
)

// ParseSurfaceFormat checks a surface format name.
func ParseSurfaceFormat(s string) (SurfaceFormat, error) {
	switch SurfaceFormat(s) {
	case SurfaceOBJ, SurfacePLY:
		return SurfaceFormat(s), nil
	}
	return "", fmt.Errorf("unknown surface format %q (allowed: obj, ply)", s)
}

// Surfaces meshes the free surface of every fluid body (water and goo) of w on a grid of the
// given cell (m; 0: the particle radius r), as physics/surface extracts it with the world's
// kernel and rest volume. Bodies without particles are left out.
func Surfaces(w *sluice.World, cell float64) (names []string, meshes []*surface.Mesh, err error) {
	s := w.Sim()
	if cell == 0 {
		cell = w.Settings().ParticleRadius
	}
	for _, b := range w.Bodies() {
		if b.Body.Phase != components.Fluid || b.Particles.Len() == 0 {
			continue
		}
		m, err := surface.Extract(b.Particles.X, s.Volume0, &s.Kernel, cell)
		if err != nil {
			return nil, nil, fmt.Errorf("surface of %q: %w", b.Body.Name, err)
		}
		names = append(names, b.Body.Name)
		meshes = append(meshes, m)
	}
	return names, meshes, nil
}

// WriteSurfaceFiles writes the surfaces of w's fluid bodies to dir as
// prefix_body_index.{obj,ply}, one file per body, and returns the paths.
func WriteSurfaceFiles(dir, prefix string, index int, f SurfaceFormat, w *sluice.World, cell float64) ([]string, error) {
	names, meshes, err := Surfaces(w, cell)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for k, m := range meshes {
		path := filepath.Join(dir, fmt.Sprintf("%s_%s_%06d.%s", prefix, fileToken(names[k]), index, f))
		file, err := os.Create(path)
		if err != nil {
			return paths, err
		}
		bw := bufio.NewWriter(file)
		if f == SurfaceOBJ {
			err = WriteSurfaceOBJ(bw, names[k], m)
		} else {
			err = WriteSurfacePLY(bw, m)
		}
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		if cerr := file.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// fileToken keeps a body name's letters, digits, '-' and '_' for a file name.
func fileToken(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, s)
}

// WriteSurfaceOBJ writes the mesh as an OBJ object: vertices with the shortest decimals that
// read back exactly, then 1-based counter-clockwise faces.
func WriteSurfaceOBJ(w io.Writer, name string, m *surface.Mesh) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# sluice fluid surface: %d vertices, %d triangles\no %s\n", len(m.V), len(m.Tris), fileToken(name))
	for _, v := range m.V {
		fmt.Fprintf(bw, "v %s %s %s\n", num64(v[0]), num64(v[1]), num64(v[2]))
	}
	for _, t := range m.Tris {
		fmt.Fprintf(bw, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	return bw.Flush()
}

func num64(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// WriteSurfacePLY writes the mesh as binary little-endian PLY: float vertices, then faces as
// lists of three int indices.
func WriteSurfacePLY(w io.Writer, m *surface.Mesh) error {
	bw := newBinWriter(w, binary.LittleEndian)
	fmt.Fprintf(bw, "ply\nformat binary_little_endian 1.0\ncomment sluice fluid surface\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\nelement face %d\nproperty list uchar int vertex_indices\nend_header\n", len(m.V), len(m.Tris))
	for _, v := range m.V {
		bw.f32(v[0])
		bw.f32(v[1])
		bw.f32(v[2])
	}
	for _, t := range m.Tris {
		bw.WriteByte(3)
		bw.i32(int(t[0]))
		bw.i32(int(t[1]))
		bw.i32(int(t[2]))
	}
	return bw.Flush()
}
