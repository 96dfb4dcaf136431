// Package sluice is the embedding API of the sluice particle physics engine: create a World,
// add fluid blocks and walls, call Step from your game loop, read the bodies' particles.
//
//	w, _ := sluice.NewWorld(components.DefaultSolver(), 0)
//	defer w.Close()
//	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1.5, 1}, true)
//	water, _ := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 1, 1}, mgl64.Vec3{})
//	for frame := 0; frame < 60; frame++ {
//		stats, err := w.Step(1.0 / 60)
//		...
//		xs := w.Particles(water).X // positions after the step
//	}
//
// A World is an ECS world (package ecs over arche): each body is an entity with components.Body,
// components.Material and components.Particles; the solver's packed state is the systems.Sim
// resource; a substep runs the stages of ecs.Schedule in order (see package systems).
package sluice

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/mlange-42/arche/generic"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/boundary"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/systems"
)

// Entity is a body of the world.
type Entity = ecs.Entity

// StepStats describes one Step; see systems.StepStats.
type StepStats = systems.StepStats

// World is one simulation.
type World struct {
	ecs      *ecs.World
	sim      *systems.Sim
	bodies   generic.Map6[components.Body, components.Material, components.Particles, components.Motion, components.Emitter, components.RigidBody]
	bodyMap  generic.Map[components.Body]     // to ask whether an entity is a body
	wallMaps generic.Map1[components.WallMap] // the volume maps of walls (wallmap.go)
	nextID   uint32
	names    map[string]bool
	mapCache string // the folder of stored volume maps (SetVolumeMapCache), "" for none
	mapsMade [2]int // volume maps built, and read from mapCache (VolumeMaps)

	// One-step forces a game applied (ApplyForce, ApplyTorque), sorted by body ID, and the
	// held forces they are added to during a Step.
	pending []pendingLoad
	held    []heldLoad

	query queryIndex // what FluidAt and SurfaceHeight read (query.go)

	// The sensors (sensor.go) and the last ID given; the last step's own events (domain
	// removals, emitters done, sensors).
	sensors      []sensor
	sensorSeq    uint32
	worldEvents  []worldEvent
	doneEmitters []worldEvent // the emitters done at this step's emission
	note         []byte       // an application's bytes kept in snapshots (SetNote)
	gen          uint64       // counts additions and removals of bodies (Generation)

	// red are the reduced air domains and wind the 3D wind boxes, in creation order
	// (reduced.go, windbox.go).
	red  []*reducedDomain
	wind []*windBox

	diff diffuseState // spray, foam and bubbles (diffuse.go)

	wallMeshes []wallMeshEntry // the meshes of AddBoundaryMesh's walls, by body ID (wallmesh.go)

	moves []heldMove // copies of the bodies kept across the ECS's moves of them (ecsmove.go)

	// The substep callbacks of Step, made once so the substep loop allocates nothing.
	ctx     ecs.Context
	nextDt  func() float64
	substep func(dt float64) (float64, error)
}

// NewWorld creates an empty world with the given solver settings. workers is the number of
// threads the parallel loops use (≤ 0: GOMAXPROCS); results do not depend on it.
func NewWorld(settings components.Solver, workers int) (*World, error) {
	ew := ecs.NewWorld(workers)
	sim, err := systems.NewSim(settings, ew.Pool)
	if err != nil {
		ew.Close()
		return nil, err
	}
	res := generic.NewResource[systems.Sim](ew.ECS)
	res.Add(sim)
	if err := systems.DefaultSchedule(&ew.Schedule, sim); err != nil {
		ew.Close()
		return nil, err
	}
	w := &World{ecs: ew, sim: sim, names: map[string]bool{},
		bodies:  generic.NewMap6[components.Body, components.Material, components.Particles, components.Motion, components.Emitter, components.RigidBody](ew.ECS),
		bodyMap: generic.NewMap[components.Body](ew.ECS), wallMaps: generic.NewMap1[components.WallMap](ew.ECS)}
	w.nextDt = sim.NextDt
	w.substep = w.runSubstep
	return w, nil
}

// runSubstep runs the schedule once for a substep of length dt and returns the length it
// took: a stage may shorten it (ElasticSolve re-estimates the step after the elastic solve).
func (w *World) runSubstep(dt float64) (float64, error) {
	w.ctx.World, w.ctx.Dt, w.ctx.Time = w.ecs, dt, w.ecs.Clock.Time
	err := w.ecs.Schedule.Run(&w.ctx)
	w.ctx.Substep++
	return w.ctx.Dt, err
}

// Close releases the worker threads.
func (w *World) Close() {
	w.closeReduced()
	w.ecs.Close()
	w.moves = nil
}

// ECS returns the underlying ECS world (arche world, schedule, clock, pool).
func (w *World) ECS() *ecs.World { return w.ecs }

