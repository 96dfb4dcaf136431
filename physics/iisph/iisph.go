// Package iisph is Implicit Incompressible SPH: M. Ihmsen, J. Cornelis, B. Solenthaler,
// C. Horvath, M. Teschner, "Implicit Incompressible SPH", IEEE TVCG 20(3), 2014.
//
// The pressure Poisson equation (Eq. 5/6) is discretised from the continuity equation with a
// symmetric pressure force and solved for one pressure per particle by relaxed Jacobi (Eq. 13,
// Algorithm 1), including the boundary terms of Akinci et al. 2012 (Eq. 14-16). Each iteration
// makes two passes over the neighbour lists: the first gathers Σ_j d_ij p_j, the second updates
// p. The solver stops when the average predicted density error falls below η (after at least
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
	"github.com/sluicephysics/sluice/physics/par"
)

// Params are the solver settings (declared with units and ranges in components.Solver).
type Params struct {
	MaxError      float64 // η, average density error at which to stop, as a fraction (0.001 = 0.1 %)
	MinIterations int     // at least 2 (Algorithm 1: "∨ l < 2")
	MaxIterations int     // hard cap on iterations per solve
	Omega         float64 // relaxation factor ω of Eq. 13; the paper uses 0.5
	// Extrapolate selects the boundary pressure (see the package comment): false mirrors the
	// particle's pressure into the samples in the paper's one-sided term, true extrapolates
	// it hydrostatically (physics.BoundaryPressure) into a symmetric pair force.
	Extrapolate bool
	// Gravity g (m/s²) of the extrapolation; the scene's gravity.
	Gravity physics.Vec3
}

// DefaultParams are the paper's settings: η = 0.1 %, ω = 0.5, at least 2 iterations, and
// Earth's gravity along −y.
func DefaultParams() Params {
	return Params{MaxError: 0.001, MinIterations: 2, MaxIterations: 100, Omega: 0.5, Gravity: physics.Vec3{0, -9.81, 0}}
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
	Converged  bool    // AvgError ≤ η was reached within MaxIterations
}

// pairData is what the second Jacobi pass reads of a neighbour j: u_j = d_jj p_j + Σ_k d_jk p_k
// and m_j, packed in 32 bytes so one neighbour costs one cache-line read.
type pairData struct {
	u physics.Vec3
	m float64
}

// Solver holds the per-particle scratch of the solve; it reuses its buffers between steps.
type Solver struct {
	Params
	dii   []physics.Vec3 // d_ii of Eq. 9 with the boundary term of Sec. 4
	dijpj []physics.Vec3 // Σ_j d_ij p_j of the current iterate
	bgrad []physics.Vec3 // Σ_b Ψ_b ∇W_ib, fixed during the solve: the boundary terms of
	// Eq. 15 and Eq. 16 are a dot product with it instead of a loop over the boundary pairs
	aii    []float64 // a_ii of Eq. 12 with the boundary term
	rhoAdv []float64 // ρ_adv of Sec. 4 (density predicted from v*)
	q      []float64 // m_i p_i / ρ_i² of the current iterate
	pNew   []float64
	pd     []pairData
	errSum []float64 // per-block partial sums of the density error
	errMax []float64
	dt     float64
	f      *physics.FluidSet
	b      *physics.BoundarySet
	ff, fb *physics.Neighbors

	fnPredict, fnPass1, fnPass2, fnAccel func(lo, hi, block int)
}

// NewSolver returns a solver with the given parameters.
func NewSolver(p Params) *Solver {
	s := &Solver{Params: p}
	s.fnPredict = s.predict
	s.fnPass1 = s.pass1
	s.fnPass2 = s.pass2
	s.fnAccel = s.accel
	return s
}

