package tension

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/testlattice"
	"github.com/sluicephysics/sluice/physics/par"
)

// kernelTol bounds the relative error of the cohesion spline's checks against values worked
// out by hand: they are exact up to a few roundings.
const kernelTol = 1e-12

func TestCohesionKernel(t *testing.T) {
	const h = 0.1
	k := 32 / (math.Pi * math.Pow(h, 9))
	for _, c := range []struct {
		r, want float64
		why     string
	}{
		{0.75 * h, k * math.Pow(0.25*h, 3) * math.Pow(0.75*h, 3), "(h−r)³r³ beyond h/2"},
		{0.25 * h, k * (2*math.Pow(0.75*h, 3)*math.Pow(0.25*h, 3) - math.Pow(h, 6)/64), "2(h−r)³r³ − h⁶/64 within h/2"},
		{h, 0, "zero at the support radius"},
		{1.5 * h, 0, "zero beyond the support"},
		{0, 0, "zero at r = 0 (no direction)"},
	} {
		if got := Cohesion(c.r, h); math.Abs(got-c.want) > kernelTol*k*math.Pow(h, 6) {
			t.Errorf("C(%g h) = %g, want %g: %s", c.r/h, got, c.want, c.why)
		}
	}
	// Eq. 2's two pieces meet at h/2: (h/2)⁶ = 2(h/2)⁶ − h⁶/64.
	lo, hi := Cohesion(0.5*h, h), Cohesion(0.5*h+1e-12, h)
	if math.Abs(lo-hi) > 1e-6*math.Abs(hi) {
		t.Errorf("C is discontinuous at h/2: %g vs %g", lo, hi)
	}
	if Cohesion(0.1*h, h) >= 0 || Cohesion(0.8*h, h) <= 0 {
		t.Errorf("C must repel (C < 0) close and attract (C > 0) far: C(0.1h) = %g, C(0.8h) = %g", Cohesion(0.1*h, h), Cohesion(0.8*h, h))
	}
}

// momentumTol bounds |Σ_i m_i a_i| relative to Σ_i |m_i a_i|: every pair force is equal and
// opposite by construction, so only the roundings of the sums remain (about 1e-16 per term).
const momentumTol = 1e-12

