package systems

import (
	"cmp"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// SimJoint is a joint between the rigid bodies with IDs A and B (B = 0: the world), with its
// solver state; the anchors and axes of J are in the bodies' frames, its body indices are
// set at each Gather.
type SimJoint struct {
	ID   uint32
	A, B uint32
	J    rigid.Joint
	// Schedule, when not empty, sets the motor's speed at every substep (Repeat: wrapped);
	// see components.ScheduledSpeed.
	Schedule []components.MotorKey
	Repeat   bool
}

// gatherJoints gives the contact solver the joints whose bodies are present, with the bodies'
// indices of this step, in joint ID order. It reports the joints dropped because a body is
// gone.
func (s *Sim) gatherJoints() {
	s.Rigid.Joints = s.Rigid.Joints[:0]
	// rigidSlots follow s.bodies, which are sorted by ID
	index := func(id uint32) int {
		k, ok := slices.BinarySearchFunc(s.rigidSlots, id, func(slot int, id uint32) int { return cmp.Compare(s.bodies[slot].body.ID, id) })
		if !ok {
			return -1
		}
		return k
	}
	keep := s.Joints[:0]
	for _, sj := range s.Joints {
		a := index(sj.A)
		b := -1
		if sj.B != 0 {
			b = index(sj.B)
		}
		if a < 0 || (sj.B != 0 && b < 0) {
			continue // a body went: the joint goes too
		}
		keep = append(keep, sj)
		j := sj.J
		j.A, j.B = a, b
		s.Rigid.Joints = append(s.Rigid.Joints, j)
	}
	s.Joints = keep
}

// scheduleMotors sets the motors that follow a schedule to their speed at time t.
func (s *Sim) scheduleMotors(t float64) {
	for k := range s.Joints {
		if sj := &s.Joints[k]; len(sj.Schedule) > 0 && k < len(s.Rigid.Joints) {
			s.Rigid.Joints[k].MotorSpeed = components.ScheduledSpeed(sj.Schedule, sj.Repeat, t)
		}
	}
}

// scatterJoints keeps the joints' accumulated impulses for the next step's warm start.
func (s *Sim) scatterJoints() {
	for k := range s.Joints {
		if k < len(s.Rigid.Joints) {
			sj, rj := &s.Joints[k].J, &s.Rigid.Joints[k]
			sj.Lambda, sj.Motor, sj.LimitLower, sj.LimitUpper = rj.Lambda, rj.Motor, rj.LimitLower, rj.LimitUpper
		}
	}
}

// AddJoint adds a joint and returns its ID (IDs count up from 1 and are never reused).
func (s *Sim) AddJoint(a, b uint32, j rigid.Joint, schedule []components.MotorKey, repeat bool) uint32 {
	s.jointSeq++
	s.Joints = append(s.Joints, SimJoint{ID: s.jointSeq, A: a, B: b, J: j, Schedule: schedule, Repeat: repeat})
	return s.jointSeq
}

// RemoveJoint removes the joint with the given ID and reports whether there was one.
func (s *Sim) RemoveJoint(id uint32) bool {
	i, ok := slices.BinarySearchFunc(s.Joints, id, func(j SimJoint, id uint32) int { return cmp.Compare(j.ID, id) })
	if ok {
		s.Joints = slices.Delete(s.Joints, i, i+1)
	}
	return ok
}

// DropJointsOf removes the joints of the body with the given ID.
func (s *Sim) DropJointsOf(id uint32) {
	s.Joints = slices.DeleteFunc(s.Joints, func(j SimJoint) bool { return j.A == id || j.B == id })
}

// JointSeq returns the last joint ID given.
func (s *Sim) JointSeq() uint32 { return s.jointSeq }

// RestoreJoints sets the joints and the ID sequence of a restored world.
func (s *Sim) RestoreJoints(js []SimJoint, seq uint32) {
	s.Joints, s.jointSeq = js, seq
}
