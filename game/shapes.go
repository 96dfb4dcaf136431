package game

import (
	"math"

	"github.com/sluicephysics/sluice/physics/rigid"
)

// Tessellation of the round shapes: segments around the axis and latitude bands per
// hemisphere. At 32 segments the flat facets of a 10 cm ball deviate from the sphere by 0.5 mm,
// less than a pixel at the distances a scene is framed at.
const (
	roundSegments = 32
	roundBands    = 8
)

// ShapeMesh triangulates a rigid body's shape for drawing, in the body frame about its centre
// of mass (as rigid.Body.Shape holds it): positions and normals, 3 floats per vertex, and
// triangles, 3 vertex indices each, wound counter-clockwise seen from outside (OpenGL's front
// faces). Boxes and meshes have flat faces (a vertex per face corner, with the face's normal);
// spheres and capsules are smooth (each vertex has the surface normal at it). It is pure Go so
// its geometry is tested without a window; the g3n view uploads the result once per body.
func ShapeMesh(sh *rigid.Shape) (pos, nrm []float32, idx []uint32) {
	switch sh.Kind {
	case rigid.Box:
		return boxMesh(sh.HalfExtents)
	case rigid.Sphere:
		return roundMesh(sh.Radius, 0)
	case rigid.Capsule:
		return roundMesh(sh.Radius, sh.HalfLength)
	}
	return flatMesh(sh)
}

// boxMesh is the box of half extents h: four corners and two triangles per face.
func boxMesh(h rigid.Vec3) (pos, nrm []float32, idx []uint32) {
	for a := 0; a < 3; a++ {
		for _, sgn := range []float64{1, -1} {
			// e_b × e_c = e_a for (a, b, c) cyclic: (u, v) = (e_b, e_c) is counter-clockwise
			// seen from +e_a, and swapped from −e_a.
			b, c := (a+1)%3, (a+2)%3
			if sgn < 0 {
				b, c = c, b
			}
			base := uint32(len(pos) / 3)
			for _, uv := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				var p, n [3]float64
				p[a], n[a] = sgn*h[a], sgn
				p[b], p[c] = uv[0]*h[b], uv[1]*h[c]
				pos = append(pos, float32(p[0]), float32(p[1]), float32(p[2]))
				nrm = append(nrm, float32(n[0]), float32(n[1]), float32(n[2]))
			}
			idx = append(idx, base, base+1, base+2, base, base+2, base+3)
		}
	}
	return pos, nrm, idx
}

// roundMesh is a sphere of radius r (halfLength 0) or a capsule: the sphere's upper hemisphere
// lifted by halfLength along y and the lower one lowered by it, joined by the cylinder between
// the two equators. Rows run from the top pole down, columns around y.
func roundMesh(r, halfLength float64) (pos, nrm []float32, idx []uint32) {
	const cols = roundSegments + 1 // the seam's column twice, so the indices need no wrap
	rows := 0
	for hemi, lift := range []float64{halfLength, -halfLength} {
		for k := 0; k <= roundBands; k++ {
			theta := math.Pi / 2 * float64(hemi*roundBands+k) / roundBands
			st, ct := math.Sin(theta), math.Cos(theta)
			for j := 0; j < cols; j++ {
				phi := 2 * math.Pi * float64(j) / roundSegments
				// z = −sin φ: going down a row and then along φ turns counter-clockwise seen
				// from outside.
				n := [3]float64{st * math.Cos(phi), ct, -st * math.Sin(phi)}
				pos = append(pos, float32(r*n[0]), float32(r*n[1]+lift), float32(r*n[2]))
				nrm = append(nrm, float32(n[0]), float32(n[1]), float32(n[2]))
			}
			rows++
		}
	}
	for i := 0; i+1 < rows; i++ {
		if i == roundBands && halfLength == 0 {
			continue // a sphere's two equator rows coincide: no cylinder between them
		}
		for j := 0; j+1 < cols; j++ {
			p, q := uint32(i*cols+j), uint32((i+1)*cols+j)
			if i != 0 { // at the top pole the row's points coincide
				idx = append(idx, p, q, p+1)
			}
			if i+1 != rows-1 { // and at the bottom pole
				idx = append(idx, p+1, q, q+1)
			}
		}
	}
	return pos, nrm, idx
}

// flatMesh is a triangle mesh with a vertex per triangle corner carrying the triangle's normal
// (flat shading: a model's hard edges stay hard). Degenerate triangles get a zero normal.
func flatMesh(sh *rigid.Shape) (pos, nrm []float32, idx []uint32) {
	pos = make([]float32, 0, 9*len(sh.Tris))
	nrm = make([]float32, 0, 9*len(sh.Tris))
	idx = make([]uint32, 0, 3*len(sh.Tris))
	for _, t := range sh.Tris {
		a, b, c := sh.V[t[0]], sh.V[t[1]], sh.V[t[2]]
		n := b.Sub(a).Cross(c.Sub(a))
		if l := n.Len(); l > 0 {
			n = n.Mul(1 / l)
		}
		for _, p := range [3]rigid.Vec3{a, b, c} {
			idx = append(idx, uint32(len(pos)/3))
			pos = append(pos, float32(p[0]), float32(p[1]), float32(p[2]))
			nrm = append(nrm, float32(n[0]), float32(n[1]), float32(n[2]))
		}
	}
	return pos, nrm, idx
}
