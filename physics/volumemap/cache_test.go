package volumemap

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// TestEncodeDecode: a map read back from its stored form answers At bit for bit as the built
// one at 3000 points in and around a box, and Decode refuses the data under another key, with
// one byte altered, cut short, or of another format.
func TestEncodeDecode(t *testing.T) {
	vs, ts := boxMesh(physics.Vec3{0.5, 0.3, 0.4})
	o := DefaultOptions(0.1, 0.025)
	o.Invert = true
	m := mustBuild(t, vs, ts, o, nil)
	key := Key(vs, ts, o)
	data := m.Encode(key)
	d, err := Decode(data, key)
	if err != nil {
		t.Fatal(err)
	}
	if d.Options() != m.Options() {
		t.Fatalf("options %+v read back as %+v", m.Options(), d.Options())
	}
	rng := rand.New(rand.NewSource(5))
	for q := 0; q < 3000; q++ {
		x := physics.Vec3{1.4 * (2*rng.Float64() - 1), 1.2 * (2*rng.Float64() - 1), 1.3 * (2*rng.Float64() - 1)}
		p0, v0, n0, ok0 := m.At(x)
		p1, v1, n1, ok1 := d.At(x)
		same := ok0 == ok1 && math.Float64bits(p0) == math.Float64bits(p1) && math.Float64bits(v0) == math.Float64bits(v1) && n0 == n1
		if !same || m.Far(x) != d.Far(x) {
			t.Fatalf("At(%v): built %v %v %v %v, read back %v %v %v %v", x, p0, v0, n0, ok0, p1, v1, n1, ok1)
		}
	}
	o2 := o
	o2.VolumeFactor = 0.5
	if k2 := Key(vs, ts, o2); k2 == key {
		t.Fatal("Key does not depend on the options")
	} else if _, err := Decode(data, k2); err == nil {
		t.Fatal("Decode accepted a map stored under another key")
	}
	vs2 := append([]physics.Vec3(nil), vs...)
	vs2[3][1] += 1e-9
	if Key(vs2, ts, o) == key {
		t.Fatal("Key does not depend on the vertices")
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)/2] ^= 1
	if _, err := Decode(bad, key); err == nil {
		t.Fatal("Decode accepted a map with a byte altered")
	}
	if _, err := Decode(data[:len(data)-100], key); err == nil {
		t.Fatal("Decode accepted a map cut short")
	}
	if _, err := Decode([]byte("not a map at all, not a map at all, not a map at all, not a map"), key); err == nil {
		t.Fatal("Decode accepted data of another format")
	}
	// a file with a valid checksum whose node spacing is not positive: refused, and said so
	z := mustBuild(t, vs, ts, o, nil)
	z.dx = 0
	if _, err := Decode(z.Encode(key), key); err == nil || !strings.Contains(err.Error(), "node spacing 0 m is not positive") {
		t.Fatalf("Decode of a map with node spacing 0: error %v", err)
	}
}
