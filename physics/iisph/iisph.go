// Package iisph is Implicit Incompressible SPH: M. Ihmsen, J. Cornelis, B. Solenthaler,
// C. Horvath, M. Teschner, "Implicit Incompressible SPH", IEEE TVCG 20(3), 2014.
//
// The pressure Poisson equation (Eq. 5/6) is discretised from the continuity equation with a
// symmetric pressure force and solved for one pressure per particle by relaxed Jacobi (Eq. 13,
// Algorithm 1), including the boundary terms of Akinci et al. 2012 (Eq. 14-16). Each iteration
// makes two sweeps over the neighbour lists: the first gathers Σ_j d_ij p_j, the second updates
// p (in the rearranged form of the Solver comment, which reads no neighbour masses). The
// solver stops when the average predicted density error falls below η (after at least
// MinIterations) or after MaxIterations.
//
// Boundary pressure. The paper's boundary term mirrors the particle's pressure into the
// boundary samples and keeps only the particle's half of the symmetric pressure force,
// −Σ_b Ψ_b p_i/ρ_i² ∇W_ib (Sec. 4). Next to a wall this leaves the term
// p_i Σ_b Ψ_b ∇W_ib/ρ_i² unbalanced, which the solve can only answer with an excess pressure
// in the wall layer, and its force does not grow with the samples' depth, so the wall half of
// a particle's kernel carries no share of the pressure gradient (TestWallPressureIsHydrostatic's
// settled r = 1 cm column, run with mirroring: the particles within 2r of a side wall read
// 73-160 % above ρ0·g·d). With Params.Extrapolate the boundary term is the full symmetric pair
// force
//
//	a_i ∋ −Σ_b Ψ_b (p_i/ρ_i² + p_b/ρ0_i²) ∇W_ib,  p_b = physics.BoundaryPressure(p_i, ρ0_i, g, x_i, x_b),
//
// with p_b the particle's pressure extrapolated hydrostatically to the sample (Adami et al.
// 2012, Eq. 27, taken pairwise; Band et al. 2018, "Pressure Boundaries for Implicit
// Incompressible SPH", discuss the issues of mirroring in IISPH), so the wall samples stand in
// for the missing fluid in both halves of the force. In the linear system the p_i/ρ_i² half
// stays in d_ii as in the paper; the p_b half is a neighbour term of Σ_j d_ij p_j, evaluated
// from the current iterate (its dependence on p_i lags one Jacobi sweep; the fixed point is
// unchanged). The symmetric force weighs each sample's volume directly, so the caller caps
// rigid bodies' sample volumes at the particle volume (systems.Sim: Akinci's V_b grows at
// convex edges, and a floating cube of 500 kg/m³ then rode at 43.9 % submerged instead of
// 50 %).
//
// Particles of different rest densities (a light elastic body in water) follow the
// density-contrast formulation of Solenthaler & Pajarola 2008 with equal particle volumes:
// the density is the number density ρ_i = m_i Σ_j W_ij (physics.Density), so the continuity
// equation reads dρ_i/dt = m_i Σ_j v_ij·∇W_ij, and the pressure force is
// F_i = −Σ_j (p_i/δ_i² + p_j/δ_j²) ∇W_ij with δ = ρ/m, i.e.
// a_i = −Σ_j (m_i p_i/ρ_i² + (m_j²/m_i) p_j/ρ_j²) ∇W_ij. Where m_i = m_j every term reduces to
// the single-phase expression of the paper, evaluated with the same floating-point operations.
package iisph

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/vec"
	"github.com/sluicephysics/sluice/physics/par"
)

