package reduced

import (
	"math"
)

// term is one ambient eigenmode with its coefficient inside a basis mode.
type term struct {
	a int
	c float64
}

// basis is B = [E|R] of §5.2: the ne closed-form eigenmodes E followed by the enriched modes R,
// each stored as a sparse combination of ambient eigenmodes (one term for a mode of E). It
// holds the precomputed reduced operators: the diffusion matrix D̃ = BᵀΔB (Eq. 5.6, diagonal
// −λ on E) and the advection tensor Ã_{b_i} = Bᵀ A_{b_i} B (Eq. 5.7), stored sparse.
type basis struct {
	am    *ambient
	g     *grid
	ne    int
	modes [][]term
	lam   []float64 // λ of each mode of E (the diagonal of −D̃ there)

	// derived by finish
	n      int
	active []int     // ambient indices used by any mode, ascending
	apos   []int     // ambient index → position in active, −1 if unused
	coef   []float64 // n×len(active): coefficient of active ambient mode p in mode k
	dtil   []float64 // n×n reduced diffusion matrix D̃ (Eq. 5.6)
	// advection tensor grouped by the advecting mode i: entries tstart[i]..tstart[i+1] of
	// (tk, tj, tv) add r_i·tv to Ã[tk][tj] (Eq. 5.8).
	tstart []int
	tk, tj []int32
	tv     []float64
	// maxA1, maxA2: largest wave numbers among the active modes (sizes of evaluation tables)
	maxA1, maxA2 int
	// per active mode: wave numbers and the amplitudes of e^u = au·sin·cos, e^v = av·cos·sin
	w1, w2 []int
	au, av []float64
	nrm    []float64 // normalisation n of each active mode
	// scratch of the separable grid transforms, [wave−1][row]
	su, sv [][]float64
}

func newBasis(am *ambient, g *grid, r int) *basis {
	b := &basis{am: am, g: g, ne: r}
	for _, a := range am.lowest(r) {
		b.modes = append(b.modes, []term{{a, 1}})
		b.lam = append(b.lam, am.lambda(a))
	}
	return b
}

// finish computes the active set, the coefficient table, D̃ and the advection tensor for the
// current modes. It is called once after enrichment.
func (b *basis) finish() {
	b.finishEval()
	am := b.am
	na := len(b.active)
	// D̃_kj = Σ_a c_ka c_ja (−λ_a) (Eq. 5.6 with the exact Laplacian of each ambient mode)
	b.dtil = make([]float64, b.n*b.n)
	for k := 0; k < b.n; k++ {
		for j := 0; j < b.n; j++ {
			s := 0.0
			for p, a := range b.active {
				s -= b.coef[k*na+p] * b.coef[j*na+p] * am.lambda(a)
			}
			b.dtil[k*b.n+j] = s
		}
	}
	b.buildTensor()
}

// finishEval computes the active ambient set, the mode coefficient table and the evaluation
// tables.
func (b *basis) finishEval() {
	am := b.am
	b.n = len(b.modes)
	b.apos = make([]int, am.size())
	for i := range b.apos {
		b.apos[i] = -1
	}
	for _, m := range b.modes {
		for _, t := range m {
			b.apos[t.a] = 0
		}
	}
	b.active = b.active[:0]
	for a, p := range b.apos {
		if p == 0 {
			b.apos[a] = len(b.active)
			b.active = append(b.active, a)
			a1, a2 := am.waves(a)
			b.maxA1, b.maxA2 = max(b.maxA1, a1), max(b.maxA2, a2)
		}
	}
	na := len(b.active)
	b.w1, b.w2 = make([]int, na), make([]int, na)
	b.au, b.av = make([]float64, na), make([]float64, na)
	b.nrm = make([]float64, na)
	for p, a := range b.active {
		b.nrm[p] = am.norm(a)
		b.w1[p], b.w2[p] = am.waves(a)
		k1, k2 := am.k(a)
		b.au[p], b.av[p] = am.norm(a)*k2, -am.norm(a)*k1
	}
	b.su, b.sv = make([][]float64, b.maxA1), make([][]float64, b.maxA1)
	for a := range b.su {
		b.su[a] = make([]float64, b.g.ny+1)
		b.sv[a] = make([]float64, b.g.ny+1)
	}
	b.coef = make([]float64, b.n*na)
	for k, m := range b.modes {
		for _, t := range m {
			b.coef[k*na+b.apos[t.a]] += t.c
		}
	}
}

