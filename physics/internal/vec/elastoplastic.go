package vec

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// FitSums returns the sums of the weighted least-squares fit of an affine motion over a
// neighbourhood (the moment matrices of D. Gerszewski et al. 2009, Eq. 4.5, with the poly6
// weights of Eq. 4.7 without their constant): for the neighbours j of js, with the offsets
// d = x[j] − xi and e = y[j] − yi and r² = |d|² = (d₀d₀ + d₁d₁) + d₂d₂, every neighbour with
// r² not ≥ h2 is counted and adds, with w = ((h2 − r²)(h2 − r²))(h2 − r²) and ω = w·w,
//
//	s[0:6]  the upper triangle of Σ ω d dᵀ, in the order 00, 01, 02, 11, 12, 22, each term (ω d_a) d_b,
//	s[6:15] Σ ω e dᵀ row by row (s[6+3a+b] has the terms (ω e_a) d_b).
//
// Neighbour k of the list adds into lane k mod 4 of each sum, each lane in list order, and the
// four lanes are added as (l₀ + l₁) + (l₂ + l₃): the assembly takes four neighbours a step,
// and the Go loop does the same operations in the same order, so both give the same bits.
// Every j must index x and y (the assembly does not check).
func FitSums(js []int32, x, y []mgl64.Vec3, xi, yi *mgl64.Vec3, h2 float64) (s [15]float64, cnt int) {
	var acc [15][4]float64
	if HasAVX2 && len(js) > 0 {
		// The assembly reads four indices a step: the whole groups from js, the last
		// partial group from a padded copy, so it never reads past the slice.
		n4 := len(js) &^ 3
		if n4 > 0 {
			cnt = fitSumsAVX(&js[0], n4, &x[0], &y[0], xi, yi, h2, &acc)
		}
		if n4 < len(js) {
			var tail [4]int32
			copy(tail[:], js[n4:])
			cnt += fitSumsAVX(&tail[0], len(js)-n4, &x[0], &y[0], xi, yi, h2, &acc)
		}
	} else {
		cnt = fitSumsGo(js, x, y, xi, yi, h2, &acc)
	}
	for k := range s {
		s[k] = (acc[k][0] + acc[k][1]) + (acc[k][2] + acc[k][3])
	}
	return s, cnt
}

// fitSumsGo is the Go loop of FitSums: it adds into the lanes of acc and returns the count.
func fitSumsGo(js []int32, x, y []mgl64.Vec3, xi, yi *mgl64.Vec3, h2 float64, acc *[15][4]float64) int {
	cnt := 0
	for k, j := range js {
		xj, yj := &x[j], &y[j]
		d0, d1, d2 := xj[0]-xi[0], xj[1]-xi[1], xj[2]-xi[2]
		r2 := d0*d0 + d1*d1 + d2*d2
		if r2 >= h2 {
			continue
		}
		cnt++
		q := h2 - r2
		w := q * q * q
		w2 := w * w
		e0, e1, e2 := yj[0]-yi[0], yj[1]-yi[1], yj[2]-yi[2]
		l := k & 3
		t := w2 * d0
		acc[0][l] += t * d0
		acc[1][l] += t * d1
		acc[2][l] += t * d2
		t = w2 * d1
		acc[3][l] += t * d1
		acc[4][l] += t * d2
		t = w2 * d2
		acc[5][l] += t * d2
		t = w2 * e0
		acc[6][l] += t * d0
		acc[7][l] += t * d1
		acc[8][l] += t * d2
		t = w2 * e1
		acc[9][l] += t * d0
		acc[10][l] += t * d1
		acc[11][l] += t * d2
		t = w2 * e2
		acc[12][l] += t * d0
		acc[13][l] += t * d1
		acc[14][l] += t * d2
	}
	return cnt
}

// CosQuarterSq returns cos √y for 0 ≤ y ≤ (π/2)²: the Taylor series of cos to x²⁰, a
// polynomial of degree 10 in y = x² (the derivative of the Solenthaler kernel of the
// elastoplastic forces, cos(ρπ/(2h)) for 0 ≤ ρ < h). The first term left out,
// x²²/22! ≤ (π/2)²²/22! ≈ 2·10⁻¹⁷, is below double round-off, so the result matches math.Cos
// to a few ulp at a fraction of the cost of its argument reduction. Taking y instead of x lets
// the caller pass ρ²(π/(2h))² without waiting for the square root of ρ². The polynomial is
// evaluated by Estrin's scheme (pairs of coefficients combined with y, y², y⁴, y⁸) rather than
// Horner's rule: the same terms, but a chain of 5 dependent multiply-adds instead of 10.
// PairScalars' assembly evaluates the same operations in the same order.
func CosQuarterSq(y float64) float64 {
	y2 := y * y
	y4 := y2 * y2
	a0 := 1 + cosC1*y
	a1 := cosC2 + cosC3*y
	a2 := cosC4 + cosC5*y
	a3 := cosC6 + cosC7*y
	a4 := cosC8 + cosC9*y
	b0 := a0 + a1*y2
	b1 := a2 + a3*y2
	b2 := a4 + cosC10*y2
	return b0 + y4*(b1+y4*b2)
}