// Schedule returns the substep schedule, for inserting, replacing or disabling stages.
func (w *World) Schedule() *ecs.Schedule { return &w.ecs.Schedule }

// Sim returns the packed solver state.
func (w *World) Sim() *systems.Sim { return w.sim }

// Settings returns the solver settings the world was made with.
func (w *World) Settings() components.Solver { return w.sim.Settings }

// Generation counts the bodies added and removed so far: a viewer that laid out its drawing
// for one generation lays it out again when the number changes.
func (w *World) Generation() uint64 { return w.gen }

// Time returns the simulated time (s).
func (w *World) Time() float64 { return w.ecs.Clock.Time }

// Behind returns how far the world's time trails the frames its Steps were asked for (s): 0
// with the solver's alignFrames true, less than one substep with it false (see Step).
func (w *World) Behind() float64 { return w.ecs.Clock.Owed }

func (w *World) add(name string, phase components.Phase, mat components.Material, p components.Particles) (Entity, error) {
	return w.addBody(name, phase, mat, p, false, extras{})
}

// extras are the optional components a body is created with. Every body entity carries all
// six components from its creation, unused ones zero: arche moves an entity's components to
// another archetype (when a component is added or removed later) and overwrites them with
// untyped memory copies that bypass the garbage collector's write barriers, which loses the
// slices and pointers our components hold (heap corruption, seen as "found pointer to free
// object"). Created once with typed writes and only ever written through typed pointers,
// they are safe.
type extras struct {
	motion *components.Motion
	em     *components.Emitter
	rigid  *components.RigidBody
}

// addBody creates a body; empty allows a body without particles (an emitter's).
func (w *World) addBody(name string, phase components.Phase, mat components.Material, p components.Particles, empty bool, x extras) (Entity, error) {
	if name == "" {
		return Entity{}, fmt.Errorf("body name must not be empty")
	}
	if w.names[name] {
		return Entity{}, fmt.Errorf("body %q: a body of that name exists already", name)
	}
	if err := mat.Validate(fmt.Sprintf("bodies[%q].material", name)); err != nil {
		return Entity{}, err
	}
	if p.Len() == 0 && !empty {
		return Entity{}, fmt.Errorf("body %q: has no particles", name)
	}
	if err := w.planar(name, phase, &mat, &p, x); err != nil {
		return Entity{}, err
	}
	if phase.Dynamic() {
		w.setMasses(&p, mat, phase)
	}
	w.nextID++
	return w.addWithID(components.Body{ID: w.nextID, Name: name, Phase: phase}, mat, p, x)
}

// setMasses gives every particle of a new dynamic body the mass ρ0·V (Particles.M is state
// from then on), V its phase's particle volume (sampleVolume); masses already given (a
// restored snapshot) are kept.
func (w *World) setMasses(p *components.Particles, mat components.Material, phase components.Phase) {
	if len(p.M) == 0 && p.Len() > 0 {
		m := mat.RestDensity * w.sampleVolume(phase)
		p.M = make([]float64, p.Len())
		for i := range p.M {
			p.M[i] = m
		}
	}
	if p.MassDensity == 0 {
		p.MassDensity = mat.RestDensity
	}
}

// sampleVolume is the volume a new particle of the phase stands for, which sets its mass: the
// lattice volume V0 (physics.Kernel.LatticeVolume), at which a sampled block starts at rest
// density, or for water solver.particleVolume·(2r)^d when it is set (SPlisHSPlasH's scenes:
// 0.8·(2r)³, so that they hold the reference's water).
func (w *World) sampleVolume(phase components.Phase) float64 {
	st := &w.sim.Settings
	if phase != components.Fluid || st.ParticleVolume == 0 {
		return w.sim.Volume0
	}
	return st.ParticleVolume * math.Pow(st.Spacing(), float64(st.Dimensions))
}

