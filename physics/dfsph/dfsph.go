// Package dfsph is Divergence-Free SPH: J. Bender, D. Koschier, "Divergence-Free Smoothed
// Particle Hydrodynamics", Proc. ACM SIGGRAPH/Eurographics Symposium on Computer Animation
// (SCA) 2015, and the journal version "Divergence-Free SPH for Incompressible and Viscous
// Fluids", IEEE TVCG 23(3), 2017.
//
// Two pressure solvers share one per-particle factor. The constant-density solver (the
// paper's correctDensityError) corrects the predicted velocities v* so that the density the
// step predicts, ρ*_i = ρ_i + Δt Dρ_i/Dt(v*), is the rest density; the divergence-free solver
// (correctDivergenceError) corrects the velocities so that Dρ_i/Dt = 0. Each iteration of
// either is two passes over the neighbour lists: the first evaluates the source of every
// particle and its stiffness, the second applies the stiffnesses of the particle and its
// neighbours as a velocity change,
//
//	Δv_i = −Δt Σ_j m_j (κ_i/ρ_i + κ_j/ρ_j) ∇W_ij,
//	κ_i  = (ρ*_i − ρ0)/Δt² · α_i           (constant density),
//	κ^v_i = 1/Δt · Dρ_i/Dt · α_i           (divergence-free),
//	α_i  = ρ_i / (|Σ_j m_j ∇W_ij|² + Σ_j |m_j ∇W_ij|²),
//
// the stiffness that would remove particle i's own error if its neighbours' stiffnesses were
// zero (the paper's factor α_i, the diagonal of the pressure system). The symmetric pressure
// force of SPH, −Σ_j m_j (p_i/ρ_i² + p_j/ρ_j²) ∇W_ij, is this velocity change with
// p_i = κ_i ρ_i; the package works with k_i = κ_i/ρ_i = p_i/ρ_i², which needs no density in
// the factor: k_i = (ρ*_i − ρ0)/(Δt² D_i), D_i = ρ_i/α_i.
//
// Clamping and relaxation. Free-surface particles rightly sit below the rest density, so a
// particle's pressure is never negative. The paper clamps every iteration's source
// (ρ* ≥ ρ0, Dρ/Dt ≥ 0), so each stiffness only adds; with the warm start below that let the
// dam break gain energy (r = 3 cm, kinetic energy 436 J at 0.05 s against IISPH's 140 J),
// since a warm-start pressure that overshoots can never be taken back. sluice clamps the
// step's sum instead, as IISPH clamps its pressure: the iteration is relaxed Jacobi on the
// sum K_i of the step's stiffnesses,
//
//	K_i ← max(0, K_i + ω (ρ*_i − ρ0)/(Δt² D_i)),   Δv from the change of K,
//
// (likewise for the divergence), with ω = Params.Omega (IISPH's ω, 0.5). At ω = 1 this
// diverged in the dam break's first frame; at ω = 0.5 the front follows IISPH's
// (TestDFSPHDamBreakFrontFollowsIISPH). An iteration's error counts only compression.
//
// Boundaries are the Akinci et al. 2012 samples with the particle's stiffness mirrored into
// them as in package iisph's default: Dρ_i/Dt ∋ Σ_b Ψ_b (v_i − v_b)·∇W_ib, Δv_i ∋
// −Δt k_i Σ_b Ψ_b ∇W_ib, Ψ_b = ρ0_i V_b, so D_i has the boundary gradient in its first term
// (D_i = |m_i Σ_j ∇W_ij + Σ_b Ψ_b ∇W_ib|² + Σ_j m_i³/m_j |∇W_ij|²; the samples do not move).
// Particles of different masses follow package iisph's number-density form
// (Solenthaler & Pajarola 2008): Dρ_i/Dt = m_i Σ_j v_ij·∇W_ij and
// Δv_i = −Δt Σ_j (m_i k_i + m_j²/m_i k_j) ∇W_ij; with equal masses every term is the paper's.
//
// Warm start. The constant-density solve begins by applying half the last step's pressure,
// K_i = ½ p_i(t−Δt)/ρ_i² (the paper warm-starts with the last step's stiffnesses; the factor
// ½ is IISPH's p⁰ = ½ p(t−Δt)), with p the constant-density solve's pressure, which the
// engine keeps per particle across sorting, repacking and snapshots. The divergence solve
// starts from zero: no second per-particle pressure survives the engine's repacking.
//
// The step (Algorithm 1 of the paper) solves the divergence after the neighbour search of the
// next step, on the velocities the last integration produced; sluice runs that solve right
// after its Density stage (DivergenceSolve), then the non-pressure forces, then the
// constant-density solve (Solve) and the integration: the same order, counted from a
// different first stage. The divergence solve's velocity change does not depend on Δt (κ^v
// carries 1/Δt, the update Δt).
package dfsph

