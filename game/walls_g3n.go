//go:build g3n && cgo

package game

import (
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
)

// Looks of the box walls drawn as faces (WallBox): glass sides and lid, an opaque floor.
var (
	// GlassColor is the tint of a box wall's sides, GlassOpacity how much of it covers what
	// lies behind.
	GlassColor   = Color{0.70, 0.80, 0.86, 1}
	GlassOpacity = float32(0.22)
	// FloorColor is a box wall's floor: an opaque stone grey.
	FloorColor = Color{0.42, 0.41, 0.38, 1}
)

// boxFaces returns the inner faces of the box [lo, hi] as triangles (positions and normals,
// three floats per vertex) wound counter-clockwise seen from inside, with inward normals: the
// sides and the lid (glass), and the floor apart. Drawn front faces only, a face shows from
// inside the box: the far walls and the floor of a tank, never the near walls between the
// camera and the fluid; for an obstacle (seen from outside) its far inner faces, which cover
// the same silhouette as its near outer ones.
func boxFaces(lo, hi mgl64.Vec3) (glassPos, glassNrm, floorPos, floorNrm []float32) {
	corner := func(i, j, k int) mgl64.Vec3 {
		c := lo
		if i == 1 {
			c[0] = hi[0]
		}
		if j == 1 {
			c[1] = hi[1]
		}
		if k == 1 {
			c[2] = hi[2]
		}
		return c
	}
	quad := func(pos, nrm []float32, a, b, c, d, n mgl64.Vec3) ([]float32, []float32) {
		// Wind a, b, c counter-clockwise about n (seen from where n points).
		if b.Sub(a).Cross(c.Sub(a)).Dot(n) < 0 {
			a, c = c, a // the quad a b c d reversed: c b a d
		}
		for _, p := range []mgl64.Vec3{a, b, c, a, c, d} {
			pos = append(pos, float32(p[0]), float32(p[1]), float32(p[2]))
			nrm = append(nrm, float32(n[0]), float32(n[1]), float32(n[2]))
		}
		return pos, nrm
	}
	for axis := 0; axis < 3; axis++ {
		for side := 0; side < 2; side++ {
			// The face at the axis' side: its 4 corners in order around it.
			var q [4]mgl64.Vec3
			u, v := (axis+1)%3, (axis+2)%3
			for n, uv := range [4][2]int{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				var idx [3]int
				idx[axis], idx[u], idx[v] = side, uv[0], uv[1]
				q[n] = corner(idx[0], idx[1], idx[2])
			}
			var nrm mgl64.Vec3
			nrm[axis] = 1 - 2*float64(side) // inward: +axis at the low side
			if axis == 1 && side == 0 {
				floorPos, floorNrm = quad(floorPos, floorNrm, q[0], q[1], q[2], q[3], nrm)
			} else {
				glassPos, glassNrm = quad(glassPos, glassNrm, q[0], q[1], q[2], q[3], nrm)
			}
		}
	}
	return glassPos, glassNrm, floorPos, floorNrm
}

// newWallMeshes makes the glass and the floor mesh of the box [lo, hi].
func newWallMeshes(lo, hi mgl64.Vec3) (glass, floor *graphic.Mesh) {
	gp, gn, fp, fn := boxFaces(lo, hi)
	return glassMesh(gp, gn), faceMesh(fp, fn, FloorColor, material.SideFront)
}

// newMeshWall makes the meshes of a wall drawn from its triangle mesh (meshFaces): glass (nil
// if it has none) and solid faces (nil if none) in the floor's stone colour.
func newMeshWall(m sluice.WallMesh) (glass, solid *graphic.Mesh) {
	gp, gn, sp, sn, double := meshFaces(m.V, m.Tris, m.Tank, m.Closed)
	if len(gp) > 0 {
		glass = glassMesh(gp, gn)
	}
	if len(sp) > 0 {
		side := material.SideFront
		if double {
			side = material.SideDouble
		}
		solid = faceMesh(sp, sn, FloorColor, side)
	}
	return glass, solid
}

// faceMesh makes a mesh of triangles (positions and normals, three floats per vertex) in the
// standard material of colour c, drawn on the given side.
func faceMesh(pos, nrm []float32, c Color, side material.Side) *graphic.Mesh {
	g := geometry.NewGeometry()
	g.AddVBO(gls.NewVBO(math32.ArrayF32(pos)).AddAttrib(gls.VertexPosition))
	g.AddVBO(gls.NewVBO(math32.ArrayF32(nrm)).AddAttrib(gls.VertexNormal))
	mat := material.NewStandard(&math32.Color{R: c.R, G: c.G, B: c.B})
	mat.SetSide(side)
	return graphic.NewMesh(g, mat)
}

// glassMesh is faceMesh in the glass look: GlassColor at GlassOpacity, front faces, not
// writing depth (what lies behind still draws).
func glassMesh(pos, nrm []float32) *graphic.Mesh {
	m := faceMesh(pos, nrm, GlassColor, material.SideFront)
	gm := m.GetMaterial(0).(*material.Standard)
	gm.SetOpacity(GlassOpacity)
	gm.SetTransparent(true)
	gm.SetDepthMask(false)
	return m
}
