package flip

import (
	"math"
	"slices"

	"github.com/sluicephysics/sluice/physics/par"
)

// Operator is a symmetric positive definite matrix A as the solvers see it.
type Operator interface {
	// Len is the number of unknowns.
	Len() int
	// Mul sets y = A x.
	Mul(x, y []float64)
	// Precond sets z = M_F⁻¹ r on the free set F (free[i]) and z_i = 0 elsewhere, where M_F
	// approximates the submatrix A_FF. It is called again whenever the free set changed
	// (rebuilt tells it so), which is when a factorisation must be recomputed.
	Precond(free []bool, rebuilt bool, r, z []float64)
}

// MPRGPResult describes one MPRGP or PCG solve.
type MPRGPResult struct {
	Iterations    int     // matrix products inside the solve (CG, expansion and proportioning steps)
	CG            int     // conjugate gradient steps
	Expansions    int     // expansion steps
	Proportioning int     // proportioning steps
	Residual      float64 // ∞-norm of the projected gradient (MPRGP) or residual (PCG) at exit
	Converged     bool
	Free          int // unknowns with x_i > 0 at exit (MPRGP); all unknowns (PCG)
}

// MPRGP solves the linear complementarity problem of Eq. 3.3-3.5,
//
//	A x + b ≥ 0,  x ≥ 0,  xᵀ(A x + b) = 0,
//
// which for symmetric positive definite A is the bound-constrained minimisation of
// f(x) = ½ xᵀA x + bᵀx over x ≥ 0 (its gradient is g = A x + b), by Dostál's modified
// proportioning with reduced gradient projections (Dostál & Schöberl 2005; Dostál, Optimal
// Quadratic Programming Algorithms, 2009, ch. 5), as §3.1 of the chapter uses it.
//
// With the free set F = {i: x_i > 0}, the free gradient φ (g on F, 0 elsewhere), the chopped
// gradient β (min(g_i, 0) off F, 0 on F) and the reduced free gradient φ̃_i = min(x_i/ᾱ, φ_i),
// every iteration is one of three steps:
//   - proportional iterate (βᵀβ ≤ Γ² φ̃ᵀφ): a preconditioned conjugate gradient step on the
//     face of F if its step stays feasible, otherwise an expansion step: the largest feasible
//     step along the CG direction, then a projected gradient step of fixed length ᾱ along φ,
//     which lets the active set grow by many indices at once;
//   - otherwise a proportioning step: an exact line search along β, which frees indices
//     whose multipliers have the wrong sign (or, with PreconditionedProportioning, a
//     preconditioned step that frees the same indices, proportionPreconditioned).
//
// Preconditioning is "in face": the CG direction is M_F⁻¹ φ with M_F a preconditioner of
// the submatrix A_FF, recomputed whenever F changes (an expansion or proportioning step), so
// that within one face the iteration is ordinary PCG on A_FF and keeps MPRGP's convergence
// theory; the expansion and proportioning steps use the unpreconditioned φ and β as in the
// unpreconditioned method. ᾱ must lie in (0, 2/‖A‖]; Γ = 1 as Dostál recommends.
//
// x holds the warm start on entry (projected onto x ≥ 0) and the solution on exit. The solve
// stops when ‖g^P‖_∞ = ‖φ + β‖_∞ ≤ tol or after maxIt matrix products.
type MPRGP struct {
	// PreconditionedExpansion takes the expansion step's projected step along the
	// preconditioned free gradient when that lowers f (expandPreconditioned), instead of
	// always along φ with the fixed length ᾱ.
	PreconditionedExpansion bool
	// PreconditionedProportioning first tries the proportioning step along the preconditioned
	// projected gradient on the free set and the unknowns it would free
	// (proportionPreconditioned), and takes Dostál's line search along β only when that trial
	// is refused.
	PreconditionedProportioning bool

	g, p, ap, z, phi, beta []float64
	xt, gt                 []float64
	free, grown            []bool
}

// proportionGamma is Γ of the proportioning test; Dostál's analysis and experiments use 1.
const proportionGamma = 1.0

// grow sizes the work vectors for n unknowns, reallocating (with par.Grow's slack) only when
// the system outgrows them, so steady steps allocate nothing.
func (s *MPRGP) grow(n int) {
	s.g, s.p, s.ap, s.z = par.Grow(s.g, n), par.Grow(s.p, n), par.Grow(s.ap, n), par.Grow(s.z, n)
	s.phi, s.beta, s.free = par.Grow(s.phi, n), par.Grow(s.beta, n), par.Grow(s.free, n)
}

