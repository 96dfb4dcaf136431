package scene

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// relTol is the relative tolerance for the binary formats. VTK and PLY store float32, whose
// 24-bit significand rounds a float64 to within 2^-24 ≈ 6e-8 relative; 1e-6 leaves a margin
// for that rounding while still being far tighter than the gap between any two test values,
// so a swapped, shifted or missing value cannot pass. Zero must come back as exactly zero.
const relTol = 1e-6

// fluidName has a comma and a quote so CSV quoting and PLY header quoting are exercised.
const fluidName = `water, "left"`

// testFrame returns two bodies: 5 fluid particles whose every field lies in its own value
// range (so any swapped component or field is caught), and a 3-particle boundary body with nil
// V, Density and Pressure (which must be written as zeros). Most values are not exact float32
// numbers, so the binary round trips really go through float32 rounding.
func testFrame() *Frame {
	fl := FrameBody{Name: fluidName, Phase: "fluid"}
	for i := 0; i < 5; i++ {
		f := float64(i)
		fl.X = append(fl.X, mgl64.Vec3{1.1 + f, -2.3 - 0.7*f, 3.7e-3 * (f + 1)})
		fl.V = append(fl.V, mgl64.Vec3{10.1 + f, -0.31 * (f + 1), 250.5 + 3.3*f})
		fl.Density = append(fl.Density, 998.2+1.7*f)
		fl.Pressure = append(fl.Pressure, 1.2345e4*(f+1))
	}
	wall := FrameBody{Name: "tank", Phase: "boundary",
		X: []mgl64.Vec3{{-0.5, 0, 0.25}, {0.5, -0.125, 1e-4}, {0, 1, -3.3}}}
	return &Frame{Time: 0.5, Bodies: []FrameBody{fl, wall}}
}

// particle is one exported particle as a reader sees it.
type particle struct {
	x, v              [3]float64
	density, pressure float64
	rho0, nu          float64 // the body's material, written only when chosen
	body              int
}

// want lists testFrame's particles in export order, written out here rather than derived with
// the package's own helpers so the expectation does not share their bugs.
func want() []particle {
	var ps []particle
	for i := 0; i < 5; i++ {
		f := float64(i)
		ps = append(ps, particle{
			x:        [3]float64{1.1 + f, -2.3 - 0.7*f, 3.7e-3 * (f + 1)},
			v:        [3]float64{10.1 + f, -0.31 * (f + 1), 250.5 + 3.3*f},
			density:  998.2 + 1.7*f,
			pressure: 1.2345e4 * (f + 1),
			body:     0,
		})
	}
	for _, x := range [][3]float64{{-0.5, 0, 0.25}, {0.5, -0.125, 1e-4}, {0, 1, -3.3}} {
		ps = append(ps, particle{x: x, body: 1}) // nil V, Density, Pressure: zeros
	}
	return ps
}

// compare checks got against want value by value: exactly, or to relTol relative.
func compare(t *testing.T, format string, got, want []particle, exact bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d particles, want %d", format, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		type pair struct {
			name      string
			got, want float64
		}
		pairs := []pair{{"density", g.density, w.density}, {"pressure", g.pressure, w.pressure},
			{"restDensity", g.rho0, w.rho0}, {"viscosity", g.nu, w.nu}}
		for d := 0; d < 3; d++ {
			pairs = append(pairs, pair{fmt.Sprintf("x[%d]", d), g.x[d], w.x[d]}, pair{fmt.Sprintf("v[%d]", d), g.v[d], w.v[d]})
		}
		for _, p := range pairs {
			ok := p.got == p.want
			if !exact {
				ok = math.Abs(p.got-p.want) <= relTol*math.Abs(p.want)
			}
			if !ok {
				t.Errorf("%s: particle %d %s = %v, want %v", format, i, p.name, p.got, p.want)
			}
		}
		if g.body != w.body {
			t.Errorf("%s: particle %d in body %d, want %d", format, i, g.body, w.body)
		}
	}
}

// vtkReader is a minimal, independent legacy-VTK reader for the binary POLYDATA that WriteVTK
// produces. It is strict about keywords, counts and the newline after each binary block,
// since ParaView's reader is too.
type vtkReader struct {
	t *testing.T
	r *bufio.Reader
}

