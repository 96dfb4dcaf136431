// Package pf is Projective Fluids: M. Weiler, D. Koschier, J. Bender, "Projective Fluids",
// Motion in Games (MIG) 2016, pp. 79–84.
//
// A substep is the implicit Euler step of Projective Dynamics (Eq. 1–2): the end-of-step
// positions x minimise the inertia term ½Δt⁻²‖M^½(x − s)‖² with s = x⁽ⁿ⁾ + Δt v* (v* already
// holds gravity and the other non-pressure accelerations) plus one quadratic potential per
// particle i, Z_i = w/2 ‖D_i(S_i x − p_i)‖² (Eq. 3 with P_i = D_i), where S_i selects the
// particles of i's constraint and p_i is their projection onto the constraint manifold
// C_i = ρ_i/ρ0 − 1 = 0 (Eq. 6–8), restricted to compression (C_i > 0; Sec. 3.2).
//
// The minimisation alternates (Sec. 3.1):
//   - the local step projects every constraint independently (Algorithm 1: Newton steps
//     p ← p − C/‖∇C‖² ∇C, Eq. 9–11, until C ≤ ε), in parallel over constraints, each writing
//     only its own projected positions;
//   - the global step solves Eq. 5, (M/Δt² + Σ_i w S_iᵀD_iᵀD_iS_i) x = M/Δt² s +
//     Σ_i w S_iᵀD_iᵀD_i p_i, by matrix-free Jacobi-preconditioned conjugate gradients
//     (Algorithm 2), written as a correction δ of the current iterate with right-hand side
//     the residual of Eq. 5. Every sum is a gather over the particle's own neighbour row in a
//     fixed order (Algorithm 2 scatters atomically), so the results do not depend on the number
//     of workers.
//
// The choice of D_i. The paper takes D_i = P_i = I (Sec. 3.4). The global matrix is then
// diagonal, M/Δt² + w n_l per particle (n_l the number of constraints containing l), and one
// local/global iteration is a Jacobi step: a particle's new position is the average of the
// projections of its ~30 constraints. A compression spread over a column of L/2r particles
// needs O((L/2r)²) such steps; measured on a 1 m column (w = 10⁶, Δt = 2 ms), 30 iterations
// left it compressed by 1.2 % and gaining energy, and scaling the averaged correction by n_l
// (the relaxation SPlisHSPlasH applies to its projections) still left the residual force so
// large that the wall loads came out 78 % above the weight. Here D_i = P_i = n_i n_iᵀ, the
// projector onto the unit constraint normal n_i = ∇C_i/‖∇C_i‖ (over the movable particles)
// taken at the iterate of the local step. A Newton projection moves p_i along ∇C_i, so
// D_i(S_i x − p_i) = S_i x − p_i to first order and Z_i keeps the value w/2 dist²; what changes
// is the global matrix, which becomes M/Δt² + w Σ_i ∇C_i∇C_iᵀ/‖∇C_i‖² — the Gauss–Newton
// matrix of Eq. 4's potential, not its diagonal. The constraint force of constraint i is
// w μ_i ∇C_i with μ_i = ∇C_i·Δp_i/‖∇C_i‖² (Δp_i = p_i − S_i x; μ_i = −C_i/‖∇C_i‖² after one
// Newton step). The local/global iteration then converges in a few outer iterations, each
// with a CG solve of the conditioning of an implicit pressure Poisson system.
//
// The restriction to compression makes the potential only piecewise quadratic: a constraint
// inactive at the iterate (C ≤ 0) is missing from the matrix and may be compressed by the
// step, and with w large against m/Δt² that raises the force residual many times over. Each
// global step is therefore a trial step of a backtracking line search on the energy of Eq. 4,
// ½Δt⁻²‖M^½(x − s)‖² + Σ_i w/2 ‖Δp_i‖² (the local step at the trial point evaluates it): a step
// that raises it is halved, at most maxHalvings times.
//
// The alternation stops when the residual force r of Eq. 5, expressed as the position error
// Δt² r_l/m_l it causes through the inertia term in one step, has an RMS below
// Tolerance·spacing, or after MaxIterations global steps (the paper uses 30). The solver then
// reports the constraint force as the pressure acceleration a_p = (x − s)/Δt², so the common
// integration v = v* + Δt a_p, x += Δt v lands exactly on the final iterate. Each solve starts
// from x = s, as the paper's, and takes as its first global step the previous solve's
// constraint forces, carried between solves as the pressure P_i = −w μ_i/V_i (the pressure
// is saved with the particles, so snapshots restore it), with the gradients at s; the line
// search checks that step like any other.
//
// Density and boundaries follow the rest of sluice: ρ_i = m_i(W(0) + Σ_j W_ij) + ρ0_i Σ_b V_b
// W_ib (physics.Density, Akinci et al. 2012 boundary samples; the paper also uses them, Sec. 4).
// Boundary samples are part of a constraint at their end-of-step positions x_b + Δt v_b but are
// never moved by its projection and are not unknowns of Eq. 5. The load on the body of sample
// b is the exact reaction: C_i is translation invariant, so the gradient over the samples is
// minus the gradient over the fluid particles, and the force w μ_i ∇_b C_i on the samples is
// minus the total force of constraint i on the fluid. The last local step is taken at the
// final positions, so the loads are the reaction to the constraint forces at x; the fluid's
// momentum change M(x − s)/Δt² differs from those forces by the residual of Eq. 5, which a
// converged solve has brought below the tolerance.
//
// Cloth (springs.go): distance constraints of Projective Dynamics along a cloth mesh's edges
// and across the edges shared by two triangles, and unilateral contacts between cloth vertices
// and other particles or boundary samples, join the same energy and the same global system
// (so water and cloth push each other through one solve); cloth vertices are in no density
// constraint, and pinned ones are not unknowns. Solves with cloth allow more line-search
// halvings (maxHalvingsCloth).
//
// The constraints use the substep's neighbour lists (found at x⁽ⁿ⁾) with the kernel evaluated
// at the current iterate; pairs that enter the support during the step are missed, which the
// CFL step keeps at the kernel's vanishing edge.
package pf

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/vec"
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
	// cgForcing is the inexact-Newton forcing term of the global step: CG stops once the
	// linear residual is this fraction of the outer residual it started from (the next local
	// step re-linearises, so solving further buys little), ...
	cgForcing = 0.3
	// cgTolFrac: ... but never before the linear residual is below this fraction of the outer
	// tolerance, so that the last global step can meet it.
	cgTolFrac = 0.5
	// activeMargin: a constraint with −activeMargin < C ≤ ε exerts no force (μ = 0) but keeps
	// its row in the global matrix, so the Newton step does not compress it blindly; without
	// the margin the active set of a resting column flips between iterations (particles at
	// C ≈ 0) and the residual rises every other iteration. The matrix only sets the path, the
	// fixed point (zero residual) does not depend on it.
	activeMargin = 1e-5
	// maxHalvings caps the line search of a global step: a step that still raises the energy
	// after this many halvings is taken (the projection of Algorithm 1 is not exactly the
	// closest point, so the step is a descent direction only approximately).
	maxHalvings = 4
	// maxHalvingsCloth caps the halvings in solves with cloth (springs.go). A contact that
	// switches on during a step makes a light cloth vertex's Newton step overshoot by far more
	// than 2⁴: with the cap at 4, water on a sheet (TestClothHoldsWater) stopped at
	// pfMaxIterations in 253 of 360 substeps, every third global step raising the energy (seen
	// with an earlier version of the cloth); with 12, in 21.
	maxHalvingsCloth = 12
	// projSafe is the margin below ε at which the local step trusts the quadratic
	// convergence of its Newton steps: a step whose predicted C, C³/C_prev² (localBlock), is
	// at most projSafe·ε ends the projection without the pass over the pairs that would
	// confirm C ≤ ε.
	projSafe = 0.1
	// maxProjSteps caps the Newton steps of one projection; the paper rarely needs more than ten.
	maxProjSteps = 20
)

