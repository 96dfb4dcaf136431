package pf

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/boundary"
	"github.com/sluicephysics/sluice/physics/par"
)

// scene is a block of nx×ny×nz fluid particles on the rest lattice (spacing sp, scaled by
// squeeze) resting on the floor of a two-layer box tank of the given inner size.
type scene struct {
	f      *physics.FluidSet
	b      *physics.BoundarySet
	kr     physics.Kernel
	sp     float64
	fg, bg physics.Grid
	ff, fb physics.Neighbors
	lo, hi physics.Vec3
}

func newScene(t testing.TB, pool *par.Pool, nx, ny, nz int, tank physics.Vec3, squeeze float64) *scene {
	const sp = 0.05
	sc := &scene{sp: sp, kr: physics.NewKernel(physics.CubicSpline, 2*sp)}
	f := &physics.FluidSet{}
	f.Resize(nx * ny * nz)
	vol := sc.kr.LatticeVolume(sp)
	k := 0
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			for l := 0; l < nz; l++ {
				f.X[k] = physics.Vec3{sp * (1 + squeeze*float64(i)), sp * (1 + squeeze*float64(j)), sp * (1 + squeeze*float64(l))}
				f.M[k], f.Rho0[k] = 1000*vol, 1000
				k++
			}
		}
	}
	sc.f = f
	sc.lo, sc.hi = physics.Vec3{0, 0, 0}, tank
	bx, err := boundary.Box(sc.lo, sc.hi, sp, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	sc.b = &physics.BoundarySet{X: bx, V: make([]physics.Vec3, len(bx))}
	var vg physics.Grid
	if err := physics.BoundaryVolumes(sc.b, &sc.kr, sc.kr.WallVolumeScale(sp, 2), &vg, pool); err != nil {
		t.Fatal(err)
	}
	sc.bg.NoSelf = true
	if err := sc.bg.Build(sc.b.X, sc.kr.H, pool); err != nil {
		t.Fatal(err)
	}
	return sc
}

func (sc *scene) search(t testing.TB, pool *par.Pool) {
	if err := sc.fg.Build(sc.f.X, sc.kr.H, pool); err != nil {
		t.Fatal(err)
	}
	physics.Search(&sc.fg, sc.f.X, &sc.fg, sc.fg.SelfAdjacent(), &sc.kr, true, &sc.ff, pool)
	adj := make([]int32, 27*sc.fg.NumCells())
	sc.fg.Adjacent(&sc.bg, adj, pool)
	sc.fb.Weights = sc.b.Vol
	physics.Search(&sc.fg, sc.f.X, &sc.bg, adj, &sc.kr, false, &sc.fb, pool)
}

// step runs one substep: neighbours, density, gravity, the PF solve, integration.
func (sc *scene) step(t testing.TB, s *Solver, dt float64, pool *par.Pool) Result {
	sc.search(t, pool)
	physics.Density(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, pool)
	physics.Advect(sc.f, &sc.ff, &sc.kr, physics.Vec3{0, -9.81, 0}, 0, dt, pool)
	r := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, sc.sp, pool)
	physics.Integrate(sc.f, dt, pool)
	return r
}

// constraintC evaluates C_i of Eq. 8 directly from positions: particle i at pi, the members of
// its constraint at pj (fluid) and the boundary samples at xb, with the kernel's W.
func constraintC(kr *physics.Kernel, vi float64, pi physics.Vec3, pj []physics.Vec3, xb []physics.Vec3, vb []float64) float64 {
	sum := kr.W(0)
	for _, x := range pj {
		sum += kr.W(math.Sqrt(physics.Dist2(pi, x)))
	}
	c := vi * sum
	for k, x := range xb {
		c += vb[k] * kr.W(math.Sqrt(physics.Dist2(pi, x)))
	}
	return c - 1
}