// Params are the solver settings (declared with units and ranges in components.Solver).
type Params struct {
	MaxError      float64 // η, average density error at which to stop, as a fraction (0.001 = 0.1 %)
	MinIterations int     // at least 2 (Algorithm 1: "∨ l < 2")
	MaxIterations int     // hard cap on iterations per solve
	Omega         float64 // relaxation factor ω of Eq. 13; the paper uses 0.5
	// WarmStart is the fraction κ of the last substep's pressures the iteration starts from,
	// p⁰ = κ p(t − Δt); Algorithm 1 uses ½.
	WarmStart float64
	// MaxErrorPeak, when positive, also bounds the largest per-particle predicted density
	// error: the solve stops only when the average is ≤ MaxError and every particle's error is
	// ≤ MaxErrorPeak (see Solve). 0 keeps Algorithm 1's average-only stop.
	MaxErrorPeak float64
	// Extrapolate selects the boundary pressure (see the package comment): false mirrors the
	// particle's pressure into the samples in the paper's one-sided term, true extrapolates
	// it hydrostatically (physics.BoundaryPressure) into a symmetric pair force.
	Extrapolate bool
	// Gravity g (m/s²) of the extrapolation; the scene's gravity.
	Gravity physics.Vec3
	// Chebyshev is the estimated spectral radius ρ of the relaxed Jacobi iteration for the
	// Chebyshev semi-iterative acceleration of H. Wang, "A Chebyshev Semi-Iterative Approach
	// for Accelerating Projective and Position-based Dynamics", ACM TOG 34(6), 2015 (Eq. 12);
	// 0 turns it off (Algorithm 1's plain relaxed Jacobi). See Solve.
	Chebyshev float64
	// ChebyshevDelay is S, the number of plain relaxed Jacobi sweeps before the extrapolation
	// starts (Wang 2015 delays it likewise): sweep S is extrapolated with ω = 2/(2 − ρ²), and
	// the recurrence runs from there. See Solve.
	ChebyshevDelay int
}

// DefaultParams are the paper's settings: η = 0.1 %, ω = 0.5, at least 2 iterations, the
// warm start ½ p(t − Δt), the average-only stop, no Chebyshev acceleration, and Earth's
// gravity along −y.
func DefaultParams() Params {
	return Params{MaxError: 0.001, MinIterations: 2, MaxIterations: 100, Omega: 0.5, WarmStart: 0.5, ChebyshevDelay: 4, Gravity: physics.Vec3{0, -9.81, 0}}
}

// Validate reports a parameter outside its range.
func (p Params) Validate() error {
	switch {
	case !(p.MaxError > 0 && p.MaxError < 1):
		return fmt.Errorf("iisph.maxError: %g is outside (0, 1)", p.MaxError)
	case p.MinIterations < 1:
		return fmt.Errorf("iisph.minIterations: %d is below the minimum 1", p.MinIterations)
	case p.MaxIterations < p.MinIterations:
		return fmt.Errorf("iisph.maxIterations: %d is below minIterations %d", p.MaxIterations, p.MinIterations)
	case !(p.Omega > 0 && p.Omega <= 1):
		return fmt.Errorf("iisph.omega: %g is outside (0, 1]", p.Omega)
	case !(p.WarmStart >= 0 && p.WarmStart <= 1):
		return fmt.Errorf("iisph.warmStart: %g is outside [0, 1]", p.WarmStart)
	case !(p.MaxErrorPeak >= 0 && p.MaxErrorPeak < 1):
		return fmt.Errorf("iisph.maxErrorPeak: %g is outside [0, 1) (0 turns the bound off)", p.MaxErrorPeak)
	case !(p.Chebyshev >= 0 && p.Chebyshev < 1):
		return fmt.Errorf("iisph.chebyshev: %g is outside [0, 1) (0 turns the acceleration off)", p.Chebyshev)
	case p.ChebyshevDelay < 1:
		return fmt.Errorf("iisph.chebyshevDelay: %d is below the minimum 1", p.ChebyshevDelay)
	case !physics.Finite(p.Gravity):
		return fmt.Errorf("iisph.gravity: %v is not finite", p.Gravity)
	}
	return nil
}

