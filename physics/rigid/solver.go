package rigid

import (
	"cmp"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/physics"
)

// Motion says how a body moves.
type Motion uint8

const (
	// Static bodies never move.
	Static Motion = iota
	// Kinematic bodies move with the velocities their owner sets (a scripted paddle): the
	// fluid and other bodies push against them, they are not pushed back.
	Kinematic
	// Dynamic bodies move under gravity, the fluid's pressure, contacts and applied forces.
	Dynamic
)

// String returns the motion's scene name.
func (m Motion) String() string {
	switch m {
	case Static:
		return "static"
	case Kinematic:
		return "kinematic"
	case Dynamic:
		return "dynamic"
	}
	return "motion(?)"
}

// Body is the solver's state of one rigid body. X is the centre of mass, the body frame's
// origin; Q turns body axes into world axes.
type Body struct {
	Motion      Motion
	Shape       *Shape
	Mass        float64
	Inertia     Mat3 // about the centre of mass, body axes (kg m²)
	InvMass     float64
	InvInertia  Mat3 // body axes; zero for static and kinematic bodies
	X           Vec3
	Q           Quat
	V, W        Vec3    // linear and angular velocity (world)
	LinDamping  float64 // 1/s
	AngDamping  float64 // 1/s
	Friction    float64 // Coulomb μ
	Restitution float64
	// With Filter, Layers and Mask filter contacts: bodies a and b touch when a.Layers&b.Mask
	// and b.Layers&a.Mask are both non-zero (a body without Filter is on every layer and
	// touches every layer); a body touches the static walls (layer bit 0) when Mask&1 is
	// non-zero.
	Filter       bool
	Layers, Mask uint32
	Force        Vec3 // applied force (N, world, through the centre of mass), held until changed
	Torque       Vec3 // applied torque (N m, world)
	// PlaneNormal, when non-zero (a unit vector), makes a dynamic body planar: it translates
	// in the plane through its centre of mass normal to PlaneNormal and turns about
	// PlaneNormal only, exactly (planar.go).
	PlaneNormal Vec3

	// FluidForce and FluidTorque are the fluid's pressure force on the body's samples in the
	// current substep (about the centre of mass), set by PressureForces.
	FluidForce, FluidTorque Vec3

	Samples []Vec3 // boundary samples, body frame, the Outer samples of the first layer first
	Outer   int
	Reach   float64 // largest distance of the surface from the centre of mass (m)

	// Sleep state (sleep.go): an Asleep body does not move and is searched for contacts only
	// against awake bodies; SlowTime is how long (s) it has been slower than sleepSpeed,
	// SleepIsland the island it fell asleep with (its lowest body index), SleepForce and
	// SleepTorque the fluid's load on it then.
	Asleep                  bool
	SlowTime                float64
	SleepIsland             int32
	SleepForce, SleepTorque Vec3

	r    Mat3 // rotation of Q, this substep
	invI Mat3 // world inverse inertia, this substep

	// The principal axes (columns) and moments of Inertia, for the torque-free rotation
	// (rotation.go); recomputed when Inertia changes.
	principalAxes    Mat3
	principalMoments Vec3
	principalFor     Mat3
	principalSet     bool
}

// Frame returns the body's rotation matrix for its current orientation.
func (b *Body) Frame() Mat3 { return b.Q.Matrix() }

// ToWorld returns the world position of a body-frame point.
func (b *Body) ToWorld(p Vec3) Vec3 {
	r := b.Q.Matrix()
	return add(b.X, r.MulVec(p))
}

// PointVelocity returns the velocity of the body's material point at world position p.
func (b *Body) PointVelocity(p Vec3) Vec3 { return add(b.V, cross(b.W, sub(p, b.X))) }

// Params are the contact solver's settings.
type Params struct {
	Iterations int     // velocity iterations per substep (with position bias)
	Relax      int     // iterations after the position update, without bias
	Radius     float64 // radius of every sample (half the particle spacing, m)
	Gravity    Vec3
	SleepTime  float64 // s an island must stay at rest before it sleeps (sleep.go); 0: never
}

