// Package systems holds one system per stage of the substep (DESIGN §4) and the packed solver
// state they share. Each system gathers what it needs from the Sim resource and calls physics/;
// systems hold no numerics of their own.
//
// Between steps the ECS is the single source of truth: Gather copies every body's particles
// into the packed physics.FluidSet and physics.BoundarySet at the start of World.Step, the
// stages run on the packed arrays for every substep, and Scatter writes positions, velocities,
// densities and pressures back to the bodies at the end. Bodies keep their particle indices
// stable; the packed copy is in the grid's cell order for memory locality and carries, for each packed
// particle, its body and index there.
package systems

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/mlange-42/arche/generic"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/dfsph"
	"github.com/sluicephysics/sluice/physics/iisph"
	"github.com/sluicephysics/sluice/physics/par"
	"github.com/sluicephysics/sluice/physics/pf"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/physics/tension"
	"github.com/sluicephysics/sluice/physics/viscoelastic"
	"github.com/sluicephysics/sluice/physics/viscosity"
)

// Sim is the packed solver state of a world (an ECS resource).
type Sim struct {
	Settings components.Solver
	Kernel   physics.Kernel
	Fluid    physics.FluidSet
	Bound    physics.BoundarySet
	FF       physics.Neighbors // fluid → fluid neighbours of the current substep
	FB       physics.Neighbors // fluid → boundary neighbours of the current substep
	Pressure *iisph.Solver
	PF       *pf.Solver         // the Projective Fluids solver when solver.pressureSolver is "pf", else nil
	Visc     *viscosity.Solver  // the implicit viscosity solver (Weiler et al. 2018), used per solver.viscositySolver
	DF       *dfsph.Solver      // the Divergence-Free SPH solver when solver.pressureSolver is "dfsph", else nil
	Volume0  float64            // particle volume at rest (m³), from physics.Kernel.LatticeVolume
	Goo      viscoelastic.State // goo connections and coefficients (empty without goo bodies)
	Rigid    rigid.Solver       // the rigid bodies, in body ID order (see rigid.go)
	// Elastic holds the elastic bodies' rest state and solver, in body ID order.
	Elastic []*ElasticBody
	// Elastoplastic holds the elastoplastic bodies' per-particle state, in body ID order.
	Elastoplastic []*ElastoplasticBody
	// Flip holds the FLIP liquid bodies' grids and solvers, in body ID order (flip.go).
	Flip []*FlipBody
	// Cloth holds the cloth bodies' meshes, in body ID order (cloth.go).
	Cloth []*ClothBody
	// Tension is the surface tension of Akinci et al. 2013 (physics/tension; tension.go).
	Tension tension.Solver
	// Adhesion is the fluid's adhesion to walls and bodies of Akinci et al. 2013 (Eq. 6-7;
	// tension.go), on in the substeps where some fluid body has material.wallAdhesion > 0.
	Adhesion tension.Adhesive
	adhOn    bool
	// tensionRef: the corner accelerations per unit γ for the step limit (tensionDt).
	tensionRef    [2]float64
	tensionRefSet bool

	DomainMin, DomainMax physics.Vec3

	pool      *par.Pool
	fluidGrid physics.Grid
	// the cloth springs of the substep in packed order (cloth.go)
	clothEdges   []pf.Edge
	clothFixed   []bool
	notFluid     []bool // Fluid.NotFluid's storage (markNotFluid)
	clothSprings pf.Springs
	clothOut     string // a cloth body with a vertex outside the domain (Integration reports it)
	boundGrid    physics.Grid
	adj          []int32
	perm         physics.Permuter
	permI        []int32
	owner        []int32 // packed fluid particle → slot in bodies
	origin       []int32 // packed fluid particle → index in its body
	bodies       []bodySlot
	layout       []layoutEntry
	bLayout      []layoutEntry
	domainSet    bool
	sinceSort    int
	partial      []float64
	partial2     []float64
	// integrated: the fluid's positions are those the last Integration produced (nothing
	// repacked since), so the next Density stage measures the density error they carry.
	integrated bool
	removed    []removal
	checked    []checkedMaterial
	numax      float64 // largest kinematic viscosity of the fluid bodies (m²/s)
	nubmax     float64 // largest boundary viscosity (drag) of the walls and bodies (m²/s)
	viscLam    float64 // ViscosityEigen of the kernel at the particle spacing (1/m²)
	dragLam    float64 // WallDragEigen of the kernel at the spacing and wall layers (1/m²)
	acc        StepStats
	motions    *generic.Map[components.Motion]
	emitters   *generic.Map[components.Emitter]
	rigids     *generic.Map[components.RigidBody]
	moving     bool // some boundary body has a Motion
	gooOn      bool
	gooLast    []gooC
	gooEdited  []bool
	gooInv     []int32
	gooSrc     []int32
	vd         vortDrag // the VorticityDrag stage (vortdrag.go)
	// Anim holds the animation fields of the AnimationFields stage (animfield.go).
	Anim animState
	// Mouths are the regions in front of the emitting nozzles that the EmitterMouths stage
	// drives (mouth.go); the world sets them at each step's emission.
	Mouths  []Mouth
	mouthFn func(lo, hi, block int)
	bInv    []int32  // old → new boundary index after a boundary repack (nil: unchanged)
	prevIDs []uint32 // body IDs of the slots of the previous Gather
	slotIDs []uint32 // body IDs of the slots of this Gather
	slotMap []int32  // remapOwners: old body slot → new
	queued  []queuedRemoval

	// viscImplicit: this substep's viscosity and wall drag are integrated by the implicit
	// solve (ViscositySolve) instead of in AdvectionForces; NextDt decides it per substep.
	// viscV holds the fluid's velocities while ViscositySolve lends f.V to the drag reaction.
	viscImplicit bool
	viscV        []physics.Vec3

	// Joints between rigid bodies (joints.go), in ID order; jointSeq is the last ID given.
	Joints   []SimJoint
	jointSeq uint32

	// Events of the step (events.go) and their scratch.
	events                                    []Event
	stepImp, prevTouch, curTouch, pairScratch []pairImpulse
	touches                                   []rigid.Touch
	impulses                                  []rigid.TouchImpulse
	impScratch, speedMax                      []float64

	rigidSlots []int          // rigid solver body → slot in bodies
	rigidIDs   []uint32       // the rigid bodies' IDs at the last gather (removals wake the sleepers)
	cols       columns        // the fluid in columns, for the submerged fractions (columns.go)
	bSlots     []int          // boundary body (in ID order) → slot in bodies
	bOwner     []int32        // packed boundary sample → boundary body
	rOwner     []int32        // packed boundary sample → rigid solver body (−1: a wall)
	staticIDs  []int32        // packed boundary samples of walls (not rigid bodies)
	bCenters   []physics.Vec3 // torque centre of each boundary body
	loads      rigid.Loads
	drag       rigid.Loads    // the boundary viscosity's reaction per boundary body
	dragOn     bool           // some wall or body has a drag (boundary viscosity)
	loadSum    []physics.Vec3 // ∫ fluid force dt over the step, per boundary body
	loadTime   float64
	wallsMove  bool // some wall (not a rigid body) has a motion path

	// Walls with a volume map (components.WallMap; Bender et al. 2019) meet the fluid through
	// one virtual boundary particle per fluid particle near them instead of their samples,
	// which are packed after every other boundary body's (bOrder) so that the fluid's
	// boundary search covers the first nVis samples only (visGrid). The fluid's stages read
	// fb and fbOwner: Bound and bOwner themselves without mapped walls, else FBound and
	// fbOwn, the visible samples followed by the virtual particles (mapped.go).
	wallMaps *generic.Map[components.WallMap]
	bOrder   []int // boundary bodies' slots in packing order
	unpacked []int // mapped walls' slots whose samples are not packed (orderBoundary)
	mapped   []mappedWall
	nVis     int
	visGrid  physics.Grid
	FBound   physics.BoundarySet
	fbOwn    []int32
	fb       *physics.BoundarySet
	fbOwner  []int32
	virtual  physics.VirtualTargets
	mapFn    func(lo, hi, block int)

	// Solids are the insides of solid walls, in body ID order (see solids.go).
	Solids    []Solid
	solid     *Solid // the solid confineBlock works on
	solidDisp physics.Vec3
	solidV    physics.Vec3
	confined  []int32 // particles moved out of the solid, per block
	confineFn func(lo, hi, block int)
	// the Integration stage's domain check (checkDomain): per block, the first non-finite
	// particle (−1: none) and the count outside the domain
	checkFn            func(lo, hi, block int)
	blockBad, blockOut []int32
	// Gather's and Scatter's copies between the bodies and the packed fluid, over blocks
	// (unpackBlock also finds each block's first non-finite particle in blockBad)
	unpackFn, scatterFn func(lo, hi, block int)
}

