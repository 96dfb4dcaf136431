package sluice

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/systems"
)

// JointDef describes a joint between two rigid bodies, or a rigid body and the world, as the
// bodies stand when it is added: components.Joint, where its parameters are declared.
type JointDef = components.Joint

// jointReach: a joint's anchor may lie at most this many times a body's reach (the largest
// distance of its surface from its centre of mass) from the body's centre of mass.
const jointReach = 10

// JointID names a joint of a World.
type JointID uint32

// AddJoint joins rigid body a to rigid body b, or to the world when b is the zero Entity. At
// least one of the bodies must be dynamic, and a and b must differ. The joint is solved with
// the contacts (see physics/rigid.Joint); it goes when either body is removed.
func (w *World) AddJoint(a, b Entity, def JointDef) (JointID, error) {
	const op = "add joint"
	ba, err := w.body(a, op)
	if err != nil {
		return 0, err
	}
	ra := w.RigidBody(a)
	if ra == nil {
		return 0, fmt.Errorf("%s: body %q is a %s body, not a rigid body", op, ba.Name, ba.Phase)
	}
	var rb *rigid.Body
	idB := uint32(0)
	nameB := "the world"
	if b != (Entity{}) {
		bb, err := w.body(b, op)
		if err != nil {
			return 0, err
		}
		if b == a {
			return 0, fmt.Errorf("%s: body %q is joined to itself", op, ba.Name)
		}
		r := w.RigidBody(b)
		if r == nil {
			return 0, fmt.Errorf("%s: body %q is a %s body, not a rigid body", op, bb.Name, bb.Phase)
		}
		rb, idB, nameB = &r.State, bb.ID, fmt.Sprintf("%q", bb.Name)
	}
	if ra.State.Motion != rigid.Dynamic && (rb == nil || rb.Motion != rigid.Dynamic) {
		return 0, fmt.Errorf("%s: neither %q nor %s is dynamic: the joint would hold nothing", op, ba.Name, nameB)
	}
	path := fmt.Sprintf("joint of %q and %s", ba.Name, nameB)
	j := rigid.Joint{}
	switch def.Kind {
	case "ball":
		j.Kind = rigid.Ball
	case "hinge":
		j.Kind = rigid.Hinge
	case "fixed":
		j.Kind = rigid.Fixed
	case "slider":
		j.Kind = rigid.Slider
	default:
		return 0, fmt.Errorf("%s: kind %q is not a joint (ball, hinge, fixed or slider)", path, def.Kind)
	}
	if !physics.Finite(def.Anchor) {
		return 0, fmt.Errorf("%s: anchor %v is not finite", path, def.Anchor)
	}
	if !finite(def.MotorSpeed) || !finite(def.MotorMaxTorque) || def.MotorMaxTorque < 0 || !finite(def.MotorMaxForce) || def.MotorMaxForce < 0 {
		return 0, fmt.Errorf("%s: motor speed %g, max torque %g N m and max force %g N must be finite, the torque and force ≥ 0", path, def.MotorSpeed, def.MotorMaxTorque, def.MotorMaxForce)
	}
	if def.MotorMaxTorque > 0 && j.Kind != rigid.Hinge {
		return 0, fmt.Errorf("%s: a torque motor (max torque %g N m) drives a hinge only, this joint is a %s", path, def.MotorMaxTorque, def.Kind)
	}
	if def.MotorMaxForce > 0 && j.Kind != rigid.Slider {
		return 0, fmt.Errorf("%s: a force motor (max force %g N) drives a slider only, this joint is a %s", path, def.MotorMaxForce, def.Kind)
	}
	for k, key := range def.MotorSchedule {
		if !finite(key.Time) || !finite(key.Speed) || key.Time < 0 || (k > 0 && !(key.Time > def.MotorSchedule[k-1].Time)) {
			return 0, fmt.Errorf("%s: motorSchedule[%d] (time %g s, speed %g) must be finite, its time ≥ 0 and after the key before", path, k, key.Time, key.Speed)
		}
	}
	if len(def.MotorSchedule) > 0 && def.MotorMaxTorque == 0 && def.MotorMaxForce == 0 {
		return 0, fmt.Errorf("%s: a motorSchedule needs a motor: give motorMaxTorque (hinge) or motorMaxForce (slider)", path)
	}
	if def.Limited {
		switch {
		case j.Kind != rigid.Hinge && j.Kind != rigid.Slider:
			return 0, fmt.Errorf("%s: limits apply to a hinge or a slider, this joint is a %s", path, def.Kind)
		case !finite(def.Lower) || !finite(def.Upper) || def.Lower > 0 || def.Upper < 0:
			return 0, fmt.Errorf("%s: limits [%g, %g] must be finite and contain 0, the pose the joint is added in", path, def.Lower, def.Upper)
		case j.Kind == rigid.Hinge && (def.Lower < -math.Pi || def.Upper > math.Pi):
			return 0, fmt.Errorf("%s: hinge limits [%g, %g] rad must lie within [−π, π]", path, def.Lower, def.Upper)
		}
		j.Limited, j.Lower, j.Upper = true, def.Lower, def.Upper
	}
	// An anchor far outside a body is a mistake more often than a design (a long invisible
	// lever): refused beyond jointReach of the body's reach from its centre of mass.
	for _, c := range []struct {
		name string
		st   *rigid.Body
	}{{ba.Name, &ra.State}, {nameB, rb}} {
		if c.st == nil {
			continue
		}
		if d := def.Anchor.Sub(c.st.X).Len(); d > jointReach*c.st.Reach {
			return 0, fmt.Errorf("%s: anchor %v is %.3g m from %s's centre of mass, beyond %g times its reach (%.3g m): put the anchor on or near the body", path, def.Anchor, d, c.name, float64(jointReach), c.st.Reach)
		}
	}
	// Anchors and axes in each body's frame: r_body = Rᵀ (p − x).
	sa := &ra.State
	qa := sa.Q.Matrix()
	j.AnchorA = qa.MulTVec(def.Anchor.Sub(sa.X))
	j.AnchorB = def.Anchor
	var qb rigid.Mat3
	if rb != nil {
		qb = rb.Q.Matrix()
		j.AnchorB = qb.MulTVec(def.Anchor.Sub(rb.X))
	}
	if j.Kind == rigid.Hinge || j.Kind == rigid.Slider {
		l := def.Axis.Len()
		if !physics.Finite(def.Axis) || !(l > 0) {
			return 0, fmt.Errorf("%s: %s axis %v must be finite and not zero", path, def.Kind, def.Axis)
		}
		ax := def.Axis.Mul(1 / l)
		// a unit vector across the axis, kept by each body: the hinge's angle is zero now
		ref := ax.Cross(mgl64.Vec3{1, 0, 0})
		if ref.Len() < 0.5 {
			ref = ax.Cross(mgl64.Vec3{0, 1, 0})
		}
		ref = ref.Normalize()
		j.AxisA, j.AxisB = qa.MulTVec(ax), ax
		j.RefA, j.RefB = qa.MulTVec(ref), ref
		if rb != nil {
			j.AxisB, j.RefB = qb.MulTVec(ax), qb.MulTVec(ref)
		}
		j.MotorSpeed, j.MotorMax = def.MotorSpeed, def.MotorMaxTorque+def.MotorMaxForce
	}
	if j.Kind == rigid.Fixed || j.Kind == rigid.Slider {
		// q_A⁻¹ q_B at rest
		q := sa.Q
		inv := rigid.Quat{q[0], -q[1], -q[2], -q[3]}
		j.RelQ = inv
		if rb != nil {
			j.RelQ = inv.Mul(rb.Q)
		}
	}
	if math.IsNaN(j.AnchorA[0]) {
		return 0, fmt.Errorf("%s: the body's pose is not finite", path)
	}
	if len(def.MotorSchedule) > 0 {
		j.MotorSpeed = components.ScheduledSpeed(def.MotorSchedule, def.RepeatSchedule, w.Time())
	}
	return JointID(w.sim.AddJoint(ba.ID, idB, j, slices.Clone(def.MotorSchedule), def.RepeatSchedule)), nil
}