// Result describes one solve.
type Result struct {
	Iterations   int     // global steps (local steps: one more plus Backtracks, the last at the final positions)
	Backtracks   int     // halvings of a global step that raised the energy of Eq. 4
	WarmStart    bool    // the solve took the previous solve's constraint forces as its first step
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
	vol     []float64      // V_i = m_i/ρ0_i
	diag    []physics.Vec3 // diagonal of the global matrix per component (Jacobi preconditioner)
	gself   []physics.Vec3 // ∇_i C_i at the local step's iterate (fluid and boundary terms)
	ginv    []float64      // 1/‖∇C_i‖² over the movable particles; 0 for an inactive constraint
	mu      []float64      // μ_i = ∇C_i·Δp_i/‖∇C_i‖², the constraint's force per w along ∇C_i
	mu0     []float64      // μ_i of the previous solve, from the pressure P_i (warm start)
	mu0v    []float64      // μ⁰_i V_i
	coef    [][2]float64   // μ_i V_i and V_i²/‖∇C_i‖² (zero for an inactive constraint), read by residBlock
	y       []float64      // per constraint: ginv_i ∇C_i·d (first half of the matrix product)
	yv      []float64      // y_i V_i
	self    []physics.Vec3 // Δp of particle i in its own constraint
	// per fluid pair e (flat, block by block): Δp of neighbour J[e] in constraint i by
	// component, the kernel gradient factor of the current Newton step, and ∇W(x_i − x_j) at
	// the local step's iterate by component
	dpx, dpy, dpz []float64
	pairG         []float64
	gvx, gvy, gvz []float64
	// per boundary pair: V_b ∇W(x_i − x_b) at the local step's iterate by component
	gbx, gby, gbz []float64
	passes        []vec.PFPass // per block: the local step's vector pair passes
	offF          []int        // flat offset of each block's fluid pairs
	offB          []int        // flat offset of each block's boundary pairs
	xb            []physics.Vec3
	rhs           []physics.Vec3 // residual r = b − A x, then CG residual
	z, d, q       []physics.Vec3 // CG vectors
	dx            []physics.Vec3 // CG solution (correction of x)
	cSum          []float64      // per block: Σ max(C, 0)
	cMax          []float64      // per block: max C
	energy        []float64      // per block: the energy of Eq. 4 at the iterate (inertia + constraint terms)
	eProj         []float64      // per block: w/2 Σ ‖Δp‖² of the local step
	red           []float64      // per block: reductions of the CG and the stop test
	red2          []float64

	f      *physics.FluidSet
	b      *physics.BoundarySet
	ff, fb *physics.Neighbors
	kr     *physics.Kernel
	kern   kernel
	dt     float64
	alpha  float64

	fnInit, fnLocal, fnResid, fnPrecond, fnJd, fnApply, fnUpdate, fnUpdateD, fnAccel, fnWarm func(lo, hi, block int)
	warm                                                                                     bool // some P_i ≠ 0 on entry

	// Force and Torque are the boundary loads per body after Loads.
	Force, Torque []physics.Vec3
	owner         []int32
	centers       []physics.Vec3
	nbodies       int
	partial       []float64
	fnLoads       func(lo, hi, block int)

	springs *Springs       // cloth springs and pinned particles (springs.go), or nil
	contact float64        // contact distance between cloth vertices and other particles (m)
	cn      []physics.Vec3 // per fluid pair: contact normal (springs.go)
	cw      []float64      // per fluid pair: contact weight, 0 when inactive
	cbn     []physics.Vec3 // per boundary pair: wall contact normal
	cbw     []float64      // per boundary pair: wall contact weight × (d/l − 1), 0 when inactive
}