type bodySlot struct {
	entity ecs.Entity
	body   *components.Body
	mat    *components.Material
	p      *components.Particles
	motion *components.Motion  // kinematic path of a boundary body, or nil
	emit   *components.Emitter // nozzle of an emitter body, or nil
	rigid  *components.RigidBody
	field  components.WallField // a static wall's volume map (WallMap), or nil
	bLo    int                  // first packed boundary index of a boundary body
}

type layoutEntry struct {
	id     uint32
	phase  components.Phase
	n      int
	mapped bool // a wall that meets the fluid through its volume map (packed after the others)
}

type removal struct {
	slot, local int32
}

// NewSim creates the packed state for the given (validated) settings.
func NewSim(s components.Solver, pool *par.Pool) (*Sim, error) {
	if err := s.Validate("solver"); err != nil {
		return nil, err
	}
	kr := s.SmoothingKernel()
	sim := &Sim{Settings: s, Kernel: kr, Pressure: iisph.NewSolver(s.IISPH()), pool: pool}
	sim.Visc = viscosity.NewSolver(viscosity.Params{MaxError: s.ViscosityMaxError, MaxIterations: s.ViscosityMaxIterations})
	if s.PressureSolver == "pf" {
		sim.PF = pf.NewSolver(s.PF())
	}
	if s.PressureSolver == "dfsph" {
		sim.DF = dfsph.NewSolver(s.DFSPH())
	}
	sim.boundGrid.NoSelf = true
	sim.fb = &sim.Bound
	sim.confineFn = sim.confineBlock
	sim.checkFn = sim.checkBlock
	sim.unpackFn, sim.scatterFn = sim.unpackBlock, sim.scatterBlock
	sim.Volume0 = kr.LatticeVolume(s.Spacing())
	sim.viscLam = kr.ViscosityEigen(s.Spacing())
	sim.dragLam = kr.WallDragEigen(s.Spacing(), s.BoundaryLayers)
	if s.DomainMin != s.DomainMax {
		sim.DomainMin, sim.DomainMax, sim.domainSet = s.DomainMin, s.DomainMax, true
	}
	return sim, nil
}

var bodyFilter = generic.NewFilter3[components.Body, components.Material, components.Particles]()