// buildTensor assembles C(k,i,j) = Σ c_ka c_ib c_jc T(a,b,c) (Eq. 5.7), enumerating only the
// ambient triples the selection rule allows (ambient.partners), so the cost is linear in the
// number of nonzeros rather than cubic in the basis size.
func (b *basis) buildTensor() {
	n := b.n
	// modesOf[c]: the modes containing ambient c and their coefficient
	type mc struct {
		k int
		c float64
	}
	modesOf := make([][]mc, b.am.size())
	for k, m := range b.modes {
		for _, t := range m {
			modesOf[t.a] = append(modesOf[t.a], mc{k, t.c})
		}
	}
	row := make([]float64, n)
	var cand []int
	b.tstart = make([]int, n+1)
	b.tk, b.tj, b.tv = b.tk[:0], b.tj[:0], b.tv[:0]
	for i := 0; i < n; i++ {
		b.tstart[i] = len(b.tv)
		for k := 0; k < n; k++ {
			for j := range row {
				row[j] = 0
			}
			for _, ta := range b.modes[k] {
				for _, tb := range b.modes[i] {
					cand = b.am.partners(cand[:0], ta.a, tb.a)
					for _, c := range cand {
						if len(modesOf[c]) == 0 {
							continue
						}
						t := b.am.tensorEntry(ta.a, tb.a, c)
						if t == 0 {
							continue
						}
						for _, m := range modesOf[c] {
							row[m.k] += ta.c * tb.c * m.c * t
						}
					}
				}
			}
			for j, v := range row {
				if v != 0 {
					b.tk = append(b.tk, int32(k))
					b.tj = append(b.tj, int32(j))
					b.tv = append(b.tv, v)
				}
			}
		}
	}
	b.tstart[n] = len(b.tv)
}

// ambientCoefficients writes q = Σ_k r_k c_k (the velocity's coefficients over the active
// ambient modes) into q.
func (b *basis) ambientCoefficients(q, r []float64) {
	na := len(b.active)
	for p := range q[:na] {
		q[p] = 0
	}
	for k, rk := range r {
		if rk == 0 {
			continue
		}
		row := b.coef[k*na : (k+1)*na]
		for p, c := range row {
			q[p] += rk * c
		}
	}
}

// reduce maps ambient projections p (over the active set) to reduced coefficients r_k = Σ c p.
func (b *basis) reduce(r, p []float64) {
	na := len(b.active)
	for k := range r[:b.n] {
		s := 0.0
		row := b.coef[k*na : (k+1)*na]
		for q, c := range row {
			s += c * p[q]
		}
		r[k] = s
	}
}

// trig holds sin(aπx/Lx), cos(aπx/Lx) for a = 1..maxA1 and the same in y, filled by the
// Chebyshev recurrence sin((a+1)θ) = 2cosθ sin(aθ) − sin((a−1)θ) (two library calls per axis).
type trig struct{ sx, cx, sy, cy []float64 }

func (b *basis) newTrig() trig {
	return trig{make([]float64, b.maxA1+1), make([]float64, b.maxA1+1), make([]float64, b.maxA2+1), make([]float64, b.maxA2+1)}
}

func fillTrig(s, c []float64, theta float64) {
	s0, c0 := math.Sincos(theta)
	s[0], c[0] = 0, 1
	if len(s) > 1 {
		s[1], c[1] = s0, c0
	}
	for a := 2; a < len(s); a++ {
		s[a] = 2*c0*s[a-1] - s[a-2]
		c[a] = 2*c0*c[a-1] - c[a-2]
	}
}

// velocity evaluates Σ_p q_p e_{active[p]}(x, y): the reduced velocity at a point. tr is
// scratch from newTrig.
func (b *basis) velocity(q []float64, x, y float64, tr trig) (u, v float64) {
	am := b.am
	fillTrig(tr.sx, tr.cx, math.Pi*x/am.lx)
	fillTrig(tr.sy, tr.cy, math.Pi*y/am.ly)
	for p, qa := range q[:len(b.active)] {
		if qa == 0 {
			continue
		}
		a1, a2 := b.w1[p], b.w2[p]
		u += qa * b.au[p] * tr.sx[a1] * tr.cy[a2]
		v += qa * b.av[p] * tr.cx[a1] * tr.sy[a2]
	}
	return u, v
}