// Contact constants. A contact is speculative while its surfaces are still apart: it lets the
// bodies close the gap within the substep but not pass (Catto's speculative contacts), so a
// fast body cannot tunnel through a wall one spacing thick.
const (
	// baumgarte is the fraction of a penetration removed per substep through the bias
	// velocity; the relax iterations afterwards take the bias energy back out (Box2D v3's soft
	// step), so pushing out does not make bodies jump.
	baumgarte = 0.2
	// slopFraction of the sample radius is left as allowed penetration so resting contacts do
	// not flicker in and out.
	slopFraction = 0.1
	// restitutionThreshold (m/s): slower approaches do not bounce, so resting contacts stay at
	// rest.
	restitutionThreshold = 0.5
	// speculativeFraction of the sample radius is the least margin at which contacts are kept.
	speculativeFraction = 0.5
	// maxPushOut (m/s) caps the bias velocity, so a body placed deep inside another is
	// separated over several substeps instead of being shot out.
	maxPushOut = 1.0
)

// contact is one sample of body a (or a static wall sample when a < 0) against the surface of
// body b. n points from b towards a; impulses push a along +n and b along −n.
type contact struct {
	key        uint64
	a, b       int32
	n          Vec3
	ra, rb     Vec3 // contact point relative to the centres of mass
	va         Vec3 // velocity of a static wall sample (a < 0)
	d          float64
	mn, m1, m2 float64
	t1, t2     Vec3
	ln, l1, l2 float64
	vn0        float64
	maxLn      float64
	mu, e      float64
}

// Solver integrates the bodies and resolves their contacts. Its results depend only on the
// order of Bodies and of the static samples, never on worker counts: contacts are generated
// and solved sequentially in a fixed order.
type Solver struct {
	Params
	Bodies []Body
	// Joints between Bodies (joint.go), solved with the contacts.
	Joints []Joint

	staticX, staticV []Vec3
	static           physics.PointIndex
	contacts         []contact
	cache            []cached
	scratch          []int32

	// joint islands (island.go), rebuilt every substep in reused storage
	islands                            []jointIsland
	parent, islandOf, jointIsland      []int32
	islandJoints                       []int32
	islandFactor, islandRHS, islandTmp []float64

	islandRows  int // when > 0, a lower bound than maxIslandRows (tests: the per-joint path)
	sleepParent []int32
	sleepMin    []float64
	sleepHeld   []bool // per body, then per island root: held by more than the water
	queries     int    // signed-distance evaluations of the last contact search
}

type cached struct {
	key        uint64
	ln, l1, l2 float64
}

// Contacts returns the number of contacts of the last substep.
func (s *Solver) Contacts() int { return len(s.contacts) }

// ContactsOf returns the number of contacts of body k in the last substep.
func (s *Solver) ContactsOf(k int) int {
	n := 0
	for i := range s.contacts {
		if int(s.contacts[i].a) == k || int(s.contacts[i].b) == k {
			n++
		}
	}
	return n
}

// SetStatic gives the solver the wall samples that dynamic bodies collide with: the entries
// ids of x and v (positions and velocities, kept by reference), indexed in cells of the given
// size. Call it again when the walls move.
func (s *Solver) SetStatic(x, v []Vec3, ids []int32, cell float64) {
	s.staticX, s.staticV = x, v
	s.static.Build(x, ids, cell)
}

// DistanceQueries returns the number of signed-distance evaluations of the last substep's
// contact search, the bulk of a resting body's cost.
func (s *Solver) DistanceQueries() int { return s.queries }