import (
	"fmt"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/vec"
	"github.com/sluicephysics/sluice/physics/par"
)

// Params are the solver settings (declared with units and ranges in components.Solver).
type Params struct {
	MaxError float64 // η, average predicted density error at which the constant-density solve stops (fraction of ρ0)
	// MaxDivergenceError is η_v: the divergence solve stops when Δt·avg(max(0, Dρ_i/Dt))/ρ0,
	// the average compression the velocities would cause over one step, is below it.
	MaxDivergenceError float64
	MinIterations      int  // constant-density corrections at least (the paper: 2)
	MaxIterations      int  // constant-density corrections at most
	MinDivIterations   int  // divergence corrections at least (the paper: 1)
	MaxDivIterations   int  // divergence corrections at most
	Divergence         bool // solve the divergence (the paper's method); false leaves only the constant-density solve
	// Omega is the relaxation ω of the stiffness update (see the package comment); 0.5.
	Omega float64
}

// DefaultParams are the paper's iteration minima with η = η_v = 0.1 %.
func DefaultParams() Params {
	return Params{MaxError: 0.001, MaxDivergenceError: 0.001, MinIterations: 2, MaxIterations: 100, MinDivIterations: 1, MaxDivIterations: 100, Divergence: true, Omega: 0.5}
}

// Validate reports a parameter outside its range.
func (p Params) Validate() error {
	switch {
	case !(p.MaxError > 0 && p.MaxError < 1):
		return fmt.Errorf("dfsph.maxError: %g is outside (0, 1)", p.MaxError)
	case !(p.MaxDivergenceError > 0 && p.MaxDivergenceError < 1):
		return fmt.Errorf("dfsph.maxDivergenceError: %g is outside (0, 1)", p.MaxDivergenceError)
	case !(p.Omega > 0 && p.Omega <= 1):
		return fmt.Errorf("dfsph.omega: %g is outside (0, 1]", p.Omega)
	case p.MinIterations < 0:
		return fmt.Errorf("dfsph.minIterations: %d is below 0", p.MinIterations)
	case p.MaxIterations < max(p.MinIterations, 1):
		return fmt.Errorf("dfsph.maxIterations: %d is below minIterations %d (and 1)", p.MaxIterations, p.MinIterations)
	case p.MinDivIterations < 0:
		return fmt.Errorf("dfsph.minDivIterations: %d is below 0", p.MinDivIterations)
	case p.MaxDivIterations < max(p.MinDivIterations, 1):
		return fmt.Errorf("dfsph.maxDivIterations: %d is below minDivIterations %d (and 1)", p.MaxDivIterations, p.MinDivIterations)
	}
	return nil
}

// Result describes one solve.
type Result struct {
	Iterations int     // velocity corrections applied (the warm start not counted)
	AvgError   float64 // average error of the returned velocities: predicted compression (fraction of ρ0), or for the divergence solve Δt·avg(max(0, Dρ/Dt))/ρ0
	MaxError   float64 // largest per-particle error of the returned velocities, same measure
	Converged  bool    // AvgError reached its bound within the iteration cap
}