// Solve computes pressures P and pressure accelerations AP for the fluid, given densities Rho
// (from physics.Density) and predicted velocities VStar. f.P holds the last step's pressures on
// entry, which warm-start the iteration with p⁰ = ½ p(t − Δt) (Algorithm 1).
func (s *Solver) Solve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, dt float64, pool *par.Pool) Result {
	n := f.Len()
	s.f, s.b, s.ff, s.fb, s.dt = f, b, ff, fb, dt
	s.dii = par.Grow(s.dii, n)
	s.dijpj = par.Grow(s.dijpj, n)
	s.bgrad = par.Grow(s.bgrad, n)
	s.aii = par.Grow(s.aii, n)
	s.rhoAdv = par.Grow(s.rhoAdv, n)
	s.q = par.Grow(s.q, n)
	s.pNew = par.Grow(s.pNew, n)
	s.pd = par.Grow(s.pd, n)
	nb := par.Blocks(n)
	s.errSum = par.Grow(s.errSum, nb)
	s.errMax = par.Grow(s.errMax, nb)
	var res Result
	if n == 0 {
		res.Converged = true
		return res
	}
	pool.For(n, s.fnPredict)
	for l := 0; l < s.MaxIterations; l++ {
		pool.For(n, s.fnPass1)
		pool.For(n, s.fnPass2)
		f.P, s.pNew = s.pNew, f.P
		res.Iterations = l + 1
		res.AvgError = par.Sum(s.errSum[:nb]) / float64(n)
		res.MaxError = par.Max(s.errMax[:nb])
		if res.Iterations >= s.MinIterations && res.AvgError <= s.MaxError {
			res.Converged = true
			break
		}
	}
	pool.For(n, s.fnAccel)
	s.f, s.b, s.ff, s.fb = nil, nil, nil, nil
	return res
}

// predict is PREDICTADVECTION of Algorithm 1 with the boundary terms of Sec. 4:
//
//	d_ii  = −Δt² Σ_j m_j/ρ_i² ∇W_ij − Δt² Σ_b Ψ_b/ρ_i² ∇W_ib            (Eq. 9, Sec. 4)
//	ρ_adv = ρ_i + Δt Σ_j m_j v*_ij·∇W_ij + Δt Σ_b Ψ_b (v*_i − v_b)·∇W_ib  (Sec. 4, "ρ_i^adv")
//	a_ii  = Σ_j m_j (d_ii − d_ji)·∇W_ij + Σ_b Ψ_b d_ii·∇W_ib               (Eq. 12 with boundary)
//
// with d_ji = −Δt² m_i/ρ_i² ∇W_ji = Δt² m_i/ρ_i² ∇W_ij and Ψ_b = ρ0_i V_b. It also sets the
// warm start p⁰ = ½ p(t − Δt).
func (s *Solver) predict(lo, hi, block int) {
	fblk, bblk := &s.ff.Blocks[block], &s.fb.Blocks[block]
	f, b, dt := s.f, s.b, s.dt
	dt2 := dt * dt
	for i := lo; i < hi; i++ {
		rho := f.Rho[i]
		ir2 := 1 / (rho * rho)
		vi := f.VStar[i]
		var dx, dy, dz, div float64
		mi := f.M[i]
		js, gws := fblk.Row(i - lo)
		for k, j := range js {
			g := vec(&gws[k])
			dx += mi * g[0]
			dy += mi * g[1]
			dz += mi * g[2]
			vj := &f.VStar[j]
			div += mi * ((vi[0]-vj[0])*g[0] + (vi[1]-vj[1])*g[1] + (vi[2]-vj[2])*g[2])
		}
		psi0 := f.Rho0[i]
		var bx, by, bz float64
		bs, gbs := bblk.Row(i - lo)
		for k, j := range bs {
			g := vec(&gbs[k])
			psi := psi0 * b.Vol[j]
			bx += psi * g[0]
			by += psi * g[1]
			bz += psi * g[2]
			vb := &b.V[j]
			div += psi * ((vi[0]-vb[0])*g[0] + (vi[1]-vb[1])*g[1] + (vi[2]-vb[2])*g[2])
		}
		d := physics.Vec3{-dt2 * ir2 * (dx + bx), -dt2 * ir2 * (dy + by), -dt2 * ir2 * (dz + bz)}
		s.dii[i] = d
		s.bgrad[i] = physics.Vec3{bx, by, bz}
		s.rhoAdv[i] = rho + dt*div

		// a_ii: fluid part Σ_j m_i (d_ii − d_ji)·∇W_ij with d_ji = Δt² m_i²/(m_j ρ_i²) ∇W_ij,
		// boundary part d_ii·Σ_b Ψ_b ∇W_ib.
		cji := dt2 * mi * ir2
		a := d[0]*bx + d[1]*by + d[2]*bz
		for k, j := range js {
			g := vec(&gws[k])
			c := cji
			if mj := f.M[j]; mj != mi {
				c *= mi / mj
			}
			a += mi * ((d[0]-c*g[0])*g[0] + (d[1]-c*g[1])*g[1] + (d[2]-c*g[2])*g[2])
		}
		s.aii[i] = a
		p := 0.5 * f.P[i]
		f.P[i] = p
		s.q[i] = f.M[i] * p * ir2
	}
}