// NewSolver returns a solver with the given parameters.
func NewSolver(p Params) *Solver {
	s := &Solver{Params: p}
	s.fnInit, s.fnLocal, s.fnResid = s.initBlock, s.localBlock, s.residBlock
	s.fnPrecond, s.fnJd, s.fnApply = s.precondBlock, s.jdBlock, s.applyBlock
	s.fnUpdate, s.fnUpdateD = s.updateBlock, s.updateDBlock
	s.fnAccel, s.fnLoads, s.fnWarm = s.accelBlock, s.loadsBlock, s.warmBlock
	return s
}

// Solve computes the end-of-step positions of the fluid from its positions X and predicted
// velocities VStar and writes them as the pressure acceleration AP (see the package comment).
// P on entry (the previous solve's) warm-starts the solve, and on return holds each
// constraint's pressure equivalent (accelBlock). spacing is the particle spacing (the unit of
// Tolerance).
func (s *Solver) Solve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, kr *physics.Kernel, dt, spacing float64, pool *par.Pool) Result {
	n := f.Len()
	var res Result
	if n == 0 {
		res.Converged = true
		return res
	}
	s.contact = contactFrac * spacing
	s.prepare(f, b, ff, fb, kr, dt, pool)
	defer func() { s.f, s.b, s.ff, s.fb, s.kr = nil, nil, nil, nil, nil }()
	nb := par.Blocks(n)
	tol2 := s.Tolerance * spacing * s.Tolerance * spacing * float64(n)
	omega, start, prevE2 := 1.0, 2, math.Inf(1)
	prevE, step, halvings := math.Inf(1), 1.0, 0
	for it := 0; ; {
		pool.For(n, s.fnLocal)
		pool.For(n, s.fnResid) // r = b − A x, the diagonal, Σ (Δt² r/m)² and the energy per block
		e2 := par.Sum(s.red[:nb])
		e := par.Sum(s.energy[:nb])
		if e > prevE && e2 > tol2 && halvings < s.halvingCap() {
			// the Newton step raised Eq. 4's energy (an active set changed) and did not meet
			// the stop test: halve it. A trial point that meets the stop test is taken
			// whatever its energy: near the solution the energy's changes are at the level
			// of its mismatch with the residual (the projections are not exact closest
			// points), and rejecting such a point left solves halving at a residual below
			// the tolerance until pfMaxIterations.
			halvings++
			res.Backtracks++
			step *= 0.5
			s.stepBlock(n, step, pool)
			continue
		}
		halvings, prevE = 0, e
		if e2 <= tol2 {
			res.Converged = true
			break
		}
		if it == 0 && s.warm {
			// warm start: the previous solve's constraint forces, with the gradients at s, as
			// a first step without CG (checked by the line search like a global step, not
			// counted as one)
			s.warm = false
			res.WarmStart = true
			copy(s.xm1, s.x[:n])
			pool.For(n, s.fnWarm)
			step = 1
			s.stepBlock(n, step, pool)
			continue
		}
		if e2 > prevE2 {
			start = it + 2
		}
		prevE2 = e2
		if it == s.MaxIterations {
			break
		}
		res.Iterations++
		copy(s.xk, s.x[:n]) // x⁽ᵏ⁾, the base of the line search and x⁽ᵏ⁻¹⁾ of the next iteration
		res.CGIterations += s.cg(n, nb, max(tol2*cgTolFrac*cgTolFrac, e2*cgForcing*cgForcing), pool)
		if s.Chebyshev > 0 && it >= start {
			if it == start {
				omega = 2 / (2 - s.Chebyshev*s.Chebyshev)
			} else {
				omega = 4 / (4 - s.Chebyshev*s.Chebyshev*omega)
			}
			// the extrapolated point x⁽ᵏ⁻¹⁾ + ω(x̂ − x⁽ᵏ⁻¹⁾) as a step from x⁽ᵏ⁾
			for i := range s.x[:n] {
				xk, m, d := &s.xk[i], &s.xm1[i], &s.dx[i]
				for c := 0; c < 3; c++ {
					d[c] = m[c] + omega*(xk[c]+d[c]-m[c]) - xk[c]
				}
			}
		}
		s.xm1, s.xk = s.xk, s.xm1 // xm1: the base x⁽ᵏ⁾ of the line search
		step = 1
		s.stepBlock(n, step, pool)
		it++
	}
	res.AvgError = par.Sum(s.cSum[:nb]) / float64(n)
	res.MaxError = par.Max(s.cMax[:nb])
	pool.For(n, s.fnAccel)
	return res
}

// halvingCap is the line search's cap: maxHalvings, or maxHalvingsCloth with cloth.
func (s *Solver) halvingCap() int {
	if s.springs != nil && len(s.springs.Sheet) > 0 {
		return maxHalvingsCloth
	}
	return maxHalvings
}

