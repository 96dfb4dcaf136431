package systems

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/elastic"
	"github.com/sluicephysics/sluice/physics/par"
)

// StageElasticSolve is the elastic stage's name: between AdvectionForces and
// ViscoelasticConnections.
const StageElasticSolve = "ElasticSolve"

// ElasticBody is the solver state of one elastic body, keyed by the body's ID and indexed by
// the particles' indices in the body (not their packed order), so z-sorts and repacks of the
// fluid set leave it untouched; each substep maps it to the packed indices.
type ElasticBody struct {
	ID   uint32
	Rest []physics.Vec3 // rest positions x⁰ (m), from which the body was built
	Body *elastic.Body
	Last elastic.Result // the body's last solve

	pinMin, pinMax physics.Vec3 // the pinned box the body was built with
	noCorr         bool
	stale          bool // particles were removed: rebuild from Rest at the next Gather
	slot           int
	idx            []int32 // particle index in the body → packed index
	x, v           []physics.Vec3
}

// InitElastic builds the elastic state of a body from its rest positions: symmetric rest
// neighbourhoods, rest vectors and correction matrices (Peer et al. 2018, §4.1), with the
// particles inside the material's pinned box held fixed. It reports a pinned box that selects
// no particle and a particle without rest neighbours, naming the body and field.
func (s *Sim) InitElastic(id uint32, name string, mat *components.Material, rest []physics.Vec3) error {
	return s.initElastic(id, name, mat, rest, false)
}

// RestoreElastic is InitElastic for a saved rest shape, which removals may have left with
// particles without neighbours or an empty pinned box: those are accepted, as they were in the
// saved world.
func (s *Sim) RestoreElastic(id uint32, name string, mat *components.Material, rest []physics.Vec3) error {
	return s.initElastic(id, name, mat, rest, true)
}

func (s *Sim) initElastic(id uint32, name string, mat *components.Material, rest []physics.Vec3, lenient bool) error {
	st, err := s.buildElasticOpt(id, name, mat, slices.Clone(rest), lenient)
	if err != nil {
		return err
	}
	s.removeElastic(id)
	s.Elastic = append(s.Elastic, st)
	slices.SortFunc(s.Elastic, func(a, b *ElasticBody) int { return int(a.ID) - int(b.ID) })
	return nil
}

func (s *Sim) buildElastic(id uint32, name string, mat *components.Material, rest []physics.Vec3) (*ElasticBody, error) {
	return s.buildElasticOpt(id, name, mat, rest, false)
}

// buildElasticOpt builds the state; rebuilt accepts particles left without rest neighbours by
// removals (they carry no elastic force) instead of reporting them.
func (s *Sim) buildElasticOpt(id uint32, name string, mat *components.Material, rest []physics.Vec3, rebuilt bool) (*ElasticBody, error) {
	path := fmt.Sprintf("bodies[%q].material.elastic", name)
	if err := mat.Elastic.Validate(path); err != nil {
		return nil, err
	}
	es := &mat.Elastic
	var pinned []bool
	if es.Pins() {
		pinned = make([]bool, len(rest))
		any := false
		for i, x := range rest {
			pinned[i] = es.Pinned(x)
			any = any || pinned[i]
		}
		if !any && !rebuilt {
			return nil, fmt.Errorf("%s.pinnedMin: the pinned box %v – %v m selects no particle of the body", path, es.PinnedMin, es.PinnedMax)
		}
	}
	bd, err := elastic.New(rest, s.Volume0, &s.Kernel, elastic.Options{NoCorrection: es.NoCorrection, Pinned: pinned, AllowIsolated: rebuilt})
	var ne *elastic.NeighborError
	if errors.As(err, &ne) {
		return nil, fmt.Errorf("body %q: elastic particle %d at %v m: %w (spacing %g m, support radius %g m)", name, ne.Particle, rest[ne.Particle], err, s.Settings.Spacing(), s.Kernel.H)
	}
	if err != nil {
		return nil, fmt.Errorf("body %q: %w", name, err)
	}
	return &ElasticBody{ID: id, Rest: rest, Body: bd, pinMin: es.PinnedMin, pinMax: es.PinnedMax, noCorr: es.NoCorrection}, nil
}