// RemoveJoint removes a joint; an ID that names no joint (removed, or gone with its body) is
// an error.
func (w *World) RemoveJoint(id JointID) error {
	if !w.sim.RemoveJoint(uint32(id)) {
		return fmt.Errorf("remove joint: no joint %d (removed, or gone with one of its bodies)", id)
	}
	return nil
}

// JointCount returns the number of joints.
func (w *World) JointCount() int { return len(w.sim.Joints) }

// saveJoints writes the joints: the sequence of IDs, then per joint its ID, body IDs, kind,
// anchors, axes, rest orientation, motor and accumulated impulses (the warm start), so a
// restored world continues bit-identically.
func (w *World) saveJoints(e *enc) {
	s := w.sim
	e.u32(s.JointSeq())
	e.u64(uint64(len(s.Joints)))
	for _, sj := range s.Joints {
		j := &sj.J
		e.u32(sj.ID)
		e.u32(sj.A)
		e.u32(sj.B)
		e.u32(uint32(j.Kind))
		e.vecs([]mgl64.Vec3{j.AnchorA, j.AnchorB, j.AxisA, j.AxisB})
		e.floats(j.RelQ[:])
		e.floats([]float64{j.MotorSpeed, j.MotorMax, j.Motor})
		e.floats(j.Lambda[:])
	}
}

// saveJointLimits writes what version 9 added to the joints, in saveJoints' order: per joint
// its reference vectors across the axis, whether it is limited, its limits and their
// accumulated impulses, and its motor schedule.
func (w *World) saveJointLimits(e *enc) {
	for _, sj := range w.sim.Joints {
		j := &sj.J
		e.vecs([]mgl64.Vec3{j.RefA, j.RefB})
		lim := 0.0
		if j.Limited {
			lim = 1
		}
		e.floats([]float64{lim, j.Lower, j.Upper, j.LimitLower, j.LimitUpper})
		rep := 0.0
		if sj.Repeat {
			rep = 1
		}
		e.u64(uint64(len(sj.Schedule)))
		for _, k := range sj.Schedule {
			e.floats([]float64{k.Time, k.Speed})
		}
		e.f64(rep)
	}
}