// The coefficients of CosQuarterSq, (−1)ᵏ/(2k)!.
const (
	cosC1  = -1.0 / 2
	cosC2  = 1.0 / 24
	cosC3  = -1.0 / 720
	cosC4  = 1.0 / 40320
	cosC5  = -1.0 / 3628800
	cosC6  = 1.0 / 479001600
	cosC7  = -1.0 / 87178291200
	cosC8  = 1.0 / 20922789888000
	cosC9  = -1.0 / 6402373705728000
	cosC10 = 1.0 / 2432902008176640000
)

// PairArgs holds one particle's constants for PairScalars, and its sums.
type PairArgs struct {
	A       [9]float64 // the particle's F⁻¹, row-major
	Xi      mgl64.Vec3 // its position
	H       float64    // the kernel's support radius
	NegSolC float64    // −c of the Solenthaler kernel
	PiH2    float64    // (π/(2h))²
	NegVol  float64    // −v, the particle's rest volume negated
	// broadcast: the fields above, each in the four lanes of a row, in the order A, Xi, H,
	// NegSolC, PiH2, NegVol; and the sums' lanes. Filled by PairScalars.
	broadcast [16][4]float64
	acc       [6][4]float64
}

// PairScalars computes, for the neighbours j = js[k] of a particle at xi with F⁻¹ = A, the
// terms of the elastoplastic forces (Gerszewski et al. 2009, Eq. 4.10-4.13) that depend on the
// pair alone:
//
//	r = xi − x[j] (per component), u = A r (each row ((a₀r₀ + a₁r₁) + a₂r₂)),
//	ρ² = (u₀u₀ + u₁u₁) + u₂u₂, ρ = √ρ²,
//	s = ((−c)·CosQuarterSq(ρ²·(π/(2h))²))/ρ where ρ < h and ρ ≠ 0, else s = 0,
//
// stored as ps[k] = s and u0[k], u1[k], u2[k] = u; and it returns the upper triangle of
// Σ w u uᵀ with w = (−v)·s over the pairs with s set, in the order 00, 01, 02, 11, 12, 22, each
// term (w u_a) u_b. Pair k adds into lane k mod 4 of each sum, each lane in list order, the
// lanes added as (l₀ + l₁) + (l₂ + l₃): the assembly takes four pairs a step, the Go loop does
// the same operations in the same order, and both give the same bits. ps, u0, u1 and u2 must
// have room for len(js) rounded up to a multiple of 4 (the assembly writes whole groups), and
// every j must index x (the assembly does not check).
func PairScalars(js []int32, x []mgl64.Vec3, ps, u0, u1, u2 []float64, p *PairArgs) (c [6]float64) {
	n := len(js)
	if up := (n + 3) &^ 3; cap(ps) < up || cap(u0) < up || cap(u1) < up || cap(u2) < up {
		panic("vec: PairScalars needs room for whole groups of four")
	}
	p.acc = [6][4]float64{}
	if HasAVX2 && n > 0 {
		for k, v := range [16]float64{p.A[0], p.A[1], p.A[2], p.A[3], p.A[4], p.A[5], p.A[6], p.A[7], p.A[8], p.Xi[0], p.Xi[1], p.Xi[2], p.H, p.NegSolC, p.PiH2, p.NegVol} {
			p.broadcast[k] = [4]float64{v, v, v, v}
		}
		ps, u0, u1, u2 = ps[:cap(ps)], u0[:cap(u0)], u1[:cap(u1)], u2[:cap(u2)]
		n4 := n &^ 3
		if n4 > 0 {
			pairScalarsAVX(&js[0], n4, &x[0], &ps[0], &u0[0], &u1[0], &u2[0], p)
		}
		if n4 < n {
			var tail [4]int32
			copy(tail[:], js[n4:])
			pairScalarsAVX(&tail[0], n-n4, &x[0], &ps[n4], &u0[n4], &u1[n4], &u2[n4], p)
		}
	} else {
		pairScalarsGo(js, x, ps, u0, u1, u2, p)
	}
	for k := range c {
		c[k] = (p.acc[k][0] + p.acc[k][1]) + (p.acc[k][2] + p.acc[k][3])
	}
	return c
}

