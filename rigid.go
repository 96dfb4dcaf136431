package sluice

import (
	"encoding/json"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/systems"
)

// interiorPoints bounds the points that measure a body's submerged fraction: 4096 points
// resolve it to about 1/16 of the body's height, far finer than the tolerance anyone reads it
// with, at a cost negligible next to the fluid.
const interiorPoints = 4096

// AddRigidBody adds a rigid body (see components.RigidBody): its mass properties come from its
// shape and density (or the given mass and inertia), its surface is sampled with boundary
// particles in Solver.BoundaryLayers layers half a spacing inside the surface, and from the
// next step it moves with the fluid, the walls and the other bodies. Errors name the body and
// the field.
func (w *World) AddRigidBody(name string, def components.RigidBody) (Entity, error) {
	path := fmt.Sprintf("bodies[%q]", name)
	sp := w.sim.Settings.Spacing()
	if err := def.Validate(path, sp); err != nil {
		return Entity{}, err
	}
	st, err := w.buildRigid(name, &def)
	if err != nil {
		return Entity{}, err
	}
	if err := w.checkPlacement(path, &st); err != nil {
		return Entity{}, err
	}
	def.State = st
	def.Displaced = w.carve(&st)
	x := make([]mgl64.Vec3, len(st.Samples))
	for i, s := range st.Samples {
		x[i] = st.ToWorld(s)
	}
	if err := w.checkName(name); err != nil {
		return Entity{}, err
	}
	return w.addBody(name, components.Boundary, components.DefaultMaterial(), components.Particles{X: x}, false, extras{rigid: &def})
}

// overlapTol (m, relative to the spacing) is the round-off below which surfaces that touch
// exactly do not count as overlapping.
const overlapTol = 1e-9

// checkPlacement reports a new body placed overlapping a wall or another rigid body, naming
// both and the depth: how far the wall's surface (its outermost samples, which lie on it) or
// the other body's surface (its first sample layer lies r inside it) reaches into the body.
// The body is not moved out: where a push would put it depends on which overlap is resolved
// first and may be just as wrong (into another wall, off a shelf), and the contact solver's
// push-out (at most 1 m/s) would throw it through a thin wall it starts deep inside. Placing
// a body touching a wall or another body is fine.
func (w *World) checkPlacement(path string, b *rigid.Body) error {
	r := b.Frame()
	rad := w.sim.Settings.ParticleRadius
	tol := overlapTol * w.sim.Settings.Spacing()
	world := func(p mgl64.Vec3) mgl64.Vec3 { return b.X.Add(r.MulVec(p)) }
	for _, bv := range w.Bodies() {
		if bv.Body.Phase != components.Boundary {
			continue
		}
		depth := 0.0
		if o := w.RigidBody(bv.Entity); o != nil {
			os := &o.State
			if b.X.Sub(os.X).Len() > b.Reach+os.Reach {
				continue
			}
			or := os.Frame()
			for _, p := range b.Samples[:b.Outer] {
				d, _ := os.Shape.Distance(or.MulTVec(world(p).Sub(os.X)))
				depth = max(depth, rad-d)
			}
			for _, p := range os.Samples[:os.Outer] {
				d, _ := b.Shape.Distance(r.MulTVec(os.ToWorld(p).Sub(b.X)))
				depth = max(depth, rad-d)
			}
		} else {
			for _, x := range bv.Particles.X {
				if x.Sub(b.X).Len() > b.Reach {
					continue
				}
				d, _ := b.Shape.Distance(r.MulTVec(x.Sub(b.X)))
				depth = max(depth, -d)
			}
			for _, p := range b.Samples[:b.Outer] {
				if d, ok := w.sim.SolidDistance(bv.Body.ID, world(p), w.Time()); ok {
					depth = max(depth, rad-d)
				}
			}
		}
		if depth > tol {
			return fmt.Errorf("%s: placed overlapping body %q by %.4g m (its surface reaches that far into the other's): move it clear", path, bv.Body.Name, depth)
		}
	}
	return nil
}

// carve removes the fluid particles that a new body overlaps: those whose centre lies inside
// the body or within half a particle radius outside it (more than half of the particle's
// volume cell overlaps the body). Fluid trapped inside a body would weigh it down and push it
// apart. It returns how many it removed (reported in the body's component, never silently).
// Particles of bodies with goo connections keep their connections only when the world has not
// stepped yet; add rigid bodies to goo scenes before the first step.
func (w *World) carve(b *rigid.Body) int {
	cut := 0.25 * w.sim.Settings.Spacing()
	r := b.Frame()
	removed := 0
	for _, bv := range w.Bodies() {
		if bv.Body.Phase != components.Fluid {
			continue
		}
		p := bv.Particles
		keep := 0
		for i, x := range p.X {
			d, _ := b.Shape.Distance(r.MulTVec(x.Sub(b.X)))
			if d < cut {
				removed++
				continue
			}
			p.X[keep] = x
			if i < len(p.V) {
				p.V[keep] = p.V[i]
			}
			if i < len(p.Density) {
				p.Density[keep] = p.Density[i]
			}
			if i < len(p.Pressure) {
				p.Pressure[keep] = p.Pressure[i]
			}
			if i < len(p.M) {
				p.M[keep] = p.M[i]
			}
			keep++
		}
		p.X = p.X[:keep]
		p.V = p.V[:min(keep, len(p.V))]
		p.Density = p.Density[:min(keep, len(p.Density))]
		p.Pressure = p.Pressure[:min(keep, len(p.Pressure))]
		p.M = p.M[:min(keep, len(p.M))]
	}
	return removed
}

