// Package pf is Projective Fluids: M. Weiler, D. Koschier, J. Bender, "Projective Fluids",
// Motion in Games (MIG) 2016, pp. 79–84.
//
// A substep is the implicit Euler step of Projective Dynamics (Eq. 1–2): the end-of-step
// positions x minimise the inertia term ½Δt⁻²‖M^½(x − s)‖² with s = x⁽ⁿ⁾ + Δt v* (v* already
// holds gravity and the other non-pressure accelerations) plus one quadratic potential per
// particle i, Z_i = w/2 ‖S_i x − p_i‖² (Eq. 3 with D = P = I, Sec. 3.4), where S_i selects the
// particles of i's constraint and p_i is their projection onto the constraint manifold
// C_i = ρ_i/ρ0 − 1 = 0 (Eq. 6–8), restricted to compression (C_i > 0; Sec. 3.2).
//
// The minimisation alternates (Sec. 3.1):
//   - the local step projects every constraint independently (Algorithm 1: Newton steps
//     p ← p − C/‖∇C‖² ∇C, Eq. 9–11, until C ≤ ε), in parallel over constraints, each writing
//     only its own projected positions;
//   - the global step solves Eq. 5, (M/Δt² + Σ_i w S_iᵀS_i) x = M/Δt² s + Σ_i w S_iᵀ p_i, by
//     matrix-free preconditioned conjugate gradients (Algorithm 2). The right-hand side is
//     gathered per particle from the constraints that contain it (a transposed pair index
//     replaces Algorithm 2's atomic scatter, so sums run in a fixed order and results do not
//     depend on the number of workers). With D = P = I the matrix is diagonal: particle l's
//     entry is m_l/Δt² + w·n_l, n_l the number of constraints containing l (its own and its
//     neighbours'), so the Jacobi-preconditioned CG converges in one iteration; the CG stays a
//     general solver so that constraints with off-diagonal blocks can join the same system.
//
// With D = P = I every particle's new position is the average of its ~30 constraints'
// proposals (and its inertial target), so a compression that only one constraint sees shrinks by
// about 1/n per iteration. Run this way, 30 iterations left a 1 m column (w = 10⁶, Δt = 2 ms)
// far from the minimiser: it stayed compressed by up to 1.2 % and, through the unconverged
// velocities, gained mechanical energy (about 10 J in 0.6 s; the Chebyshev extrapolation
// below did not remove it). The global step's correction δ = A⁻¹r of particle l is therefore
// scaled by n_l, the number of constraints that contain l: x ← x + diag(n) A⁻¹ r, a
// preconditioned Richardson step whose preconditioner diag(n_l/(m_l/Δt² + w n_l)) ≈ 1/w turns
// the average of the projections into their sum. SPlisHSPlasH's PF scales each particle's
// projection by the same count; scaling the correction instead keeps the fixed point r = 0,
// i.e. the minimiser of Eq. 4 with the paper's weights, and the constraint forces' momentum
// balance. The optional Chebyshev semi-iterative method of H. Wang, "A Chebyshev Semi-iterative
// Approach for Accelerating Projective and Position-based Dynamics", ACM TOG 34(6), 2015,
// x⁽ᵏ⁺¹⁾ = x⁽ᵏ⁻¹⁾ + ω_{k+1}(x̂⁽ᵏ⁺¹⁾ − x⁽ᵏ⁻¹⁾), x̂ the relaxed global step's result, ω = 1 for the
// first two iterations, then ω = 2/(2 − ρ²) and ω_{k+1} = 4/(4 − ρ²ω_k), restarted whenever the
// residual grows, is off by default: with the relaxation it raised the largest compression.
//
// The alternation stops when the residual force r of Eq. 5, expressed as the position error
// Δt² r_l/m_l it causes through the inertia term in one step, has an RMS below
// Tolerance·spacing, or after MaxIterations global steps (the paper uses 30). (Measured in the
// preconditioned metric A⁻¹r instead, the test accepted residual forces of ten times a
// particle's weight.) The solver then reports the constraint force as the pressure
// acceleration a_p = (x − s)/Δt², so the common integration v = v* + Δt a_p, x += Δt v lands
// exactly on the final iterate.
//
// Density and boundaries follow the rest of sluice: ρ_i = m_i(W(0) + Σ_j W_ij) + ρ0_i Σ_b V_b
// W_ib (physics.Density, Akinci et al. 2012 boundary samples; the paper also uses them, Sec. 4).
// Boundary samples are part of a constraint at their end-of-step positions x_b + Δt v_b but are
// never moved by its projection. The load on the body of sample b is the exact reaction: the
// fluid particles of a constraint receive w Σ_l Δp_l = −w Σ_b Σ_n λ_n ∇_b C (translation
// invariance of C), so sample b receives w Σ_n λ_n ∇_b C summed over the Newton steps n of the
// last local step, which is taken at the final positions. At convergence this push is the
// fluid's constraint force; a solve stopped by MaxIterations leaves the global residual
// between them (Result.Converged is false, and the systems count it as unconverged), and then
// the loads are the reaction to the push, not to the fluid's momentum change.
//
// The constraints use the substep's neighbour lists (found at x⁽ⁿ⁾) with the kernel evaluated
// at the current iterate; pairs that enter the support during the step are missed, which the
// CFL step keeps at the kernel's vanishing edge.
package pf

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Params are the solver settings (declared with units and ranges in components.Solver).
type Params struct {
	Stiffness       float64 // w of Eq. 3 (N/m); the paper uses the 10⁶ range
	MaxIterations   int     // local/global iterations per substep (the paper: 30)
	MaxCGIterations int     // CG iterations per global step
	Tolerance       float64 // RMS position correction at which to stop, as a fraction of the spacing
	Chebyshev       float64 // spectral radius ρ of the Chebyshev acceleration (Wang 2015); 0: off
}

