package rigid

import "math"

// JointKind is what a joint keeps fixed between two bodies (or a body and the world).
type JointKind uint8

const (
	// Ball joins two points: the bodies turn freely about it.
	Ball JointKind = iota + 1
	// Hinge joins two points and keeps two axes aligned: the bodies turn about the axis only,
	// optionally driven by a velocity motor.
	Hinge
	// Fixed joins two points and keeps the relative orientation: the bodies move as one.
	Fixed
	// Slider keeps the relative orientation and lets B's anchor move along A's axis only,
	// optionally driven by a velocity motor (a piston, a lift, a sliding door).
	Slider
)

// String returns the kind's scene name.
func (k JointKind) String() string {
	switch k {
	case Ball:
		return "ball"
	case Hinge:
		return "hinge"
	case Fixed:
		return "fixed"
	case Slider:
		return "slider"
	}
	return "unknown"
}

// jointBaumgarte is the fraction of a joint's position error removed per substep by the bias
// velocity of the first solver phase (Baumgarte stabilisation, the rate the contacts use).
const jointBaumgarte = 0.2

// Joint constrains body A to body B, or to the world when B < 0. Anchors and axes are in the
// bodies' own frames (the world's when B < 0); the Solver keeps the accumulated impulses from
// substep to substep to warm-start the next (they are state, saved with snapshots).
//
// The constraints are solved at the velocity level in the same sequential-impulse passes as
// the contacts (Catto 2005, "Iterative dynamics with temporal coherence"). The rows of the
// joints connected through dynamic bodies are solved together as one system (island.go;
// Gauss-Seidel between islands and contacts): the point rows
// e_k·(v_B + ω_B × r_B − v_A − ω_A × r_A) = 0, the hinge's two rows (ω_B − ω_A)·u = 0 across
// the axis, the fixed joint's three, the slider's two point rows across its axis and three
// angular rows, with the effective mass K = J M⁻¹ Jᵀ of the rows' Jacobian J, and a bias of
// jointBaumgarte × the position error per substep in the first phase only. Before the island,
// each hinge or slider has its free row (the relative spin (ω_A − ω_B)·a of a hinge, the
// relative speed of the slider's anchors along a): a motor drives it to MotorSpeed with its
// impulse clamped to MotorMax·Δt, and limits keep its position (the hinge's angle, the
// slider's offset) within [Lower, Upper] as one-sided rows with accumulated impulses clamped
// to one sign, speculative while the limit is still ahead (the contacts' scheme). Their
// effective mass is the one the island leaves the free row (motorMass), so a motor on a light
// hub with heavy welded paddles drives the whole wheel.
type Joint struct {
	Kind             JointKind
	A, B             int
	AnchorA, AnchorB Vec3
	AxisA, AxisB     Vec3    // Hinge, Slider: unit axes (the slider's is A's)
	RefA, RefB       Vec3    // Hinge: unit vectors across the axis, aligned at angle 0
	RelQ             Quat    // Fixed, Slider: q_A⁻¹ q_B at rest
	MotorSpeed       float64 // hinge rad/s: A's spin relative to B about the axis (right hand); slider m/s: A's anchor's speed along the axis relative to B's
	MotorMax         float64 // hinge N m, slider N; 0: no motor
	Limited          bool    // Lower and Upper apply
	// Lower and Upper bound the hinge's angle (rad, within [−π, π]: A's turn relative to B
	// about the axis from where they were joined) or the slider's offset (m: A's anchor
	// along the axis from B's).
	Lower, Upper float64

	// Lambda holds the accumulated impulses of the rows of the last substep (point rows first,
	// N s, then angular, N m s), Motor the motor's and LimitLower ≥ 0, LimitUpper ≤ 0 the
	// limits' (N m s for a hinge, N s for a slider).
	Lambda                 [6]float64
	Motor                  float64
	LimitLower, LimitUpper float64

	ra, rb Vec3 // world anchor offsets from the centres of mass
	axis   Vec3 // hinge or slider axis (world, A's)
	n      int  // rows
	rows   [6]jointRow
	kinv   [36]float64 // the factor of K = J M⁻¹ Jᵀ (cholesky), n x n
	err    [6]float64  // position error per row
	free   jointRow    // hinge or slider: the free row
	kfree  float64     // its effective mass with the island's rows held
	pos    float64     // the free row's position: hinge angle (rad), slider offset (m)
	off    int         // first row in its island's system
}

