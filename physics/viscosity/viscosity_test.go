package viscosity

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/boundary"
	"github.com/sluicephysics/sluice/physics/par"
)

const sp = 0.02 // particle spacing of the test scenes (m)

type scene struct {
	f      *physics.FluidSet
	b      *physics.BoundarySet
	kr     physics.Kernel
	fg, bg physics.Grid
	ff, fb physics.Neighbors
}

// ball returns a jittered lattice ball of water (radius in spacings) with random velocities,
// masses varying by ±10 % and a viscosity varying by ±20 % around nu, and no walls.
func ball(t testing.TB, pool *par.Pool, radius int, nu float64, seed int64) *scene {
	rng := rand.New(rand.NewSource(seed))
	sc := &scene{kr: physics.NewKernel(physics.CubicSpline, 2*sp), b: &physics.BoundarySet{}}
	vol := sc.kr.LatticeVolume(sp)
	var x []physics.Vec3
	for i := -radius; i <= radius; i++ {
		for j := -radius; j <= radius; j++ {
			for k := -radius; k <= radius; k++ {
				if i*i+j*j+k*k > radius*radius {
					continue
				}
				x = append(x, physics.Vec3{
					sp * (float64(i) + 0.2*(rng.Float64()-0.5)),
					sp * (float64(j) + 0.2*(rng.Float64()-0.5)),
					sp * (float64(k) + 0.2*(rng.Float64()-0.5))})
			}
		}
	}
	f := &physics.FluidSet{}
	f.Resize(len(x))
	copy(f.X, x)
	for i := range x {
		f.M[i] = 1000 * vol * (0.9 + 0.2*rng.Float64())
		f.Rho0[i] = 1000
		f.Visc[i] = nu * (0.8 + 0.4*rng.Float64())
		f.V[i] = physics.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	sc.f = f
	sc.bg.NoSelf = true
	sc.search(t, pool)
	return sc
}

func (sc *scene) search(t testing.TB, pool *par.Pool) {
	if err := sc.fg.Build(sc.f.X, sc.kr.H, pool); err != nil {
		t.Fatal(err)
	}
	physics.Search(&sc.fg, sc.f.X, &sc.fg, sc.fg.SelfAdjacent(), &sc.kr, true, &sc.ff, pool)
	if sc.b.Len() > 0 {
		if err := sc.bg.Build(sc.b.X, sc.kr.H, pool); err != nil {
			t.Fatal(err)
		}
	}
	adj := make([]int32, 27*sc.fg.NumCells())
	sc.fg.Adjacent(&sc.bg, adj, pool)
	sc.fb.Weights = sc.b.Vol
	physics.Search(&sc.fg, sc.f.X, &sc.bg, adj, &sc.kr, false, &sc.fb, pool)
	physics.Density(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, pool)
	copy(sc.f.VStar, sc.f.V)
}

// explicitRatio returns Δt over the explicit viscosity's stable step at the largest ν.
func explicitRatio(sc *scene, dt float64) float64 {
	numax := 0.0
	for _, nu := range sc.f.Visc {
		numax = max(numax, nu)
	}
	return dt / sc.kr.ViscousDtLimit(sp, 2, numax, 0)
}

func momentum(f *physics.FluidSet, v []physics.Vec3) (p physics.Vec3, scale float64) {
	for i, vi := range v {
		for d := 0; d < 3; d++ {
			p[d] += f.M[i] * vi[d]
		}
		scale += f.M[i] * math.Sqrt(vi[0]*vi[0]+vi[1]*vi[1]+vi[2]*vi[2])
	}
	return p, scale
}

// momentumTol: the solve's final update exchanges momentum pair by pair with bit-identical
// coefficients, so the fluid's momentum changes only by rounding (~1e-16 per term, summed over
// some 10⁵ pair terms); the CG iterate itself misses it by about its relative residual (1e-2
// here), ten orders of magnitude more.
const momentumTol = 1e-12

func TestSolveConservesLinearMomentum(t *testing.T) {
	pool := par.NewPool(2)
	defer pool.Close()
	sc := ball(t, pool, 8, 1, 1)
	const dt = 0.01
	if r := explicitRatio(sc, dt); r < 100 {
		t.Fatalf("Δt is only %.0f× the explicit limit, want ≥ 100", r)
	}
	p0, scale := momentum(sc.f, sc.f.VStar)
	s := NewSolver(Params{MaxError: 1e-2, MaxIterations: 500})
	res := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, pool)
	if !res.Converged {
		t.Fatalf("solve did not converge: %+v", res)
	}
	p1, _ := momentum(sc.f, sc.f.VStar)
	px, _ := momentum(sc.f, s.Solution())
	dp := math.Sqrt((p1[0]-p0[0])*(p1[0]-p0[0]) + (p1[1]-p0[1])*(p1[1]-p0[1]) + (p1[2]-p0[2])*(p1[2]-p0[2]))
	dx := math.Sqrt((px[0]-p0[0])*(px[0]-p0[0]) + (px[1]-p0[1])*(px[1]-p0[1]) + (px[2]-p0[2])*(px[2]-p0[2]))
	t.Logf("%d particles, %d iterations, residual %.2g: |ΔP|/Σm|v| = %.2g (the CG iterate's: %.2g)", sc.f.Len(), res.Iterations, res.Residual, dp/scale, dx/scale)
	if dp/scale > momentumTol {
		t.Errorf("momentum changed by %.3g of Σ m|v|, want ≤ %g", dp/scale, momentumTol)
	}
}

