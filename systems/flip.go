package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/flip"
	"github.com/sluicephysics/sluice/physics/par"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// StageFlipStep is the FLIP liquids' stage: after Integration, the last of a substep.
const StageFlipStep = "FlipStep"

// FlipBody is the solver state of one FLIP liquid body (dissertation ch. 3, package
// physics/flip), keyed by the body's ID. The flip.Sim owns the grid, the warm starts and a
// copy of the particles; the body's Particles are the source of truth between steps: Gather
// copies them into the Sim (so a game's edits and removals count) and Scatter copies the
// Sim's back.
type FlipBody struct {
	ID     uint32
	Liquid components.FlipLiquid
	Sim    *flip.Sim
	// Last is the last FLIP step's statistics; Steps, Iterations and the rest count the FLIP
	// steps of the last world Step.
	Last flip.Stats

	density float64  // the material density the Sim was made with (kg/m³)
	solids  []uint32 // IDs of the solid walls that are the Sim's obstacles, ascending
	slot    int
	acc     FlipStats

	// The world's rigid bodies as the Sim's moving bodies (flip.Body), one per rigid solver
	// body, remade when their number changes; the SDFs are method values of rig's elements.
	rig    []flipRigid
	bodies []flip.Body
	// The packed SPH particles' volumes m/ρ0 and impulses, as the Sim's solid particles.
	spVol []float64
	spImp []physics.Vec3
}

// flipRigid is a rigid body's signed distance at its pose of the substep: the shape's
// distance (body frame, about the centre of mass) of Rᵀ(x − X), its normal turned by R.
type flipRigid struct {
	shape *rigid.Shape
	r     rigid.Mat3
	x     physics.Vec3
}

func (f *flipRigid) sdf(x physics.Vec3) (float64, physics.Vec3) {
	p := f.r.MulTVec(physics.Vec3{x[0] - f.x[0], x[1] - f.x[1], x[2] - f.x[2]})
	d, n := f.shape.Distance(p)
	return d, f.r.MulVec(n)
}

// placeRigid gives the Sim every rigid body of the world at its pose and velocity at the end
// of the substep (FlipStep runs after the rigid bodies' integration): its world bounds, its
// signed distance, and the velocity of its centre and its spin.
func (fb *FlipBody) placeRigid(rs *rigid.Solver) {
	n := len(rs.Bodies)
	if len(fb.rig) != n {
		fb.rig = make([]flipRigid, n)
		fb.bodies = make([]flip.Body, n)
		for k := range fb.rig {
			fb.bodies[k].SDF = fb.rig[k].sdf
		}
		fb.Sim.SetBodies(fb.bodies)
	}
	for k := range rs.Bodies {
		rb := &rs.Bodies[k]
		fr := &fb.rig[k]
		fr.shape, fr.r, fr.x = rb.Shape, rb.Frame(), rb.X
		lo, hi := rb.Shape.Bounds()
		b := &fb.bodies[k]
		// the world box of the rotated body box: centre R·c + X, half extents |R|·e
		for d := 0; d < 3; d++ {
			c, e := 0.0, 0.0
			for q := 0; q < 3; q++ {
				m := fr.r[3*d+q]
				c += m * 0.5 * (lo[q] + hi[q])
				e += math.Abs(m) * 0.5 * (hi[q] - lo[q])
			}
			b.Min[d], b.Max[d] = rb.X[d]+c-e, rb.X[d]+c+e
		}
		b.Center, b.V, b.W = rb.X, rb.V, rb.W
	}
}