func TestLocalProjectionSatisfiesConstraint(t *testing.T) {
	// Algorithm 1 runs Newton steps until C ≤ ε = 1e-14; evaluated again from the projected
	// positions by a separate sum, every compressed constraint must sit on its manifold up to
	// the rounding of a ~50-term sum of O(1) values.
	// A projection also ends without a confirming pass when its Newton steps predict C ≤
	// projSafe·ε (localBlock); a wrong prediction leaves C above ε, which the one-sided bound
	// reached catches: ε plus the rounding of the two ~50-term sums (solver's and this test's),
	// 50 additions of at most 2⁻⁵³ each, both.
	const onManifold = 1e-10
	const reached = projEps + 2*50*0x1p-53
	pool := par.NewPool(1)
	defer pool.Close()
	sc := newScene(t, pool, 6, 6, 6, physics.Vec3{0.4, 0.4, 0.4}, 0.96)
	sc.search(t, pool)
	s := NewSolver(DefaultParams())
	s.prepare(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, 0.002, pool)
	n := sc.f.Len()
	pool.For(n, s.fnLocal)
	compressed := 0
	maxAfter := math.Inf(-1)
	for i := 0; i < n; i++ {
		js, _, _ := sc.ff.Of(i)
		bs, _, _ := sc.fb.Of(i)
		blk := i / par.BlockSize
		bk := &sc.ff.Blocks[blk]
		e0 := s.offF[blk] + int(bk.Start[i-bk.Lo])
		vi := sc.f.M[i] / sc.f.Rho0[i]
		x0 := make([]physics.Vec3, len(js))
		p := make([]physics.Vec3, len(js))
		for k, j := range js {
			x0[k] = s.x[j]
			p[k] = physics.Vec3{s.x[j][0] + s.dpx[e0+k], s.x[j][1] + s.dpy[e0+k], s.x[j][2] + s.dpz[e0+k]}
		}
		xb := make([]physics.Vec3, len(bs))
		vb := make([]float64, len(bs))
		for k, j := range bs {
			xb[k], vb[k] = sc.b.X[j], sc.b.Vol[j]
		}
		before := constraintC(&sc.kr, vi, s.x[i], x0, xb, vb)
		pi := s.x[i].Add(s.self[i])
		after := constraintC(&sc.kr, vi, pi, p, xb, vb)
		if before <= 0 {
			if s.self[i] != (physics.Vec3{}) {
				t.Fatalf("particle %d: uncompressed constraint (C = %g) was projected", i, before)
			}
			continue
		}
		compressed++
		maxAfter = max(maxAfter, after)
		if math.Abs(after) > onManifold {
			t.Fatalf("particle %d: C = %g before, %g after the projection, want |C| ≤ %g", i, before, after, onManifold)
		}
	}
	if compressed < n/2 {
		t.Fatalf("only %d of %d constraints compressed; the test needs a squeezed block", compressed, n)
	}
	t.Logf("largest C after the projection: %g", maxAfter)
	if maxAfter > reached {
		t.Fatalf("largest C after the projection %g, want ≤ %g (ε and rounding)", maxAfter, reached)
	}
}

func TestGlobalMatrixIsSPDAndMatrixFreeProductMatches(t *testing.T) {
	checkGlobalMatrix(t, false)
}

// TestGlobalMatrixWithSpringsIsSPD is the same check with cloth springs (springs.go) between
// some of the block's particles and one particle pinned: the assembled matrix gains each
// spring's block (springs.go) and loses the pinned particle's rows and columns.
func TestGlobalMatrixWithSpringsIsSPD(t *testing.T) {
	checkGlobalMatrix(t, true)
}

