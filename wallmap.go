package sluice

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/volumemap"
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
	w.moveBodies(func() { w.wallMaps.Assign(e, &components.WallMap{Field: f}) })
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

// buildWallMaps gives every static wall made from a closed mesh (AddBoundaryMesh,
// AddBoundaryBox) its volume map (physics/volumemap) when solver.wallModel is "volumeMaps",
// once per wall and mapKey. Open meshes (sheets) have no inside to map and keep
// meeting the fluid through their samples, as do 2D worlds' walls. Step calls it before it
// gathers the bodies.
func (w *World) buildWallMaps() error {
	set := &w.sim.Settings
	if set.WallModel != "volumeMaps" || set.Dimensions != 3 {
		return nil
	}
	r := set.ParticleRadius
	for k := range w.wallMeshes {
		m := &w.wallMeshes[k]
		key := mapKey{r, set.WallMapVolume}
		if m.mapKey == key {
			continue
		}
		m.mapKey = key
		if !m.m.Closed {
			continue
		}
		e, ok := w.bodyByID(m.id)
		if !ok {
			continue
		}
		v := make([]physics.Vec3, len(m.m.V))
		for i, p := range m.m.V {
			v[i] = physics.Vec3(p)
		}
		o := volumemap.DefaultOptions(set.SupportRadius(), r)
		o.Invert, o.VolumeFactor, o.Kernel = m.m.Tank, set.WallMapVolume, w.sim.Kernel.Kind
		vm, err := volumemap.Build(v, m.m.Tris, o, w.ecs.Pool)
		if err != nil {
			return fmt.Errorf("body %q: the volume map of its mesh (solver.wallModel volumeMaps): %w", w.Body(e).Name, err)
		}
		if err := w.setWallField(e, vm); err != nil {
			return err
		}
	}
	return nil
}

// bodyByID returns the body with the given ID.
func (w *World) bodyByID(id uint32) (Entity, bool) {
	q := bodyQuery.Query(w.ecs.ECS)
	var found Entity
	ok := false
	for q.Next() {
		if b, _, _ := q.Get(); b.ID == id {
			found, ok = q.Entity(), true
		}
	}
	return found, ok
}

// mapKey is what a wall's volume map depends on besides its mesh: the particle radius (the
// kernel's support and the virtual particle's placement) and the factor.
type mapKey struct {
	r, factor float64
}
