package iisph

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/testlattice"
	"github.com/sluicephysics/sluice/physics/par"
)

// setup is testlattice.Setup: a 12³ lattice of fluid at the given fraction of its rest
// spacing inside a one-layer box wall.
var setup = testlattice.Setup

var avgCompression = testlattice.AvgCompression

// compressionAfterStep solves one step with a tight η from the squeezed lattice, moves the
// particles and returns the average compression before and after.
func compressionAfterStep(t *testing.T, squeeze float64) (float64, float64) {
	pool := par.NewPool(2)
	defer pool.Close()
	f, b, kr, search := setup(t, pool, squeeze)
	ff, fb := search()
	physics.Density(f, b, ff, fb, kr, pool)
	before := avgCompression(f)
	copy(f.VStar, f.V)
	p := DefaultParams()
	p.MaxError = 1e-7
	p.MaxIterations = 5000
	const dt = 0.002
	res := NewSolver(p).Solve(f, b, ff, fb, dt, pool)
	if !res.Converged {
		t.Fatalf("solve did not converge: %+v", res)
	}
	physics.Integrate(f, dt, pool)
	ff, fb = search()
	physics.Density(f, b, ff, fb, kr, pool)
	return before, avgCompression(f)
}

func TestPressureRemovesCompression(t *testing.T) {
	// A p = ρ0 − ρ_adv (Eq. 6) is the continuity equation linearised in the displacement, so
	// moving the particles by Δt²·a_p leaves only the second-order remainder: halving the
	// initial compression must cut what is left after one step at least threefold (ideally
	// fourfold), and a 0.25 % lattice squeeze keeps under 10 % of its compression. A wrong
	// coefficient in a_ii or the d_ij sums leaves a first-order remainder and fails both.
	if raceEnabled {
		t.Skip("race detector: two solves to η = 1e-7 take 90 s under it")
	}
	const keepMax = 0.10
	const orderMin = 3.0
	b1, a1 := compressionAfterStep(t, 0.995)
	b2, a2 := compressionAfterStep(t, 0.9975)
	t.Logf("squeeze 0.5 %%: %.5f → %.6f; 0.25 %%: %.5f → %.6f", b1, a1, b2, a2)
	if a2 > keepMax*b2 {
		t.Errorf("0.25 %% squeeze keeps %.1f %% of its compression, want < %g %%", 100*a2/b2, 100*keepMax)
	}
	if a1 < orderMin*a2 {
		t.Errorf("remainder fell only %.2fx when the compression halved, want ≥ %gx (second order)", a1/a2, orderMin)
	}
}

func TestSolveStopsOnAverageError(t *testing.T) {
	// Looser η takes fewer iterations, at least MinIterations, and reports an error ≤ η.
	pool := par.NewPool(1)
	defer pool.Close()
	var prev int
	for _, eta := range []float64{1e-2, 1e-3, 1e-4} {
		f, b, kr, search := setup(t, pool, 0.97)
		ff, fb := search()
		physics.Density(f, b, ff, fb, kr, pool)
		p := DefaultParams()
		p.MaxError = eta
		p.MaxIterations = 5000
		res := NewSolver(p).Solve(f, b, ff, fb, 0.002, pool)
		if !res.Converged || res.AvgError > eta || res.Iterations < p.MinIterations || res.Iterations < prev {
			t.Fatalf("η = %g: %+v (previous η took %d iterations)", eta, res, prev)
		}
		for _, pr := range f.P {
			if pr < 0 {
				t.Fatalf("negative pressure %g: pressures must be clamped", pr)
			}
		}
		prev = res.Iterations
	}
}

// predictedCompression is the largest max(0, ρ_i' − ρ0)/ρ0 of the density that the velocities
// v = v* + Δt a_p of a finished solve predict, ρ_i' = ρ_i + Δt Σ_j m_i v_ij·∇W_ij +
// Δt Σ_b Ψ_b (v_i − v_b)·∇W_ib (the continuity equation the solve linearises, Sec. 3),
// computed from the returned accelerations f.AP, independently of the solver's own residual.
func predictedCompression(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, dt float64) float64 {
	n := f.Len()
	v := make([]physics.Vec3, n)
	for i := range v {
		for c := 0; c < 3; c++ {
			v[i][c] = f.VStar[i][c] + dt*f.AP[i][c]
		}
	}
	worst := 0.0
	for i := 0; i < n; i++ {
		div := 0.0
		js, _, gs := ff.Of(i)
		for k, j := range js {
			g := physics.Grad(gs[k], &f.X[i], &f.X[j])
			for c := 0; c < 3; c++ {
				div += f.M[i] * (v[i][c] - v[j][c]) * g[c]
			}
		}
		bs, _, gbs := fb.Of(i)
		for k, j := range bs {
			g := physics.Grad(gbs[k], &f.X[i], &b.X[j])
			for c := 0; c < 3; c++ {
				div += f.Rho0[i] * b.Vol[j] * (v[i][c] - b.V[j][c]) * g[c]
			}
		}
		worst = max(worst, (f.Rho[i]+dt*div-f.Rho0[i])/f.Rho0[i])
	}
	return worst
}

