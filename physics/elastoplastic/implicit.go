package elastoplastic

import (
	"math"

	"github.com/sluicephysics/sluice/physics/par"
)

// The semi-implicit (linearised backward Euler) treatment of the elastoplastic forces.
//
// The explicit step adds Δt f(y)/m to v*. Backward Euler evaluates the force at the end of
// the step instead, f(y + Δt v), and linearises it: f(y + Δt v) ≈ f(y) + K Δt v with the
// stiffness K = ∂f/∂y. With v' = v* + Δt f(y)/m (the explicit update, zero-mode damping
// included) and v = v' + Δv:
//
//	(I − Δt²K/m) Δv = Δt²K v'/m,
//
// solved by conjugate gradients, matrix-free: each product with K is one gradient pass and one
// force pass over the pairs.
//
// K is built so that it is symmetric, negative semi-definite, and conserves both momenta for
// every vector it multiplies. The incremental motion z of the particles has, at particle i, the
// velocity-gradient-like fit L_i(z) = Σ_j (z_j − z_i) ⊗ g_ij with the corrected kernel
// gradients of the force (Eq. 4.10-4.13 with the correction of Bonet and Lok 1999, see
// correct) taken to the present configuration: g_ij = v F_i⁻ᵀ C_i⁻¹ ∇W(F_i⁻¹(y_i − y_j)) =
// s_ij N_i (y_i − y_j), N_i = v F_i⁻ᵀ C_i⁻¹ F_i⁻¹. The correction makes Σ_j (y_j − y_i) ⊗ g_ij = I,
// so L_i is exact for every affine z and skew for every infinitesimal rotation. The stress
// increment is the isotropic linear-elastic tangent of Eq. 4.9 at F = I,
// S_i = 2μ sym L_i + λ tr(L_i) I, and the force is the negative gradient of the quadratic energy
// E(z) = ½ v Σ_i sym L_i : S_i (the linearisation of the chapter's energy, whose
// derivative Eq. 4.10 is): (K z)_k = v Σ_j (S_k g_kj − S_j g_jk) over the (symmetric) pairs.
// Then yᵀK z = −v Σ_i sym L_i(y) : S_i(z), symmetric and ≤ 0 for y = z; the two terms of a
// pair are equal and opposite, so Σ_k (K z)_k = 0; and E does not change under an
// infinitesimal rotation of the configuration, so Σ_k y_k × (K z)_k = 0. Every CG iterate lies
// in the Krylov space of K v', whose vectors all carry zero linear and zero angular momentum,
// so the solve changes neither momentum for any residual, up to round-off.
//
// The tangent is the one of the undeformed material, not of the present F and the plastic
// state: the linearisation is only what keeps the step stable at a Δt above the explicit
// limit; the force itself stays Eq. 4.10 at the present F. Plastic flow stays explicit (it
// acts on F in the next step's deformation pass).

// ImplicitTolerance is the relative residual ‖r‖/‖b‖ at which the implicit solve stops. The
// solve is a linearisation whose error is first order in Δt anyway, so it needs no more than
// two digits.
const ImplicitTolerance = 1e-2

// ImplicitMaxIterations caps the conjugate-gradient iterations of one step.
const ImplicitMaxIterations = 100

// ImplicitCourant is the constant C of the semi-implicit step's limit Δt ≤ C·s/c (see
// StableDtImplicit), three times StableCourant: the squash of TestImplicitExplore stays within its bounds at
// 1.5 and blows up at 2.
const ImplicitCourant = 1.5

// StableDtImplicit returns the largest step of the semi-implicit step,
// ImplicitCourant·spacing/WaveSpeed(rho) (s).
func (m *Material) StableDtImplicit(spacing, rho float64) float64 {
	return ImplicitCourant * spacing / m.WaveSpeed(rho)
}

// SetImplicit switches the body between the explicit forces (false, the default) and the
// semi-implicit step above.
func (b *Body) SetImplicit(on bool) {
	b.implicit = on
	if on && b.cgR == nil {
		b.cgR, b.cgP, b.cgQ, b.cgX = make([]Vec3, b.n), make([]Vec3, b.n), make([]Vec3, b.n), make([]Vec3, b.n)
		b.cgS = make([][6]float64, b.n)
		b.gSum = make([]Vec3, b.n)
		nb := par.Blocks(b.n)
		b.cgPart = make([]float64, nb)
		b.cgPart2 = make([]float64, nb)
		b.fnGrad, b.fnKz, b.fnTranspose = b.gradBlock, b.kzBlock, b.transposeBlock
		b.fnDot, b.fnAxpy = b.dotBlock, b.axpyBlock
	}
}