// jittered returns the 12³ test lattice with every particle moved randomly by up to 30 % of
// the spacing, masses varying by ±20 % and densities from the neighbour sum, so the forces
// are neither zero in the bulk nor symmetric.
func jittered(t *testing.T, pool *par.Pool) (*physics.FluidSet, *physics.Neighbors, *physics.Kernel) {
	f, b, kr, search := testlattice.Setup(t, pool, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range f.X {
		for d := 0; d < 3; d++ {
			f.X[i][d] += 0.3 * 0.05 * (2*rng.Float64() - 1)
		}
		f.M[i] *= 0.8 + 0.4*rng.Float64()
	}
	ff, fb := search() // the walls only change the densities; the surface tension ignores them
	physics.Density(f, b, ff, fb, kr, pool)
	return f, ff, kr
}

func TestMomentumConserved(t *testing.T) {
	pool := par.NewPool(2)
	defer pool.Close()
	f, ff, kr := jittered(t, pool)
	var s Solver
	s.Gamma = make([]float64, f.Len())
	for i := range s.Gamma {
		s.Gamma[i] = 1 + float64(i%3) // unequal coefficients: the pair's is the mean
	}
	s.Accelerations(f, ff, kr, pool)
	var sum, abs [3]float64
	for i, a := range s.A {
		for d := 0; d < 3; d++ {
			sum[d] += f.M[i] * a[d]
			abs[d] += math.Abs(f.M[i] * a[d])
		}
	}
	for d := 0; d < 3; d++ {
		if abs[d] == 0 {
			t.Fatalf("no force along axis %d: the test scene does not exercise the surface tension", d)
		}
		t.Logf("axis %d: |Σ m_i a_i| = %.3g of Σ|m_i a_i|", d, math.Abs(sum[d])/abs[d])
		if math.Abs(sum[d]) > momentumTol*abs[d] {
			t.Errorf("axis %d: Σ m_i a_i = %g N, %.3g of Σ|m_i a_i| = %g N (tolerance %g)", d, sum[d], math.Abs(sum[d])/abs[d], abs[d], momentumTol)
		}
	}
}

// TestSurfacePullsInward checks the direction of the force on an unjittered block: at rest in
// the lattice the bulk particles feel (almost) nothing, and a face particle is pulled into the
// block; its normal points into the block (n_i = h Σ V_j ∇_i W_ij, ∇_i W_ij towards j).
func TestSurfacePullsInward(t *testing.T) {
	pool := par.NewPool(1)
	defer pool.Close()
	f, b, kr, search := testlattice.Setup(t, pool, 1)
	ff, fb := search()
	physics.Density(f, b, ff, fb, kr, pool)
	var s Solver
	s.Gamma = make([]float64, f.Len())
	for i := range s.Gamma {
		s.Gamma[i] = 1
	}
	s.Accelerations(f, ff, kr, pool)
	// particle indices: k = (i·12 + j)·12 + l with x = 0.05(1+i), …; the block spans x ∈ [0.05, 0.6].
	idx := func(i, j, l int) int { return (i*12+j)*12 + l }
	face := idx(0, 6, 6) // on the x = 0.05 face, centred in y and z
	bulk := idx(6, 6, 6) // the centre
	if a := s.A[face]; !(a[0] > 0) {
		t.Errorf("face particle: a = %v, want a pull into the block (+x)", a)
	}
	if n := s.N[face]; !(n[0] > 0) {
		t.Errorf("face particle: n = %v, want a normal into the block (+x)", n)
	}
	// centreTol: in the lattice's interior every neighbour has its mirror image, so the centre's
	// force cancels up to roundings, a billionth of the face's.
	const centreTol = 1e-9
	if physics.Norm(s.A[bulk]) > centreTol*physics.Norm(s.A[face]) {
		t.Errorf("centre particle: |a| = %g, face |a| = %g: the bulk should feel no net force", physics.Norm(s.A[bulk]), physics.Norm(s.A[face]))
	}
}

// TestDeterministicAcrossWorkers: the accelerations are bit-identical for 1, 2 and 5 workers
// (each block writes only its own particles; the 1728 particles span 7 blocks).
func TestDeterministicAcrossWorkers(t *testing.T) {
	var ref []physics.Vec3
	for _, workers := range []int{1, 2, 5} {
		pool := par.NewPool(workers)
		f, ff, kr := jittered(t, pool)
		var s Solver
		s.Gamma = make([]float64, f.Len())
		for i := range s.Gamma {
			s.Gamma[i] = 0.5
		}
		s.Accelerations(f, ff, kr, pool)
		pool.Close()
		if ref == nil {
			ref = append([]physics.Vec3(nil), s.A...)
			continue
		}
		for i := range ref {
			if s.A[i] != ref[i] {
				t.Fatalf("%d workers: particle %d has a = %v, 1 worker %v", workers, i, s.A[i], ref[i])
			}
		}
	}
}

// TestZeroGammaTakesNoPart: a particle with γ = 0 gets no force and exerts none (its
// neighbours' forces are those without it).
func TestZeroGammaTakesNoPart(t *testing.T) {
	pool := par.NewPool(1)
	defer pool.Close()
	f, ff, kr := jittered(t, pool)
	var s Solver
	s.Gamma = make([]float64, f.Len())
	s.Accelerations(f, ff, kr, pool)
	for i, a := range s.A {
		if a != (physics.Vec3{}) {
			t.Fatalf("particle %d: a = %v with every γ = 0", i, a)
		}
	}
}

// cornerTol bounds the difference between CornerAcceleration and the solver's own acceleration
// of the corner particle of the test lattice: the same sums, the solver's from single-precision
// pair values (relative precision 6e-8).
const cornerTol = 1e-5

// TestCornerAcceleration: the step limit's reference acceleration is the solver's: the corner
// particle of a 12³ lattice gets γ(ρ0·cohesion ± curvature) (both terms act along the
// diagonal), with the densities summed over the fluid alone.
func TestCornerAcceleration(t *testing.T) {
	pool := par.NewPool(1)
	defer pool.Close()
	f, _, kr, search := testlattice.Setup(t, pool, 1)
	ff, _ := search()
	for i := range f.X { // fluid-only densities, as CornerAcceleration sums them
		js, ws, _ := ff.Of(i)
		rho := f.M[i] * kr.W0()
		for k := range js {
			rho += f.M[i] * float64(ws[k])
		}
		f.Rho[i] = rho
	}
	var s Solver
	s.Gamma = make([]float64, f.Len())
	for i := range s.Gamma {
		s.Gamma[i] = 1
	}
	s.Accelerations(f, ff, kr, pool)
	vol := f.M[0] / f.Rho0[0]
	coh, cur := CornerAcceleration(kr, 0.05, vol)
	got := physics.Norm(s.A[0]) // particle 0 is the lattice's corner
	lo, hi := math.Abs(1000*coh-cur), 1000*coh+cur
	t.Logf("corner |a| = %.6g m/s², ρ0·cohesion = %.6g, curvature = %.6g", got, 1000*coh, cur)
	if math.Abs(got-lo) > cornerTol*hi && math.Abs(got-hi) > cornerTol*hi {
		t.Errorf("corner |a| = %.8g, want %.8g or %.8g", got, lo, hi)
	}
	if !(coh > 0 && cur > 0) {
		t.Errorf("cohesion %g and curvature %g must both act at a corner", coh, cur)
	}
}