func (v *vtkReader) line() string {
	v.t.Helper()
	s, err := v.r.ReadString('\n')
	if err != nil {
		v.t.Fatalf("vtk: reading a line: %v", err)
	}
	return strings.TrimRight(s, "\n")
}

func (v *vtkReader) word() uint32 {
	v.t.Helper()
	var b [4]byte
	if _, err := io.ReadFull(v.r, b[:]); err != nil {
		v.t.Fatalf("vtk: binary data cut short: %v", err)
	}
	return binary.BigEndian.Uint32(b[:])
}

func (v *vtkReader) floats(n int) []float64 {
	v.t.Helper()
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(math.Float32frombits(v.word()))
	}
	v.endBlock()
	return out
}

func (v *vtkReader) ints(n int) []int32 {
	v.t.Helper()
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(v.word())
	}
	v.endBlock()
	return out
}

// endBlock consumes the newline that must follow every binary block.
func (v *vtkReader) endBlock() {
	v.t.Helper()
	if b, err := v.r.ReadByte(); err != nil || b != '\n' {
		v.t.Fatalf("vtk: binary block not followed by a newline (%q, %v)", b, err)
	}
}

// readVTK parses the file and returns the particles, the title line and the point-data arrays
// it found.
func readVTK(t *testing.T, data []byte) ([]particle, string, map[string]bool) {
	t.Helper()
	v := &vtkReader{t: t, r: bufio.NewReader(bytes.NewReader(data))}
	if h := v.line(); h != "# vtk DataFile Version 3.0" {
		t.Fatalf("vtk: version line %q", h)
	}
	title := v.line()
	if v.line() != "BINARY" || v.line() != "DATASET POLYDATA" {
		t.Fatal("vtk: not BINARY / DATASET POLYDATA")
	}
	var n int
	if _, err := fmt.Sscanf(v.line(), "POINTS %d float", &n); err != nil {
		t.Fatalf("vtk: POINTS line: %v", err)
	}
	ps := make([]particle, n)
	xs := v.floats(3 * n)
	for i := range ps {
		copy(ps[i].x[:], xs[3*i:3*i+3])
		ps[i].body = -1 // must be set by the body array
	}
	seen := map[string]bool{}
	for {
		s, err := v.r.ReadString('\n')
		if err == io.EOF && s == "" {
			break
		}
		f := strings.Fields(s)
		if err != nil || len(f) == 0 {
			t.Fatalf("vtk: expected a keyword line, got %q (%v)", s, err)
		}
		switch {
		case f[0] == "VERTICES" && len(f) == 3:
			if f[1] != strconv.Itoa(n) || f[2] != strconv.Itoa(2*n) {
				t.Fatalf("vtk: %q, want VERTICES %d %d", s, n, 2*n)
			}
			cells := v.ints(2 * n)
			for i := 0; i < n; i++ {
				if cells[2*i] != 1 || cells[2*i+1] != int32(i) {
					t.Fatalf("vtk: vertex cell %d is (%d, %d), want (1, %d)", i, cells[2*i], cells[2*i+1], i)
				}
			}
		case f[0] == "POINT_DATA" && len(f) == 2:
			if f[1] != strconv.Itoa(n) {
				t.Fatalf("vtk: %q for %d points", s, n)
			}
		case f[0] == "SCALARS" && len(f) == 4 && f[3] == "1":
			if lt := v.line(); lt != "LOOKUP_TABLE default" {
				t.Fatalf("vtk: SCALARS %s followed by %q", f[1], lt)
			}
			switch f[1] + " " + f[2] {
			case "density float":
				for i, d := range v.floats(n) {
					ps[i].density = d
				}
			case "pressure float":
				for i, p := range v.floats(n) {
					ps[i].pressure = p
				}
			case "restDensity float":
				for i, r := range v.floats(n) {
					ps[i].rho0 = r
				}
			case "viscosity float":
				for i, nu := range v.floats(n) {
					ps[i].nu = nu
				}
			case "body int":
				for i, b := range v.ints(n) {
					ps[i].body = int(b)
				}
			default:
				t.Fatalf("vtk: unexpected array %q", s)
			}
			seen[f[1]] = true
		case f[0] == "VECTORS" && len(f) == 3 && f[1] == "velocity" && f[2] == "float":
			vs := v.floats(3 * n)
			for i := range ps {
				copy(ps[i].v[:], vs[3*i:3*i+3])
			}
			seen[f[1]] = true
		default:
			t.Fatalf("vtk: unexpected line %q", s)
		}
	}
	return ps, title, seen
}