// Gather copies the bodies' particles into the packed sets, repacking when bodies or particle
// counts changed since the last step.
func (s *Sim) Gather(w *ecs.World) error {
	// The slots' body pointers of the last Gather may be stale now (the ECS moves components
	// when an entity is removed): their IDs were copied when they were current.
	s.prevIDs = append(s.prevIDs[:0], s.slotIDs...)
	s.bodies = s.bodies[:0]
	if s.motions == nil {
		m := generic.NewMap[components.Motion](w.ECS)
		em := generic.NewMap[components.Emitter](w.ECS)
		rm := generic.NewMap[components.RigidBody](w.ECS)
		wm := generic.NewMap[components.WallMap](w.ECS)
		s.motions, s.emitters, s.rigids, s.wallMaps = &m, &em, &rm, &wm
	}
	q := bodyFilter.Query(w.ECS)
	for q.Next() {
		b, m, p := q.Get()
		e := q.Entity()
		slot := bodySlot{entity: e, body: b, mat: m, p: p}
		// Every body carries these components (see sluice.World); zero ones mean none.
		if s.motions.Has(e) {
			if mo := s.motions.Get(e); len(mo.Path) > 0 {
				slot.motion = mo
			}
		}
		if s.emitters.Has(e) {
			if em := s.emitters.Get(e); em.Active() {
				slot.emit = em
			}
		}
		if s.rigids.Has(e) {
			if rb := s.rigids.Get(e); rb.State.Shape != nil {
				slot.rigid = rb
			}
		}
		if s.wallMaps.Has(e) {
			slot.field = s.wallMaps.Get(e).Field
		}
		s.bodies = append(s.bodies, slot)
	}
	slices.SortFunc(s.bodies, func(a, b bodySlot) int { return int(a.body.ID) - int(b.body.ID) })
	s.slotIDs = s.slotIDs[:0]
	for _, b := range s.bodies {
		s.slotIDs = append(s.slotIDs, b.body.ID)
	}
	s.removeQueuedElastic()
	var fl, bl []layoutEntry
	s.moving, s.wallsMove = false, false
	if err := s.orderBoundary(); err != nil {
		return err
	}
	bLo := 0
	for _, i := range s.bOrder {
		b := &s.bodies[i]
		{
			b.bLo = bLo
			bLo += b.p.Len()
			if b.motion != nil {
				if err := b.motion.Validate(fmt.Sprintf("bodies[%q].motion", b.body.Name)); err != nil {
					return err
				}
				s.moving = s.moving || len(b.motion.Path) > 0
				s.wallsMove = s.wallsMove || (len(b.motion.Path) > 0 && b.rigid == nil)
			}
		}
	}
	for _, b := range s.bodies {
		n := b.p.Len()
		if b.body.Phase == components.Flip {
			continue // a FLIP liquid is neither packed fluid nor wall samples (flip.go)
		}
		if b.body.Phase.Dynamic() {
			if len(b.p.V) != n && len(b.p.V) != 0 {
				return fmt.Errorf("body %q: %d velocities for %d positions", b.body.Name, len(b.p.V), n)
			}
			b.p.V = fit(b.p.V, n)
			b.p.Density = fit(b.p.Density, n)
			b.p.Pressure = fit(b.p.Pressure, n)
			if err := checkMasses(b); err != nil {
				return err
			}
			fl = append(fl, layoutEntry{b.body.ID, b.body.Phase, n, false})
		}
	}
	// the boundary bodies in their packing order, which the remapping of boundary indices
	// (remapByKey) follows
	for _, i := range s.bOrder {
		b := &s.bodies[i]
		bl = append(bl, layoutEntry{b.body.ID, b.body.Phase, b.p.Len(), b.field != nil})
	}
	if err := s.validateMaterials(); err != nil {
		return err
	}
	if s.lostBodies() {
		// The contact solver keys its warm-start impulses by rigid body and wall sample
		// indices, which shift down past a removed body: start the contacts cold. A removed
		// solid wall's inside goes with it.
		s.Rigid.SetCache(nil, nil)
		s.Solids = slices.DeleteFunc(s.Solids, func(so Solid) bool {
			_, ok := slices.BinarySearch(s.slotIDs, so.ID)
			return !ok
		})
	}
	s.gatherRigid()
	s.bInv = nil
	if !slices.Equal(bl, s.bLayout) {
		s.bInv = remapByKey(s.bLayout, bl, s.bInv)
		if err := s.packBoundary(); err != nil {
			return err
		}
		s.bLayout = bl
		s.packBoundaryOwners()
		s.Rigid.SetStatic(s.Bound.X, s.Bound.V, s.staticIDs, 2*s.Settings.Spacing())
	} else {
		s.packBoundaryOwners() // body slots may have moved with other bodies' changes
	}
	repacked := false
	var src []int32
	if !slices.Equal(fl, s.layout) {
		if s.Goo.Len() > 0 {
			src = s.repackSource()
		}
		s.keepOmega()
		s.packFluid()
		s.restoreOmega()
		s.layout = fl
		repacked = true
		s.integrated = false // particles were added or removed: not what the last substep left
	} else {
		s.remapOwners()
	}
	if !s.domainSet {
		s.autoDomain()
	}
	s.numax, s.nubmax = 0, 0
	for _, b := range s.bodies {
		if b.body.Phase.Dynamic() {
			s.numax = max(s.numax, b.mat.Viscosity)
		} else {
			s.nubmax = max(s.nubmax, b.mat.Drag)
		}
	}
	// Unpack the bodies' particles over fixed blocks; the first non-finite one is the first
	// block's in block order, whatever the worker count.
	n := s.Fluid.Len()
	nb := par.Blocks(n)
	s.blockBad = par.Grow(s.blockBad, nb)
	s.pool.For(n, s.unpackFn)
	for b := 0; b < nb; b++ {
		if k := s.blockBad[b]; k >= 0 {
			return fmt.Errorf("body %q particle %d has a non-finite position, velocity or pressure", s.bodies[s.owner[k]].body.Name, s.origin[k])
		}
	}
	var inv []int32
	if src != nil {
		s.gooInv = par.Grow(s.gooInv, s.Goo.Len())
		for i := range s.gooInv {
			s.gooInv[i] = -1
		}
		for k, o := range src {
			if o >= 0 {
				s.gooInv[o] = int32(k)
			}
		}
		inv = s.gooInv
	}
	s.gatherGoo(repacked, src, inv)
	if err := s.gatherElastic(); err != nil {
		return err
	}
	if err := s.gatherElastoplastic(); err != nil {
		return err
	}
	if err := s.gatherFlip(); err != nil {
		return err
	}
	if err := s.gatherCloth(); err != nil {
		return err
	}
	s.applyQueuedRemovals()
	s.beginEvents()
	return nil
}