// pass1 is the first loop of PRESSURESOLVE: Σ_j d_ij p_j = −Δt² Σ_j m_j p_j/ρ_j² ∇W_ij
// − Δt² Σ_b Ψ_b p_b/ρ0_i² ∇W_ib (the boundary samples' half of the pair force, p_b from the
// current p_i, see the package comment), and u_i = d_ii p_i + Σ_j d_ij p_j, which pass2 needs
// of every neighbour.
func (s *Solver) pass1(lo, hi, block int) {
	fblk, bblk := &s.ff.Blocks[block], &s.fb.Blocks[block]
	dt2 := s.dt * s.dt
	b, g := s.b, &s.Gravity
	for i := lo; i < hi; i++ {
		var x, y, z float64
		mi := s.f.M[i]
		js, gws := fblk.Row(i - lo)
		for k, j := range js {
			g := vec(&gws[k])
			q := s.q[j]
			if mj := s.f.M[j]; mj != mi {
				q *= mj / mi // d_ij p_j = −Δt² m_j²/(m_i ρ_j²) p_j ∇W_ij
			}
			x += q * g[0]
			y += q * g[1]
			z += q * g[2]
		}
		p := s.f.P[i]
		if bs, gbs := bblk.Row(i - lo); len(bs) > 0 && s.Extrapolate {
			// Ψ_b p_b/ρ0² = V_b p_b/ρ0
			rho0 := s.f.Rho0[i]
			xi := &s.f.X[i]
			for k, j := range bs {
				gb := vec(&gbs[k])
				q := b.Vol[j] * physics.BoundaryPressure(p, rho0, g, xi, &b.X[j]) / rho0
				x += q * gb[0]
				y += q * gb[1]
				z += q * gb[2]
			}
		}
		d := physics.Vec3{-dt2 * x, -dt2 * y, -dt2 * z}
		s.dijpj[i] = d
		dii := &s.dii[i]
		s.pd[i] = pairData{u: physics.Vec3{dii[0]*p + d[0], dii[1]*p + d[1], dii[2]*p + d[2]}, m: s.f.M[i]}
	}
}