// DefaultParams are the paper's settings, w = 10⁶ N/m and at most 30 local/global iterations,
// without the Chebyshev acceleration.
func DefaultParams() Params {
	return Params{Stiffness: 1e6, MaxIterations: 30, MaxCGIterations: 100, Tolerance: 1e-5, Chebyshev: 0}
}

// Validate reports a parameter outside its range.
func (p Params) Validate() error {
	switch {
	case !(p.Stiffness > 0 && p.Stiffness <= 1e12):
		return fmt.Errorf("pfStiffness: %g N/m is outside (0, 1e12]", p.Stiffness)
	case p.MaxIterations < 1 || p.MaxIterations > 1000:
		return fmt.Errorf("pfMaxIterations: %d is outside [1, 1000]", p.MaxIterations)
	case p.MaxCGIterations < 1 || p.MaxCGIterations > 10000:
		return fmt.Errorf("pfMaxCGIterations: %d is outside [1, 10000]", p.MaxCGIterations)
	case !(p.Tolerance > 0 && p.Tolerance <= 0.1):
		return fmt.Errorf("pfTolerance: %g is outside (0, 0.1]", p.Tolerance)
	case !(p.Chebyshev >= 0 && p.Chebyshev < 1):
		return fmt.Errorf("pfChebyshev: %g is outside [0, 1)", p.Chebyshev)
	}
	return nil
}

const (
	// projEps is ε of Algorithm 1: the projection stops once C ≤ ε. The paper reaches 10⁻¹⁴ in
	// three to four Newton steps (Sec. 3.3).
	projEps = 1e-14
	// maxProjSteps caps the Newton steps of one projection; the paper rarely needs more than ten.
	maxProjSteps = 20
)

// Result describes one solve.
type Result struct {
	Iterations   int     // global steps (local steps: one more, the last at the final positions)
	CGIterations int     // CG iterations summed over the global steps
	AvgError     float64 // average compression max(0, ρ/ρ0 − 1) at the final positions
	MaxError     float64 // largest compression at the final positions
	Converged    bool    // the RMS position correction fell below Tolerance·spacing
}