// QueueRemoval asks for particles of the dynamic body with the given ID (indices into its
// Particles) to be removed by the next Gather, i.e. before the first substep of the next Step;
// Scatter then takes them out of the body at the end of that Step, as it does for particles
// that leave the domain (the goo connections and elastic rest shape follow). Indices that no
// longer exist then (the body was removed or shortened by the caller) are ignored, as are
// requests for cloth vertices (the mesh would lose its triangles).
func (s *Sim) QueueRemoval(id uint32, local []int32) {
	for _, i := range local {
		s.queued = append(s.queued, queuedRemoval{id, i})
	}
}

// queuedRemoval is a particle QueueRemoval was asked to remove: body ID and index in the body.
type queuedRemoval struct {
	id    uint32
	local int32
}

func cmpQueued(a, b queuedRemoval) int {
	if a.id != b.id {
		return cmp.Compare(a.id, b.id)
	}
	return cmp.Compare(a.local, b.local)
}

// removeQueuedElastic takes the queued particles of elastic and elastoplastic bodies out of
// the bodies before they are packed, and marks the bodies' elastic state for a rebuild from
// the kept rest positions (an elastoplastic body's: from the kept particles' F and plastic
// strain): the elastic solve of a step needs every particle of a body it started with, so
// they cannot leave the packed state mid-step as fluid particles do.
func (s *Sim) removeQueuedElastic() {
	if len(s.queued) == 0 {
		return
	}
	slices.SortFunc(s.queued, cmpQueued)
	s.queued = slices.Compact(s.queued)
	q := s.queued[:0]
	for lo := 0; lo < len(s.queued); {
		hi := lo
		for hi < len(s.queued) && s.queued[hi].id == s.queued[lo].id {
			hi++
		}
		id := s.queued[lo].id
		j, ok := slices.BinarySearchFunc(s.bodies, id, func(b bodySlot, id uint32) int { return cmp.Compare(b.body.ID, id) })
		switch {
		case !ok: // the body is gone
		case s.bodies[j].body.Phase == components.Cloth:
			// cloth vertices are not removed: the mesh would lose its triangles
		case s.bodies[j].body.Phase == components.Elastic || s.bodies[j].body.Phase == components.Elastoplastic || s.bodies[j].body.Phase == components.Flip:
			p := s.bodies[j].p
			var drop []removal
			for _, r := range s.queued[lo:hi] {
				if int(r.local) < p.Len() {
					drop = append(drop, removal{int32(j), r.local})
				}
			}
			keep, d := 0, 0
			for i := range p.X {
				if d < len(drop) && int(drop[d].local) == i {
					d++
					continue
				}
				p.X[keep] = p.X[i]
				if len(p.V) > i {
					p.V[keep] = p.V[i]
				}
				if len(p.Density) > i {
					p.Density[keep] = p.Density[i]
				}
				if len(p.Pressure) > i {
					p.Pressure[keep] = p.Pressure[i]
				}
				if len(p.M) > i {
					p.M[keep] = p.M[i]
				}
				keep++
			}
			p.X = p.X[:keep]
			p.V, p.Density, p.Pressure, p.M = p.V[:min(keep, len(p.V))], p.Density[:min(keep, len(p.Density))], p.Pressure[:min(keep, len(p.Pressure))], p.M[:min(keep, len(p.M))]
			s.dropElastic(id, drop)
			s.dropElastoplastic(id, drop) // each is a no-op for the other phase's bodies
		default:
			q = append(q, s.queued[lo:hi]...)
		}
		lo = hi
	}
	s.queued = q
}

// applyQueuedRemovals drops the queued particles of fluid and goo bodies from the packed
// state; Scatter takes them out of the bodies at the end of the step.
func (s *Sim) applyQueuedRemovals() {
	if len(s.queued) == 0 {
		return
	}
	q := s.queued
	s.dropPacked(func(k int) bool {
		_, found := slices.BinarySearchFunc(q, queuedRemoval{s.bodies[s.owner[k]].body.ID, s.origin[k]}, cmpQueued)
		return found
	})
	s.queued = s.queued[:0]
}

// lostBodies reports whether a body of the last Gather is gone (both ID lists are sorted).
func (s *Sim) lostBodies() bool {
	j := 0
	for _, id := range s.prevIDs {
		for j < len(s.bodies) && s.bodies[j].body.ID < id {
			j++
		}
		if j == len(s.bodies) || s.bodies[j].body.ID != id {
			return true
		}
	}
	return false
}

// remapOwners keeps the packed particles' owner slots right when bodies without dynamic
// particles (walls, rigid bodies, emitters) were added or removed: the dynamic layout is then
// unchanged, but the slots of s.bodies, sorted by ID, have moved. Old slots map to new ones
// by body ID; every dynamic body of the old layout is still present, since the layout is equal.
func (s *Sim) remapOwners() {
	if len(s.prevIDs) == len(s.bodies) {
		same := true
		for i := range s.bodies {
			if s.bodies[i].body.ID != s.prevIDs[i] {
				same = false
				break
			}
		}
		if same {
			return
		}
	}
	slot := s.slotMap[:0]
	for _, id := range s.prevIDs {
		j, _ := slices.BinarySearchFunc(s.bodies, id, func(b bodySlot, id uint32) int { return cmp.Compare(b.body.ID, id) })
		slot = append(slot, int32(j))
	}
	s.slotMap = slot
	for k, o := range s.owner {
		s.owner[k] = slot[o]
	}
}

