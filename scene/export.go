package scene

import (
	"bufio"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/go-gl/mathgl/mgl64"
)

// FrameBody is one body's particles in an exported frame. X fixes the particle count; V,
// Density and Pressure are either empty (a boundary body has no velocity or pressure of its
// own, and is written with zeros) or exactly as long as X.
type FrameBody struct {
	Name     string
	Phase    string       // "fluid", "boundary", ...
	X        []mgl64.Vec3 // position (m)
	V        []mgl64.Vec3 // velocity (m/s); empty is written as zeros
	Density  []float64    // kg/m^3; empty is written as zeros
	Pressure []float64    // Pa; empty is written as zeros

	RestDensity float64 // the body's material ρ0 (kg/m^3), the same for all its particles
	Viscosity   float64 // the body's material ν (m^2/s)
}

// Frame is one exported state: every body's particles at one simulated time.
type Frame struct {
	Time   float64 // simulated time (s)
	Bodies []FrameBody
	// Fields names the per-particle fields to write, as ParseFields returns them; nil writes
	// DefaultFields.
	Fields []string
}

// exportField is one per-particle quantity the exporters can write. The names are those of
// the solver's field registry (physics.FluidSet.Fields) for the fields a body keeps between
// steps, plus body, the body index. Exactly one of vec, scalar and index is set.
type exportField struct {
	name, unit string
	vec        func(b *FrameBody, i int) mgl64.Vec3
	scalar     func(b *FrameBody, i int) float64
	index      bool
}

// exportFields is the registry of exportable fields in the order every format writes them.
// position and body are always written: they say where a particle is and which body it
// belongs to. The solver's other registered fields (vstar, pressureAcceleration, mass) live
// only in the packed solver arrays during a step and are not kept on the bodies.
var exportFields = []exportField{
	{name: "position", unit: "m", vec: func(b *FrameBody, i int) mgl64.Vec3 { return b.X[i] }},
	{name: "velocity", unit: "m/s", vec: (*FrameBody).vel},
	{name: "density", unit: "kg/m^3", scalar: func(b *FrameBody, i int) float64 { return at(b.Density, i) }},
	{name: "pressure", unit: "Pa", scalar: func(b *FrameBody, i int) float64 { return at(b.Pressure, i) }},
	{name: "restDensity", unit: "kg/m^3", scalar: func(b *FrameBody, i int) float64 { return b.RestDensity }},
	{name: "viscosity", unit: "m^2/s", scalar: func(b *FrameBody, i int) float64 { return b.Viscosity }},
	{name: "body", index: true},
}

// DefaultFields are the fields written when none are chosen.
var DefaultFields = []string{"position", "velocity", "density", "pressure", "body"}

// FieldNames lists every exportable field, in the order the formats write them.
func FieldNames() []string {
	out := make([]string, len(exportFields))
	for i, f := range exportFields {
		out[i] = f.name
	}
	return out
}

// ParseFields turns a comma-separated list of field names ("velocity,density") into the
// fields to export, in registry order, with position and body always included. An unknown
// name is an error that lists the available ones.
func ParseFields(list string) ([]string, error) {
	want := map[string]bool{"position": true, "body": true}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(FieldNames(), n) {
			return nil, fmt.Errorf("unknown export field %q (available: %s; position and body are always written)", n, strings.Join(FieldNames(), ", "))
		}
		want[n] = true
	}
	var out []string
	for _, f := range exportFields {
		if want[f.name] {
			out = append(out, f.name)
		}
	}
	return out, nil
}

// selected returns the registry entries the frame writes, position and body excluded (every
// format writes those in its own way).
func (fr *Frame) selected() ([]exportField, error) {
	names := fr.Fields
	if names == nil {
		names = DefaultFields
	}
	var out []exportField
	for _, f := range exportFields {
		if slices.Contains(names, f.name) && f.name != "position" && !f.index {
			out = append(out, f)
		}
	}
	for _, n := range names {
		if !slices.Contains(FieldNames(), n) {
			return nil, fmt.Errorf("export: unknown field %q (available: %s)", n, strings.Join(FieldNames(), ", "))
		}
	}
	return out, nil
}

