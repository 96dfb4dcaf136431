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

// floorNormalY is the smallest upward component of a tank triangle's inward unit normal for
// which it is drawn as floor (opaque) rather than glass: faces within about 45° of level.
const floorNormalY = 0.7

// meshFaces returns the triangles of a wall mesh (sluice.WallMesh: counter-clockwise seen from
// outside) to draw, as positions and flat normals, three floats per vertex, in the convention
// of boxFaces. A tank is drawn from inside: its triangles are wound the other way round with
// inward normals, so that front faces only show the far walls and the floor, never the near
// walls between the camera and the fluid; the triangles facing up (inward normal's y ≥
// floorNormalY) are floor (solid), the rest glass. An obstacle keeps its winding and outward
// normals, all solid. An open mesh (a sheet) is solid and double is true: it is seen from both
// sides. Degenerate triangles are left out.
func meshFaces(v []mgl64.Vec3, tris [][3]int32, tank, closed bool) (glassPos, glassNrm, solidPos, solidNrm []float32, double bool) {
	for _, t := range tris {
		a, b, c := v[t[0]], v[t[1]], v[t[2]]
		n := b.Sub(a).Cross(c.Sub(a))
		l := n.Len()
		if !(l > 0) {
			continue
		}
		n = n.Mul(1 / l)
		if tank {
			a, c, n = c, a, n.Mul(-1)
		}
		pos, nrm := &solidPos, &solidNrm
		if tank && n[1] < floorNormalY {
			pos, nrm = &glassPos, &glassNrm
		}
		for _, p := range []mgl64.Vec3{a, b, c} {
			*pos = append(*pos, float32(p[0]), float32(p[1]), float32(p[2]))
			*nrm = append(*nrm, float32(n[0]), float32(n[1]), float32(n[2]))
		}
	}
	return glassPos, glassNrm, solidPos, solidNrm, !tank && !closed
}

// planarWallQuads returns the triangles that draw a 2D world's wall (its samples x in the plane
// z = 0) as a solid strip: a square of side a centred on each sample, in the plane, facing +z
// (towards the camera, which looks along −z). A wall's samples lie on a lattice of spacing a
// (layers a apart, samples a apart along each), so the squares of a straight row or column
// meet edge to edge and the wall is a continuous band as thick as its layers; positions and
// normals are three floats per vertex, counter-clockwise seen from +z.
func planarWallQuads(x []mgl64.Vec3, a float64) (pos, nrm []float32) {
	pos = make([]float32, 0, 18*len(x))
	nrm = make([]float32, 0, 18*len(x))
	h := a / 2
	for _, p := range x {
		x0, x1, y0, y1, z := float32(p[0]-h), float32(p[0]+h), float32(p[1]-h), float32(p[1]+h), float32(p[2])
		pos = append(pos, x0, y0, z, x1, y0, z, x1, y1, z, x0, y0, z, x1, y1, z, x0, y1, z)
		for k := 0; k < 6; k++ {
			nrm = append(nrm, 0, 0, 1)
		}
	}
	return pos, nrm
}