// residualSlack: the CG's recursive residual drifts from the true one by rounding only; 1 %
// of the tolerance covers it.
const residualSlack = 1.01

// TestSolveMeetsItsRelativeResidual checks the solved velocity against the viscosity operator
// of physics.Advect, an independent implementation of the same Laplacian: v − Δt L(v) must
// equal v* to the requested relative residual (a coefficient off by 2 leaves a residual of
// order one), and a tighter tolerance costs more iterations.
func TestSolveMeetsItsRelativeResidual(t *testing.T) {
	pool := par.NewPool(2)
	defer pool.Close()
	const dt = 0.01
	prevIts := -1
	for _, tol := range []float64{1e-2, 1e-5, 1e-8} {
		sc := ball(t, pool, 7, 1, 2)
		f := sc.f
		vs := append([]physics.Vec3(nil), f.VStar...)
		s := NewSolver(Params{MaxError: tol, MaxIterations: 1000})
		res := s.Solve(f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, pool)
		// v + Δt L(v) by the explicit operator, with v the CG's solution
		copy(f.V, s.Solution())
		physics.Advect(f, &sc.ff, &sc.kr, physics.Vec3{}, 0, dt, pool)
		var rr, bb, change, vv float64
		for i := range vs {
			m := f.M[i]
			for d := 0; d < 3; d++ {
				v := f.V[i][d]
				lhs := 2*v - f.VStar[i][d] // v − Δt L(v)
				r := m * (vs[i][d] - lhs)
				rr += r * r
				bb += m * vs[i][d] * m * vs[i][d]
				change += (v - vs[i][d]) * (v - vs[i][d])
				vv += vs[i][d] * vs[i][d]
			}
		}
		rel := math.Sqrt(rr / bb)
		t.Logf("tol %g: %d iterations, reported %.3g, measured %.3g; |v − v*|/|v*| = %.2f", tol, res.Iterations, res.Residual, rel, math.Sqrt(change/vv))
		if math.Sqrt(change/vv) < 0.5 {
			t.Fatalf("the solve changed the velocities by only %.2f of |v*|: the test does not exercise the viscosity", math.Sqrt(change/vv))
		}
		if !res.Converged || rel > residualSlack*tol {
			t.Errorf("tol %g: relative residual %.3g (converged %v)", tol, rel, res.Converged)
		}
		if res.Iterations <= prevIts {
			t.Errorf("tol %g took %d iterations, no more than the looser tolerance's %d", tol, res.Iterations, prevIts)
		}
		prevIts = res.Iterations
	}
}

// TestSolveIsIndependentOfWorkers: bit-identical results for 1, 2 and 5 workers.
func TestSolveIsIndependentOfWorkers(t *testing.T) {
	var ref []physics.Vec3
	for _, w := range []int{1, 2, 5} {
		pool := par.NewPool(w)
		sc := ball(t, pool, 7, 0.5, 3)
		s := NewSolver(Params{MaxError: 1e-6, MaxIterations: 1000})
		for step := 0; step < 2; step++ { // the second solve uses the warm start
			copy(sc.f.VStar, sc.f.V)
			s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, 0.005, pool)
		}
		pool.Close()
		if ref == nil {
			ref = append(ref, sc.f.VStar...)
			continue
		}
		for i := range ref {
			if ref[i] != sc.f.VStar[i] {
				t.Fatalf("%d workers: particle %d has v = %v, 1 worker %v", w, i, sc.f.VStar[i], ref[i])
			}
		}
	}
}

