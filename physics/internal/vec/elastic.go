package vec

import "github.com/go-gl/mathgl/mgl64"

// The two pair loops of each conjugate-gradient product of the implicit elastic solve (Peer et
// al. 2018, Algorithm 2 with Eq. 22/23 and Eq. 10; package physics/elastic).

// StressRow is a symmetric 3×3 stress P laid out so that each of its three columns is four
// consecutive entries of the row, starting at 0 (the first column: xx, xy, xz), 5 (the second:
// xy, yy, yz) and 2 (the third: xz, yz, zz):
//
//	[xx, xy, xz, yz, zz, xy, yy, yz]
//
// A column's fourth entry is the next one in memory (for the second column the next row's
// first), which the loops read and never use: a slice of rows read by StressDiv needs one row
// more than the particles it holds.
type StressRow = [8]float64

// SetStress stores the symmetric stress with the given components in the layout of StressRow.
func SetStress(p *StressRow, xx, yy, zz, xy, xz, yz float64) {
	*p = StressRow{xx, xy, xz, yz, zz, xy, yy, yz}
}

// Stress returns the components xx, yy, zz, xy, xz, yz of a StressRow.
func Stress(p *StressRow) [6]float64 { return [6]float64{p[0], p[6], p[4], p[1], p[2], p[3]} }

// StressDiv returns Σ_k P_{j_k} b_k over the pairs (j_k, b_k) of a list, the neighbours' term
// of the elastic force of Eq. 10. Each of the nine products P_st·b_t is summed over the list on
// its own, the pairs at even and odd positions apart (two chains of additions, so that a pair's
// additions need not wait for the last pair's), the two sums added at the end, and then a
// component is the sum over t, (t0 + t1) + t2: one rounding per product and per sum, no fused
// multiply-add. Each b_k is read as four single-precision values, so bs must hold one entry past
// the list's end, and st one row past the largest j (see StressRow).
func StressDiv(js []int32, bs [][3]float32, st []StressRow) [3]float64 {
	var r [12]float64
	if HasAVX2 && len(js) > 0 {
		bs = bs[:len(js)+1]
		stressDivAVX(&js[0], &bs[0], len(js), &st[0], &r)
	} else {
		stressDivGo(js, bs, st, &r)
	}
	return [3]float64{r[0] + r[1] + r[2], r[4] + r[5] + r[6], r[8] + r[9] + r[10]}
}

// stressDivGo sets r[4s+t] = Σ_k P_st b_t (the layout of the assembly's three rows of four).
func stressDivGo(js []int32, bs [][3]float32, st []StressRow, r *[12]float64) {
	var a, b [12]float64
	bs = bs[:len(js)]
	k := 0
	for ; k+1 < len(js); k += 2 {
		stressDivPair(&a, &bs[k], &st[js[k]])
		stressDivPair(&b, &bs[k+1], &st[js[k+1]])
	}
	if k < len(js) {
		stressDivPair(&a, &bs[k], &st[js[k]])
	}
	for c := range r {
		r[c] = a[c] + b[c]
	}
}

// stressDivPair adds one pair's products P_st b_t to r[4s+t].
func stressDivPair(r *[12]float64, b *[3]float32, p *StressRow) {
	b0, b1, b2 := float64(b[0]), float64(b[1]), float64(b[2])
	for s, at := range [3]int{0, 5, 2} { // the rows (= columns) of P in the StressRow
		r[4*s] += p[at] * b0
		r[4*s+1] += p[at+1] * b1
		r[4*s+2] += p[at+2] * b2
	}
}

// OuterSums returns M = Σ_k (src[j_k] − o) ⊗ g_k over the pairs (j_k, g_k) of a list, as three
// rows of four (M_st at 4s+t; the fourth entry of a row is unused): the strain sums of the
// elastic solve's passes (Eq. 3, 13, 22), with o the particle's own position or velocity.
// Each of the nine products (a_s − o_s)·g_t is summed over the list on its own, the pairs at
// even and odd positions apart (as in StressDiv), the two sums added at the end: one rounding
// per difference, product and sum, no fused multiply-add. Each g_k is read as four
// single-precision values, so gs must hold one entry past the list's end.
func OuterSums(js []int32, gs [][3]float32, src []mgl64.Vec3, o *mgl64.Vec3) [12]float64 {
	var m [12]float64
	if HasAVX2 && len(js) > 0 {
		gs = gs[:len(js)+1]
		outerSumsAVX(&js[0], &gs[0], len(js), &src[0], o, &m)
	} else {
		outerSumsGo(js, gs, src, o, &m)
	}
	return m
}

