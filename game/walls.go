package game

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Tolerances of WallBox's test that a wall's samples are a box's shell.
const (
	// wallBoxFaceTol is how far (in spacings) beyond the deepest layer a sample may lie from
	// the nearest face of the samples' bounding box: the shell's layers sit exactly a spacing
	// apart (physics/boundary.Box), a quarter spacing only absorbs round-off.
	wallBoxFaceTol = 0.25
	// wallBoxCountLo and wallBoxCountHi bound the number of samples as a share of the shell's
	// area over the spacing squared, summed over the layers: the lattice of a box's faces holds
	// that number plus the edges' points (0–1 % more for the examples' tanks and obstacles, 8 %
	// for a 2-spacing cube), while a sphere in the same box holds π/6 ≈ 0.52 of it and an open
	// tank lacks its lid (10 % of a 1 × 0.9 × 0.3 m tank's area).
	wallBoxCountLo = 0.95
	wallBoxCountHi = 1.15
)

// WallBox reports whether a static wall's samples x are the shell of an axis-aligned box as
// World.AddBoundaryBox samples it (layers shells a spacing apart, outwards for a tank and
// inwards for an obstacle), and returns the samples' bounding box [lo, hi], which is drawn as the
// box. The world keeps no box for a wall (only its samples), so the view derives it: every
// sample lies within the layers' depth of a face of the bounding box, and the samples are as
// many as the layered faces hold. A box-shaped OBJ wall passes too; other shapes (spheres,
// L-shapes, open sheets) do not and keep being drawn as samples.
func WallBox(x []mgl64.Vec3, spacing float64, layers int) (lo, hi mgl64.Vec3, ok bool) {
	if len(x) == 0 || !(spacing > 0) || layers < 1 {
		return lo, hi, false
	}
	lo, hi = x[0], x[0]
	for _, p := range x {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], p[d]), max(hi[d], p[d])
		}
	}
	for d := 0; d < 3; d++ {
		if !(hi[d] > lo[d]) {
			return lo, hi, false // flat: a sheet, not a box
		}
	}
	depth := (float64(layers-1) + wallBoxFaceTol) * spacing
	for _, p := range x {
		near := math.Inf(1)
		for d := 0; d < 3; d++ {
			near = min(near, p[d]-lo[d], hi[d]-p[d])
		}
		if near > depth {
			return lo, hi, false
		}
	}
	want := 0.0
	for l := 0; l < layers; l++ {
		a, b, c := hi[0]-lo[0]-2*float64(l)*spacing, hi[1]-lo[1]-2*float64(l)*spacing, hi[2]-lo[2]-2*float64(l)*spacing
		if a <= 0 || b <= 0 || c <= 0 {
			break // the inner layers of an obstacle thinner than its layers vanish
		}
		want += 2 * (a*b + b*c + c*a) / (spacing * spacing)
	}
	share := float64(len(x)) / want
	return lo, hi, share >= wallBoxCountLo && share <= wallBoxCountHi
}
