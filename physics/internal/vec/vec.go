// Package vec holds the few loops of the solvers that run as vector assembly on x86-64
// processors with AVX2, each with a Go loop that does the same operations in the same order,
// so that both give the same results bit for bit. The Go loops run elsewhere, when the
// processor lacks AVX2, and in builds with -tags purego.
package vec

import "github.com/go-gl/mathgl/mgl64"

// HasAVX2 reports whether the assembly loops are used: the processor has AVX2 and POPCNT and
// the system saves the vector registers. Tests clear it to compare the Go loops.
var HasAVX2 = hasAVX2()

// GatherSum4 returns Σ_k g_k·v[j_k] over the pairs (j_k, g_k) of a neighbour list, each of the
// four components summed in four partial sums s_0..s_3, s_r of the pairs whose number in the
// list is r modulo 4 (the last len(js) mod 4 pairs all in s_0), each in list order, then
// (s_0 + s_1) + (s_2 + s_3), with one rounding per product and per sum (no fused
// multiply-add): the first loop of the IISPH sweeps and of similar gathers, where v holds one
// four-vector per particle. Four partial sums let a pair's addition start before the previous
// three pairs' have finished (an addition's latency is about three cycles; with two partial
// sums the chains of additions bound the loop), and let the assembly widen four g_k at once.
// The solvers call GatherSum4Rows, a block of lists at a time; this is its one-list form.
func GatherSum4(js []int32, gs []float32, v [][4]float64) [4]float64 {
	start := [2]int32{0, int32(len(js))}
	var out [1][4]float64
	GatherSum4Rows(start[:], js, gs, v, 1, out[:])
	return out[0]
}

func gatherSum4Go(js []int32, gs []float32, v [][4]float64) [4]float64 {
	var s [4][4]float64 // the pairs by their number modulo 4, the last len(js) mod 4 in s[0]
	gs = gs[:len(js)]
	tail := len(js) &^ 3
	for k, j := range js {
		g, vj, a := float64(gs[k]), &v[j], &s[k&3]
		if k >= tail {
			a = &s[0]
		}
		a[0] += g * vj[0]
		a[1] += g * vj[1]
		a[2] += g * vj[2]
		a[3] += g * vj[3]
	}
	var out [4]float64
	for c := range out {
		out[c] = (s[0][c] + s[1][c]) + (s[2][c] + s[3][c])
	}
	return out
}

// GatherSum4Rows is GatherSum4 for the n query points of a neighbour block whose pairs of
// point k are start[k] ≤ e < start[k+1]: out[k] = GatherSum4(js[start[k]:start[k+1]],
// gs[start[k]:start[k+1]], v), bit for bit, in one call per block instead of one per point.
func GatherSum4Rows(start, js []int32, gs []float32, v [][4]float64, n int, out [][4]float64) {
	if n <= 0 {
		return
	}
	_, _ = start[n], out[n-1]
	if HasAVX2 && start[n] > start[0] {
		_, _ = js[start[n]-1], gs[start[n]-1]
		gatherSum4RowsAVX(&start[0], &js[0], &gs[0], &v[0], n, &out[0])
		return
	}
	for k := 0; k < n; k++ {
		out[k] = gatherSum4Go(js[start[k]:start[k+1]], gs[start[k]:start[k+1]], v)
	}
}

// KGradSum returns Σ_k m·(y[3] + v[j_k][3])·g_k·(y[0:3] − v[j_k][0:3]) over the pairs (j_k, g_k)
// of a neighbour list, summed in two partial sums (even and odd pairs apart, each in list
// order, then even + odd), with the products in that order and no fused multiply-add: the
// pressure term of DFSPH's velocity correction for a single mass, m (k_i + k_j) ∇W_ij with
// ∇W_ij = G_ij (y_i − y_j), where y holds a particle's shifted position and its stiffness.
// DFSPH calls KGradSumRows, a block of lists at a time; this is its one-list form.
func KGradSum(js []int32, gs []float32, v [][4]float64, y *[4]float64, m float64) [3]float64 {
	start := [2]int32{0, int32(len(js))}
	ys := [1][4]float64{*y}
	var out [1][4]float64
	KGradSumRows(start[:], js, gs, v, ys[:], m, 1, out[:])
	return [3]float64{out[0][0], out[0][1], out[0][2]}
}

func kGradSumGo(js []int32, gs []float32, v [][4]float64, y *[4]float64, m float64) [3]float64 {
	var s [2][3]float64 // even and odd pairs
	gs = gs[:len(js)]
	ki := y[3]
	for k, j := range js {
		vj, a := &v[j], &s[k&1]
		f := m * (ki + vj[3]) * float64(gs[k])
		a[0] += f * (y[0] - vj[0])
		a[1] += f * (y[1] - vj[1])
		a[2] += f * (y[2] - vj[2])
	}
	return [3]float64{s[0][0] + s[1][0], s[0][1] + s[1][1], s[0][2] + s[1][2]}
}

// KGradSumRows is KGradSum for the n query points of a neighbour block (pairs as in
// GatherSum4Rows), point k with y = ys[k]: out[k][0:3] = KGradSum(js[start[k]:start[k+1]],
// gs[start[k]:start[k+1]], v, &ys[k], m), bit for bit (out[k][3] is unused).
func KGradSumRows(start, js []int32, gs []float32, v, ys [][4]float64, m float64, n int, out [][4]float64) {
	if n <= 0 {
		return
	}
	_, _, _ = start[n], out[n-1], ys[n-1]
	if HasAVX2 && start[n] > start[0] {
		_, _ = js[start[n]-1], gs[start[n]-1]
		kGradSumRowsAVX(&start[0], &js[0], &gs[0], &v[0], &ys[0], m, n, &out[0])
		return
	}
	for k := 0; k < n; k++ {
		a := kGradSumGo(js[start[k]:start[k+1]], gs[start[k]:start[k+1]], v, &ys[k], m)
		out[k] = [4]float64{a[0], a[1], a[2]}
	}
}