func outerSumsGo(js []int32, gs [][3]float32, src []mgl64.Vec3, o *mgl64.Vec3, m *[12]float64) {
	var a, b [12]float64
	gs = gs[:len(js)]
	k := 0
	for ; k+1 < len(js); k += 2 {
		outerPair(&a, &gs[k], &src[js[k]], o)
		outerPair(&b, &gs[k+1], &src[js[k+1]], o)
	}
	if k < len(js) {
		outerPair(&a, &gs[k], &src[js[k]], o)
	}
	for c := range m {
		m[c] = a[c] + b[c]
	}
}

// outerPair adds one pair's products (a_s − o_s) g_t to m[4s+t].
func outerPair(m *[12]float64, g32 *[3]float32, a, o *mgl64.Vec3) {
	g0, g1, g2 := float64(g32[0]), float64(g32[1]), float64(g32[2])
	for s := range 3 {
		d := a[s] - o[s]
		m[4*s] += d * g0
		m[4*s+1] += d * g1
		m[4*s+2] += d * g2
	}
}

// ProductRows is the second pass of the elastic solve's product (Peer et al. 2018, Algorithm 2
// with Eq. 10 and 19) for the particles lo ≤ i < hi of a body whose pairs of particle i are
// start[i] ≤ k < start[i+1]: the force f_i = v2·(P_i·own_i − Σ_k P_{js[k]} bs[k]), with the
// neighbours' sum as StressDiv forms it over the particle's pairs and P_i·own_i with each component (P_s0·a0 + P_s1·a1) + P_s2·a2,
// then ap[i] = src[i] − c·f_i, or zero where pinned[i]. It returns Σ_i src[i]·ap[i] over the
// particles that are not pinned, in order, each term (s0·a0 + s1·a1) + s2·a2: the block's
// partial of p·Ap. bs must hold one entry past start[hi] and st one row past the largest
// index.
func ProductRows(start, js []int32, bs [][3]float32, st []StressRow, own [][4]float64, src []mgl64.Vec3, pinned []bool, c, v2 float64, lo, hi int, ap []mgl64.Vec3) float64 {
	if lo >= hi {
		return 0
	}
	_, _, _, _, _ = start[hi], own[hi-1], src[hi-1], pinned[hi-1], ap[hi-1]
	_ = st[hi] // the row of hi−1 is read as columns, the second one past its end
	if HasAVX2 && len(js) > 0 {
		bs = bs[:start[hi]+1]
		if start[hi] > start[lo] {
			_ = js[start[hi]-1]
		}
		return productRowsAVX(&start[0], &js[0], &bs[0], &st[0], &own[0], &src[0], &pinned[0], lo, hi, c, v2, &ap[0])
	}
	dot := 0.0
	for i := lo; i < hi; i++ {
		if pinned[i] {
			ap[i] = mgl64.Vec3{}
			continue
		}
		var r [12]float64
		stressDivGo(js[start[i]:start[i+1]], bs[start[i]:start[i+1]], st, &r)
		f0, f1, f2 := r[0]+r[1]+r[2], r[4]+r[5]+r[6], r[8]+r[9]+r[10]
		p, a := &st[i], &own[i]
		fx := v2 * (p[0]*a[0] + p[1]*a[1] + p[2]*a[2] - f0)
		fy := v2 * (p[1]*a[0] + p[6]*a[1] + p[3]*a[2] - f1)
		fz := v2 * (p[2]*a[0] + p[3]*a[1] + p[4]*a[2] - f2)
		s := &src[i]
		q := mgl64.Vec3{s[0] - c*fx, s[1] - c*fy, s[2] - c*fz}
		ap[i] = q
		dot += s[0]*q[0] + s[1]*q[1] + s[2]*q[2]
	}
	return dot
}

// StrainLaw is the linear elastic law of the elastic solve's product (Peer et al. 2018,
// Eq. 8 with the strain of Eq. 22/23): C scales the strain sums (Δt·V), G is the shear modulus
// and Lambda = K − 2G/3 (Pa).
type StrainLaw struct{ C, G, Lambda float64 }

