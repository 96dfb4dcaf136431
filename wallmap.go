package sluice

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
)

// setWallField gives the static wall e the field through which the fluid meets it when
// solver.wallModel is "volumeMaps" (components.WallMap); nil removes it.
func (w *World) setWallField(e Entity, f components.WallField) error {
	b := w.Body(e)
	if b == nil || b.Phase != components.Boundary {
		return fmt.Errorf("a wall field needs a wall (a boundary body)")
	}
	if m := w.wallMaps.Get(e); m != nil {
		m.Field = f
		return nil
	}
	w.wallMaps.Assign(e, &components.WallMap{Field: f})
	return nil
}

// boxWallMesh is the closed triangle mesh of the box [lo, hi]: its 8 corners (corner i has
// x = hi's where bit 0 of i is set, y bit 1, z bit 2) and 12 triangles, counter-clockwise seen
// from outside.
func boxWallMesh(lo, hi mgl64.Vec3) ([]mgl64.Vec3, [][3]int32) {
	v := make([]mgl64.Vec3, 8)
	for i := range v {
		p := lo
		for d := 0; d < 3; d++ {
			if i>>d&1 == 1 {
				p[d] = hi[d]
			}
		}
		v[i] = p
	}
	quads := [6][4]int32{{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}}
	tris := make([][3]int32, 0, 12)
	for _, q := range quads {
		tris = append(tris, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	return v, tris
}
