package sluice

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/systems"
)

// AddElastoplasticParticles adds a point-based elastoplastic solid (Gerszewski et al. 2009;
// dough, clay, snow) with the given positions, its shape at rest, and velocities (v may be nil
// for rest). mat.Elastoplastic holds Young's modulus, Poisson's ratio and the plastic
// parameters, mat.RestDensity its density. A body too small to fit an affine motion (fewer
// than 7 particles) or parameters out of range are reported now, naming the body and the key.
func (w *World) AddElastoplasticParticles(name string, mat components.Material, x, v []mgl64.Vec3) (Entity, error) {
	if name == "" {
		return Entity{}, fmt.Errorf("body name must not be empty")
	}
	if w.names[name] {
		return Entity{}, fmt.Errorf("body %q: a body of that name exists already", name)
	}
	if v != nil && len(v) != len(x) {
		return Entity{}, fmt.Errorf("body %q: %d velocities for %d positions", name, len(v), len(x))
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
	if err := w.sim.InitElastoplastic(id, name, &mat, len(x), mat.RestDensity*w.sim.Volume0); err != nil {
		return Entity{}, err
	}
	p := components.Particles{X: slices.Clone(x), V: make([]mgl64.Vec3, len(x)),
		Density: make([]float64, len(x)), Pressure: make([]float64, len(x))}
	copy(p.V, v)
	e, err := w.add(name, components.Elastoplastic, mat, p)
	if err != nil {
		w.sim.RemoveElastoplastic(id)
		return Entity{}, err
	}
	return e, nil
}

// AddElastoplasticBlock fills the box [lo, hi] with elastoplastic particles at spacing 2r (the
// fluid block's sampling), all with velocity v.
func (w *World) AddElastoplasticBlock(name string, mat components.Material, lo, hi, v mgl64.Vec3) (Entity, error) {
	x, err := physics.FluidBlock(lo, hi, w.sim.Settings.Spacing())
	if err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	return w.AddElastoplasticParticles(name, mat, x, uniform(len(x), v))
}

// AddElastoplasticSphere fills the ball of the given centre and radius with elastoplastic
// particles at spacing 2r, all with velocity v.
func (w *World) AddElastoplasticSphere(name string, mat components.Material, center mgl64.Vec3, radius float64, v mgl64.Vec3) (Entity, error) {
	x, err := physics.FluidSphere(center, radius, w.sim.Settings.Spacing())
	if err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	return w.AddElastoplasticParticles(name, mat, x, uniform(len(x), v))
}

// ElastoplasticState returns the solver state of an elastoplastic body (per-particle F,
// accumulated plastic strain and the last substep's guard counts), or nil for a body that is
// not elastoplastic.
func (w *World) ElastoplasticState(e Entity) *systems.ElastoplasticBody {
	return w.sim.ElastoplasticByID(w.Body(e).ID)
}
