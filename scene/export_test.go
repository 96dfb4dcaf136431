package scene

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// VTK and PLY store float32, so values come back to within float32 rounding: relative 6e-8,
// checked at 1e-6.
const f32Tol = 1e-6

func testFrame() *Frame {
	fl := FrameBody{Name: "water, left", Phase: "fluid"}
	for i := 0; i < 5; i++ {
		f := float64(i)
		fl.X = append(fl.X, mgl64.Vec3{0.1 + f, -0.2 * f, 1.5e-3 * f})
		fl.V = append(fl.V, mgl64.Vec3{f, -f, 0.5})
		fl.Density = append(fl.Density, 1000+f)
		fl.Pressure = append(fl.Pressure, 123.25*f)
	}
	wall := FrameBody{Name: "tank", Phase: "boundary", X: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}}
	return &Frame{Time: 0.5, Bodies: []FrameBody{fl, wall}}
}

type particle struct {
	x, v                mgl64.Vec3
	density, pressure   float64
	body                int
	bodyName, phaseName string
}

// flatten lists the frame's particles in export order, zeros for absent fields.
func flatten(fr *Frame) []particle {
	var out []particle
	for bi, b := range fr.Bodies {
		for i := range b.X {
			out = append(out, particle{x: b.X[i], v: vel(&b, i), density: scalar(b.Density, i), pressure: scalar(b.Pressure, i), body: bi, bodyName: b.Name, phaseName: b.Phase})
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) <= f32Tol*math.Max(1, math.Abs(b)) }

func compare(t *testing.T, format string, got, want []particle, exact bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d particles, want %d", format, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		vals := [][2]float64{{g.density, w.density}, {g.pressure, w.pressure}}
		for d := 0; d < 3; d++ {
			vals = append(vals, [2]float64{g.x[d], w.x[d]}, [2]float64{g.v[d], w.v[d]})
		}
		for _, v := range vals {
			if (exact && v[0] != v[1]) || (!exact && !near(v[0], v[1])) {
				t.Fatalf("%s: particle %d: %v, want %v", format, i, g, w)
			}
		}
		if g.body != w.body {
			t.Fatalf("%s: particle %d in body %d, want %d", format, i, g.body, w.body)
		}
	}
}

// readVTK is an independent minimal legacy-VTK binary reader: POINTS and the POINT_DATA arrays.
func readVTK(t *testing.T, data []byte) []particle {
	r := bufio.NewReader(bytes.NewReader(data))
	line := func() string {
		s, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("vtk: %v", err)
		}
		return strings.TrimSpace(s)
	}
	floats := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			var b [4]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				t.Fatal(err)
			}
			out[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(b[:])))
		}
		return out
	}
	if h := line(); h != "# vtk DataFile Version 3.0" {
		t.Fatalf("vtk header %q", h)
	}
	if title := line(); !strings.Contains(title, "t=0.5") {
		t.Fatalf("vtk title %q lacks the time", title)
	}
	if line() != "BINARY" || line() != "DATASET POLYDATA" {
		t.Fatal("vtk: not binary polydata")
	}
	var n int
	var ps []particle
	for {
		s, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "POINTS":
			n, _ = strconv.Atoi(f[1])
			ps = make([]particle, n)
			xs := floats(3 * n)
			for i := range ps {
				ps[i].x = mgl64.Vec3{xs[3*i], xs[3*i+1], xs[3*i+2]}
			}
		case "VERTICES":
			floats(2 * n) // (1, i) pairs, skipped
		case "SCALARS":
			line() // LOOKUP_TABLE
			v := floats(n)
			for i := range ps {
				switch f[1] {
				case "density":
					ps[i].density = v[i]
				case "pressure":
					ps[i].pressure = v[i]
				case "body":
					ps[i].body = int(int32(math.Float32bits(float32(v[i]))))
				}
			}
		case "VECTORS":
			v := floats(3 * n)
			for i := range ps {
				ps[i].v = mgl64.Vec3{v[3*i], v[3*i+1], v[3*i+2]}
			}
		}
	}
	return ps
}