// Result describes one pressure solve.
type Result struct {
	Iterations int
	AvgError   float64 // average predicted density error at the last iteration (fraction of ρ0)
	MaxError   float64 // largest predicted density error at the last iteration (fraction of ρ0)
	// MaxResidual is the largest complementarity residual at the last iteration (fraction of
	// ρ0): |ρ_i − ρ0| predicted where p_i > 0, the compression where p_i = 0 (see pSweep).
	MaxResidual float64
	Converged   bool // AvgError ≤ η (and MaxError ≤ MaxErrorPeak when set) was reached within MaxIterations
}

// Solver holds the per-particle scratch of the solve; it reuses its buffers between steps.
//
// The iteration is Algorithm 1's, rearranged so that each sweep over the neighbour lists reads
// one quantity per neighbour. With u_i = d_ii p_i + Σ_j d_ij p_j (Eq. 8 and 9: Δt² times the
// pressure acceleration of Eq. 2 with the boundary term of Eq. 15), the left side of Eq. 11,
// a_ii p_i + Σ_j m_j (Σ_j d_ij p_j − d_jj p_j − Σ_{k≠i} d_jk p_k)·∇W_ij + Σ_b Ψ_b (Σ_j d_ij p_j)·∇W_ib,
// with a_ii of Eq. 12, equals
//
//	(A p)_i = Σ_j m_j (u_i − u_j)·∇W_ij + Σ_b Ψ_b u_i·∇W_ib = u_i·G_i − m_i Σ_j u_j·∇W_ij,
//
// since Σ_{k≠i} d_jk p_k = u_j − d_jj p_j − d_ji p_i and a_ii p_i = Σ_j m_j (d_ii − d_ji) p_i·∇W_ij
// + Σ_b Ψ_b d_ii p_i·∇W_ib cancel every term but u. Here G_i = m_i Σ_j ∇W_ij + Σ_b Ψ_b ∇W_ib
// (the m_j of the paper is m_i across phases, see the package comment), and d_ii = −Δt²/ρ_i² G_i.
// (A p)_i is the density change the pressures p predict, so Eq. 13 reads
// p_i^{l+1} = p_i^l + ω/a_ii (ρ0 − ρ_adv,i − (A p^l)_i). One sweep (uSweep) gathers
// Q_j = m_j² p_j/ρ_j² for u_i = −Δt² (p_i/ρ_i² G_i + Σ_j Q_j/m_i ∇W_ij + boundary); the next
// (pSweep) gathers u_j for (A p)_i and the update. The u of the converged pressures is Δt² times
// their pressure acceleration, so the last uSweep is the acceleration pass, and the prediction's
// sweep also sums the warm start's Σ_j Q_j ∇W_ij: a solve of L iterations makes 2L + 1 sweeps.
// Neither sweep reads a neighbour's mass.
//
// Nor, in the iterations, a neighbour's position. A pair stores G_ij with ∇W_ij = G_ij (x_i − x_j)
// (physics.Neighbors), and gathering x_j next to u_j or Q_j cost a quarter more time per
// iteration at 100k particles. So each particle keeps its gathered value with its dot or
// product with y_j = x_j − c (c: the first particle's position in this solve) in one 32-byte
// record, and
//
//	Σ_j G_ij u_j·(x_i − x_j) = y_i·Σ_j G_ij u_j − Σ_j G_ij (u_j·y_j),
//	Σ_j G_ij Q_j (x_i − x_j) = y_i Σ_j G_ij Q_j − Σ_j G_ij (Q_j y_j):
//
// one record a neighbour. The two sides differ by about |y|/h times float64's rounding (4e-14
// for a 10 m world at h = 5 cm), far below any η. The sweep that writes the pressure
// acceleration (the last uSweep) forms y_i − y_j per pair instead, from records (y_j, Q_j)
// written over u once the last iterate is known (finalRecords), so that the pair forces stay
// equal and opposite: y_j − y_i is −(y_i − y_j) exactly.
type Solver struct {
	Params
	gt     []physics.Vec3 // G_i above: d_ii = −Δt² G_i/ρ_i² (Eq. 9 with the boundary term of Sec. 4)
	u      [][4]float64   // u_i = d_ii p_i + Σ_j d_ij p_j of the current iterate, and u_i·y_i
	c      physics.Vec3   // the origin of y = x − c (see above)
	wa     []float64      // ω/a_ii (a_ii of Eq. 12 with the boundary term), 0 where a_ii ≈ 0
	ir2    []float64      // 1/ρ_i²
	rhoAdv []float64      // ρ_adv of Sec. 4 (density predicted from v*)
	q      [][4]float64   // Q_i y_i and Q_i = m_i² p_i / ρ_i² of the current iterate
	pPrev  []float64      // p^{l−1}, the iterate before the current one (Chebyshev)
	chebW  float64        // ω_{l+1} of the Chebyshev recurrence for the sweep in flight; 1: plain Jacobi
	errSum []float64      // per-block partial sums of the density error
	errMax []float64
	resMax []float64 // per-block largest complementarity residual (see pSweep)
	dt     float64
	final  bool // the uSweep in flight is of the returned pressures: it writes f.AP
	// uniform: every particle has the same mass, so predict's pair sums skip the mass ratios
	// (vec.PredictSums)
	uniform bool
	f       *physics.FluidSet
	b       *physics.BoundarySet
	ff, fb  *physics.Neighbors

	fnWarm, fnPredict, fnU, fnP, fnRec func(lo, hi, block int)
}