// plyHeader is what readPLY gets from a PLY header.
type plyHeader struct {
	comments []string
	props    []string // "type name"
	n        int
}

// readPLY is a minimal, independent reader for a binary little-endian PLY with one vertex
// element of 4-byte float and int properties, which is what WritePLY produces.
func readPLY(t *testing.T, data []byte) ([]particle, plyHeader) {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(data))
	var h plyHeader
	for ln := 0; ; ln++ {
		s, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("ply: header cut short: %v", err)
		}
		s = strings.TrimRight(s, "\n")
		f := strings.Fields(s)
		switch {
		case ln == 0:
			if s != "ply" {
				t.Fatalf("ply: magic %q", s)
			}
		case s == "end_header":
		case len(f) == 3 && f[0] == "format":
			if f[1] != "binary_little_endian" || f[2] != "1.0" {
				t.Fatalf("ply: %q", s)
			}
		case len(f) >= 1 && f[0] == "comment":
			h.comments = append(h.comments, strings.TrimPrefix(s, "comment "))
		case len(f) == 3 && f[0] == "element" && f[1] == "vertex":
			if h.n, err = strconv.Atoi(f[2]); err != nil {
				t.Fatalf("ply: %q", s)
			}
		case len(f) == 3 && f[0] == "property":
			h.props = append(h.props, f[1]+" "+f[2])
		default:
			t.Fatalf("ply: unexpected header line %q", s)
		}
		if s == "end_header" {
			break
		}
	}
	ps := make([]particle, h.n)
	for i := range ps {
		vals := map[string]float64{}
		for _, p := range h.props {
			var b [4]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				t.Fatalf("ply: vertex %d cut short: %v", i, err)
			}
			u := binary.LittleEndian.Uint32(b[:])
			typ, name, _ := strings.Cut(p, " ")
			switch typ {
			case "float":
				vals[name] = float64(math.Float32frombits(u))
			case "int":
				vals[name] = float64(int32(u))
			default:
				t.Fatalf("ply: property type %q", typ)
			}
		}
		ps[i] = particle{
			x:       [3]float64{vals["x"], vals["y"], vals["z"]},
			v:       [3]float64{vals["vx"], vals["vy"], vals["vz"]},
			density: vals["density"], pressure: vals["pressure"], body: int(vals["body"]),
			rho0: vals["restDensity"], nu: vals["viscosity"],
		}
	}
	if rest, _ := io.ReadAll(r); len(rest) != 0 {
		t.Fatalf("ply: %d bytes after the last vertex", len(rest))
	}
	return ps, h
}

// plyToken splits one header word off s: a Go-quoted string or a run of non-spaces.
func plyToken(t *testing.T, s string) (tok, rest string) {
	t.Helper()
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			t.Fatalf("ply: bad quoted word in %q", s)
		}
		tok, _ = strconv.Unquote(q)
		return tok, strings.TrimPrefix(s[len(q):], " ")
	}
	tok, rest, _ = strings.Cut(s, " ")
	return tok, rest
}

func TestVTKRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteVTK(&buf, testFrame()); err != nil {
		t.Fatal(err)
	}
	ps, title, seen := readVTK(t, buf.Bytes())
	if !strings.Contains(title, "t=0.5") {
		t.Errorf("vtk: title %q does not give the time", title)
	}
	if got := strings.Join(sortedKeys(seen), ","); got != "body,density,pressure,velocity" {
		t.Errorf("vtk: arrays %s, want the default body,density,pressure,velocity", got)
	}
	compare(t, "vtk", ps, want(), false)
}