// Step advances every body by dt: forces, contacts, positions (see the package comment).
// Sleeping islands (sleep.go) are woken first if disturbed, or after the contact search if an
// awake body touches them (the search then runs again with them awake).
func (s *Solver) Step(dt float64) {
	if s.SleepTime > 0 {
		s.wakeDisturbed()
	}
	for i := range s.Bodies {
		b := &s.Bodies[i]
		b.r = b.Q.Matrix()
		if b.Motion == Dynamic && !b.Asleep {
			b.invI = rotateInertia(&b.r, &b.InvInertia)
			s.integrateVelocity(b, dt)
		} else {
			b.invI = Mat3{}
		}
	}
	s.collide(dt)
	if s.SleepTime > 0 && s.wakeTouched() {
		for i := range s.Bodies {
			b := &s.Bodies[i]
			if b.Motion == Dynamic && !b.Asleep && b.invI == (Mat3{}) {
				b.invI = rotateInertia(&b.r, &b.InvInertia)
				s.integrateVelocity(b, dt)
			}
		}
		s.collide(dt)
	}
	s.prepare(dt)
	s.prepareJoints()
	for it := 0; it < s.Iterations; it++ {
		s.solveJoints(dt, true)
		s.solve(dt, true)
	}
	for i := range s.Bodies {
		b := &s.Bodies[i]
		if b.Motion == Static || b.Asleep {
			continue
		}
		b.X = add(b.X, scale(b.V, dt))
		if b.Motion == Dynamic && !b.Planar() {
			b.rotateFree(dt)
		} else {
			b.Q = b.Q.Integrate(b.W, dt)
		}
	}
	for it := 0; it < s.Relax; it++ {
		s.solveJoints(dt, false)
		s.solve(dt, false)
	}
	s.restitution()
	s.store()
	s.updateSleep(dt)
}

// integrateVelocity applies gravity, the applied and fluid forces and torques, and damping:
// v += Δt (g + F/m) and L += Δt τ, i.e. ω += Δt I⁻¹ τ with the world inertia I = R I_body Rᵀ.
// The gyroscopic part of Euler's equations (−ω × Iω) is not an explicit force here: it is the
// torque-free rotation that the position update integrates exactly in |L| (rotateFree), since
// the explicit term pumps energy into a body spinning near its intermediate axis. A planar
// body's inverse inertia is restricted to its plane's normal first and its velocities are
// projected onto the plane after (planar.go).
func (s *Solver) integrateVelocity(b *Body, dt float64) {
	if b.Planar() {
		b.invI = b.planarInvInertia(&b.r)
	}
	f := add(b.Force, b.FluidForce)
	b.V = add(b.V, scale(add(s.Gravity, scale(f, b.InvMass)), dt))
	tau := add(b.Torque, b.FluidTorque)
	b.W = add(b.W, scale(b.invI.MulVec(tau), dt))
	if b.LinDamping > 0 {
		b.V = scale(b.V, 1/(1+dt*b.LinDamping))
	}
	if b.AngDamping > 0 {
		b.W = scale(b.W, 1/(1+dt*b.AngDamping))
	}
	if b.Planar() {
		b.projectPlanar()
	}
}

// collide finds the contacts of this substep: each dynamic body's surface against the static
// wall samples near it, and, for each pair of bodies whose bounding spheres come within the
// margin, the outer samples of each against the other's signed distance.
func (s *Solver) collide(dt float64) {
	s.contacts = s.contacts[:0]
	s.queries = 0
	r := s.Radius
	for i := range s.Bodies {
		a := &s.Bodies[i]
		if a.Motion != Dynamic || a.Asleep || a.mask()&1 == 0 {
			continue
		}
		margin := s.margin(a, nil, dt)
		reach := a.Reach + r + margin
		s.scratch = s.static.Query(a.X, reach, s.staticX, s.scratch[:0])
		s.queries += len(s.scratch)
		for _, k := range s.scratch {
			p := s.staticX[k]
			pb := a.r.MulTVec(sub(p, a.X))
			d, nb := a.Shape.Distance(pb)
			d -= r
			if d >= margin {
				continue
			}
			if d > 0 {
				ok, nq := s.closes(a, nil, p, s.staticV[k], dt)
				if !ok {
					continue
				}
				nb = nq
			}
			n := a.r.MulVec(nb)
			c := contact{key: key(0, uint32(k), uint32(i)+1), a: -1, b: int32(i), n: n, d: d, va: s.staticV[k]}
			c.rb = sub(sub(p, scale(n, r)), a.X)
			c.mu, c.e = a.Friction, a.Restitution
			s.contacts = append(s.contacts, c)
		}
	}
	for i := range s.Bodies {
		a := &s.Bodies[i]
		for j := i + 1; j < len(s.Bodies); j++ {
			b := &s.Bodies[j]
			if !s.awake(i) && !s.awake(j) && !(s.asleep(i) && s.stirring(j)) && !(s.asleep(j) && s.stirring(i)) {
				continue // neither moves the other: static, still kinematic or sleeping bodies
			}
			if s.joined(i, j) {
				continue // jointed bodies do not collide with each other (a hub and its paddles)
			}
			if a.layers()&b.mask() == 0 || b.layers()&a.mask() == 0 {
				continue // their collision layers keep them apart
			}
			margin := s.margin(a, b, dt)
			if norm(sub(a.X, b.X)) > a.Reach+b.Reach+2*r+margin {
				continue
			}
			s.samplesAgainst(i, j, margin, dt)
			s.samplesAgainst(j, i, margin, dt)
		}
	}
}

