package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/elastoplastic"
	"github.com/sluicephysics/sluice/physics/par"
)

// StageElastoplasticForces is the elastoplastic stage's name: between ElasticSolve and
// ViscoelasticConnections.
const StageElastoplasticForces = "ElastoplasticForces"

// ElastoplasticBody is the solver state of one elastoplastic body (Gerszewski et al. 2009,
// physics/elastoplastic), keyed by the body's ID and indexed by the particles' indices in the
// body, so z-sorts and repacks of the packed set leave it untouched; each substep maps it to
// the packed indices.
type ElastoplasticBody struct {
	ID uint32
	// Body is the per-particle state (F, α, previous positions) and solver; nil when removals
	// left the body too few particles to fit an affine motion (it then moves as a liquid).
	Body *elastoplastic.Body
	Last elastoplastic.Stats // the body's last substep

	mass   float64 // the particle mass Body was made with (kg)
	paused float64 // substep time without forces since particles were removed (s)
	stale  bool    // particles were removed: rebuild from the kept state at the next Gather
	kept   elastoplastic.State
	slot   int
	idx    []int32 // particle index in the body → packed index
	x, v   []physics.Vec3
	nb     physics.Neighbors // the body's pairs, taken from the world's lists (bodyPairs)
	// fnPairs is bodyPairsBlock for this body, made once so a substep allocates nothing.
	fnPairs func(lo, hi, blk int)
}

// newElastoplastic makes the state of a body of n particles of mass m each, with F = I.
func (s *Sim) newElastoplastic(id uint32, name string, mat *components.Material, n int, m float64) (*ElastoplasticBody, error) {
	path := fmt.Sprintf("bodies[%q].material.elastoplastic", name)
	if err := mat.Elastoplastic.Validate(path); err != nil {
		return nil, err
	}
	if n < elastoplastic.MinNeighbors+1 {
		return nil, fmt.Errorf("body %q: an elastoplastic body of %d particles cannot fit an affine motion: it needs at least %d (each particle fits its deformation from %d neighbours, ch. 4 §4.4)", name, n, elastoplastic.MinNeighbors+1, elastoplastic.MinNeighbors)
	}
	bd, err := elastoplastic.New(n, m, s.Volume0, s.Kernel.H, mat.Elastoplastic.Model())
	if err != nil {
		return nil, fmt.Errorf("body %q: %w", name, err)
	}
	return &ElastoplasticBody{ID: id, Body: bd, mass: m}, nil
}

// InitElastoplastic makes the elastoplastic state of a new body of n particles of mass m
// (kg) each: F = I, so its shape at the first substep is its rest shape. It reports a body too
// small to fit an affine motion and parameters out of range, naming the body and the key.
func (s *Sim) InitElastoplastic(id uint32, name string, mat *components.Material, n int, m float64) error {
	st, err := s.newElastoplastic(id, name, mat, n, m)
	if err != nil {
		return err
	}
	s.RemoveElastoplastic(id)
	s.Elastoplastic = append(s.Elastoplastic, st)
	slices.SortFunc(s.Elastoplastic, func(a, b *ElastoplasticBody) int { return int(a.ID) - int(b.ID) })
	return nil
}

// RestoreElastoplastic sets the saved per-particle state (F, α, previous positions) of a
// body; a nil-body state (too few particles left) is accepted when the state is empty.
func (s *Sim) RestoreElastoplastic(id uint32, name string, mat *components.Material, n int, m float64, st elastoplastic.State) error {
	if n < elastoplastic.MinNeighbors+1 && len(st.F) == 0 {
		s.RemoveElastoplastic(id)
		s.Elastoplastic = append(s.Elastoplastic, &ElastoplasticBody{ID: id, mass: m})
		slices.SortFunc(s.Elastoplastic, func(a, b *ElastoplasticBody) int { return int(a.ID) - int(b.ID) })
		return nil
	}
	if err := s.InitElastoplastic(id, name, mat, n, m); err != nil {
		return err
	}
	return s.elastoplasticOf(id).Body.Restore(st)
}

// Stale reports whether the body lost particles in the last step and is rebuilt from Kept at
// the next Gather.
func (e *ElastoplasticBody) Stale() bool { return e.stale }

// Kept is the state of the particles a stale body kept (see Stale).
func (e *ElastoplasticBody) Kept() elastoplastic.State { return e.kept }

// RemoveElastoplastic drops the elastoplastic state of the body with the given ID (if any).
func (s *Sim) RemoveElastoplastic(id uint32) {
	s.Elastoplastic = slices.DeleteFunc(s.Elastoplastic, func(e *ElastoplasticBody) bool { return e.ID == id })
}

// ElastoplasticByID returns the elastoplastic state of the body with the given ID, or nil.
func (s *Sim) ElastoplasticByID(id uint32) *ElastoplasticBody { return s.elastoplasticOf(id) }

func (s *Sim) elastoplasticOf(id uint32) *ElastoplasticBody {
	i, ok := slices.BinarySearchFunc(s.Elastoplastic, id, func(e *ElastoplasticBody, id uint32) int { return int(e.ID) - int(id) })
	if !ok {
		return nil
	}
	return s.Elastoplastic[i]
}

