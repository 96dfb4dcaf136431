package sluice

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// JointDef describes a joint between two rigid bodies, or a rigid body and the world, as the
// bodies stand when it is added.
type JointDef struct {
	// Kind is "ball" (the bodies turn freely about the anchor), "hinge" (they turn about
	// Axis through the anchor only) or "fixed" (they move as one).
	Kind string
	// Anchor is the world point joined (m); each body keeps it at the place of its own frame
	// where it is now.
	Anchor mgl64.Vec3
	// Axis is the hinge's axis in world axes now (any length but zero); each body keeps it
	// in its own frame.
	Axis mgl64.Vec3
	// MotorSpeed (rad/s) and MotorMaxTorque (N m ≥ 0; 0: no motor): a hinge's velocity motor
	// drives body A's spin relative to B about the axis (right-handed) to MotorSpeed with at
	// most MotorMaxTorque.
	MotorSpeed, MotorMaxTorque float64
}

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
	default:
		return 0, fmt.Errorf("%s: kind %q is not a joint (ball, hinge or fixed)", path, def.Kind)
	}
	if !physics.Finite(def.Anchor) {
		return 0, fmt.Errorf("%s: anchor %v is not finite", path, def.Anchor)
	}
	if !finite(def.MotorSpeed) || !finite(def.MotorMaxTorque) || def.MotorMaxTorque < 0 {
		return 0, fmt.Errorf("%s: motor speed %g rad/s and max torque %g N m must be finite, the torque ≥ 0", path, def.MotorSpeed, def.MotorMaxTorque)
	}
	if def.MotorMaxTorque > 0 && j.Kind != rigid.Hinge {
		return 0, fmt.Errorf("%s: a motor (max torque %g N m) drives a hinge only, this joint is a %s", path, def.MotorMaxTorque, def.Kind)
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
	if j.Kind == rigid.Hinge {
		l := def.Axis.Len()
		if !physics.Finite(def.Axis) || !(l > 0) {
			return 0, fmt.Errorf("%s: hinge axis %v must be finite and not zero", path, def.Axis)
		}
		ax := def.Axis.Mul(1 / l)
		j.AxisA, j.AxisB = qa.MulTVec(ax), ax
		if rb != nil {
			j.AxisB = qb.MulTVec(ax)
		}
		j.MotorSpeed, j.MotorMaxTorque = def.MotorSpeed, def.MotorMaxTorque
	}
	if j.Kind == rigid.Fixed {
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
	return JointID(w.sim.AddJoint(ba.ID, idB, j)), nil
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
