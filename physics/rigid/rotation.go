package rigid

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// Torque-free rotation by the splitting of Dullweber, Leimkuhler & McLachlan, "Symplectic
// splitting methods for rigid body molecular dynamics", J. Chem. Phys. 107(15), 1997.
//
// A free body keeps its world angular momentum L while its angular velocity ω = R I⁻¹ Rᵀ L
// precesses. Integrating Euler's equations I dω/dt = τ − ω × Iω explicitly (ω += Δt I⁻¹(τ −
// ω × Iω), then rotating by the old ω) makes a body spinning near its intermediate axis gain
// kinetic energy step after step. Instead, the kinetic energy H = Σ_k Π_k²/(2 I_k) (Π = the
// angular momentum in the principal frame) is split into its three terms; the flow of each term
// alone is a rotation about one principal axis k by θ = Π_k t/I_k, exact and cheap. Composing
// them symmetrically, X(h/2) Y(h/2) Z(h) Y(h/2) X(h/2), gives a symplectic, time-reversible,
// second-order method: |L| is kept to round-off (every sub-flow is a rotation of Π, and the
// orientation turns by the inverse rotation, so L = R Π never changes) and the energy error stays
// bounded, O(h²), with no drift (DLM 1997, Sec. III).

// principal returns the principal axes of a symmetric inertia tensor (body frame) as the columns
// of a rotation matrix P, and the principal moments, so that I = P diag(m) Pᵀ
// (physics.SymEigen3); repeated moments (a cube, a sphere) leave any orthonormal axes, all
// equally valid.
func principal(in *Mat3) (p Mat3, m Vec3) {
	arr := [9]float64(*in)
	lam, v := physics.SymEigen3(&arr)
	p = Mat3(v)
	if p.Det() < 0 { // a proper rotation, so that it can turn a quaternion
		p[2], p[5], p[8] = -p[2], -p[5], -p[8]
	}
	return p, Vec3(lam)
}

// dlmSplit is the symmetric sequence of (principal axis, fraction of the step) of DLM 1997.
var dlmSplit = [5]struct {
	axis int
	frac float64
}{{0, 0.5}, {1, 0.5}, {2, 1}, {1, 0.5}, {0, 0.5}}

// rotateFree advances a dynamic body's orientation by dt along the torque-free motion with its
// current world angular momentum L = I_w ω (I_w from the orientation at the start of the
// substep, as the contact solve used it), and sets ω = R' I⁻¹ R'ᵀ L for the new orientation R'.
// Torques have already changed L (integrateVelocity: L += τ Δt), so this is the "drift" of a
// kick–drift splitting.
func (b *Body) rotateFree(dt float64) {
	if b.principalFor != b.Inertia || !b.principalSet {
		b.principalAxes, b.principalMoments = principal(&b.Inertia)
		b.principalFor, b.principalSet = b.Inertia, true
	}
	iw := rotateInertia(&b.r, &b.Inertia)
	l := iw.MulVec(b.W)
	if l == (Vec3{}) {
		return
	}
	pa, pm := &b.principalAxes, b.principalMoments
	// Π = Pᵀ Rᵀ L, the angular momentum in the principal frame.
	pi := pa.MulTVec(b.r.MulTVec(l))
	q := b.Q
	for _, st := range dlmSplit {
		k := st.axis
		th := pi[k] * st.frac * dt / pm[k]
		if th == 0 {
			continue
		}
		// Π turns by −θ about axis k while the body turns by +θ about it (body frame).
		c, s := math.Cos(th), math.Sin(th)
		i, j := (k+1)%3, (k+2)%3
		pi[i], pi[j] = c*pi[i]+s*pi[j], -s*pi[i]+c*pi[j]
		q = q.Mul(QuatAxisAngle(Vec3{pa[k], pa[3+k], pa[6+k]}, th))
	}
	b.Q = q.Normalize()
	r := b.Q.Matrix()
	ir := rotateInertia(&r, &b.InvInertia)
	b.W = ir.MulVec(l)
}
