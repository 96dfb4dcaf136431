package sluice

import (
	"fmt"
	"os"
	"path/filepath"

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
		vm, err := w.volumeMap(v, m.m.Tris, o)
		if err != nil {
			return fmt.Errorf("body %q: the volume map of its mesh (solver.wallModel volumeMaps): %w", w.Body(e).Name, err)
		}
		if err := w.setWallField(e, vm); err != nil {
			return err
		}
	}
	return nil
}

// SetVolumeMapCache makes the world read the volume maps of its walls (solver.wallModel
// volumeMaps) from the folder dir, and store there each map it has to build, one file per
// mesh and map options (volumemap.Key), as the reference implementation keeps its maps in a
// Cache folder beside the scene. A stored map is the built one bit for bit, so the simulation
// does not change; a file that is damaged or of another format is built again and replaced.
// "" (the default) builds every map. Call it before the first Step; the folder is made if
// missing. A map that cannot be stored is an error of the Step that built it.
func (w *World) SetVolumeMapCache(dir string) { w.mapCache = dir }

// VolumeMaps returns how many volume maps the world has built and how many it read from the
// cache folder (SetVolumeMapCache).
func (w *World) VolumeMaps() (built, read int) { return w.mapsMade[0], w.mapsMade[1] }

// volumeMap builds the map of (v, tris) with o, or reads it from the cache folder.
func (w *World) volumeMap(v []physics.Vec3, tris [][3]int32, o volumemap.Options) (*volumemap.Map, error) {
	if w.mapCache == "" {
		w.mapsMade[0]++
		return volumemap.Build(v, tris, o, w.ecs.Pool)
	}
	key := volumemap.Key(v, tris, o)
	path := filepath.Join(w.mapCache, fmt.Sprintf("volumemap-%x.bin", key[:16]))
	if data, err := os.ReadFile(path); err == nil {
		if m, err := volumemap.Decode(data, key); err == nil {
			w.mapsMade[1]++
			return m, nil
		}
	}
	m, err := volumemap.Build(v, tris, o, w.ecs.Pool)
	if err != nil {
		return nil, err
	}
	w.mapsMade[0]++
	if err := os.MkdirAll(w.mapCache, 0o755); err != nil {
		return nil, fmt.Errorf("storing the map: %w", err)
	}
	tmp, err := os.CreateTemp(w.mapCache, ".volumemap-*")
	if err != nil {
		return nil, fmt.Errorf("storing the map: %w", err)
	}
	err = tmp.Chmod(0o644) // a cache others may read, as the files os.WriteFile makes
	if err == nil {
		_, err = tmp.Write(m.Encode(key))
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("storing the map in %s: %w", path, err)
	}
	return m, nil
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