// PredictSums returns the pair sums of IISPH's prediction pass for one particle i of a single
// mass, over the pairs (j_k, g_k) of its list with ∇W_k = g_k (x_i − x_j):
//
//	s = Σ_k ∇W_k,  gg = Σ_k |∇W_k|²,  div = Σ_k (v_i − v_j)·∇W_k,  qs = Σ_k q[j_k][3] ∇W_k.
//
// Each sum runs per component in two partial sums, of the even-numbered pairs and of the odd
// ones, each in list order, then even + odd (as GatherSum4, so that a pair's sums do not wait
// for the pair before); gg and div add their three components at the end, (x + y) + z. One
// rounding per product and per sum, no fused multiply-add.
func PredictSums(js []int32, gs []float32, x, v []mgl64.Vec3, q [][4]float64, xi, vi *mgl64.Vec3) (s [3]float64, gg, div float64, qs [3]float64) {
	gs = gs[:len(js)]
	var out [4][4]float64
	if HasAVX2 && len(js) > 0 {
		predictSumsAVX(&js[0], &gs[0], len(js), &x[0], &v[0], &q[0], xi, vi, &out)
	} else {
		predictSumsGo(js, gs, x, v, q, xi, vi, &out)
	}
	o := &out
	return [3]float64{o[0][0], o[0][1], o[0][2]}, (o[1][0] + o[1][1]) + o[1][2], (o[2][0] + o[2][1]) + o[2][2], [3]float64{o[3][0], o[3][1], o[3][2]}
}

// FactorSums returns the pair sums of DFSPH's factor pass for one particle i of a single mass,
// over the pairs (j_k, g_k) of its list with ∇W_k = g_k (x_i − x_j):
//
//	gy = (Σ_k g_k (x_j − c), Σ_k g_k),  s = Σ_k ∇W_k,
//	sq = Σ_k |∇W_k|²,  div = Σ_k (v_i − v_j)·∇W_k,
//
// the sums the factor α_i (Bender & Koschier 2017, Eq. 11), the first divergence source
// (Eq. 9) and the per-step sums of the solver's y-trick need. Every sum runs in list order;
// each pair's |∇W_k|² and (v_i − v_j)·∇W_k are formed as (x + y) + z before they are added,
// so the results are bit for bit those of the plain loop (no fused multiply-add).
func FactorSums(js []int32, gs []float32, x, v []mgl64.Vec3, xi, vi, c *mgl64.Vec3) (gy [4]float64, s [3]float64, sq, div float64) {
	gs = gs[:len(js)]
	var out [3][4]float64
	if HasAVX2 && len(js) > 0 {
		// lane 3 of x_j − c is 0 − (−1) = 1, so that lane of the y sum collects Σ g_k
		c4 := [4]float64{c[0], c[1], c[2], -1}
		factorSumsAVX(&js[0], &gs[0], len(js), &x[0], &v[0], xi, vi, &c4, &out)
	} else {
		factorSumsGo(js, gs, x, v, xi, vi, c, &out)
	}
	return out[0], [3]float64{out[1][0], out[1][1], out[1][2]}, out[2][0], out[2][1]
}

// factorSumsGo is the Go loop of FactorSums: out holds gy, s and (sq, div).
func factorSumsGo(js []int32, gs []float32, x, v []mgl64.Vec3, xi, vi, c *mgl64.Vec3, out *[3][4]float64) {
	var yx, yy, yz, sg, gx, gy, gz, sq, div float64
	for k, j := range js {
		xj, vj := &x[j], &v[j]
		g := float64(gs[k])
		sg += g
		yx += g * (xj[0] - c[0])
		yy += g * (xj[1] - c[1])
		yz += g * (xj[2] - c[2])
		g0, g1, g2 := g*(xi[0]-xj[0]), g*(xi[1]-xj[1]), g*(xi[2]-xj[2])
		gx += g0
		gy += g1
		gz += g2
		sq += g0*g0 + g1*g1 + g2*g2
		div += (vi[0]-vj[0])*g0 + (vi[1]-vj[1])*g1 + (vi[2]-vj[2])*g2
	}
	*out = [3][4]float64{{yx, yy, yz, sg}, {gx, gy, gz}, {sq, div}}
}

// predictSumsGo is the Go loop of PredictSums; out holds the per-component sums of ∇W, of its
// squares, of the velocity products and of q∇W, one row each.
func predictSumsGo(js []int32, gs []float32, x, v []mgl64.Vec3, q [][4]float64, xi, vi *mgl64.Vec3, out *[4][4]float64) {
	var a [2][4][4]float64 // the even-numbered pairs' sums and the odd ones'
	for k, j := range js {
		c := float64(gs[k])
		xj, vj, qj := &x[j], &v[j], q[j][3]
		s, gg, dv, qs := &a[k&1][0], &a[k&1][1], &a[k&1][2], &a[k&1][3]
		for d := 0; d < 3; d++ {
			g := c * (xi[d] - xj[d])
			s[d] += g
			gg[d] += g * g
			dv[d] += (vi[d] - vj[d]) * g
			qs[d] += qj * g
		}
	}
	for r := range out {
		for d := range out[r] {
			out[r][d] = a[0][r][d] + a[1][r][d]
		}
	}
}