func TestPLYRoundTrip(t *testing.T) {
	fr := testFrame()
	var buf bytes.Buffer
	if err := WritePLY(&buf, fr); err != nil {
		t.Fatal(err)
	}
	ps, h := readPLY(t, buf.Bytes())
	compare(t, "ply", ps, want(), false)

	wantProps := "float x,float y,float z,float vx,float vy,float vz,float density,float pressure,int body"
	if got := strings.Join(h.props, ","); got != wantProps {
		t.Errorf("ply: properties %q, want %q", got, wantProps)
	}
	if len(h.comments) == 0 || h.comments[0] != "sluice t=0.5" {
		t.Errorf("ply: comments %q do not start with the time", h.comments)
	}
	var bodies []string
	for _, c := range h.comments {
		if rest, ok := strings.CutPrefix(c, "body "); ok {
			idx, rest := plyToken(t, rest)
			name, rest := plyToken(t, rest)
			phase, rest := plyToken(t, rest)
			if rest != "" {
				t.Errorf("ply: extra words in %q", c)
			}
			bodies = append(bodies, idx+"|"+name+"|"+phase)
		}
	}
	if got, wantB := strings.Join(bodies, "\n"), "0|"+fluidName+"|fluid\n1|tank|boundary"; got != wantB {
		t.Errorf("ply: body comments give\n%s\nwant\n%s", got, wantB)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	fr := testFrame()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, fr); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if first, _, _ := strings.Cut(text, "\n"); first != "body,phase,x,y,z,vx,vy,vz,density,pressure" {
		t.Errorf("csv: header line %q", first)
	}
	if !strings.Contains(text, "\n"+`"water, ""left""",fluid,`) {
		t.Errorf("csv: body name not quoted per RFC 4180:\n%s", text)
	}
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for i, b := range fr.Bodies {
		names[b.Name] = i
	}
	var ps []particle
	for r, row := range rows[1:] {
		bi, ok := names[row[0]]
		if !ok {
			t.Fatalf("csv: row %d names unknown body %q", r+1, row[0])
		}
		if row[1] != fr.Bodies[bi].Phase {
			t.Errorf("csv: row %d phase %q, want %q", r+1, row[1], fr.Bodies[bi].Phase)
		}
		var v [8]float64
		for k := range v {
			if v[k], err = strconv.ParseFloat(row[2+k], 64); err != nil {
				t.Fatalf("csv: row %d: %v", r+1, err)
			}
		}
		ps = append(ps, particle{x: [3]float64{v[0], v[1], v[2]}, v: [3]float64{v[3], v[4], v[5]},
			density: v[6], pressure: v[7], body: bi})
	}
	compare(t, "csv", ps, want(), true)
}

// TestWriteDispatches checks that Write picks the writer for each format and rejects others.
func TestWriteDispatches(t *testing.T) {
	for _, c := range []struct {
		f      Format
		direct func(io.Writer, *Frame) error
	}{{VTK, WriteVTK}, {PLY, WritePLY}, {CSV, WriteCSV}, {BGEO, WriteBGEO}} {
		var a, b bytes.Buffer
		if err := Write(&a, c.f, testFrame()); err != nil {
			t.Fatal(err)
		}
		if err := c.direct(&b, testFrame()); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("Write(%s) differs from its own writer", c.f)
		}
	}
	if err := Write(io.Discard, "obj", testFrame()); err == nil {
		t.Error("Write accepted format obj")
	}
}

