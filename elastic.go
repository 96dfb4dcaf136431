package sluice

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/systems"
)

// AddElasticParticles adds an elastic solid (Peer et al. 2018) with the given positions, which
// are its rest shape, and velocities (v may be nil for rest). mat.Elastic holds the moduli and
// the pinned box; mat.RestDensity its density. The rest neighbourhoods and correction matrices
// are built here, so a particle without neighbours or a pinned box that selects nothing is
// reported now, naming the body.
func (w *World) AddElasticParticles(name string, mat components.Material, x, v []mgl64.Vec3) (Entity, error) {
	return w.addSolid(name, components.Elastic, mat, x, v,
		func(id uint32, m *components.Material) error { return w.sim.InitElastic(id, name, m, x) },
		w.sim.RemoveElastic)
}

// addSolid checks and adds a body of particles whose solver keeps per-particle state (an
// elastic or elastoplastic solid): init builds that state for the body ID the body will get
// (reporting a bad body before it exists), undo drops it if adding the body then fails.
func (w *World) addSolid(name string, phase components.Phase, mat components.Material, x, v []mgl64.Vec3, init func(id uint32, m *components.Material) error, undo func(id uint32)) (Entity, error) {
	if name == "" {
		return Entity{}, fmt.Errorf("body name must not be empty")
	}
	if w.names[name] {
		return Entity{}, fmt.Errorf("body %q: a body of that name exists already", name)
	}
	if v != nil && len(v) != len(x) {
		return Entity{}, fmt.Errorf("body %q: %d velocities for %d positions", name, len(v), len(x))
	}
	if len(x) == 0 {
		return Entity{}, fmt.Errorf("body %q: has no particles", name)
	}
	for i := range x {
		if !physics.Finite(x[i]) || (v != nil && !physics.Finite(v[i])) {
			return Entity{}, fmt.Errorf("body %q: particle %d has a non-finite position or velocity", name, i)
		}
	}
	if err := mat.Validate(fmt.Sprintf("bodies[%q].material", name)); err != nil {
		return Entity{}, err
	}
	id := w.nextID + 1
	if err := init(id, &mat); err != nil {
		return Entity{}, err
	}
	p := components.Particles{X: slices.Clone(x), V: make([]mgl64.Vec3, len(x)),
		Density: make([]float64, len(x)), Pressure: make([]float64, len(x))}
	copy(p.V, v)
	e, err := w.add(name, phase, mat, p)
	if err != nil {
		undo(id)
		return Entity{}, err
	}
	return e, nil
}

// AddElasticBlock fills the box [lo, hi] with elastic particles at spacing 2r (the fluid
// block's sampling), all with velocity v.
func (w *World) AddElasticBlock(name string, mat components.Material, lo, hi, v mgl64.Vec3) (Entity, error) {
	sample := physics.FluidBlock
	if w.sim.Settings.Dimensions == 2 {
		sample = physics.FluidRect
	}
	x, err := sample(lo, hi, w.sim.Settings.Spacing())
	if err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	return w.AddElasticParticles(name, mat, x, uniform(len(x), v))
}

// AddElasticSphere fills the ball of the given centre and radius with elastic particles at
// spacing 2r, all with velocity v.
func (w *World) AddElasticSphere(name string, mat components.Material, center mgl64.Vec3, radius float64, v mgl64.Vec3) (Entity, error) {
	sample := physics.FluidSphere
	if w.sim.Settings.Dimensions == 2 {
		sample = physics.FluidDisc
	}
	x, err := sample(center, radius, w.sim.Settings.Spacing())
	if err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	return w.AddElasticParticles(name, mat, x, uniform(len(x), v))
}

func uniform(n int, v mgl64.Vec3) []mgl64.Vec3 {
	vs := make([]mgl64.Vec3, n)
	for i := range vs {
		vs[i] = v
	}
	return vs
}

// ElasticState returns the solver state of an elastic body (rest shape, rotations, last CG
// solve), or nil for a body that is not elastic.
func (w *World) ElasticState(e Entity) *systems.ElasticBody {
	b := w.Body(e)
	if b == nil {
		return nil
	}
	return w.sim.ElasticByID(b.ID)
}