// prepare sizes the scratch and the pair offsets, and sets the inertial target and the
// initial guess.
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
	for _, p := range []*[]physics.Vec3{&s.xk, &s.xm1, &s.s, &s.x, &s.self, &s.rhs, &s.z, &s.d, &s.q, &s.dx, &s.diag, &s.gself} {
		*p = par.Grow(*p, n)
	}
	for _, p := range []*[]float64{&s.vol, &s.ginv, &s.mu, &s.mu0, &s.mu0v, &s.y, &s.yv} {
		*p = par.Grow(*p, n)
	}
	s.coef = par.Grow(s.coef, n)
	for _, p := range []*[]float64{&s.dpx, &s.dpy, &s.dpz, &s.gvx, &s.gvy, &s.gvz} {
		*p = par.Grow(*p, s.offF[nb])
	}
	for _, p := range []*[]float64{&s.gbx, &s.gby, &s.gbz} {
		*p = par.Grow(*p, s.offB[nb])
	}
	s.passes = par.Grow(s.passes, nb)
	if s.springs != nil && len(s.springs.Sheet) > 0 {
		s.cn, s.cw = par.Grow(s.cn, s.offF[nb]), par.Grow(s.cw, s.offF[nb])
		s.cbn, s.cbw = par.Grow(s.cbn, s.offB[nb]), par.Grow(s.cbw, s.offB[nb])
		clear(s.cbw)
	}
	s.pairG = par.Grow(s.pairG, s.offF[nb])
	s.xb = par.Grow(s.xb, b.Len())
	for k := range s.xb {
		x, v := &b.X[k], &b.V[k]
		s.xb[k] = physics.Vec3{x[0] + dt*v[0], x[1] + dt*v[1], x[2] + dt*v[2]}
	}
	s.cSum, s.cMax = par.Grow(s.cSum, nb), par.Grow(s.cMax, nb)
	s.red, s.red2 = par.Grow(s.red, nb), par.Grow(s.red2, nb)
	s.energy, s.eProj = par.Grow(s.energy, nb), par.Grow(s.eProj, nb)
	pool.For(n, s.fnInit)
	s.warm = false
	for _, p := range f.P[:n] {
		if p != 0 {
			s.warm = true
			break
		}
	}
}

// initBlock sets s = x⁽ⁿ⁾ + Δt v* (Eq. 2; v* carries Δt M⁻¹ f_ext), the initial guess x = s,
// and V_i.
func (s *Solver) initBlock(lo, hi, _ int) {
	f, dt := s.f, s.dt
	for i := lo; i < hi; i++ {
		x, v := &f.X[i], &f.VStar[i]
		p := physics.Vec3{x[0] + dt*v[0], x[1] + dt*v[1], x[2] + dt*v[2]}
		s.s[i], s.x[i] = p, p
		if s.fixed(i) {
			s.x[i] = *x // a pinned particle is not an unknown: it stays (Springs)
		}
		vi := f.M[i] / f.Rho0[i]
		s.vol[i] = vi
		s.mu0[i] = -f.P[i] * vi / s.Stiffness
		s.mu0v[i] = s.mu0[i] * vi
	}
}