// planar checks a new body against a 2D world (Solver.Dimensions 2): only fluid bodies and
// static walls, every position and velocity in the x–y plane (z = 0; the pair forces then
// stay in the plane, so the particles never leave it), emitters whose nozzle is a line in the
// plane (Emitter.ValidatePlanar), and no material model that is formulated only in 3D (surface
// tension, wall adhesion, goo). Elsewhere it accepts everything.
func (w *World) planar(name string, phase components.Phase, mat *components.Material, p *components.Particles, x extras) error {
	if w.sim.Settings.Dimensions != 2 {
		return nil
	}
	const hint = "a 2D world (solver.dimensions 2) takes fluid bodies (emitters included) and static walls only; see docs/2d.md"
	switch {
	case phase != components.Fluid && phase != components.Boundary && phase != components.Elastic:
		return fmt.Errorf("body %q: a %v body: %s", name, phase, hint)
	case x.rigid != nil:
		return fmt.Errorf("body %q: a rigid body: %s", name, hint)
	case x.motion != nil:
		return fmt.Errorf("body %q: a moving wall: %s", name, hint)
	case x.em != nil && x.em.Active():
		// new emitters were checked by AddEmitter already; a restored one must be 2D too
		if err := x.em.ValidatePlanar(fmt.Sprintf("bodies[%q].emitter", name), w.sim.Settings.Spacing()); err != nil {
			return err
		}
	}
	if phase == components.Fluid {
		path := fmt.Sprintf("bodies[%q].material", name)
		switch {
		case mat.SurfaceTension != 0:
			return fmt.Errorf("%s.surfaceTension: %g: surface tension is not available in a 2D world (solver.dimensions 2)", path, mat.SurfaceTension)
		case mat.WallAdhesion != 0:
			return fmt.Errorf("%s.wallAdhesion: %g: wall adhesion is not available in a 2D world (solver.dimensions 2)", path, mat.WallAdhesion)
		case mat.Viscoelastic.Enabled:
			return fmt.Errorf("%s.viscoelastic.enabled: goo is not available in a 2D world (solver.dimensions 2)", path)
		}
	}
	for i := range p.X {
		if p.X[i][2] != 0 || (i < len(p.V) && p.V[i][2] != 0) {
			return fmt.Errorf("body %q: particle %d at %v m with velocity %v m/s is not in the plane of a 2D world (solver.dimensions 2): z and v_z must be 0", name, i, p.X[i], p.V[i])
		}
	}
	return nil
}

// addWithID creates the entity of a body whose identity is already fixed (new, or restored
// from a snapshot).
func (w *World) addWithID(b components.Body, mat components.Material, p components.Particles, x extras) (Entity, error) {
	if w.names[b.Name] {
		return Entity{}, fmt.Errorf("body %q: a body of that name exists already", b.Name)
	}
	w.names[b.Name] = true
	w.query.built = false
	w.gen++
	var m components.Motion
	var em components.Emitter
	var rb components.RigidBody
	if x.motion != nil {
		m = *x.motion
	}
	if x.em != nil {
		em = *x.em
	}
	if x.rigid != nil {
		rb = *x.rigid
	}
	return w.bodies.NewWith(&b, &mat, &p, &m, &em, &rb), nil
}

// AddFluidParticles adds a fluid body with the given positions and velocities (v may be nil
// for rest). The slices are copied.
func (w *World) AddFluidParticles(name string, mat components.Material, x, v []mgl64.Vec3) (Entity, error) {
	if v != nil && len(v) != len(x) {
		return Entity{}, fmt.Errorf("body %q: %d velocities for %d positions", name, len(v), len(x))
	}
	for i := range x {
		if !physics.Finite(x[i]) || (v != nil && !physics.Finite(v[i])) {
			return Entity{}, fmt.Errorf("body %q: particle %d has a non-finite position or velocity", name, i)
		}
	}
	p := components.Particles{X: slices.Clone(x), V: make([]mgl64.Vec3, len(x)),
		Density: make([]float64, len(x)), Pressure: make([]float64, len(x))}
	copy(p.V, v)
	return w.add(name, components.Fluid, mat, p)
}

// AddFluidBlock fills the box [lo, hi] with fluid particles at spacing 2r (SPlisHSPlasH's
// block sampling, see physics.FluidBlock), all with velocity v.
func (w *World) AddFluidBlock(name string, mat components.Material, lo, hi, v mgl64.Vec3) (Entity, error) {
	sample := physics.FluidBlock
	if w.sim.Settings.Dimensions == 2 {
		sample = physics.FluidRect
	}
	x, err := sample(lo, hi, w.sim.Settings.Spacing())
	return w.addSampled(name, mat, x, err, v)
}

// AddFluidSphere fills the ball of the given centre and radius with fluid particles at
// spacing 2r (see physics.FluidSphere), all with velocity v.
func (w *World) AddFluidSphere(name string, mat components.Material, center mgl64.Vec3, radius float64, v mgl64.Vec3) (Entity, error) {
	sample := physics.FluidSphere
	if w.sim.Settings.Dimensions == 2 {
		sample = physics.FluidDisc
	}
	x, err := sample(center, radius, w.sim.Settings.Spacing())
	return w.addSampled(name, mat, x, err, v)
}

// addSampled adds the fluid body sampled as x (or reports the sampler's error), all particles
// with velocity v.
func (w *World) addSampled(name string, mat components.Material, x []mgl64.Vec3, err error, v mgl64.Vec3) (Entity, error) {
	if err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	vs := make([]mgl64.Vec3, len(x))
	for i := range vs {
		vs[i] = v
	}
	return w.AddFluidParticles(name, mat, x, vs)
}