// split sets the free set and the free and chopped gradients of x and g, and returns βᵀβ,
// φ̃ᵀφ (with step length abar), ‖g^P‖_∞ and the size of the free set.
func (s *MPRGP) split(x []float64, abar float64) (bb, pp, gp float64, nf int) {
	for i, xi := range x {
		gi := s.g[i]
		if xi > 0 {
			s.free[i] = true
			nf++
			s.phi[i], s.beta[i] = gi, 0
			pt := gi
			if lim := xi / abar; lim < pt {
				pt = lim
			}
			pp += pt * gi
			gp = max(gp, math.Abs(gi))
		} else {
			s.free[i] = false
			s.phi[i] = 0
			b := min(gi, 0)
			s.beta[i] = b
			bb += b * b
			gp = max(gp, -b)
		}
	}
	return bb, pp, gp, nf
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Solve runs MPRGP on A (op), b and the warm start x with expansion step length abar.
func (s *MPRGP) Solve(op Operator, b, x []float64, abar, tol float64, maxIt int) MPRGPResult {
	n := op.Len()
	s.grow(n)
	var res MPRGPResult
	for i := range x {
		x[i] = max(x[i], 0)
	}
	op.Mul(x, s.g)
	for i := range s.g {
		s.g[i] += b[i]
	}
	res.Iterations++
	bb, pp, gp, nf := s.split(x, abar)
	op.Precond(s.free, true, s.phi, s.z)
	copy(s.p, s.z)
	for {
		res.Residual = gp
		if gp <= tol {
			res.Converged = true
			break
		}
		if res.Iterations >= maxIt {
			break
		}
		res.Iterations++
		if bb <= proportionGamma*proportionGamma*pp {
			op.Mul(s.p, s.ap)
			pAp := dot(s.p, s.ap)
			if !(pAp > 0) {
				break // p = 0 on a nonzero free gradient: M_F is not positive definite
			}
			acg := dot(s.g, s.p) / pAp
			af := math.Inf(1)
			for i, pi := range s.p {
				if pi > 0 {
					af = min(af, x[i]/pi)
				}
			}
			if acg <= af {
				res.CG++
				for i, pi := range s.p {
					// acg ≤ af keeps x ≥ 0 in exact arithmetic; the max guards round-off when
					// acg ≈ af, so that no pressure is ever negative (Eq. 3.4).
					x[i] = max(x[i]-acg*pi, 0)
					s.g[i] -= acg * s.ap[i]
				}
				nf0 := nf
				bb, pp, gp, nf = s.split(x, abar)
				op.Precond(s.free, nf != nf0, s.phi, s.z)
				gamma := dot(s.z, s.ap) / pAp
				for i := range s.p {
					s.p[i] = s.z[i] - gamma*s.p[i]
				}
				continue
			}
			// Expansion: to the boundary along p, then a projected step along φ.
			res.Expansions++
			for i, pi := range s.p {
				if pi > 0 && x[i] <= af*pi {
					x[i] = 0 // the indices that reached the bound
				} else {
					x[i] -= af * pi
				}
				s.g[i] -= af * s.ap[i]
			}
			s.split(x, abar)
			ok := false
			if s.PreconditionedExpansion {
				var products int
				ok, products = s.expandPreconditioned(op, b, x)
				res.Iterations += products
			}
			if !ok {
				for i := range x {
					x[i] = max(x[i]-abar*s.phi[i], 0)
				}
				op.Mul(x, s.g)
				for i := range s.g {
					s.g[i] += b[i]
				}
			}
		} else {
			// Proportioning: exact line search along the chopped gradient.
			res.Proportioning++
			if s.PreconditionedProportioning {
				ok, products := s.proportionPreconditioned(op, b, x, bb, abar)
				// The first product is the one this iteration has counted already.
				res.Iterations += products - 1
				if ok {
					bb, pp, gp, nf = s.split(x, abar)
					// The trial built M_S; when the new free set is S, it is still M_F.
					op.Precond(s.free, !slices.Equal(s.free, s.grown), s.phi, s.z)
					copy(s.p, s.z)
					continue
				}
				res.Iterations++ // Dostál's step's product, below
			}
			op.Mul(s.beta, s.ap)
			dAd := dot(s.beta, s.ap)
			if !(dAd > 0) {
				break
			}
			a := bb / dAd
			for i, di := range s.beta {
				x[i] = max(x[i]-a*di, 0)
				s.g[i] -= a * s.ap[i]
			}
		}
		bb, pp, gp, nf = s.split(x, abar)
		op.Precond(s.free, true, s.phi, s.z)
		copy(s.p, s.z)
	}
	res.Free = nf
	return res
}

// PCG solves the linear system A x = −b (the bilateral, ordinary incompressible pressure
// solve) by preconditioned conjugate gradients from the warm start x, stopping when
// ‖A x + b‖_∞ ≤ tol or after maxIt matrix products.
func (s *MPRGP) PCG(op Operator, b, x []float64, tol float64, maxIt int) MPRGPResult {
	n := op.Len()
	s.grow(n)
	var res MPRGPResult
	for i := range s.free {
		s.free[i] = true
	}
	// r = −(A x + b) is kept in phi.
	op.Mul(x, s.phi)
	res.Iterations++
	rmax := 0.0
	for i := range s.phi {
		s.phi[i] = -(s.phi[i] + b[i])
		rmax = max(rmax, math.Abs(s.phi[i]))
	}
	op.Precond(s.free, true, s.phi, s.z)
	copy(s.p, s.z)
	rz := dot(s.phi, s.z)
	for {
		res.Residual = rmax
		if rmax <= tol {
			res.Converged = true
			break
		}
		if res.Iterations >= maxIt {
			break
		}
		res.Iterations++
		res.CG++
		op.Mul(s.p, s.ap)
		pAp := dot(s.p, s.ap)
		if !(pAp > 0) {
			break
		}
		a := rz / pAp
		rmax = 0
		for i, pi := range s.p {
			x[i] += a * pi
			s.phi[i] -= a * s.ap[i]
			rmax = max(rmax, math.Abs(s.phi[i]))
		}
		op.Precond(s.free, false, s.phi, s.z)
		rz1 := dot(s.phi, s.z)
		beta := rz1 / rz
		rz = rz1
		for i := range s.p {
			s.p[i] = s.z[i] + beta*s.p[i]
		}
	}
	res.Free = n
	return res
}

// PowerNorm estimates ‖A‖₂ (the largest eigenvalue of SPD A) by power iteration started
// from v, which it overwrites with the last iterate (unit length): §3.1 warm-starts these
// iterations with the eigenvector of the previous step's matrix, which cuts the number of
// products needed. It stops when the estimate changes by less than relTol or after maxIt
// products, and returns the estimate and the number of products. tmp is scratch of length n.
func PowerNorm(op Operator, v, tmp []float64, relTol float64, maxIt int) (float64, int) {
	nv := math.Sqrt(dot(v, v))
	if !(nv > 0) {
		for i := range v {
			v[i] = 1
		}
		nv = math.Sqrt(float64(len(v)))
	}
	for i := range v {
		v[i] /= nv
	}
	lambda := 0.0
	it := 0
	for it < maxIt {
		it++
		op.Mul(v, tmp)
		l := math.Sqrt(dot(tmp, tmp))
		if !(l > 0) {
			return 0, it
		}
		for i := range v {
			v[i] = tmp[i] / l
		}
		if math.Abs(l-lambda) <= relTol*l {
			lambda = l
			break
		}
		lambda = l
	}
	return lambda, it
}

// expandPreconditioned is the expansion's second half taken along the preconditioned free
// gradient: with z = M_F⁻¹ φ and the exact minimiser α = φᵀz / zᵀAz of f along −z, the
// trial point P(x − α z) (P the projection onto x ≥ 0) is accepted when it lowers f; otherwise
// x and g are left as they were and it returns false, and the caller takes Dostál's fixed
// step P(x − ᾱ φ). The fixed step changes each unknown by its own gradient only, so the
// active set's boundary moves about one cell per expansion and the number of expansions
// grows with the grid; the preconditioned direction (a multigrid V-cycle or MIC(0)) moves
// it across the whole face at once. Kružík & Horák (2025, "Accelerating MPGP-type methods
// through preconditioning") study preconditioned expansion steps of this kind; the
// acceptance test keeps f decreasing at every step. It returns whether the step was taken and
// the matrix products it spent (A z, and the trial's gradient when z is a descent direction),
// which the caller counts in Iterations.
func (s *MPRGP) expandPreconditioned(op Operator, b, x []float64) (bool, int) {
	n := len(x)
	s.xt, s.gt = par.Grow(s.xt, n), par.Grow(s.gt, n)
	op.Precond(s.free, true, s.phi, s.z)
	op.Mul(s.z, s.ap)
	zAz := dot(s.z, s.ap)
	if !(zAz > 0) {
		return false, 1
	}
	a := dot(s.phi, s.z) / zAz
	// f(x) = ½ xᵀA x + bᵀx = ½ xᵀ(g + b) with g = A x + b (the ½ is dropped on both sides).
	f0 := 0.0
	for i := range x {
		f0 += x[i] * (s.g[i] + b[i])
	}
	for i := range x {
		s.xt[i] = max(x[i]-a*s.z[i], 0)
	}
	op.Mul(s.xt, s.gt)
	f1 := 0.0
	for i := range x {
		s.gt[i] += b[i]
		f1 += s.xt[i] * (s.gt[i] + b[i])
	}
	if !(f1 < f0) {
		return false, 2
	}
	copy(x, s.xt)
	copy(s.g, s.gt)
	return true, 2
}

// proportionPreconditioned is the proportioning step taken along the preconditioned projected
// gradient on the grown face S = F ∪ {i: β_i < 0} (the free set and the unknowns Dostál's
// step would free): with g^P = φ + β and z = M_S⁻¹ g^P (M_S the in-face preconditioner of
// A_SS, zero off S), the direction d is z with the components that would leave the bound at
// once dropped (d_i = 0 where x_i = 0 and z_i > 0), the length the exact minimiser
// α = gᵀd / dᵀAd of f along −d, and the trial point P(x − αd). The trial is accepted when it
// lowers f = ½xᵀAx + bᵀx by at least ᾱβᵀβ/4, a lower bound of the decrease Dostál's exact
// step along β is sure of ((βᵀβ)²/(2βᵀAβ) ≥ βᵀβ/(2‖A‖) ≥ ᾱβᵀβ/4 for ᾱ ≤ 2/‖A‖), so an
// accepted step keeps the decrease per proportioning step that MPRGP's convergence rests on
// (Dostál 2009, ch. 5); otherwise x and g are left as they were and it returns false.
//
// Dostál's step moves only the unknowns with a negative gradient, each by its own gradient,
// and the conjugate gradient steps that follow must then rebalance the whole face; the
// preconditioned step frees the same unknowns and solves approximately on the grown face at
// once, which leaves fewer CG steps between proportioning steps. It returns whether the step
// was taken and the matrix products it spent (A d, and the trial's gradient when the
// projection cut the step).
func (s *MPRGP) proportionPreconditioned(op Operator, b, x []float64, bb, abar float64) (bool, int) {
	n := len(x)
	s.xt, s.gt, s.grown = par.Grow(s.xt, n), par.Grow(s.gt, n), par.Grow(s.grown, n)
	// g^P in xt (scratch until the trial point), then z = M_S⁻¹ g^P and the direction d in z.
	for i, xi := range x {
		s.xt[i] = s.phi[i] + s.beta[i]
		s.grown[i] = xi > 0 || s.beta[i] < 0
	}
	op.Precond(s.grown, true, s.xt, s.z)
	for i, zi := range s.z {
		if x[i] <= 0 && zi > 0 {
			s.z[i] = 0
		}
	}
	op.Mul(s.z, s.ap)
	dAd := dot(s.z, s.ap)
	if !(dAd > 0) {
		return false, 1
	}
	a := dot(s.g, s.z) / dAd
	if !(a > 0) {
		return false, 1
	}
	// f(x) = ½ xᵀ(g + b) with g = A x + b.
	f0 := 0.0
	cut := false
	for i, xi := range x {
		f0 += xi * (s.g[i] + b[i])
		t := xi - a*s.z[i]
		if t < 0 {
			t, cut = 0, true
		}
		s.xt[i] = t
	}
	products := 1
	if cut {
		op.Mul(s.xt, s.gt)
		products++
		for i := range s.gt {
			s.gt[i] += b[i]
		}
	} else {
		for i := range s.gt {
			s.gt[i] = s.g[i] - a*s.ap[i]
		}
	}
	f1 := 0.0
	for i, xi := range s.xt {
		f1 += xi * (s.gt[i] + b[i])
	}
	if !(0.5*(f0-f1) >= 0.25*abar*bb) {
		return false, products
	}
	copy(x, s.xt)
	copy(s.g, s.gt)
	return true, products
}
