package systems

import (
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/par"
)

// surfaceTension adds the surface tension of Akinci et al. 2013 (physics/tension) to v* of
// the fluid bodies whose material has surfaceTension > 0: plain fluid and goo, not elastic or
// elastoplastic bodies. It runs in AdvectionForces after the other non-pressure forces, so the
// implicit viscosity solve and the pressure solve that follow see it in v*. Each substep copies
// every packed particle's γ from its body's material (the packed order changes with the
// z-sort and removals; a material edit takes effect at once); without such a body it does
// nothing.
func (s *Sim) surfaceTension(dt float64) {
	on := false
	for i := range s.bodies {
		b := &s.bodies[i]
		if b.body.Phase == components.Fluid && b.mat.SurfaceTension > 0 && b.p.Len() > 0 {
			on = true
			break
		}
	}
	if !on {
		return
	}
	f := &s.Fluid
	ts := &s.Tension
	ts.Gamma = par.Grow(ts.Gamma, f.Len())
	for k := range ts.Gamma {
		b := &s.bodies[s.owner[k]]
		g := 0.0
		if b.body.Phase == components.Fluid {
			g = b.mat.SurfaceTension
		}
		ts.Gamma[k] = g
	}
	ts.Apply(f, &s.FF, &s.Kernel, dt, s.pool)
}
