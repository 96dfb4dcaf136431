package iisph

import (
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