// FlipStats describes one FLIP body over one World.Step (the stats: grid size, MPRGP
// iterations and residual, liquid cells, particles per cell).
type FlipStats struct {
	Name                 string  `json:"name"`                 // body name
	Grid                 [3]int  `json:"grid"`                 // cells per axis of the MAC grid
	Particles            int     `json:"particles"`            // particles at the end of the step
	Steps                int     `json:"steps"`                // FLIP steps in the world step (one per substep, more where a substep exceeds the liquid's cfl)
	SolveIterations      int     `json:"solveIterations"`      // matrix products of the step's velocity (pressure) solves, MPRGP or PCG
	SolveResidual        float64 `json:"solveResidual"`        // largest exit residual of the step's velocity solves: ∞-norm of the projected gradient (MPRGP) or residual (PCG), kg/m³ per cell
	Unconverged          int     `json:"unconverged"`          // velocity solves that stopped at maxIterations above the tolerance
	CorrectionIterations int     `json:"correctionIterations"` // matrix products of the step's density-correction solves
	LiquidCells          int     `json:"liquidCells"`          // cells in the pressure solve at the last FLIP step
	PressurisedCells     int     `json:"pressurisedCells"`     // of those, cells with positive pressure (unilateral) or all (bilateral)
	ParticlesPerCell     float64 `json:"particlesPerCell"`     // particles per liquid cell at the last FLIP step
	// RigidImpulse is the pressure's impulse on the rigid bodies over the step, summed over
	// them (N·s): what the liquid gave them, and took from itself (flip.Body).
	RigidImpulse physics.Vec3 `json:"rigidImpulse"`
	// ParticleImpulse is the pressure's impulse on the SPH particles (fluid, goo, elastic and
	// elastoplastic) over the step, summed over them (N·s).
	ParticleImpulse physics.Vec3 `json:"particleImpulse"`
}

// newFlip validates the liquid's parameters and makes its Sim, with the solid walls known now
// as obstacles.
func (s *Sim) newFlip(id uint32, name string, liq components.FlipLiquid, density float64) (*FlipBody, error) {
	path := fmt.Sprintf("bodies[%q].flip", name)
	if err := liq.Validate(path); err != nil {
		return nil, err
	}
	fb := &FlipBody{ID: id, Liquid: liq, density: density}
	if err := s.buildFlip(fb, name, nil); err != nil {
		return nil, err
	}
	return fb, nil
}

// buildFlip (re)makes the Sim of fb with the solid walls inside its grid box as obstacles
// (Eq. 3.13 blurs them once, at construction), carrying over st (particles and warm starts)
// when not nil.
func (s *Sim) buildFlip(fb *FlipBody, name string, st *flip.State) error {
	p := fb.Liquid.Params(fb.density, s.Settings.Gravity)
	obs, ids := s.flipObstacles(&fb.Liquid, p)
	sim, err := flip.New(p, obs, s.pool)
	if err != nil {
		return fmt.Errorf("body %q: %w", name, err)
	}
	if st != nil {
		if err := sim.Restore(*st); err != nil {
			return fmt.Errorf("body %q: %w", name, err)
		}
	}
	fb.Sim, fb.solids = sim, ids
	fb.rig, fb.bodies = nil, nil // the next substep gives the new Sim the rigid bodies
	return nil
}

// flipObstacles returns the solid walls (s.Solids: boxes, closed meshes) whose bounds meet the
// grid box of p, as signed-distance obstacles at their time-0 placement, and their IDs.
func (s *Sim) flipObstacles(liq *components.FlipLiquid, p flip.Params) ([]flip.Obstacle, []uint32) {
	var obs []flip.Obstacle
	var ids []uint32
	top := physics.Vec3{}
	for d := 0; d < 3; d++ {
		top[d] = p.Origin[d] + p.CellSize*float64(p.Dims[d])
	}
	for i := range s.Solids {
		so := &s.Solids[i]
		if so.hi[0] <= p.Origin[0] || so.hi[1] <= p.Origin[1] || so.hi[2] <= p.Origin[2] ||
			so.lo[0] >= top[0] || so.lo[1] >= top[1] || so.lo[2] >= top[2] {
			continue
		}
		sh, c := so.Shape, so.Center
		obs = append(obs, flip.Obstacle{Kind: flip.ObstacleSDF, Min: so.lo, Max: so.hi,
			SDF: func(x physics.Vec3) (float64, physics.Vec3) {
				return sh.Distance(physics.Vec3{x[0] - c[0], x[1] - c[1], x[2] - c[2]})
			}})
		ids = append(ids, so.ID)
	}
	return obs, ids
}

// InitFlip makes the FLIP state of a new body (its grid, obstacles and particles x, v) and
// reports parameters out of range, a grid over its memory limit (before allocating it), and
// obstacles that leave no room for liquid, naming the body and the key.
func (s *Sim) InitFlip(id uint32, name string, liq components.FlipLiquid, density float64) error {
	fb, err := s.newFlip(id, name, liq, density)
	if err != nil {
		return err
	}
	s.RemoveFlip(id)
	s.Flip = append(s.Flip, fb)
	slices.SortFunc(s.Flip, func(a, b *FlipBody) int { return int(a.ID) - int(b.ID) })
	return nil
}