// gatherElastoplastic matches the elastoplastic states to the bodies: it makes the state of a
// body that has none (F = I: its current shape is its rest shape), rebuilds one that lost
// particles or whose particle mass changed (a rest-density edit) from its kept per-particle
// state, passes on edited parameters, and drops the states of bodies that are gone.
func (s *Sim) gatherElastoplastic() error {
	if len(s.Elastoplastic) == 0 {
		any := false
		for _, b := range s.bodies {
			any = any || b.body.Phase == components.Elastoplastic
		}
		if !any {
			return nil
		}
	}
	keep := s.Elastoplastic[:0:0]
	for slot, b := range s.bodies {
		if b.body.Phase != components.Elastoplastic {
			continue
		}
		n := b.p.Len()
		m := 0.0 // an elastoplastic body's particles share one mass (checkMasses)
		if n > 0 {
			m = b.p.M[0]
		}
		st := s.elastoplasticOf(b.body.ID)
		switch {
		case st == nil:
			var err error
			if st, err = s.newElastoplastic(b.body.ID, b.body.Name, b.mat, n, m); err != nil {
				return err
			}
		case st.stale || (st.Body != nil && st.mass != m):
			kept := st.kept
			if !st.stale {
				kept = st.Body.Save()
			}
			kept.DtPrev += st.paused // the next fit spans the paused substeps too
			nst := &ElastoplasticBody{ID: st.ID, mass: m}
			if n >= elastoplastic.MinNeighbors+1 {
				var err error
				if nst, err = s.newElastoplastic(b.body.ID, b.body.Name, b.mat, n, m); err != nil {
					return err
				}
				if err := nst.Body.Restore(kept); err != nil {
					return fmt.Errorf("body %q: %w", b.body.Name, err)
				}
			}
			st = nst
		}
		if st.Body != nil {
			if st.Body.Len() != n {
				return fmt.Errorf("body %q: %d particles, its elastoplastic state holds %d (elastoplastic bodies cannot gain particles)", b.body.Name, n, st.Body.Len())
			}
			if err := st.Body.SetMaterial(b.mat.Elastoplastic.Model()); err != nil {
				return fmt.Errorf("body %q: %w", b.body.Name, err)
			}
		}
		st.slot = slot
		st.idx, st.x, st.v = par.Grow(st.idx, n), par.Grow(st.x, n), par.Grow(st.v, n)
		keep = append(keep, st)
	}
	s.Elastoplastic = keep
	return nil
}

// dropElastoplastic removes the particles drop (sorted local indices) from the state of the
// body; the remaining particles keep their F, α and previous positions, and the body is
// rebuilt around them at the next Gather.
func (s *Sim) dropElastoplastic(id uint32, drop []removal) {
	st := s.elastoplasticOf(id)
	if st == nil || st.Body == nil {
		return
	}
	kept := st.Body.Save()
	if st.stale {
		kept = st.kept
	}
	k, d := 0, 0
	for i := range kept.F {
		if d < len(drop) && int(drop[d].local) == i {
			d++
			continue
		}
		kept.F[k], kept.Alpha[k], kept.XPrev[k] = kept.F[i], kept.Alpha[i], kept.XPrev[i]
		k++
	}
	kept.F, kept.Alpha, kept.XPrev = kept.F[:k], kept.Alpha[:k], kept.XPrev[:k]
	st.kept, st.stale = kept, true
}

// Paused returns the substep time the body went without forces since it lost particles (it
// is added to the interval of the next fit when the body is rebuilt).
func (e *ElastoplasticBody) Paused() float64 { return e.paused }

// indexElastoplastic maps every elastoplastic body's particles to their packed indices; a
// particle removed earlier in the step (it left the domain; its body loses it at Scatter)
// maps to −1.
func (s *Sim) indexElastoplastic() {
	for _, st := range s.Elastoplastic {
		for i := range st.idx {
			st.idx[i] = -1
		}
	}
	for k := range s.owner {
		slot := s.owner[k]
		if s.bodies[slot].body.Phase != components.Elastoplastic {
			continue
		}
		if st := s.elastoplasticOf(s.bodies[slot].body.ID); st != nil {
			st.idx[s.origin[k]] = int32(k)
		}
	}
}

// elastoplasticDt is the largest substep the explicit elastoplastic forces allow: the
// smallest elastoplastic.Material.StableDt over the elastoplastic bodies, Δt ≤ C·2r/c with the
// elastic wave speed c = √((λ+2μ)/ρ0) and C = elastoplastic.StableCourant = 0.6 (measured on
// bodies alone in physics/elastoplastic; in the world TestDoughDropStaysStable drops the dough
// preset on the floor at this limit), +Inf without such bodies.
func (s *Sim) elastoplasticDt() float64 {
	dt := math.Inf(1)
	for _, st := range s.Elastoplastic {
		b := s.bodies[st.slot]
		m := b.mat.Elastoplastic.Model()
		dt = min(dt, m.StableDt(s.Settings.Spacing(), b.mat.RestDensity))
	}
	return dt
}