// Solver holds the scratch of the solve; buffers are reused between substeps.
type Solver struct {
	Params

	s, x    []physics.Vec3 // inertial target s and the current iterate x
	xk, xm1 []physics.Vec3 // x⁽ᵏ⁾ and x⁽ᵏ⁻¹⁾ of the Chebyshev extrapolation
	diag    []float64      // diagonal of the global matrix, m/Δt² + w n_l
	nc      []float64      // n_l, the number of constraints containing particle l (relaxation)
	self    []physics.Vec3 // Δp of particle i in its own constraint
	pairDp  []physics.Vec3 // Δp of neighbour J[e] in constraint i, per fluid pair e (flat)
	pairF   []physics.Vec3 // reaction force on boundary sample per fluid→boundary pair (flat)
	pairG   []float64      // kernel gradient factor of the current Newton step per fluid pair
	pairGB  []float64      // the same per boundary pair
	tr      []int32        // transposed pair index: for row l, the pairs (k→l), k ascending
	trCur   []int32
	offF    []int // flat offset of each block's fluid pairs
	offB    []int // flat offset of each block's boundary pairs
	xb      []physics.Vec3
	rhs     []physics.Vec3 // residual r = b − A x, then CG residual
	z, d, q []physics.Vec3 // CG vectors
	dx      []physics.Vec3 // CG solution (correction of x)
	cSum    []float64      // per block: Σ max(C, 0)
	cMax    []float64      // per block: max C
	red     []float64      // per block: reductions of the CG and the stop test
	red2    []float64

	f      *physics.FluidSet
	b      *physics.BoundarySet
	ff, fb *physics.Neighbors
	kr     *physics.Kernel
	kern   kernel
	dt     float64
	alpha  float64

	fnInit, fnLocal, fnResid, fnPrecond, fnApply, fnUpdate, fnUpdateD, fnAccel func(lo, hi, block int)

	// Force and Torque are the boundary loads per body after Loads.
	Force, Torque []physics.Vec3
	owner         []int32
	centers       []physics.Vec3
	nbodies       int
	partial       []float64
	fnLoads       func(lo, hi, block int)
}

// NewSolver returns a solver with the given parameters.
func NewSolver(p Params) *Solver {
	s := &Solver{Params: p}
	s.fnInit, s.fnLocal, s.fnResid = s.initBlock, s.localBlock, s.residBlock
	s.fnPrecond, s.fnApply, s.fnUpdate, s.fnUpdateD = s.precondBlock, s.applyBlock, s.updateBlock, s.updateDBlock
	s.fnAccel, s.fnLoads = s.accelBlock, s.loadsBlock
	return s
}

// Solve computes the end-of-step positions of the fluid from its positions X and predicted
// velocities VStar and writes them as the pressure acceleration AP (see the package comment).
// P is set to zero: Projective Fluids has no pressure field. spacing is the particle spacing
// (the unit of Tolerance).
func (s *Solver) Solve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, kr *physics.Kernel, dt, spacing float64, pool *par.Pool) Result {
	n := f.Len()
	var res Result
	if n == 0 {
		res.Converged = true
		return res
	}
	s.prepare(f, b, ff, fb, kr, dt, pool)
	defer func() { s.f, s.b, s.ff, s.fb, s.kr = nil, nil, nil, nil, nil }()
	nb := par.Blocks(n)
	tol2 := s.Tolerance * spacing * s.Tolerance * spacing * float64(n)
	omega, start, prevE2 := 1.0, 2, math.Inf(1)
	for it := 0; ; it++ {
		pool.For(n, s.fnLocal)
		pool.For(n, s.fnResid) // r = b − A x, and Σ |D⁻¹r|² per block
		e2 := par.Sum(s.red[:nb])
		if e2 <= tol2 {
			res.Converged = true
			break
		}
		if e2 > prevE2 {
			start = it + 2
		}
		prevE2 = e2
		if it == s.MaxIterations {
			break
		}
		res.Iterations++
		copy(s.xk, s.x[:n]) // x⁽ᵏ⁾, which becomes x⁽ᵏ⁻¹⁾ of the next iteration
		res.CGIterations += s.cg(n, nb, tol2, pool)
		if s.Chebyshev > 0 && it >= start {
			if it == start {
				omega = 2 / (2 - s.Chebyshev*s.Chebyshev)
			} else {
				omega = 4 / (4 - s.Chebyshev*s.Chebyshev*omega)
			}
			for i := range s.x[:n] {
				x, m := &s.x[i], &s.xm1[i]
				s.x[i] = physics.Vec3{m[0] + omega*(x[0]-m[0]), m[1] + omega*(x[1]-m[1]), m[2] + omega*(x[2]-m[2])}
			}
		}
		s.xm1, s.xk = s.xk, s.xm1
	}
	res.AvgError = par.Sum(s.cSum[:nb]) / float64(n)
	res.MaxError = par.Max(s.cMax[:nb])
	pool.For(n, s.fnAccel)
	return res
}

