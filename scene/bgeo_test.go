package scene

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// writeBGEO builds a classic BGEO v5 file independently of the reader: two point attributes
// (velocity: 3 words, id: 1 word) and the given points.
func writeBGEO(x, v []mgl64.Vec3) []byte {
	var b bytes.Buffer
	be := func(d any) { binary.Write(&b, binary.BigEndian, d) }
	b.WriteString("BgeoV")
	be([9]int32{5, int32(len(x)), 0, 0, 0, 2, 0, 0, 0})
	for _, a := range []struct {
		name string
		size uint16
		typ  int32
	}{{"velocity", 3, 5}, {"id", 1, 1}} {
		be(uint16(len(a.name)))
		b.WriteString(a.name)
		be(a.size)
		be(a.typ)
		for k := uint16(0); k < a.size; k++ {
			be(uint32(0))
		}
	}
	for i := range x {
		be([4]float32{float32(x[i][0]), float32(x[i][1]), float32(x[i][2]), 1})
		be([3]float32{float32(v[i][0]), float32(v[i][1]), float32(v[i][2])})
		be(int32(i))
	}
	return b.Bytes()
}

func TestReadBGEORoundTrip(t *testing.T) {
	// Positions and velocities come back to float32 precision, gzipped or not.
	x := []mgl64.Vec3{{1, 2, 3}, {-0.5, 0.25, 7}}
	v := []mgl64.Vec3{{0, -1, 0}, {2, 0, 0.5}}
	raw := writeBGEO(x, v)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	for name, data := range map[string][]byte{"raw": raw, "gzip": gz.Bytes()} {
		gx, gv, err := ReadBGEO(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i := range x {
			if gx[i].Sub(x[i]).Len() > 1e-6 || gv[i].Sub(v[i]).Len() > 1e-6 {
				t.Fatalf("%s: point %d: %v %v, want %v %v", name, i, gx[i], gv[i], x[i], v[i])
			}
		}
	}
	if _, _, err := ReadBGEO(bytes.NewReader(raw[:len(raw)-5])); err == nil {
		t.Fatal("truncated file accepted")
	}
	if _, _, err := ReadBGEO(bytes.NewReader([]byte("hello world, not bgeo"))); err == nil {
		t.Fatal("non-BGEO accepted")
	}
}

func TestReadCorpusBGEO(t *testing.T) {
	corpusFiles(t)
	// particle_grid.bgeo holds 400 particles of a regular grid at spacing 0.75 (the scenes
	// scale it by 0.125): every particle's nearest neighbour is exactly that far away, which
	// a misread record layout would break.
	const spacing, tol = 0.75, 1e-5
	x, _, err := LoadBGEO(filepath.Join(corpus, "../models/particle_grid.bgeo"))
	if err != nil {
		t.Fatal(err)
	}
	if len(x) != 400 {
		t.Fatalf("%d particles, want 400", len(x))
	}
	for i := range x {
		best := math.Inf(1)
		for j := range x {
			if i != j {
				best = min(best, x[i].Sub(x[j]).Len())
			}
		}
		if math.Abs(best-spacing) > tol {
			t.Fatalf("particle %d: nearest neighbour %.6f m, want %g", i, best, spacing)
		}
	}
}

// readBGEOFields parses a classic BGEO v5 file written by WriteBGEO independently of
// ReadBGEO: the header counts, every point attribute's name, size and type, each point's
// words, and the two closing bytes; it returns the particles with the attributes the export
// formats share.
func readBGEOFields(t *testing.T, data []byte) ([]particle, []string) {
	t.Helper()
	r := bytes.NewReader(data)
	rd := func(v any) {
		if err := binary.Read(r, binary.BigEndian, v); err != nil {
			t.Fatalf("bgeo: %v", err)
		}
	}
	var magic [5]byte
	rd(&magic)
	if string(magic[:]) != "BgeoV" {
		t.Fatalf("bgeo: magic %q", magic)
	}
	var c [9]int32
	rd(&c)
	if c[0] != 5 || c[2] != 0 || c[3] != 0 || c[4] != 0 || c[6] != 0 || c[7] != 0 || c[8] != 0 {
		t.Fatalf("bgeo: header counts %v: version 5 and only points with point attributes", c)
	}
	type attr struct {
		name string
		size int
		typ  int32
	}
	var attrs []attr
	var names []string
	for a := int32(0); a < c[5]; a++ {
		var nl uint16
		rd(&nl)
		name := make([]byte, nl)
		rd(name)
		var size uint16
		var typ int32
		rd(&size)
		rd(&typ)
		for k := 0; k < int(size); k++ {
			var d int32
			rd(&d)
			if d != 0 {
				t.Fatalf("bgeo: attribute %s default %d", name, d)
			}
		}
		attrs = append(attrs, attr{string(name), int(size), typ})
		names = append(names, fmt.Sprintf("%s:%d:%d", name, size, typ))
	}
	var ps []particle
	for i := int32(0); i < c[1]; i++ {
		var xw [4]float32
		rd(&xw)
		if xw[3] != 1 {
			t.Fatalf("bgeo: point %d: w = %g", i, xw[3])
		}
		p := particle{x: [3]float64{float64(xw[0]), float64(xw[1]), float64(xw[2])}}
		for _, a := range attrs {
			switch {
			case a.typ == 1:
				var v int32
				rd(&v)
				p.body = int(v)
			case a.size == 3:
				var v [3]float32
				rd(&v)
				p.v = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
			default:
				var v float32
				rd(&v)
				switch a.name {
				case "density":
					p.density = float64(v)
				case "pressure":
					p.pressure = float64(v)
				}
			}
		}
		ps = append(ps, p)
	}
	var end [2]byte
	rd(&end)
	if end != [2]byte{0x00, 0xff} || r.Len() != 0 {
		t.Fatalf("bgeo: ends with %x and %d more bytes", end, r.Len())
	}
	return ps, names
}

func TestBGEORoundTrip(t *testing.T) {
	// The exported frame reads back through an independent parser (every field, float32
	// precision) and through ReadBGEO (positions and velocities), the importer SPlisHSPlasH
	// scenes use.
	var buf bytes.Buffer
	if err := WriteBGEO(&buf, testFrame()); err != nil {
		t.Fatal(err)
	}
	ps, names := readBGEOFields(t, buf.Bytes())
	if got := fmt.Sprint(names); got != "[velocity:3:5 density:1:0 pressure:1:0 body:1:1]" {
		t.Errorf("bgeo attributes %s", got)
	}
	compare(t, "bgeo", ps, want(), false)
	x, v, err := ReadBGEO(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	w := want()
	for i := range w {
		if mgl64.Vec3(w[i].x).Sub(x[i]).Len() > 1e-3*mgl64.Vec3(w[i].x).Len() || mgl64.Vec3(w[i].v).Sub(v[i]).Len() > 1e-3*(1+mgl64.Vec3(w[i].v).Len()) {
			t.Fatalf("ReadBGEO point %d: %v %v, want %v %v", i, x[i], v[i], w[i].x, w[i].v)
		}
	}
}
