package rigid

// Sleeping: a group of bodies at rest stops costing contact searches and solver passes until
// something disturbs it (the islands of Box2D and Bullet). Bodies connected by contacts or
// joints form an island; when every body of an island has moved slower than sleepSpeed for
// Params.SleepTime and something other than the water holds the island (a contact pushing on
// one of its bodies from a wall, a static, kinematic or sleeping body, or a joint to such a
// body or to the world), the island falls asleep: its velocities are zeroed, it is not
// integrated, and it is searched for contacts only against awake bodies. An island held up by
// the water alone, a floating crate, stays awake: slow is not at rest there. A light box placed
// at its draft fell asleep within its first half second, while the water it floated on was
// still settling by a millimetre, and stayed 0.86 mm (4 %) off its draft: the fluid's load had
// not changed by wakeLoad. It wakes, as a whole, when
//   - an awake dynamic body or a moving kinematic body makes a contact with one of its bodies,
//   - one of its bodies is given a velocity, an applied force or torque (World.ApplyImpulse
//     and friends set them),
//   - the fluid's load on one of its bodies departs from what it was when it fell asleep by
//     more than wakeLoad of the body's weight (water arriving, draining or flowing past),
//   - a joint ties it to an awake body.

const (
	// sleepSpeed (m/s) is the surface speed |v| + |ω|·reach below which a body counts as at
	// rest: a floating crate bobbing with a 1 mm amplitude at a 0.6 s period moves at 1 cm/s.
	sleepSpeed = 0.01
	// wakeLoad is the change of the fluid's force on a sleeping body, as a fraction of its
	// weight (and of its weight times its reach for the torque), that wakes it: above the
	// load's fluctuation in still water, below what a wave or a rising level brings.
	wakeLoad = 0.1
)

// asleep reports whether body i is a sleeping dynamic body.
func (s *Solver) asleep(i int) bool { b := &s.Bodies[i]; return b.Motion == Dynamic && b.Asleep }

// awake reports whether body i is a dynamic body that is awake.
func (s *Solver) awake(i int) bool { b := &s.Bodies[i]; return b.Motion == Dynamic && !b.Asleep }

// stirring reports whether body i can wake a sleeping body it touches: an awake dynamic body
// or a kinematic body that moves.
func (s *Solver) stirring(i int) bool {
	b := &s.Bodies[i]
	return s.awake(i) || (b.Motion == Kinematic && (b.V != Vec3{} || b.W != Vec3{}))
}

// wakeDisturbed wakes the islands of the sleeping bodies that were given a velocity or an
// applied load, or whose fluid load changed, before the substep integrates; it reports
// whether any woke.
func (s *Solver) wakeDisturbed() bool {
	woke := false
	for i := range s.Bodies {
		b := &s.Bodies[i]
		if b.Motion != Dynamic || !b.Asleep {
			continue
		}
		wg := norm(s.Gravity) * b.Mass
		if b.V != (Vec3{}) || b.W != (Vec3{}) || b.Force != (Vec3{}) || b.Torque != (Vec3{}) ||
			norm(sub(b.FluidForce, b.SleepForce)) > wakeLoad*wg ||
			norm(sub(b.FluidTorque, b.SleepTorque)) > wakeLoad*wg*b.Reach {
			s.wakeIsland(b.SleepIsland)
			woke = true
		}
	}
	for k := range s.Joints {
		j := &s.Joints[k]
		if j.B < 0 {
			continue
		}
		if s.asleep(j.A) && s.stirring(j.B) {
			s.wakeIsland(s.Bodies[j.A].SleepIsland)
			woke = true
		} else if s.asleep(j.B) && s.stirring(j.A) {
			s.wakeIsland(s.Bodies[j.B].SleepIsland)
			woke = true
		}
	}
	return woke
}

// wakeTouched wakes the islands of the sleeping bodies that this substep's contacts join to a
// stirring body; it reports whether any woke (the substep then integrates them and searches
// their contacts again).
func (s *Solver) wakeTouched() bool {
	woke := false
	for k := range s.contacts {
		c := &s.contacts[k]
		if c.a < 0 {
			continue
		}
		a, b := int(c.a), int(c.b)
		if s.asleep(a) && s.stirring(b) {
			s.wakeIsland(s.Bodies[a].SleepIsland)
			woke = true
		} else if s.asleep(b) && s.stirring(a) {
			s.wakeIsland(s.Bodies[b].SleepIsland)
			woke = true
		}
	}
	return woke
}