// RemoveFlip drops the FLIP state of the body with the given ID (if any).
func (s *Sim) RemoveFlip(id uint32) {
	s.Flip = slices.DeleteFunc(s.Flip, func(f *FlipBody) bool { return f.ID == id })
}

// FlipByID returns the FLIP state of the body with the given ID, or nil.
func (s *Sim) FlipByID(id uint32) *FlipBody {
	i, ok := slices.BinarySearchFunc(s.Flip, id, func(f *FlipBody, id uint32) int { return int(f.ID) - int(id) })
	if !ok {
		return nil
	}
	return s.Flip[i]
}

// gatherFlip matches the FLIP states to the FLIP bodies: it drops the states of bodies that
// are gone, rebuilds a Sim whose obstacles changed (solid walls added or removed) or whose
// material density changed, refuses a moving solid wall inside a liquid's grid (obstacles
// are static, Eq. 3.13 is integrated once), and copies each body's particles into its Sim.
func (s *Sim) gatherFlip() error {
	keep := s.Flip[:0:0]
	for slot, b := range s.bodies {
		if b.body.Phase != components.Flip {
			continue
		}
		fb := s.FlipByID(b.body.ID)
		if fb == nil {
			return fmt.Errorf("body %q: a flip body without its FLIP state (add flip bodies with World.AddFlipBlock or AddFlipParticles)", b.body.Name)
		}
		p := fb.Liquid.Params(b.mat.RestDensity, s.Settings.Gravity)
		_, ids := s.flipObstacles(&fb.Liquid, p)
		for _, id := range ids {
			j, ok := slices.BinarySearchFunc(s.bodies, id, func(b bodySlot, id uint32) int { return int(b.body.ID) - int(id) })
			if ok && s.bodies[j].motion != nil {
				return fmt.Errorf("body %q: the solid wall %q moves, and a FLIP liquid's obstacles are static (blurred once, Eq. 3.13): give it no motion or keep it outside the liquid's grid box", b.body.Name, s.bodies[j].body.Name)
			}
		}
		if !slices.Equal(ids, fb.solids) || b.mat.RestDensity != fb.density {
			st := fb.Sim.Save()
			fb.density = b.mat.RestDensity
			if err := s.buildFlip(fb, b.body.Name, &st); err != nil {
				return err
			}
		}
		n := b.p.Len()
		if len(b.p.V) != n && len(b.p.V) != 0 {
			return fmt.Errorf("body %q: %d velocities for %d positions", b.body.Name, len(b.p.V), n)
		}
		b.p.V = fit(b.p.V, n)
		if err := fb.setParticles(b.body.Name, b.p); err != nil {
			return err
		}
		fb.slot = slot
		fb.acc = FlipStats{Name: b.body.Name, Grid: fb.Sim.Grid().N}
		keep = append(keep, fb)
	}
	s.Flip = keep
	return nil
}

// setParticles copies the body's particles into the Sim, checking that every one is finite
// and inside the grid box (a game may have moved them).
func (fb *FlipBody) setParticles(name string, p *components.Particles) error {
	g := fb.Sim.Grid()
	top := g.Max()
	for i, x := range p.X {
		if !physics.Finite(x) || !physics.Finite(p.V[i]) {
			return fmt.Errorf("body %q particle %d has a non-finite position or velocity", name, i)
		}
		for d := 0; d < 3; d++ {
			if x[d] < g.Origin[d] || x[d] > top[d] {
				return fmt.Errorf("body %q particle %d at %v is outside its grid box [%v, %v]", name, i, x, g.Origin, top)
			}
		}
	}
	fb.Sim.X = append(fb.Sim.X[:0], p.X...)
	fb.Sim.V = append(fb.Sim.V[:0], p.V...)
	return nil
}