// pass2 is the second loop of PRESSURESOLVE: Eq. 16 (Eq. 13 with the boundary term),
//
//	p_i^{l+1} = (1−ω) p_i^l + ω/a_ii (ρ0 − ρ_adv − Σ_j m_j (Σ_j d_ij p_j − d_jj p_j − Σ_{k≠i} d_jk p_k)·∇W_ij
//	                                  − Σ_b Ψ_b (Σ_j d_ij p_j)·∇W_ib),
//
// where Σ_{k≠i} d_jk p_k = Σ_k d_jk p_k − d_ji p_i, so the bracket is Σ_j d_ij p_j − u_j + d_ji p_i.
// Negative pressures are clamped to zero. The density error is that of the current iterate p^l:
// its predicted density ρ_adv + a_ii p_i^l + (the sums, all of iterate l) is what the pressures of
// iterate l would leave. Mixing in the new p^{l+1} with the sums of iterate l, as a literal reading
// of Algorithm 1 does, gives (1−ω) times that residual (zero at ω = 1), and the solve then stopped
// at about η/ω of true compression. The solve returns p^{l+1}, one sweep past the iterate whose
// error it judged. Only compression counts, since particles at the free surface rightly sit below
// the rest density with zero pressure.
func (s *Solver) pass2(lo, hi, block int) {
	fblk := &s.ff.Blocks[block]
	f := s.f
	dt2 := s.dt * s.dt
	omega := s.Omega
	var esum, emax float64
	for i := lo; i < hi; i++ {
		di := s.dijpj[i]
		pi := f.P[i]
		rho := f.Rho[i]
		mi := f.M[i]
		qi := dt2 * mi * pi / (rho * rho) // d_ji p_i = qi ∇W_ij (times m_i/m_j across phases)
		sum := 0.0
		js, gws := fblk.Row(i - lo)
		for k, j := range js {
			g := vec(&gws[k])
			pj := &s.pd[j]
			q := qi
			if pj.m != mi {
				q *= mi / pj.m
			}
			sum += mi * ((di[0]-pj.u[0]+q*g[0])*g[0] + (di[1]-pj.u[1]+q*g[1])*g[1] + (di[2]-pj.u[2]+q*g[2])*g[2])
		}
		bg := &s.bgrad[i]
		sum += di[0]*bg[0] + di[1]*bg[1] + di[2]*bg[2]
		rho0 := f.Rho0[i]
		src := rho0 - s.rhoAdv[i]
		aii := s.aii[i]
		p := 0.0
		if math.Abs(aii) > 1e-12*rho0 {
			p = max(0, (1-omega)*pi+omega*(src-sum)/aii)
		}
		s.pNew[i] = p
		s.q[i] = f.M[i] * p / (rho * rho)
		e := max(0, s.rhoAdv[i]+aii*pi+sum-rho0) / rho0
		esum += e
		emax = max(emax, e)
	}
	s.errSum[block] = esum
	s.errMax[block] = emax
}

// accel computes the pressure acceleration of the converged pressures (Eq. 2 with Eq. 15):
// a_p,i = −Σ_j m_j (p_i/ρ_i² + p_j/ρ_j²) ∇W_ij − Σ_b Ψ_b (p_i/ρ_i² + p_b/ρ0_i²) ∇W_ib, across
// phases −Σ_j (m_i p_i/ρ_i² + (m_j²/m_i) p_j/ρ_j²) ∇W_ij (see the package comment). The
// boundary pair terms are the ones rigid.Loads sums as the bodies' reaction.
func (s *Solver) accel(lo, hi, block int) {
	fblk, bblk := &s.ff.Blocks[block], &s.fb.Blocks[block]
	f, b, g := s.f, s.b, &s.Gravity
	for i := lo; i < hi; i++ {
		rho := f.Rho[i]
		pi := f.P[i] / (rho * rho)
		var x, y, z float64
		mi := f.M[i]
		js, gws := fblk.Row(i - lo)
		for k, j := range js {
			g := vec(&gws[k])
			rj := f.Rho[j]
			mj := f.M[j]
			var c float64
			if mj == mi {
				c = mj * (pi + f.P[j]/(rj*rj))
			} else {
				c = mi*pi + mj*mj/mi*f.P[j]/(rj*rj)
			}
			x += c * g[0]
			y += c * g[1]
			z += c * g[2]
		}
		bg := &s.bgrad[i]
		x += pi * bg[0]
		y += pi * bg[1]
		z += pi * bg[2]
		if bs, gbs := bblk.Row(i - lo); len(bs) > 0 && s.Extrapolate {
			rho0 := f.Rho0[i]
			p, xi := f.P[i], &f.X[i]
			for k, j := range bs {
				gb := vec(&gbs[k])
				q := b.Vol[j] * physics.BoundaryPressure(p, rho0, g, xi, &b.X[j]) / rho0
				x += q * gb[0]
				y += q * gb[1]
				z += q * gb[2]
			}
		}
		f.AP[i] = physics.Vec3{-x, -y, -z}
	}
}

// vec widens a stored single-precision gradient for float64 accumulation.
func vec(g *physics.Grad) physics.Vec3 {
	return physics.Vec3{float64(g[0]), float64(g[1]), float64(g[2])}
}
