package sluice

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/systems"
)

// AddFlipBlock adds a FLIP liquid body (Gerszewski's dissertation ch. 3, package physics/flip;
// docs/flip.md): the box [lo, hi] filled with liq.ParticlesPerAxis particles per cell and axis
// on the sub-cell lattice of its MAC grid, skipping points inside the world's solid walls, all
// with velocity v. mat.RestDensity is the liquid's density; liq holds the grid box, the cell
// size and the solver's parameters. Out-of-range parameters, a grid over liq.MaxGridMemory
// (refused before it is allocated), obstacles that leave no liquid cell and a block outside
// the grid box are reported now, naming the body and the key.
func (w *World) AddFlipBlock(name string, mat components.Material, liq components.FlipLiquid, lo, hi, v mgl64.Vec3) (Entity, error) {
	return w.addFlip(name, mat, liq, func(fb *systems.FlipBody) error {
		_, err := fb.Sim.AddBlock(lo, hi, v)
		return err
	})
}

// AddFlipParticles adds a FLIP liquid body with the given positions and velocities (v may be
// nil for rest), each particle of mass ρ·h³/n³ (mass-full FLIP). Every position must lie in
// the grid box and outside the solid walls.
func (w *World) AddFlipParticles(name string, mat components.Material, liq components.FlipLiquid, x, v []mgl64.Vec3) (Entity, error) {
	if v == nil {
		v = make([]mgl64.Vec3, len(x))
	}
	return w.addFlip(name, mat, liq, func(fb *systems.FlipBody) error {
		return fb.Sim.AddParticles(x, v)
	})
}

// addFlip makes the FLIP state of a new body, lets seed fill its Sim's particles, and adds the
// body with them.
func (w *World) addFlip(name string, mat components.Material, liq components.FlipLiquid, seed func(fb *systems.FlipBody) error) (Entity, error) {
	if name == "" {
		return Entity{}, fmt.Errorf("body name must not be empty")
	}
	if w.names[name] {
		return Entity{}, fmt.Errorf("body %q: a body of that name exists already", name)
	}
	if err := mat.Validate(fmt.Sprintf("bodies[%q].material", name)); err != nil {
		return Entity{}, err
	}
	id := w.nextID + 1
	if err := w.sim.InitFlip(id, name, liq, mat.RestDensity); err != nil {
		return Entity{}, err
	}
	fb := w.sim.FlipByID(id)
	if err := seed(fb); err != nil {
		w.sim.RemoveFlip(id)
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	n := len(fb.Sim.X)
	p := components.Particles{X: slices.Clone(fb.Sim.X), V: slices.Clone(fb.Sim.V),
		M: make([]float64, n), Density: make([]float64, n), Pressure: make([]float64, n), MassDensity: mat.RestDensity}
	for i := range p.M {
		p.M[i] = fb.Sim.ParticleMass()
	}
	e, err := w.add(name, components.Flip, mat, p)
	if err != nil {
		w.sim.RemoveFlip(id)
		return Entity{}, err
	}
	return e, nil
}

// FlipState returns the FLIP state of a flip body (its grid, solver and the last step's
// statistics), or nil for a body that is not one.
func (w *World) FlipState(e Entity) *systems.FlipBody {
	b := w.Body(e)
	if b == nil {
		return nil
	}
	return w.sim.FlipByID(b.ID)
}
