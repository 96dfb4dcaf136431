package rigid

import "math"

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
// of a rotation matrix P, and the principal moments, so that I = P diag(m) Pᵀ. It uses cyclic
// Jacobi rotations (Golub & Van Loan, Matrix Computations, §8.5), which converge quadratically;
// repeated moments (a cube, a sphere) leave any orthonormal axes, all equally valid.
func principal(in *Mat3) (p Mat3, m Vec3) {
	a := *in
	p = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}
	for sweep := 0; sweep < 50; sweep++ {
		off := a[1]*a[1] + a[2]*a[2] + a[5]*a[5]
		diag := a[0]*a[0] + a[4]*a[4] + a[8]*a[8]
		if off <= 1e-32*diag {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			i, j := pq[0], pq[1]
			aij := a[3*i+j]
			if aij == 0 {
				continue
			}
			// The rotation angle that zeroes a_ij (Golub & Van Loan, Alg. 8.5.1, sym.schur2).
			tau := (a[3*j+j] - a[3*i+i]) / (2 * aij)
			t := 1 / (math.Abs(tau) + math.Sqrt(1+tau*tau))
			if tau < 0 {
				t = -t
			}
			c := 1 / math.Sqrt(1+t*t)
			s := t * c
			// a ← Jᵀ a J and p ← p J with J the rotation in the (i, j) plane.
			for k := 0; k < 3; k++ {
				aki, akj := a[3*k+i], a[3*k+j]
				a[3*k+i], a[3*k+j] = c*aki-s*akj, s*aki+c*akj
			}
			for k := 0; k < 3; k++ {
				aik, ajk := a[3*i+k], a[3*j+k]
				a[3*i+k], a[3*j+k] = c*aik-s*ajk, s*aik+c*ajk
			}
			for k := 0; k < 3; k++ {
				pki, pkj := p[3*k+i], p[3*k+j]
				p[3*k+i], p[3*k+j] = c*pki-s*pkj, s*pki+c*pkj
			}
		}
	}
	if p.Det() < 0 { // a proper rotation, so that it can turn a quaternion
		p[2], p[5], p[8] = -p[2], -p[5], -p[8]
	}
	return p, Vec3{a[0], a[4], a[8]}
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