// samplesAgainst adds the contacts of body i's outer samples with body j's surface.
func (s *Solver) samplesAgainst(i, j int, margin, dt float64) {
	a, b := &s.Bodies[i], &s.Bodies[j]
	r := s.Radius
	for k, sb := range a.Samples[:a.Outer] {
		p := add(a.X, a.r.MulVec(sb))
		if norm(sub(p, b.X)) > b.Reach+r+margin {
			continue
		}
		pb := b.r.MulTVec(sub(p, b.X))
		s.queries++
		d, nb := b.Shape.Distance(pb)
		d -= r
		if d >= margin {
			continue
		}
		if d > 0 {
			ok, nq := s.closes(b, a, p, Vec3{}, dt)
			if !ok {
				continue
			}
			nb = nq
		}
		n := b.r.MulVec(nb)
		cp := sub(p, scale(n, r))
		c := contact{key: key(uint32(i)+1, uint32(k), uint32(j)+1), a: int32(i), b: int32(j), n: n, d: d}
		c.ra, c.rb = sub(cp, a.X), sub(cp, b.X)
		c.mu = math.Sqrt(a.Friction * b.Friction)
		c.e = max(a.Restitution, b.Restitution)
		s.contacts = append(s.contacts, c)
	}
}

// closes reports whether the sample at p (of body other, or a wall sample moving with vw when
// other is nil) would reach the surface of body b within dt at the current velocities: the
// exact test, with b's full signed distance at the predicted relative position. A speculative
// contact is kept only then, with the normal (body frame) where it would touch. Linearising
// instead (the normal speed against the gap at the current normal) wrongly stops a box
// sliding over a sampled floor at each sample its leading edge passes over: the sample
// approaches the edge's rounded normal but slides under the flat face.
func (s *Solver) closes(b, other *Body, p, vw Vec3, dt float64) (bool, Vec3) {
	vp := vw
	if other != nil {
		vp = other.PointVelocity(p)
	}
	// the sample's motion relative to b over dt, in b's frame at the end of the substep
	rel := sub(vp, b.PointVelocity(p))
	q := add(p, scale(rel, dt))
	d, n := b.Shape.Distance(b.r.MulTVec(sub(q, b.X)))
	return d-s.Radius < 0, n
}

// margin is the distance within which contacts are kept: what the bodies can close in one
// substep at their current speeds (their surfaces' fastest points), at least half a sample
// radius.
func (s *Solver) margin(a, b *Body, dt float64) float64 {
	v := norm(a.V) + norm(a.W)*a.Reach
	if b != nil {
		v += norm(b.V) + norm(b.W)*b.Reach
	}
	return max(speculativeFraction*s.Radius, 2*v*dt)
}

func key(a, sample, b uint32) uint64 {
	return uint64(a)<<52 | uint64(sample)<<16 | uint64(b)
}

