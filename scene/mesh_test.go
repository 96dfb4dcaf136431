package scene

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// cube is a unit cube with quads, v/vt/vn face syntax and negative indices.
const cube = `# unit cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vn 0 0 1
f 1//1 4//1 3//1 2//1
f 5/1/1 6/1/1 7/1/1 8/1/1
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f -4 -1 -5 -8
`

func TestReadOBJ(t *testing.T) {
	m, err := ReadOBJ(strings.NewReader(cube))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.V) != 8 || len(m.Tris) != 12 {
		t.Fatalf("%d vertices, %d triangles; want 8 and 12 (six quads as fans)", len(m.V), len(m.Tris))
	}
	if !m.Closed() {
		t.Fatal("cube not closed")
	}
	open, _ := ReadOBJ(strings.NewReader("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"))
	if open.Closed() {
		t.Fatal("a single triangle reported closed")
	}
	for _, bad := range []string{"v 0 0\nf 1 2 3\n", "v 0 0 0\nf 1 2 9\n", "v 0 0 0\nv 1 1 1\nv 2 2 x\nf 1 2 3\n", "v 0 0 0\n"} {
		if _, err := ReadOBJ(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestTransformOrder(t *testing.T) {
	// SPlisHSPlasH's order: scale, then rotate, then translate. (1,0,0) scaled by 2 is
	// (2,0,0), turned 90° about z is (0,2,0), moved by (1,1,1) is (1,3,1).
	const tol = 1e-12
	m := &Mesh{V: []mgl64.Vec3{{1, 0, 0}}}
	if err := m.Transform(mgl64.Vec3{2, 2, 2}, mgl64.Vec3{0, 0, 5}, math.Pi/2, mgl64.Vec3{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if m.V[0].Sub(mgl64.Vec3{1, 3, 1}).Len() > tol {
		t.Fatalf("transformed to %v, want (1,3,1)", m.V[0])
	}
	if err := m.Transform(mgl64.Vec3{1, 1, 1}, mgl64.Vec3{}, 1, mgl64.Vec3{}); err == nil {
		t.Fatal("zero rotation axis accepted")
	}
}

func TestSampleSurfaceCoversTheSurface(t *testing.T) {
	// Every sample of one layer lies on the cube's surface (to round-off); every point of the
	// surface has a sample within one spacing (so no gap a particle fits through); no cell of
	// side s/2 holds two samples (bounded density). Extra layers sit one spacing outside.
	const s = 0.1
	const onSurface = 1e-9
	m, _ := ReadOBJ(strings.NewReader(cube))
	pts := m.SampleSurface(s, 1, true)
	dist := func(p mgl64.Vec3) float64 { // distance to the cube surface from inside or on it
		d := math.Inf(1)
		for k := 0; k < 3; k++ {
			d = min(d, math.Abs(p[k]), math.Abs(1-p[k]))
		}
		return d
	}
	cells := map[[3]int64]bool{}
	for _, p := range pts {
		if dist(p) > onSurface {
			t.Fatalf("sample %v is off the surface", p)
		}
		c := [3]int64{int64(math.Floor(p[0] / (s / 2))), int64(math.Floor(p[1] / (s / 2))), int64(math.Floor(p[2] / (s / 2)))}
		if cells[c] {
			t.Fatalf("two samples in one s/2 cell at %v", p)
		}
		cells[c] = true
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 2000; i++ {
		q := mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		q[rng.IntN(3)] = float64(rng.IntN(2)) // a random point on a random face
		best := math.Inf(1)
		for _, p := range pts {
			best = min(best, p.Sub(q).Len())
		}
		if best > s {
			t.Fatalf("surface point %v is %.3f from the nearest sample, want ≤ %g", q, best, s)
		}
	}
	two := m.SampleSurface(s, 2, true)
	outside := 0
	for _, p := range two {
		for k := 0; k < 3; k++ {
			if p[k] < -s/2 || p[k] > 1+s/2 {
				outside++
				break
			}
		}
	}
	if outside == 0 || len(two) <= len(pts) {
		t.Fatalf("second layer: %d samples outside the cube of %d (one layer: %d)", outside, len(two), len(pts))
	}
}
