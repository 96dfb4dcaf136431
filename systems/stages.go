package systems

import (
	"fmt"
	"slices"
	"time"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Stage names, in the order DESIGN §4 runs them. Games insert their own systems relative to
// these names.
const (
	StageNeighborSearch  = "NeighborSearch"
	StageDensity         = "Density"
	StageAdvectionForces = "AdvectionForces"
	StageViscositySolve  = "ViscositySolve"
	StagePressureSolve   = "PressureSolve"
	StageIntegration     = "Integration"
)

// DefaultSchedule fills sched with the stages of a substep: the five of IISPH, the implicit
// viscosity solve right after advection (a no-op in substeps that integrate the viscosity
// explicitly), the micropolar vorticity and air drag (vortdrag.go; a no-op without them) and, between advection and the pressure solve, the implicit elastic solve, the explicit elastoplastic
// forces and the goo's velocity corrections, and after integration the animation fields
// (animfield.go) and the FLIP liquids' step (each a no-op without such fields or bodies).
func DefaultSchedule(sched *ecs.Schedule, s *Sim) error {
	for _, st := range []struct {
		name string
		sys  ecs.System
	}{
		{StageNeighborSearch, NeighborSearch{s}},
		{StageDensity, Density{s}},
		{StageAdvectionForces, AdvectionForces{s}},
		{StageViscositySolve, ViscositySolve{s}},
		{StageVorticityDrag, VorticityDrag{s}},
		{StageElasticSolve, ElasticSolve{s}},
		{StageElastoplasticForces, ElastoplasticForces{s}},
		{StageViscoelastic, ViscoelasticConnections{s}},
		{StagePressureSolve, PressureSolve{s}},
		{StageIntegration, Integration{s}},
		{StageEmitterMouths, EmitterMouths{s}},
		{StageAnimationFields, AnimationFields{s}},
		{StageFlipStep, FlipStep{s}},
	} {
		if err := sched.Add(st.name, st.sys); err != nil {
			return err
		}
	}
	return nil
}

// NeighborSearch reads fluid and boundary positions and writes the fluid→fluid and
// fluid→boundary neighbour lists (with W and the gradient factor G per pair, ∇W = G x_ij) for
// this substep. Every SortEvery substeps it first permutes all packed fluid fields into the
// grid's cell order, so neighbours sit close in memory. It comes first because every later
// stage reads its lists.
type NeighborSearch struct{ S *Sim }

// Run implements ecs.System.
func (n NeighborSearch) Run(ctx *ecs.Context) error {
	s := n.S
	f := &s.Fluid
	h := s.Kernel.H
	s.placeVirtual()
	if s.sinceSort == 0 {
		// the positions are permuted into the grid's order, and the grid then reads them in
		// place of a sorted copy of its own
		if err := s.fluidGrid.BuildOrder(f.X, h, s.pool); err != nil {
			return s.describe(err)
		}
		order := s.fluidGrid.Order
		s.FF.Reorder(order, s.pool)
		s.FB.Reorder(order, s.pool)
		s.perm.Apply(f.Fields(), order, s.pool)
		s.permuteOrigin(order)
		s.remapGoo(order, f.Len())
		s.permuteVirtual(order)
		s.fluidGrid.RelabelTo(f.X)
	} else if err := s.fluidGrid.Build(f.X, h, s.pool); err != nil {
		return s.describe(err)
	}
	if s.moving {
		t0 := time.Now()
		s.moveBoundaries(ctx.Time, ctx.Dt, false)
		s.placeRigid(ctx.Time, ctx.Dt)
		if s.wallsMove && len(s.Rigid.Bodies) > 0 {
			s.Rigid.SetStatic(s.Bound.X, s.Bound.V, s.staticIDs, 2*s.Settings.Spacing())
		}
		if err := s.boundGrid.Build(s.Bound.X, h, s.pool); err != nil {
			return fmt.Errorf("moving boundary: %w", err)
		}
		if len(s.mapped) > 0 && s.nVis > 0 {
			if err := s.visGrid.Build(s.Bound.X[:s.nVis], h, s.pool); err != nil {
				return fmt.Errorf("moving boundary: %w", err)
			}
		}
		if len(s.Rigid.Bodies) > 0 {
			s.acc.RigidMs += float64(time.Since(t0).Nanoseconds()) / 1e6
		}
	}
	s.sinceSort = (s.sinceSort + 1) % s.Settings.SortEvery
	s.FF.SkipW, s.FB.SkipW = s.pairKernelValuesUnread()
	bg := s.fluidBoundary()
	s.FB.Weights = s.fb.Vol
	physics.Search(&s.fluidGrid, f.X, &s.fluidGrid, s.fluidGrid.SelfAdjacent(), &s.Kernel, true, &s.FF, s.pool)
	s.adj = par.Grow(s.adj, 27*s.fluidGrid.NumCells())
	s.fluidGrid.Adjacent(bg, s.adj, s.pool)
	physics.Search(&s.fluidGrid, f.X, bg, s.adj, &s.Kernel, false, &s.FB, s.pool)
	return nil
}

// pairKernelValuesUnread reports, for the fluid-fluid and the fluid-boundary lists, whether
// no stage of this world reads the kernel value W_ij of a pair, so the search need not store
// it (physics.Neighbors.SkipW: 4 of a pair's 12 bytes). The densities come from the searches'
// sums either way. The readers of W_ij are XSPH (solver.xsph), the micropolar model's
// smoothing of ω (material.micropolar.vorticity > 0) and goo's connections (fluid and walls).
func (s *Sim) pairKernelValuesUnread() (ff, fb bool) {
	need := s.Settings.XSPH != 0 || s.gooOn
	for _, b := range s.bodies {
		if b.body.Phase == components.Fluid && b.mat.Micropolar.Vorticity > 0 {
			need = true
		}
	}
	return !need, !s.gooOn
}

func (s *Sim) permuteOrigin(order []int32) {
	n := len(order)
	s.permI = par.Grow(s.permI, 2*n)
	a, b := s.permI[:n], s.permI[n:]
	for k, i := range order {
		a[k], b[k] = s.owner[i], s.origin[i]
	}
	copy(s.owner, a)
	copy(s.origin, b)
}

// describe turns a grid error about a packed index into one naming the body.
func (s *Sim) describe(err error) error {
	return fmt.Errorf("fluid neighbour search: %w", err)
}

// Density reads the neighbour lists, masses and boundary volumes and writes ρ for every fluid
// particle (Akinci 2012 boundary contribution included). The pressure solve needs ρ(t). These
// are also the densities of the positions the previous substep's integration produced, so
// their compression is the step's measured density error (StepStats.DensityErrorMeasuredAvg),
// against which the solver's own predicted error can be checked.
type Density struct{ S *Sim }

// With DFSPH (solver.pressureSolver "dfsph") it then runs the divergence-free solve on the
// velocities v, which Bender & Koschier's step (Algorithm 1) places after the neighbour
// search and density of the new positions, before the non-pressure forces.
//
// Run implements ecs.System.
func (d Density) Run(ctx *ecs.Context) error {
	s := d.S
	s.markNotFluid()
	physics.Density(&s.Fluid, s.fb, &s.FF, &s.FB, &s.Kernel, s.pool)
	if s.DF != nil {
		r := s.DF.DivergenceSolve(&s.Fluid, s.fb, &s.FF, &s.FB, ctx.Dt, s.pool)
		a := &s.acc
		a.DivergenceIterationsTotal += r.Iterations
		a.divSolves++
		a.divErrSum += r.AvgError
		if !r.Converged {
			a.DivergenceUnconverged++
		}
	}
	if s.integrated {
		s.integrated = false
		nb := par.Blocks(s.Fluid.Len())
		s.partial = par.Grow(s.partial, nb)
		s.partial2 = par.Grow(s.partial2, nb)
		avg, mx := s.Fluid.CompressionError(s.partial, s.partial2, s.pool)
		a := &s.acc
		a.measSum += avg
		a.DensityErrorMeasuredMax = max(a.DensityErrorMeasuredMax, mx)
		a.DensityErrorMeasured++
	}
	return nil
}

// AdvectionForces reads v, ρ and the neighbour lists and writes the predicted velocity
// v* = v + Δt·a_nonpressure (gravity, viscosity, XSPH, the drag of walls and bodies with a
// boundary viscosity, whose reaction it sums per body, and the surface tension and the wall
// adhesion of fluid bodies with material.surfaceTension or material.wallAdhesion > 0, Akinci et
// al. 2013, the adhesion's reaction also summed per body). Stages inserted after it (elastic,
// viscoelastic) modify v* further before the pressure solve sees it.
type AdvectionForces struct{ S *Sim }

// In a substep whose viscosity the implicit solve integrates (see Sim.NextDt) it leaves the
// viscosity and the drag out; ViscositySolve, right after it, adds both.
//
// Run implements ecs.System.
func (a AdvectionForces) Run(ctx *ecs.Context) error {
	s := a.S
	if s.viscImplicit {
		physics.AdvectInviscid(&s.Fluid, &s.FF, &s.Kernel, s.Settings.Gravity, s.Settings.XSPH, ctx.Dt, s.pool)
		s.surfaceTension(ctx.Dt)
		s.adhesion(ctx.Dt)
		return nil
	}
	physics.Advect(&s.Fluid, &s.FF, &s.Kernel, s.Settings.Gravity, s.Settings.XSPH, ctx.Dt, s.pool)
	s.boundaryDrag(ctx.Dt)
	s.surfaceTension(ctx.Dt)
	s.adhesion(ctx.Dt)
	return nil
}

// ViscositySolve reads v*, ρ, the neighbour lists and the walls' drag and replaces v* by the
// velocity after an implicit (backward Euler) viscosity step (physics/viscosity, Weiler et
// al. 2018), in the substeps Sim.NextDt gave to it (solver.viscositySolver "implicit", or
// "auto" where the explicit limit would cut the step); otherwise it does nothing. The walls'
// drag is part of the solve; its reaction on the bodies is summed from the solved velocities.
type ViscositySolve struct{ S *Sim }

// Run implements ecs.System.
func (v ViscositySolve) Run(ctx *ecs.Context) error {
	s := v.S
	if !s.viscImplicit || s.Fluid.Len() == 0 {
		return nil
	}
	r := s.Visc.Solve(&s.Fluid, s.fb, &s.FF, &s.FB, &s.Kernel, ctx.Dt, s.pool)
	a := &s.acc
	a.ViscositySolves++
	a.ViscosityIterationsTotal += r.Iterations
	if !r.Converged {
		a.ViscosityUnconverged++
	}
	if s.dragOn {
		// The drag's reaction from the solved velocities (rigid.Loads.Drag reads f.V): the
		// fluid's side of each wall pair was computed from the same field.
		f := &s.Fluid
		f.V, s.viscV = s.Visc.Solution(), f.V
		s.setCenters()
		s.drag.Drag(f, s.fb, &s.FB, &s.Kernel, s.fbOwner, s.bCenters, s.pool)
		f.V = s.viscV
	}
	return nil
}

// PressureSolve reads ρ, v* and the last step's pressures and writes new pressures and the
// pressure acceleration, making the fluid incompressible and keeping it out of the
// boundaries: IISPH (Ihmsen et al. 2014); when solver.pressureSolver is "dfsph", the
// constant-density solve of Divergence-Free SPH (Bender & Koschier 2015), whose velocity
// correction divided by Δt is the pressure acceleration and whose pressure includes the
// divergence solve's of the Density stage; or, when it is "pf", Projective Fluids (Weiler et
// al. 2016), whose constraint force per unit mass takes the place of the pressure acceleration.
type PressureSolve struct{ S *Sim }

// Run implements ecs.System.
func (p PressureSolve) Run(ctx *ecs.Context) error {
	s := p.S
	a := &s.acc
	if s.PF != nil {
		if err := s.prepareCloth(); err != nil {
			return err
		}
		r := s.PF.Solve(&s.Fluid, s.fb, &s.FF, &s.FB, &s.Kernel, ctx.Dt, s.Settings.Spacing(), s.pool)
		a.PressureIterationsTotal += r.Iterations
		a.PFCGIterationsTotal += r.CGIterations
		a.solves++
		a.errSum += r.AvgError
		a.DensityErrorMax = max(a.DensityErrorMax, r.MaxError)
		if !r.Converged {
			a.UnconvergedSolves++
		}
	} else if s.DF != nil {
		r := s.DF.Solve(&s.Fluid, s.fb, &s.FF, &s.FB, ctx.Dt, s.pool)
		a.PressureIterationsTotal += r.Iterations
		a.solves++
		a.errSum += r.AvgError
		a.DensityErrorMax = max(a.DensityErrorMax, r.MaxError)
		if !r.Converged {
			a.UnconvergedSolves++
		}
	} else {
		r := s.Pressure.Solve(&s.Fluid, s.fb, &s.FF, &s.FB, ctx.Dt, s.pool)
		a.PressureIterationsTotal += r.Iterations
		a.solves++
		a.errSum += r.AvgError
		a.DensityErrorMax = max(a.DensityErrorMax, r.MaxError)
		if !r.Converged {
			a.UnconvergedSolves++
		}
	}
	t0 := time.Now()
	s.boundaryLoads(ctx.Dt)
	if len(s.Rigid.Bodies) > 0 {
		s.acc.RigidMs += float64(time.Since(t0).Nanoseconds()) / 1e6
	}
	return nil
}

// Integration reads v* and the pressure acceleration and writes v and x (semi-implicit Euler),
// then puts pinned elastic particles back at their rest positions with zero velocity (the
// pressure solve may have pushed them). It then checks every particle: a non-finite state stops the step with an error naming the
// body; particles outside the domain are removed and counted per body (never silently).
type Integration struct{ S *Sim }

// Run implements ecs.System.
func (in Integration) Run(ctx *ecs.Context) error {
	s := in.S
	f := &s.Fluid
	physics.Integrate(f, ctx.Dt, s.pool)
	s.integrated = true // the next Density stage measures these positions' compression
	s.holdPinned()
	s.holdCloth()
	if s.moving {
		s.moveBoundaries(ctx.Time, ctx.Dt, true)
	}
	if len(s.Rigid.Bodies) > 0 {
		t0 := time.Now()
		s.stepRigid(ctx.Time, ctx.Dt)
		s.acc.RigidMs += float64(time.Since(t0).Nanoseconds()) / 1e6
	}
	s.confineSolids(ctx.Time + ctx.Dt)
	bad, out := s.checkDomain()
	if bad >= 0 {
		n := 0
		for k := range f.X {
			sameBody := s.owner[k] == s.owner[bad]
			if sameBody && (!physics.Finite(f.X[k]) || !physics.Finite(f.V[k])) {
				n++
			}
		}
		return &NonFiniteError{Body: s.BodyName(bad), Count: n, Time: ctx.Time + ctx.Dt}
	}
	if out > 0 {
		s.removeOutside(ctx.Time + ctx.Dt)
		if s.clothOut != "" {
			name := s.clothOut
			s.clothOut = ""
			return fmt.Errorf("cloth body %q: a vertex left the domain at t = %.6g s (cloth vertices are not removed; widen solver.domainMin/domainMax)", name, ctx.Time+ctx.Dt)
		}
	}
	return nil
}

// checkDomain returns the first packed particle with a non-finite position or velocity (−1 if
// none) and the number of particles outside the domain, counted in parallel over fixed blocks
// and combined in block order, so the answer does not depend on the worker count.
func (s *Sim) checkDomain() (bad, out int) {
	n := s.Fluid.Len()
	nb := par.Blocks(n)
	s.blockBad = par.Grow(s.blockBad, nb)
	s.blockOut = par.Grow(s.blockOut, nb)
	s.pool.For(n, s.checkFn)
	bad = -1
	for b := 0; b < nb; b++ {
		if s.blockBad[b] >= 0 {
			return int(s.blockBad[b]), out
		}
		out += int(s.blockOut[b])
	}
	return bad, out
}

// checkBlock is checkDomain's work on the particles [lo, hi) of one block: it stops at the
// block's first non-finite particle (the step then fails, the count is not needed).
func (s *Sim) checkBlock(lo, hi, block int) {
	f := &s.Fluid
	dlo, dhi := s.DomainMin, s.DomainMax
	bad, out := int32(-1), int32(0)
	for k := lo; k < hi; k++ {
		x, v := &f.X[k], &f.V[k]
		if !physics.Finite(*x) || !physics.Finite(*v) {
			bad = int32(k)
			break
		}
		if x[0] < dlo[0] || x[1] < dlo[1] || x[2] < dlo[2] || x[0] > dhi[0] || x[1] > dhi[1] || x[2] > dhi[2] {
			out++
		}
	}
	s.blockBad[block], s.blockOut[block] = bad, out
}

// NonFiniteError reports particles whose position or velocity became NaN or infinite.
type NonFiniteError struct {
	Body  string
	Count int
	Time  float64
}

func (e *NonFiniteError) Error() string {
	return fmt.Sprintf("body %q: %d particles have a non-finite position or velocity at t = %.6g s (the step is unstable: lower cfl or dtMax)", e.Body, e.Count, e.Time)
}

// removeOutside drops packed particles outside the domain, recording each for Scatter and for
// the step's statistics.
func (s *Sim) removeOutside(t float64) {
	f := &s.Fluid
	lo, hi := s.DomainMin, s.DomainMax
	s.dropPacked(func(k int) bool {
		x := f.X[k]
		if x[0] < lo[0] || x[1] < lo[1] || x[2] < lo[2] || x[0] > hi[0] || x[1] > hi[1] || x[2] > hi[2] {
			b := &s.bodies[s.owner[k]]
			if b.body.Phase == components.Elastic {
				// The elastic solve of this step needs every particle its body started
				// with: the particle stays packed (the sparse grid holds it) and leaves
				// its body at the next Gather.
				q := queuedRemoval{b.body.ID, s.origin[k]}
				if !slices.Contains(s.queued, q) {
					s.queued = append(s.queued, q)
					s.acc.noteRemoval(b.body.Name, t)
				}
				return false
			}
			if b.body.Phase == components.Cloth {
				s.clothOut = b.body.Name // the mesh needs every vertex: Integration reports it
				return false
			}
			s.acc.noteRemoval(s.BodyName(k), t)
			return true
		}
		return false
	})
}

// dropPacked removes the packed particles for which drop is true, recording each for Scatter,
// which takes them out of their bodies at the end of the step. The others keep their packed
// order; the goo connections follow them.
func (s *Sim) dropPacked(drop func(k int) bool) {
	f := &s.Fluid
	keep := s.permI[:0]
	for k := range f.X {
		if drop(k) {
			s.removed = append(s.removed, removal{s.owner[k], s.origin[k]})
			continue
		}
		keep = append(keep, int32(k))
	}
	order := append([]int32(nil), keep...)
	oldN := f.Len()
	s.perm.Apply(f.Fields(), order, s.pool)
	for _, fd := range f.Fields() {
		if fd.Scalar != nil {
			*fd.Scalar = (*fd.Scalar)[:len(order)]
		} else if len(*fd.Vec) > 0 { // VDiff and Omega stay empty until used
			*fd.Vec = (*fd.Vec)[:len(order)]
		}
	}
	n := len(order)
	for k, i := range order {
		s.owner[k], s.origin[k] = s.owner[i], s.origin[i]
	}
	s.owner, s.origin = s.owner[:n], s.origin[:n]
	s.remapGoo(order, oldN)
}