// jointRow is one row of a joint's Jacobian: the linear and angular parts for A and B.
type jointRow struct{ la, aa, lb, ab Vec3 }

func invMass(b *Body) (float64, Mat3) {
	if b == nil || b.Motion != Dynamic || b.Asleep {
		return 0, Mat3{}
	}
	return b.InvMass, b.invI
}

// jointBodies returns the bodies of a joint, b nil for the world.
func (s *Solver) jointBodies(j *Joint) (a, b *Body) {
	a = &s.Bodies[j.A]
	if j.B >= 0 {
		b = &s.Bodies[j.B]
	}
	return a, b
}

// prepareJoints builds each joint's rows, errors and block effective mass for this substep
// and applies last substep's impulses (warm start).
func (s *Solver) prepareJoints() {
	for k := range s.Joints {
		j := &s.Joints[k]
		a, b := s.jointBodies(j)
		j.ra = a.r.MulVec(j.AnchorA)
		pa := add(a.X, j.ra)
		pb := j.AnchorB
		if b != nil {
			j.rb = b.r.MulVec(j.AnchorB)
			pb = add(b.X, j.rb)
		} else {
			j.rb = Vec3{}
		}
		e := sub(pb, pa)
		j.n = 0
		for d := 0; d < 3; d++ {
			var ek Vec3
			ek[d] = 1
			j.rows[j.n] = jointRow{la: scale(ek, -1), aa: scale(cross(j.ra, ek), -1), lb: ek, ab: cross(j.rb, ek)}
			j.err[j.n] = e[d]
			j.n++
		}
		switch j.Kind {
		case Hinge:
			j.axis = a.r.MulVec(j.AxisA)
			ab := j.AxisB
			if b != nil {
				ab = b.r.MulVec(j.AxisB)
			}
			u1 := cross(j.axis, Vec3{1, 0, 0})
			if norm(u1) < 0.5 {
				u1 = cross(j.axis, Vec3{0, 1, 0})
			}
			u1 = scale(u1, 1/norm(u1))
			u2 := cross(j.axis, u1)
			// a_A × a_B = sin θ u for B's axis turned by θ about u relative to A's
			ea := cross(j.axis, ab)
			for _, u := range []Vec3{u1, u2} {
				j.rows[j.n] = jointRow{aa: scale(u, -1), ab: u}
				j.err[j.n] = dot(ea, u)
				j.n++
			}
			j.free = jointRow{aa: j.axis, ab: scale(j.axis, -1)}
			ra, rb := a.r.MulVec(j.RefA), j.RefB
			if b != nil {
				rb = b.r.MulVec(j.RefB)
			}
			j.pos = math.Atan2(dot(cross(rb, ra), j.axis), dot(ra, rb))
		case Slider:
			j.axis = a.r.MulVec(j.AxisA)
			u1 := cross(j.axis, Vec3{1, 0, 0})
			if norm(u1) < 0.5 {
				u1 = cross(j.axis, Vec3{0, 1, 0})
			}
			u1 = scale(u1, 1/norm(u1))
			u2 := cross(j.axis, u1)
			// B's anchor may be anywhere on A's axis: A's lever reaches it, r_A + e
			lever := add(j.ra, e)
			j.n = 0
			for _, u := range []Vec3{u1, u2} {
				j.rows[j.n] = jointRow{la: scale(u, -1), aa: scale(cross(lever, u), -1), lb: u, ab: cross(j.rb, u)}
				j.err[j.n] = dot(e, u)
				j.n++
			}
			j.free = jointRow{la: j.axis, aa: cross(lever, j.axis), lb: scale(j.axis, -1), ab: scale(cross(j.rb, j.axis), -1)}
			j.pos = -dot(e, j.axis)
			j.lockRotation(a, b)
		case Fixed:
			j.lockRotation(a, b)
		}
		s.applyRows(j, a, b, j.Lambda[:j.n])
		if j.Kind == Hinge || j.Kind == Slider {
			applyRow(&j.free, a, b, j.Motor+j.LimitLower+j.LimitUpper)
		}
	}
	s.buildIslands()
}