// Format is an export format, named by its usual file extension.
type Format string

// The export formats. All of them list every particle of every body, in body order and then
// particle order, so a particle's row is the same in every format.
const (
	VTK Format = "vtk" // legacy VTK 3.0, binary POLYDATA with point data, for ParaView
	PLY Format = "ply" // binary little-endian PLY point cloud, for Blender and Houdini
	CSV Format = "csv" // text, one row per particle, numbers that read back exactly
	// BGEO is Houdini's classic binary geometry (version 5, uncompressed), the particle
	// format SPlisHSPlasH and partio write and sluice's importer reads.
	BGEO Format = "bgeo"
)

// formats lists the allowed formats in the order error messages name them.
var formats = []Format{VTK, PLY, CSV, BGEO}

// ParseFormat maps a name (as given on a command line or in a scene) to a Format. An unknown
// name is an error that lists the allowed ones, so the user can fix it without the docs.
func ParseFormat(s string) (Format, error) {
	names := make([]string, len(formats))
	for i, f := range formats {
		if s == string(f) {
			return f, nil
		}
		names[i] = string(f)
	}
	return "", fmt.Errorf("unknown export format %q (allowed: %s)", s, strings.Join(names, ", "))
}

// Ext returns the file extension including the dot (".vtk", ".ply", ".csv"), which is what
// ParaView, Blender and spreadsheets use to pick a reader.
func (f Format) Ext() string { return "." + string(f) }

// Write writes the frame to w in format f.
func Write(w io.Writer, f Format, fr *Frame) error {
	switch f {
	case VTK:
		return WriteVTK(w, fr)
	case PLY:
		return WritePLY(w, fr)
	case CSV:
		return WriteCSV(w, fr)
	case BGEO:
		return WriteBGEO(w, fr)
	}
	_, err := ParseFormat(string(f))
	return err
}

// WriteFile writes the frame to dir/<prefix>_<index %06d><ext>, creating dir, and returns the
// path. The zero padding keeps a frame sequence in order when sorted by name, which is how
// ParaView groups numbered files into one time series. A file that could not be written
// completely is removed, so a truncated frame is never left behind looking like a good one.
func WriteFile(dir, prefix string, index int, f Format, fr *Frame) (string, error) {
	if _, err := ParseFormat(string(f)); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("%s_%06d%s", prefix, index, f.Ext()))
	file, err := os.Create(path)
	if err != nil {
		return "", err
	}
	err = Write(file, f, fr)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("writing %s: %w", path, err)
	}
	return path, nil
}

// check returns the total particle count after verifying that every optional field of every
// body is either empty or as long as X. Anything else is a caller bug, and writing it would
// silently drop or misalign values, so it is reported with the body and the field.
func (fr *Frame) check() (int, error) {
	if fr == nil {
		return 0, errors.New("export: nil frame")
	}
	n := 0
	for bi := range fr.Bodies {
		b := &fr.Bodies[bi]
		nx := len(b.X)
		for _, f := range []struct {
			name string
			n    int
		}{{"V", len(b.V)}, {"Density", len(b.Density)}, {"Pressure", len(b.Pressure)}} {
			if f.n != 0 && f.n != nx {
				return 0, fmt.Errorf("export: body %d %q: field %s has %d values for %d particles (want 0 or %d)",
					bi, b.Name, f.name, f.n, nx, nx)
			}
		}
		n += nx
	}
	// VTK and PLY store counts and body indices as 32-bit signed integers.
	if n > math.MaxInt32 || len(fr.Bodies) > math.MaxInt32 {
		return 0, fmt.Errorf("export: %d particles in %d bodies exceed the 32-bit counts of the file formats", n, len(fr.Bodies))
	}
	return n, nil
}

