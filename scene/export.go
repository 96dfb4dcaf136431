package scene

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
)

// FrameBody is one body's particles in an exported frame.
type FrameBody struct {
	Name     string
	Phase    string       // "fluid", "boundary", ...
	X        []mgl64.Vec3 // position (m)
	V        []mgl64.Vec3 // velocity (m/s); nil is written as zeros
	Density  []float64    // kg/m³; nil is written as zeros
	Pressure []float64    // Pa; nil is written as zeros
}

// Frame is one exported state: every body's particles at one time.
type Frame struct {
	Time   float64
	Bodies []FrameBody
}

// Format is an export format.
type Format string

// The export formats.
const (
	VTK Format = "vtk" // legacy VTK, binary POLYDATA with point data (ParaView)
	PLY Format = "ply" // binary little-endian PLY point cloud (Blender, Houdini)
	CSV Format = "csv" // text, one row per particle
)

// ParseFormat maps a name to a Format.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case VTK, PLY, CSV:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown export format %q (allowed: vtk, ply, csv)", s)
}

// Ext returns the file extension with its dot.
func (f Format) Ext() string { return "." + string(f) }

// Write writes the frame in format f.
func Write(w io.Writer, f Format, fr *Frame) error {
	switch f {
	case VTK:
		return WriteVTK(w, fr)
	case PLY:
		return WritePLY(w, fr)
	case CSV:
		return WriteCSV(w, fr)
	}
	return fmt.Errorf("unknown export format %q", f)
}

// WriteFile writes the frame to dir/<prefix>_<index>.<ext> (index zero-padded to six digits),
// creating dir, and returns the path.
func WriteFile(dir, prefix string, index int, f Format, fr *Frame) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s_%06d%s", prefix, index, f.Ext()))
	file, err := os.Create(path)
	if err != nil {
		return "", err
	}
	bw := bufio.NewWriterSize(file, 1<<16)
	err = Write(bw, f, fr)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return path, nil
}

// check verifies that every optional field is either absent or as long as X, so nothing is
// silently dropped or padded by mistake.
func (fr *Frame) check() (int, error) {
	n := 0
	for _, b := range fr.Bodies {
		nx := len(b.X)
		for _, f := range []struct {
			name string
			n    int
		}{{"velocity", len(b.V)}, {"density", len(b.Density)}, {"pressure", len(b.Pressure)}} {
			if f.n != 0 && f.n != nx {
				return 0, fmt.Errorf("body %q: %d %s values for %d particles", b.Name, f.n, f.name, nx)
			}
		}
		n += nx
	}
	return n, nil
}

func vel(b *FrameBody, i int) mgl64.Vec3 {
	if len(b.V) == 0 {
		return mgl64.Vec3{}
	}
	return b.V[i]
}

func scalar(s []float64, i int) float64 {
	if len(s) == 0 {
		return 0
	}
	return s[i]
}

// WriteVTK writes a legacy VTK file (version 3.0, BINARY, big-endian as the format requires):
// POINTS, one VERTEX per particle, and point data density, pressure, velocity and body index.
func WriteVTK(w io.Writer, fr *Frame) error {
	n, err := fr.check()
	if err != nil {
		return err
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "# vtk DataFile Version 3.0\nsluice t=%g\nBINARY\nDATASET POLYDATA\nPOINTS %d float\n", fr.Time, n)
	var buf [4]byte
	f32 := func(v float64) {
		binary.BigEndian.PutUint32(buf[:], math.Float32bits(float32(v)))
		ew.Write(buf[:])
	}
	i32 := func(v int) {
		binary.BigEndian.PutUint32(buf[:], uint32(int32(v)))
		ew.Write(buf[:])
	}
	for _, b := range fr.Bodies {
		for _, x := range b.X {
			f32(x[0])
			f32(x[1])
			f32(x[2])
		}
	}
	fmt.Fprintf(ew, "\nVERTICES %d %d\n", n, 2*n)
	for i := 0; i < n; i++ {
		i32(1)
		i32(i)
	}
	fmt.Fprintf(ew, "\nPOINT_DATA %d\n", n)
	for _, sc := range []struct {
		name string
		get  func(b *FrameBody) []float64
	}{{"density", func(b *FrameBody) []float64 { return b.Density }}, {"pressure", func(b *FrameBody) []float64 { return b.Pressure }}} {
		fmt.Fprintf(ew, "SCALARS %s float 1\nLOOKUP_TABLE default\n", sc.name)
		for bi := range fr.Bodies {
			b := &fr.Bodies[bi]
			s := sc.get(b)
			for i := range b.X {
				f32(scalar(s, i))
			}
		}
		fmt.Fprint(ew, "\n")
	}
	fmt.Fprint(ew, "VECTORS velocity float\n")
	for bi := range fr.Bodies {
		b := &fr.Bodies[bi]
		for i := range b.X {
			v := vel(b, i)
			f32(v[0])
			f32(v[1])
			f32(v[2])
		}
	}
	fmt.Fprint(ew, "\nSCALARS body int 1\nLOOKUP_TABLE default\n")
	for bi := range fr.Bodies {
		for range fr.Bodies[bi].X {
			i32(bi)
		}
	}
	fmt.Fprint(ew, "\n")
	return ew.err
}

// WritePLY writes a binary little-endian PLY point cloud with per-vertex x, y, z, vx, vy, vz,
// density, pressure (float) and body index (int); the header names each body in a comment.
func WritePLY(w io.Writer, fr *Frame) error {
	n, err := fr.check()
	if err != nil {
		return err
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "ply\nformat binary_little_endian 1.0\ncomment sluice t=%g\n", fr.Time)
	for i, b := range fr.Bodies {
		fmt.Fprintf(ew, "comment body %d %s %s\n", i, b.Name, b.Phase)
	}
	fmt.Fprintf(ew, "element vertex %d\n", n)
	for _, p := range []string{"x", "y", "z", "vx", "vy", "vz", "density", "pressure"} {
		fmt.Fprintf(ew, "property float %s\n", p)
	}
	fmt.Fprint(ew, "property int body\nend_header\n")
	var rec [36]byte
	for bi := range fr.Bodies {
		b := &fr.Bodies[bi]
		for i, x := range b.X {
			v := vel(b, i)
			vals := [8]float64{x[0], x[1], x[2], v[0], v[1], v[2], scalar(b.Density, i), scalar(b.Pressure, i)}
			for k, f := range vals {
				binary.LittleEndian.PutUint32(rec[4*k:], math.Float32bits(float32(f)))
			}
			binary.LittleEndian.PutUint32(rec[32:], uint32(int32(bi)))
			ew.Write(rec[:])
		}
	}
	return ew.err
}

// WriteCSV writes a header `body,phase,x,y,z,vx,vy,vz,density,pressure` and one row per
// particle, numbers in the shortest form that reads back to the same float64.
func WriteCSV(w io.Writer, fr *Frame) error {
	if _, err := fr.check(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"body", "phase", "x", "y", "z", "vx", "vy", "vz", "density", "pressure"}); err != nil {
		return err
	}
	row := make([]string, 10)
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for bi := range fr.Bodies {
		b := &fr.Bodies[bi]
		row[0], row[1] = b.Name, b.Phase
		for i, x := range b.X {
			v := vel(b, i)
			row[2], row[3], row[4] = ff(x[0]), ff(x[1]), ff(x[2])
			row[5], row[6], row[7] = ff(v[0]), ff(v[1]), ff(v[2])
			row[8], row[9] = ff(scalar(b.Density, i)), ff(scalar(b.Pressure, i))
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// errWriter keeps the first write error so the writers can check once at the end.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
