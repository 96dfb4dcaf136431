package sluice

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
)

// WallMesh is the triangle mesh a static wall was sampled from (World.AddBoundaryMesh). The
// fluid only ever touches the wall's samples; the mesh is kept so that a view can draw the
// wall as the surface it is (game.View draws it instead of the samples). The slices belong to
// the world: read them, do not change them.
type WallMesh struct {
	V    []mgl64.Vec3 // vertices, world coordinates (m)
	Tris [][3]int32   // triangles, counter-clockwise seen from outside
	// Tank is a wall sampled outwards, holding fluid inside; otherwise an obstacle or a sheet.
	Tank bool
	// Closed is a mesh without border edges (every edge in exactly two triangles after
	// coincident vertices are welded): a closed obstacle is solid, an open mesh a sheet.
	Closed bool
}

// wallMeshEntry is the kept mesh of the wall body with ID id.
type wallMeshEntry struct {
	id uint32
	m  WallMesh
	// mapKey is what the wall's volume map was last decided for (wallmap.go): zero until
	// then, so a restored world builds its maps again at its first step.
	mapKey mapKey
}

// WallMesh returns the mesh of a wall added by AddBoundaryMesh or, in a 3D world, by
// AddBoundaryBox (its 8 corners and 12 triangles); ok is false for any other body, walls given
// as samples included.
func (w *World) WallMesh(e Entity) (m WallMesh, ok bool) {
	b := w.Body(e)
	if b == nil || b.Phase != components.Boundary {
		return WallMesh{}, false
	}
	i, found := slices.BinarySearchFunc(w.wallMeshes, b.ID, func(x wallMeshEntry, id uint32) int { return int(x.id) - int(id) })
	if !found {
		return WallMesh{}, false
	}
	return w.wallMeshes[i].m, true
}

// keepWallMesh records the mesh of the wall body with ID id (copies of v and tris) and
// returns it.
func (w *World) keepWallMesh(id uint32, v []mgl64.Vec3, tris [][3]int32, tank bool) WallMesh {
	m := WallMesh{V: slices.Clone(v), Tris: slices.Clone(tris), Tank: tank, Closed: closedMesh(v, tris)}
	i, _ := slices.BinarySearchFunc(w.wallMeshes, id, func(x wallMeshEntry, id uint32) int { return int(x.id) - int(id) })
	w.wallMeshes = slices.Insert(w.wallMeshes, i, wallMeshEntry{id: id, m: m})
	return m
}

// dropWallMesh forgets the mesh of the body with ID id (removed from the world).
func (w *World) dropWallMesh(id uint32) {
	w.wallMeshes = slices.DeleteFunc(w.wallMeshes, func(x wallMeshEntry) bool { return x.id == id })
}

// saveWallMeshes writes the kept wall meshes: body ID, flags (1 tank, 2 closed), vertices,
// triangles.
func (w *World) saveWallMeshes(e *enc) {
	e.u64(uint64(len(w.wallMeshes)))
	for _, x := range w.wallMeshes {
		e.u32(x.id)
		f := uint32(0)
		if x.m.Tank {
			f |= 1
		}
		if x.m.Closed {
			f |= 2
		}
		e.u32(f)
		e.u64(uint64(len(x.m.V)))
		e.vecs(x.m.V)
		e.tris(x.m.Tris)
	}
}

// loadWallMeshes reads what saveWallMeshes wrote.
func loadWallMeshes(d *dec) []wallMeshEntry {
	var out []wallMeshEntry
	n := d.count(24)
	for i := 0; i < n && d.err == nil; i++ {
		x := wallMeshEntry{id: d.u32()}
		f := d.u32()
		x.m.Tank, x.m.Closed = f&1 != 0, f&2 != 0
		x.m.V = d.vecs(d.count(24))
		x.m.Tris = d.tris(len(x.m.V), fmt.Sprintf("wall mesh of body %d", x.id))
		if f > 3 && d.err == nil {
			d.err = fmt.Errorf("%w: wall mesh of body %d has flags %d", ErrSnapshot, x.id, f)
		}
		out = append(out, x)
	}
	return out
}

// restoreWallMeshes keeps the loaded wall meshes, each of which must belong to a restored
// boundary body, in ID order.
func (w *World) restoreWallMeshes(bodies []savedBody, ms []wallMeshEntry) error {
	for k, x := range ms {
		found := false
		for i := range bodies {
			found = found || (bodies[i].body.ID == x.id && bodies[i].body.Phase == components.Boundary)
		}
		if !found {
			return fmt.Errorf("wall mesh of body ID %d matches no boundary body", x.id)
		}
		if k > 0 && ms[k-1].id >= x.id {
			return fmt.Errorf("wall meshes out of ID order (%d after %d)", x.id, ms[k-1].id)
		}
	}
	w.wallMeshes = ms
	return nil
}