// Implicit reports whether the body takes the semi-implicit step.
func (b *Body) Implicit() bool { return b.implicit }

// gradTerms fills pg[n] with g_ij = s_ij N_i (y_i − y_j) for the neighbours j = nbr[n] of
// particle i, N_i = v F_i⁻ᵀ C_i⁻¹ F_i⁻¹ (ci = C_i⁻¹; zero for a detached particle, which then
// has no stiffness as it has no stress).
func (b *Body) gradTerms(i int, nbr []int32, ps []float64, ci *mat3, pg []Vec3) {
	ai := &b.finv[i]
	at := transpose(ai)
	t := mul(&at, ci)
	nm := mul(&t, ai)
	for q := range nm {
		nm[q] *= b.vol
	}
	x := b.x
	xi := x[i]
	for n, j := range nbr {
		sq := ps[n]
		if sq == 0 {
			pg[n] = Vec3{}
			continue
		}
		r0, r1, r2 := sq*(xi[0]-x[j][0]), sq*(xi[1]-x[j][1]), sq*(xi[2]-x[j][2])
		pg[n] = Vec3{nm[0]*r0 + nm[1]*r1 + nm[2]*r2, nm[3]*r0 + nm[4]*r1 + nm[5]*r2, nm[6]*r0 + nm[7]*r1 + nm[8]*r2}
	}
}

// transposeBlock fills, for particles [lo, hi), pgT[e] = g_ji for each entry e = (i, j) (read
// from the transposed entry once per step, so the products read it in row order) and
// gSum_i = Σ_j g_ij.
func (b *Body) transposeBlock(lo, hi, blk int) {
	for i := lo; i < hi; i++ {
		var s Vec3
		for e := b.pStart[i]; e < b.pStart[i+1]; e++ {
			g := &b.pg[e]
			s[0] += g[0]
			s[1] += g[1]
			s[2] += g[2]
			b.pgT[e] = b.pg[b.pT[e]]
		}
		b.gSum[i] = s
	}
}

// gradBlock computes, for particles [lo, hi), the tangent stress S_i = 2μ sym L_i + λ tr(L_i) I
// of L_i(z) = Σ_j (z_j − z_i) ⊗ g_ij = Σ_j z_j ⊗ g_ij − z_i ⊗ gSum_i, z = cgIn, stored as xx,
// yy, zz, xy, xz, yz.
func (b *Body) gradBlock(lo, hi, blk int) {
	z := b.cgIn
	mu, lam := b.mat.Mu, b.mat.Lambda
	for i := lo; i < hi; i++ {
		zi, gs := z[i], b.gSum[i]
		l := mat3{
			-zi[0] * gs[0], -zi[0] * gs[1], -zi[0] * gs[2],
			-zi[1] * gs[0], -zi[1] * gs[1], -zi[1] * gs[2],
			-zi[2] * gs[0], -zi[2] * gs[1], -zi[2] * gs[2],
		}
		for e := b.pStart[i]; e < b.pStart[i+1]; e++ {
			g := &b.pg[e]
			zj := &z[b.pJ[e]]
			l[0] += zj[0] * g[0]
			l[1] += zj[0] * g[1]
			l[2] += zj[0] * g[2]
			l[3] += zj[1] * g[0]
			l[4] += zj[1] * g[1]
			l[5] += zj[1] * g[2]
			l[6] += zj[2] * g[0]
			l[7] += zj[2] * g[1]
			l[8] += zj[2] * g[2]
		}
		tr := lam * (l[0] + l[4] + l[8])
		b.cgS[i] = [6]float64{2*mu*l[0] + tr, 2*mu*l[4] + tr, 2*mu*l[8] + tr, mu * (l[1] + l[3]), mu * (l[2] + l[6]), mu * (l[5] + l[7])}
	}
}