// streamFunction evaluates ψ = Σ_p q_p n_p sin(k1 x) sin(k2 y) with u = ∂ψ/∂y, v = −∂ψ/∂x.
func (b *basis) streamFunction(q []float64, x, y float64, tr trig) float64 {
	am := b.am
	fillTrig(tr.sx, tr.cx, math.Pi*x/am.lx)
	fillTrig(tr.sy, tr.cy, math.Pi*y/am.ly)
	psi := 0.0
	for p, a := range b.active {
		a1, a2 := am.waves(a)
		psi += q[p] * am.norm(a) * tr.sx[a1] * tr.sy[a2]
	}
	return psi
}

// project writes into p the grid inner products ⟨(ug, vg), e_a⟩ for every active ambient mode
// (Eq. 5.3 on the grid's quadrature), separably: first the x sums per wave number and row,
// then the y sums per mode.
func (b *basis) project(p, ug, vg []float64) {
	g := b.g
	nx, ny := g.nx, g.ny
	for a := 0; a < b.maxA1; a++ {
		tu, tv := b.su[a], b.sv[a]
		for j := range tu {
			tu[j], tv[j] = 0, 0
		}
		sx, cx := g.sux[a], g.cvx[a]
		for i := 0; i <= nx; i++ {
			s := sx[i] * g.wu[i*ny]
			if s != 0 {
				row := ug[i*ny : (i+1)*ny]
				for j, x := range row {
					tu[j] += s * x
				}
			}
		}
		for i := 0; i < nx; i++ {
			c := cx[i] * g.hx * g.hy
			row := vg[i*(ny+1) : (i+1)*(ny+1)]
			for j, x := range row {
				w := c
				if j == 0 || j == ny {
					w = c / 2
				}
				tv[j] += w * x
			}
		}
	}
	for q := range b.active {
		a1, a2 := b.w1[q]-1, b.w2[q]-1
		tu, tv := b.su[a1], b.sv[a1]
		cy, sy := g.cuy[a2], g.svy[a2]
		su, sv := 0.0, 0.0
		for j := 0; j < ny; j++ {
			su += cy[j] * tu[j]
		}
		for j := 0; j <= ny; j++ {
			sv += sy[j] * tv[j]
		}
		p[q] = b.au[q]*su + b.av[q]*sv
	}
}

// reconstruct writes the velocity Σ_p q_p e_{active[p]} at every MAC sample into ug, vg.
func (b *basis) reconstruct(ug, vg, q []float64) {
	g := b.g
	nx, ny := g.nx, g.ny
	for a := 0; a < b.maxA1; a++ {
		tu, tv := b.su[a], b.sv[a]
		for j := range tu {
			tu[j], tv[j] = 0, 0
		}
	}
	for p, qa := range q[:len(b.active)] {
		if qa == 0 {
			continue
		}
		a1, a2 := b.w1[p]-1, b.w2[p]-1
		tu, tv := b.su[a1], b.sv[a1]
		cu, sv := qa*b.au[p], qa*b.av[p]
		cy, sy := g.cuy[a2], g.svy[a2]
		for j := 0; j < ny; j++ {
			tu[j] += cu * cy[j]
		}
		for j := 0; j <= ny; j++ {
			tv[j] += sv * sy[j]
		}
	}
	for i := range ug[:g.nu()] {
		ug[i] = 0
	}
	for i := range vg[:g.nv()] {
		vg[i] = 0
	}
	for a := 0; a < b.maxA1; a++ {
		tu, tv := b.su[a], b.sv[a]
		for i := 0; i <= nx; i++ {
			s := g.sux[a][i]
			row := ug[i*ny : (i+1)*ny]
			for j := range row {
				row[j] += s * tu[j]
			}
		}
		for i := 0; i < nx; i++ {
			c := g.cvx[a][i]
			row := vg[i*(ny+1) : (i+1)*(ny+1)]
			for j := range row {
				row[j] += c * tv[j]
			}
		}
	}
}
