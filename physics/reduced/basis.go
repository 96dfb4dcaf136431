package reduced

import (
	"math"
	"sort"
)

// ambient is the closed-form velocity eigenbasis of the Laplacian on the rectangle
// [0,Lx]×[0,Ly] with free-slip walls (de Witt, Lessig and Fiume 2012, §3): for integer wave
// numbers a1, a2 ≥ 1 and k1 = a1π/Lx, k2 = a2π/Ly the stream function
// ψ = sin(k1 x) sin(k2 y) gives the velocity
//
//	e = n (k2 sin(k1 x) cos(k2 y), −k1 cos(k1 x) sin(k2 y)),  n = 1/√(λ Lx Ly / 4),  λ = k1² + k2²,
//
// which is divergence-free, has zero normal component on every wall, satisfies ∇²e = −λe and
// has unit L² norm. The ambient set holds every pair with a1 ≤ kx, a2 ≤ ky; the simulated basis
// (the dissertation's E, §5.2) is its r modes of smallest λ, and enriched modes (Eq. 5.10) are
// combinations of the others, so every mode of B is a sparse vector over the ambient set and
// every integral below has a closed form.
type ambient struct {
	lx, ly float64
	kx, ky int // wave numbers per axis: a1 ∈ [1,kx], a2 ∈ [1,ky]
}

// index returns the ambient index of (a1, a2), or −1 when out of range.
func (am *ambient) index(a1, a2 int) int {
	if a1 < 1 || a2 < 1 || a1 > am.kx || a2 > am.ky {
		return -1
	}
	return (a1-1)*am.ky + (a2 - 1)
}

func (am *ambient) size() int { return am.kx * am.ky }

func (am *ambient) waves(i int) (a1, a2 int) { return i/am.ky + 1, i%am.ky + 1 }

// k returns the wave vector (k1, k2) of ambient mode i.
func (am *ambient) k(i int) (k1, k2 float64) {
	a1, a2 := am.waves(i)
	return float64(a1) * math.Pi / am.lx, float64(a2) * math.Pi / am.ly
}

// lambda returns the Laplacian eigenvalue λ = k1² + k2² of ambient mode i (∇²e = −λe).
func (am *ambient) lambda(i int) float64 {
	k1, k2 := am.k(i)
	return k1*k1 + k2*k2
}

// norm returns the normalisation n = 1/√(λ Lx Ly/4) of ambient mode i.
func (am *ambient) norm(i int) float64 {
	return 1 / math.Sqrt(am.lambda(i)*am.lx*am.ly/4)
}

// lowest returns the indices of the r ambient modes of smallest λ, ties broken by (a1, a2) so
// the choice never depends on sort stability.
func (am *ambient) lowest(r int) []int {
	idx := make([]int, am.size())
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(p, q int) bool {
		lp, lq := am.lambda(idx[p]), am.lambda(idx[q])
		if lp != lq {
			return lp < lq
		}
		return idx[p] < idx[q]
	})
	return idx[:r]
}

// int3 is the exact integral over [0,L] of a product of three factors sin(pπx/L) or
// cos(pπx/L) with an even number of sines (every product the advection tensor needs has 0 or
// 2, see tensorEntry). By product-to-sum the integrand is a sum of four cosines of the
// frequencies ±p±q±s, and ∫₀ᴸ cos(mπx/L) dx = L δ_{m0}; this selection rule is why the
// advection tensor of the rectangle is sparse (dissertation §5.2).
func int3(sp, sq, ss bool, p, q, s int, l float64) float64 {
	d := func(m int) float64 {
		if m == 0 {
			return 1
		}
		return 0
	}
	nsin := 0
	for _, b := range []bool{sp, sq, ss} {
		if b {
			nsin++
		}
	}
	switch nsin {
	case 0: // cos p cos q cos s
		return l / 4 * (d(p+q+s) + d(p+q-s) + d(p-q+s) + d(p-q-s))
	case 2:
		// reorder to sin a sin b cos c
		var a, b, c int
		switch {
		case !sp:
			a, b, c = q, s, p
		case !sq:
			a, b, c = p, s, q
		default:
			a, b, c = p, q, s
		}
		// sin a sin b = ½[cos(a−b) − cos(a+b)]
		return l / 4 * (d(a-b+c) + d(a-b-c) - d(a+b+c) - d(a+b-c))
	}
	panic("reduced: int3 needs an even number of sine factors")
}

// tensorEntry returns T(a,b,c) = −⟨e_a, (e_b·∇) e_c⟩, the exact coefficient of the advection of
// ambient mode c by ambient mode b, tested against mode a (Eq. 5.7 for the closed-form basis).
// Each of its four terms is a product of an x-integral and a y-integral of three sines/cosines.
func (am *ambient) tensorEntry(a, b, c int) float64 {
	a1, a2 := am.waves(a)
	b1, b2 := am.waves(b)
	c1, c2 := am.waves(c)
	ka1, ka2 := am.k(a)
	kb1, kb2 := am.k(b)
	kc1, kc2 := am.k(c)
	na, nb, nc := am.norm(a), am.norm(b), am.norm(c)
	// components e^u = U·S(x)C(y), e^v = V·C(x)S(y)
	ua, va := na*ka2, -na*ka1
	ub, vb := nb*kb2, -nb*kb1
	uc, vc := nc*kc2, -nc*kc1
	lx, ly := am.lx, am.ly
	// e_a^u e_b^u ∂x e_c^u: ∂x e_c^u = uc k1c C(x)C(y)
	t1 := ua * ub * uc * kc1 * int3(true, true, false, a1, b1, c1, lx) * int3(false, false, false, a2, b2, c2, ly)
	// e_a^u e_b^v ∂y e_c^u: ∂y e_c^u = −uc k2c S(x)S(y)
	t2 := ua * vb * (-uc * kc2) * int3(true, false, true, a1, b1, c1, lx) * int3(false, true, true, a2, b2, c2, ly)
	// e_a^v e_b^u ∂x e_c^v: ∂x e_c^v = −vc k1c S(x)S(y)
	t3 := va * ub * (-vc * kc1) * int3(false, true, true, a1, b1, c1, lx) * int3(true, false, true, a2, b2, c2, ly)
	// e_a^v e_b^v ∂y e_c^v: ∂y e_c^v = vc k2c C(x)C(y)
	t4 := va * vb * vc * kc2 * int3(false, false, false, a1, b1, c1, lx) * int3(true, true, false, a2, b2, c2, ly)
	return -(t1 + t2 + t3 + t4)
}

// partners appends to dst the ambient indices c whose wave numbers can give a nonzero
// T(a,b,c) or T(c,b,a) with a and b: by the selection rule of int3, c1 ∈ {a1+b1, |a1−b1|} and
// c2 ∈ {a2+b2, |a2−b2|}.
func (am *ambient) partners(dst []int, a, b int) []int {
	a1, a2 := am.waves(a)
	b1, b2 := am.waves(b)
	xs := [2]int{a1 + b1, abs(a1 - b1)}
	ys := [2]int{a2 + b2, abs(a2 - b2)}
	for i, x := range xs {
		if i == 1 && x == xs[0] {
			continue
		}
		for j, y := range ys {
			if j == 1 && y == ys[0] {
				continue
			}
			if c := am.index(x, y); c >= 0 {
				dst = append(dst, c)
			}
		}
	}
	return dst
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}