// prepare computes each contact's effective masses and tangents, records the approach speed
// for restitution, and warm-starts it with the impulses the same contact had last substep.
func (s *Solver) prepare(dt float64) {
	for k := range s.contacts {
		c := &s.contacts[k]
		n := c.n
		t1 := cross(n, Vec3{1, 0, 0})
		if norm(t1) < 0.5 {
			t1 = cross(n, Vec3{0, 1, 0})
		}
		t1 = scale(t1, 1/norm(t1))
		c.t1, c.t2 = t1, cross(n, t1)
		c.mn = s.effMass(c, n)
		c.m1 = s.effMass(c, c.t1)
		c.m2 = s.effMass(c, c.t2)
		c.vn0 = dot(s.relVel(c), n)
		if i, ok := slices.BinarySearchFunc(s.cache, c.key, func(x cached, k uint64) int { return cmp.Compare(x.key, k) }); ok {
			w := s.cache[i]
			c.ln, c.l1, c.l2 = w.ln, w.l1, w.l2
			s.apply(c, add(add(scale(n, c.ln), scale(c.t1, c.l1)), scale(c.t2, c.l2)))
		}
	}
}

// effMass is 1/(m_a⁻¹ + m_b⁻¹ + (I_a⁻¹(r_a×d))·(r_a×d) + (I_b⁻¹(r_b×d))·(r_b×d)).
func (s *Solver) effMass(c *contact, d Vec3) float64 {
	k := 0.0
	if c.a >= 0 {
		a := &s.Bodies[c.a]
		rn := cross(c.ra, d)
		k += invMassAlong(a, d) + dot(a.invI.MulVec(rn), rn)
	}
	b := &s.Bodies[c.b]
	rn := cross(c.rb, d)
	k += invMassAlong(b, d) + dot(b.invI.MulVec(rn), rn)
	if k <= 0 {
		return 0
	}
	return 1 / k
}

// relVel is the velocity of a's contact point relative to b's.
func (s *Solver) relVel(c *contact) Vec3 {
	va := c.va
	if c.a >= 0 {
		a := &s.Bodies[c.a]
		va = add(a.V, cross(a.W, c.ra))
	}
	b := &s.Bodies[c.b]
	return sub(va, add(b.V, cross(b.W, c.rb)))
}

// apply adds impulse p to a and −p to b at the contact point.
func (s *Solver) apply(c *contact, p Vec3) {
	if c.a >= 0 {
		a := &s.Bodies[c.a]
		if a.Motion == Dynamic {
			a.V = add(a.V, a.linDelta(p))
			a.W = add(a.W, a.invI.MulVec(cross(c.ra, p)))
		}
	}
	b := &s.Bodies[c.b]
	if b.Motion == Dynamic {
		b.V = sub(b.V, b.linDelta(p))
		b.W = sub(b.W, b.invI.MulVec(cross(c.rb, p)))
	}
}

// solve makes one Gauss-Seidel pass over the contacts: the normal impulse drives the normal
// velocity to its target (close a gap no faster than it closes within the substep; with bias,
// push a penetration deeper than the slop out at the Baumgarte rate), clamped to push only;
// then the friction impulse, clamped to the Coulomb disk |λ_t| ≤ μ λ_n.
func (s *Solver) solve(dt float64, bias bool) {
	slop := slopFraction * s.Radius
	for k := range s.contacts {
		c := &s.contacts[k]
		var target float64
		switch {
		case c.d > 0:
			target = -c.d / dt
		case bias:
			target = min(maxPushOut, baumgarte*max(0, -c.d-slop)/dt)
		}
		v := s.relVel(c)
		dl := -c.mn * (dot(v, c.n) - target)
		l := max(0, c.ln+dl)
		dl, c.ln = l-c.ln, l
		c.maxLn = max(c.maxLn, l)
		if dl != 0 {
			s.apply(c, scale(c.n, dl))
		}
		if c.mu == 0 {
			continue
		}
		v = s.relVel(c)
		l1 := c.l1 - c.m1*dot(v, c.t1)
		l2 := c.l2 - c.m2*dot(v, c.t2)
		if lim := c.mu * c.ln; l1*l1+l2*l2 > lim*lim {
			f := lim / math.Sqrt(l1*l1+l2*l2)
			l1, l2 = l1*f, l2*f
		}
		d1, d2 := l1-c.l1, l2-c.l2
		c.l1, c.l2 = l1, l2
		s.apply(c, add(scale(c.t1, d1), scale(c.t2, d2)))
	}
}