// repackSource maps the packed fluid order packFluid is about to lay out (bodies in ID order,
// each body's particles in index order) to the current packed indices, by (body ID, index):
// src[new] = old, or −1 for a particle that was not packed before. The goo state follows it.
func (s *Sim) repackSource() []int32 {
	n := 0
	type span struct {
		id    uint32
		lo, n int
	}
	var spans []span
	for _, b := range s.bodies {
		if b.body.Phase.Dynamic() {
			spans = append(spans, span{id: b.body.ID, lo: n, n: b.p.Len()})
			n += b.p.Len()
		}
	}
	src := par.Grow(s.gooSrc, n)
	for i := range src {
		src[i] = -1
	}
	for k := range s.owner {
		if int(s.owner[k]) >= len(s.prevIDs) {
			continue
		}
		id := s.prevIDs[s.owner[k]]
		for _, sp := range spans {
			if sp.id == id && int(s.origin[k]) < sp.n {
				src[sp.lo+int(s.origin[k])] = int32(k)
			}
		}
	}
	s.gooSrc = src
	return src
}

// remapByKey maps old packed boundary indices to new ones by (body ID, index in the body),
// for the goo's connections to walls; −1 marks samples of bodies that are gone.
func remapByKey(old, cur []layoutEntry, buf []int32) []int32 {
	total := 0
	for _, e := range old {
		total += e.n
	}
	if total == 0 {
		return nil
	}
	buf = par.Grow(buf, total)
	o := 0
	for _, e := range old {
		lo, found := 0, false
		for _, c := range cur {
			if c.id == e.id {
				found = true
				break
			}
			lo += c.n
		}
		var n int
		for _, c := range cur {
			if c.id == e.id {
				n = c.n
			}
		}
		for i := 0; i < e.n; i++ {
			buf[o+i] = -1
			if found && i < n {
				buf[o+i] = int32(lo + i)
			}
		}
		o += e.n
	}
	return buf
}

// validateMaterials checks the materials whose values changed since they were last checked
// (a game or a hot reload may edit them between steps), so steady steps skip the reflection.
func (s *Sim) validateMaterials() error {
	if len(s.checked) != len(s.bodies) {
		s.checked = make([]checkedMaterial, len(s.bodies))
	}
	for i, b := range s.bodies {
		c := &s.checked[i]
		if c.ok && c.id == b.body.ID && c.mat == *b.mat {
			continue
		}
		if err := b.mat.Validate(fmt.Sprintf("bodies[%q].material", b.body.Name)); err != nil {
			c.ok = false
			return err
		}
		*c = checkedMaterial{ok: true, id: b.body.ID, mat: *b.mat}
	}
	return nil
}

// checkMasses checks a dynamic body's particle masses (components.Particles.M, state set at
// creation) and applies a rest-density edit: when the material's rest density differs from the
// one the masses were made with, every mass is scaled by the ratio so each particle keeps its
// rest volume (the equal-volume formulation of the pressure solve, iisph's package comment).
// An elastic or elastoplastic body's particles must share one mass: their solvers take one
// mass per body.
func checkMasses(b bodySlot) error {
	p := b.p
	if len(p.M) != p.Len() {
		return fmt.Errorf("body %q: %d masses for %d particles (components.Particles.M: a particle added to a body needs its mass, ρ0·V0 for the body's material)", b.body.Name, len(p.M), p.Len())
	}
	if rho := b.mat.RestDensity; p.MassDensity != rho && b.body.Phase != components.Cloth {
		// (a cloth body's masses come from its areal density, not from ρ0)
		if !(p.MassDensity > 0) {
			return fmt.Errorf("body %q: massDensity %g kg/m³ is not positive (components.Particles.MassDensity: the rest density the masses were made with)", b.body.Name, p.MassDensity)
		}
		c := rho / p.MassDensity
		for i := range p.M {
			p.M[i] *= c
		}
		p.MassDensity = rho
	}
	for i, m := range p.M {
		if !(m > 0) || math.IsInf(m, 0) {
			return fmt.Errorf("body %q particle %d: mass %g kg is not positive and finite", b.body.Name, i, m)
		}
		if (b.body.Phase == components.Elastic || b.body.Phase == components.Elastoplastic) && m != p.M[0] {
			return fmt.Errorf("%s body %q particle %d: mass %g kg differs from particle 0's %g kg (an %s body's particles share one mass)", b.body.Phase, b.body.Name, i, m, p.M[0], b.body.Phase)
		}
	}
	return nil
}

type checkedMaterial struct {
	ok  bool
	id  uint32
	mat components.Material
}

func fit[T any](s []T, n int) []T {
	if len(s) == n {
		return s
	}
	t := make([]T, n)
	copy(t, s)
	return t
}

// packFluid lays the fluid bodies out in ID order; the next NeighborSearch z-sorts them.
func (s *Sim) packFluid() {
	n := 0
	for _, b := range s.bodies {
		if b.body.Phase.Dynamic() {
			n += b.p.Len()
		}
	}
	s.Fluid.Resize(n)
	clear(s.Fluid.VDiff) // the implicit viscosity's warm start belongs to the old packing
	s.owner = slices.Grow(s.owner[:0], n)[:n]
	s.origin = slices.Grow(s.origin[:0], n)[:n]
	k := 0
	for slot, b := range s.bodies {
		if !b.body.Phase.Dynamic() {
			continue
		}
		for i := range b.p.X {
			s.owner[k], s.origin[k] = int32(slot), int32(i)
			k++
		}
	}
	s.sinceSort = 0
}

