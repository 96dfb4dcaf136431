package game

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/physics/boundary"
)

// wallBoxPosTol is the error allowed in the derived box's corners: the samples lie on the
// shells' lattice, whose outer corners are the box's corners to round-off.
const wallBoxPosTol = 1e-12

func TestWallBoxFindsBoxesOnly(t *testing.T) {
	const s = 0.05
	lo, hi := mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.9, 0.3}
	for _, c := range []struct {
		name     string
		layers   int
		inverted bool
		lo, hi   mgl64.Vec3 // the expected bounding box
	}{
		{"tank, 2 layers", 2, true, lo.Sub(mgl64.Vec3{s, s, s}), hi.Add(mgl64.Vec3{s, s, s})},
		{"tank, 1 layer", 1, true, lo, hi},
		{"obstacle, 3 layers", 3, false, lo, hi},
	} {
		x, err := boundary.Box(lo, hi, s, c.layers, c.inverted)
		if err != nil {
			t.Fatal(err)
		}
		blo, bhi, ok := WallBox(x, s, c.layers)
		if !ok {
			t.Errorf("%s: not recognised as a box", c.name)
			continue
		}
		for d := 0; d < 3; d++ {
			if math.Abs(blo[d]-c.lo[d]) > wallBoxPosTol || math.Abs(bhi[d]-c.hi[d]) > wallBoxPosTol {
				t.Errorf("%s: box [%v, %v], want [%v, %v]", c.name, blo, bhi, c.lo, c.hi)
				break
			}
		}
	}
	// A sphere, an L-shaped wall (two boxes), a flat sheet and a box with a face missing are
	// not boxes.
	var sphere []mgl64.Vec3
	for i := 0; i < 40; i++ {
		for j := 0; j < 80; j++ {
			th, ph := math.Pi*(float64(i)+0.5)/40, 2*math.Pi*float64(j)/80
			sphere = append(sphere, mgl64.Vec3{0.5 * math.Sin(th) * math.Cos(ph), 0.5 * math.Cos(th), 0.5 * math.Sin(th) * math.Sin(ph)})
		}
	}
	a, _ := boundary.Box(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.2, 0.3}, s, 2, false)
	b, _ := boundary.Box(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.2, 1, 0.3}, s, 2, false)
	sheet, _ := boundary.Rect(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 0, 1}, s, 1)
	box, _ := boundary.Box(lo, hi, s, 1, true)
	var open []mgl64.Vec3
	for _, p := range box {
		if p[1] < hi[1]-s/2 { // drop the lid: an open tank
			open = append(open, p)
		}
	}
	for name, c := range map[string]struct {
		x      []mgl64.Vec3
		layers int
	}{"sphere": {sphere, 1}, "L shape": {append(a, b...), 2}, "sheet": {sheet, 1}, "open box": {open, 1}} {
		if _, _, ok := WallBox(c.x, s, c.layers); ok {
			t.Errorf("%s (%d samples) taken for a box", name, len(c.x))
		}
	}
	if _, _, ok := WallBox(nil, s, 2); ok {
		t.Error("no samples taken for a box")
	}
}

// unitCube is the cube [0, 1]³ as 12 triangles wound counter-clockwise seen from outside.
func unitCube() ([]mgl64.Vec3, [][3]int32) {
	v := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	tris := [][3]int32{
		{0, 2, 1}, {0, 3, 2}, // z = 0, normal −z
		{4, 5, 6}, {4, 6, 7}, // z = 1, +z
		{0, 1, 5}, {0, 5, 4}, // y = 0, −y
		{3, 7, 6}, {3, 6, 2}, // y = 1, +y
		{0, 4, 7}, {0, 7, 3}, // x = 0, −x
		{1, 2, 6}, {1, 6, 5}, // x = 1, +x
	}
	return v, tris
}

// TestMeshFacesFaceTheViewer checks meshFaces on a unit cube: as a tank, the floor's two
// triangles are solid and the other ten glass, every normal points into the cube and every
// triangle winds counter-clockwise about its normal (so front faces are the inner sides); as an
// obstacle, all twelve are solid with outward normals and the mesh's own winding; an open mesh
// (the cube without its lid) is drawn from both sides. A winding or normal flipped the wrong
// way would draw a tank's near walls over the fluid, or an obstacle's far side over its near one.
func TestMeshFacesFaceTheViewer(t *testing.T) {
	v, tris := unitCube()
	check := func(name string, pos, nrm []float32, inward bool) {
		t.Helper()
		for k := 0; k+9 <= len(pos); k += 9 {
			p := func(i int) mgl64.Vec3 {
				return mgl64.Vec3{float64(pos[k+3*i]), float64(pos[k+3*i+1]), float64(pos[k+3*i+2])}
			}
			n := mgl64.Vec3{float64(nrm[k]), float64(nrm[k+1]), float64(nrm[k+2])}
			c := p(0).Add(p(1)).Add(p(2)).Mul(1.0 / 3)
			out := c.Sub(mgl64.Vec3{0.5, 0.5, 0.5}).Dot(n) // > 0: n points away from the centre
			if (out < 0) != inward {
				t.Errorf("%s: triangle %d's normal %v points %s, want %s", name, k/9, n, map[bool]string{true: "in", false: "out"}[out < 0], map[bool]string{true: "in", false: "out"}[inward])
			}
			if p(1).Sub(p(0)).Cross(p(2).Sub(p(0))).Dot(n) <= 0 {
				t.Errorf("%s: triangle %d winds clockwise about its normal", name, k/9)
			}
		}
	}
	gp, gn, sp, sn, double := meshFaces(v, tris, true, true)
	if len(gp) != 10*9 || len(sp) != 2*9 || double {
		t.Fatalf("tank: %d glass and %d solid triangles, double %v; want 10, 2 (the floor), false", len(gp)/9, len(sp)/9, double)
	}
	for k := 1; k < len(sn); k += 3 {
		if sn[k] != 1 {
			t.Fatalf("tank: a solid triangle's normal has y = %g, want the floor's 1", sn[k])
		}
	}
	check("tank glass", gp, gn, true)
	check("tank floor", sp, sn, true)
	gp, _, sp, sn, double = meshFaces(v, tris, false, true)
	if len(gp) != 0 || len(sp) != 12*9 || double {
		t.Fatalf("obstacle: %d glass and %d solid triangles, double %v; want 0, 12, false", len(gp)/9, len(sp)/9, double)
	}
	check("obstacle", sp, sn, false)
	if _, _, sp, _, double = meshFaces(v, tris[:6], false, false); len(sp) != 6*9 || !double {
		t.Errorf("open mesh: %d solid triangles, double %v; want 6, true", len(sp)/9, double)
	}
}