// Solver holds the per-particle scratch of both solves; it reuses its buffers between steps.
//
// A pair stores G_ij with ∇W_ij = G_ij (x_i − x_j) (physics.Neighbors). So that an iteration
// gathers one 32-byte record per neighbour instead of a position and a value, each particle
// keeps y_i = x_i − c (c: the first particle's position this step) with its stiffness, which the
// correction reads to form x_i − x_j = y_i − y_j exactly (equal and opposite pair forces), and
// its velocity with v_i·y_i, from which the source forms
//
//	Σ_j G_ij v_ij·x_ij = v_i·(y_i Σ_j G_ij − Σ_j G_ij y_j) − y_i·Σ_j G_ij v_j + Σ_j G_ij v_j·y_j,
//
// the two sums of y taken once per step. Its rounding differs from the direct sum by about |y|/h
// times float64's (4e-14 for a 10 m world at h = 5 cm), far below any η.
type Solver struct {
	Params
	alpha []float64      // 1/D_i (0 for a particle without neighbours)
	bgrad []physics.Vec3 // Σ_b Ψ_b ∇W_ib
	bvel  []float64      // Σ_b Ψ_b v_b·∇W_ib (0 beside walls at rest); with bgrad, the boundary part of every source
	k     [][4]float64   // y_i and the stiffness k_i of the current correction (p/ρ² for the density solve, Δt·p/ρ² for the divergence solve)
	vr    [][4]float64   // the corrected velocity v_i and v_i·y_i
	gy    [][4]float64   // Σ_j G_ij y_j and Σ_j G_ij, per step
	c     physics.Vec3   // the origin of y = x − c
	kRho  []float64      // Σ k of the constant-density solve this step (p/ρ², Pa·m⁶/kg²)
	kDiv  []float64      // Σ k of the divergence solve this step (Δt·p/ρ²)
	vel   []physics.Vec3 // the velocities the running solve corrects
	// PLoad is the pressure of both solves of the last Solve (Pa), per particle: the
	// pressure whose boundary force is the reaction the bodies receive.
	PLoad []float64
	dtDiv float64 // Δt of the last divergence solve (its k are impulses: kDiv/dtDiv is a p/ρ²)
	nDiv  int     // particle count of the last divergence solve (0: none this step)
	// uniform: every particle has the same mass, so the pair terms skip the mass ratios
	uniform bool

	errSum, errMax []float64
	dt             float64
	rhoSolve       bool // the running pass evaluates the density source (else the divergence)
	f              *physics.FluidSet
	b              *physics.BoundarySet
	ff, fb         *physics.Neighbors

	fnFactor, fnSource, fnCorrect, fnWarm, fnFinish func(lo, hi, block int)
}

// NewSolver returns a solver with the given parameters.
func NewSolver(p Params) *Solver {
	s := &Solver{Params: p}
	s.fnFactor = s.factor
	s.fnSource = s.source
	s.fnCorrect = s.correct
	s.fnWarm = s.warm
	s.fnFinish = s.finish
	return s
}

func (s *Solver) bind(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, dt float64) int {
	n := f.Len()
	s.f, s.b, s.ff, s.fb, s.dt = f, b, ff, fb, dt
	s.alpha = par.Grow(s.alpha, n)
	s.bgrad = par.Grow(s.bgrad, n)
	s.bvel = par.Grow(s.bvel, n)
	s.k = par.Grow(s.k, n)
	s.vr = par.Grow(s.vr, n)
	s.gy = par.Grow(s.gy, n)
	if n > 0 {
		s.c = f.X[0]
	}
	s.kRho = par.Grow(s.kRho, n)
	s.kDiv = par.Grow(s.kDiv, n)
	nb := par.Blocks(n)
	s.errSum = par.Grow(s.errSum, nb)
	s.errMax = par.Grow(s.errMax, nb)
	s.uniform = f.UniformMass()
	return n
}

func (s *Solver) unbind() { s.f, s.b, s.ff, s.fb, s.vel = nil, nil, nil, nil, nil }

// errors returns the average and largest error of the last source pass.
func (s *Solver) errors(n int) (float64, float64) {
	nb := par.Blocks(n)
	return par.Sum(s.errSum[:nb]) / float64(n), par.Max(s.errMax[:nb])
}

// DivergenceSolve makes the velocities V divergence-free (the paper's correctDivergenceError),
// given this step's neighbour lists and densities Rho; it also computes the factors α_i that
// Solve reuses in the same step. dt is the step's Δt: it only scales the error measure. With
// Params.Divergence false it computes the factors and leaves V alone.
func (s *Solver) DivergenceSolve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, dt float64, pool *par.Pool) Result {
	n := s.bind(f, b, ff, fb, dt)
	defer s.unbind()
	s.nDiv, s.dtDiv = n, dt
	var res Result
	if n == 0 {
		res.Converged = true
		return res
	}
	s.vel = f.V
	s.rhoSolve = false
	clear(s.kDiv[:n])
	pool.For(n, s.fnFactor) // α_i, Σ_b Ψ_b ∇W_ib and the first divergence source
	if !s.Divergence {
		s.nDiv = 0
		res.AvgError, res.MaxError = s.errors(n)
		return res
	}
	for {
		res.AvgError, res.MaxError = s.errors(n)
		if res.Iterations >= s.MinDivIterations && res.AvgError <= s.MaxDivergenceError {
			res.Converged = true
			break
		}
		if res.Iterations >= s.MaxDivIterations {
			break
		}
		pool.For(n, s.fnCorrect)
		res.Iterations++
		pool.For(n, s.fnSource)
	}
	return res
}

