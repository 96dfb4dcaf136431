package scene

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
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