// NewSolver returns a solver with the given parameters.
func NewSolver(p Params) *Solver {
	s := &Solver{Params: p}
	s.fnWarm = s.warm
	s.fnPredict = s.predict
	s.fnU = s.uSweep
	s.fnP = s.pSweep
	s.fnRec = s.finalRecords
	return s
}

// Solve computes pressures P and pressure accelerations AP for the fluid, given densities Rho
// (from physics.Density) and predicted velocities VStar. f.P holds the last step's pressures on
// entry, which warm-start the iteration with p⁰ = κ p(t − Δt) (κ = Params.WarmStart;
// Algorithm 1's ½).
//
// The stop. Algorithm 1 stops when the average predicted density error is ≤ η. The average
// says nothing of single particles: a start that is already good on average (the full last
// pressure, κ = 1) meets it after the minimum iterations while a few particles, where the flow
// changed since the last substep (an impact, a wall), stay compressed by several percent. With
// Params.MaxErrorPeak the solve also iterates until every particle's predicted error is below
// that bound, the kind of stop PCISPH uses (Solenthaler & Pajarola 2009, "Predictive-Corrective
// Incompressible SPH", Sec. 4: the correction loop runs until the density fluctuation of every
// particle is below the threshold).
//
// The acceleration. With Params.Chebyshev = ρ > 0 each iterate is extrapolated from the
// relaxed Jacobi update p̂^{l+1} and the iterate before, p^{l+1} = max(0, ω_{l+1}(p̂^{l+1} −
// p^{l−1}) + p^{l−1}), with Wang 2015's recurrence (Eq. 12) delayed by S =
// Params.ChebyshevDelay sweeps: ω_{l+1} = 1 for l < S, 2/(2 − ρ²) for l = S and
// 4/(4 − ρ²ω_l) after. The extrapolation assumes the error is dominated by the iteration's
// slowest (smooth) mode, the semi-iterative regime; the first sweeps of a substep still remove
// the rough error of its new source term, and extrapolating them (S = 1) overshot the
// pressure of resting solids every substep: an elastoplastic dough dropped on the floor burst,
// which S = 4 does not (TestChebyshevKeepsTheDoughTogether, docs/results.md). The clamp at
// zero follows the extrapolation, as the projection follows it in Wang's constrained dynamics. Each particle's extrapolation reads only its own
// pressures, so the results still do not depend on the number of workers. The fixed point is
// that of the plain iteration (at p^{l+1} = p̂^{l+1} = p^l = p^{l−1} the extrapolation is the
// identity); ρ sets how fast the smooth error modes are damped and, too large, excites the
// rough ones (see docs/results.md for the measured trade-off).
func (s *Solver) Solve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, dt float64, pool *par.Pool) Result {
	n := f.Len()
	s.f, s.b, s.ff, s.fb, s.dt = f, b, ff, fb, dt
	if n > 0 {
		s.c = f.X[0]
	}
	s.gt = par.Grow(s.gt, n)
	s.u = par.Grow(s.u, n)
	s.wa = par.Grow(s.wa, n)
	s.ir2 = par.Grow(s.ir2, n)
	s.rhoAdv = par.Grow(s.rhoAdv, n)
	s.q = par.Grow(s.q, n)
	nb := par.Blocks(n)
	s.errSum = par.Grow(s.errSum, nb)
	s.errMax = par.Grow(s.errMax, nb)
	s.resMax = par.Grow(s.resMax, nb)
	var res Result
	if n == 0 {
		res.Converged = true
		return res
	}
	pool.For(n, s.fnWarm)
	s.uniform = f.UniformMass()
	pool.For(n, s.fnPredict)
	s.chebW = 1
	if s.Chebyshev > 0 {
		s.pPrev = par.Grow(s.pPrev, n)
	}
	for l := 0; l < s.MaxIterations; l++ {
		if rho2 := s.Chebyshev * s.Chebyshev; rho2 > 0 {
			switch {
			case l < s.ChebyshevDelay:
				s.chebW = 1
			case l == s.ChebyshevDelay:
				s.chebW = 2 / (2 - rho2)
			default:
				s.chebW = 4 / (4 - rho2*s.chebW)
			}
		}
		pool.For(n, s.fnP)
		res.Iterations = l + 1
		res.AvgError = par.Sum(s.errSum[:nb]) / float64(n)
		res.MaxError = par.Max(s.errMax[:nb])
		res.MaxResidual = par.Max(s.resMax[:nb])
		res.Converged = res.Iterations >= s.MinIterations && res.AvgError <= s.Params.MaxError &&
			(s.MaxErrorPeak == 0 || res.MaxResidual <= s.MaxErrorPeak)
		s.final = res.Converged || l == s.MaxIterations-1
		if s.final {
			pool.For(n, s.fnRec)
		}
		pool.For(n, s.fnU)
		if res.Converged {
			break
		}
	}
	s.final = false
	s.f, s.b, s.ff, s.fb = nil, nil, nil, nil
	return res
}