// Solve is the constant-density solve (the paper's correctDensityError): from the predicted
// velocities VStar it finds velocities whose predicted density is ρ0 and writes the pressure
// acceleration AP that takes VStar to them, a_p = (v** − v*)/Δt, the pressure of the
// constant-density solve P = ρ² Σ k, and in PLoad the pressure of both solves,
// ρ² (Σ k + Σ k^v/Δt), whose boundary force the bodies feel in return (physics.Loads). f.P
// holds the last step's pressures on entry (the warm start). P leaves out the divergence
// solve's share because it warm-starts the next step: half the divergence impulse, applied
// again in the next step as a density-solve pressure, pushed the dam break's kinetic energy at
// 0.05 s to 535 J (IISPH: 140 J; measured with the paper's per-iteration clamping, see the
// package comment). Call DivergenceSolve
// first in the same step: it computes the factors.
func (s *Solver) Solve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, dt float64, pool *par.Pool) Result {
	n := s.bind(f, b, ff, fb, dt)
	defer s.unbind()
	var res Result
	if n == 0 {
		res.Converged = true
		return res
	}
	// the velocities being corrected live in AP until the end, then become (v** − v*)/Δt
	s.PLoad = par.Grow(s.PLoad, n)
	s.vel = f.AP
	copy(f.AP, f.VStar)
	s.rhoSolve = true
	pool.For(n, s.fnWarm)
	pool.For(n, s.fnCorrect)
	pool.For(n, s.fnSource)
	for {
		res.AvgError, res.MaxError = s.errors(n)
		if res.Iterations >= s.MinIterations && res.AvgError <= s.MaxError {
			res.Converged = true
			break
		}
		if res.Iterations >= s.MaxIterations {
			break
		}
		pool.For(n, s.fnCorrect)
		res.Iterations++
		pool.For(n, s.fnSource)
	}
	pool.For(n, s.fnFinish)
	s.nDiv = 0
	return res
}

// finish turns the corrected velocities into the pressure acceleration and sums the step's
// pressure.
func (s *Solver) finish(lo, hi, _ int) {
	f := s.f
	idt := 1 / s.dt
	div := s.nDiv == f.Len()
	for i := lo; i < hi; i++ {
		a, vs := &f.AP[i], &f.VStar[i]
		*a = physics.Vec3{(a[0] - vs[0]) * idt, (a[1] - vs[1]) * idt, (a[2] - vs[2]) * idt}
		rho2 := f.Rho[i] * f.Rho[i]
		q := s.kRho[i]
		f.P[i] = q * rho2
		if div {
			q += s.kDiv[i] / s.dtDiv
		}
		s.PLoad[i] = q * rho2
	}
}