func checkGlobalMatrix(t *testing.T, springs bool) {
	// Assemble A = M/Δt² + Σ_k w D_kᵀD_k (Eq. 5 with D_k = n_k n_kᵀ, the projector onto the
	// unit gradient of C_k over the fluid particles) densely: the active constraints (C_k > 0)
	// and their gradients from a brute-force pass over all particle pairs with the kernel, check
	// that A is symmetric positive definite (Cholesky succeeds) and compare A·v with the
	// solver's two-gather matrix-free product.
	const productTol = 1e-10 // relative to the row's largest term: sums of ~1000 products of O(1e6) terms
	pool := par.NewPool(1)
	defer pool.Close()
	sc := newScene(t, pool, 3, 3, 3, physics.Vec3{0.3, 0.3, 0.3}, 0.9)
	sc.search(t, pool)
	s := NewSolver(DefaultParams())
	const dt = 0.002
	s.prepare(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, pool)
	n := sc.f.Len()
	x := sc.f.X // the initial guess: VStar and AP are zero
	dim := 3 * n
	a := make([]float64, dim*dim)
	var fixed, sheet []bool
	if springs {
		// a chain through the particles in index order, every third pair also joined
		// (so some particles carry several springs), weights of the cloth range; particle 4
		// pinned
		var edges []Edge
		for i := 0; i+1 < n; i++ {
			edges = append(edges, Edge{I: int32(i), J: int32(i + 1), L: 0.04, W: 2e5 + 1e3*float64(i)})
			if i%3 == 0 && i+3 < n {
				edges = append(edges, Edge{I: int32(i), J: int32(i + 3), L: 0.09, W: 5e3})
			}
		}
		fixed = make([]bool, n)
		fixed[4] = true
		// the first nine particles are cloth vertices: contacts with the others closer
		// than the contact distance (set here to 6 cm, above the squeezed spacing of 4.5 cm,
		// so that some are active)
		sheet = make([]bool, n)
		for i := 0; i < 9; i++ {
			sheet[i] = true
		}
		var sp Springs
		if err := sp.Build(n, edges, fixed, sheet); err != nil {
			t.Fatal(err)
		}
		s.SetSprings(&sp)
		s.prepare(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, pool) // the pinned particle's iterate
		s.contact = 0.06
		contacts := 0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				r := x[i].Sub(x[j])
				l := physics.Norm(r)
				if sheet[i] == sheet[j] || l >= s.contact || l*l >= sc.kr.H*sc.kr.H {
					continue
				}
				contacts++
				n := r.Mul(1 / l)
				for d := 0; d < 3; d++ {
					for g := 0; g < 3; g++ {
						// half of w n nᵀ per ordered pair: the pair (i, j) is met twice
						k := 0.5 * s.Stiffness * n[d] * n[g]
						ri, rj := 3*i+d, 3*j+d
						ci, cj := 3*i+g, 3*j+g
						a[ri*dim+ci] += k
						a[rj*dim+cj] += k
						a[ri*dim+cj] -= k
						a[rj*dim+ci] -= k
					}
				}
			}
		}
		// wall contacts of the cloth vertices (the first nine sit next to the tank's x = 0
		// wall): w n nᵀ on the vertex's own block
		walls := 0
		for i := 0; i < n; i++ {
			for b := range sc.b.X {
				r := x[i].Sub(sc.b.X[b])
				l := physics.Norm(r)
				if !sheet[i] || l >= s.contact || l*l >= sc.kr.H*sc.kr.H {
					continue
				}
				walls++
				nv := r.Mul(1 / l)
				for d := 0; d < 3; d++ {
					for g := 0; g < 3; g++ {
						a[(3*i+d)*dim+3*i+g] += s.Stiffness * nv[d] * nv[g]
					}
				}
			}
		}
		if contacts == 0 || walls == 0 {
			t.Fatalf("%d active contacts, %d wall contacts: the test needs some of each", contacts, walls)
		}
		// each spring's block K = w (n nᵀ + c (I − n nᵀ)), n the unit edge direction and
		// c = max(0, 1 − L/l) (the rest lengths make some springs stretched, some compressed),
		// at ±K on the (i, i), (j, j) and −K on the (i, j), (j, i) blocks
		for _, e := range edges {
			r := x[e.I].Sub(x[e.J])
			l := physics.Norm(r)
			n := r.Mul(1 / l)
			c := max(0, 1-e.L/l)
			for d := 0; d < 3; d++ {
				for g := 0; g < 3; g++ {
					k := e.W * (1 - c) * n[d] * n[g]
					if d == g {
						k += e.W * c
					}
					ri, rj := 3*int(e.I)+d, 3*int(e.J)+d
					ci, cj := 3*int(e.I)+g, 3*int(e.J)+g
					a[ri*dim+ci] += k
					a[rj*dim+cj] += k
					a[ri*dim+cj] -= k
					a[rj*dim+ci] -= k
				}
			}
		}
	}
	for l := 0; l < n; l++ {
		for d := 0; d < 3; d++ {
			a[(3*l+d)*dim+3*l+d] += sc.f.M[l] / (dt * dt)
		}
	}
	h2 := sc.kr.H * sc.kr.H
	active := 0
	movable := 0 // constraints that may be active: cloth vertices are in none
	for k := 0; k < n; k++ {
		if sheet != nil && sheet[k] {
			continue
		}
		movable++
		vk := sc.f.M[k] / sc.f.Rho0[k]
		grad := make([]physics.Vec3, n) // ∇_l C_k for every fluid particle l
		c := vk * sc.kr.W0()
		for j := 0; j < n; j++ {
			r := x[k].Sub(x[j])
			if j == k || physics.Norm(r)*physics.Norm(r) >= h2 || (sheet != nil && sheet[j]) {
				continue
			}
			w, g := sc.kr.Eval(physics.Norm(r))
			c += vk * w
			grad[k] = grad[k].Add(r.Mul(vk * g))
			grad[j] = grad[j].Sub(r.Mul(vk * g))
		}
		for b := range sc.b.X {
			r := x[k].Sub(sc.b.X[b])
			if physics.Norm(r)*physics.Norm(r) >= h2 {
				continue
			}
			w, g := sc.kr.Eval(physics.Norm(r))
			c += sc.b.Vol[b] * w
			grad[k] = grad[k].Add(r.Mul(sc.b.Vol[b] * g))
		}
		if c-1 <= 0 {
			continue
		}
		active++
		var gn float64
		for _, g := range grad {
			gn += g.Dot(g)
		}
		for l := 0; l < n; l++ {
			for m := 0; m < n; m++ {
				for d := 0; d < 3; d++ {
					for e := 0; e < 3; e++ {
						a[(3*l+d)*dim+3*m+e] += s.Stiffness * grad[l][d] * grad[m][e] / gn
					}
				}
			}
		}
	}
	if active < movable/3 { // (next to the cloth vertices, left out of the density sums, fewer are compressed)
		t.Fatalf("only %d of %d constraints compressed; the test needs a squeezed block", active, movable)
	}
	// a pinned particle is not an unknown: its rows and columns leave the system (identity
	// in their place keeps the dense checks below simple)
	for l := range fixed {
		if !fixed[l] {
			continue
		}
		for d := 0; d < 3; d++ {
			r := 3*l + d
			for c := 0; c < dim; c++ {
				a[r*dim+c], a[c*dim+r] = 0, 0
			}
			a[r*dim+r] = 1
		}
	}
	for r := 0; r < dim; r++ {
		for c := 0; c < r; c++ {
			if math.Abs(a[r*dim+c]-a[c*dim+r]) > productTol*math.Abs(a[r*dim+r]) {
				t.Fatalf("A is not symmetric at (%d, %d)", r, c)
			}
		}
	}
	// Cholesky: succeeds iff A is positive definite
	lm := append([]float64(nil), a...)
	for j := 0; j < dim; j++ {
		d := lm[j*dim+j]
		for k := 0; k < j; k++ {
			d -= lm[j*dim+k] * lm[j*dim+k]
		}
		if d <= 0 {
			t.Fatalf("A is not positive definite (pivot %d: %g)", j, d)
		}
		lm[j*dim+j] = math.Sqrt(d)
		for r := j + 1; r < dim; r++ {
			v := lm[r*dim+j]
			for k := 0; k < j; k++ {
				v -= lm[r*dim+k] * lm[j*dim+k]
			}
			lm[r*dim+j] = v / lm[j*dim+j]
		}
	}
	pool.For(n, s.fnLocal) // the local step at x sets the gradients the product uses
	pool.For(n, s.fnResid) // and the springs' directions (springResid)
	rng := rand.New(rand.NewPCG(1, 2))
	for l := 0; l < n; l++ {
		s.d[l] = physics.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}
		if fixed != nil && fixed[l] {
			s.d[l] = physics.Vec3{} // CG's directions are zero there (z = r/diag = 0)
		}
	}
	s.apply(n, pool)
	for r := 0; r < dim; r++ {
		if fixed != nil && fixed[r/3] {
			continue
		}
		want, scale := 0.0, 0.0
		for c := 0; c < dim; c++ {
			want += a[r*dim+c] * s.d[c/3][c%3]
			scale = max(scale, math.Abs(a[r*dim+c]))
		}
		got := s.q[r/3][r%3]
		if math.Abs(got-want) > productTol*scale {
			t.Fatalf("row %d: matrix-free %g, assembled %g", r, got, want)
		}
	}
}