// localBlock is the local step for the constraints of one block: Algorithm 1 on C_i of Eq. 8
// with the number density of physics.Density,
//
//	C_i = V_i (W(0) + Σ_j W(p_i − p_j)) + Σ_b V_b W(p_i − x_b) − 1,  V_i = m_i/ρ0_i,
//	∇_{p_j} C_i = −V_i ∇W(p_i − p_j),  ∇_{p_i} C_i = V_i Σ_j ∇W(p_i − p_j) + Σ_b V_b ∇W(p_i − x_b),
//
// each Newton step p ← p + λ∇C with λ = −C/‖∇C‖² (Eq. 10–11), the norm taken over the movable
// (fluid) particles only, as the boundary samples do not move. It records the gradient at the
// iterate (the normal of D_i), 1/‖∇C_i‖², μ_i = ∇C_i·Δp_i/‖∇C_i‖², Δp per pair, and the
// compression at the iterate for the statistics. An uncompressed constraint (C_i ≤ ε) is
// inactive: its projection is the identity and it adds nothing to the global matrix.
func (s *Solver) localBlock(lo, hi, blk int) {
	b, kr := s.b, s.kr
	fbk, bbk := &s.ff.Blocks[blk], &s.fb.Blocks[blk]
	of, ob := s.offF[blk], s.offB[blk]
	w0 := kr.W0()
	kern := s.kern
	var sheet []bool // cloth vertices: in no density constraint (springs.go)
	if s.springs != nil && len(s.springs.Sheet) > 0 {
		sheet = s.springs.Sheet
	}
	// the pair passes in vector form (vec.PFPass) for the cubic spline without cloth; the
	// scalar passes below otherwise
	fast := kern.cubic && sheet == nil
	pa := &s.passes[blk]
	if fast {
		pa.SetKernel(kern.invH, kern.invH2, kern.k, kern.l)
	}
	var csum, cmax, ep float64
	for i := lo; i < hi; i++ {
		k := i - lo
		f0, f1 := int(fbk.Start[k]), int(fbk.Start[k+1])
		b0, b1 := int(bbk.Start[k]), int(bbk.Start[k+1])
		js := fbk.J[f0:f1]
		bs := bbk.J[b0:b1]
		dpx, dpy, dpz := s.dpx[of+f0:of+f1], s.dpy[of+f0:of+f1], s.dpz[of+f0:of+f1]
		pg := s.pairG[of+f0 : of+f1]
		gvx, gvy, gvz := s.gvx[of+f0:of+f1], s.gvy[of+f0:of+f1], s.gvz[of+f0:of+f1]
		gbx, gby, gbz := s.gbx[ob+b0:ob+b1], s.gby[ob+b0:ob+b1], s.gbz[ob+b0:ob+b1]
		if sheet != nil && sheet[i] {
			clear(gvx)
			clear(gvy)
			clear(gvz)
			clear(gbx)
			clear(gby)
			clear(gbz)
			clear(pg)
			s.self[i], s.gself[i], s.mu[i], s.ginv[i] = physics.Vec3{}, physics.Vec3{}, 0, 0
			continue
		}
		vi := s.vol[i]
		xi := s.x[i]
		var d0, g0 physics.Vec3
		var gn0 float64
		active := false
		var po physics.Vec3 // p before the last Newton step
		var lam float64     // λ of the last Newton step
		var cPrev float64   // C before the last Newton step
		pending := false    // the last Newton step's neighbour moves are not made yet
		for step := 0; ; step++ {
			pi := physics.Vec3{xi[0] + d0[0], xi[1] + d0[1], xi[2] + d0[2]}
			// the neighbours' moves of the last Newton step, then the constraint value and
			// gradient at p, in one pass over the pairs
			var sw, gx, gy, gz, gn, c, bx, by, bz float64
			if fast {
				pa.SetConstraint(&pi, vi)
				if step == 0 {
					// at x: no neighbour has moved; the gradient here is D_i's normal
					sw, gx, gy, gz, gn = pa.First(js, s.x, gvx, gvy, gvz, pg)
					c, bx, by, bz = pa.Walls(bs, s.xb, b.Vol, gbx, gby, gbz)
				} else {
					// neighbours move along ∇_{p_j}C = −V_i ∇W(p_i − p_j) at the old p
					pa.SetStep(&po, -lam)
					sw, gx, gy, gz, gn = pa.Next(js, s.x, dpx, dpy, dpz, pg)
					c, bx, by, bz = pa.Walls(bs, s.xb, b.Vol, nil, nil, nil)
				}
			} else {
				sw, gx, gy, gz, gn = s.fluidPass(step, pi, po, lam, vi, js, sheet, gvx, gvy, gvz, dpx, dpy, dpz, pg)
				c, bx, by, bz = s.wallPass(step == 0, pi, bs, gbx, gby, gbz)
			}
			c += vi * (w0 + sw)
			gx += bx
			gy += by
			gz += bz
			c--
			gn += gx*gx + gy*gy + gz*gz
			if step == 0 {
				cp := max(0, c)
				csum += cp
				cmax = max(cmax, cp)
				g0, gn0 = physics.Vec3{gx, gy, gz}, gn
				active = c > projEps && gn > 0
				if active {
					// the neighbours' displacements, read by the Newton steps (only a
					// projected constraint's)
					clear(dpx)
					clear(dpy)
					clear(dpz)
				} else {
					s.self[i], s.gself[i], s.mu[i], s.ginv[i] = physics.Vec3{}, g0, 0, 0
					if c > -activeMargin && gn > 0 {
						s.ginv[i] = 1 / gn
					}
					break
				}
			}
			if c <= projEps || gn == 0 || step == maxProjSteps {
				break
			}
			lam = -c / gn
			po = pi
			d0 = physics.Vec3{d0[0] + lam*gx, d0[1] + lam*gy, d0[2] + lam*gz}
			// the neighbours' moves are made in the next pass over the pairs
			if step > 0 && c < cPrev && c*c*c <= projSafe*projEps*cPrev*cPrev {
				// Newton converges quadratically, C' ≈ K C² with K ≈ C/C_prev² measured on
				// the last step: this step's C' ≈ C³/C_prev² is below ε by the margin
				// projSafe, so the pass that would only confirm C' ≤ ε is not made; the
				// moves are made in the loop below
				pending = true
				break
			}
			cPrev = c
		}
		if !active {
			continue
		}
		s.self[i], s.gself[i] = d0, g0
		// μ = ∇C·Δp/‖∇C‖², ∇C at the iterate: the component of the projection along D_i's
		// normal; and ‖Δp‖² for the energy
		dot := g0[0]*d0[0] + g0[1]*d0[1] + g0[2]*d0[2]
		dd := d0[0]*d0[0] + d0[1]*d0[1] + d0[2]*d0[2]
		if pending {
			pa.SetStep(&po, -lam)
			pa.Move(js, s.x, dpx, dpy, dpz, pg)
		}
		gd, dn := vec.Dots(gvx, gvy, gvz, dpx, dpy, dpz)
		dot -= vi * gd
		dd += dn
		ep += dd
		s.ginv[i] = 1 / gn0
		s.mu[i] = dot / gn0
	}
	s.cSum[blk], s.cMax[blk] = csum, cmax
	s.eProj[blk] = 0.5 * s.Stiffness * ep
	for i := lo; i < hi; i++ {
		vi := s.vol[i]
		s.coef[i] = [2]float64{s.mu[i] * vi, s.ginv[i] * vi * vi}
	}
}