// restitution gives the contacts that were hit faster than restitutionThreshold and pushed
// in this substep the normal velocity −e·v_n0 of their approach (Newton's impact law).
func (s *Solver) restitution() {
	for it := 0; it < max(1, s.Relax); it++ {
		for k := range s.contacts {
			c := &s.contacts[k]
			if c.e == 0 || c.vn0 > -restitutionThreshold || c.maxLn == 0 {
				continue
			}
			v := dot(s.relVel(c), c.n)
			dl := -c.mn * (v + c.e*c.vn0)
			l := max(0, c.ln+dl)
			dl, c.ln = l-c.ln, l
			if dl != 0 {
				s.apply(c, scale(c.n, dl))
			}
		}
	}
}

// store keeps this substep's impulses, sorted by contact key, to warm-start the next.
func (s *Solver) store() {
	s.cache = s.cache[:0]
	for k := range s.contacts {
		c := &s.contacts[k]
		s.cache = append(s.cache, cached{c.key, c.ln, c.l1, c.l2})
	}
	slices.SortFunc(s.cache, func(x, y cached) int { return cmp.Compare(x.key, y.key) })
}

// Cache returns the warm-start impulses (for snapshots): keys and the three impulses each.
func (s *Solver) Cache() (keys []uint64, impulses []float64) {
	for _, c := range s.cache {
		keys = append(keys, c.key)
		impulses = append(impulses, c.ln, c.l1, c.l2)
	}
	return keys, impulses
}

// SetCache restores warm-start impulses saved by Cache.
func (s *Solver) SetCache(keys []uint64, impulses []float64) {
	s.cache = s.cache[:0]
	for i, k := range keys {
		s.cache = append(s.cache, cached{k, impulses[3*i], impulses[3*i+1], impulses[3*i+2]})
	}
}

// Touch is a pair of bodies that pushed on each other: body indices A and B, or A < 0 for a
// static wall sample (its index Sample) against body B.
type Touch struct{ A, B, Sample int32 }

// Touching appends to out the pairs of the last substep's contacts that carried a normal
// impulse (speculative contacts that did not close carry none), read from the warm-start
// cache, so that it also answers right after SetCache; in key order, one entry per contact.
func (s *Solver) Touching(out []Touch) []Touch {
	for _, c := range s.cache {
		if c.ln <= 0 {
			continue
		}
		a, sample, b := int32(c.key>>52)-1, int32(c.key>>16&(1<<36-1)), int32(c.key&0xffff)-1
		out = append(out, Touch{a, b, sample})
	}
	return out
}

// Impulses appends the normal impulse (N s) of every contact of the last substep, with its
// pair, to out.
func (s *Solver) Impulses(out []TouchImpulse) []TouchImpulse {
	for k := range s.contacts {
		c := &s.contacts[k]
		if c.ln <= 0 {
			continue
		}
		out = append(out, TouchImpulse{Touch{c.a, c.b, int32(c.key >> 16 & (1<<36 - 1))}, c.ln})
	}
	return out
}

// TouchImpulse is a contact's pair and its normal impulse.
type TouchImpulse struct {
	Touch
	Impulse float64
}

// layers returns the collision layers a body is on (all without Filter).
func (b *Body) layers() uint32 {
	if !b.Filter {
		return ^uint32(0)
	}
	return b.Layers
}

// mask returns the collision layers a body touches (all without Filter).
func (b *Body) mask() uint32 {
	if !b.Filter {
		return ^uint32(0)
	}
	return b.Mask
}