// run steps a column of fluid resting on the floor of a tank and returns the solver results.
func runColumn(t *testing.T, workers, steps int) (*scene, []Result) {
	pool := par.NewPool(workers)
	defer pool.Close()
	sc := newScene(t, pool, 6, 10, 6, physics.Vec3{0.35, 0.8, 0.35}, 1)
	s := NewSolver(DefaultParams())
	var res []Result
	for k := 0; k < steps; k++ {
		res = append(res, sc.step(t, s, 0.002, pool))
	}
	return sc, res
}

func TestColumnStaysInTank(t *testing.T) {
	// A 6×10×6 column (two work blocks) settles in a closed tank for 0.3 s at Δt = 2 ms: no particle may pass a
	// wall (the tank's inner faces, widened by one particle radius for the kernel's soft edge).
	const slack = 0.025
	if raceEnabled {
		t.Skip("150 substeps take about a minute under the race detector")
	}
	sc, res := runColumn(t, 1, 150)
	for i, x := range sc.f.X {
		for d := 0; d < 3; d++ {
			if x[d] < sc.lo[d]-slack || x[d] > sc.hi[d]+slack {
				t.Fatalf("particle %d left the tank: %v", i, x)
			}
		}
	}
	last := res[len(res)-1]
	t.Logf("last substep: %d global steps, %d CG iterations, avg compression %.4f %%, max %.4f %%, converged %v",
		last.Iterations, last.CGIterations, 100*last.AvgError, 100*last.MaxError, last.Converged)
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	// Gather instead of scatter and block-ordered sums: bit-identical positions for 1, 2 and 8
	// workers.
	ref, _ := runColumn(t, 1, 10)
	for _, w := range []int{2, 8} {
		sc, _ := runColumn(t, w, 10)
		for i := range ref.f.X {
			if sc.f.X[i] != ref.f.X[i] || sc.f.V[i] != ref.f.V[i] {
				t.Fatalf("%d workers: particle %d differs: %v vs %v", w, i, sc.f.X[i], ref.f.X[i])
			}
		}
	}
}