// capVolumes caps a rigid body's sample volumes at the particle volume V0 when the boundary
// pressure is extrapolated. The symmetric boundary force (iisph.Params.Extrapolate) weighs
// each sample's volume directly, and Akinci's V_b = γ/Σ_k W_bk grows where the body's own
// samples thin out around a sample — its convex edges and corners, curved surfaces — much as a
// free-surface particle's number density falls; a flat face's samples get V0. With the
// inflated edge volumes a floating cube of 500 kg/m³ rode at 43.9 % submerged instead of 50 %
// (TestArchimedesExtrapolated). Walls keep their volumes: a tank's outer layer is convex only
// on the side away from the fluid, and capping it lowered the support in the floor corners.
func capVolumes(vol []float64, v0 float64) {
	for k, v := range vol {
		vol[k] = min(v, v0)
	}
}

// packBoundary collects every boundary body's samples and computes their volumes.
func (s *Sim) packBoundary() error {
	b := &s.Bound
	n := 0
	for _, slot := range s.bOrder {
		n += s.bodies[slot].p.Len()
	}
	b.X = b.X[:0]
	if cap(b.X) < n {
		b.X = make([]physics.Vec3, 0, n)
	}
	for _, slot := range s.bOrder {
		bs := &s.bodies[slot]
		for _, x := range bs.p.X {
			if !physics.Finite(x) {
				return fmt.Errorf("boundary body %q has a non-finite sample %v", bs.body.Name, x)
			}
		}
		b.X = append(b.X, bs.p.X...)
	}
	b.V = make([]physics.Vec3, len(b.X))
	b.Vol = make([]float64, len(b.X))
	// Walls' volumes come from all wall samples together (walls meeting at a corner see each
	// other, the unpacked mapped walls' samples included, after the packed ones); a rigid
	// body's from its own samples alone, computed once when it was made, so they stay the
	// same wherever it moves (Akinci et al. 2012, Sec. 3).
	var walls physics.BoundarySet
	for _, slot := range s.bOrder {
		if bs := &s.bodies[slot]; bs.rigid == nil {
			walls.X = append(walls.X, bs.p.X...)
		}
	}
	if len(walls.X) > 0 {
		for _, slot := range s.unpacked {
			walls.X = append(walls.X, s.bodies[slot].p.X...)
		}
	}
	// The walls' grid is needed only here, once per change of the walls: it is not kept.
	var volGrid physics.Grid
	if err := physics.BoundaryVolumes(&walls, &s.Kernel, s.Kernel.WallVolumeScale(s.Settings.Spacing(), s.Settings.BoundaryLayers), &volGrid, s.pool); err != nil {
		return err
	}
	k, w := 0, 0
	for _, slot := range s.bOrder {
		bs := &s.bodies[slot]
		n := bs.p.Len()
		if bs.rigid != nil {
			copy(b.Vol[k:k+n], bs.rigid.Volumes)
			if s.Pressure.Extrapolate {
				capVolumes(b.Vol[k:k+n], s.Volume0)
			}
		} else {
			copy(b.Vol[k:k+n], walls.Vol[w:w+n])
			w += n
		}
		k += n
	}
	if b.Len() > 0 {
		if err := s.boundGrid.Build(b.X, s.Kernel.H, s.pool); err != nil {
			return err
		}
		// Until the walls change this grid is only searched; where bodies or animated walls
		// move, NeighborSearch rebuilds it every substep and the scratch grows back once.
		s.boundGrid.ReleaseScratch()
	} else {
		s.boundGrid = physics.Grid{NoSelf: true}
	}
	return s.buildVisGrid()
}

// autoDomain sets the domain to the bodies' bounds widened on every side by their largest size
// (at least ten support radii).
func (s *Sim) autoDomain() {
	lo := physics.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := physics.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	extend := func(x physics.Vec3) {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], x[d]), max(hi[d], x[d])
		}
	}
	for _, b := range s.bodies {
		for _, x := range b.p.X {
			extend(x)
		}
		if em := b.emit; em != nil { // an emitter's body may still be empty: its nozzle counts
			r := max(em.Width, em.Height)
			extend(em.Center.Sub(physics.Vec3{r, r, r}))
			extend(em.Center.Add(physics.Vec3{r, r, r}))
		}
	}
	if lo[0] > hi[0] {
		return
	}
	// The margin is the bounds' largest size on every side: a pinned or hinged body can swing
	// out by its own length in any direction (SPlisHSPlasH's Beam: a cantilever 3.5 m long
	// whose free end sags about 2 m, far below a margin of half its 0.45 m height).
	m := 10 * s.Kernel.H
	for d := 0; d < 3; d++ {
		m = max(m, hi[d]-lo[d])
	}
	for d := 0; d < 3; d++ {
		lo[d] -= m
		hi[d] += m
	}
	s.DomainMin, s.DomainMax, s.domainSet = lo, hi, true
}

// Scatter writes the packed state back to the bodies and drops the particles removed during
// the step from them.
func (s *Sim) Scatter() {
	s.pool.For(s.Fluid.Len(), s.scatterFn)
	if s.moving {
		for _, b := range s.bodies {
			if b.motion != nil && b.body.Phase == components.Boundary && b.rigid == nil {
				copy(b.p.X, s.Bound.X[b.bLo:b.bLo+b.p.Len()])
			}
		}
	}
	s.endContactEvents()
	s.scatterRigid()
	s.scatterFlip()
	if len(s.removed) == 0 {
		return
	}
	slices.SortFunc(s.removed, cmpRemoval)
	for lo := 0; lo < len(s.removed); {
		hi := lo
		for hi < len(s.removed) && s.removed[hi].slot == s.removed[lo].slot {
			hi++
		}
		p := s.bodies[s.removed[lo].slot].p
		drop := s.removed[lo:hi]
		keep := 0
		d := 0
		for i := range p.X {
			if d < len(drop) && int(drop[d].local) == i {
				d++
				continue
			}
			p.X[keep], p.V[keep], p.Density[keep], p.Pressure[keep] = p.X[i], p.V[i], p.Density[i], p.Pressure[i]
			p.M[keep] = p.M[i]
			keep++
		}
		p.X, p.V, p.Density, p.Pressure, p.M = p.X[:keep], p.V[:keep], p.Density[:keep], p.Pressure[:keep], p.M[:keep]
		s.dropElastic(s.bodies[s.removed[lo].slot].body.ID, drop)
		s.dropElastoplastic(s.bodies[s.removed[lo].slot].body.ID, drop)
		lo = hi
	}
	// The packed particles that stay keep their packed order (and so their cell order and goo
	// connections); only their indices in their bodies shift down past the removed ones.
	for k := range s.owner {
		slot, local := s.owner[k], s.origin[k]
		lo, _ := slices.BinarySearchFunc(s.removed, removal{slot, 0}, cmpRemoval)
		hi, _ := slices.BinarySearchFunc(s.removed, removal{slot, local}, cmpRemoval)
		s.origin[k] = local - int32(hi-lo)
	}
	s.layout = s.layout[:0]
	for _, b := range s.bodies {
		if b.body.Phase.Dynamic() {
			s.layout = append(s.layout, layoutEntry{b.body.ID, b.body.Phase, b.p.Len(), false})
		}
	}
	s.removed = s.removed[:0]
}

