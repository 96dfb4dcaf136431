// Package vec holds the few loops of the solvers that run as vector assembly on x86-64
// processors with AVX2, each with a Go loop that does the same operations in the same order,
// so that both give the same results bit for bit. The Go loops run elsewhere, when the
// processor lacks AVX2, and in builds with -tags purego.
package vec

// HasAVX2 reports whether the assembly loops are used: the processor has AVX2 and POPCNT and
// the system saves the vector registers. Tests clear it to compare the Go loops.
var HasAVX2 = hasAVX2()

// GatherSum4 returns Σ_k g_k·v[j_k] over the pairs (j_k, g_k) of a neighbour list, each of the
// four components summed in list order with one rounding per product and per sum (no fused
// multiply-add): the first loop of the IISPH sweeps and of similar gathers, where v holds one
// four-vector per particle.
func GatherSum4(js []int32, gs []float32, v [][4]float64) [4]float64 {
	gs = gs[:len(js)]
	if HasAVX2 && len(js) > 0 {
		var out [4]float64
		gatherSum4AVX(&js[0], &gs[0], len(js), &v[0], &out)
		return out
	}
	return gatherSum4Go(js, gs, v)
}

func gatherSum4Go(js []int32, gs []float32, v [][4]float64) [4]float64 {
	var a, b, c, d float64
	gs = gs[:len(js)]
	for k, j := range js {
		g, vj := float64(gs[k]), &v[j]
		a += g * vj[0]
		b += g * vj[1]
		c += g * vj[2]
		d += g * vj[3]
	}
	return [4]float64{a, b, c, d}
}

// KGradSum returns Σ_k m·(y[3] + v[j_k][3])·g_k·(y[0:3] − v[j_k][0:3]) over the pairs (j_k, g_k)
// of a neighbour list, in list order, with the products and sums in that order and no fused
// multiply-add: the pressure term of DFSPH's velocity correction for a single mass,
// m (k_i + k_j) ∇W_ij with ∇W_ij = G_ij (y_i − y_j), where y holds a particle's shifted
// position and its stiffness.
func KGradSum(js []int32, gs []float32, v [][4]float64, y *[4]float64, m float64) [3]float64 {
	gs = gs[:len(js)]
	if HasAVX2 && len(js) > 0 {
		var out [4]float64
		kGradSumAVX(&js[0], &gs[0], len(js), &v[0], y, m, &out)
		return [3]float64{out[0], out[1], out[2]}
	}
	return kGradSumGo(js, gs, v, y, m)
}

func kGradSumGo(js []int32, gs []float32, v [][4]float64, y *[4]float64, m float64) [3]float64 {
	var a, b, c float64
	gs = gs[:len(js)]
	ki := y[3]
	for k, j := range js {
		vj := &v[j]
		f := m * (ki + vj[3]) * float64(gs[k])
		a += f * (y[0] - vj[0])
		b += f * (y[1] - vj[1])
		c += f * (y[2] - vj[2])
	}
	return [3]float64{a, b, c}
}