// factor computes, per particle, Σ_b Ψ_b ∇W_ib, α_i = 1/D_i with
// D_i = |m_i Σ_j ∇W_ij + Σ_b Ψ_b ∇W_ib|² + Σ_j m_i³/m_j |∇W_ij|² (the paper's α_i divided by
// ρ_i, see the package comment), and in the same loop over the neighbours the first
// divergence source with its stiffness (source's divergence branch with the sum at zero).
func (s *Solver) factor(lo, hi, block int) {
	fblk, bblk := &s.ff.Blocks[block], &s.fb.Blocks[block]
	f, b, v, dt := s.f, s.b, s.vel, s.dt
	var esum, emax float64
	for i := lo; i < hi; i++ {
		mi := f.M[i]
		vi := v[i]
		xi := &f.X[i]
		var gx, gy, gz, sq, div float64
		var yx, yy, yz, sg float64 // Σ_j G_ij y_j, Σ_j G_ij
		js, gws := fblk.Row(i - lo)
		if s.uniform {
			// the loop below with every mass ratio 1, in one vector loop (vec.FactorSums)
			var y4 [4]float64
			var g3 [3]float64
			y4, g3, sq, div = vec.FactorSums(js, gws, f.X, v, xi, &vi, &s.c)
			yx, yy, yz, sg = y4[0], y4[1], y4[2], y4[3]
			gx, gy, gz = g3[0], g3[1], g3[2]
		} else {
			for k, j := range js {
				xj := &f.X[j]
				gk := float64(gws[k])
				sg += gk
				yx += gk * (xj[0] - s.c[0])
				yy += gk * (xj[1] - s.c[1])
				yz += gk * (xj[2] - s.c[2])
				g := physics.Grad(gws[k], xi, xj)
				g2 := g[0]*g[0] + g[1]*g[1] + g[2]*g[2]
				if mj := f.M[j]; mj != mi {
					g2 *= mi / mj
				}
				gx += g[0]
				gy += g[1]
				gz += g[2]
				sq += g2
				vj := &v[j]
				div += (vi[0]-vj[0])*g[0] + (vi[1]-vj[1])*g[1] + (vi[2]-vj[2])*g[2]
			}
		}
		div *= mi
		psi0 := f.Rho0[i]
		var bx, by, bz, bv float64
		bs, gbs := bblk.Row(i - lo)
		for k, j := range bs {
			g := physics.Grad(gbs[k], xi, &b.X[j])
			psi := psi0 * b.Vol[j]
			bx += psi * g[0]
			by += psi * g[1]
			bz += psi * g[2]
			vb := &b.V[j]
			bv += psi * (vb[0]*g[0] + vb[1]*g[1] + vb[2]*g[2])
		}
		s.gy[i] = [4]float64{yx, yy, yz, sg}
		s.bgrad[i] = physics.Vec3{bx, by, bz}
		s.bvel[i] = bv
		div += vi[0]*bx + vi[1]*by + vi[2]*bz - bv
		x, y, z := mi*gx+bx, mi*gy+by, mi*gz+bz
		d := x*x + y*y + z*z + mi*mi*sq
		a := 0.0
		if d > 0 {
			a = 1 / d
		}
		s.alpha[i] = a
		// the first divergence source, as in source (the step's sum starts at zero)
		e := dt * max(0, div) / psi0
		k := max(0, s.Omega*div*a)
		s.kDiv[i] = k
		s.setK(i, k)
		esum += e
		emax = max(emax, e)
	}
	s.errSum[block] = esum
	s.errMax[block] = emax
}

// source evaluates the source of every particle of the block from the current velocities and
// sets its stiffness k_i, adding it to the step's sum:
//
//	density:    ρ*_i = ρ_i + Δt (m_i Σ_j v_ij·∇W_ij + Σ_b Ψ_b (v_i − v_b)·∇W_ib),
//	            k_i = max(0, ρ*_i − ρ0)/(Δt² D_i),
//	divergence: Dρ_i/Dt = m_i Σ_j v_ij·∇W_ij + Σ_b Ψ_b (v_i − v_b)·∇W_ib,
//	            k_i = max(0, Dρ_i/Dt)/D_i   (Δt times the paper's κ^v_i/ρ_i),
//
// with the block's error partials max(0, ρ*_i − ρ0)/ρ0 or Δt max(0, Dρ_i/Dt)/ρ0. The boundary
// sum is v_i·Σ_b Ψ_b ∇W_ib − Σ_b Ψ_b v_b·∇W_ib, both sums taken once per step by factor (the
// samples' velocities and the lists do not change within a step), so the iterations read no
// boundary pair.
func (s *Solver) source(lo, hi, block int) {
	fblk := &s.ff.Blocks[block]
	f, v, dt, vr := s.f, s.vel, s.dt, s.vr
	var esum, emax float64
	var sums [par.BlockSize][4]float64 // Σ_j G_ij v_j, Σ_j G_ij v_j·y_j per particle
	vec.GatherSum4Rows(fblk.Start, fblk.J, fblk.G, vr, hi-lo, sums[:])
	for i := lo; i < hi; i++ {
		vi := v[i]
		xi := &f.X[i]
		mi := f.M[i]
		a := &sums[i-lo]
		sx, sy, sz, sd := a[0], a[1], a[2], a[3]
		gy := &s.gy[i]
		yx, yy, yz := xi[0]-s.c[0], xi[1]-s.c[1], xi[2]-s.c[2]
		div := vi[0]*(yx*gy[3]-gy[0]) + vi[1]*(yy*gy[3]-gy[1]) + vi[2]*(yz*gy[3]-gy[2]) -
			(yx*sx + yy*sy + yz*sz) + sd
		div *= mi
		psi0 := f.Rho0[i]
		bg := &s.bgrad[i]
		div += vi[0]*bg[0] + vi[1]*bg[1] + vi[2]*bg[2] - s.bvel[i]
		var e, k float64
		if s.rhoSolve {
			c := f.Rho[i] + dt*div - psi0
			e = max(0, c) / psi0
			sum := s.kRho[i]
			tot := max(0, sum+s.Omega*c*s.alpha[i]/(dt*dt))
			k = tot - sum
			s.kRho[i] = tot
		} else {
			e = dt * max(0, div) / psi0
			sum := s.kDiv[i]
			tot := max(0, sum+s.Omega*div*s.alpha[i])
			k = tot - sum
			s.kDiv[i] = tot
		}
		s.setK(i, k)
		esum += e
		emax = max(emax, e)
	}
	s.errSum[block] = esum
	s.errMax[block] = emax
}