// warm sets the warm start p⁰ = κ p(t − Δt) (Algorithm 1: κ = ½) and its Q = m² p/ρ², which
// the prediction's sweep reads of every neighbour.
func (s *Solver) warm(lo, hi, _ int) {
	f := s.f
	k := s.WarmStart
	for i := lo; i < hi; i++ {
		p := k * f.P[i]
		f.P[i] = p
		rho, m := f.Rho[i], f.M[i]
		s.setQ(i, m*m*p/(rho*rho))
	}
}

// predict is PREDICTADVECTION of Algorithm 1 with the boundary terms of Sec. 4, in one sweep
// over each particle's neighbours:
//
//	G_i   = m_i Σ_j ∇W_ij + Σ_b Ψ_b ∇W_ib,  d_ii = −Δt² G_i/ρ_i²                (Eq. 9, Sec. 4)
//	ρ_adv = ρ_i + Δt Σ_j m_i v*_ij·∇W_ij + Δt Σ_b Ψ_b (v*_i − v_b)·∇W_ib     (Sec. 4, "ρ_i^adv")
//	a_ii  = Σ_j m_i (d_ii − d_ji)·∇W_ij + Σ_b Ψ_b d_ii·∇W_ib                 (Eq. 12 with boundary)
//	      = d_ii·G_i − Δt² m_i²/ρ_i² Σ_j (m_i/m_j) |∇W_ij|²
//
// with d_ji = −Δt² m_i/ρ_i² ∇W_ji = Δt² m_i/ρ_i² ∇W_ij (times m_i/m_j across phases) and
// Ψ_b = ρ0_i V_b. The same sweep gives u_i of the warm start (see uSweep).
func (s *Solver) predict(lo, hi, block int) {
	fblk, bblk := &s.ff.Blocks[block], &s.fb.Blocks[block]
	f, b, dt := s.f, s.b, s.dt
	dt2 := dt * dt
	for i := lo; i < hi; i++ {
		rho := f.Rho[i]
		ir2 := 1 / (rho * rho)
		vi := f.VStar[i]
		xi := &f.X[i]
		mi := f.M[i]
		var sx, sy, sz, gg, div, qx, qy, qz float64
		js, gws := fblk.Row(i - lo)
		gws = gws[:len(js)]
		if s.uniform {
			// one mass: the sums per component, the dot products' components added at the end
			var sg, sq [3]float64
			sg, gg, div, sq = vec.PredictSums(js, gws, f.X, f.VStar, s.q, xi, &vi)
			sx, sy, sz = sg[0], sg[1], sg[2]
			qx, qy, qz = sq[0], sq[1], sq[2]
			js = js[:0]
		}
		for k, j := range js {
			g := physics.Grad(gws[k], xi, &f.X[j])
			sx += g[0]
			sy += g[1]
			sz += g[2]
			g2 := g[0]*g[0] + g[1]*g[1] + g[2]*g[2]
			if mj := f.M[j]; mj != mi {
				g2 *= mi / mj
			}
			gg += g2
			vj := &f.VStar[j]
			div += (vi[0]-vj[0])*g[0] + (vi[1]-vj[1])*g[1] + (vi[2]-vj[2])*g[2]
			q := s.q[j][3]
			qx += q * g[0]
			qy += q * g[1]
			qz += q * g[2]
		}
		div *= mi
		psi0 := f.Rho0[i]
		var bx, by, bz float64
		bs, gbs := bblk.Row(i - lo)
		for k, j := range bs {
			g := physics.Grad(gbs[k], xi, &b.X[j])
			psi := psi0 * b.Vol[j]
			bx += psi * g[0]
			by += psi * g[1]
			bz += psi * g[2]
			vb := &b.V[j]
			div += psi * ((vi[0]-vb[0])*g[0] + (vi[1]-vb[1])*g[1] + (vi[2]-vb[2])*g[2])
		}
		gt := physics.Vec3{mi*sx + bx, mi*sy + by, mi*sz + bz}
		s.gt[i] = gt
		s.rhoAdv[i] = rho + dt*div
		c := -dt2 * ir2
		aii := c * ((gt[0]*gt[0] + gt[1]*gt[1] + gt[2]*gt[2]) + mi*mi*gg)
		wa := 0.0 // no pressure for a particle without neighbours or walls
		if math.Abs(aii) > 1e-12*psi0 {
			wa = s.Omega / aii
		}
		s.wa[i] = wa
		s.ir2[i] = ir2
		s.setU(i, f.P[i], ir2, qx, qy, qz, false)
	}
}