// prepare sizes the scratch, the pair offsets and the transposed pair index, and sets the
// inertial target, the initial guess and the matrix diagonal.
func (s *Solver) prepare(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, kr *physics.Kernel, dt float64, pool *par.Pool) {
	n := f.Len()
	s.f, s.b, s.ff, s.fb, s.kr, s.dt = f, b, ff, fb, kr, dt
	s.kern = newKernel(kr)
	nb := par.Blocks(n)
	s.offF = par.Grow(s.offF, nb+1)
	s.offB = par.Grow(s.offB, nb+1)
	s.offF[0], s.offB[0] = 0, 0
	for k := 0; k < nb; k++ {
		s.offF[k+1] = s.offF[k] + len(ff.Blocks[k].J)
		s.offB[k+1] = s.offB[k] + len(fb.Blocks[k].J)
	}
	for _, p := range []*[]physics.Vec3{&s.xk, &s.xm1, &s.s, &s.x, &s.self, &s.rhs, &s.z, &s.d, &s.q, &s.dx} {
		*p = par.Grow(*p, n)
	}
	s.diag = par.Grow(s.diag, n)
	s.nc = par.Grow(s.nc, n)
	s.pairDp = par.Grow(s.pairDp, s.offF[nb])
	s.pairF = par.Grow(s.pairF, s.offB[nb])
	s.pairG = par.Grow(s.pairG, s.offF[nb])
	s.pairGB = par.Grow(s.pairGB, s.offB[nb])
	s.xb = par.Grow(s.xb, b.Len())
	for k := range s.xb {
		x, v := &b.X[k], &b.V[k]
		s.xb[k] = physics.Vec3{x[0] + dt*v[0], x[1] + dt*v[1], x[2] + dt*v[2]}
	}
	s.cSum, s.cMax = par.Grow(s.cSum, nb), par.Grow(s.cMax, nb)
	s.red, s.red2 = par.Grow(s.red, nb), par.Grow(s.red2, nb)
	s.transpose(n)
	pool.For(n, s.fnInit)
}

// transpose builds, for every particle l, the list of fluid pairs (k→l) in ascending k: the
// index that lets the global step gather constraint k's projected position of l. Neighbour
// lists are symmetric (one support radius for all), so row l of the transpose has as many
// entries as l's own neighbour row and reuses its offsets.
func (s *Solver) transpose(n int) {
	ff := s.ff
	np := s.offF[par.Blocks(n)]
	s.tr = par.Grow(s.tr, np)
	s.trCur = par.Grow(s.trCur, n)
	for blk := range par.Blocks(n) {
		nbk := &ff.Blocks[blk]
		lo := blk * par.BlockSize
		for k := 0; k < len(nbk.Start)-1; k++ {
			s.trCur[lo+k] = int32(s.offF[blk]) + nbk.Start[k]
		}
	}
	for blk := range par.Blocks(n) {
		nbk := &ff.Blocks[blk]
		base := int32(s.offF[blk])
		for e, l := range nbk.J {
			c := s.trCur[l]
			s.tr[c] = base + int32(e)
			s.trCur[l] = c + 1
		}
	}
	for blk := range par.Blocks(n) {
		nbk := &ff.Blocks[blk]
		lo := blk * par.BlockSize
		for k := 0; k < len(nbk.Start)-1; k++ {
			if s.trCur[lo+k] != int32(s.offF[blk])+nbk.Start[k+1] {
				panic("pf: fluid neighbour lists are not symmetric")
			}
		}
	}
}

