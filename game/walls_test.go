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
