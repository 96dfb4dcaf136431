package rigid

// Planar bodies. A dynamic body with a non-zero PlaneNormal n moves in the plane through its
// centre of mass normal to n and turns about n only: three of its six velocity coordinates are
// constrained, v·n = 0 and ω × n = 0, the motion of a body in a 2D game or of a body coupled to
// a 2D fluid (docs/reduced.md). The constraint is enforced exactly rather than by penalty or
// by a joint: the body's mobility is restricted to the allowed subspace, so every impulse
// (contacts, joints, friction, game impulses) changes its velocity only within it.
//   - Linear: the inverse mass becomes the projector m⁻¹(1 − nnᵀ) (linDelta).
//   - Angular: with ω = s n, the only generalised inertia is nᵀ I_w n (I_w the world inertia,
//     constant under rotation about n) and the generalised torque nᵀτ, so the world inverse
//     inertia becomes n nᵀ / (nᵀ I_w n) (planarInvInertia), a rank-one matrix that every
//     impulse solve (effective masses, joint islands) uses as it uses the full one.
//   - Rotation is integrated about n exactly (Quat.Integrate with ω ∥ n), not by the
//     torque-free rotation of a free body: a body whose n is not a principal axis needs the
//     plane's constraint torque to keep turning about n, which is what this models.
// The velocities are projected onto the subspace once per substep after the forces (gravity
// out of the plane, a velocity a game set); after that they stay in it to round-off.

// Planar reports whether the body is constrained to a plane.
func (b *Body) Planar() bool { return b.PlaneNormal != (Vec3{}) && b.Motion == Dynamic }

// linDelta is the velocity change of the linear impulse p: p/m, without its component along
// the plane normal for a planar body.
func (b *Body) linDelta(p Vec3) Vec3 {
	if b.Planar() {
		n := b.PlaneNormal
		p = sub(p, scale(n, dot(p, n)))
	}
	return scale(p, b.InvMass)
}

// linImpulse is linDelta(l·x), in the free body's arithmetic x·(l/m) when it is not planar.
func (b *Body) linImpulse(x Vec3, l float64) Vec3 {
	if !b.Planar() {
		return scale(x, l*b.InvMass)
	}
	return b.linDelta(scale(x, l))
}

// linDot is x·M⁻¹y for the body's linear inverse mass (0 for none, static, kinematic or
// asleep, as invMass), in the free body's exact arithmetic m⁻¹(x·y) when it is not planar.
func linDot(b *Body, x, y Vec3) float64 {
	if b == nil || b.Motion != Dynamic || b.Asleep {
		return 0
	}
	if !b.Planar() {
		return b.InvMass * dot(x, y)
	}
	return dot(b.linDelta(x), y)
}

// invMassAlong is d·M⁻¹d for a unit direction d: m⁻¹, or m⁻¹(1 − (d·n)²) for a planar body.
func invMassAlong(b *Body, d Vec3) float64 {
	if !b.Planar() {
		return b.InvMass
	}
	dn := dot(d, b.PlaneNormal)
	return b.InvMass * (1 - dn*dn)
}

// planarInvInertia returns n nᵀ / (nᵀ I_w n) for the body's rotation r, with I_w = R I Rᵀ.
func (b *Body) planarInvInertia(r *Mat3) Mat3 {
	n := b.PlaneNormal
	nb := r.MulTVec(n) // n in body axes: nᵀ I_w n = (Rᵀn)ᵀ I (Rᵀn)
	in := dot(nb, b.Inertia.MulVec(nb))
	if !(in > 0) {
		return Mat3{}
	}
	return Mat3{n[0] * n[0] / in, n[0] * n[1] / in, n[0] * n[2] / in,
		n[1] * n[0] / in, n[1] * n[1] / in, n[1] * n[2] / in,
		n[2] * n[0] / in, n[2] * n[1] / in, n[2] * n[2] / in}
}

// projectPlanar removes the out-of-plane linear velocity and the angular velocity about
// in-plane axes.
func (b *Body) projectPlanar() {
	n := b.PlaneNormal
	b.V = sub(b.V, scale(n, dot(b.V, n)))
	b.W = scale(n, dot(b.W, n))
}