// AddBoundaryParticles adds a static wall made of the given boundary samples; their volumes
// are calibrated for walls of Solver.BoundaryLayers layers at the fluid's spacing.
func (w *World) AddBoundaryParticles(name string, x []mgl64.Vec3) (Entity, error) {
	for i := range x {
		if !physics.Finite(x[i]) {
			return Entity{}, fmt.Errorf("body %q: sample %d is not finite", name, i)
		}
	}
	return w.add(name, components.Boundary, components.DefaultMaterial(), components.Particles{X: slices.Clone(x)})
}

// AddBoundaryBox adds the surface of the box [lo, hi] as a static wall: a tank holding fluid
// inside when inverted, an obstacle otherwise, sampled in Solver.BoundaryLayers layers. An
// obstacle is solid: a particle that ends a substep inside it is put back on its surface (see
// systems.Sim.AddSolid). In a 3D world the world keeps the box's mesh (WallMesh), from which
// solver.wallModel "volumeMaps" builds its volume map.
func (w *World) AddBoundaryBox(name string, lo, hi mgl64.Vec3, inverted bool) (Entity, error) {
	sample := boundary.Box
	if w.sim.Settings.Dimensions == 2 {
		sample = boundary.Rect2D
	}
	x, err := sample(lo, hi, w.sim.Settings.Spacing(), w.sim.Settings.BoundaryLayers, inverted)
	if err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	e, err := w.AddBoundaryParticles(name, x)
	if err != nil {
		return e, err
	}
	if w.sim.Settings.Dimensions == 3 {
		bv, bt := boxWallMesh(lo, hi)
		w.keepWallMesh(w.Body(e).ID, bv, bt, inverted)
	}
	if inverted {
		return e, nil
	}
	sh, c := &rigid.Shape{Kind: rigid.Box, HalfExtents: hi.Sub(lo).Mul(0.5)}, lo.Add(hi).Mul(0.5)
	if w.sim.Settings.Dimensions == 2 {
		// the obstacle is its rectangle in the plane: a box through z = 0 deeper than it is wide
		sh.HalfExtents[2], c[2] = max(sh.HalfExtents[0], sh.HalfExtents[1]), 0
	}
	if err := w.sim.AddSolid(w.Body(e).ID, sh, c); err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	return e, nil
}

// AddBoundaryMesh adds the surface of a triangle mesh (counter-clockwise seen from outside) as
// a static wall sampled in Solver.BoundaryLayers layers: inwards for an obstacle, outwards for
// a tank holding fluid inside. A closed obstacle is solid: a particle that ends a substep
// inside it is put back on its surface (see systems.Sim.AddSolid). An open mesh (a sheet, a
// bowl) has no inside and is a wall of samples only. The slices are copied; the world keeps
// the mesh for drawing (WallMesh). In a 2D world a mesh that is an axis-aligned box is
// AddBoundaryBox's rectangle and any other is its section with the plane z = 0
// (boundary.Section2D), a wall of samples without a solid inside and not kept for drawing.
func (w *World) AddBoundaryMesh(name string, v []mgl64.Vec3, tris [][3]int32, tank bool) (Entity, error) {
	sp := w.sim.Settings.Spacing()
	for i := range v {
		if !physics.Finite(v[i]) {
			return Entity{}, fmt.Errorf("body %q: vertex %d is not finite", name, i)
		}
	}
	for i, t := range tris {
		for _, k := range t {
			if k < 0 || int(k) >= len(v) {
				return Entity{}, fmt.Errorf("body %q: triangle %d names vertex %d of %d", name, i, k, len(v))
			}
		}
	}
	if w.sim.Settings.Dimensions == 2 {
		// A 2D world's walls are outlines in the plane: an axis-aligned box mesh (the tanks of
		// SPlisHSPlasH's 2D scenes) is its rectangle, with a solid inside for an obstacle; any
		// other mesh is its section with the plane, a wall of samples only.
		if lo, hi, ok := AxisBoxMesh(v, tris); ok {
			return w.AddBoundaryBox(name, lo, hi, tank)
		}
		x := boundary.Section2D(v, tris, sp, w.sim.Settings.BoundaryLayers, tank)
		if len(x) == 0 {
			return Entity{}, fmt.Errorf("body %q: the mesh (%d vertices, %d triangles) does not cross the plane z = 0 of a 2D world (solver.dimensions 2)", name, len(v), len(tris))
		}
		if len(x) > physics.MaxSamples {
			return Entity{}, fmt.Errorf("body %q: more than %d section samples at spacing %g m", name, physics.MaxSamples, sp)
		}
		return w.AddBoundaryParticles(name, x)
	}
	x := boundary.Mesh(v, tris, sp, w.sim.Settings.BoundaryLayers, 0, tank)
	if len(x) > physics.MaxSamples {
		return Entity{}, fmt.Errorf("body %q: more than %d surface samples at spacing %g m", name, physics.MaxSamples, sp)
	}
	e, err := w.AddBoundaryParticles(name, x)
	if err != nil {
		return e, err
	}
	if m := w.keepWallMesh(w.Body(e).ID, v, tris, tank); tank || !m.Closed {
		return e, nil
	}
	sh, c := &rigid.Shape{Kind: rigid.Mesh, V: slices.Clone(v), Tris: slices.Clone(tris)}, mgl64.Vec3{}
	if lo, hi, ok := AxisBoxMesh(v, tris); ok {
		// a closed mesh with the corners of an axis-aligned box as its vertices and the box's
		// volume is that box: its exact distance needs no grid
		sh, c = &rigid.Shape{Kind: rigid.Box, HalfExtents: hi.Sub(lo).Mul(0.5)}, lo.Add(hi).Mul(0.5)
	}
	if err := w.sim.AddSolid(w.Body(e).ID, sh, c); err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	return e, nil
}

