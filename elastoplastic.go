package sluice

import (
	"fmt"

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
	return w.addSolid(name, components.Elastoplastic, mat, x, v,
		func(id uint32, m *components.Material) error {
			return w.sim.InitElastoplastic(id, name, m, len(x), m.RestDensity*w.sim.Volume0)
		},
		w.sim.RemoveElastoplastic)
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
	b := w.Body(e)
	if b == nil {
		return nil
	}
	return w.sim.ElastoplasticByID(b.ID)
}