// scatterFlip writes each FLIP Sim's particles back to its body, with every particle's mass
// ρ·h³/n³ (mass-full FLIP, §3.2) and, per particle, the last FLIP step's density and pressure
// of the cell it ends in (flip.Sim.CellValues).
func (s *Sim) scatterFlip() {
	for _, fb := range s.Flip {
		b := s.bodies[fb.slot]
		p, sim := b.p, fb.Sim
		n := len(sim.X)
		p.X = append(p.X[:0], sim.X...)
		p.V = append(p.V[:0], sim.V...)
		p.M, p.Density, p.Pressure = fit(p.M, n), fit(p.Density, n), fit(p.Pressure, n)
		m := sim.ParticleMass()
		for i, x := range sim.X {
			p.M[i] = m
			p.Density[i], p.Pressure[i] = sim.CellValues(x)
		}
		p.MassDensity = b.mat.RestDensity
	}
}

// flipStats appends the FLIP bodies' statistics of the step to a.
func (s *Sim) flipStats(a *StepStats) {
	for _, fb := range s.Flip {
		st := fb.acc
		st.Particles = len(fb.Sim.X)
		st.LiquidCells, st.PressurisedCells, st.ParticlesPerCell = fb.Last.LiquidCells, fb.Last.Pressurised, fb.Last.PerCell
		a.Flip = append(a.Flip, st)
	}
}

// FlipStep advances every FLIP liquid through the substep: flip.Sim.Advance, the six stages of
// §3.2 with the density correction, in as many equal FLIP steps as the liquid's own CFL limit
// (FlipLiquid.CFL, on its cell size) needs — usually one, since the world's substep is limited
// on the much smaller SPH particle spacing. It runs after Integration, so it sees the
// substep's final length (ElasticSolve may shorten it). The liquid's walls are its grid box
// and the solid walls inside it; it exerts no force on the rest of the world. Worlds without
// FLIP bodies skip it.
type FlipStep struct{ S *Sim }

// Run implements ecs.System.
func (f FlipStep) Run(ctx *ecs.Context) error {
	s := f.S
	for _, fb := range s.Flip {
		if len(fb.Sim.X) == 0 {
			continue
		}
		fb.placeRigid(&s.Rigid)
		fl := &s.Fluid
		n := fl.Len()
		fb.spVol, fb.spImp = par.Grow(fb.spVol, n), par.Grow(fb.spImp, n)
		for q := range fb.spVol {
			fb.spVol[q] = fl.M[q] / fl.Rho0[q]
		}
		if n > 0 {
			fb.Sim.SetSolidParticles(fl.X, fb.spVol, fb.spImp)
		} else {
			fb.Sim.SetSolidParticles(nil, nil, nil)
		}
		// Equal steps no longer than the liquid's CFL limit at the substep's start, as
		// flip.Sim.Advance takes them, each one's solve counted.
		k := max(1, int(math.Ceil(ctx.Dt/fb.Sim.MaxStep()-1e-12)))
		dt := ctx.Dt / float64(k)
		a := &fb.acc
		for range k {
			if err := fb.Sim.Step(dt); err != nil {
				return fmt.Errorf("body %q: %w", s.bodies[fb.slot].body.Name, err)
			}
			// the pressure's reaction on the rigid bodies (static and kinematic ones ignore it)
			for q := range fb.bodies {
				b := &fb.bodies[q]
				rb := &s.Rigid.Bodies[q]
				rb.ApplyImpulse(b.Impulse, rb.X)
				rb.ApplyAngularImpulse(b.AngularImpulse)
				a.RigidImpulse = a.RigidImpulse.Add(b.Impulse)
			}
			// and on the SPH particles (fluid, goo, solids): Δv = impulse/m
			for q, j := range fb.spImp[:n] {
				m := fl.M[q]
				fl.V[q] = fl.V[q].Add(j.Mul(1 / m))
				a.ParticleImpulse = a.ParticleImpulse.Add(j)
			}
			fb.Last = fb.Sim.Stats()
			a.Steps++
			a.SolveIterations += fb.Last.Solve.Iterations
			a.CorrectionIterations += fb.Last.Correction.Iterations
			a.SolveResidual = max(a.SolveResidual, fb.Last.Solve.Residual)
			if !fb.Last.Solve.Converged {
				a.Unconverged++
			}
		}
		bad := 0
		for i, x := range fb.Sim.X {
			if !physics.Finite(x) || !physics.Finite(fb.Sim.V[i]) {
				bad++
			}
		}
		if bad > 0 {
			return &NonFiniteError{Body: s.bodies[fb.slot].body.Name, Count: bad, Time: ctx.Time + ctx.Dt}
		}
	}
	return nil
}