// checkName reports an empty or taken body name.
func (w *World) checkName(name string) error {
	if name == "" {
		return fmt.Errorf("body name must not be empty")
	}
	if w.names[name] {
		return fmt.Errorf("body %q: a body of that name exists already", name)
	}
	return nil
}

// buildRigid makes the solver body of a validated definition: mass properties, the mesh moved
// to its centre of mass, samples, their volumes and the interior points.
func (w *World) buildRigid(name string, def *components.RigidBody) (rigid.Body, error) {
	path := fmt.Sprintf("bodies[%q]", name)
	sp := w.sim.Settings.Spacing()
	sh, err := def.Geometry()
	if err != nil {
		return rigid.Body{}, fmt.Errorf("%s.shape: %w", path, err)
	}
	mp, err := sh.Properties(def.Density)
	if err != nil {
		return rigid.Body{}, fmt.Errorf("%s.file: %w", path, err)
	}
	if def.Mass > 0 {
		f := def.Mass / mp.Mass
		mp.Mass = def.Mass
		for i := range mp.Inertia {
			mp.Inertia[i] *= f
		}
	}
	if in := def.Inertia; in != (mgl64.Vec3{}) {
		mp.Inertia = rigid.Mat3{in[0], 0, 0, 0, in[1], 0, 0, 0, in[2]}
	}
	invI, ok := mp.Inertia.Inverse()
	if !ok || !(mp.Mass > 0) {
		return rigid.Body{}, fmt.Errorf("%s.inertia: the inertia tensor %v is degenerate", path, mp.Inertia)
	}
	sh.Translate(mp.Center)
	if err := sh.Prepare(sp, 3*sp); err != nil {
		return rigid.Body{}, fmt.Errorf("%s.file: %w", path, err)
	}
	samples, outer, err := sh.Samples(sp, w.sim.Settings.BoundaryLayers)
	if err != nil {
		return rigid.Body{}, fmt.Errorf("%s: %w", path, err)
	}
	mo, _ := def.Motion()
	q := rigid.Quat(def.Orientation).Normalize()
	b := rigid.Body{
		Motion: mo, Shape: &sh, Mass: mp.Mass, Inertia: mp.Inertia,
		Q: q, V: def.Velocity, W: def.AngularVelocity,
		LinDamping: def.LinearDamping, AngDamping: def.AngularDamping,
		Friction: def.Friction, Restitution: def.Restitution,
		Filter: true, Layers: uint32(def.CollisionLayers), Mask: uint32(def.CollisionMask),
		Samples: samples, Outer: outer,
	}
	if n := def.PlaneNormal; n != (mgl64.Vec3{}) {
		b.PlaneNormal = n.Normalize()
	}
	if mo == rigid.Dynamic {
		b.InvMass, b.InvInertia = 1/mp.Mass, invI
	}
	r := q.Matrix()
	b.X = def.Position.Add(r.MulVec(mp.Center))
	b.Reach = reach(&sh)
	vols := make([]float64, len(samples))
	bs := physics.BoundarySet{X: samples}
	var g physics.Grid
	kr := &w.sim.Kernel
	if err := physics.BoundaryVolumes(&bs, kr, kr.WallVolumeScale(sp, w.sim.Settings.BoundaryLayers), &g, w.ecs.Pool); err != nil {
		return rigid.Body{}, fmt.Errorf("%s: %w", path, err)
	}
	copy(vols, bs.Vol)
	def.Volumes = vols
	def.Interior = sh.InteriorPoints(sp, interiorPoints)
	return b, nil
}

// reach is the largest distance of the shape's surface from its centre of mass.
func reach(sh *rigid.Shape) float64 {
	switch sh.Kind {
	case rigid.Box:
		return sh.HalfExtents.Len()
	case rigid.Sphere:
		return sh.Radius
	case rigid.Capsule:
		return sh.Radius + sh.HalfLength
	}
	r := 0.0
	for _, v := range sh.V {
		r = max(r, v.Len())
	}
	return r
}

// RigidBody returns a body's rigid-body component (definition and state), or nil for a body
// that is not rigid. A game may set State.X, State.Q, State.V, State.W (kinematic bodies'
// velocities, teleports) and State.Force/State.Torque between steps.
func (w *World) RigidBody(e Entity) *components.RigidBody {
	_, _, _, _, _, rb := w.get(e)
	if rb == nil || rb.State.Shape == nil {
		return nil
	}
	return rb
}