// initBlock sets s = x⁽ⁿ⁾ + Δt v* (Eq. 2; v* carries Δt M⁻¹ f_ext), the initial guess x = s,
// the diagonal m/Δt² + w n of the global matrix and n itself.
//
// The iteration stops before convergence, so its result leans towards the initial guess. The
// guess x⁽ⁿ⁾ + Δt v⁽ⁿ⁾ (the previous constraint force taken to balance gravity) lowered the
// settling column's compression but held the dam break back by 22 % at 0.4 s; x = s keeps
// its front within 1.4 % of IISPH's (TestPFDamBreakFrontFollowsIISPH).
func (s *Solver) initBlock(lo, hi, blk int) {
	f, dt := s.f, s.dt
	nbk := &s.ff.Blocks[blk]
	idt2 := 1 / (dt * dt)
	for i := lo; i < hi; i++ {
		x, v := &f.X[i], &f.VStar[i]
		p := physics.Vec3{x[0] + dt*v[0], x[1] + dt*v[1], x[2] + dt*v[2]}
		s.s[i], s.x[i] = p, p
		k := i - lo
		nc := float64(nbk.Start[k+1] - nbk.Start[k] + 1)
		s.diag[i] = f.M[i]*idt2 + s.Stiffness*nc
		s.nc[i] = nc
	}
}

