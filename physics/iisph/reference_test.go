package iisph

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// referenceSolve is Algorithm 1 of Ihmsen et al. 2014 written term by term, serially and
// without the Solver's rearrangement: d_ii (Eq. 9), a_ii (Eq. 12), per iteration Σ_j d_ij p_j
// and the update of Eq. 13/16 with the bracket Σ_j d_ij p_j − d_jj p_j − Σ_{k≠i} d_jk p_k,
// and finally the pressure acceleration of Eq. 2/15, across phases in the package comment's
// form (d_ij p_j = −Δt² (m_j²/m_i) p_j/ρ_j² ∇W_ij, d_ji = Δt² (m_i²/m_j)/ρ_i² ∇W_ij). It runs
// exactly iters iterations from the warm start κp (κ = prm.WarmStart, the paper's ½) and returns
// p and a_p.
func referenceSolve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, dt float64, prm Params, iters int) ([]float64, []physics.Vec3) {
	n := f.Len()
	dt2 := dt * dt
	p := make([]float64, n)
	for i := range p {
		p[i] = prm.WarmStart * f.P[i]
	}
	bp := func(i int, j int32, pi float64) float64 { // Ψ_b p_b/ρ0² per unit V_b
		if !prm.Extrapolate {
			return 0
		}
		return b.Vol[j] * physics.BoundaryPressure(pi, f.Rho0[i], &prm.Gravity, &f.X[i], &b.X[j]) / f.Rho0[i]
	}
	dii := make([]physics.Vec3, n)
	aii := make([]float64, n)
	rhoAdv := make([]float64, n)
	bgrad := make([]physics.Vec3, n)
	for i := 0; i < n; i++ {
		mi, rho := f.M[i], f.Rho[i]
		js, _, gs := ff.Of(i)
		bs, _, gbs := fb.Of(i)
		var d physics.Vec3
		div := 0.0
		for k, j := range js {
			g := physics.Grad(gs[k], &f.X[i], &f.X[j])
			for c := 0; c < 3; c++ {
				d[c] -= dt2 * mi / (rho * rho) * g[c]
				div += mi * (f.VStar[i][c] - f.VStar[j][c]) * g[c]
			}
		}
		for k, j := range bs {
			g := physics.Grad(gbs[k], &f.X[i], &b.X[j])
			psi := f.Rho0[i] * b.Vol[j]
			for c := 0; c < 3; c++ {
				d[c] -= dt2 * psi / (rho * rho) * g[c]
				bgrad[i][c] += psi * g[c]
				div += psi * (f.VStar[i][c] - b.V[j][c]) * g[c]
			}
		}
		dii[i] = d
		rhoAdv[i] = rho + dt*div
		a := 0.0
		for k, j := range js {
			g := physics.Grad(gs[k], &f.X[i], &f.X[j])
			for c := 0; c < 3; c++ {
				dji := dt2 * mi * mi / (f.M[j] * rho * rho) * g[c]
				a += mi * (d[c] - dji) * g[c]
			}
		}
		for c := 0; c < 3; c++ {
			a += d[c] * bgrad[i][c]
		}
		aii[i] = a
	}
	dijpj := func(i int, p []float64) physics.Vec3 {
		var s physics.Vec3
		js, _, gs := ff.Of(i)
		for k, j := range js {
			g := physics.Grad(gs[k], &f.X[i], &f.X[j])
			rj := f.Rho[j]
			for c := 0; c < 3; c++ {
				s[c] -= dt2 * f.M[j] * f.M[j] / f.M[i] * p[j] / (rj * rj) * g[c]
			}
		}
		bs, _, gbs := fb.Of(i)
		for k, j := range bs {
			g := physics.Grad(gbs[k], &f.X[i], &b.X[j])
			for c := 0; c < 3; c++ {
				s[c] -= dt2 * bp(i, j, p[i]) * g[c]
			}
		}
		return s
	}
	sums := make([]physics.Vec3, n)
	next := make([]float64, n)
	for l := 0; l < iters; l++ {
		for i := range sums {
			sums[i] = dijpj(i, p)
		}
		for i := 0; i < n; i++ {
			mi, rho := f.M[i], f.Rho[i]
			js, _, gs := ff.Of(i)
			sum := 0.0
			for k, j := range js {
				g := physics.Grad(gs[k], &f.X[i], &f.X[j])
				for c := 0; c < 3; c++ {
					djj := dii[j][c] * p[j]
					// Σ_{k≠i} d_jk p_k = Σ_k d_jk p_k − d_ji p_i
					dji := dt2 * mi * mi / (f.M[j] * rho * rho) * g[c] * p[i]
					sum += mi * (sums[i][c] - djj - (sums[j][c] - dji)) * g[c]
				}
			}
			for c := 0; c < 3; c++ {
				sum += sums[i][c] * bgrad[i][c]
			}
			rho0 := f.Rho0[i]
			next[i] = max(0, (1-prm.Omega)*p[i]+prm.Omega/aii[i]*(rho0-rhoAdv[i]-sum))
		}
		p, next = next, p
	}
	ap := make([]physics.Vec3, n)
	for i := 0; i < n; i++ {
		s := dijpj(i, p)
		for c := 0; c < 3; c++ {
			ap[i][c] = (dii[i][c]*p[i] + s[c]) / dt2
		}
	}
	return p, ap
}