func (s *Sim) removeElastic(id uint32) {
	s.Elastic = slices.DeleteFunc(s.Elastic, func(e *ElasticBody) bool { return e.ID == id })
}

// elasticOf returns the state of the body with the given ID, or nil.
func (s *Sim) elasticOf(id uint32) *ElasticBody {
	i, ok := slices.BinarySearchFunc(s.Elastic, id, func(e *ElasticBody, id uint32) int { return int(e.ID) - int(id) })
	if !ok {
		return nil
	}
	return s.Elastic[i]
}

// gatherElastic matches the elastic states to the bodies: it builds the state of an elastic
// body that has none (its current positions are its rest shape), rebuilds one whose pinned box
// or correction setting was edited or that lost particles, and drops the states of bodies that
// are gone.
func (s *Sim) gatherElastic() error {
	if len(s.Elastic) == 0 {
		any := false
		for _, b := range s.bodies {
			any = any || b.body.Phase == components.Elastic
		}
		if !any {
			return nil
		}
	}
	keep := s.Elastic[:0:0]
	for slot, b := range s.bodies {
		if b.body.Phase != components.Elastic {
			continue
		}
		st := s.elasticOf(b.body.ID)
		es := &b.mat.Elastic
		switch {
		case st == nil:
			var err error
			if st, err = s.buildElastic(b.body.ID, b.body.Name, b.mat, slices.Clone(b.p.X)); err != nil {
				return err
			}
		case st.stale || st.pinMin != es.PinnedMin || st.pinMax != es.PinnedMax || st.noCorr != es.NoCorrection:
			q := st.Body.Quaternions()
			nst, err := s.buildElasticOpt(b.body.ID, b.body.Name, b.mat, st.Rest, st.stale)
			if err != nil {
				return err
			}
			if len(q) >= nst.Body.Len() { // after dropElastic the kept particles' rotations lead
				nst.Body.SetQuaternions(q[:nst.Body.Len()])
			}
			st = nst
		}
		if st.Body.Len() != b.p.Len() {
			return fmt.Errorf("body %q: %d particles, its elastic rest state holds %d (elastic bodies cannot gain particles)", b.body.Name, b.p.Len(), st.Body.Len())
		}
		st.slot = slot
		n := b.p.Len()
		st.idx, st.x, st.v = par.Grow(st.idx, n), par.Grow(st.x, n), par.Grow(st.v, n)
		keep = append(keep, st)
	}
	s.Elastic = keep
	return nil
}

// dropElastic removes the particles drop (sorted local indices) from the rest state of the
// body, which is rebuilt from the remaining rest positions at the next Gather; the remaining
// particles keep their rotations.
func (s *Sim) dropElastic(id uint32, drop []removal) {
	st := s.elasticOf(id)
	if st == nil {
		return
	}
	q := st.Body.Quaternions()
	keep, d := 0, 0
	for i := range st.Rest {
		if d < len(drop) && int(drop[d].local) == i {
			d++
			continue
		}
		st.Rest[keep], q[keep] = st.Rest[i], q[i]
		keep++
	}
	st.Rest = st.Rest[:keep]
	st.stale = true
}

// indexElastic maps every elastic body's particles to their packed indices.
func (s *Sim) indexElastic() {
	for k := range s.owner {
		slot := s.owner[k]
		if s.bodies[slot].body.Phase != components.Elastic {
			continue
		}
		if st := s.elasticOf(s.bodies[slot].body.ID); st != nil {
			st.idx[s.origin[k]] = int32(k)
		}
	}
}