// setU finishes u_i from the gathered Σ_j Q_j ∇W_ij (x, y, z) and particle i's pressure p:
//
//	u_i = −Δt² (p_i/ρ_i² G_i + Σ_j (m_j²/m_i) p_j/ρ_j² ∇W_ij + Σ_b Ψ_b p_b/ρ0_i² ∇W_ib),
//
// the last sum only with Params.Extrapolate (p_b from p_i, see the package comment; mirrored,
// the boundary's half is p_i/ρ_i² Σ_b Ψ_b ∇W_ib, inside G_i). With final it writes the
// pressure acceleration a_p,i = u_i/Δt² (Eq. 2 with Eq. 15) instead of u_i, whose slots
// then hold the last sweep's records (finalRecords).
func (s *Solver) setU(i int, p, ir2, x, y, z float64, final bool) {
	f := s.f
	im := 1 / f.M[i]
	x, y, z = x*im, y*im, z*im
	if s.Extrapolate {
		bblk := &s.fb.Blocks[i/par.BlockSize]
		if bs, gbs := bblk.Row(i - bblk.Lo); len(bs) > 0 {
			// Ψ_b p_b/ρ0² = V_b p_b/ρ0
			b, grav := s.b, &s.Gravity
			rho0 := f.Rho0[i]
			xi := &f.X[i]
			for k, j := range bs {
				gb := physics.Grad(gbs[k], xi, &b.X[j])
				q := b.Vol[j] * physics.BoundaryPressure(p, rho0, grav, xi, &b.X[j]) / rho0
				x += q * gb[0]
				y += q * gb[1]
				z += q * gb[2]
			}
		}
	}
	pr := p * ir2
	gt := &s.gt[i]
	a := physics.Vec3{pr*gt[0] + x, pr*gt[1] + y, pr*gt[2] + z}
	dt2 := s.dt * s.dt
	ux, uy, uz := -dt2*a[0], -dt2*a[1], -dt2*a[2]
	if final {
		f.AP[i] = physics.Vec3{-a[0], -a[1], -a[2]}
		return
	}
	xi := &f.X[i]
	s.u[i] = [4]float64{ux, uy, uz, ux*(xi[0]-s.c[0]) + uy*(xi[1]-s.c[1]) + uz*(xi[2]-s.c[2])}
}