// TestSolverMatchesTheLiteralAlgorithm checks the Solver's rearranged sweeps (the Solver
// comment) against referenceSolve on a squeezed lattice with a moving, sheared v*, a light
// second phase (a quarter of the particles at 0.6 of the mass, to exercise the density-contrast
// terms) and both boundary-pressure modes (the mirrored one from the paper's warm start ½p, the
// extrapolated one from the full last pressure, Params.WarmStart = 1), after the same fixed number of iterations on two
// and three workers (whose pressures must be bit-identical). The two are the same algebra, so they differ by rounding only: float64
// sums of ~40 terms per sweep over 6 iterations, measured at 1.4e-15 of the largest pressure
// and 2.4e-15 of the largest acceleration; relTol = 1e-12 leaves a factor of 500 for other
// summation orders. A term dropped or a factor m_i/m_j left out (the second phase) moves them
// by far more (tried: without the m_i/m_j of a_ii the test fails).
func TestSolverMatchesTheLiteralAlgorithm(t *testing.T) {
	const relTol = 1e-12
	const iters = 6
	for _, extrap := range []bool{false, true} {
		var first []float64 // the pressures of the 2-worker run
		for _, workers := range []int{2, 3} {
			pool := par.NewPool(workers)
			f, b, kr, search := setup(t, pool, 0.985)
			ff, fb := search()
			for i := range f.M {
				if i%4 == 1 {
					f.M[i] *= 0.6
					f.Rho0[i] *= 0.6
				}
			}
			physics.Density(f, b, ff, fb, kr, pool)
			for i := range f.VStar {
				x := f.X[i]
				f.VStar[i] = physics.Vec3{0.3 * x[1], -0.2 - 0.4*x[0], 0.1 * math.Sin(7*x[2])}
				f.P[i] = 2000 * (1 + math.Cos(11*x[0]+5*x[1]))
			}
			prm := DefaultParams()
			prm.Extrapolate = extrap
			if extrap {
				prm.WarmStart = 1
			}
			prm.MinIterations, prm.MaxIterations = iters, iters
			const dt = 0.002
			wantP, wantA := referenceSolve(f, b, ff, fb, dt, prm, iters)
			res := NewSolver(prm).Solve(f, b, ff, fb, dt, pool)
			pool.Close()
			if res.Iterations != iters {
				t.Fatalf("solver ran %d iterations, want %d", res.Iterations, iters)
			}
			var pMax, aMax, dp, da float64
			for i := range wantP {
				pMax = max(pMax, math.Abs(wantP[i]))
				dp = max(dp, math.Abs(f.P[i]-wantP[i]))
				for c := 0; c < 3; c++ {
					aMax = max(aMax, math.Abs(wantA[i][c]))
					da = max(da, math.Abs(f.AP[i][c]-wantA[i][c]))
				}
			}
			t.Logf("extrapolate %v, %d workers: max |p| %.4g Pa, |Δp| %.3g; max |a_p| %.4g m/s², |Δa_p| %.3g", extrap, workers, pMax, dp, aMax, da)
			if pMax == 0 || aMax == 0 {
				t.Fatalf("degenerate test: max |p| %g, max |a_p| %g", pMax, aMax)
			}
			if first == nil {
				first = append(first, f.P...)
			} else {
				for i := range first {
					if f.P[i] != first[i] {
						t.Fatalf("extrapolate %v: particle %d's pressure is %v on 2 workers, %v on %d (must be bit-identical)", extrap, i, first[i], f.P[i], workers)
					}
				}
			}
			if dp > relTol*pMax || da > relTol*aMax {
				t.Errorf("extrapolate %v, %d workers: pressures differ by %.3g (%.2g of max), accelerations by %.3g (%.2g of max), want ≤ %g", extrap, workers, dp, dp/pMax, da, da/aMax, relTol)
			}
		}
	}
}
