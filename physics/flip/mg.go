package flip

import (
	"github.com/sluicephysics/sluice/physics/par"
)

// Aggregation multigrid preconditioner for the pressure matrix of Eq. 3.6 restricted to the
// free set F (MPRGP's face, unknowns off F are Dirichlet), an alternative to MIC(0) whose
// preconditioned CG needs a number of iterations that grows with the grid (O(n^⅓) for
// MIC(0)-PCG on the Poisson problem) where a multigrid V-cycle's stays nearly flat.
//
// Coarsening: the unknowns of 2×2×2 blocks of grid cells form one coarse unknown
// (aggregation), with the piecewise-constant prolongation P (a coarse value is copied to each
// of its fine unknowns) and restriction Pᵀ (fine residuals summed). The coarse matrix is the
// Galerkin product A_c = Pᵀ A P, which for a 7-point stencil is again a 7-point stencil on the
// coarse grid: the coupling of two face-adjacent blocks is the sum of the couplings of the
// fine faces between them, and a block's diagonal is the sum of its unknowns' diagonals less
// twice the couplings inside it (Dirichlet faces to air or to unknowns off F stay in it). A_c
// is therefore symmetric positive (semi)definite whenever A_FF is, on every level, with no
// rediscretisation of the face fractions v_f.
//
// Smoothing: red-black Gauss–Seidel, colours by the parity of i+j+k (a 7-point stencil
// couples only opposite colours, so each half-sweep is parallel over fixed blocks and its
// result does not depend on the order or the number of workers). The cycle is symmetric —
// red then black before the coarse correction, black then red after it, and a palindromic
// sequence of half-sweeps on the coarsest level — so one V-cycle from a zero start is a fixed
// symmetric linear operator, as preconditioned CG needs. Piecewise-constant aggregation
// under-corrects the smooth error (the coarse function is a staircase); the correction is
// scaled by mgOverCorrect, the remedy of Braess (1995) and Blaheta (1986) for unsmoothed
// aggregation.
//
// Coarsening stops at mgCoarsest unknowns or when a level shrinks by less than a factor 2
// (e.g. a thin sheet of liquid one cell deep).
type mgPrecond struct {
	levels []mgLevel
	pool   *par.Pool
	// scratch for the build: the coarse index of each coarse grid cell (−1 when empty).
	slot []int32
	// coordsOf and keysOf are the operator's system numbers the level-0 coordinates and
	// coarse keys were computed for.
	coordsOf, keysOf uint64
	// work arguments of the parallel half-sweeps.
	cur   *mgLevel
	list  []int32
	fnGS  func(lo, hi, b int)
	fnRes func(lo, hi, b int)
}

// mgLevel is one level's matrix (a 7-point stencil on the level's grid, stored as in poisson:
// A_ii = scale·diag[i], A_ij = −scale·cf[6i+k] for j = nb[6i+k] ≥ 0) with its grid
// coordinates, colour lists, the coarse unknown of each unknown, and its work vectors.
type mgLevel struct {
	n          int
	scale      float64
	diag       []float64
	nb         []int32
	cf         []float64
	free       []bool // level 0 only: the face F (nil: every unknown)
	ci, cj, ck []int32
	key        []int32 // the coarse grid cell of each unknown
	nx, ny, nz int
	red, black []int32 // the unknowns (of F) of each colour
	agg        []int32 // the coarse unknown of each unknown (−1 off F)
	x, b, r    []float64
}

const (
	// mgCoarsest: below this many unknowns a level is solved by Gauss–Seidel half-sweeps.
	mgCoarsest = 64
	// mgCoarseSweeps: the symmetric Gauss–Seidel sweeps on the coarsest level.
	mgCoarseSweeps = 12
	// mgSmooth: red-black sweeps before and after each coarse correction.
	mgSmooth = 1
	// mgOverCorrect scales the coarse correction of piecewise-constant aggregation
	// (over-correction, Blaheta 1986, Braess 1995: a factor between 1 and 2); 1.8 was chosen
	// on the test operators of mg_test.go.
	mgOverCorrect = 1.8
	// mgSerial: levels with fewer unknowns run their half-sweeps on the calling goroutine.
	mgSerial = 4096
)

func newMG(pool *par.Pool) *mgPrecond {
	m := &mgPrecond{pool: pool}
	m.fnGS = m.gsBlock
	m.fnRes = m.resBlock
	return m
}