// fluidPass is the scalar form of one pass of the local step over the fluid pairs of a
// constraint at p = pi (vec.PFPass.First and Next), for other kernels than the cubic spline and
// for solves with cloth, whose vertices are in no density constraint: it returns Σ_j W,
// V_i Σ_j g r (three components) and Σ_j (V_i g)² r².
func (s *Solver) fluidPass(step int, pi, po physics.Vec3, lam, vi float64, js []int32, sheet []bool, gvx, gvy, gvz, dpx, dpy, dpz, pg []float64) (sw, gx, gy, gz, gn float64) {
	kr, kern := s.kr, &s.kern
	for e, j := range js {
		if sheet != nil && sheet[j] {
			if step == 0 {
				gvx[e], gvy[e], gvz[e] = 0, 0, 0
			}
			pg[e] = 0
			continue
		}
		xj := &s.x[j]
		var rx, ry, rz float64
		if step == 0 {
			rx, ry, rz = pi[0]-xj[0], pi[1]-xj[1], pi[2]-xj[2]
		} else {
			u := -lam * pg[e]
			dpx[e] += u * (po[0] - xj[0] - dpx[e])
			dpy[e] += u * (po[1] - xj[1] - dpy[e])
			dpz[e] += u * (po[2] - xj[2] - dpz[e])
			rx, ry, rz = pi[0]-xj[0]-dpx[e], pi[1]-xj[1]-dpy[e], pi[2]-xj[2]-dpz[e]
		}
		var wv, g float64
		if kern.cubic {
			wv, g = kern.eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
		} else {
			wv, g = kr.Eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
		}
		if step == 0 {
			gvx[e], gvy[e], gvz[e] = g*rx, g*ry, g*rz
		}
		sw += wv
		g *= vi
		pg[e] = g
		gx += g * rx
		gy += g * ry
		gz += g * rz
		gn += g * g * (rx*rx + ry*ry + rz*rz)
	}
	return sw, gx, gy, gz, gn
}

// wallPass is the scalar form of vec.PFPass.Walls: Σ_b V_b W and Σ_b V_b g r at p = pi, and
// with store the per-pair V_b g r.
func (s *Solver) wallPass(store bool, pi physics.Vec3, bs []int32, gbx, gby, gbz []float64) (c, gx, gy, gz float64) {
	kr, kern, b := s.kr, &s.kern, s.b
	for e, j := range bs {
		xj := &s.xb[j]
		rx, ry, rz := pi[0]-xj[0], pi[1]-xj[1], pi[2]-xj[2]
		var wv, g float64
		if kern.cubic {
			wv, g = kern.eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
		} else {
			wv, g = kr.Eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
		}
		c += b.Vol[j] * wv
		g *= b.Vol[j]
		if store {
			gbx[e], gby[e], gbz[e] = g*rx, g*ry, g*rz
		}
		gx += g * rx
		gy += g * ry
		gz += g * rz
	}
	return c, gx, gy, gz
}

// residBlock forms the residual of Eq. 5 at the iterate, r = b − A x. With D_i = n_i n_iᵀ,
// P_i = D_i and p_i = S_i x + Δp_i, the terms of A x and b that contain x cancel and
// r_l = m_l/Δt² (s_l − x_l) + w Σ_k μ_k ∇_l C_k over the constraints k containing l:
// its own (∇_l C_l) and its neighbours' (∇_l C_k = V_k ∇W(x_l − x_k), read from l's own row).
// It also sets the diagonal of the global matrix per component,
// m_l/Δt² + w Σ_k (∇_l C_k)²/‖∇C_k‖², the Jacobi preconditioner.
func (s *Solver) residBlock(lo, hi, blk int) {
	f := s.f
	idt2 := 1 / (s.dt * s.dt)
	w := s.Stiffness
	fbk := &s.ff.Blocks[blk]
	of := s.offF[blk]
	var e2, en float64
	for i := lo; i < hi; i++ {
		k := i - lo
		f0, f1 := int(fbk.Start[k]), int(fbk.Start[k+1])
		gvx, gvy, gvz := s.gvx[of+f0:of+f1], s.gvy[of+f0:of+f1], s.gvz[of+f0:of+f1]
		gi := &s.gself[i]
		mi, gii := s.mu[i], s.ginv[i]
		d := physics.Vec3{mi * gi[0], mi * gi[1], mi * gi[2]}
		a := physics.Vec3{gii * gi[0] * gi[0], gii * gi[1] * gi[1], gii * gi[2] * gi[2]}
		// an inactive neighbour's constraint has μ_j = 0 and 1/‖∇C_j‖² = 0: its terms are
		// zero; one in the margin has μ_j = 0
		nd, na := vec.PFResidSums(fbk.J[f0:f1], s.coef, gvx, gvy, gvz)
		for c := 0; c < 3; c++ {
			d[c] += nd[c]
			a[c] += na[c]
		}
		m := f.M[i] * idt2
		si, xi := &s.s[i], &s.x[i]
		r := physics.Vec3{m*(si[0]-xi[0]) + w*d[0], m*(si[1]-xi[1]) + w*d[1], m*(si[2]-xi[2]) + w*d[2]}
		dg := physics.Vec3{m + w*a[0], m + w*a[1], m + w*a[2]}
		if s.springs != nil {
			en += s.springResid(i, &r, &dg)
			if len(s.springs.Sheet) > 0 {
				en += s.contactResid(i, fbk.J[f0:f1], s.cn[of+f0:of+f1], s.cw[of+f0:of+f1], &r, &dg)
				if s.springs.Sheet[i] {
					bbk := &s.fb.Blocks[blk]
					b0, b1 := int(bbk.Start[k]), int(bbk.Start[k+1])
					ob := s.offB[blk]
					en += s.wallResid(i, bbk.J[b0:b1], s.cbn[ob+b0:ob+b1], s.cbw[ob+b0:ob+b1], &r, &dg)
				}
			}
			if s.fixed(i) {
				// not an unknown: no residual, and CG never moves it (z = r/diag = 0)
				s.rhs[i], s.diag[i] = physics.Vec3{}, physics.Vec3{1, 1, 1}
				continue
			}
		}
		s.rhs[i] = r
		s.diag[i] = dg
		// the residual force as the position error it makes over one step through the
		// inertia term alone: Δt² r/m
		id := 1 / m
		e2 += id * id * (r[0]*r[0] + r[1]*r[1] + r[2]*r[2])
		dx, dy, dz := xi[0]-si[0], xi[1]-si[1], xi[2]-si[2]
		en += 0.5 * m * (dx*dx + dy*dy + dz*dz)
	}
	s.red[blk] = e2
	s.energy[blk] = en + s.eProj[blk]
}

