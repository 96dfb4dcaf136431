package sluice_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// TestWallMeshesAreKept checks that the world keeps the mesh of every wall made from one (a
// closed obstacle, an open sheet, a tank, a box), with the flags a view needs to draw it, that other
// bodies have none, that the meshes survive a snapshot exactly, and that a removed wall's mesh
// is gone.
func TestWallMeshesAreKept(t *testing.T) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.02
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{3, 3, 3}
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tv, tt := boxMesh(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1, 1})
	_, err = w.AddBoundaryMesh("tank", tv, tt, true)
	if err != nil {
		t.Fatal(err)
	}
	ov, ot := boxMesh(mgl64.Vec3{1.2, 0, 0.3}, mgl64.Vec3{1.5, 0.4, 0.6})
	obstacle, err := w.AddBoundaryMesh("obstacle", ov, ot, false)
	if err != nil {
		t.Fatal(err)
	}
	sv := []mgl64.Vec3{{0.2, 0.6, 0.2}, {0.8, 0.5, 0.2}, {0.8, 0.5, 0.8}, {0.2, 0.6, 0.8}}
	st := [][3]int32{{0, 2, 1}, {0, 3, 2}}
	sheet, err := w.AddBoundaryMesh("ramp", sv, st, false)
	if err != nil {
		t.Fatal(err)
	}
	bv, bt := boxMesh(mgl64.Vec3{0.3, 0, 0.3}, mgl64.Vec3{0.5, 0.2, 0.5})
	_, err = w.AddBoundaryBox("box", mgl64.Vec3{0.3, 0, 0.3}, mgl64.Vec3{0.5, 0.2, 0.5}, false)
	if err != nil {
		t.Fatal(err)
	}
	mustBlock(t, w, "water", mgl64.Vec3{0.1, 0.1, 0.1}, mgl64.Vec3{0.5, 0.4, 0.5})
	want := map[string]struct {
		v            []mgl64.Vec3
		tris         [][3]int32
		tank, closed bool
	}{
		"tank":     {tv, tt, true, true},
		"obstacle": {ov, ot, false, true},
		"ramp":     {sv, st, false, false},
		"box":      {bv, bt, false, true},
	}
	check := func(w *sluice.World, when string) {
		t.Helper()
		for name, x := range want {
			e, found := w.BodyByName(name)
			if !found {
				t.Fatalf("%s: no body %q", when, name)
			}
			m, ok := w.WallMesh(e)
			if !ok {
				t.Fatalf("%s: wall %q has no mesh", when, name)
			}
			if !slices.Equal(m.V, x.v) || !slices.Equal(m.Tris, x.tris) || m.Tank != x.tank || m.Closed != x.closed {
				t.Errorf("%s: wall %q: mesh of %d vertices and %d triangles, tank %v, closed %v; want %d, %d, %v, %v",
					when, name, len(m.V), len(m.Tris), m.Tank, m.Closed, len(x.v), len(x.tris), x.tank, x.closed)
			}
		}
		for _, name := range []string{"water"} {
			e, _ := w.BodyByName(name)
			if _, ok := w.WallMesh(e); ok {
				t.Errorf("%s: body %q reports a wall mesh", when, name)
			}
		}
	}
	check(w, "built")
	if _, err := w.Step(1.0 / 60); err != nil {
		t.Fatal(err)
	}
	r := saveRestore(t, w, 1)
	defer r.Close()
	check(r, "restored")
	if err := w.Remove(obstacle); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.WallMesh(obstacle); ok {
		t.Error("the removed obstacle still reports a mesh")
	}
	if _, ok := w.WallMesh(sheet); !ok {
		t.Error("removing the obstacle lost the ramp's mesh")
	}
}

// saveRestore saves w and restores the snapshot on the given number of workers.
func saveRestore(t *testing.T, w *sluice.World, workers int) *sluice.World {
	t.Helper()
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := sluice.Restore(&buf, workers)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