// localBlock is the local step for the constraints of one block: Algorithm 1 on C_i of Eq. 8
// with the number density of physics.Density,
//
//	C_i = V_i (W(0) + Σ_j W(p_i − p_j)) + Σ_b V_b W(p_i − x_b) − 1,  V_i = m_i/ρ0_i,
//	∇_{p_j} C_i = −V_i ∇W(p_i − p_j),  ∇_{p_i} C_i = V_i Σ_j ∇W(p_i − p_j) + Σ_b V_b ∇W(p_i − x_b),
//
// each Newton step p ← p + λ∇C with λ = −C/‖∇C‖² (Eq. 10–11), the norm taken over the movable
// (fluid) particles only, as the boundary samples do not move. It records Δp per pair, the
// reaction per boundary pair and the compression at the step's start for the statistics.
func (s *Solver) localBlock(lo, hi, blk int) {
	f, b, kr, w := s.f, s.b, s.kr, s.Stiffness
	fbk, bbk := &s.ff.Blocks[blk], &s.fb.Blocks[blk]
	of, ob := s.offF[blk], s.offB[blk]
	w0 := kr.W0()
	kern := s.kern
	cubic := kern.cubic
	var csum, cmax float64
	for i := lo; i < hi; i++ {
		k := i - lo
		f0, f1 := int(fbk.Start[k]), int(fbk.Start[k+1])
		b0, b1 := int(bbk.Start[k]), int(bbk.Start[k+1])
		js := fbk.J[f0:f1]
		bs := bbk.J[b0:b1]
		dps := s.pairDp[of+f0 : of+f1]
		pfs := s.pairF[ob+b0 : ob+b1]
		pg := s.pairG[of+f0 : of+f1]
		pgb := s.pairGB[ob+b0 : ob+b1]
		clear(dps)
		clear(pfs)
		vi := f.M[i] / f.Rho0[i]
		xi := s.x[i]
		var d0 physics.Vec3
		for step := 0; ; step++ {
			pi := physics.Vec3{xi[0] + d0[0], xi[1] + d0[1], xi[2] + d0[2]}
			// constraint value and gradient at p in one pass over the pairs
			sw := w0
			var gx, gy, gz, gn float64
			for e, j := range js {
				xj, dj := &s.x[j], &dps[e]
				rx, ry, rz := pi[0]-xj[0]-dj[0], pi[1]-xj[1]-dj[1], pi[2]-xj[2]-dj[2]
				var wv, g float64
				if cubic {
					wv, g = kern.eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
				} else {
					wv, g = kr.Eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
				}
				sw += wv
				g *= vi
				pg[e] = g
				gx += g * rx
				gy += g * ry
				gz += g * rz
				gn += g * g * (rx*rx + ry*ry + rz*rz)
			}
			c := vi * sw
			for e, j := range bs {
				xj := &s.xb[j]
				rx, ry, rz := pi[0]-xj[0], pi[1]-xj[1], pi[2]-xj[2]
				var wv, g float64
				if cubic {
					wv, g = kern.eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
				} else {
					wv, g = kr.Eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
				}
				c += b.Vol[j] * wv
				g *= b.Vol[j]
				pgb[e] = g
				gx += g * rx
				gy += g * ry
				gz += g * rz
			}
			c--
			if step == 0 {
				cp := max(0, c)
				csum += cp
				cmax = max(cmax, cp)
			}
			gn += gx*gx + gy*gy + gz*gz
			if c <= projEps || gn == 0 || step == maxProjSteps {
				break
			}
			lam := -c / gn
			d0 = physics.Vec3{d0[0] + lam*gx, d0[1] + lam*gy, d0[2] + lam*gz}
			// neighbours move along ∇_{p_j}C = −V_i ∇W(p_i − p_j), the reaction on the
			// samples is w λ ∇_b C = −w λ V_b ∇W(p_i − x_b), both at the old p
			for e, j := range js {
				xj, dj := &s.x[j], &dps[e]
				rx, ry, rz := pi[0]-xj[0]-dj[0], pi[1]-xj[1]-dj[1], pi[2]-xj[2]-dj[2]
				g := -lam * pg[e]
				dj[0] += g * rx
				dj[1] += g * ry
				dj[2] += g * rz
			}
			for e, j := range bs {
				xj := &s.xb[j]
				rx, ry, rz := pi[0]-xj[0], pi[1]-xj[1], pi[2]-xj[2]
				g := -w * lam * pgb[e]
				pf := &pfs[e]
				pf[0] += g * rx
				pf[1] += g * ry
				pf[2] += g * rz
			}
		}
		s.self[i] = d0
	}
	s.cSum[blk], s.cMax[blk] = csum, cmax
}

// residBlock gathers the right-hand side of Eq. 5 (Algorithm 2, MATRIXFREEB) and forms the
// residual r = b − A x. Since constraint k's projection of l is p_kl = x_l + Δp_kl, the terms
// w n_l x_l of b and of A x cancel exactly and r_l = m_l/Δt² (s_l − x_l) + w Σ_k Δp_kl, summed
// over the constraints containing l (its own first, then its neighbours' in ascending order).
func (s *Solver) residBlock(lo, hi, blk int) {
	f := s.f
	idt2 := 1 / (s.dt * s.dt)
	w := s.Stiffness
	fbk := &s.ff.Blocks[blk]
	of := s.offF[blk]
	var e2 float64
	for i := lo; i < hi; i++ {
		k := i - lo
		d := s.self[i]
		for _, e := range s.tr[of+int(fbk.Start[k]) : of+int(fbk.Start[k+1])] {
			p := &s.pairDp[e]
			d[0] += p[0]
			d[1] += p[1]
			d[2] += p[2]
		}
		m := f.M[i] * idt2
		si, xi := &s.s[i], &s.x[i]
		r := physics.Vec3{m*(si[0]-xi[0]) + w*d[0], m*(si[1]-xi[1]) + w*d[1], m*(si[2]-xi[2]) + w*d[2]}
		s.rhs[i] = r
		// the residual force as the position error it makes over one step through the
		// inertia term alone: Δt² r/m
		id := 1 / m
		e2 += id * id * (r[0]*r[0] + r[1]*r[1] + r[2]*r[2])
	}
	s.red[blk] = e2
}