// pairScalarsGo is the Go loop of PairScalars; it adds into the lanes of p.acc.
func pairScalarsGo(js []int32, x []mgl64.Vec3, ps, u0s, u1s, u2s []float64, p *PairArgs) {
	a, xi := &p.A, &p.Xi
	h, negSolC, piH2, negVol := p.H, p.NegSolC, p.PiH2, p.NegVol
	ps, u0s, u1s, u2s = ps[:len(js)], u0s[:len(js)], u1s[:len(js)], u2s[:len(js)]
	for k, j := range js {
		xj := &x[j]
		r0, r1, r2 := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
		u0 := a[0]*r0 + a[1]*r1 + a[2]*r2
		u1 := a[3]*r0 + a[4]*r1 + a[5]*r2
		u2 := a[6]*r0 + a[7]*r1 + a[8]*r2
		u0s[k], u1s[k], u2s[k] = u0, u1, u2
		rho2 := u0*u0 + u1*u1 + u2*u2
		rho := math.Sqrt(rho2)
		ps[k] = 0
		if rho < h && rho != 0 {
			s := negSolC * CosQuarterSq(rho2*piH2) / rho
			ps[k] = s
			w := negVol * s
			l := k & 3
			t := w * u0
			p.acc[0][l] += t * u0
			p.acc[1][l] += t * u1
			p.acc[2][l] += t * u2
			t = w * u1
			p.acc[3][l] += t * u1
			p.acc[4][l] += t * u2
			p.acc[5][l] += w * u2 * u2
		}
	}
}

// PairTerms sets pa[k] = M (s_k u_k) for the pairs of one row, with s and u (u0, u1, u2) as
// PairScalars left them and M a particle's 3x3 matrix (row-major): q = (s u₀, s u₁, s u₂) and
// each row ((m₀q₀ + m₁q₁) + m₂q₂); pa[k] = 0 where s_k = 0. The assembly takes whole groups of
// four and the Go loop the rest, with the same operations (the pairs do not mix), so the two
// give the same bits.
func PairTerms(s, u0, u1, u2 []float64, m *[9]float64, pa []mgl64.Vec3) {
	n := len(s)
	u0, u1, u2, pa = u0[:n], u1[:n], u2[:n], pa[:n]
	n4 := 0
	if HasAVX2 {
		n4 = n &^ 3
		if n4 > 0 {
			pairTermsAVX(&s[0], &u0[0], &u1[0], &u2[0], n4, m, &pa[0])
		}
	}
	pairTermsGo(s[n4:], u0[n4:], u1[n4:], u2[n4:], m, pa[n4:])
}

func pairTermsGo(s, u0, u1, u2 []float64, m *[9]float64, pa []mgl64.Vec3) {
	u0, u1, u2, pa = u0[:len(s)], u1[:len(s)], u2[:len(s)], pa[:len(s)]
	for k, sk := range s {
		if sk == 0 {
			pa[k] = mgl64.Vec3{}
			continue
		}
		q0, q1, q2 := sk*u0[k], sk*u1[k], sk*u2[k]
		pa[k] = mgl64.Vec3{m[0]*q0 + m[1]*q1 + m[2]*q2, m[3]*q0 + m[4]*q1 + m[5]*q2, m[6]*q0 + m[7]*q1 + m[8]*q2}
	}
}

// ForceArgs holds one particle's constants for PairForces.
type ForceArgs struct {
	HFi     [9]float64 // half the particle's fitted affine map of the step, row-major
	Xi, XPi mgl64.Vec3 // its present and previous positions
	K       float64    // v²Δt/m, the factor of the force's velocity change
	Damp    float64    // εv/Δt_prev, the zero-mode damping's factor; must not be 0
	InvH, W float64    // 1/h and the normalisation k of the cubic spline W (physics.Kernel.Consts)
	// broadcast: HFi, Xi, XPi, K, Damp, InvH, 2k, k, each in the four lanes of a row (20
	// rows), in that order. Filled by PairForces. mask: the assembly's scratch.
	broadcast [20][4]float64
	mask      [4]uint64
}