// axisBox reports whether the vertices take exactly two values along each axis (with every
// vertex one of the 8 corners): the corners of the box [lo, hi].
func axisBox(v []mgl64.Vec3) (lo, hi mgl64.Vec3, ok bool) {
	if len(v) == 0 {
		return lo, hi, false
	}
	lo, hi = v[0], v[0]
	for _, p := range v {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], p[d]), max(hi[d], p[d])
		}
	}
	for _, p := range v {
		for d := 0; d < 3; d++ {
			if p[d] != lo[d] && p[d] != hi[d] {
				return lo, hi, false
			}
		}
	}
	return lo, hi, lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]
}

// AxisBoxMesh reports whether the closed triangle mesh is the axis-aligned box [lo, hi]: its
// vertices are the box's corners and it encloses the box's volume (a polyhedron within the
// box with its volume is the box).
func AxisBoxMesh(v []mgl64.Vec3, tris [][3]int32) (lo, hi mgl64.Vec3, ok bool) {
	if lo, hi, ok = axisBox(v); !ok {
		return lo, hi, false
	}
	mp, err := (&rigid.Shape{Kind: rigid.Mesh, V: v, Tris: tris}).Properties(1)
	d := hi.Sub(lo)
	return lo, hi, err == nil && math.Abs(mp.Volume-d[0]*d[1]*d[2]) <= 1e-9*d[0]*d[1]*d[2]
}

// closedMesh reports whether every edge of the mesh, with coincident vertices merged, is
// shared by exactly two triangles: a mesh with an inside.
func closedMesh(v []mgl64.Vec3, tris [][3]int32) bool {
	id := make(map[mgl64.Vec3]int32, len(v))
	weld := make([]int32, len(v))
	for i, p := range v {
		if j, ok := id[p]; ok {
			weld[i] = j
		} else {
			id[p], weld[i] = int32(i), int32(i)
		}
	}
	edges := map[[2]int32]int{}
	for _, t := range tris {
		for e := 0; e < 3; e++ {
			a, b := weld[t[e]], weld[t[(e+1)%3]]
			if a > b {
				a, b = b, a
			}
			edges[[2]int32{a, b}]++
		}
	}
	for _, c := range edges {
		if c != 2 {
			return false
		}
	}
	return len(tris) > 0
}

// AddBoundaryRect adds the parallelogram origin + a·u + b·v (a, b ∈ [0,1]) as a static wall,
// sampled in Solver.BoundaryLayers layers behind the side u×v points to.
func (w *World) AddBoundaryRect(name string, origin, u, v mgl64.Vec3) (Entity, error) {
	if w.sim.Settings.Dimensions == 2 {
		return Entity{}, fmt.Errorf("body %q: a wall rectangle is not available in a 2D world (solver.dimensions 2; use a box); see docs/2d.md", name)
	}
	x, err := boundary.Rect(origin, u, v, w.sim.Settings.Spacing(), w.sim.Settings.BoundaryLayers)
	if err != nil {
		return Entity{}, fmt.Errorf("body %q: %w", name, err)
	}
	return w.AddBoundaryParticles(name, x)
}

// AddEmitter adds a fluid body that starts empty and grows from the emitter's nozzle: at each
// Step, the layers due by then (see components.Emitter) are added with the emitter's velocity,
// placed where they have flowed to since they left the nozzle. While it emits, the nozzle
// drives the fluid in its mouth, the two layers in front of it, at its own velocity
// (systems.Mouth), so it pushes on what stands in front of it as a pump does. A layer that
// would still put a particle within a fifth of the spacing (0.4 r) of a particle of a dynamic
// body waits: it leaves from the nozzle as soon as there is room there, the emitter's schedule
// moves on by the time it waited (components.Emitter.Held), and each wait is counted in
// StepStats.EmitterHeld. So an emitter never stacks particles onto others, and a blocked
// nozzle is reported, not silently throttled.
func (w *World) AddEmitter(name string, mat components.Material, em components.Emitter) (Entity, error) {
	validate := em.Validate
	if w.sim.Settings.Dimensions == 2 {
		validate = em.ValidatePlanar
	}
	if err := validate(fmt.Sprintf("bodies[%q].emitter", name), w.sim.Settings.Spacing()); err != nil {
		return Entity{}, err
	}
	em.Layers, em.Emitted = 0, 0
	return w.addBody(name, components.Fluid, mat, components.Particles{}, true, extras{em: &em})
}