// ElasticSolve reads positions and the predicted velocities v* of the elastic bodies and
// writes their v* after the implicit elastic update of Peer et al. 2018 (Algorithm 3): with
// the substep Δt as the candidate step, it extracts rotations from the positions, and solves
// Eq. 24 by matrix-free CG, warm-started with v*, per elastic body. It runs after
// AdvectionForces, whose v* = v + Δt a* (gravity, viscosity) is the paper's intermediate
// velocity, and before the goo stage and PressureSolve, which then handles contact,
// incompressibility and coupling with everything else using the elastic velocities. Last it
// re-estimates the step from the new velocities (reestimateDt) and shortens the substep when
// they would violate the CFL condition. Worlds without elastic bodies skip it.
type ElasticSolve struct{ S *Sim }

// Run implements ecs.System.
func (e ElasticSolve) Run(ctx *ecs.Context) error {
	s := e.S
	if len(s.Elastic) == 0 {
		return nil
	}
	s.indexElastic()
	f := &s.Fluid
	for _, st := range s.Elastic {
		b := s.bodies[st.slot]
		es := &b.mat.Elastic
		g, k := es.Moduli()
		mass := 0.0 // an elastic body's particles share one mass (checkMasses)
		if len(b.p.M) > 0 {
			mass = b.p.M[0]
		}
		mat := elastic.Material{G: g, K: k, Alpha: es.Alpha, Mass: mass,
			MaxIterations: es.MaxIterations, MaxError: es.MaxError, RelError: es.RelativeError}
		for i, pk := range st.idx {
			st.x[i], st.v[i] = f.X[pk], f.VStar[pk]
		}
		st.Last = st.Body.Solve(st.x, st.v, mat, ctx.Dt, s.pool)
		for i, pk := range st.idx {
			f.VStar[pk] = st.v[i]
		}
		s.acc.ElasticIterationsTotal += st.Last.Iterations
		s.acc.ElasticSolves++
		if !st.Last.Converged {
			s.acc.ElasticUnconverged++
		}
	}
	s.reestimateDt(ctx)
	return nil
}

// reestimateDt is the step re-estimate of Algorithm 3: when the velocities after the elastic
// solve would violate the CFL condition of the candidate step Δt_c, the substep is shortened
// to Δt = λ·2r/v_max (at least dtMin) and every predicted velocity is rescaled to it,
// v* = v + (Δt/Δt_c)(v* − v), i.e. integrated with the same acceleration a** = (v* − v)/Δt_c
// over the shorter step. The pressure solve and integration then use Δt (ctx.Dt).
func (s *Sim) reestimateDt(ctx *ecs.Context) {
	f := &s.Fluid
	v2 := 0.0
	for k := range f.VStar {
		v := &f.VStar[k]
		v2 = max(v2, v[0]*v[0]+v[1]*v[1]+v[2]*v[2])
	}
	if v2 == 0 {
		return
	}
	dt := max(s.Settings.CFL*s.Settings.Spacing()/math.Sqrt(v2), s.Settings.DtMin)
	if dt >= ctx.Dt {
		return
	}
	c := dt / ctx.Dt
	for k := range f.VStar {
		v, vs := f.V[k], &f.VStar[k]
		vs[0], vs[1], vs[2] = v[0]+c*(vs[0]-v[0]), v[1]+c*(vs[1]-v[1]), v[2]+c*(vs[2]-v[2])
	}
	s.acc.ElasticShortened++
	ctx.Dt = dt
}

// holdPinned puts the pinned particles of every elastic body back at their rest positions
// with zero velocity after integration: the pressure solve may have pushed them.
func (s *Sim) holdPinned() {
	any := false
	for _, st := range s.Elastic {
		b := s.bodies[st.slot]
		any = any || b.mat.Elastic.Pins()
	}
	if !any {
		return
	}
	s.indexElastic()
	f := &s.Fluid
	for _, st := range s.Elastic {
		for i, pk := range st.idx {
			if st.Body.Pinned(i) {
				f.X[pk], f.V[pk] = st.Rest[i], physics.Vec3{}
			}
		}
	}
}

// RemoveElastic drops the elastic state of the body with the given ID (if any).
func (s *Sim) RemoveElastic(id uint32) { s.removeElastic(id) }

// ElasticByID returns the elastic state of the body with the given ID, or nil.
func (s *Sim) ElasticByID(id uint32) *ElasticBody { return s.elasticOf(id) }