// build sets up the hierarchy for the free submatrix of o (whose unknown u is grid cell
// cell[u] of an nx×ny×nz grid).
func (m *mgPrecond) build(o *poisson, free []bool, cell []int32, nx, ny, nz int) {
	if len(m.levels) == 0 {
		m.levels = make([]mgLevel, 1, 12)
	}
	m.levels = m.levels[:1]
	l0 := &m.levels[0]
	n := o.n
	l0.n, l0.scale, l0.diag, l0.nb, l0.cf, l0.free = n, o.scale, o.diag, o.nb, o.cf, free
	l0.nx, l0.ny, l0.nz = nx, ny, nz
	if m.coordsOf != o.system {
		// The grid coordinates change only with the system, not with the free set.
		l0.ci, l0.cj, l0.ck = par.Grow(l0.ci, n), par.Grow(l0.cj, n), par.Grow(l0.ck, n)
		for u, c32 := range cell[:n] {
			c := int(c32)
			l0.ci[u], l0.cj[u], l0.ck[u] = int32(c%nx), int32((c/nx)%ny), int32(c/(nx*ny))
		}
		m.coordsOf = o.system
	}
	l0.colour()
	l0.vectors()
	for {
		f := &m.levels[len(m.levels)-1]
		nf := len(f.red) + len(f.black)
		if nf <= mgCoarsest || len(m.levels) >= cap(m.levels) {
			break
		}
		m.levels = append(m.levels, mgLevel{})
		// append may have moved the levels: take the pointers again.
		f = &m.levels[len(m.levels)-2]
		c := &m.levels[len(m.levels)-1]
		if 2*m.coarsen(f, c) > nf {
			m.levels = m.levels[:len(m.levels)-1]
			break
		}
	}
}

// colour fills the red and black lists with the level's unknowns in F.
func (l *mgLevel) colour() {
	l.red, l.black = l.red[:0], l.black[:0]
	for u := 0; u < l.n; u++ {
		if l.free != nil && !l.free[u] {
			continue
		}
		if (l.ci[u]+l.cj[u]+l.ck[u])&1 == 0 {
			l.red = append(l.red, int32(u))
		} else {
			l.black = append(l.black, int32(u))
		}
	}
}

func (l *mgLevel) vectors() {
	l.x, l.b, l.r = par.Grow(l.x, l.n), par.Grow(l.b, l.n), par.Grow(l.r, l.n)
	l.agg = par.Grow(l.agg, l.n)
}

func (l *mgLevel) in(u int32) bool { return l.free == nil || l.free[u] }

// coarsen builds c = Pᵀ f P over 2×2×2 blocks and returns its number of unknowns. Coarse
// unknowns are numbered in the order of the coarse grid cells (x fastest), so the build does
// not depend on how the fine unknowns are numbered.
func (m *mgPrecond) coarsen(f, c *mgLevel) int {
	c.nx, c.ny, c.nz = (f.nx+1)/2, (f.ny+1)/2, (f.nz+1)/2
	nc := c.nx * c.ny * c.nz
	m.slot = par.Grow(m.slot, nc)
	for i := range m.slot[:nc] {
		m.slot[i] = -1
	}
	// key[u]: the coarse grid cell of unknown u. Level 0's change only with the system.
	if f.free == nil || m.keysOf != m.coordsOf {
		f.key = par.Grow(f.key, f.n)
		for u := 0; u < f.n; u++ {
			f.key[u] = int32(int(f.ci[u]>>1) + c.nx*(int(f.cj[u]>>1)+c.ny*int(f.ck[u]>>1)))
		}
		if f.free != nil {
			m.keysOf = m.coordsOf
		}
	}
	key := f.key
	for u := 0; u < f.n; u++ {
		if f.in(int32(u)) {
			m.slot[key[u]] = 0
		}
	}
	n := 0
	for k := range m.slot[:nc] {
		if m.slot[k] == 0 {
			m.slot[k] = int32(n)
			n++
		}
	}
	c.n, c.scale, c.free = n, 1, nil
	c.diag, c.nb, c.cf = par.Grow(c.diag, n), par.Grow(c.nb, 6*n), par.Grow(c.cf, 6*n)
	c.ci, c.cj, c.ck = par.Grow(c.ci, n), par.Grow(c.cj, n), par.Grow(c.ck, n)
	clear(c.diag[:n])
	clear(c.cf[:6*n])
	for i := range c.nb[:6*n] {
		c.nb[i] = -1
	}
	for k := range m.slot[:nc] {
		if s := m.slot[k]; s >= 0 {
			c.ci[s], c.cj[s], c.ck[s] = int32(k%c.nx), int32((k/c.nx)%c.ny), int32(k/(c.nx*c.ny))
		}
	}
	for u := 0; u < f.n; u++ {
		if !f.in(int32(u)) {
			f.agg[u] = -1
			continue
		}
		I := m.slot[key[u]]
		f.agg[u] = I
		c.diag[I] += f.scale * f.diag[u]
		for k := 0; k < 6; k++ {
			j := f.nb[6*u+k]
			if j < 0 || !f.in(j) {
				continue // a Dirichlet neighbour: its coupling stays only in the diagonal
			}
			a := f.scale * f.cf[6*u+k]
			// The neighbour across face k lies in the same 2×2×2 block unless it crosses a
			// block boundary: going −d from an even coordinate or +d from an odd one.
			J := I
			if cross(f, u, k) {
				J = m.slot[key[j]]
			}
			if J == I {
				c.diag[I] -= a // inside the block: each pair is met from both sides
			} else {
				c.nb[6*int(I)+k] = J
				c.cf[6*int(I)+k] += a
			}
		}
	}
	c.colour()
	c.vectors()
	return n
}