// AddAnimationField adds an animation field (components.AnimationField; docs/animation.md):
// from the next substep on, every fluid particle strictly inside its shape gets the field's
// quantity overwritten by its expressions after each integration, while the substep's start
// time lies in [startTime, endTime]. Fields act in the order they were added. Errors name the
// field, the key and, for an expression, the position of the bad token.
func (w *World) AddAnimationField(name string, def components.AnimationField) error {
	path := fmt.Sprintf("animationFields[%q]", name)
	if name == "" {
		return fmt.Errorf("animation field name must not be empty")
	}
	for _, a := range w.sim.Anim.Fields {
		if a.Name == name {
			return fmt.Errorf("%s: an animation field of that name exists already", path)
		}
	}
	a, err := systems.NewAnimField(name, path, def, w.sim.Settings.Dimensions)
	if err != nil {
		return err
	}
	w.sim.Anim.Fields = append(w.sim.Anim.Fields, a)
	return nil
}

// RemoveAnimationField removes the animation field of that name; it reports whether there was one.
func (w *World) RemoveAnimationField(name string) bool {
	for i, a := range w.sim.Anim.Fields {
		if a.Name == name {
			w.sim.Anim.Fields = slices.Delete(w.sim.Anim.Fields, i, i+1)
			return true
		}
	}
	return false
}

// AnimationFields lists the animation fields' names and declarations, in the order they act.
func (w *World) AnimationFields() (names []string, defs []components.AnimationField) {
	for _, a := range w.sim.Anim.Fields {
		names, defs = append(names, a.Name), append(defs, a.Def)
	}
	return names, defs
}

// Emitter returns a body's emitter (its settings and how much it has emitted), or nil.
func (w *World) Emitter(e Entity) *components.Emitter {
	_, _, _, _, em, _ := w.get(e)
	if em == nil || !em.Active() {
		return nil
	}
	return em
}

var emitterFilter = generic.NewFilter4[components.Body, components.Material, components.Particles, components.Emitter]()

// emitClear is the least distance, in particle spacings 2r, between a new particle and any
// particle of a dynamic body already in the world: a layer with a place closer than that waits
// (see AddEmitter). It guards against placing a particle almost onto another, which a stalled
// nozzle would otherwise do again and again; nearer misses are left to the pressure solve, as
// in the reference, where a nozzle places its layers on schedule into whatever it pushes. A
// free jet's layers follow each other a whole spacing apart. Measured with `sluice run` of
// SPlisHSPlasH's Emitter.json for 3 s at 30 frames a second: at half a spacing its nozzles
// waited so often that it ended with 24 % fewer particles than on schedule; at a fifth, 3 %.
const emitClear = 0.2

// emit sets the mouths of the nozzles that emit (see AddEmitter) for this step's substeps,
// adds to every emitter body the layers due by the current time and returns how many
// particles it added and how many due layers waited for particles in their way. Each body only
// grows its own slices, so the order of bodies is free; whether a nozzle is blocked does not
// depend on the order in which the particles are looked at.
func (w *World) emit() (added, held int) {
	t, sp := w.ecs.Clock.Time, w.sim.Settings.Spacing()
	w.sim.Mouths = w.sim.Mouths[:0]
	q := emitterFilter.Query(w.ecs.ECS)
	for q.Next() {
		b, m, p, em := q.Get()
		if !em.Active() {
			continue
		}
		layer := em.Layer(sp)
		if w.sim.Settings.Dimensions == 2 {
			layer = em.Line(sp)
		}
		if t >= em.Start && t < em.Stop && em.Emitted+len(layer) <= em.Budget {
			w.sim.Mouths = append(w.sim.Mouths, w.mouth(em, sp))
		}
		done := func() bool {
			return em.Emitted+len(layer) > em.Budget || (t >= em.Stop && em.Layers >= em.Due(t, sp))
		}
		was := done()
		if em.Layers >= em.Due(t, sp) || em.Emitted+len(layer) > em.Budget {
			if !was && done() {
				w.doneEmitters = append(w.doneEmitters, worldEvent{kind: systems.EmitterDone, body: b.ID})
			}
			continue
		}
		if p.MassDensity == 0 { // the body's first particles
			p.MassDensity = m.RestDensity
		}
		// New particles get the mass of the rest density the body's masses are kept at (the
		// next Gather rescales them all together if the material was edited).
		mass := p.MassDensity * w.sampleVolume(b.Phase)
		d := em.Direction.Normalize()
		v := d.Mul(em.Speed)
		near := w.nearNozzle(em, layer, d, t-em.LeaveTime(em.Layers, sp), sp)
		for em.Layers < em.Due(t, sp) && em.Emitted+len(layer) <= em.Budget {
			tk := em.LeaveTime(em.Layers, sp)
			c := em.Center.Add(d.Mul(em.Speed * (t - tk)))
			if blocked(near, layer, c, emitClear*sp) {
				// The fluid ahead has not moved on: the layer leaves now from the nozzle if
				// there is room there, and the schedule moves on by the time it waited.
				em.Held += t - tk
				c = em.Center
				held++
				if blocked(near, layer, c, emitClear*sp) {
					break
				}
			}
			for _, o := range layer {
				p.X = append(p.X, c.Add(o))
				p.V = append(p.V, v)
				p.Density = append(p.Density, m.RestDensity)
				p.Pressure = append(p.Pressure, 0)
				p.M = append(p.M, mass)
			}
			em.Layers++
			em.Emitted += len(layer)
			added += len(layer)
		}
		if !was && done() {
			w.doneEmitters = append(w.doneEmitters, worldEvent{kind: systems.EmitterDone, body: b.ID})
		}
	}
	return added, held
}