// vel returns particle i's velocity, zero when the body has none.
func (b *FrameBody) vel(i int) mgl64.Vec3 {
	if len(b.V) == 0 {
		return mgl64.Vec3{}
	}
	return b.V[i]
}

// at returns s[i], zero when the field is empty.
func at(s []float64, i int) float64 {
	if len(s) == 0 {
		return 0
	}
	return s[i]
}

// binWriter writes fixed-size binary values through a buffer in one byte order. The buffer
// keeps the many 4-byte writes cheap even on an unbuffered file, and it remembers the first
// error, so the writers check once, at Flush.
type binWriter struct {
	*bufio.Writer
	order binary.ByteOrder
	buf   [4]byte
}

func newBinWriter(w io.Writer, order binary.ByteOrder) *binWriter {
	return &binWriter{Writer: bufio.NewWriterSize(w, 1<<16), order: order}
}

// f32 writes v rounded to float32, the precision both binary formats use for point data.
func (bw *binWriter) f32(v float64) {
	bw.order.PutUint32(bw.buf[:], math.Float32bits(float32(v)))
	bw.Write(bw.buf[:])
}

// i32 writes v as a 32-bit signed integer; check has bounded every value passed here.
func (bw *binWriter) i32(v int) {
	bw.order.PutUint32(bw.buf[:], uint32(int32(v)))
	bw.Write(bw.buf[:])
}