// kzBlock writes, for particles [lo, hi), cgOut_k = (K z)_k = v Σ_j (S_k g_kj − S_j g_jk) =
// v (S_k gSum_k − Σ_j S_j g_jk) with S from gradBlock, scaled by cgScale; when cgShift it
// writes cgIn_k − cgScale (K z)_k instead (the CG matrix A = I − cK). The pair's term
// S_j g_jk is the one particle j's own row would hold, so the forces are equal and opposite.
func (b *Body) kzBlock(lo, hi, blk int) {
	out, in := b.cgOut, b.cgIn
	c := b.cgScale * b.vol
	for k := lo; k < hi; k++ {
		sk, gs := &b.cgS[k], &b.gSum[k]
		f0 := sk[0]*gs[0] + sk[3]*gs[1] + sk[4]*gs[2]
		f1 := sk[3]*gs[0] + sk[1]*gs[1] + sk[5]*gs[2]
		f2 := sk[4]*gs[0] + sk[5]*gs[1] + sk[2]*gs[2]
		for e := b.pStart[k]; e < b.pStart[k+1]; e++ {
			h := &b.pgT[e]
			sj := &b.cgS[b.pJ[e]]
			f0 -= sj[0]*h[0] + sj[3]*h[1] + sj[4]*h[2]
			f1 -= sj[3]*h[0] + sj[1]*h[1] + sj[5]*h[2]
			f2 -= sj[4]*h[0] + sj[5]*h[1] + sj[2]*h[2]
		}
		if b.cgShift {
			out[k] = Vec3{in[k][0] - c*f0, in[k][1] - c*f1, in[k][2] - c*f2}
		} else {
			out[k] = Vec3{c * f0, c * f1, c * f2}
		}
	}
}

// applyK sets out = c K z (shift false) or z − c K z (shift true), two passes over the pairs.
func (b *Body) applyK(z, out []Vec3, c float64, shift bool, pool *par.Pool) {
	b.cgIn, b.cgOut, b.cgScale, b.cgShift = z, out, c, shift
	pool.For(b.n, b.fnGrad)
	pool.For(b.n, b.fnKz)
}

// dotBlock sums cgA·cgB over particles [lo, hi) into cgPart[blk].
func (b *Body) dotBlock(lo, hi, blk int) {
	a, c := b.cgA, b.cgB
	s := 0.0
	for i := lo; i < hi; i++ {
		s += a[i][0]*c[i][0] + a[i][1]*c[i][1] + a[i][2]*c[i][2]
	}
	b.cgPart[blk] = s
}

// dot returns a·c, summed over fixed blocks in block order (the same on any worker count).
func (b *Body) dot(a, c []Vec3, pool *par.Pool) float64 {
	b.cgA, b.cgB = a, c
	pool.For(b.n, b.fnDot)
	return par.Sum(b.cgPart)
}

// axpyBlock is one CG update for particles [lo, hi): x += α p, r −= α q (q = A p), and the
// block's part of the new r·r into cgPart2[blk].
func (b *Body) axpyBlock(lo, hi, blk int) {
	al := b.cgAlpha
	x, r, p, q := b.cgX, b.cgR, b.cgP, b.cgQ
	s := 0.0
	for i := lo; i < hi; i++ {
		for d := 0; d < 3; d++ {
			x[i][d] += al * p[i][d]
			r[i][d] -= al * q[i][d]
		}
		s += r[i][0]*r[i][0] + r[i][1]*r[i][1] + r[i][2]*r[i][2]
	}
	b.cgPart2[blk] = s
}

// solveImplicit adds to v (which holds v' = v* + the explicit update) the solution Δv of
// (I − Δt²K/m) Δv = Δt²K v'/m and returns the CG iterations.
func (b *Body) solveImplicit(pool *par.Pool) int {
	c := b.dt * b.dt / b.mass
	v, x, r, p, q := b.v, b.cgX, b.cgR, b.cgP, b.cgQ
	// b = c K v'; with x = 0, r = b.
	pool.For(b.n, b.fnTranspose)
	b.applyK(v, r, c, false, pool)
	clear(x)
	copy(p, r)
	rr := b.dot(r, r, pool)
	stop := ImplicitTolerance * ImplicitTolerance * rr
	it := 0
	for ; it < ImplicitMaxIterations && rr > stop && rr > 0; it++ {
		// q = A p = p − c K p.
		b.applyK(p, q, c, true, pool)
		pq := b.dot(p, q, pool)
		if !(pq > 0) {
			break
		}
		b.cgAlpha = rr / pq
		pool.For(b.n, b.fnAxpy)
		rn := par.Sum(b.cgPart2)
		beta := rn / rr
		rr = rn
		for i := range p {
			p[i][0] = r[i][0] + beta*p[i][0]
			p[i][1] = r[i][1] + beta*p[i][1]
			p[i][2] = r[i][2] + beta*p[i][2]
		}
	}
	if !math.IsNaN(rr) {
		for i := range v {
			v[i][0] += x[i][0]
			v[i][1] += x[i][1]
			v[i][2] += x[i][2]
		}
	}
	return it
}