// lockRotation adds the three angular rows that keep B's orientation relative to A's at
// RelQ: the error is twice the vector part of the rotation q_B (q_A RelQ)⁻¹.
func (j *Joint) lockRotation(a, b *Body) {
	qb := QuatIdentity
	if b != nil {
		qb = b.Q
	}
	qa := a.Q.Mul(j.RelQ)
	q := qb.Mul(Quat{qa[0], -qa[1], -qa[2], -qa[3]})
	if q[0] < 0 {
		q = Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	for d := 0; d < 3; d++ {
		var ek Vec3
		ek[d] = 1
		j.rows[j.n] = jointRow{aa: scale(ek, -1), ab: ek}
		j.err[j.n] = 2 * q[1+d]
		j.n++
	}
}

func addM(a, b Mat3) Mat3 {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

// jointMass computes K = J M⁻¹ Jᵀ and stores its factor (cholesky: rows that depend on the
// others, as across the plane of a planar body, are left out; both bodies immovable leave
// every row out, and the joint then does nothing).
func (s *Solver) jointMass(j *Joint, a, b *Body) {
	_, ia := invMass(a)
	_, ib := invMass(b)
	n := j.n
	var m [36]float64
	for r := 0; r < n; r++ {
		ri := &j.rows[r]
		iaa, ibb := ia.MulVec(ri.aa), ib.MulVec(ri.ab)
		for c := 0; c < n; c++ {
			rc := &j.rows[c]
			m[r*n+c] = linDot(a, ri.la, rc.la) + dot(iaa, rc.aa) + linDot(b, ri.lb, rc.lb) + dot(ibb, rc.ab)
		}
	}
	cholesky(m[:n*n], n)
	copy(j.kinv[:n*n], m[:n*n])
}

// applyRows adds the impulses λ of the rows to the bodies: Δv = m⁻¹ Σ λ l, Δω = I⁻¹ Σ λ a.
func (s *Solver) applyRows(j *Joint, a, b *Body, lambda []float64) {
	var la, aa, lb, ab Vec3
	for r, l := range lambda {
		if l == 0 {
			continue
		}
		ro := &j.rows[r]
		la, aa = add(la, scale(ro.la, l)), add(aa, scale(ro.aa, l))
		lb, ab = add(lb, scale(ro.lb, l)), add(ab, scale(ro.ab, l))
	}
	if a.Motion == Dynamic && !a.Asleep {
		a.V = add(a.V, a.linDelta(la))
		a.W = add(a.W, a.invI.MulVec(aa))
	}
	if b != nil && b.Motion == Dynamic && !b.Asleep {
		b.V = add(b.V, b.linDelta(lb))
		b.W = add(b.W, b.invI.MulVec(ab))
	}
}

// solveJoints makes one Gauss-Seidel pass over the joint islands (island.go): each joint's
// motor, then the island's rows solved together for the bodies' present velocities (one block
// per joint when the island is too large).
func (s *Solver) solveJoints(dt float64, bias bool) {
	for i := range s.islands {
		is := &s.islands[i]
		for _, k := range s.islandJoints[is.first : is.first+is.count] {
			s.solveFree(&s.Joints[k], dt, bias)
		}
		if is.n > 0 {
			s.solveIsland(is, dt, bias)
			continue
		}
		for _, k := range s.islandJoints[is.first : is.first+is.count] {
			s.solveBlock(&s.Joints[k], dt, bias)
		}
	}
}

// solveFree solves a hinge's or slider's free row: the motor drives its velocity to
// MotorSpeed with an impulse clamped to MotorMax·Δt in all; the lower limit keeps
// d(pos)/dt ≥ −(pos − Lower)/Δt while the limit is ahead (speculative) and pushes back by
// jointBaumgarte of the overshoot per substep in the bias phase when it is passed, with an
// accumulated impulse ≥ 0; the upper limit mirrors it.
func (s *Solver) solveFree(j *Joint, dt float64, bias bool) {
	if (j.Kind != Hinge && j.Kind != Slider) || j.kfree == 0 {
		return
	}
	a, b := s.jointBodies(j)
	if j.MotorMax > 0 {
		dl := -j.kfree * (rowVel(&j.free, a, b) - j.MotorSpeed)
		lim := j.MotorMax * dt
		m := math.Max(-lim, math.Min(lim, j.Motor+dl))
		dl, j.Motor = m-j.Motor, m
		applyRow(&j.free, a, b, dl)
	}
	if !j.Limited {
		return
	}
	target := func(gap float64) float64 {
		switch {
		case gap > 0:
			return gap / dt
		case bias:
			return jointBaumgarte * gap / dt
		}
		return 0
	}
	// lower: d(pos)/dt ≥ −target(pos − Lower)
	dl := -j.kfree * (rowVel(&j.free, a, b) + target(j.pos-j.Lower))
	m := math.Max(0, j.LimitLower+dl)
	dl, j.LimitLower = m-j.LimitLower, m
	applyRow(&j.free, a, b, dl)
	// upper: d(pos)/dt ≤ target(Upper − pos)
	dl = -j.kfree * (rowVel(&j.free, a, b) - target(j.Upper-j.pos))
	m = math.Min(0, j.LimitUpper+dl)
	dl, j.LimitUpper = m-j.LimitUpper, m
	applyRow(&j.free, a, b, dl)
}

// rowError is row r's velocity, plus in the bias phase jointBaumgarte of its position error
// per substep: what the row's impulse must bring to zero.
func (j *Joint) rowError(r int, a, b *Body, dt float64, bias bool) float64 {
	v := rowVel(&j.rows[r], a, b)
	if bias {
		v += jointBaumgarte * j.err[r] / dt
	}
	return v
}

// rowVel is the velocity of one row: J_row · (v_A, ω_A, v_B, ω_B).
func rowVel(ro *jointRow, a, b *Body) float64 {
	v := dot(ro.la, a.V) + dot(ro.aa, a.W)
	if b != nil {
		v += dot(ro.lb, b.V) + dot(ro.ab, b.W)
	}
	return v
}

// applyRow adds the impulse λ of one row to the bodies.
func applyRow(ro *jointRow, a, b *Body, l float64) {
	if l == 0 {
		return
	}
	if a.Motion == Dynamic && !a.Asleep {
		a.V = add(a.V, a.linImpulse(ro.la, l))
		a.W = add(a.W, a.invI.MulVec(scale(ro.aa, l)))
	}
	if b != nil && b.Motion == Dynamic && !b.Asleep {
		b.V = add(b.V, b.linImpulse(ro.lb, l))
		b.W = add(b.W, b.invI.MulVec(scale(ro.ab, l)))
	}
}

// solveBlock solves one joint's rows exactly for the bodies' present velocities.
func (s *Solver) solveBlock(j *Joint, dt float64, bias bool) {
	a, b := s.jointBodies(j)
	var c [6]float64
	for r := 0; r < j.n; r++ {
		c[r] = j.rowError(r, a, b, dt, bias)
	}
	for r := 0; r < j.n; r++ {
		c[r] = -c[r]
	}
	cholSolve(j.kinv[:j.n*j.n], j.n, c[:j.n])
	for r := 0; r < j.n; r++ {
		j.Lambda[r] += c[r]
	}
	s.applyRows(j, a, b, c[:j.n])
}

// joined reports whether a joint connects bodies i and j: their contacts with each other are
// not generated, so bodies welded or hinged where their shapes overlap (a wheel's hub and
// paddles) do not push apart.
func (s *Solver) joined(i, j int) bool {
	for k := range s.Joints {
		a, b := s.Joints[k].A, s.Joints[k].B
		if (a == i && b == j) || (a == j && b == i) {
			return true
		}
	}
	return false
}