// unpackBlock is Gather's copy of the bodies' particles [lo, hi) into the packed fluid: each
// packed particle k reads its body's particle origin[k] and writes only its own entries. It
// stores the block's first particle with a non-finite position, velocity or pressure in
// blockBad (−1: none).
func (s *Sim) unpackBlock(lo, hi, block int) {
	f := &s.Fluid
	for k := lo; k < hi; k++ {
		b := &s.bodies[s.owner[k]]
		i := s.origin[k]
		f.X[k], f.V[k], f.P[k] = b.p.X[i], b.p.V[i], b.p.Pressure[i]
		f.Rho0[k] = b.mat.RestDensity
		f.M[k] = b.p.M[i]
		if b.body.Phase == components.Cloth {
			// a cloth vertex is a full sample of volume V0 in the density constraints,
			// whatever its lumped mass
			f.Rho0[k] = f.M[k] / s.Volume0
		}
		f.Visc[k] = b.mat.Viscosity
	}
	bad := int32(-1)
	for k := lo; k < hi; k++ {
		if !physics.Finite(f.X[k]) || !physics.Finite(f.V[k]) || math.IsNaN(f.P[k]) {
			bad = int32(k)
			break
		}
	}
	s.blockBad[block] = bad
}

// scatterBlock is Scatter's copy of the packed particles [lo, hi) back into their bodies: the
// packed particles map one to one onto the bodies' particles, so blocks write disjoint entries.
func (s *Sim) scatterBlock(lo, hi, block int) {
	f := &s.Fluid
	for k := lo; k < hi; k++ {
		b := &s.bodies[s.owner[k]]
		i := s.origin[k]
		b.p.X[i], b.p.V[i], b.p.Density[i], b.p.Pressure[i] = f.X[k], f.V[k], f.Rho[k], f.P[k]
	}
}

func cmpRemoval(a, b removal) int {
	if a.slot != b.slot {
		return int(a.slot - b.slot)
	}
	return int(a.local - b.local)
}

// NextDt is the CFL substep, dt = λ·2r/v_max clamped to [dtMin, dtMax] (DESIGN §4), kept,
// in a world with liquid (hasLiquid), below the gravity step condition dt ≤ λ_g·√(2r/|g|)
// (solver.gravityCFL; Monaghan 1992's force condition Δt ≤ λ_f·√(h/|f|) with the body
// force): from rest v_max is zero and the CFL
// alone allows dtMax, in which gravity moves the water by g·dt² relative to a floor before
// the pressure answers; the pressure solve predicts the density linearly in that motion
// (Ihmsen et al. 2014, Eq. 4 and 14), and at r = a/60 of the Martin & Moyce collapse 3.8 % of
// the spacing per substep left the floor's corner particles 5-32 % compressed and blew the
// collapse up (TestDamBreakFineResolution); λ_g = 0.1 holds it to 1 %. The pressure
// acceleration is left out on purpose: a projection's pressure answers a position error δ
// with δ/dt², so a condition on it shortens the step, which raises the pressure, which
// shortens the step (measured: a goo ball's substeps fell to 7 µs and it burst). The step is
// also never above the explicit viscosity's stability limit (physics.Kernel.ViscousDtLimit: a von
// Neumann bound on the Laplacian viscosity of the largest ν and the walls' largest drag), so
// any viscosity at any dtMax is stable, for a scene file and a Go program alike, and never
// above the explicit elastoplastic forces' limit (elastoplasticDt). These limits may fall
// below dtMin: stability wins over the user's floor. With surface tension the step is also
// kept below its force condition (tensionDt).
//
// With solver.viscositySolver "implicit" the viscosity limit does not apply: the substep's
// viscosity is integrated by the unconditionally stable implicit solve. With "auto" the
// implicit solve takes the substeps where the limit is below the step the other limits allow,
// and the explicit force the others (which then run exactly as with "explicit").
func (s *Sim) NextDt() float64 {
	s.partial = par.Grow(s.partial, par.Blocks(s.Fluid.Len()))
	vmax := s.Fluid.MaxSpeed(s.partial, s.pool)
	dt := s.Settings.DtMax
	if vmax > 0 {
		dt = s.Settings.CFL * s.Settings.Spacing() / vmax
	}
	dt = min(max(dt, s.Settings.DtMin), s.Settings.DtMax)
	if g := s.Settings.Gravity.Len(); g > 0 && s.hasLiquid() {
		dt = min(dt, max(s.Settings.GravityCFL*math.Sqrt(s.Settings.Spacing()/g), s.Settings.DtMin))
	}
	if vr := s.rigidSpeed(); vr > 0 {
		dt = min(dt, max(s.Settings.CFL*s.Settings.Spacing()/vr, s.Settings.DtMin))
	}
	dt = min(dt, s.elastoplasticDt())
	dt = min(dt, s.tensionDt())
	s.viscImplicit = false
	if s.numax > 0 || s.nubmax > 0 {
		lam := s.numax*s.viscLam + s.nubmax*s.dragLam
		lim := physics.ViscositySafety * 2 / lam
		switch {
		case s.Settings.ViscositySolver == "implicit":
			s.viscImplicit = true
		case s.Settings.ViscositySolver == "auto" && lim < dt:
			s.viscImplicit = true
		default:
			dt = min(dt, lim)
		}
	}
	return dt
}