// wakeIsland wakes every sleeping body of the island numbered id.
func (s *Solver) wakeIsland(id int32) {
	for i := range s.Bodies {
		b := &s.Bodies[i]
		if b.Asleep && b.SleepIsland == id {
			b.Asleep, b.SlowTime = false, 0
		}
	}
}

// WakeAll wakes every body (after bodies are removed, their island numbers are stale).
func (s *Solver) WakeAll() {
	for i := range s.Bodies {
		s.Bodies[i].Asleep, s.Bodies[i].SlowTime = false, 0
	}
}

// updateSleep advances each awake body's slow time and puts to sleep the islands (contacts
// and joints between dynamic bodies) whose every body has been slow for SleepTime. An island
// is numbered by its lowest body index.
func (s *Solver) updateSleep(dt float64) {
	if s.SleepTime <= 0 {
		return
	}
	n := len(s.Bodies)
	s.sleepParent = resize(s.sleepParent, n)
	for i := range s.sleepParent {
		s.sleepParent[i] = int32(i)
	}
	union := func(a, b int) {
		ra, rb := findIn(s.sleepParent, int32(a)), findIn(s.sleepParent, int32(b))
		if ra != rb {
			s.sleepParent[max(ra, rb)] = min(ra, rb)
		}
	}
	for k := range s.contacts {
		c := &s.contacts[k]
		if c.a >= 0 && s.awake(int(c.a)) && s.awake(int(c.b)) {
			union(int(c.a), int(c.b))
		}
	}
	for k := range s.Joints {
		j := &s.Joints[k]
		if j.B >= 0 && s.awake(j.A) && s.awake(j.B) {
			union(j.A, j.B)
		}
	}
	// held: a body pushed on by a wall, a static, kinematic or sleeping body, or jointed to one
	s.sleepHeld = resize(s.sleepHeld, n)
	clear(s.sleepHeld)
	for k := range s.contacts {
		c := &s.contacts[k]
		if c.ln <= 0 {
			continue
		}
		if c.a < 0 || !s.awake(int(c.a)) {
			s.sleepHeld[c.b] = true
		} else if !s.awake(int(c.b)) {
			s.sleepHeld[c.a] = true
		}
	}
	for k := range s.Joints {
		j := &s.Joints[k]
		if j.B < 0 || !s.awake(j.B) {
			s.sleepHeld[j.A] = true
		} else if !s.awake(j.A) {
			s.sleepHeld[j.B] = true
		}
	}
	// the least slow time over each island, held at its root
	s.sleepMin = resize(s.sleepMin, n)
	for i := range s.Bodies {
		b := &s.Bodies[i]
		s.sleepMin[i] = 0
		if !s.awake(i) {
			continue
		}
		if norm(b.V)+norm(b.W)*b.Reach < sleepSpeed {
			b.SlowTime += dt
		} else {
			b.SlowTime = 0
		}
	}
	for i := range s.Bodies {
		if s.awake(i) {
			r := findIn(s.sleepParent, int32(i))
			if int32(i) == r {
				s.sleepMin[r] = s.Bodies[i].SlowTime
			}
		}
	}
	for i := range s.Bodies {
		if s.awake(i) {
			r := findIn(s.sleepParent, int32(i))
			s.sleepMin[r] = min(s.sleepMin[r], s.Bodies[i].SlowTime)
			s.sleepHeld[r] = s.sleepHeld[r] || s.sleepHeld[i]
		}
	}
	for i := range s.Bodies {
		if !s.awake(i) {
			continue
		}
		r := findIn(s.sleepParent, int32(i))
		if s.sleepMin[r] < s.SleepTime || !s.sleepHeld[r] {
			continue
		}
		b := &s.Bodies[i]
		b.Asleep, b.SleepIsland = true, r
		b.V, b.W = Vec3{}, Vec3{}
		b.SleepForce, b.SleepTorque = b.FluidForce, b.FluidTorque
	}
}

// findIn returns the root of i's set in parent, halving the path on the way.
func findIn(parent []int32, i int32) int32 {
	for parent[i] != i {
		parent[i] = parent[parent[i]]
		i = parent[i]
	}
	return i
}