// cg solves A δ = r for the correction δ of x by Jacobi-preconditioned conjugate gradients
// with the matrix-free product of Algorithm 2 (MATRIXFREEATIMES), stopping when the linear
// residual, in the metric of the outer stop test (Σ (Δt² r/m)²), is below target2, leaving δ in
// dx. It returns the iterations made.
func (s *Solver) cg(n, nb int, target2 float64, pool *par.Pool) int {
	// δ = 0, residual r = rhs, z = D⁻¹ r, d = z
	clear(s.dx[:n])
	pool.For(n, s.fnPrecond) // z = D⁻¹r, d = z, red = r·z
	rz := par.Sum(s.red[:nb])
	it := 0
	for it < s.MaxCGIterations {
		s.apply(n, pool) // q = A d, red = d·q
		dq := par.Sum(s.red[:nb])
		if !(dq > 0) {
			break
		}
		s.alpha = rz / dq
		pool.For(n, s.fnUpdate) // δ += α d, r −= α q, z = D⁻¹ r, red = r·z, red2 = |z|²
		it++
		rzNew := par.Sum(s.red[:nb])
		if par.Sum(s.red2[:nb]) <= target2 {
			break
		}
		s.alpha = rzNew / rz
		rz = rzNew
		pool.For(n, s.fnUpdateD) // d = z + β d
	}
	return it
}

// stepBlock sets x = x⁽ᵏ⁾ + t δ, the trial point of the line search along the global step's
// correction δ.
func (s *Solver) stepBlock(n int, t float64, _ *par.Pool) {
	for i := range s.x[:n] {
		x, b, d := &s.x[i], &s.xm1[i], &s.dx[i]
		*x = physics.Vec3{b[0] + t*d[0], b[1] + t*d[1], b[2] + t*d[2]}
	}
}

// apply computes q = A d for the global matrix of Eq. 5 without assembling it (Algorithm 2,
// MATRIXFREEATIMES): A = M/Δt² + w Σ_k ∇C_k ∇C_kᵀ/‖∇C_k‖², in two gathers, y_k = ∇C_k·d/‖∇C_k‖²
// per constraint, then q_l = m_l/Δt² d_l + w Σ_k y_k ∇_l C_k per particle.
func (s *Solver) apply(n int, pool *par.Pool) {
	pool.For(n, s.fnJd)
	pool.For(n, s.fnApply)
}

func (s *Solver) precondBlock(lo, hi, blk int) {
	var sum float64
	for i := lo; i < hi; i++ {
		r, a := &s.rhs[i], &s.diag[i]
		z := physics.Vec3{r[0] / a[0], r[1] / a[1], r[2] / a[2]}
		s.z[i], s.d[i] = z, z
		sum += r[0]*z[0] + r[1]*z[1] + r[2]*z[2]
	}
	s.red[blk] = sum
}

// jdBlock is the first gather of the product: y_k = (∇_k C_k·d_k − V_k Σ_j ∇W(x_k − x_j)·d_j)
// /‖∇C_k‖² for the active constraints, 0 for the others.
func (s *Solver) jdBlock(lo, hi, blk int) {
	fbk := &s.ff.Blocks[blk]
	of := s.offF[blk]
	for i := lo; i < hi; i++ {
		gi := s.ginv[i]
		if gi == 0 {
			s.y[i], s.yv[i] = 0, 0
			continue
		}
		k := i - lo
		f0, f1 := int(fbk.Start[k]), int(fbk.Start[k+1])
		gvx, gvy, gvz := s.gvx[of+f0:of+f1], s.gvy[of+f0:of+f1], s.gvz[of+f0:of+f1]
		sum := vec.PFDotSum(fbk.J[f0:f1], s.d, gvx, gvy, gvz)
		g, d := &s.gself[i], &s.d[i]
		y := gi * (g[0]*d[0] + g[1]*d[1] + g[2]*d[2] - s.vol[i]*sum)
		s.y[i], s.yv[i] = y, y*s.vol[i]
	}
}

// applyBlock is the second gather: q_l = m_l/Δt² d_l + w (y_l ∇_l C_l + Σ_k y_k V_k ∇W(x_l − x_k)),
// with y_k V_k precomputed by jdBlock,
// and d·q per block.
func (s *Solver) applyBlock(lo, hi, blk int) {
	f := s.f
	idt2 := 1 / (s.dt * s.dt)
	w := s.Stiffness
	fbk := &s.ff.Blocks[blk]
	of := s.offF[blk]
	var sum float64
	for i := lo; i < hi; i++ {
		k := i - lo
		f0, f1 := int(fbk.Start[k]), int(fbk.Start[k+1])
		gvx, gvy, gvz := s.gvx[of+f0:of+f1], s.gvy[of+f0:of+f1], s.gvz[of+f0:of+f1]
		g := &s.gself[i]
		yi := s.y[i]
		a := physics.Vec3{yi * g[0], yi * g[1], yi * g[2]}
		na := vec.PFGatherSum(fbk.J[f0:f1], s.yv, gvx, gvy, gvz)
		a[0] += na[0]
		a[1] += na[1]
		a[2] += na[2]
		d := &s.d[i]
		m := f.M[i] * idt2
		q := physics.Vec3{m*d[0] + w*a[0], m*d[1] + w*a[1], m*d[2] + w*a[2]}
		if s.springs != nil {
			s.springApply(i, &q)
			if len(s.springs.Sheet) > 0 {
				s.contactApply(i, fbk.J[f0:f1], s.cn[of+f0:of+f1], s.cw[of+f0:of+f1], &q)
				if s.springs.Sheet[i] {
					bbk := &s.fb.Blocks[blk]
					b0, b1 := int(bbk.Start[k]), int(bbk.Start[k+1])
					ob := s.offB[blk]
					s.wallApply(i, s.cbn[ob+b0:ob+b1], s.cbw[ob+b0:ob+b1], &q)
				}
			}
			if s.fixed(i) {
				q = physics.Vec3{} // the row of a pinned particle is not in the system
			}
		}
		s.q[i] = q
		sum += d[0]*q[0] + d[1]*q[1] + d[2]*q[2]
	}
	s.red[blk] = sum
}