// emitMouth is the length of an emitting nozzle's mouth (systems.Mouth), in particle spacings
// 2r: the two layers in front of the nozzle leave each substep with its velocity.
const emitMouth = 2

// mouth returns the region in front of the emitter's nozzle that it drives while it emits.
func (w *World) mouth(em *components.Emitter, sp float64) systems.Mouth {
	d := em.Direction.Normalize()
	m := systems.Mouth{Center: em.Center, Dir: d, Len: emitMouth * sp, Speed: em.Speed, HalfU: em.Width / 2, HalfV: em.Width / 2}
	if w.sim.Settings.Dimensions == 2 {
		// the nozzle is a line across the direction in the plane (components.Emitter.Line)
		m.U, m.V = em.LineAxis(), mgl64.Vec3{0, 0, 1}
		return m
	}
	m.U, m.V, _ = em.Frame()
	if em.Shape == "circle" {
		m.Circle = true
	} else if em.Height > 0 {
		m.HalfV = em.Height / 2
	}
	return m
}

// nearNozzle returns the positions of the dynamic bodies' particles that a layer of the
// emitter could come near at this emission: those within the layer's radius plus a spacing of
// the segment from the nozzle to where the earliest due layer has flowed (travel, the time
// since it left, times the speed).
func (w *World) nearNozzle(em *components.Emitter, layer []mgl64.Vec3, d mgl64.Vec3, travel, sp float64) []mgl64.Vec3 {
	rad := 0.0
	for _, o := range layer {
		rad = max(rad, o.Len())
	}
	reach := rad + sp
	seg := em.Speed * max(travel, 0)
	a := em.Center
	var near []mgl64.Vec3
	q := bodyQuery.Query(w.ecs.ECS)
	for q.Next() {
		b, _, p := q.Get()
		if !b.Phase.Dynamic() {
			continue
		}
		for _, x := range p.X {
			rx, ry, rz := x[0]-a[0], x[1]-a[1], x[2]-a[2]
			s := min(max(rx*d[0]+ry*d[1]+rz*d[2], 0), seg)
			rx, ry, rz = rx-s*d[0], ry-s*d[1], rz-s*d[2]
			if rx*rx+ry*ry+rz*rz <= reach*reach {
				near = append(near, x)
			}
		}
	}
	return near
}

// blocked reports whether a particle of near lies closer than clear to a place of the layer
// centred at c.
func blocked(near, layer []mgl64.Vec3, c mgl64.Vec3, clear float64) bool {
	c2 := clear * clear
	for _, x := range near {
		for _, o := range layer {
			dx, dy, dz := x[0]-c[0]-o[0], x[1]-c[1]-o[1], x[2]-c[2]-o[2]
			if dx*dx+dy*dy+dz*dz < c2 {
				return true
			}
		}
	}
	return false
}

// SetMotion makes a boundary body kinematic: from the next step it translates along the path
// (piecewise-constant velocities, see components.Motion), and fluid and goo see its velocity.
// A path with no keys makes the body static again.
func (w *World) SetMotion(e Entity, m components.Motion) error {
	b, _, _, cur, _, _ := w.get(e)
	if b == nil {
		return fmt.Errorf("set motion: entity %v is not a body of this world (removed, or never added)", e)
	}
	if b.Phase != components.Boundary {
		return fmt.Errorf("body %q: a motion path applies to boundary bodies, this one is %s", b.Name, b.Phase)
	}
	if err := m.Validate(fmt.Sprintf("bodies[%q].motion", b.Name)); err != nil {
		return err
	}
	*cur = components.Motion{Path: slices.Clone(m.Path)}
	return nil
}