// saveRigid writes every rigid body's definition (declared keys and mesh), state and the
// contact solver's warm-start impulses: the part of a snapshot that rebuilding the body from
// its definition does not restore. Rebuilding is deterministic, so samples, volumes and mass
// properties come back bit for bit.
func (w *World) saveRigid(e *enc) error {
	var rigids []systems.BodyView
	for _, b := range w.Bodies() {
		if w.RigidBody(b.Entity) != nil {
			rigids = append(rigids, b)
		}
	}
	e.u32(uint32(len(rigids)))
	for _, b := range rigids {
		rb := w.RigidBody(b.Entity)
		e.u32(b.Body.ID)
		js, err := json.Marshal(rb)
		if err != nil {
			return err
		}
		e.bytes(js)
		var mv []mgl64.Vec3
		var mt [][3]int32
		if rb.Mesh != nil {
			mv, mt = rb.Mesh.V, rb.Mesh.Tris
		}
		e.u64(uint64(len(mv)))
		e.vecs(mv)
		e.u64(uint64(len(mt)))
		for _, t := range mt {
			e.u32(uint32(t[0]))
			e.u32(uint32(t[1]))
			e.u32(uint32(t[2]))
		}
		st := &rb.State
		e.vecs([]mgl64.Vec3{st.X, st.V, st.W, st.Force, st.Torque})
		e.floats(st.Q[:])
		e.u64(uint64(rb.Displaced))
		e.f64(rb.Submerged)
	}
	keys, imp := w.sim.Rigid.Cache()
	e.u64(uint64(len(keys)))
	for _, k := range keys {
		e.u64(k)
	}
	e.floats(imp)
	return nil
}

// savedRigid is one rigid body read from a snapshot.
type savedRigid struct {
	id  uint32
	def components.RigidBody
	x   []mgl64.Vec3 // X, V, W, Force, Torque
	q   []float64
	n   int
	sub float64
}

// loadRigid reads what saveRigid wrote.
func loadRigid(d *dec) ([]savedRigid, []uint64, []float64, error) {
	var out []savedRigid
	nr := int(d.u32())
	for i := 0; i < nr && d.err == nil; i++ {
		sr := savedRigid{id: d.u32(), def: components.DefaultRigidBody()}
		if err := json.Unmarshal(d.bytes(), &sr.def); d.err == nil && err != nil {
			return nil, nil, nil, fmt.Errorf("%w: rigid body %d: %v", ErrSnapshot, i, err)
		}
		if nv := d.count(24); nv > 0 {
			m := &rigid.Shape{Kind: rigid.Mesh, V: d.vecs(nv)}
			nt := d.count(12)
			for k := 0; k < nt && d.err == nil; k++ {
				m.Tris = append(m.Tris, [3]int32{int32(d.u32()), int32(d.u32()), int32(d.u32())})
			}
			sr.def.Mesh = m
		} else {
			d.count(12)
		}
		sr.x = d.vecs(5)
		sr.q = d.floats(4)
		sr.n = int(d.u64())
		sr.sub = d.f64()
		out = append(out, sr)
	}
	nk := d.count(32)
	var keys []uint64
	for k := 0; k < nk && d.err == nil; k++ {
		keys = append(keys, d.u64())
	}
	imp := d.floats(3 * nk)
	return out, keys, imp, d.err
}

// restoredRigid rebuilds the rigid body saved for body b (nil if none was), from its
// definition, and sets its saved state. n is the number of samples the snapshot holds for it.
func (w *World) restoredRigid(saved []savedRigid, b components.Body, n int) (*components.RigidBody, error) {
	for _, sr := range saved {
		if sr.id != b.ID {
			continue
		}
		if b.Phase != components.Boundary {
			return nil, fmt.Errorf("rigid body %q saved as a %s body", b.Name, b.Phase)
		}
		def := sr.def
		if err := def.Validate(fmt.Sprintf("bodies[%q]", b.Name), w.sim.Settings.Spacing()); err != nil {
			return nil, err
		}
		st, err := w.buildRigid(b.Name, &def)
		if err != nil {
			return nil, err
		}
		if len(st.Samples) != n {
			return nil, fmt.Errorf("rigid body %q: %d samples rebuilt, %d saved", b.Name, len(st.Samples), n)
		}
		st.X, st.V, st.W, st.Force, st.Torque = sr.x[0], sr.x[1], sr.x[2], sr.x[3], sr.x[4]
		st.Q = rigid.Quat{sr.q[0], sr.q[1], sr.q[2], sr.q[3]}
		def.State, def.Displaced, def.Submerged = st, sr.n, sr.sub
		return &def, nil
	}
	return nil, nil
}

// rigidCount returns the number of rigid bodies.
func (w *World) rigidCount() int {
	n := 0
	for _, b := range w.Bodies() {
		if w.RigidBody(b.Entity) != nil {
			n++
		}
	}
	return n
}