// finalRecords writes particle i's record for the last uSweep over u_i, which no sweep reads
// after the last pSweep: (y_i, Q_i) with y_i = x_i − c and Q_i of the returned pressure.
func (s *Solver) finalRecords(lo, hi, _ int) {
	f, c := s.f, &s.c
	for i := lo; i < hi; i++ {
		x := &f.X[i]
		s.u[i] = [4]float64{x[0] - c[0], x[1] - c[1], x[2] - c[2], s.q[i][3]}
	}
}

// uSweep is the first loop of PRESSURESOLVE: Σ_j d_ij p_j = −Δt² Σ_j m_j p_j/ρ_j² ∇W_ij
// (−Δt² Σ_j (m_j²/m_i) p_j/ρ_j² ∇W_ij across phases) with the boundary samples' half of the pair
// force when extrapolated, and from it u_i (setU), which pSweep needs of every neighbour.
func (s *Solver) uSweep(lo, hi, block int) {
	fblk := &s.ff.Blocks[block]
	f, qs, c := s.f, s.q, s.c
	final := s.final
	var sums [par.BlockSize][4]float64 // Σ_j G_ij Q_j y_j, Σ_j G_ij Q_j per particle
	if final {
		// the pressure acceleration: Σ_j Q_j G_ij (y_i − y_j) from the records (y_j, Q_j) in
		// u (finalRecords), with k_i = 0 and m = 1 in KGradSum's m (k_i + k_j) G_ij (y_i − y_j)
		var ys [par.BlockSize][4]float64
		for i := lo; i < hi; i++ {
			r := &s.u[i]
			ys[i-lo] = [4]float64{r[0], r[1], r[2], 0}
		}
		vec.KGradSumRows(fblk.Start, fblk.J, fblk.G, s.u, ys[:hi-lo], 1, hi-lo, sums[:])
	} else {
		vec.GatherSum4Rows(fblk.Start, fblk.J, fblk.G, qs, hi-lo, sums[:])
	}
	for i := lo; i < hi; i++ {
		var x, y, z float64
		xi := &f.X[i]
		if final {
			a := &sums[i-lo]
			x, y, z = a[0], a[1], a[2]
		} else {
			// y_i Σ_j G_ij Q_j − Σ_j G_ij Q_j y_j
			a := &sums[i-lo]
			x, y, z = a[0], a[1], a[2]
			sq := a[3]
			x = (xi[0]-c[0])*sq - x
			y = (xi[1]-c[1])*sq - y
			z = (xi[2]-c[2])*sq - z
		}
		s.setU(i, f.P[i], s.ir2[i], x, y, z, final)
	}
}

// setQ sets particle i's gathered record of uSweep: Q_i y_i and Q_i.
func (s *Solver) setQ(i int, q float64) {
	xi, c := &s.f.X[i], &s.c
	s.q[i] = [4]float64{q * (xi[0] - c[0]), q * (xi[1] - c[1]), q * (xi[2] - c[2]), q}
}