// cross reports whether the neighbour of unknown u across face k (−x, +x, −y, +y, −z, +z)
// lies in another 2×2×2 block.
func cross(f *mgLevel, u, k int) bool {
	var c int32
	switch k / 2 {
	case 0:
		c = f.ci[u]
	case 1:
		c = f.cj[u]
	default:
		c = f.ck[u]
	}
	return (c&1 == 0) == (k%2 == 0)
}

// apply sets z = M⁻¹ r on F (one V-cycle from zero), z = 0 off F.
func (m *mgPrecond) apply(r, z []float64) {
	l0 := &m.levels[0]
	copy(l0.b[:l0.n], r[:l0.n])
	m.cycle(0)
	for u := 0; u < l0.n; u++ {
		if l0.in(int32(u)) {
			z[u] = l0.x[u]
		} else {
			z[u] = 0
		}
	}
}

// cycle runs the symmetric V-cycle on level li for its right-hand side b, from x = 0.
func (m *mgPrecond) cycle(li int) {
	l := &m.levels[li]
	clear(l.x[:l.n])
	if li == len(m.levels)-1 {
		m.half(l, l.red)
		for s := 0; s < mgCoarseSweeps; s++ {
			m.half(l, l.black)
			m.half(l, l.red)
		}
		return
	}
	for s := 0; s < mgSmooth; s++ {
		m.half(l, l.red)
		m.half(l, l.black)
	}
	m.residual(l)
	c := &m.levels[li+1]
	clear(c.b[:c.n])
	for u := 0; u < l.n; u++ {
		if I := l.agg[u]; I >= 0 {
			c.b[I] += l.r[u]
		}
	}
	m.cycle(li + 1)
	for u := 0; u < l.n; u++ {
		if I := l.agg[u]; I >= 0 {
			l.x[u] += mgOverCorrect * c.x[I]
		}
	}
	for s := 0; s < mgSmooth; s++ {
		m.half(l, l.black)
		m.half(l, l.red)
	}
}

// half runs one Gauss–Seidel half-sweep over the unknowns of one colour.
func (m *mgPrecond) half(l *mgLevel, list []int32) {
	if len(list) < mgSerial {
		l.gs(list)
		return
	}
	m.cur, m.list = l, list
	m.pool.For(len(list), m.fnGS)
	m.cur, m.list = nil, nil
}

func (m *mgPrecond) gsBlock(lo, hi, _ int) { m.cur.gs(m.list[lo:hi]) }

// gs updates x_i = (b_i − Σ_j A_ij x_j)/A_ii for i in list. Unknowns off F keep x = 0, so their
// couplings add nothing, which is the Dirichlet condition of A_FF.
func (l *mgLevel) gs(list []int32) {
	x, s := l.x, l.scale
	for _, i := range list {
		t := couplings(l.nb[6*i:6*i+6], l.cf[6*i:6*i+6], x)
		if d := l.diag[i]; d > 0 {
			x[i] = (l.b[i] + s*t) / (s * d)
		}
	}
}

// residual sets r = b − A x on F.
func (m *mgPrecond) residual(l *mgLevel) {
	if l.n < mgSerial {
		l.res(0, l.n)
		return
	}
	m.cur = l
	m.pool.For(l.n, m.fnRes)
	m.cur = nil
}

func (m *mgPrecond) resBlock(lo, hi, _ int) { m.cur.res(lo, hi) }

func (l *mgLevel) res(lo, hi int) {
	x, s := l.x, l.scale
	for i := lo; i < hi; i++ {
		if !l.in(int32(i)) {
			l.r[i] = 0
			continue
		}
		v := l.diag[i]*x[i] - couplings(l.nb[6*i:6*i+6], l.cf[6*i:6*i+6], x)
		l.r[i] = l.b[i] - s*v
	}
}