// setK sets particle i's stiffness record: y_i and k_i.
func (s *Solver) setK(i int, k float64) {
	xi, c := &s.f.X[i], &s.c
	s.k[i] = [4]float64{xi[0] - c[0], xi[1] - c[1], xi[2] - c[2], k}
}

// correct applies the stiffnesses k as a velocity change: the symmetric pressure force with
// p/ρ² = k, and the boundary samples' mirrored share,
//
//	Δv_i = −τ (Σ_j (m_i k_i + m_j²/m_i k_j) ∇W_ij + k_i Σ_b Ψ_b ∇W_ib),
//
// τ = Δt for the density solve and 1 for the divergence solve (whose k carry the Δt).
//
// Every pair is summed, also one whose two stiffnesses are zero: testing for those was a
// branch the data decides (pressures are clamped at zero over the free surface, and most
// increments of a later iteration are zero), and it cost more in mispredictions than the
// terms it skipped. Adding such a zero term changes no bit: x starts at +0, and a sum that
// starts at +0 is never −0 under round-to-nearest, so x + (±0) = x.
func (s *Solver) correct(lo, hi, block int) {
	fblk := &s.ff.Blocks[block]
	f, v, kk := s.f, s.vel, s.k
	tau := 1.0
	if s.rhoSolve {
		tau = s.dt
	}
	var sums [par.BlockSize][4]float64
	if s.uniform {
		// the single-phase pair term m (k_i + k_j) ∇W_ij, without the mass loads
		// (∇W_ij = G_ij (y_i − y_j)), for the whole block
		vec.KGradSumRows(fblk.Start, fblk.J, fblk.G, kk, kk[lo:hi], f.M[lo], hi-lo, sums[:])
	}
	for i := lo; i < hi; i++ {
		yi := &kk[i]
		ki := yi[3]
		mi := f.M[i]
		var x, y, z float64
		if s.uniform {
			a := &sums[i-lo]
			x, y, z = a[0], a[1], a[2]
		} else {
			js, gws := fblk.Row(i - lo)
			gws = gws[:len(js)]
			for k, j := range js {
				rj := &kk[j]
				kj := rj[3]
				var c float64
				if mj := f.M[j]; mj == mi {
					c = mi * (ki + kj)
				} else {
					c = mi*ki + mj*mj/mi*kj
				}
				c *= float64(gws[k])
				x += c * (yi[0] - rj[0])
				y += c * (yi[1] - rj[1])
				z += c * (yi[2] - rj[2])
			}
		}
		bg := &s.bgrad[i]
		x += ki * bg[0]
		y += ki * bg[1]
		z += ki * bg[2]
		vi := &v[i]
		nv := physics.Vec3{vi[0] - tau*x, vi[1] - tau*y, vi[2] - tau*z}
		*vi = nv
		s.vr[i] = [4]float64{nv[0], nv[1], nv[2], nv[0]*yi[0] + nv[1]*yi[1] + nv[2]*yi[2]}
	}
}

// warm sets the warm-start stiffness k_i = ½ p_i(t−Δt)/ρ_i² and starts the step's sum with it.
func (s *Solver) warm(lo, hi, _ int) {
	f := s.f
	for i := lo; i < hi; i++ {
		rho := f.Rho[i]
		k := 0.5 * max(0, f.P[i]) / (rho * rho)
		s.setK(i, k)
		s.kRho[i] = k
	}
}