// readPLY is an independent binary little-endian PLY reader for float and int properties.
func readPLY(t *testing.T, data []byte) ([]particle, []string) {
	r := bufio.NewReader(bytes.NewReader(data))
	var props []string
	var comments []string
	n := 0
	for {
		s, err := r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(s)
		if f[0] == "end_header" {
			break
		}
		switch f[0] {
		case "element":
			n, _ = strconv.Atoi(f[2])
		case "property":
			props = append(props, f[1]+" "+f[2])
		case "comment":
			comments = append(comments, strings.Join(f[1:], " "))
		case "format":
			if f[1] != "binary_little_endian" {
				t.Fatalf("ply format %s", f[1])
			}
		}
	}
	ps := make([]particle, n)
	for i := range ps {
		vals := map[string]float64{}
		for _, p := range props {
			var b [4]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				t.Fatal(err)
			}
			u := binary.LittleEndian.Uint32(b[:])
			typ, name := strings.Fields(p)[0], strings.Fields(p)[1]
			if typ == "int" {
				vals[name] = float64(int32(u))
			} else {
				vals[name] = float64(math.Float32frombits(u))
			}
		}
		ps[i] = particle{x: mgl64.Vec3{vals["x"], vals["y"], vals["z"]}, v: mgl64.Vec3{vals["vx"], vals["vy"], vals["vz"]},
			density: vals["density"], pressure: vals["pressure"], body: int(vals["body"])}
	}
	if rest, _ := io.ReadAll(r); len(rest) != 0 {
		t.Fatalf("ply: %d trailing bytes", len(rest))
	}
	return ps, comments
}

func TestVTKRoundTrip(t *testing.T) {
	fr := testFrame()
	var buf bytes.Buffer
	if err := WriteVTK(&buf, fr); err != nil {
		t.Fatal(err)
	}
	compare(t, "vtk", readVTK(t, buf.Bytes()), flatten(fr), false)
}

func TestPLYRoundTrip(t *testing.T) {
	fr := testFrame()
	var buf bytes.Buffer
	if err := WritePLY(&buf, fr); err != nil {
		t.Fatal(err)
	}
	ps, comments := readPLY(t, buf.Bytes())
	compare(t, "ply", ps, flatten(fr), false)
	joined := strings.Join(comments, "\n")
	if !strings.Contains(joined, "body 0 water, left fluid") || !strings.Contains(joined, "body 1 tank boundary") {
		t.Fatalf("ply comments do not name the bodies: %q", joined)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	fr := testFrame()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, fr); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "body,phase,x,y,z,vx,vy,vz,density,pressure" {
		t.Fatalf("csv header %v", rows[0])
	}
	names := map[string]int{}
	for i, b := range fr.Bodies {
		names[b.Name] = i
	}
	var ps []particle
	for _, row := range rows[1:] {
		var v [8]float64
		for k := range v {
			if v[k], err = strconv.ParseFloat(row[2+k], 64); err != nil {
				t.Fatal(err)
			}
		}
		ps = append(ps, particle{x: mgl64.Vec3{v[0], v[1], v[2]}, v: mgl64.Vec3{v[3], v[4], v[5]}, density: v[6], pressure: v[7], body: names[row[0]]})
		if row[1] != fr.Bodies[names[row[0]]].Phase {
			t.Fatalf("csv phase %q for body %q", row[1], row[0])
		}
	}
	compare(t, "csv", ps, flatten(fr), true)
}

func TestExportRejectsMismatchedFields(t *testing.T) {
	fr := testFrame()
	fr.Bodies[0].Pressure = fr.Bodies[0].Pressure[:3]
	for _, f := range []Format{VTK, PLY, CSV} {
		err := Write(io.Discard, f, fr)
		if err == nil || !strings.Contains(err.Error(), `body "water, left": 3 pressure values for 5 particles`) {
			t.Errorf("%s: error %v", f, err)
		}
	}
}

func TestParseFormatAndWriteFile(t *testing.T) {
	if _, err := ParseFormat("obj"); err == nil || !strings.Contains(err.Error(), "vtk, ply, csv") {
		t.Fatalf("ParseFormat(obj) = %v", err)
	}
	dir := filepath.Join(t.TempDir(), "a", "b")
	path, err := WriteFile(dir, "prefix", 7, VTK, testFrame())
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "prefix_000007.vtk" {
		t.Fatalf("file name %s", path)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("file not written: %v", err)
	}
}