// StrainStressRows is the first pass of the elastic solve's product for the particles
// lo ≤ i < hi of a body (pairs as in ProductRows): the sums M = Σ_k (src[j_k] − src[i]) ⊗ g_k
// as OuterSums forms them, the strain e_ss = C·M_ss, e_st = C·(M_st + M_ts) of their
// symmetric part, and the stress of Eq. 8, P_ss = (2G)·e_ss + λ and P_st = G·e_st with
// λ = Lambda·((e_00 + e_11) + e_22), stored in st[i] (the layout of StressRow). gs must hold
// one entry past start[hi].
func StrainStressRows(start, js []int32, gs [][3]float32, src []mgl64.Vec3, lo, hi int, law *StrainLaw, st []StressRow) {
	if lo >= hi {
		return
	}
	_, _, _ = start[hi], st[hi-1], src[hi-1]
	if HasAVX2 && start[hi] > start[lo] {
		gs = gs[:start[hi]+1]
		_ = js[start[hi]-1]
		strainStressRowsAVX(&start[0], &js[0], &gs[0], &src[0], lo, hi, law.C, 2*law.G, law.G, law.Lambda, &st[0])
		return
	}
	c, g := law.C, law.G
	for i := lo; i < hi; i++ {
		var m [12]float64
		outerSumsGo(js[start[i]:start[i+1]], gs[start[i]:start[i+1]], src, &src[i], &m)
		e00, e11, e22 := c*m[0], c*m[5], c*m[10]
		e01, e02, e12 := c*(m[1]+m[4]), c*(m[2]+m[8]), c*(m[6]+m[9])
		lam := law.Lambda * (e00 + e11 + e22)
		SetStress(&st[i], 2*g*e00+lam, 2*g*e11+lam, 2*g*e22+lam, g*e01, g*e02, g*e12)
	}
}

// RotateGradsRows stores the rotated corrected gradients of Eq. 4 for the particles
// lo ≤ i < hi of a body (pairs as in ProductRows): gs[k] = R_i cs[k] rounded to single
// precision, and in sum[i][0:3] the sum of the stored values, Σ_k float64(gs[k]) (sum[i][3]
// unused). rc[i] holds R_i by columns, [R00 R10 R20 · R01 R11 R21 · R02 R12 R22 ·]. A
// component is (R_s0 c0 + R_s1 c1) + R_s2 c2, one rounding per product and sum, no fused
// multiply-add, then rounded to single precision; the sum runs in list order.
func RotateGradsRows(start []int32, rc [][12]float64, cs, gs [][3]float32, lo, hi int, sum [][4]float64) {
	if lo >= hi {
		return
	}
	_, _, _ = start[hi], rc[hi-1], sum[hi-1]
	if HasAVX2 && start[hi] > start[lo] {
		_, _ = cs[start[hi]-1], gs[start[hi]-1]
		rotateGradsRowsAVX(&start[0], &rc[0], &cs[0], &gs[0], lo, hi, &sum[0])
		return
	}
	for i := lo; i < hi; i++ {
		r := &rc[i]
		var s0, s1, s2 float64
		for k := start[i]; k < start[i+1]; k++ {
			c := &cs[k]
			c0, c1, c2 := float64(c[0]), float64(c[1]), float64(c[2])
			g := [3]float32{float32(r[0]*c0 + r[4]*c1 + r[8]*c2), float32(r[1]*c0 + r[5]*c1 + r[9]*c2), float32(r[2]*c0 + r[6]*c1 + r[10]*c2)}
			gs[k] = g
			s0, s1, s2 = s0+float64(g[0]), s1+float64(g[1]), s2+float64(g[2])
		}
		sum[i] = [4]float64{s0, s1, s2}
	}
}

// RotateEach stores gs[k] = R_{js[k]} cs[k] rounded to single precision for every k: each
// gradient turned by the rotation of the particle the pair names (rc as in RotateGradsRows),
// with the operations of RotateGradsRows in their order, so that a gradient turned here equals
// bit for bit the one RotateGradsRows stores for the same rotation and corrected gradient. The
// elastic solve uses it for the reverse pairs' gradients ∇*W_j(x⁰_ji) = R_j L_j ∇W(x⁰_ji)
// (Eq. 4), read in the pairs' order from a constant copy of L_j ∇W(x⁰_ji), where copying
// ∇*W_j(x⁰_ji) from j's list would read one scattered gradient per pair. Every js[k] must
// index rc: the assembly does not check (as ProductRows does not check its rows).
func RotateEach(js []int32, rc [][12]float64, cs, gs [][3]float32) {
	n := len(js)
	if n == 0 {
		return
	}
	_, _ = cs[n-1], gs[n-1]
	if HasAVX2 {
		rotateEachAVX(&js[0], &rc[0], &cs[0], &gs[0], n)
		return
	}
	for k, j := range js {
		r, c := &rc[j], &cs[k]
		c0, c1, c2 := float64(c[0]), float64(c[1]), float64(c[2])
		gs[k] = [3]float32{float32(r[0]*c0 + r[4]*c1 + r[8]*c2), float32(r[1]*c0 + r[5]*c1 + r[9]*c2), float32(r[2]*c0 + r[6]*c1 + r[10]*c2)}
	}
}
