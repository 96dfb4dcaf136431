package systems

import (
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
	"github.com/sluicephysics/sluice/physics/viscoelastic"
)

// StageViscoelastic is the goo stage's name: between AdvectionForces and PressureSolve.
const StageViscoelastic = "ViscoelasticConnections"

// ViscoelasticConnections reads positions, masses, the neighbour lists and the connections,
// updates the connections (created within α·h, broken beyond β·h), adds the velocity
// corrections of Takahashi et al. 2015 (Eq. 8/10) to v* and weakens c (Eq. 11). It runs
// after AdvectionForces (it corrects v*) and before PressureSolve, which then makes the
// corrected velocities divergence-free, so the goo keeps its volume. Worlds without goo skip it.
type ViscoelasticConnections struct{ S *Sim }

// Run implements ecs.System.
func (v ViscoelasticConnections) Run(ctx *ecs.Context) error {
	s := v.S
	if !s.gooOn {
		return nil
	}
	s.Goo.Owner = nil
	if len(s.Rigid.Bodies) > 0 {
		s.Goo.Owner = s.rOwner
		s.Goo.Centers = par.Grow(s.Goo.Centers, len(s.Rigid.Bodies))
		for k := range s.Rigid.Bodies {
			s.Goo.Centers[k] = s.Rigid.Bodies[k].X
		}
	}
	s.Goo.Step(&s.Fluid, &s.Bound, &s.FF, &s.FB, viscoelastic.Params{Kernel: &s.Kernel, Dt: ctx.Dt}, s.pool)
	s.acc.GooDeferred += s.Goo.Deferred
	return nil
}

// gatherGoo copies every fluid body's goo parameters into the packed state, resets c where a
// material's c was edited since the last step, and sets the walls' adhesion. src maps packed
// particles to their previous packed index (−1: new) when the fluid was repacked this step.
func (s *Sim) gatherGoo(repacked bool, src, inv []int32) {
	on := false
	for _, b := range s.bodies {
		if b.body.Phase == components.Fluid && b.mat.Viscoelastic.Enabled {
			on = true
		}
	}
	n := s.Fluid.Len()
	if !on {
		// No goo body is left (removed, or its material edited to plain fluid): its state
		// goes too, so a snapshot taken now holds none and a restored world continues alike.
		if s.Goo.Len() > 0 {
			s.Goo.Resize(0)
		}
		s.gooOn = false
		return
	}
	switch {
	case repacked && s.Goo.Len() > 0 && src != nil:
		s.Goo.Remap(src, inv, s.bInv, s.pool)
	case s.Goo.Len() != n:
		s.Goo.Resize(n)
	}
	s.gooOn = on
	g := &s.Goo
	// A body's c as of the last step, by body ID: an edited c restarts its particles' c.
	edited := s.gooEdited[:0]
	for _, b := range s.bodies {
		ve := &b.mat.Viscoelastic
		was := -1.0
		for _, e := range s.gooLast {
			if e.id == b.body.ID {
				was = e.c
			}
		}
		edited = append(edited, ve.Enabled && was >= 0 && was != ve.C)
	}
	s.gooEdited = edited
	s.gooLast = s.gooLast[:0]
	for _, b := range s.bodies {
		if b.body.Phase == components.Fluid && b.mat.Viscoelastic.Enabled {
			s.gooLast = append(s.gooLast, gooC{b.body.ID, b.mat.Viscoelastic.C})
		}
	}
	for k := range s.Fluid.X {
		slot := s.owner[k]
		ve := &s.bodies[slot].mat.Viscoelastic
		if !ve.Enabled {
			g.C[k], g.L[k], g.W[k], g.Gamma[k], g.Alpha[k], g.Beta[k], g.New[k] = 0, 0, 0, 0, 0, 0, 0
			continue
		}
		if g.Beta[k] == 0 {
			g.New[k] = 1 // new to the goo: connects its neighbourhood in the next substep
		}
		if g.Beta[k] == 0 || edited[slot] {
			g.C[k] = ve.C // a particle new to the goo, or its body's c was edited
		}
		g.L[k], g.W[k], g.Gamma[k], g.Alpha[k], g.Beta[k] = ve.L, ve.W, ve.Gamma, ve.Alpha, ve.Beta
	}
	adhesive := false
	for _, b := range s.bodies {
		if b.body.Phase == components.Boundary && b.mat.Adhesion > 0 {
			adhesive = true
		}
	}
	if !adhesive {
		g.Adhesion = g.Adhesion[:0]
		return
	}
	g.Adhesion = par.Grow(g.Adhesion, s.Bound.Len())
	for _, b := range s.bodies {
		if b.body.Phase == components.Boundary {
			for k := b.bLo; k < b.bLo+b.p.Len(); k++ {
				g.Adhesion[k] = b.mat.Adhesion
			}
		}
	}
}

type gooC struct {
	id uint32
	c  float64
}

// remapGoo moves the goo state along a reordering of the packed fluid: new particle k was
// old particle order[k]; old particles missing from order are dropped with their connections.
func (s *Sim) remapGoo(order []int32, oldN int) {
	if s.Goo.Len() == 0 {
		return
	}
	s.gooInv = par.Grow(s.gooInv, oldN)
	for i := range s.gooInv {
		s.gooInv[i] = -1
	}
	for k, o := range order {
		s.gooInv[o] = int32(k)
	}
	s.Goo.Remap(order, s.gooInv, nil, s.pool)
}

// moveBoundaries sets the velocity of every kinematic boundary body for the substep [t, t+dt]
// from its path; with advance it also moves the samples to their positions at t+dt.
func (s *Sim) moveBoundaries(t, dt float64, advance bool) {
	for _, b := range s.bodies {
		if b.motion == nil || b.body.Phase != components.Boundary || b.rigid != nil {
			continue
		}
		d := b.motion.Displacement(t + dt).Sub(b.motion.Displacement(t))
		v := physics.Vec3{d[0] / dt, d[1] / dt, d[2] / dt}
		xs, vs := s.Bound.X[b.bLo:b.bLo+b.p.Len()], s.Bound.V[b.bLo:b.bLo+b.p.Len()]
		for k := range xs {
			vs[k] = v
			if advance {
				xs[k] = physics.Vec3{xs[k][0] + d[0], xs[k][1] + d[1], xs[k][2] + d[2]}
			}
		}
	}
}