// saveRigidSleep writes what version 9 added to the rigid bodies, in saveRigid's order: per
// body its ID, whether it sleeps, how long it has been at rest, its island and the fluid load
// it fell asleep with.
func (w *World) saveRigidSleep(e *enc) {
	var n uint64
	for _, b := range w.Bodies() {
		if w.RigidBody(b.Entity) != nil {
			n++
		}
	}
	e.u64(n)
	for _, b := range w.Bodies() {
		rb := w.RigidBody(b.Entity)
		if rb == nil {
			continue
		}
		st := &rb.State
		e.u32(b.Body.ID)
		asleep := 0.0
		if st.Asleep {
			asleep = 1
		}
		e.floats([]float64{asleep, st.SlowTime, float64(st.SleepIsland)})
		e.vecs([]mgl64.Vec3{st.SleepForce, st.SleepTorque})
	}
}

// savedSleep is one rigid body's sleep state read from a snapshot.
type savedSleep struct {
	id uint32
	f  []float64
	v  []mgl64.Vec3
}

// readRigidSleep reads what saveRigidSleep wrote.
func readRigidSleep(d *dec) []savedSleep {
	n := d.count(4 + 3*8 + 6*8)
	out := make([]savedSleep, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, savedSleep{id: d.u32(), f: d.floats(3), v: d.vecs(2)})
	}
	return out
}

// restoreRigidSleep gives the restored rigid bodies their sleep state.
func (w *World) restoreRigidSleep(saved []savedSleep) error {
	for _, ss := range saved {
		var rb *components.RigidBody
		for _, b := range w.Bodies() {
			if b.Body.ID == ss.id {
				rb = w.RigidBody(b.Entity)
			}
		}
		if rb == nil {
			return fmt.Errorf("%w: sleep state of body ID %d matches no rigid body", ErrSnapshot, ss.id)
		}
		st := &rb.State
		st.Asleep, st.SlowTime, st.SleepIsland = ss.f[0] != 0, ss.f[1], int32(ss.f[2])
		st.SleepForce, st.SleepTorque = ss.v[0], ss.v[1]
	}
	return nil
}

// readJointLimits reads what saveJointLimits wrote into joints.
func readJointLimits(d *dec, joints []systems.SimJoint) error {
	for k0 := range joints {
		j := &joints[k0].J
		v := d.vecs(2)
		f := d.floats(5)
		if d.err != nil {
			return d.err
		}
		j.RefA, j.RefB = v[0], v[1]
		j.Limited, j.Lower, j.Upper, j.LimitLower, j.LimitUpper = f[0] != 0, f[1], f[2], f[3], f[4]
		n := d.count(16)
		for i := 0; i < n && d.err == nil; i++ {
			k := d.floats(2)
			if d.err == nil {
				joints[k0].Schedule = append(joints[k0].Schedule, components.MotorKey{Time: k[0], Speed: k[1]})
			}
		}
		joints[k0].Repeat = d.f64() != 0
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

// readJoints reads what saveJoints wrote.
func readJoints(d *dec) ([]systems.SimJoint, uint32, error) {
	seq := d.u32()
	n := d.count(4)
	var joints []systems.SimJoint
	for i := 0; i < n && d.err == nil; i++ {
		sj := systems.SimJoint{ID: d.u32(), A: d.u32(), B: d.u32()}
		j := &sj.J
		j.Kind = rigid.JointKind(d.u32())
		v := d.vecs(4)
		q := d.floats(4)
		m := d.floats(3)
		l := d.floats(6)
		if d.err != nil {
			break
		}
		j.AnchorA, j.AnchorB, j.AxisA, j.AxisB = v[0], v[1], v[2], v[3]
		copy(j.RelQ[:], q)
		j.MotorSpeed, j.MotorMax, j.Motor = m[0], m[1], m[2]
		copy(j.Lambda[:], l)
		if j.Kind < rigid.Ball || j.Kind > rigid.Slider {
			return nil, 0, fmt.Errorf("%w: joint %d has kind %d", ErrSnapshot, sj.ID, j.Kind)
		}
		joints = append(joints, sj)
	}
	return joints, seq, d.err
}

// restoreJoints gives a restored world its joints, once its bodies are there; a joint whose
// bodies are not rigid bodies of the snapshot is an error.
func (w *World) restoreJoints(joints []systems.SimJoint, seq uint32) error {
	ids := map[uint32]bool{}
	for _, b := range w.Bodies() {
		if w.RigidBody(b.Entity) != nil {
			ids[b.Body.ID] = true
		}
	}
	for _, sj := range joints {
		if !ids[sj.A] || (sj.B != 0 && !ids[sj.B]) {
			return fmt.Errorf("%w: joint %d joins bodies %d and %d, which are not both rigid bodies of the snapshot", ErrSnapshot, sj.ID, sj.A, sj.B)
		}
	}
	w.sim.RestoreJoints(joints, seq)
	return nil
}