// TestPeakBoundHoldsWhereTheAverageStops: a lattice at rest spacing with a local sink in v*
// (the flow converging on one spot, as where a jet hits a wall) compresses a few dozen of its
// 1728 particles by several percent while the average stays near η, so the average-only stop
// of Algorithm 1 returns after few iterations with the spot still compressed (measured: 2
// iterations, worst particle predicted 2.26 % compressed; with the bound 6 iterations, 0.27 %). With the full
// warm start and MaxErrorPeak the solve must iterate until the spot is below the bound too.
// The check recomputes the compression from the returned accelerations (predictedCompression),
// not from the solver's residual. The returned pressures are one Jacobi sweep past the iterate
// the stop judged (see pSweep), which further reduces the error; slack = 1.1 leaves room only
// for the clamp p ≥ 0 at the spot's rim, which can move an error locally by a fraction of a
// sweep's change. Without the bound the same solve must leave the spot above 3× the bound,
// so the scene is one that needs it. The bounded solve, whose stop now also rests on a
// per-block maximum, must give bit-identical pressures on 1, 2 and 3 workers.
func TestPeakBoundHoldsWhereTheAverageStops(t *testing.T) {
	const peak = 0.005 // 0.5 %: five times η
	const slack = 1.1
	const needBound = 3.0
	const sinkRate, sinkR = 150, 0.08 // 1/s, m: the sink v* = −sinkRate·(x − c)·exp(−|x − c|²/sinkR²)
	var pressures []float64           // of the bounded solve on the previous worker count
	run := func(peakBound float64, workers int) (float64, Result) {
		pool := par.NewPool(workers)
		defer pool.Close()
		f, b, kr, search := setup(t, pool, 1)
		ff, fb := search()
		physics.Density(f, b, ff, fb, kr, pool)
		c := physics.Vec3{0.3, 0.3, 0.3}
		for i := range f.VStar {
			var d physics.Vec3
			r2 := 0.0
			for k := 0; k < 3; k++ {
				d[k] = f.X[i][k] - c[k]
				r2 += d[k] * d[k]
			}
			w := -sinkRate * math.Exp(-r2/(sinkR*sinkR))
			f.VStar[i] = physics.Vec3{w * d[0], w * d[1], w * d[2]}
			f.P[i] = 0
		}
		p := DefaultParams()
		p.WarmStart = 1
		p.MaxErrorPeak = peakBound
		const dt = 0.002
		res := NewSolver(p).Solve(f, b, ff, fb, dt, pool)
		if peakBound > 0 {
			for i := range pressures {
				if f.P[i] != pressures[i] {
					t.Fatalf("particle %d's pressure is %v on %d workers, %v on the previous count (must be bit-identical)", i, f.P[i], workers, pressures[i])
				}
			}
			pressures = append(pressures[:0], f.P...)
		}
		return predictedCompression(f, b, ff, fb, dt), res
	}
	without, r0 := run(0, 2)
	with, r1 := run(peak, 1)
	for _, workers := range []int{2, 3} {
		if w, r := run(peak, workers); w != with || r != r1 {
			t.Fatalf("%d workers: worst %v, %+v; 1 worker: %v, %+v (must be identical)", workers, w, r, with, r1)
		}
	}
	t.Logf("average stop: %d iterations, avg %.4f %%, worst predicted %.3f %%; with the bound: %d iterations, avg %.4f %%, worst %.3f %%",
		r0.Iterations, 100*r0.AvgError, 100*without, r1.Iterations, 100*r1.AvgError, 100*with)
	if !r0.Converged || !r1.Converged {
		t.Fatalf("solves did not converge: %+v, %+v", r0, r1)
	}
	if without < needBound*peak {
		t.Fatalf("degenerate scene: the average stop leaves %.3f %%, want above %.3f %%", 100*without, 100*needBound*peak)
	}
	if with > slack*peak {
		t.Errorf("with maxErrorPeak %.3f %% the worst particle is predicted %.3f %% compressed, want ≤ %.3f %%", 100*peak, 100*with, 100*slack*peak)
	}
}