func TestExportRejectsMismatchedFields(t *testing.T) {
	cases := []struct {
		field string
		body  int
		set   func(b *FrameBody)
	}{
		{"V", 0, func(b *FrameBody) { b.V = b.V[:4] }},
		{"Density", 1, func(b *FrameBody) { b.Density = []float64{1, 2} }},
		{"Pressure", 0, func(b *FrameBody) { b.Pressure = append(b.Pressure, 7) }},
	}
	for _, c := range cases {
		for _, f := range []Format{VTK, PLY, CSV} {
			fr := testFrame()
			c.set(&fr.Bodies[c.body])
			var buf bytes.Buffer
			err := Write(&buf, f, fr)
			if err == nil {
				t.Errorf("%s: bad %s accepted", f, c.field)
				continue
			}
			name := fmt.Sprintf("%q", fr.Bodies[c.body].Name)
			if msg := err.Error(); !strings.Contains(msg, name) || !strings.Contains(msg, "field "+c.field+" ") {
				t.Errorf("%s: error %q does not name body %s and field %s", f, msg, name, c.field)
			}
			if buf.Len() != 0 {
				t.Errorf("%s: %d bytes written before the error", f, buf.Len())
			}
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, c := range []struct {
		s   string
		f   Format
		ext string
	}{{"vtk", VTK, ".vtk"}, {"ply", PLY, ".ply"}, {"csv", CSV, ".csv"}} {
		f, err := ParseFormat(c.s)
		if err != nil || f != c.f || f.Ext() != c.ext {
			t.Errorf("ParseFormat(%q) = %q (ext %q), %v", c.s, f, f.Ext(), err)
		}
	}
	_, err := ParseFormat("obj")
	if err == nil {
		t.Fatal("ParseFormat accepted obj")
	}
	for _, s := range []string{`"obj"`, "vtk", "ply", "csv"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("ParseFormat(obj) error %q does not mention %s", err, s)
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "frames") // does not exist yet
	path, err := WriteFile(dir, "prefix", 7, VTK, testFrame())
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "prefix_000007.vtk") {
		t.Errorf("path %q, want %q", path, filepath.Join(dir, "prefix_000007.vtk"))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, _, _ := readVTK(t, data)
	compare(t, "vtk file", ps, want(), false)

	// A failed write leaves no file behind.
	bad := testFrame()
	bad.Bodies[1].V = make([]mgl64.Vec3, 1)
	if _, err := WriteFile(dir, "prefix", 8, PLY, bad); err == nil {
		t.Error("WriteFile accepted a bad frame")
	}
	if _, err := os.Stat(filepath.Join(dir, "prefix_000008.ply")); !os.IsNotExist(err) {
		t.Errorf("failed WriteFile left a file (stat: %v)", err)
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestChosenFieldsRoundTrip writes a subset of the fields, including the per-body material
// fields, in every format and reads it back with the independent readers: the chosen fields
// come back, the others are absent.
func TestChosenFieldsRoundTrip(t *testing.T) {
	fr := testFrame()
	fr.Bodies[0].RestDensity, fr.Bodies[0].Viscosity = 1010.3, 0.0375
	var err error
	if fr.Fields, err = ParseFields("viscosity,pressure , restDensity"); err != nil {
		t.Fatal(err)
	}
	exp := want()
	for i := range exp {
		exp[i].v, exp[i].density = [3]float64{}, 0 // not chosen: absent, read as zero
		if exp[i].body == 0 {
			exp[i].rho0, exp[i].nu = 1010.3, 0.0375
		}
	}

	var buf bytes.Buffer
	if err := WriteVTK(&buf, fr); err != nil {
		t.Fatal(err)
	}
	ps, _, seen := readVTK(t, buf.Bytes())
	if got := strings.Join(sortedKeys(seen), ","); got != "body,pressure,restDensity,viscosity" {
		t.Errorf("vtk: arrays %s", got)
	}
	compare(t, "vtk", ps, exp, false)

	buf.Reset()
	if err := WritePLY(&buf, fr); err != nil {
		t.Fatal(err)
	}
	ps, h := readPLY(t, buf.Bytes())
	if got := strings.Join(h.props, ","); got != "float x,float y,float z,float pressure,float restDensity,float viscosity,int body" {
		t.Errorf("ply: properties %s", got)
	}
	compare(t, "ply", ps, exp, false)

	buf.Reset()
	if err := WriteCSV(&buf, fr); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "body,phase,x,y,z,pressure,restDensity,viscosity" {
		t.Fatalf("csv: header %s", got)
	}
	ps = nil
	for r, row := range rows[1:] {
		var v [6]float64
		for k := range v {
			if v[k], err = strconv.ParseFloat(row[2+k], 64); err != nil {
				t.Fatalf("csv: row %d: %v", r+1, err)
			}
		}
		bi := 0
		if row[0] == "tank" {
			bi = 1
		}
		ps = append(ps, particle{x: [3]float64{v[0], v[1], v[2]}, pressure: v[3], rho0: v[4], nu: v[5], body: bi})
	}
	compare(t, "csv", ps, exp, true)

	if _, err := ParseFields("velocity,temperature"); err == nil || !strings.Contains(err.Error(), "available: position, velocity, density, pressure, restDensity, viscosity, body") {
		t.Errorf("unknown field error %v, want one listing the available fields", err)
	}
}

// TestExportFieldsAreRegistryFields keeps the export names those of the solver's field
// registry, so a name means the same quantity in exports, snapshots and the viewer.
func TestExportFieldsAreRegistryFields(t *testing.T) {
	var f physics.FluidSet
	var reg []string
	for _, fd := range f.Fields() {
		reg = append(reg, fd.Name)
	}
	for _, n := range FieldNames() {
		if n != "body" && !slices.Contains(reg, n) {
			t.Errorf("export field %q is not in the solver's registry %v", n, reg)
		}
	}
}

func TestSurfaceFilesAreClosedMeshes(t *testing.T) {
	// A world with a ball of water (radius 0.2 m, r = 1 cm) and a block of goo: one OBJ per
	// fluid body, read back: closed (every edge in two triangles, opposite ways) and the
	// water's volume within 3 % of N·V0 (physics/surface's bound); the PLY of the same mesh
	// has the counts its header declares and the size they imply.
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	water, _ := w.AddFluidSphere("water", components.DefaultMaterial(), mgl64.Vec3{0, 0.5, 0}, 0.2, mgl64.Vec3{})
	gm := components.DefaultMaterial()
	gm.Viscoelastic.Enabled = true
	if _, err := w.AddFluidBlock("goo blob", gm, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{1.1, 0.1, 0.1}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteSurfaceFiles(dir, "run", 7, SurfaceOBJ, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || filepath.Base(paths[0]) != "run_water_000007.obj" || filepath.Base(paths[1]) != "run_goo_blob_000007.obj" {
		t.Fatalf("files %v", paths)
	}
	data, _ := os.ReadFile(paths[0])
	var v []mgl64.Vec3
	type edge struct{ a, b int }
	edges := map[edge]int{}
	vol := 0.0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 4 && f[0] == "v":
			var p mgl64.Vec3
			for k := 0; k < 3; k++ {
				p[k], _ = strconv.ParseFloat(f[k+1], 64)
			}
			v = append(v, p)
		case len(f) == 4 && f[0] == "f":
			var idx [3]int
			for k := 0; k < 3; k++ {
				idx[k], _ = strconv.Atoi(f[k+1])
				idx[k]--
			}
			for k := 0; k < 3; k++ {
				edges[edge{idx[k], idx[(k+1)%3]}]++
			}
			vol += v[idx[0]].Dot(v[idx[1]].Cross(v[idx[2]])) / 6
		}
	}
	for e, n := range edges {
		if n != 1 || edges[edge{e.b, e.a}] != 1 {
			t.Fatalf("edge %v is not shared by two triangles in opposite directions", e)
		}
	}
	want := float64(w.Particles(water).Len()) * w.Sim().Volume0
	if math.Abs(vol/want-1) > 0.03 {
		t.Errorf("the water's surface encloses %.6g m³, its particles %.6g", vol, want)
	}
	t.Logf("water: %d vertices, %d triangles, volume %.6g m³ against N·V0 = %.6g", len(v), len(edges)/3, vol, want)
	plys, err := WriteSurfaceFiles(dir, "run", 7, SurfacePLY, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(plys[0])
	head, body, _ := bytes.Cut(raw, []byte("end_header\n"))
	var nv, nf int
	fmt.Sscanf(string(head[bytes.Index(head, []byte("element vertex")):]), "element vertex %d", &nv)
	fmt.Sscanf(string(head[bytes.Index(head, []byte("element face")):]), "element face %d", &nf)
	if nv != len(v) || nf != len(edges)/3 || len(body) != 12*nv+13*nf {
		t.Errorf("PLY: %d vertices, %d faces, %d bytes of data; the OBJ has %d and %d", nv, nf, len(body), len(v), len(edges)/3)
	}
}
