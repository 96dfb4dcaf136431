package iisph

import (
	"math"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// chebSolve solves the squeezed lattice of setup once with Chebyshev spectral radius rho (0:
// plain relaxed Jacobi) at average error eta and returns the result and the pressures.
func chebSolve(t *testing.T, rho, eta float64) (Result, []float64) {
	return chebSolveDelay(t, rho, eta, DefaultParams().ChebyshevDelay)
}

// chebSolveDelay is chebSolve with the extrapolation delayed by delay plain sweeps.
func chebSolveDelay(t *testing.T, rho, eta float64, delay int) (Result, []float64) {
	pool := par.NewPool(2)
	defer pool.Close()
	f, b, kr, search := setup(t, pool, 0.97)
	ff, fb := search()
	physics.Density(f, b, ff, fb, kr, pool)
	copy(f.VStar, f.V)
	p := DefaultParams()
	p.MaxError = eta
	p.MaxIterations = 20000
	p.Chebyshev = rho
	p.ChebyshevDelay = delay
	res := NewSolver(p).Solve(f, b, ff, fb, 0.002, pool)
	if !res.Converged {
		t.Fatalf("ρ = %g, η = %g: the solve did not converge: %+v", rho, eta, res)
	}
	return res, append([]float64(nil), f.P...)
}

func TestChebyshevReachesTheSameFixedPointInFewerIterations(t *testing.T) {
	// The extrapolation is the identity at a fixed point of the relaxed Jacobi iteration, so
	// both solves, run to a tight η, must return the same pressures: within 1e-6 of the
	// largest pressure (they differ by 1.6e-9 of it at η = 1e-9). A wrong recurrence
	// coefficient changes the path only, so the iteration counts are asserted too: at the
	// working η = 0.1 % and at 1e-9 the accelerated solve must take at most 70 % of the plain
	// solve's iterations (it takes 51-53 %; without the extrapolation it takes 100 %).
	const (
		tight    = 1e-9
		pTol     = 1e-6
		maxRatio = 0.7
		rho      = 0.85
	)
	plainW, _ := chebSolve(t, 0, 1e-3)
	chebW, _ := chebSolve(t, rho, 1e-3)
	t.Logf("η = 1e-3: plain %d iterations, Chebyshev %d", plainW.Iterations, chebW.Iterations)
	if float64(chebW.Iterations) > maxRatio*float64(plainW.Iterations) {
		t.Errorf("η = 1e-3: %d accelerated iterations against %d plain, want at most %g of them", chebW.Iterations, plainW.Iterations, maxRatio)
	}
	if testing.Short() {
		t.Skip("-short: the solves to η = 1e-9 (13,000 iterations) are left out")
	}
	plain, pp := chebSolve(t, 0, tight)
	cheb, pc := chebSolve(t, rho, tight)
	var pmax, dmax float64
	for i := range pp {
		pmax = max(pmax, pp[i])
		dmax = max(dmax, math.Abs(pp[i]-pc[i]))
		if pc[i] < 0 {
			t.Fatalf("negative pressure %g: the clamp must follow the extrapolation", pc[i])
		}
	}
	t.Logf("η = %g: plain %d iterations, Chebyshev ρ = %g %d; largest pressure difference %.3g of %.4g Pa", tight, plain.Iterations, rho, cheb.Iterations, dmax, pmax)
	if dmax > pTol*pmax {
		t.Errorf("the accelerated solve's pressures differ by %.3g Pa, more than %g of the largest %.4g Pa", dmax, pTol, pmax)
	}
	if float64(cheb.Iterations) > maxRatio*float64(plain.Iterations) {
		t.Errorf("η = %g: %d accelerated iterations against %d plain, want at most %g of them", tight, cheb.Iterations, plain.Iterations, maxRatio)
	}
}

func TestChebyshevDelayKeepsTheFirstSweepsPlain(t *testing.T) {
	// The first S sweeps are the plain iteration's: with S beyond the plain solve's 70 sweeps
	// at η = 0.1 % the accelerated solve is the plain one, bit for bit; with S = 20 it takes
	// fewer sweeps than the plain solve and more than at the default S = 4, which extrapolates
	// from the fifth sweep on. A delay that is ignored fails the first check, a delay that
	// never ends the second.
	const rho, eta = 0.85, 1e-3
	plain, pp := chebSolve(t, 0, eta)
	late, pl := chebSolveDelay(t, rho, eta, 1000)
	if late.Iterations != plain.Iterations {
		t.Fatalf("delay 1000: %d sweeps, want the plain solve's %d", late.Iterations, plain.Iterations)
	}
	for i := range pp {
		if pp[i] != pl[i] {
			t.Fatalf("delay 1000: particle %d's pressure %v differs from the plain solve's %v", i, pl[i], pp[i])
		}
	}
	mid, _ := chebSolveDelay(t, rho, eta, 20)
	early, _ := chebSolve(t, rho, eta)
	t.Logf("η = %g: plain %d sweeps; ρ = %g with S = 20: %d, with S = %d: %d", eta, plain.Iterations, rho, mid.Iterations, DefaultParams().ChebyshevDelay, early.Iterations)
	if !(mid.Iterations < plain.Iterations && mid.Iterations > early.Iterations) {
		t.Errorf("S = 20: %d sweeps, want between the default delay's %d and the plain %d", mid.Iterations, early.Iterations, plain.Iterations)
	}
}

func TestChebyshevIsValidated(t *testing.T) {
	for _, rho := range []float64{-0.1, 1, math.NaN()} {
		p := DefaultParams()
		p.Chebyshev = rho
		if err := p.Validate(); err == nil {
			t.Errorf("chebyshev %g was accepted; the range is [0, 1)", rho)
		}
	}
	p := DefaultParams()
	p.ChebyshevDelay = 0
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "chebyshevDelay") {
		t.Errorf("chebyshevDelay 0: error %v, want one naming chebyshevDelay", err)
	}
}
