package systems

import (
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/par"
	"github.com/sluicephysics/sluice/physics/tension"
)

// surfaceTension adds the surface tension of Akinci et al. 2013 (physics/tension) to v* of
// the fluid bodies whose material has surfaceTension > 0: plain fluid and goo, not elastic or
// elastoplastic bodies. It runs in AdvectionForces after the other non-pressure forces, so the
// implicit viscosity solve and the pressure solve that follow see it in v*. Each substep copies
// every packed particle's γ from its body's material (the packed order changes with the
// z-sort and removals; a material edit takes effect at once); without such a body it does
// nothing.
func (s *Sim) surfaceTension(dt float64) {
	if !s.anyFluidCoeff(surfaceTensionOf) {
		return
	}
	ts := &s.Tension
	ts.Gamma = s.fluidCoeffs(ts.Gamma, surfaceTensionOf)
	ts.Apply(&s.Fluid, &s.FF, &s.Kernel, dt, s.pool)
}

// adhesion adds the adhesion of Akinci et al. 2013 (Eq. 6-7, tension.Adhesive) of the fluid
// bodies (plain and goo) whose material has wallAdhesion > 0 to v*, and sums its reaction per boundary
// body for boundaryLoads. Like surfaceTension it runs in AdvectionForces and copies every packed
// particle's β from its body's material each substep; without such a body, or without boundary
// samples and volume-mapped walls, it does nothing (a mapped wall acts through its virtual
// particles, packed samples or not).
func (s *Sim) adhesion(dt float64) {
	s.adhOn = (s.Bound.Len() > 0 || len(s.mapped) > 0) && s.anyFluidCoeff(wallAdhesionOf)
	if !s.adhOn {
		return
	}
	ad := &s.Adhesion
	ad.Beta = s.fluidCoeffs(ad.Beta, wallAdhesionOf)
	s.setCenters()
	ad.Apply(&s.Fluid, s.fb, &s.FB, &s.Kernel, s.fbOwner, s.bCenters, dt, s.pool)
}

func surfaceTensionOf(m *components.Material) float64 { return m.SurfaceTension }
func wallAdhesionOf(m *components.Material) float64   { return m.WallAdhesion }

// anyFluidCoeff reports whether some fluid body with particles has a positive coefficient
// coef of its material.
func (s *Sim) anyFluidCoeff(coef func(*components.Material) float64) bool {
	for i := range s.bodies {
		b := &s.bodies[i]
		if b.body.Phase == components.Fluid && coef(b.mat) > 0 && b.p.Len() > 0 {
			return true
		}
	}
	return false
}

// fluidCoeffs returns dst grown to the packed particle count with every packed particle's
// coefficient coef of its body's material (0 for particles of bodies that are not fluid).
func (s *Sim) fluidCoeffs(dst []float64, coef func(*components.Material) float64) []float64 {
	dst = par.Grow(dst, s.Fluid.Len())
	for k := range dst {
		b := &s.bodies[s.owner[k]]
		c := 0.0
		if b.body.Phase == components.Fluid {
			c = coef(b.mat)
		}
		dst[k] = c
	}
	return dst
}

// tensionDt is the surface tension's step limit (tension.StepLimit) for the largest
// acceleration it can give a particle at the corner of a sampled block of the fluid bodies'
// materials, γ(ρ0·a_cohesion + a_curvature) with the corner accelerations per unit γ of
// tension.CornerAcceleration for this kernel, spacing and rest volume (computed once); +Inf
// without surface tension. It depends on the materials only, so a restored snapshot steps as
// the saved world did.
func (s *Sim) tensionDt() float64 {
	amax := 0.0
	for i := range s.bodies {
		b := &s.bodies[i]
		if b.body.Phase != components.Fluid || b.mat.SurfaceTension == 0 || b.p.Len() == 0 {
			continue
		}
		if !s.tensionRefSet {
			s.tensionRef[0], s.tensionRef[1] = tension.CornerAcceleration(&s.Kernel, s.Settings.Spacing(), s.Volume0)
			s.tensionRefSet = true
		}
		amax = max(amax, b.mat.SurfaceTension*(b.mat.RestDensity*s.tensionRef[0]+s.tensionRef[1]))
	}
	for i := range s.bodies {
		// the adhesion's bound beside a wall (tension.AdhesionBound), the same force condition
		b := &s.bodies[i]
		if b.body.Phase == components.Fluid && b.p.Len() > 0 {
			amax = max(amax, b.mat.WallAdhesion*b.mat.RestDensity*tension.AdhesionBound())
		}
	}
	return tension.StepLimit(s.Kernel.H, amax)
}
