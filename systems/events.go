package systems

import (
	"cmp"
	"slices"

	"github.com/sluicephysics/sluice/physics/rigid"
)

// EventKind says what happened.
type EventKind uint8

const (
	// ContactBegin: two bodies (rigid–rigid, or a rigid body and a wall) pushed on each other
	// at the end of this step and did not at the end of the last one. Impulse is the normal
	// impulse between them summed over this step's substeps.
	ContactBegin EventKind = iota + 1
	// ContactEnd: they pushed on each other at the end of the last step and no longer do.
	ContactEnd
	// EnterFluid: a rigid body's submerged fraction rose from 0 (a splash). Speed is the
	// largest speed of its centre of mass during the step: a falling body's speed at impact.
	EnterFluid
	// LeaveFluid: its submerged fraction fell to 0. Speed is its speed at the step's end.
	LeaveFluid
	// SensorBegin: a body reaches into a sensor's region at the end of this step and did not
	// at the end of the last one (the World's sensors).
	SensorBegin
	// SensorEnd: a body that reached into a sensor's region no longer does, or was removed.
	SensorEnd
	// LeftDomain: particles of a body left the simulation domain during the step and were
	// removed (the World's event; Count says how many).
	LeftDomain
	// EmitterDone: an emitter emitted its last particles: its budget is spent or its stop
	// time has passed (the World's event).
	EmitterDone
)

// String names the kind.
func (k EventKind) String() string {
	switch k {
	case ContactBegin:
		return "contactBegin"
	case ContactEnd:
		return "contactEnd"
	case EnterFluid:
		return "enterFluid"
	case LeaveFluid:
		return "leaveFluid"
	case SensorBegin:
		return "sensorBegin"
	case SensorEnd:
		return "sensorEnd"
	case LeftDomain:
		return "leftDomain"
	case EmitterDone:
		return "emitterDone"
	}
	return "unknown"
}

// Event is something that happened to bodies during a step. A and B are body IDs
// (components.Body.ID); B is 0 for the fluid events. Events come in a fixed order: contact
// begins and ends by pair, then fluid events by body.
type Event struct {
	Kind    EventKind
	A, B    uint32
	Impulse float64 // N s
	Speed   float64 // m/s
}

// pairImpulse is a pair of body IDs (A < B) and an impulse.
type pairImpulse struct {
	a, b    uint32
	impulse float64
}

func cmpPair(x, y pairImpulse) int {
	if x.a != y.a {
		return cmp.Compare(x.a, y.a)
	}
	return cmp.Compare(x.b, y.b)
}

// touchIDs maps the solver's touching pairs (indices) to pairs of body IDs, sorted, one each.
func (s *Sim) touchIDs(ts []rigid.Touch, imp []float64, out []pairImpulse) []pairImpulse {
	out = out[:0]
	for n, t := range ts {
		var a uint32
		if t.A < 0 {
			a = s.bodies[s.bSlots[s.bOwner[t.Sample]]].body.ID
		} else {
			a = s.bodies[s.rigidSlots[t.A]].body.ID
		}
		b := s.bodies[s.rigidSlots[t.B]].body.ID
		if a > b {
			a, b = b, a
		}
		p := pairImpulse{a: a, b: b}
		if imp != nil {
			p.impulse = imp[n]
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, cmpPair)
	// merge the contacts of one pair, summing impulses in their sorted order
	m := 0
	for i := range out {
		if m > 0 && out[m-1].a == out[i].a && out[m-1].b == out[i].b {
			out[m-1].impulse += out[i].impulse
			continue
		}
		out[m] = out[i]
		m++
	}
	return out[:m]
}

// beginEvents records, at the start of a step (after Gather), which pairs touched at the end
// of the last one, and clears the step's accumulators.
func (s *Sim) beginEvents() {
	s.events = s.events[:0]
	s.stepImp = s.stepImp[:0]
	s.touches = s.Rigid.Touching(s.touches[:0])
	s.prevTouch = s.touchIDs(s.touches, nil, s.prevTouch)
	s.speedMax = s.speedMax[:0]
	for k := range s.Rigid.Bodies {
		s.speedMax = append(s.speedMax, s.Rigid.Bodies[k].V.Len())
	}
}

// substepEvents adds a substep's contact impulses and the bodies' speeds after it.
func (s *Sim) substepEvents() {
	s.impulses = s.Rigid.Impulses(s.impulses[:0])
	s.touches, s.impScratch = s.touches[:0], s.impScratch[:0]
	for _, ti := range s.impulses {
		s.touches = append(s.touches, ti.Touch)
		s.impScratch = append(s.impScratch, ti.Impulse)
	}
	s.pairScratch = s.touchIDs(s.touches, s.impScratch, s.pairScratch)
	s.stepImp = append(s.stepImp, s.pairScratch...)
	for k := range s.Rigid.Bodies {
		if k < len(s.speedMax) {
			s.speedMax[k] = max(s.speedMax[k], s.Rigid.Bodies[k].V.Len())
		}
	}
}

// endContactEvents compares the pairs touching now with those at the end of the last step.
func (s *Sim) endContactEvents() {
	s.touches = s.Rigid.Touching(s.touches[:0])
	cur := s.touchIDs(s.touches, nil, s.curTouch)
	s.curTouch = cur
	slices.SortStableFunc(s.stepImp, cmpPair)
	sum := func(p pairImpulse) float64 {
		i, _ := slices.BinarySearchFunc(s.stepImp, p, cmpPair)
		t := 0.0
		for ; i < len(s.stepImp) && s.stepImp[i].a == p.a && s.stepImp[i].b == p.b; i++ {
			t += s.stepImp[i].impulse
		}
		return t
	}
	i, j := 0, 0
	for i < len(s.prevTouch) || j < len(cur) {
		switch {
		case j == len(cur) || (i < len(s.prevTouch) && cmpPair(s.prevTouch[i], cur[j]) < 0):
			s.events = append(s.events, Event{Kind: ContactEnd, A: s.prevTouch[i].a, B: s.prevTouch[i].b})
			i++
		case i == len(s.prevTouch) || cmpPair(cur[j], s.prevTouch[i]) < 0:
			s.events = append(s.events, Event{Kind: ContactBegin, A: cur[j].a, B: cur[j].b, Impulse: sum(cur[j])})
			j++
		default:
			i++
			j++
		}
	}
}

// fluidEvent records a rigid body's entry into or exit from the water, given its submerged
// fraction at the end of the last step and now.
func (s *Sim) fluidEvent(k int, id uint32, before, now float64) {
	switch {
	case before == 0 && now > 0:
		v := s.Rigid.Bodies[k].V.Len()
		if k < len(s.speedMax) {
			v = s.speedMax[k]
		}
		s.events = append(s.events, Event{Kind: EnterFluid, A: id, Speed: v})
	case before > 0 && now == 0:
		s.events = append(s.events, Event{Kind: LeaveFluid, A: id, Speed: s.Rigid.Bodies[k].V.Len()})
	}
}

// Events returns the events of the last step, in their fixed order. The slice is reused by
// the next step.
func (s *Sim) Events() []Event { return s.events }
