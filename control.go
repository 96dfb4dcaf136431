package sluice

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/systems"
)

// This file is what a game calls between steps to change the world: remove bodies and
// particles, push rigid bodies. Every call checks its entity and its numbers and returns an
// error, never panics; none of them allocates per particle of other bodies.
//
// Rigid bodies never sleep (there is no sleeping yet), so an impulse or force always acts.

// body returns the components of a body of this world, or an error naming the entity when it
// is not one (removed, never added, or an entity the game made itself in the ECS).
func (w *World) body(e Entity, op string) (*components.Body, error) {
	b := w.Body(e)
	if b == nil {
		return nil, fmt.Errorf("%s: entity %v is not a body of this world (removed, or never added)", op, e)
	}
	return b, nil
}

// Remove takes a body out of the world: a fluid, goo, elastic, wall, rigid or emitter body,
// with its particles, its joints and its solver state, or a reduced air domain or wind box. Call it between steps; the next Step packs the
// remaining bodies anew, and the view and the driver see the body gone from Bodies. Its name
// becomes free. Removing it again, or an entity that is not a body, is an error.
func (w *World) Remove(e Entity) error {
	if w.removeReduced(e) || w.removeWind(e) {
		return nil
	}
	b, err := w.body(e, "remove")
	if err != nil {
		return err
	}
	delete(w.names, b.Name)
	w.pending = slices.DeleteFunc(w.pending, func(p pendingLoad) bool { return p.id == b.ID })
	w.sim.DropJointsOf(b.ID)
	w.dropWallMesh(b.ID)
	w.moveBodies(func() { w.ecs.ECS.RemoveEntity(e) })
	w.query.built = false
	w.gen++
	return nil
}

// RemoveParticles removes particles of a fluid, goo, elastic or elastoplastic body, by their indices in its
// Particles (a game that drinks or evaporates water). Repeated indices count once. The
// particles leave before the first substep of the next Step and are gone from the body's
// slices after it (until then Particles still lists them); the remaining particles keep
// their order, so an index above a removed one shifts down. Goo connections and an elastic
// body's rest shape follow, as for particles that leave the domain.
func (w *World) RemoveParticles(e Entity, indices []int) error {
	b, err := w.body(e, "remove particles")
	if err != nil {
		return err
	}
	if !b.Phase.Dynamic() && b.Phase != components.Flip {
		return fmt.Errorf("remove particles: body %q is a %s body; particles are removed from fluid, goo, elastic, elastoplastic and flip bodies (remove the whole body with Remove)", b.Name, b.Phase)
	}
	n := w.Particles(e).Len()
	local := make([]int32, 0, len(indices))
	for _, i := range indices {
		if i < 0 || i >= n {
			return fmt.Errorf("remove particles: body %q: index %d is outside [0, %d)", b.Name, i, n)
		}
		local = append(local, int32(i))
	}
	w.sim.QueueRemoval(b.ID, local)
	return nil
}

// RemoveParticlesInBox removes, as RemoveParticles does, every particle of a fluid, goo,
// elastic or elastoplastic body inside the axis-aligned box [lo, hi] (m), and returns how
// many that is.
func (w *World) RemoveParticlesInBox(e Entity, lo, hi mgl64.Vec3) (int, error) {
	b, err := w.body(e, "remove particles")
	if err != nil {
		return 0, err
	}
	for d := 0; d < 3; d++ {
		if !finite(lo[d]) || !finite(hi[d]) || lo[d] > hi[d] {
			return 0, fmt.Errorf("remove particles: body %q: box [%v, %v] is not a box (each lo ≤ hi, finite)", b.Name, lo, hi)
		}
	}
	var idx []int
	for i, x := range w.Particles(e).X {
		if x[0] >= lo[0] && x[1] >= lo[1] && x[2] >= lo[2] && x[0] <= hi[0] && x[1] <= hi[1] && x[2] <= hi[2] {
			idx = append(idx, i)
		}
	}
	return len(idx), w.RemoveParticles(e, idx)
}