// cg solves A δ = r for the correction δ of x by Jacobi-preconditioned conjugate gradients
// with the matrix-free product of Algorithm 2 (MATRIXFREEATIMES), stopping when the RMS of
// the preconditioned residual falls below the tolerance, and adds diag(n)δ to x (the
// relaxation of the package comment). It returns the iterations made.
func (s *Solver) cg(n, nb int, tol2 float64, pool *par.Pool) int {
	// δ = 0, residual r = rhs, z = D⁻¹ r, d = z
	clear(s.dx[:n])
	pool.For(n, s.fnPrecond) // z = D⁻¹r, d = z, red = r·z
	rz := par.Sum(s.red[:nb])
	it := 0
	for it < s.MaxCGIterations {
		pool.For(n, s.fnApply) // q = A d, red = d·q
		dq := par.Sum(s.red[:nb])
		if !(dq > 0) {
			break
		}
		s.alpha = rz / dq
		pool.For(n, s.fnUpdate) // δ += α d, r −= α q, z = D⁻¹ r, red = r·z, red2 = |z|²
		it++
		rzNew := par.Sum(s.red[:nb])
		if par.Sum(s.red2[:nb]) <= tol2 {
			break
		}
		s.alpha = rzNew / rz
		rz = rzNew
		pool.For(n, s.fnUpdateD) // d = z + β d
	}
	for i := range s.x[:n] {
		x, d := &s.x[i], &s.dx[i]
		om := s.nc[i]
		x[0] += om * d[0]
		x[1] += om * d[1]
		x[2] += om * d[2]
	}
	return it
}

func (s *Solver) precondBlock(lo, hi, blk int) {
	var sum float64
	for i := lo; i < hi; i++ {
		r := &s.rhs[i]
		id := 1 / s.diag[i]
		z := physics.Vec3{id * r[0], id * r[1], id * r[2]}
		s.z[i], s.d[i] = z, z
		sum += r[0]*z[0] + r[1]*z[1] + r[2]*z[2]
	}
	s.red[blk] = sum
}

// Apply computes q = A d for the global matrix of Eq. 5 without assembling it (Algorithm 2,
// MATRIXFREEATIMES): particle l receives m_l/Δt² d_l from the inertia term and w d_l from each
// of the n_l constraints that contain it, which the diagonal computed in initBlock sums.
func (s *Solver) applyBlock(lo, hi, blk int) {
	var sum float64
	for i := lo; i < hi; i++ {
		d := &s.d[i]
		a := s.diag[i]
		q := physics.Vec3{a * d[0], a * d[1], a * d[2]}
		s.q[i] = q
		sum += d[0]*q[0] + d[1]*q[1] + d[2]*q[2]
	}
	s.red[blk] = sum
}

func (s *Solver) updateBlock(lo, hi, blk int) {
	a := s.alpha
	var rz, zz float64
	for i := lo; i < hi; i++ {
		d, q, x, r := &s.d[i], &s.q[i], &s.dx[i], &s.rhs[i]
		x[0] += a * d[0]
		x[1] += a * d[1]
		x[2] += a * d[2]
		r[0] -= a * q[0]
		r[1] -= a * q[1]
		r[2] -= a * q[2]
		id := 1 / s.diag[i]
		z := physics.Vec3{id * r[0], id * r[1], id * r[2]}
		s.z[i] = z
		rz += r[0]*z[0] + r[1]*z[1] + r[2]*z[2]
		zz += z[0]*z[0] + z[1]*z[1] + z[2]*z[2]
	}
	s.red[blk], s.red2[blk] = rz, zz
}