// hasLiquid reports whether a fluid-phase body (water, goo) has particles: the gravity step
// condition of NextDt is for the pressure solve's prediction of liquid resting on a floor.
// Elastic, elastoplastic and cloth bodies alone keep the steps they had: their solids carry
// gravity in their own solves (an elastic beam settles by the implicit solve's damping at
// 0.25 s steps, TestPinnedBeamSagsInWorld).
func (s *Sim) hasLiquid() bool {
	for _, b := range s.bodies {
		if b.body.Phase == components.Fluid && b.p.Len() > 0 {
			return true
		}
	}
	return false
}

// BodyName returns the name of the body owning packed fluid particle k.
func (s *Sim) BodyName(k int) string { return s.bodies[s.owner[k]].body.Name }

// PackState is the part of the packed solver state that is not recomputed from the bodies:
// the packed order (which body and index each packed particle is), the z-sort cadence and the
// domain. A snapshot saves it so a restored world sums neighbours in the same order and so
// continues bit-identically.
type PackState struct {
	Owner, Origin        []int32
	SinceSort            int
	DomainMin, DomainMax physics.Vec3
	DomainSet            bool
	// Repack: the world has not stepped yet, so the next Gather packs from the bodies (Owner
	// and Origin are then empty) — a restored world must do the same.
	Repack bool
	// The goo state in packed order (empty without goo): each particle's c, and its
	// connections as a count per particle with the partners and rest lengths concatenated.
	GooC     []float64
	GooCount []int32
	GooJ     []int32
	GooR     []float64
}

// PackState returns a copy of the packed order, cadence and domain.
func (s *Sim) PackState() PackState {
	if s.layout == nil {
		return PackState{Repack: true, DomainMin: s.DomainMin, DomainMax: s.DomainMax, DomainSet: s.domainSet}
	}
	ps := PackState{Owner: slices.Clone(s.owner), Origin: slices.Clone(s.origin), SinceSort: s.sinceSort,
		DomainMin: s.DomainMin, DomainMax: s.DomainMax, DomainSet: s.domainSet}
	if n := s.Goo.Len(); n > 0 {
		ps.GooC = slices.Clone(s.Goo.C)
		ps.GooCount, ps.GooJ, ps.GooR = s.Goo.Conn.Export(n)
	}
	return ps
}

// RestorePack gathers the world's bodies and then imposes a saved packed order, cadence and
// domain. It fails if the saved order does not match the bodies (a corrupt or foreign
// snapshot), leaving the world to be discarded by the caller.
func (s *Sim) RestorePack(w *ecs.World, ps PackState) error {
	s.DomainMin, s.DomainMax, s.domainSet = ps.DomainMin, ps.DomainMax, ps.DomainSet
	if err := s.Gather(w); err != nil {
		return err
	}
	if ps.Repack {
		s.layout = nil // the saved world would have repacked on its next step
		return nil
	}
	n := s.Fluid.Len()
	if len(ps.Owner) != n || len(ps.Origin) != n {
		return fmt.Errorf("snapshot packs %d fluid particles, the bodies hold %d", len(ps.Owner), n)
	}
	seen := make([][]bool, len(s.bodies))
	for i, b := range s.bodies {
		seen[i] = make([]bool, b.p.Len())
	}
	for k := range ps.Owner {
		o, i := ps.Owner[k], ps.Origin[k]
		if o < 0 || int(o) >= len(s.bodies) || !s.bodies[o].body.Phase.Dynamic() || i < 0 || int(i) >= len(seen[o]) || seen[o][i] {
			return fmt.Errorf("snapshot packed order is inconsistent at particle %d", k)
		}
		seen[o][i] = true
	}
	copy(s.owner, ps.Owner)
	copy(s.origin, ps.Origin)
	s.sinceSort = ps.SinceSort
	s.DomainMin, s.DomainMax, s.domainSet = ps.DomainMin, ps.DomainMax, ps.DomainSet
	if err := s.Gather(w); err != nil { // re-copy the bodies through the restored order
		return err
	}
	if len(ps.GooC) == 0 {
		return nil
	}
	if len(ps.GooC) != n || s.Goo.Len() != n {
		return fmt.Errorf("snapshot holds goo state for %d particles, the world's goo covers %d", len(ps.GooC), s.Goo.Len())
	}
	copy(s.Goo.C, ps.GooC)
	return s.Goo.Conn.Import(n, ps.GooCount, ps.GooJ, ps.GooR, n, s.Bound.Len())
}

// DiffuseSources fills dst (grown to the packed fluid's length) with whether each packed
// particle belongs to a plain fluid body — not goo, elastic or elastoplastic — and so may
// generate spray, foam and bubbles.
func (s *Sim) DiffuseSources(dst []bool) []bool {
	dst = par.Grow(dst, s.Fluid.Len())
	for k := range dst {
		b := s.bodies[s.owner[k]]
		dst[k] = b.body.Phase == components.Fluid && !b.mat.Viscoelastic.Enabled
	}
	return dst
}

// Walls returns the boundary samples and their grid as the last substep used them (cell size
// the kernel support), for post-processes that look for walls near points.
func (s *Sim) Walls() ([]physics.Vec3, *physics.Grid) { return s.Bound.X, &s.boundGrid }