func TestBoundaryLoadIsTheExactReaction(t *testing.T) {
	// A squeezed block in the corner of a tank, one substep. Two facts:
	//  - Newton's third law through the samples: constraint k pushes the fluid with
	//    w μ_k Σ_l ∇_l C_k and the samples with w μ_k Σ_b ∇_b C_k; C_k is translation
	//    invariant, so the two cancel. The fluid side is gathered from the residual of Eq. 5
	//    (r − M(s − x)/Δt²), the sample side by Loads from separate per-pair gradients, so a
	//    load missing w, a sign or a boundary term fails by orders of magnitude;
	//  - the solve converged, so the fluid's momentum change Σ m a_p = Σ M(x − s)/Δt² differs
	//    from its constraint forces by the residual sum, which the stop test bounds by
	//    n·Tolerance·spacing·m/Δt² (Cauchy–Schwarz on the RMS): the load is the negative of
	//    what the fluid receives within that bound;
	//  - the line search takes a trial point that meets the stop test whatever its energy:
	//    the solve converges within maxSteps global steps and maxHalvings halvings (11 and 6
	//    measured; 23 and 57 when such points were rejected and the solve halved below the
	//    tolerance). The bounds leave about a third for changes of the path at rounding level.
	const balanceTol = 1e-9 // relative to the load: rounding of sums of a few hundred terms
	const maxSteps, maxHalvings = 15, 15
	pool := par.NewPool(1)
	defer pool.Close()
	sc := newScene(t, pool, 3, 3, 3, physics.Vec3{0.3, 0.3, 0.3}, 0.95)
	s := NewSolver(DefaultParams())
	sc.search(t, pool)
	physics.Density(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, pool)
	const dt = 0.002
	physics.Advect(sc.f, &sc.ff, &sc.kr, physics.Vec3{0, -9.81, 0}, 0, dt, pool)
	r := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, sc.sp, pool)
	if !r.Converged {
		t.Fatalf("solve did not converge: %+v", r)
	}
	if r.Iterations > maxSteps || r.Backtracks > maxHalvings {
		t.Fatalf("%d global steps and %d halvings, more than %d and %d", r.Iterations, r.Backtracks, maxSteps, maxHalvings)
	}
	owner := make([]int32, sc.b.Len())
	s.Loads(sc.f, sc.b, &sc.fb, owner, []physics.Vec3{{}}, pool)
	n := sc.f.Len()
	var push, fl physics.Vec3
	for i := 0; i < n; i++ {
		m := sc.f.M[i] / (dt * dt)
		push = push.Add(s.rhs[i]).Sub(s.s[i].Sub(s.x[i]).Mul(m))
		fl = fl.Add(sc.f.AP[i].Mul(sc.f.M[i]))
	}
	load := s.Force[0]
	if physics.Norm(load) == 0 {
		t.Fatalf("no load on the tank: %+v", r)
	}
	if physics.Norm(push.Add(load)) > balanceTol*physics.Norm(load) {
		t.Fatalf("fluid push %v and tank load %v do not cancel", push, load)
	}
	bound := float64(n) * s.Tolerance * sc.sp * sc.f.M[0] / (dt * dt)
	if physics.Norm(fl.Add(load)) > bound {
		t.Fatalf("fluid force %v and tank load %v differ by %g N, more than the residual bound %g N", fl, load, physics.Norm(fl.Add(load)), bound)
	}
	t.Logf("%+v: load %v, Σ m a_p %v", r, load, fl)
}

