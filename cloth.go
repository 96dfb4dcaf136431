package sluice

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/systems"
)

// AddCloth adds a cloth body: a triangle mesh whose vertices x (their rest shape) become
// particles held together by the Projective Dynamics springs of mat.Cloth inside the Projective
// Fluids solve (physics/pf, springs.go), with the vertices listed in pinned held fixed. Each
// vertex's mass is mat.Cloth.ArealDensity times a third of its triangles' area. The world's
// pressure solver must be "pf". The mesh is checked here (vertex indices, degenerate
// triangles, edges shared by more than two triangles, pins), naming the body and field.
func (w *World) AddCloth(name string, mat components.Material, x []mgl64.Vec3, tris [][3]int32, pinned []int32) (Entity, error) {
	if s := w.sim.Settings.PressureSolver; s != "pf" {
		return Entity{}, fmt.Errorf("bodies[%q]: a cloth body needs solver.pressureSolver \"pf\" (is %q; allowed: pf): its springs are constraints of the Projective Fluids solve", name, s)
	}
	if err := mat.Validate(fmt.Sprintf("bodies[%q].material", name)); err != nil {
		return Entity{}, err
	}
	for i := range x {
		if !physics.Finite(x[i]) {
			return Entity{}, fmt.Errorf("bodies[%q]: vertex %d has a non-finite position", name, i)
		}
	}
	if w.names[name] {
		return Entity{}, fmt.Errorf("body %q: a body of that name exists already", name)
	}
	c, err := systems.BuildCloth(name, x, tris, pinned)
	if err != nil {
		return Entity{}, err
	}
	p := components.Particles{X: slices.Clone(x), V: make([]mgl64.Vec3, len(x)),
		Density: make([]float64, len(x)), Pressure: make([]float64, len(x)),
		M: c.LumpedMasses(mat.Cloth.ArealDensity), MassDensity: mat.RestDensity}
	w.sim.InitCloth(w.nextID+1, c)
	e, err := w.add(name, components.Cloth, mat, p)
	if err != nil {
		w.sim.RemoveCloth(w.nextID + 1)
		return Entity{}, err
	}
	return e, nil
}

// ClothGrid returns the vertices and triangles of a rectangular sheet of rows × cols vertices
// at the given spacing: vertex (r, c) = origin + c·spacing·u + r·spacing·v, index r·cols + c,
// with u and v the sheet's unit directions (normalised here; they must not be parallel). Each
// grid square is split into two triangles along alternating diagonals, so the sheet has no
// preferred shear direction.
func ClothGrid(origin, u, v mgl64.Vec3, spacing float64, rows, cols int) ([]mgl64.Vec3, [][3]int32, error) {
	if rows < 2 || cols < 2 {
		return nil, nil, fmt.Errorf("rows %d, cols %d: a sheet needs at least 2 of each", rows, cols)
	}
	if u.Len() == 0 || v.Len() == 0 || u.Normalize().Cross(v.Normalize()).Len() < 1e-6 {
		return nil, nil, fmt.Errorf("axisU %v and axisV %v must be non-zero and not parallel", u, v)
	}
	u, v = u.Normalize(), v.Normalize()
	x := make([]mgl64.Vec3, 0, rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			x = append(x, origin.Add(u.Mul(float64(c)*spacing)).Add(v.Mul(float64(r)*spacing)))
		}
	}
	var tris [][3]int32
	for r := 0; r+1 < rows; r++ {
		for c := 0; c+1 < cols; c++ {
			a, b := int32(r*cols+c), int32(r*cols+c+1)
			d, e := int32((r+1)*cols+c), int32((r+1)*cols+c+1)
			if (r+c)%2 == 0 {
				tris = append(tris, [3]int32{a, b, e}, [3]int32{a, e, d})
			} else {
				tris = append(tris, [3]int32{a, b, d}, [3]int32{b, e, d})
			}
		}
	}
	return x, tris, nil
}

// ClothState returns the mesh of a cloth body, or nil for a body that is not cloth.
func (w *World) ClothState(e Entity) *systems.ClothBody {
	b := w.Body(e)
	if b == nil {
		return nil
	}
	return w.sim.ClothByID(b.ID)
}