// pSweep is the second loop of PRESSURESOLVE, Eq. 13 with the boundary term (Eq. 16) in the
// form of the Solver comment:
//
//	(A p^l)_i = u_i·G_i − m_i Σ_j u_j·∇W_ij,   p_i^{l+1} = max(0, p_i^l + ω/a_ii (ρ0 − ρ_adv − (A p^l)_i)).
//
// Negative pressures are clamped to zero, after the Chebyshev extrapolation when it is on
// (see Solve). The density error is that of the current iterate p^l,
// ρ_adv + (A p^l)_i − ρ0: what the pressures of iterate l would leave. Mixing in the new p^{l+1}
// with the sums of iterate l, as a literal reading of Algorithm 1 does, gives (1−ω) times that
// residual (zero at ω = 1), and the solve then stopped at about η/ω of true compression. The
// solve returns p^{l+1}, one sweep past the iterate whose error it judged. Only compression
// counts in the average and MaxError, since particles at the free surface rightly sit below the
// rest density with zero pressure.
//
// The peak bound (Params.MaxErrorPeak) is on the residual of the complementarity problem the
// clamp solves (p_i ≥ 0, ρ_i ≤ ρ0, and ρ_i = ρ0 where p_i > 0): where p_i^l > 0 an expansion is
// an error as well, since there the pressure is too high and pushes the particles apart. With
// the full warm start this matters: the last substep's pressure, where the flow has eased
// since, overshoots and expands the particles, which a compression-only bound does not see
// (measured on the 100k dam break's first 0.5 s: with a compression-only 1 % bound the largest
// compression after a frame's substeps had a median of 2.26 % against the paper solver's
// 0.75 %, and the top speed rose from 5.55 to 8.73 m/s).
func (s *Solver) pSweep(lo, hi, block int) {
	fblk := &s.ff.Blocks[block]
	f, u, c := s.f, s.u, s.c
	cw := s.chebW
	var prev []float64
	if s.Chebyshev > 0 {
		prev = s.pPrev
	}
	var esum, emax, rmax float64
	var sums [par.BlockSize][4]float64 // Σ_j G_ij u_j, Σ_j G_ij u_j·y_j per particle
	vec.GatherSum4Rows(fblk.Start, fblk.J, fblk.G, u, hi-lo, sums[:])
	for i := lo; i < hi; i++ {
		// Σ_j u_j·∇W_ij = y_i·Σ_j G_ij u_j − Σ_j G_ij u_j·y_j (see Solver)
		xi := &f.X[i]
		a := &sums[i-lo]
		sum := (xi[0]-c[0])*a[0] + (xi[1]-c[1])*a[1] + (xi[2]-c[2])*a[2] - a[3]
		ui, gt := &u[i], &s.gt[i]
		mi := f.M[i]
		ap := ui[0]*gt[0] + ui[1]*gt[1] + ui[2]*gt[2] - mi*sum
		rho0 := f.Rho0[i]
		rhoAdv := s.rhoAdv[i]
		p := 0.0
		wa := s.wa[i]
		if wa != 0 {
			p = f.P[i] + wa*(rho0-rhoAdv-ap)
			if cw != 1 {
				p = cw*(p-prev[i]) + prev[i]
			}
			p = max(0, p)
		}
		if prev != nil {
			prev[i] = f.P[i]
		}
		s.setQ(i, mi*mi*p*s.ir2[i])
		d := (rhoAdv + ap - rho0) / rho0
		e := max(0, d)
		esum += e
		emax = max(emax, e)
		if f.P[i] > 0 && wa != 0 {
			d = math.Abs(d) // p_i^l > 0: the constraint is active, an expansion is an error too
		}
		rmax = max(rmax, d)
		f.P[i] = p
	}
	s.errSum[block] = esum
	s.errMax[block] = emax
	s.resMax[block] = rmax
}