func TestUnconvergedSolveIsReported(t *testing.T) {
	// One global step cannot resolve a block squeezed to 95 % of its spacing (the converged
	// solve takes several): the result must say so rather than pass as converged.
	pool := par.NewPool(1)
	defer pool.Close()
	sc := newScene(t, pool, 3, 3, 3, physics.Vec3{0.3, 0.3, 0.3}, 0.95)
	p := DefaultParams()
	p.MaxIterations = 1
	s := NewSolver(p)
	sc.search(t, pool)
	physics.Density(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, pool)
	physics.Advect(sc.f, &sc.ff, &sc.kr, physics.Vec3{0, -9.81, 0}, 0, 0.002, pool)
	r := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, 0.002, sc.sp, pool)
	if r.Converged || r.Iterations != 1 {
		t.Fatalf("one global step reported as %+v", r)
	}
}

func TestSolveAllocatesNothing(t *testing.T) {
	// Scratch buffers reach their size in the first substep; later substeps allocate nothing.
	pool := par.NewPool(2)
	defer pool.Close()
	sc := newScene(t, pool, 6, 10, 6, physics.Vec3{0.35, 0.8, 0.35}, 1)
	sc.search(t, pool)
	physics.Density(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, pool)
	physics.Advect(sc.f, &sc.ff, &sc.kr, physics.Vec3{0, -9.81, 0}, 0, 0.002, pool)
	s := NewSolver(DefaultParams())
	owner := make([]int32, sc.b.Len())
	centers := []physics.Vec3{{}}
	solve := func() {
		s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, 0.002, sc.sp, pool)
		s.Loads(sc.f, sc.b, &sc.fb, owner, centers, pool)
	}
	solve()
	if a := testing.AllocsPerRun(3, solve); a != 0 {
		t.Fatalf("%g allocations per solve, want 0", a)
	}
}