// dynamicRigid returns the solver state of a dynamic rigid body, or an error that says why
// the entity is not one.
func (w *World) dynamicRigid(e Entity, op string) (*components.Body, *rigid.Body, error) {
	b, err := w.body(e, op)
	if err != nil {
		return nil, nil, err
	}
	rb := w.RigidBody(e)
	if rb == nil {
		return nil, nil, fmt.Errorf("%s: body %q is a %s body, not a rigid body", op, b.Name, b.Phase)
	}
	if rb.State.Motion != rigid.Dynamic {
		return nil, nil, fmt.Errorf("%s: rigid body %q is %s; only dynamic bodies are pushed (move a kinematic body by its velocity)", op, b.Name, rb.Type)
	}
	return b, &rb.State, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func checkVec(op, name, what string, v mgl64.Vec3) error {
	if !physics.Finite(v) {
		return fmt.Errorf("%s: body %q: %s %v is not finite", op, name, what, v)
	}
	return nil
}

// ApplyImpulse changes a dynamic rigid body's momentum by the impulse j (N s, world axes)
// applied at the world point at: the velocity by j/m and the angular velocity by
// I⁻¹ ((at − x_com) × j), at once, between steps. An impulse at the centre of mass does not
// spin the body.
func (w *World) ApplyImpulse(e Entity, j, at mgl64.Vec3) error {
	const op = "apply impulse"
	b, st, err := w.dynamicRigid(e, op)
	if err != nil {
		return err
	}
	if err := checkVec(op, b.Name, "impulse", j); err != nil {
		return err
	}
	if err := checkVec(op, b.Name, "point", at); err != nil {
		return err
	}
	st.ApplyImpulse(j, at)
	return nil
}

// ApplyAngularImpulse changes a dynamic rigid body's angular momentum by l (N m s, world
// axes), between steps.
func (w *World) ApplyAngularImpulse(e Entity, l mgl64.Vec3) error {
	const op = "apply angular impulse"
	b, st, err := w.dynamicRigid(e, op)
	if err != nil {
		return err
	}
	if err := checkVec(op, b.Name, "angular impulse", l); err != nil {
		return err
	}
	st.ApplyAngularImpulse(l)
	return nil
}

// pendingLoad is a force and torque a game applied for the next Step only.
type pendingLoad struct {
	id        uint32
	e         Entity
	f, torque mgl64.Vec3
}

// ApplyForce applies the force f (N, world axes) at the world point at to a dynamic rigid
// body for the next Step only, in every substep of it: the force through the centre of mass
// plus the torque (at − x_com) × f, with x_com where the body is now. Forces applied before
// one Step add up; after the Step they are gone (call it every frame for a lasting push, or
// set RigidBody(e).State.Force, which is held until changed). Forces pending when a snapshot
// is saved are not in it.
func (w *World) ApplyForce(e Entity, f, at mgl64.Vec3) error {
	const op = "apply force"
	b, st, err := w.dynamicRigid(e, op)
	if err != nil {
		return err
	}
	if err := checkVec(op, b.Name, "force", f); err != nil {
		return err
	}
	if err := checkVec(op, b.Name, "point", at); err != nil {
		return err
	}
	w.addPending(b.ID, e, f, at.Sub(st.X).Cross(f))
	return nil
}

// ApplyTorque applies the torque t (N m, world axes) to a dynamic rigid body for the next Step
// only, as ApplyForce does.
func (w *World) ApplyTorque(e Entity, t mgl64.Vec3) error {
	const op = "apply torque"
	b, _, err := w.dynamicRigid(e, op)
	if err != nil {
		return err
	}
	if err := checkVec(op, b.Name, "torque", t); err != nil {
		return err
	}
	w.addPending(b.ID, e, mgl64.Vec3{}, t)
	return nil
}

func (w *World) addPending(id uint32, e Entity, f, t mgl64.Vec3) {
	i, found := slices.BinarySearchFunc(w.pending, id, func(p pendingLoad, id uint32) int { return cmp.Compare(p.id, id) })
	if found {
		w.pending[i].f = w.pending[i].f.Add(f)
		w.pending[i].torque = w.pending[i].torque.Add(t)
		return
	}
	w.pending = slices.Insert(w.pending, i, pendingLoad{id: id, e: e, f: f, torque: t})
}

// beginLoads adds the pending one-step forces to the bodies' held forces before a Step and
// returns the held values, which endLoads puts back exactly after it.
func (w *World) beginLoads() {
	w.held = w.held[:0]
	for _, p := range w.pending {
		rb := w.RigidBody(p.e)
		if rb == nil {
			continue
		}
		w.held = append(w.held, heldLoad{p.e, rb.State.Force, rb.State.Torque})
		rb.State.Force = rb.State.Force.Add(p.f)
		rb.State.Torque = rb.State.Torque.Add(p.torque)
	}
	w.pending = w.pending[:0]
}

// heldLoad is a body's held force and torque saved while a Step adds its one-step loads.
type heldLoad struct {
	e         Entity
	f, torque mgl64.Vec3
}

func (w *World) endLoads() {
	for _, h := range w.held {
		if rb := w.RigidBody(h.e); rb != nil {
			rb.State.Force, rb.State.Torque = h.f, h.torque
		}
	}
	w.held = w.held[:0]
}

// Event is something that happened to bodies during the last Step (see Events).
type Event struct {
	Kind systems.EventKind
	// A and B are the bodies: for contacts a rigid body and the other rigid body or wall,
	// in body creation order; for EnterFluid and LeaveFluid the rigid body, and B is zero.
	A, B Entity
	// Impulse (N s): for ContactBegin, the normal impulse between the two over the step.
	Impulse float64
	// Speed (m/s): for EnterFluid the body's largest speed during the step, its impact
	// speed when it fell in; for LeaveFluid its speed at the step's end.
	Speed float64
	// Sensor is the sensor of SensorBegin and SensorEnd (A is the body; the zero Entity
	// when the body was removed).
	Sensor SensorID
	// Count is the number of particles of body A that left the domain (LeftDomain).
	Count int
}

// Events returns what happened during the last Step, in a fixed order, the same for any
// number of workers:
//   - ContactBegin and ContactEnd between rigid bodies and between a rigid body and a wall
//     (two bodies touch when a contact between them carried an impulse in the step's last
//     substep), by pair;
//   - EnterFluid and LeaveFluid when a rigid body's submerged fraction leaves or returns to
//     0, by body;
//   - LeftDomain when particles of a body left the domain and were removed (Count; also in
//     StepStats.Removed), by body;
//   - EmitterDone when an emitter emitted its last particles, by body;
//   - SensorBegin and SensorEnd (sensor.go), by sensor, then body.
//
// After Remove, contacts of the remaining bodies begin anew at the next Step.
func (w *World) Events() []Event {
	evs := w.sim.Events()
	if len(evs) == 0 && len(w.worldEvents) == 0 {
		return nil
	}
	ents := map[uint32]Entity{}
	for _, b := range w.Bodies() {
		ents[b.Body.ID] = b.Entity
	}
	out := make([]Event, 0, len(evs)+len(w.worldEvents))
	for _, e := range evs {
		out = append(out, Event{Kind: e.Kind, A: ents[e.A], B: ents[e.B], Impulse: e.Impulse, Speed: e.Speed})
	}
	for _, e := range w.worldEvents {
		out = append(out, Event{Kind: e.kind, A: ents[e.body], Sensor: e.sensor, Count: e.count})
	}
	return out
}

// SetVelocity sets a rigid body's velocity v (m/s, its centre of mass) and angular velocity
// ω (rad/s, world axes): a kinematic body then moves with them, unpushed, until they are set
// again; a dynamic body starts from them (and wakes if it sleeps). A static body refuses.
func (w *World) SetVelocity(e Entity, v, omega mgl64.Vec3) error {
	const op = "set velocity"
	b, err := w.body(e, op)
	if err != nil {
		return err
	}
	rb := w.RigidBody(e)
	if rb == nil {
		return fmt.Errorf("%s: body %q is a %s body, not a rigid body", op, b.Name, b.Phase)
	}
	if rb.State.Motion == rigid.Static {
		return fmt.Errorf("%s: rigid body %q is static; make it kinematic to move it", op, b.Name)
	}
	if err := checkVec(op, b.Name, "velocity", v); err != nil {
		return err
	}
	if err := checkVec(op, b.Name, "angular velocity", omega); err != nil {
		return err
	}
	rb.State.V, rb.State.W = v, omega
	return nil
}

// MoveKinematic sets a kinematic rigid body's velocities so that it reaches the pose
// (position of its centre of mass, unit orientation quaternion) at the end of the next Step
// of length frameDt: v = Δx/Δt and ω the rotation from its orientation to q (the shorter way)
// over Δt. The substeps integrate both exactly (a constant ω turns the orientation by
// exp(ω Δt)), so the body arrives to round-off, and the fluid and the bodies it pushes see it
// move at that speed. It keeps the velocities afterwards until they are set again (call it
// every frame to follow an animation).
func (w *World) MoveKinematic(e Entity, pos mgl64.Vec3, q mgl64.Quat, frameDt float64) error {
	const op = "move kinematic"
	b, err := w.body(e, op)
	if err != nil {
		return err
	}
	rb := w.RigidBody(e)
	if rb == nil || rb.State.Motion != rigid.Kinematic {
		return fmt.Errorf("%s: body %q is not a kinematic rigid body", op, b.Name)
	}
	if err := checkVec(op, b.Name, "position", pos); err != nil {
		return err
	}
	if l := q.Len(); !(math.Abs(l-1) < 1e-6) {
		return fmt.Errorf("%s: body %q: orientation %v is not a unit quaternion (|q| = %g)", op, b.Name, q, l)
	}
	if !(frameDt > 0) || math.IsInf(frameDt, 0) {
		return fmt.Errorf("%s: body %q: frame time %g s must be finite and > 0", op, b.Name, frameDt)
	}
	st := &rb.State
	cur := mgl64.Quat{W: st.Q[0], V: mgl64.Vec3{st.Q[1], st.Q[2], st.Q[3]}}
	d := q.Mul(cur.Conjugate()) // world-frame rotation from now to the target
	if d.W < 0 {
		d = d.Scale(-1)
	}
	s := d.V.Len()
	var omega mgl64.Vec3
	if s > 0 {
		omega = d.V.Mul(2 * math.Atan2(s, d.W) / (s * frameDt))
	}
	st.V = pos.Sub(st.X).Mul(1 / frameDt)
	st.W = omega
	return nil
}