// PairForces is the pair pass of the elastoplastic forces (Gerszewski et al. 2009, Eq. 4.10-4.13,
// with the zero-mode damping) over the entries e = e0, e0+1, … of one row i, whose neighbours js
// all exceed i, and the entries pts of the same pairs in their neighbours' rows. For entry e with
// neighbour j = js[e−e0], from the terms pa[e] (particle i's) and pa[p] (particle j's), p = pts[·]:
//
//	r = Xi − x[j], s = xp[j] − XPi, h_c = (−r_c) − (((Fi+Fj)_c0 s₀ + (Fi+Fj)_c1 s₁) + (Fi+Fj)_c2 s₂)
//	with F = hf (half the fitted maps), rr = (r₀r₀ + r₁r₁) + r₂r₂, w = float32(W(√rr)) (the cubic
//	spline as physics.Kernel.CubicW evaluates it), q = ((Damp·w)·((h₀r₀ + h₁r₁) + h₂r₂))/rr,
//	g = K(pa[e] − pa[p]) + q r, and then pa[e] = g, pa[p] = −g.
//
// Each pair is independent; the assembly takes four at a time (the last group with its lanes
// past the end masked off, when js and pts have room for it, else the Go loop takes the
// rest), with the same operations as the Go loop, so the two give the same bits. Every index
// must be in range (the assembly does not check).
func PairForces(js, pts []int32, e0 int, pa, x, xp []mgl64.Vec3, hf [][9]float64, a *ForceArgs) {
	n := len(js)
	pts = pts[:n]
	n4 := 0
	if HasAVX2 && n > 0 {
		// The assembly reads the indices four at a time: with room for the last group in
		// both lists it takes all pairs, else the whole groups and the Go loop the rest.
		n4 = n &^ 3
		if up := (n + 3) &^ 3; cap(js) >= up && cap(pts) >= up {
			n4 = n
		}
	}
	if n4 > 0 {
		for k := 0; k < 9; k++ {
			a.broadcast[k] = [4]float64{a.HFi[k], a.HFi[k], a.HFi[k], a.HFi[k]}
		}
		for k, v := range [11]float64{a.Xi[0], a.Xi[1], a.Xi[2], a.XPi[0], a.XPi[1], a.XPi[2], a.K, a.Damp, a.InvH, a.W * 2, a.W} {
			a.broadcast[9+k] = [4]float64{v, v, v, v}
		}
		pairForcesAVX(&js[0], &pts[0], n4, &pa[e0], &pa[0], &x[0], &xp[0], &hf[0], a)
	}
	pairForcesGo(js[n4:], pts[n4:], e0+n4, pa, x, xp, hf, a)
}

// pairForcesGo is the Go loop of PairForces.
func pairForcesGo(js, pts []int32, e0 int, pa, x, xp []mgl64.Vec3, hf [][9]float64, a *ForceArgs) {
	fi, xi, xpi := &a.HFi, &a.Xi, &a.XPi
	k, damp, invH, kw := a.K, a.Damp, a.InvH, a.W
	pts = pts[:len(js)]
	for n, j := range js {
		e, p := e0+n, pts[n]
		ae, ap := &pa[e], &pa[p]
		g0, g1, g2 := k*(ae[0]-ap[0]), k*(ae[1]-ap[1]), k*(ae[2]-ap[2])
		xj, xpj, fj := &x[j], &xp[j], &hf[j]
		r0, r1, r2 := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
		s0, s1, s2 := xpj[0]-xpi[0], xpj[1]-xpi[1], xpj[2]-xpi[2]
		h0 := -r0 - ((fi[0]+fj[0])*s0 + (fi[1]+fj[1])*s1 + (fi[2]+fj[2])*s2)
		h1 := -r1 - ((fi[3]+fj[3])*s0 + (fi[4]+fj[4])*s1 + (fi[5]+fj[5])*s2)
		h2 := -r2 - ((fi[6]+fj[6])*s0 + (fi[7]+fj[7])*s1 + (fi[8]+fj[8])*s2)
		rr := r0*r0 + r1*r1 + r2*r2
		w := float32(CubicW(math.Sqrt(rr), invH, kw))
		q := damp * float64(w) * (h0*r0 + h1*r1 + h2*r2) / rr
		g0 += q * r0
		g1 += q * r1
		g2 += q * r2
		pa[e], pa[p] = mgl64.Vec3{g0, g1, g2}, mgl64.Vec3{-g0, -g1, -g2}
	}
}

// CubicW is the cubic spline W(r) = k·(6q³ − 6q² + 1) for q = r/h ≤ ½, k·2(1 − q)³ for
// ½ < q < 1, 0 beyond, with the operations of physics.Kernel.W (which this package cannot
// import; the elastoplastic package's tests check the two give the same bits).
func CubicW(r, invH, k float64) float64 {
	q := r * invH
	if q >= 1 {
		return 0
	}
	if q <= 0.5 {
		q2 := q * q
		return k * (6*q2*q - 6*q2 + 1)
	}
	a := 1 - q
	return k * 2 * a * a * a
}