func BenchmarkColumnStep(b *testing.B) {
	pool := par.NewPool(1)
	defer pool.Close()
	sc := newScene(b, pool, 6, 10, 6, physics.Vec3{0.35, 0.8, 0.35}, 1)
	s := NewSolver(DefaultParams())
	for k := 0; k < 50; k++ {
		sc.step(b, s, 0.002, pool)
	}
	b.ResetTimer()
	var outer, cg int
	for k := 0; k < b.N; k++ {
		r := sc.step(b, s, 0.002, pool)
		outer += r.Iterations
		cg += r.CGIterations
	}
	b.ReportMetric(float64(outer)/float64(b.N), "outer/step")
	b.ReportMetric(float64(cg)/float64(b.N), "cg/step")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(sc.f.Len()), "µs/particle-step")
}

func TestParamsRejectBadInput(t *testing.T) {
	// Each bad value is reported with the field's name and its allowed range.
	cases := []struct {
		edit func(*Params)
		want string
	}{
		{func(p *Params) { p.Stiffness = 0 }, "pfStiffness: 0 N/m is outside (0, 1e12]"},
		{func(p *Params) { p.Stiffness = -5 }, "pfStiffness: -5 N/m is outside (0, 1e12]"},
		{func(p *Params) { p.MaxIterations = 0 }, "pfMaxIterations: 0 is outside [1, 1000]"},
		{func(p *Params) { p.MaxCGIterations = 20000 }, "pfMaxCGIterations: 20000 is outside [1, 10000]"},
		{func(p *Params) { p.Tolerance = 0 }, "pfTolerance: 0 is outside (0, 0.1]"},
	}
	if err := DefaultParams().Validate(); err != nil {
		t.Fatalf("defaults rejected: %v", err)
	}
	for _, c := range cases {
		p := DefaultParams()
		c.edit(&p)
		if err := p.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestTallColumnSettlesWithoutEnergyGain(t *testing.T) {
	// A 6×20×6 column (1 m of water at spacing 5 cm) filling the width of a closed tank, released
	// on the rest lattice, w = 10⁶ N/m, Δt = 2 ms, the default 30 local/global iterations, 0.6 s.
	// Three facts independent of the solver's own stopping value:
	//  - energy: the fluid starts at rest, so its mechanical energy (kinetic + gravitational)
	//    may only decrease under implicit Euler; the margin is 0.1 % of the initial energy
	//    (about 0.5 J). Before the relaxation of the global correction the fluid gained about
	//    8 J by 1 s and its centre of mass rose (measured with this scene);
	//  - force balance: averaged over the last 0.2 s the fluid's vertical constraint force
	//    Σ m a_p carries its weight within 2 % (the column then moves by a few mm/s only);
	//  - compression: over the last 0.2 s the largest density excess stays at or below 0.1 %,
	//    the target for w = 10⁶.
	const (
		energyMargin = 1e-3
		weightTol    = 0.02
		// loadTol: the tank's load from the solve (Loads) carries the weight within 2 %, the
		// issue's figure; the column still moves by a few mm/s, as for the constraint force
		loadTol     = 0.02
		maxCompress = 1e-3
	)
	if raceEnabled {
		t.Skip("300 substeps of 720 particles take minutes under the race detector")
	}
	if testing.Short() {
		t.Skip("about 15 s")
	}
	pool := par.NewPool(2)
	defer pool.Close()
	sc := newScene(t, pool, 6, 20, 6, physics.Vec3{0.35, 1.2, 0.35}, 1)
	s := NewSolver(DefaultParams())
	const g, dt, steps, window = 9.81, 0.002, 300, 100
	energy := func() (e float64) {
		for i, x := range sc.f.X {
			v := sc.f.V[i]
			e += sc.f.M[i] * (0.5*(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]) + g*x[1])
		}
		return e
	}
	var weight float64
	for _, m := range sc.f.M {
		weight += m * g
	}
	e0 := energy()
	var fy, worst, ld float64
	owner := make([]int32, sc.b.Len())
	for k := 0; k < steps; k++ {
		r := sc.step(t, s, dt, pool)
		s.Loads(sc.f, sc.b, &sc.fb, owner, []physics.Vec3{{}}, pool)
		if k >= steps-window {
			ld += s.Force[0][1] / window
		}
		if k >= steps-window {
			for i := range sc.f.X {
				fy += sc.f.M[i] * sc.f.AP[i][1]
			}
			worst = max(worst, r.MaxError)
		}
	}
	fy /= window
	e1 := energy()
	t.Logf("energy %.2f J -> %.2f J, constraint force %.1f N, tank load %.1f N, weight %.1f N, largest compression %.4f %%", e0, e1, fy, -ld, weight, 100*worst)
	if e1 > e0+energyMargin*e0 {
		t.Errorf("mechanical energy grew from %.3f J to %.3f J", e0, e1)
	}
	if math.Abs(fy-weight) > weightTol*weight {
		t.Errorf("mean vertical constraint force %.2f N, weight %.2f N", fy, weight)
	}
	if math.Abs(-ld-weight) > loadTol*weight {
		t.Errorf("mean vertical tank load %.2f N, weight %.2f N", -ld, weight)
	}
	if worst > maxCompress {
		t.Errorf("largest compression %.4f %% over the last 0.2 s, want ≤ %.2f %%", 100*worst, 100*maxCompress)
	}
}

func TestWarmStartReachesTheSameSolution(t *testing.T) {
	// The solve writes the pressure P_i = −w μ_i/V_i, and the next solve takes the constraint
	// forces it implies as its first global step. The initial guess only sets the path: the same
	// substep solved cold (P = 0) and warm (P from the cold solve) must land on the same
	// positions within what the two stop tests allow. Each result's residual has an RMS of
	// Δt² r/m below Tolerance·2r, and the global matrix is at least M/Δt², so their positions
	// differ by at most twice that in RMS.
	pool := par.NewPool(1)
	defer pool.Close()
	sc := newScene(t, pool, 3, 3, 3, physics.Vec3{0.3, 0.3, 0.3}, 0.95)
	s := NewSolver(DefaultParams())
	sc.search(t, pool)
	physics.Density(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, pool)
	const dt = 0.002
	physics.Advect(sc.f, &sc.ff, &sc.kr, physics.Vec3{0, -9.81, 0}, 0, dt, pool)
	n := sc.f.Len()
	cold := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, sc.sp, pool)
	x1 := append([]physics.Vec3(nil), s.x[:n]...)
	warmUsed := false
	for _, p := range sc.f.P {
		warmUsed = warmUsed || p != 0
	}
	if !warmUsed {
		t.Fatal("the solve left no pressure to start the next one from")
	}
	warm := s.Solve(sc.f, sc.b, &sc.ff, &sc.fb, &sc.kr, dt, sc.sp, pool)
	if !cold.Converged || !warm.Converged || cold.WarmStart || !warm.WarmStart {
		t.Fatalf("cold %+v, warm %+v", cold, warm)
	}
	var d2 float64
	for i := 0; i < n; i++ {
		d2 += physics.Dist2(x1[i], s.x[i])
	}
	rms := math.Sqrt(d2 / float64(n))
	bound := 2 * s.Tolerance * sc.sp
	t.Logf("cold: %d global steps, %d CG; warm: %d global steps, %d CG; positions differ by %.3g m RMS (bound %.3g m)",
		cold.Iterations, cold.CGIterations, warm.Iterations, warm.CGIterations, rms, bound)
	if rms > bound {
		t.Fatalf("cold and warm solutions differ by %g m RMS, more than %g m", rms, bound)
	}
}