// bodyPairs fills st.nb with the body's pairs in the body's indices, taken from the world's
// fluid→fluid lists of this substep (NeighborSearch, at the same positions the stage reads):
// the neighbours of each particle that belong to the same body. They are the pairs the body's
// own search would find (all of its particles within h), so the body does not search again.
// No kernel values are copied: the body evaluates the zero-mode damping's W_ij itself, once
// per pair. The body's particles are split
// into the fixed blocks of physics/par, each filled on its own, so the lists do not depend on
// the number of workers.
func (s *Sim) bodyPairs(st *ElastoplasticBody) {
	n := len(st.idx)
	nb := par.Blocks(n)
	st.nb.N = n
	if len(st.nb.Blocks) != nb {
		st.nb.Blocks = make([]physics.NeighborBlock, nb)
	}
	if st.fnPairs == nil {
		st.fnPairs = func(lo, hi, blk int) { s.bodyPairsBlock(st, lo, hi, blk) }
	}
	s.pool.For(n, st.fnPairs)
}

// bodyPairsBlock is bodyPairs for the body's particles [lo, hi).
func (s *Sim) bodyPairsBlock(st *ElastoplasticBody, lo, hi, b int) {
	slot := int32(st.slot)
	blk := &st.nb.Blocks[b]
	blk.Lo = lo
	blk.Start = par.Grow(blk.Start, hi-lo+1)
	blk.J = blk.J[:0]
	for i := lo; i < hi; i++ {
		pk := st.idx[i]
		blk.Start[i-lo] = int32(len(blk.J))
		js, _, _ := s.FF.Of(int(pk))
		for _, j := range js {
			if s.owner[j] != slot {
				continue
			}
			blk.J = append(blk.J, s.origin[j])
		}
	}
	blk.Start[hi-lo] = int32(len(blk.J))
}

// ElastoplasticForces reads the positions x (where the last substep's integration left the
// particles) and the predicted velocities v* of the elastoplastic bodies and adds to v* the
// explicit elastoplastic accelerations Δt·f/m of Gerszewski et al. 2009 (package
// physics/elastoplastic): per particle, the affine motion of its neighbourhood since the last
// substep (Eq. 4.1-4.7) composed into F (Eq. 4.8), plastic flow, stress (Eq. 4.9), and the
// averaged, momentum-conserving pair forces (Eq. 4.10-4.13), plus the zero-mode damping. The
// neighbourhoods are the body's own particles, so the forces act within a body only; the
// pressure solve that follows keeps it incompressible and in contact with everything else, as
// the chapter pairs its forces with SPH pressure (§4.4). It runs after AdvectionForces (v*
// holds gravity and viscosity) and ElasticSolve (which may shorten the substep, so Δt here is
// final). The substep is at most the bodies' explicit limit (NextDt, elastoplasticDt). A body
// that lost particles earlier in the step (they left the domain) gets no elastoplastic forces
// for the rest of the step (counted in StepStats.ElastoplasticPaused): its state still holds
// the removed particles until Scatter drops them, and the next step's fit then spans the
// paused substeps. Worlds without elastoplastic bodies skip it.
type ElastoplasticForces struct{ S *Sim }

// Run implements ecs.System.
func (e ElastoplasticForces) Run(ctx *ecs.Context) error {
	s := e.S
	if len(s.Elastoplastic) == 0 {
		return nil
	}
	s.indexElastoplastic()
	f := &s.Fluid
	a := &s.acc
	for _, st := range s.Elastoplastic {
		if st.Body == nil {
			continue
		}
		if slices.Contains(st.idx, -1) {
			a.ElastoplasticPaused++
			st.paused += ctx.Dt
			continue
		}
		for i, pk := range st.idx {
			st.x[i], st.v[i] = f.X[pk], f.VStar[pk]
		}
		s.bodyPairs(st)
		r, err := st.Body.StepWith(st.x, st.v, ctx.Dt, &st.nb, s.pool)
		if err != nil {
			return fmt.Errorf("body %q: %w", s.bodies[st.slot].body.Name, err)
		}
		for i, pk := range st.idx {
			f.VStar[pk] = st.v[i]
		}
		st.Last = r
		if a.ElastoplasticSteps == 0 {
			a.ElastoplasticMinSigma, a.ElastoplasticMaxSigma = r.MinSigma, r.MaxSigma
		}
		a.ElastoplasticSteps++
		a.ElastoplasticFewNeighbors += r.FewNeighbors
		a.ElastoplasticIllConditioned += r.IllConditioned
		a.ElastoplasticInverted += r.Inverted
		a.ElastoplasticYielded += r.Yielded
		a.ElastoplasticMinSigma = min(a.ElastoplasticMinSigma, r.MinSigma)
		a.ElastoplasticMaxSigma = max(a.ElastoplasticMaxSigma, r.MaxSigma)
	}
	return nil
}