// TestWarmStartSavesIterations: a second solve of the same system starts from the first's
// velocity change and needs fewer iterations.
func TestWarmStartSavesIterations(t *testing.T) {
	pool := par.NewPool(2)
	defer pool.Close()
	sc := ball(t, pool, 7, 1, 4)
	s := NewSolver(Params{MaxError: 1e-6, MaxIterations: 1000})
	cold := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, 0.01, pool)
	copy(sc.f.VStar, sc.f.V)
	warm := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, 0.01, pool)
	t.Logf("cold %d iterations, warm %d", cold.Iterations, warm.Iterations)
	if warm.Iterations >= cold.Iterations/2 {
		t.Errorf("warm-started solve took %d iterations, cold %d: want fewer than half", warm.Iterations, cold.Iterations)
	}
}

// TestMovingWallDragsFluid: a block of water (ν = 1 m²/s) at rest on a floor that slides along
// x at U = 1 m/s, with the boundary viscosity ν_b = 1 m²/s and a step far past the explicit
// limit:
// the water next to the floor is dragged along +x, never faster than the floor (backward
// Euler of a diffusion keeps its maximum principle here), and the drag fades with height.
func TestMovingWallDragsFluid(t *testing.T) {
	pool := par.NewPool(2)
	defer pool.Close()
	sc := &scene{kr: physics.NewKernel(physics.CubicSpline, 2*sp)}
	const n, U = 10, 1.0
	f := &physics.FluidSet{}
	vol := sc.kr.LatticeVolume(sp)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				f.X = append(f.X, physics.Vec3{sp * (float64(i) + 0.5), sp * (float64(j) + 0.5), sp * (float64(k) + 0.5)})
			}
		}
	}
	f.Resize(len(f.X))
	for i := range f.X {
		f.M[i], f.Rho0[i], f.Visc[i] = 1000*vol, 1000, 1
	}
	sc.f = f
	// u×v = ẑ×x̂ = +ŷ: the water is above, the second layer below y = 0
	bx, err := boundary.Rect(physics.Vec3{-0.1, 0, -0.1}, physics.Vec3{0, 0, 0.4}, physics.Vec3{0.4, 0, 0}, sp, 2)
	if err != nil {
		t.Fatal(err)
	}
	sc.b = &physics.BoundarySet{X: bx, V: make([]physics.Vec3, len(bx)), Nu: make([]float64, len(bx))}
	for i := range bx {
		sc.b.V[i] = physics.Vec3{U, 0, 0}
		sc.b.Nu[i] = 1
	}
	var vg physics.Grid
	if err := physics.BoundaryVolumes(sc.b, &sc.kr, sc.kr.WallVolumeScale(sp, 2), &vg, pool); err != nil {
		t.Fatal(err)
	}
	sc.bg.NoSelf = true
	sc.search(t, pool)
	s := NewSolver(Params{MaxError: 1e-8, MaxIterations: 1000})
	res := s.Solve(f, sc.b, &sc.ff, &sc.fb, &sc.kr, 0.01, pool)
	var bottom, top float64
	var nb, nt int
	for i, x := range f.X {
		v := f.VStar[i]
		if v[0] > U*(1+1e-9) {
			t.Fatalf("particle %d at y = %.3f moves at %.4f m/s, faster than the floor", i, x[1], v[0])
		}
		if x[1] < sp {
			bottom += v[0]
			nb++
		}
		if x[1] > float64(n-1)*sp {
			top += v[0]
			nt++
		}
	}
	bottom /= float64(nb)
	top /= float64(nt)
	t.Logf("%d iterations: mean v_x %.3f m/s in the bottom layer, %.3f in the top", res.Iterations, bottom, top)
	if !(bottom > 0.1*U) || !(top < bottom) || !(top >= 0) {
		t.Errorf("bottom layer at %.3f m/s, top at %.3f: want the floor to drag the bottom along (> 0.1 U) more than the top", bottom, top)
	}
}
