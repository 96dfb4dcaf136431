package game

import (
	"math"
	"testing"
)

// shadowTol is the error allowed in a projected shadow vertex (m): the output is float32, whose
// spacing near 2 m is 2.4e-7.
const shadowTol = 1e-6

// TestProjectShadowLandsOnTheFloor checks ProjectShadow against the construction by hand: a
// vertex of a body turned 90° about y and lifted to 2 m is carried along the sun's direction
// to the floor (y = floor + shadowLift), its offset from the lit vertex parallel to the
// direction; a vertex below the floor stays at its own x and z, lifted onto the floor.
func TestProjectShadowLandsOnTheFloor(t *testing.T) {
	d := [3]float64{0.4, -1, -0.8}
	c := math.Sqrt(0.5)
	p := Pose{X: [3]float64{1, 2, 3}, Q: [4]float64{c, 0, c, 0}} // 90° about +y: (x, y, z) → (z, y, −x)
	pos := []float32{0.5, 0.25, 0, 0, -3, 0.5}
	out := make([]float32, len(pos))
	ProjectShadow(pos, &p, 0.1, d, out)
	// vertex 0: model (0.5, 0.25, 0) → world (1 + 0, 2.25, 3 − 0.5); t = (0.1 − 2.25)/(−1)
	x := [3]float64{1, 2.25, 2.5}
	tt := 2.15
	want := [3]float64{x[0] + tt*d[0], 0.1 + shadowLift, x[2] + tt*d[2]}
	for k := range 3 {
		if math.Abs(float64(out[k])-want[k]) > shadowTol {
			t.Fatalf("vertex 0 shadow %v, want %v", out[:3], want)
		}
	}
	// vertex 1: model (0, −3, 0.5) → world (1.5, −1, 3), below the floor: stays at x, z.
	want = [3]float64{1.5, 0.1 + shadowLift, 3}
	for k := range 3 {
		if math.Abs(float64(out[3+k])-want[k]) > shadowTol {
			t.Fatalf("vertex 1 shadow %v, want %v", out[3:], want)
		}
	}
}