func (s *Solver) updateBlock(lo, hi, blk int) {
	a := s.alpha
	dt2 := s.dt * s.dt
	var rz, ee float64
	for i := lo; i < hi; i++ {
		d, q, x, r, dg := &s.d[i], &s.q[i], &s.dx[i], &s.rhs[i], &s.diag[i]
		x[0] += a * d[0]
		x[1] += a * d[1]
		x[2] += a * d[2]
		r[0] -= a * q[0]
		r[1] -= a * q[1]
		r[2] -= a * q[2]
		z := physics.Vec3{r[0] / dg[0], r[1] / dg[1], r[2] / dg[2]}
		s.z[i] = z
		rz += r[0]*z[0] + r[1]*z[1] + r[2]*z[2]
		id := dt2 / s.f.M[i]
		ee += id * id * (r[0]*r[0] + r[1]*r[1] + r[2]*r[2])
	}
	s.red[blk], s.red2[blk] = rz, ee
}

func (s *Solver) updateDBlock(lo, hi, _ int) {
	beta := s.alpha
	for i := lo; i < hi; i++ {
		d, z := &s.d[i], &s.z[i]
		s.d[i] = physics.Vec3{z[0] + beta*d[0], z[1] + beta*d[1], z[2] + beta*d[2]}
	}
}

// warmBlock sets the step δ_l = Δt²/m_l w Σ_k μ⁰_k ∇_l C_k of the warm start, μ⁰ the previous
// solve's multipliers and the gradients those of the local step at s.
func (s *Solver) warmBlock(lo, hi, blk int) {
	f := s.f
	fbk := &s.ff.Blocks[blk]
	of := s.offF[blk]
	c0 := s.Stiffness * s.dt * s.dt
	for i := lo; i < hi; i++ {
		k := i - lo
		f0, f1 := int(fbk.Start[k]), int(fbk.Start[k+1])
		gvx, gvy, gvz := s.gvx[of+f0:of+f1], s.gvy[of+f0:of+f1], s.gvz[of+f0:of+f1]
		g := &s.gself[i]
		m := s.mu0[i]
		d := physics.Vec3{m * g[0], m * g[1], m * g[2]}
		nd := vec.PFGatherSum(fbk.J[f0:f1], s.mu0v, gvx, gvy, gvz)
		d[0] += nd[0]
		d[1] += nd[1]
		d[2] += nd[2]
		c := c0 / f.M[i]
		if s.fixed(i) {
			c = 0
		}
		s.dx[i] = physics.Vec3{c * d[0], c * d[1], c * d[2]}
	}
}

// accelBlock writes a_p = (x − s)/Δt²: the constraint force per unit mass that takes the
// common integration v = v* + Δt a_p, x += Δt v to the minimiser x, and the pressure
// P_i = −w μ_i/V_i of constraint i (Pa): the SPH pressure whose force on a neighbour l,
// P_i V_i V_l ∇W(x_i − x_l), equals the constraint's, w μ_i ∇_l C_i, for V_l = V_i. The next
// solve starts from it (the pressure is saved with the particles).
func (s *Solver) accelBlock(lo, hi, _ int) {
	f := s.f
	idt2 := 1 / (s.dt * s.dt)
	for i := lo; i < hi; i++ {
		x, p := &s.x[i], &s.s[i]
		f.AP[i] = physics.Vec3{(x[0] - p[0]) * idt2, (x[1] - p[1]) * idt2, (x[2] - p[2]) * idt2}
		f.P[i] = -s.Stiffness * s.mu[i] / s.vol[i]
	}
}

// Loads sums the reaction forces of the last solve on the boundary samples per body: owner maps
// each boundary sample to its body (−1: not summed), centers holds each body's torque centre.
// Force and Torque hold the result. Sample b receives w μ_i ∇_b C_i = −w μ_i V_b ∇W(x_i − x_b)
// from every active constraint i it belongs to (the last local step's, at the final
// positions). Per-block partials are added in block order.
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
	w := s.Stiffness
	for i := lo; i < hi; i++ {
		if s.sheet(i) {
			s.wallLoads(i, lo, blk, q)
			continue
		}
		if s.mu[i] == 0 {
			continue
		}
		c := -w * s.mu[i]
		k := i - lo
		b0, b1 := int(bbk.Start[k]), int(bbk.Start[k+1])
		for e, j := range bbk.J[b0:b1] {
			o := s.owner[j]
			if o < 0 {
				continue
			}
			g := ob + b0 + e
			x := &s.b.X[j]
			ct := &s.centers[o]
			physics.AddLoad(q[6*o:], x[0]-ct[0], x[1]-ct[1], x[2]-ct[2], c*s.gbx[g], c*s.gby[g], c*s.gbz[g])
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