// WriteVTK writes a legacy VTK file (version 3.0, BINARY, so big-endian as that format
// requires): the particles as POLYDATA POINTS with one VERTEX cell each, so ParaView renders
// them without a Glyph filter, and as point data the frame's fields (by default velocity,
// density and pressure) and the body index. Each binary block ends with a newline, which
// VTK's reader expects before the next keyword.
func WriteVTK(w io.Writer, fr *Frame) error {
	n, err := fr.check()
	if err != nil {
		return err
	}
	sel, err := fr.selected()
	if err != nil {
		return err
	}
	bw := newBinWriter(w, binary.BigEndian)
	fmt.Fprintf(bw, "# vtk DataFile Version 3.0\nsluice t=%s\nBINARY\nDATASET POLYDATA\nPOINTS %d float\n",
		strconv.FormatFloat(fr.Time, 'g', -1, 64), n)
	for _, b := range fr.Bodies {
		for _, x := range b.X {
			bw.f32(x[0])
			bw.f32(x[1])
			bw.f32(x[2])
		}
	}
	fmt.Fprintf(bw, "\nVERTICES %d %d\n", n, 2*n)
	for i := 0; i < n; i++ {
		bw.i32(1) // one point in this cell
		bw.i32(i)
	}
	fmt.Fprintf(bw, "\nPOINT_DATA %d\n", n)
	for _, f := range sel {
		if f.vec != nil {
			fmt.Fprintf(bw, "VECTORS %s float\n", f.name)
		} else {
			fmt.Fprintf(bw, "SCALARS %s float 1\nLOOKUP_TABLE default\n", f.name)
		}
		for bi := range fr.Bodies {
			b := &fr.Bodies[bi]
			for i := range b.X {
				if f.vec != nil {
					v := f.vec(b, i)
					bw.f32(v[0])
					bw.f32(v[1])
					bw.f32(v[2])
				} else {
					bw.f32(f.scalar(b, i))
				}
			}
		}
		bw.WriteString("\n")
	}
	bw.WriteString("SCALARS body int 1\nLOOKUP_TABLE default\n")
	for bi := range fr.Bodies {
		for range fr.Bodies[bi].X {
			bw.i32(bi)
		}
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// WritePLY writes a binary little-endian PLY point cloud: per vertex x, y, z, the frame's
// fields (by default vx, vy, vz, density, pressure; see columns) as float32 and the body
// index (int32). PLY has no
// string data, so the header maps each body index to its name and phase in a
// "comment body <index> <name> <phase>" line, after a "comment sluice t=<time>" line.
func WritePLY(w io.Writer, fr *Frame) error {
	n, err := fr.check()
	if err != nil {
		return err
	}
	sel, err := fr.selected()
	if err != nil {
		return err
	}
	bw := newBinWriter(w, binary.LittleEndian)
	fmt.Fprintf(bw, "ply\nformat binary_little_endian 1.0\ncomment sluice t=%s\n", strconv.FormatFloat(fr.Time, 'g', -1, 64))
	for i, b := range fr.Bodies {
		fmt.Fprintf(bw, "comment body %d %s %s\n", i, headerToken(b.Name), headerToken(b.Phase))
	}
	fmt.Fprintf(bw, "element vertex %d\n", n)
	for _, p := range columns(sel) {
		fmt.Fprintf(bw, "property float %s\n", p)
	}
	bw.WriteString("property int body\nend_header\n")
	bw.points(fr, sel, false)
	return bw.Flush()
}

// points writes every particle as float32 words: x, y, z, then w = 1 when homogeneous (BGEO),
// then the selected fields (a vector as three words), then the body index as an int32.
func (bw *binWriter) points(fr *Frame, sel []exportField, homogeneous bool) {
	for bi := range fr.Bodies {
		b := &fr.Bodies[bi]
		for i, x := range b.X {
			bw.f32(x[0])
			bw.f32(x[1])
			bw.f32(x[2])
			if homogeneous {
				bw.f32(1)
			}
			for _, f := range sel {
				if f.vec != nil {
					v := f.vec(b, i)
					bw.f32(v[0])
					bw.f32(v[1])
					bw.f32(v[2])
				} else {
					bw.f32(f.scalar(b, i))
				}
			}
			bw.i32(bi)
		}
	}
}

// columns names the PLY properties and CSV columns of the selected fields after x, y, z: a
// vector field is three columns named by its first letter and the axis (velocity: vx, vy, vz).
func columns(sel []exportField) []string {
	out := []string{"x", "y", "z"}
	for _, f := range sel {
		if f.vec != nil {
			c := f.name[:1]
			out = append(out, c+"x", c+"y", c+"z")
		} else {
			out = append(out, f.name)
		}
	}
	return out
}

// headerToken returns s unchanged when it is one printable ASCII word, and Go-quoted (ASCII
// only) otherwise. A PLY header is ASCII lines of space-separated words, so a name with a
// space would make the comment ambiguous and one with a newline would break the header.
func headerToken(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) || r == ' ' || r == '"' || r == '\\' {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}

// WriteCSV writes a header line — `body,phase,x,y,z` and the frame's fields (by default
// `vx,vy,vz,density,pressure`) — and one row per particle. Numbers are in the shortest form
// that parses back to the same float64, so CSV is the lossless format; names are quoted per
// RFC 4180 by encoding/csv where they need it.
func WriteCSV(w io.Writer, fr *Frame) error {
	if _, err := fr.check(); err != nil {
		return err
	}
	sel, err := fr.selected()
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	header := append([]string{"body", "phase"}, columns(sel)...)
	if err := cw.Write(header); err != nil {
		return err
	}
	ff := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	row := make([]string, len(header))
	for bi := range fr.Bodies {
		b := &fr.Bodies[bi]
		row[0], row[1] = b.Name, b.Phase
		for i, x := range b.X {
			row = append(row[:2], ff(x[0]), ff(x[1]), ff(x[2]))
			for _, f := range sel {
				if f.vec != nil {
					v := f.vec(b, i)
					row = append(row, ff(v[0]), ff(v[1]), ff(v[2]))
				} else {
					row = append(row, ff(f.scalar(b, i)))
				}
			}
			if err := cw.Write(row); err != nil {
				return err // a write error of w, seen once the csv buffer spilled
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