// Motion returns a body's kinematic path, or nil for a body without one.
func (w *World) Motion(e Entity) *components.Motion {
	_, _, _, m, _, _ := w.get(e)
	if m == nil || len(m.Path) == 0 {
		return nil
	}
	return m
}

// Particles returns a body's particles (nil for an entity that is not a body of the world);
// a game may read and write them between steps.
func (w *World) Particles(e Entity) *components.Particles {
	_, _, p, _, _, _ := w.get(e)
	return p
}

// Body returns a body's identity (nil for an entity that is not a body of the world).
func (w *World) Body(e Entity) *components.Body {
	b, _, _, _, _, _ := w.get(e)
	return b
}

// Material returns a body's material (nil for an entity that is not a body of the world);
// changes take effect at the next Step.
func (w *World) Material(e Entity) *components.Material {
	_, m, _, _, _, _ := w.get(e)
	return m
}

// get returns a body's components, all nil for an entity that is not a live body of this
// world (removed, never added).
func (w *World) get(e Entity) (*components.Body, *components.Material, *components.Particles, *components.Motion, *components.Emitter, *components.RigidBody) {
	if e.IsZero() || !w.ecs.ECS.Alive(e) || !w.bodyMap.Has(e) {
		return nil, nil, nil, nil, nil, nil
	}
	return w.bodies.Get(e)
}

// Step advances the world by frameDt seconds in as many CFL-limited substeps as needed and
// returns the step's statistics. With the solver's alignFrames false the substeps are not
// aligned with the frames: Step takes whole substeps while they fit into the time owed to the
// frames and carries the rest, so Time trails the sum of the frames by Behind (less than one
// substep), and a frame shorter than a substep may take none. The substeps allocate no
// memory; the returned statistics (a few small slices and a map) are allocated per Step and
// belong to the caller. After an error (a particle turned non-finite) the bodies hold the
// state at the failure for inspection.
func (w *World) Step(frameDt float64) (StepStats, error) {
	t0 := time.Now()
	s := w.sim
	s.BeginStep()
	w.releaseMoves()
	w.worldEvents, w.doneEmitters = w.worldEvents[:0], w.doneEmitters[:0]
	w.query.built = false
	if err := w.stepReduced(frameDt); err != nil {
		return StepStats{}, err
	}
	if err := w.stepWind(frameDt); err != nil {
		return StepStats{}, err
	}
	w.beginLoads()
	defer w.endLoads()
	emitted, held := w.emit()
	if err := w.buildWallMaps(); err != nil {
		return StepStats{}, err
	}
	if err := s.Gather(w.ecs); err != nil {
		return StepStats{}, err
	}
	w.ctx.Substep = 0
	tBefore := w.ecs.Clock.Time
	var n int
	var err error
	if w.sim.Settings.AlignFrames {
		n, err = w.ecs.Clock.AdvanceVar(frameDt, w.nextDt, w.substep)
	} else {
		n, err = w.ecs.Clock.AdvanceCarry(frameDt, w.nextDt, w.substep)
	}
	s.Scatter()
	st := s.EndStep(&w.ecs.Clock, n, w.ctx.Dt, w.ecs.Schedule.TakeTimes())
	if err == nil {
		st.Diffuse, err = w.stepDiffuse(w.ecs.Clock.Time - tBefore)
	}
	st.Emitted, st.EmitterHeld = emitted, held
	st.Reduced = w.reducedStats()
	st.Wind = w.windStats()
	for _, r := range st.Removed {
		if e, ok := w.BodyByName(r.Body); ok {
			w.worldEvents = append(w.worldEvents, worldEvent{kind: systems.LeftDomain, body: w.Body(e).ID, count: r.Count})
		}
	}
	w.worldEvents = append(w.worldEvents, w.doneEmitters...)
	if err == nil && len(w.sensors) > 0 {
		w.updateSensors()
	}
	st.WallMs = float64(time.Since(t0).Nanoseconds()) / 1e6
	return st, err
}

var bodyQuery = generic.NewFilter3[components.Body, components.Material, components.Particles]()

// Bodies lists every body with its components, in ID (creation) order.
func (w *World) Bodies() []systems.BodyView {
	var out []systems.BodyView
	q := bodyQuery.Query(w.ecs.ECS)
	for q.Next() {
		b, m, p := q.Get()
		out = append(out, systems.BodyView{Entity: q.Entity(), Body: b, Material: m, Particles: p})
	}
	slices.SortFunc(out, func(a, b systems.BodyView) int { return int(a.Body.ID) - int(b.Body.ID) })
	return out
}

// BodyByName returns the body with the given name.
func (w *World) BodyByName(name string) (Entity, bool) {
	q := bodyQuery.Query(w.ecs.ECS)
	var found Entity
	ok := false
	for q.Next() {
		b, _, _ := q.Get()
		if b.Name == name {
			found, ok = q.Entity(), true
		}
	}
	return found, ok
}