func (s *Solver) updateDBlock(lo, hi, _ int) {
	beta := s.alpha
	for i := lo; i < hi; i++ {
		d, z := &s.d[i], &s.z[i]
		s.d[i] = physics.Vec3{z[0] + beta*d[0], z[1] + beta*d[1], z[2] + beta*d[2]}
	}
}

// accelBlock writes a_p = (x − s)/Δt²: the constraint force per unit mass that takes the
// common integration v = v* + Δt a_p, x += Δt v to the minimiser x.
func (s *Solver) accelBlock(lo, hi, _ int) {
	f := s.f
	idt2 := 1 / (s.dt * s.dt)
	for i := lo; i < hi; i++ {
		x, p := &s.x[i], &s.s[i]
		f.AP[i] = physics.Vec3{(x[0] - p[0]) * idt2, (x[1] - p[1]) * idt2, (x[2] - p[2]) * idt2}
		f.P[i] = 0
	}
}

// Loads sums the reaction forces of the last solve on the boundary samples per body: owner maps
// each boundary sample to its body (−1: not summed), centers holds each body's torque centre.
// Force and Torque hold the result. Per-block partials are added in block order.
func (s *Solver) Loads(f *physics.FluidSet, b *physics.BoundarySet, fb *physics.Neighbors, owner []int32, centers []physics.Vec3, pool *par.Pool) {
	n := f.Len()
	nbod := len(centers)
	s.b, s.fb, s.owner, s.centers, s.nbodies = b, fb, owner, centers, nbod
	blocks := par.Blocks(n)
	s.partial = par.Grow(s.partial, 6*nbod*blocks)
	s.Force, s.Torque = par.Grow(s.Force, nbod), par.Grow(s.Torque, nbod)
	pool.For(n, s.fnLoads)
	physics.ReduceLoads(s.partial, nbod, blocks, s.Force, s.Torque)
	s.b, s.fb = nil, nil
}

func (s *Solver) loadsBlock(lo, hi, blk int) {
	q := s.partial[6*blk*s.nbodies : 6*(blk+1)*s.nbodies]
	clear(q)
	bbk := &s.fb.Blocks[blk]
	ob := s.offB[blk]
	for i := lo; i < hi; i++ {
		k := i - lo
		b0, b1 := int(bbk.Start[k]), int(bbk.Start[k+1])
		for e, j := range bbk.J[b0:b1] {
			o := s.owner[j]
			if o < 0 {
				continue
			}
			p := &s.pairF[ob+b0+e]
			x := &s.b.X[j]
			c := &s.centers[o]
			physics.AddLoad(q[6*o:], x[0]-c[0], x[1]-c[1], x[2]-c[2], p[0], p[1], p[2])
		}
	}
}

// kernel evaluates the cubic spline inline in the local step's pair loops (physics.Kernel.Eval
// is too large to inline there); other kernels go through Eval. The constants are those of
// physics.NewKernel: W = k(6q³ − 6q² + 1) for q ≤ ½, 2k(1 − q)³ otherwise, k = 8/(πh³), and
// the gradient factor g = W'(r)/r with dW/dq = l(3q² − 2q) or −l(1 − q)², l = 48/(πh³).
type kernel struct {
	cubic          bool
	invH, invH2, k float64
	l              float64
}

func newKernel(kr *physics.Kernel) kernel {
	h := kr.H
	return kernel{cubic: kr.Kind == physics.CubicSpline, invH: 1 / h, invH2: 1 / (h * h),
		k: 8 / (math.Pi * h * h * h), l: 48 / (math.Pi * h * h * h)}
}

func (c *kernel) eval(r float64) (w, g float64) {
	q := r * c.invH
	if q >= 1 {
		return 0, 0
	}
	if q <= 0.5 {
		return c.k * (6*q*q*(q-1) + 1), c.l * (3*q - 2) * c.invH2
	}
	a := 1 - q
	return c.k * 2 * a * a * a, -c.l * a * a * c.invH / r
}
