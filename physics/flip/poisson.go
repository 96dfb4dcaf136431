package flip

import (
	"math"

	"github.com/sluicephysics/sluice/physics/par"
)

// poisson is the matrix of Eq. 3.6 on the system cells, A p = −s ∇·(v_f ∇p), with s = Δt for
// the velocity solve and s = 1 for the density correction (§3.1). Unknowns are the system
// cells in grid order (x fastest), so an unknown's −x, −y, −z neighbours come before it, the
// order MIC(0) factorises in. For unknown i and direction k (−x, +x, −y, +y, −z, +z) nb[6i+k]
// is the neighbouring unknown (−1 for air, solid or the box wall) and cf[6i+k] = v_f/h² of
// the face between them; the diagonal sums v_f/h² over faces to system and air cells (air
// is p = 0, a Dirichlet condition), while faces on the box walls or with v_f = 0 add nothing
// (no flux).
type poisson struct {
	n     int
	scale float64
	diag  []float64
	nb    []int32
	cf    []float64
	pool  *par.Pool
	// MIC(0) factor of the free submatrix A_FF (Bridson, Fluid Simulation for Computer
	// Graphics, §5.2): pc[i] = 1/√E_i.
	pc     []float64
	q      []float64
	noPrec bool // identity preconditioner (tests)
	// The multigrid preconditioner (mg.go), used instead of MIC(0) when mg is set; it needs
	// each unknown's grid cell (cell, of a gnx×gny×gnz grid).
	mg            *mgPrecond
	cell          []int32
	gnx, gny, gnz int
	system        uint64 // counts the systems assembled (resize), so the multigrid knows when its grid coordinates are stale
	fnMul         func(lo, hi, b int)
	mx, my        []float64
}

// micTau and micSigma are the MIC(0) parameters Bridson recommends: τ = 0.97 of the dropped
// fill-in is moved to the diagonal, and a pivot below σ = 0.25 of the diagonal is replaced by
// the diagonal (a safety net against the cancellation τ ≈ 1 can cause).
const (
	micTau   = 0.97
	micSigma = 0.25
)

func newPoisson(pool *par.Pool) *poisson {
	o := &poisson{pool: pool}
	o.fnMul = o.mulBlock
	return o
}

// Len returns the number of unknowns.
func (o *poisson) Len() int { return o.n }

// Mul sets y = A x over fixed blocks of unknowns.
func (o *poisson) Mul(x, y []float64) {
	o.mx, o.my = x, y
	o.pool.For(o.n, o.fnMul)
	o.mx, o.my = nil, nil
}

func (o *poisson) mulBlock(lo, hi, _ int) {
	x, y, s := o.mx, o.my, o.scale
	for i := lo; i < hi; i++ {
		y[i] = s * (o.diag[i]*x[i] - couplings(o.nb[6*i:6*i+6], o.cf[6*i:6*i+6], x))
	}
}

// couplings returns Σ_k cf[k]·x[nb[k]] over the neighbours nb[k] ≥ 0 of one unknown: the
// off-diagonal part of a row of the 7-point stencil (A_ij = −cf), shared by the product and
// the multigrid's smoother and residual.
func couplings(nb []int32, cf, x []float64) float64 {
	t := 0.0
	for k, j := range nb {
		if j >= 0 {
			t += cf[k] * x[j]
		}
	}
	return t
}

// Precond applies the multigrid V-cycle (when mg is set; mg.go) or the MIC(0) preconditioner
// of A_FF (unknowns off F are Dirichlet, like air,
// which is what restricting A to the face F means for this stencil), refactorising when the
// free set changed. It runs sequentially in grid order: the triangular solves are recursive.
func (o *poisson) Precond(free []bool, rebuilt bool, r, z []float64) {
	if o.noPrec {
		for i := range z {
			if free[i] {
				z[i] = r[i]
			} else {
				z[i] = 0
			}
		}
		return
	}
	if o.mg != nil {
		if rebuilt {
			o.mg.build(o, free, o.cell, o.gnx, o.gny, o.gnz)
		}
		o.mg.apply(r, z)
		return
	}
	if rebuilt {
		o.factor(free)
	}
	q := o.q
	for i := 0; i < o.n; i++ {
		if !free[i] {
			q[i] = 0
			continue
		}
		t := r[i]
		for k := 0; k < 6; k += 2 { // −x, −y, −z
			if j := o.nb[6*i+k]; j >= 0 && free[j] {
				t += o.scale * o.cf[6*i+k] * o.pc[j] * q[j]
			}
		}
		q[i] = t * o.pc[i]
	}
	for i := o.n - 1; i >= 0; i-- {
		if !free[i] {
			z[i] = 0
			continue
		}
		t := q[i]
		for k := 1; k < 6; k += 2 { // +x, +y, +z
			if j := o.nb[6*i+k]; j >= 0 && free[j] {
				t += o.scale * o.cf[6*i+k] * o.pc[i] * z[j]
			}
		}
		z[i] = t * o.pc[i]
	}
}

// factor computes the MIC(0) pivots of A_FF in grid order.
func (o *poisson) factor(free []bool) {
	s := o.scale
	for i := 0; i < o.n; i++ {
		if !free[i] {
			o.pc[i] = 0
			continue
		}
		d := s * o.diag[i]
		e := d
		for k := 0; k < 6; k += 2 {
			j := o.nb[6*i+k]
			if j < 0 || !free[j] {
				continue
			}
			a := s * o.cf[6*i+k] * o.pc[j]
			e -= a * a
			// Fill-in dropped by IC(0): the lower neighbour j's couplings along the other
			// two axes (its + directions other than the one pointing at i).
			other := 0.0
			for kk := 1; kk < 6; kk += 2 {
				if kk == k+1 {
					continue
				}
				if jj := o.nb[6*int(j)+kk]; jj >= 0 && free[jj] {
					other += s * o.cf[6*int(j)+kk]
				}
			}
			e -= micTau * s * o.cf[6*i+k] * other * o.pc[j] * o.pc[j]
		}
		if e < micSigma*d {
			e = d
		}
		o.pc[i] = 1 / math.Sqrt(e)
	}
}

// gershgorin returns max_i Σ_j |A_ij|, an upper bound on ‖A‖₂.
func (o *poisson) gershgorin() float64 {
	g := 0.0
	for i := 0; i < o.n; i++ {
		row := o.diag[i]
		for k := 0; k < 6; k++ {
			if o.nb[6*i+k] >= 0 {
				row += o.cf[6*i+k]
			}
		}
		g = max(g, row)
	}
	return o.scale * g
}

// resize makes room for n unknowns.
func (o *poisson) resize(n int) {
	o.n = n
	o.system++
	o.diag = par.Grow(o.diag, n)
	o.nb = par.Grow(o.nb, 6*n)
	o.cf = par.Grow(o.cf, 6*n)
	o.pc = par.Grow(o.pc, n)
	o.q = par.Grow(o.q, n)
}
