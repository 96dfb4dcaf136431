package elastic

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// matTol bounds the error of the 3x3 linear algebra on well-conditioned matrices: a few
// hundred ulps of unit-sized entries.
const matTol = 1e-12

func randRotation(rng *rand.Rand) mat3 {
	q := quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	q = quat{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
	return quatToMat(&q)
}

func maxDiff(a, b *mat3) float64 {
	d := 0.0
	for k := range a {
		d = max(d, math.Abs(a[k]-b[k]))
	}
	return d
}

func TestPseudoInverseRegularAndSingular(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 100; trial++ {
		r := randRotation(rng)
		rt := transpose(&r)
		lam := [3]float64{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()}
		rank := 3
		if trial%2 == 1 {
			lam[trial%3] = 0 // a flat neighbourhood: one zero eigenvalue
			rank = 2
		}
		d := mat3{lam[0], 0, 0, 0, lam[1], 0, 0, 0, lam[2]}
		rd := mul(&r, &d)
		a := mul(&rd, &rt)
		l, gotRank := pseudoInverseSym(&a, 1e-8)
		if gotRank != rank {
			t.Fatalf("trial %d: rank %d, want %d", trial, gotRank, rank)
		}
		// The Moore-Penrose conditions A L A = A and L A L = L (both symmetric here).
		al := mul(&a, &l)
		ala := mul(&al, &a)
		la := mul(&l, &a)
		lal := mul(&la, &l)
		if e := maxDiff(&ala, &a); e > matTol {
			t.Fatalf("trial %d: |ALA − A| = %g", trial, e)
		}
		if e := maxDiff(&lal, &l); e > matTol {
			t.Fatalf("trial %d: |LAL − L| = %g", trial, e)
		}
		if rank == 3 {
			id := identity()
			if e := maxDiff(&la, &id); e > matTol {
				t.Fatalf("trial %d: regular A: |LA − I| = %g", trial, e)
			}
		}
	}
}

// rotTol: the extraction stops at |ω| < 1e-10 rad; the recovered matrix is within a few times
// that of the true rotation.
const rotTol = 1e-8

// stretchedRotation returns a random rotation R and A = R S with S symmetric positive definite
// (principal stretches 0.7–1.3 about random axes): A's rotational part is R.
func stretchedRotation(rng *rand.Rand) (r, a mat3) {
	r = randRotation(rng)
	q := randRotation(rng)
	qt := transpose(&q)
	d := mat3{0.7 + 0.6*rng.Float64(), 0, 0, 0, 0.7 + 0.6*rng.Float64(), 0, 0, 0, 0.7 + 0.6*rng.Float64()}
	qd := mul(&q, &d)
	s := mul(&qd, &qt)
	return r, mul(&r, &s)
}

func TestExtractRotationOfStretchedRotation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 100; trial++ {
		r, a := stretchedRotation(rng)
		guess := quat{1, 0, 0, 0}
		extractRotation(&a, &guess, 200, 1e-12)
		got := quatToMat(&guess)
		if e := maxDiff(&got, &r); e > rotTol {
			t.Fatalf("trial %d: |R − R_true| = %g", trial, e)
		}
		// Warm-started from the answer, the extraction stops at once.
		if it := extractRotation(&a, &guess, 200, 1e-9); it > 1 {
			t.Fatalf("trial %d: warm start took %d iterations", trial, it)
		}
	}
}

// cube returns an n×n×n lattice of the given spacing and the kernel for support 2·spacing
// (sluice's h = 4r).
func cube(n int, spacing float64) ([]Vec3, physics.Kernel) {
	var x []Vec3
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				x = append(x, Vec3{float64(i) * spacing, float64(j) * spacing, float64(k) * spacing})
			}
		}
	}
	return x, physics.NewKernel(physics.CubicSpline, 2*spacing)
}

func rotate(x []Vec3, r *mat3, c Vec3) []Vec3 {
	out := make([]Vec3, len(x))
	for i, p := range x {
		d := Vec3{p[0] - c[0], p[1] - c[1], p[2] - c[2]}
		out[i] = Vec3{c[0] + r[0]*d[0] + r[1]*d[1] + r[2]*d[2], c[1] + r[3]*d[0] + r[4]*d[1] + r[5]*d[2], c[2] + r[6]*d[0] + r[7]*d[1] + r[8]*d[2]}
	}
	return out
}

func TestSymmetricNeighborhoodsAndCorrection(t *testing.T) {
	x, kr := cube(6, 0.1)
	vol := kr.LatticeVolume(0.1)
	bd, err := New(x, vol, &kr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < bd.n; i++ {
		for k := bd.start[i]; k < bd.start[i+1]; k++ {
			j := bd.nbr[k]
			if _, ok := slices.BinarySearch(bd.nbr[bd.start[j]:bd.start[j+1]], int32(i)); !ok {
				t.Fatalf("pair %d of %d: %d does not list %d", k, i, j, i)
			}
		}
	}
	// First-order consistency (Eq. 2): Σ_j V_j x⁰_ji ⊗ L_i ∇W(x⁰_ij) = I for every particle,
	// corners and edges included, since none of a cube's neighbourhoods is flat.
	pool := par.NewPool(2)
	defer pool.Close()
	f := make([]Vec3, bd.n)
	bd.Force(x, Material{G: 1e5, K: 1e5, Mass: 1}, f, pool)
	if s := bd.Strain(x); s > matTol {
		t.Fatalf("strain at rest %g", s)
	}
	for i := range f {
		if physics.Norm(f[i]) > matTol {
			t.Fatalf("force at rest on %d: %v", i, f[i])
		}
	}
}

// TestReverseGradients: the reverse gradient a pair's force pass reads, ∇*W_j(x⁰_ji) formed
// from R_j and the constant copy of L_j ∇W(x⁰_ji), equals bit for bit the gradient stored for
// the pair (j, i) in j's list, on a deformed and turned cube: the forces of Eq. 9 cancel in
// pairs only if the two are the same value.
func TestReverseGradients(t *testing.T) {
	x, kr := cube(6, 0.1)
	vol := kr.LatticeVolume(0.1)
	rng := rand.New(rand.NewPCG(21, 22))
	r := randRotation(rng)
	xd := rotate(deformed(x, rng, 0.01), &r, Vec3{0.25, 0.25, 0.25})
	bd, err := New(x, vol, &kr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pool := par.NewPool(2)
	defer pool.Close()
	bd.Force(xd, Material{G: 1e5, K: 1e5, Mass: 1}, make([]Vec3, bd.n), pool)
	for i := 0; i < bd.n; i++ {
		for k := bd.start[i]; k < bd.start[i+1]; k++ {
			j := bd.nbr[k]
			m, _ := slices.BinarySearch(bd.nbr[bd.start[j]:bd.start[j+1]], int32(i))
			if want := bd.gs[bd.start[j]+int32(m)]; bd.gsRev[k] != want || want == (grad32{}) {
				t.Fatalf("pair %d (%d, %d): reverse gradient %v, j's own %v", k, i, j, bd.gsRev[k], want)
			}
		}
	}
}

// rigidStrainTol: a rigidly rotated body has zero corotated strain up to round-off and the
// rotation tolerance.
const rigidStrainTol = 1e-8

func TestRigidRotationHasNoStrainOnlyWithCorrection(t *testing.T) {
	x, kr := cube(6, 0.1)
	vol := kr.LatticeVolume(0.1)
	rng := rand.New(rand.NewPCG(5, 6))
	r := randRotation(rng)
	xr := rotate(x, &r, Vec3{0.25, 0.25, 0.25})
	pool := par.NewPool(1)
	defer pool.Close()
	f := make([]Vec3, len(x))
	mat := Material{G: 1e5, K: 1e5, Mass: 1}

	bd, _ := New(x, vol, &kr, Options{})
	// From the identity, a large rotation takes more than one call's iteration cap; each call
	// warm-starts from the last (as successive steps do).
	for range 5 {
		bd.Force(xr, mat, f, pool)
	}
	if s := bd.Strain(xr); s > rigidStrainTol {
		t.Fatalf("corrected: strain under pure rotation %g, want < %g", s, rigidStrainTol)
	}
	// The right-hand side's force (Eq. 9 from the stress of Eq. 13) vanishes with the strain:
	// in units of the force a strain of 1 would give a particle, G·V^(2/3), at most
	// rigidStrainTol.
	fmax := 0.0
	for i := range f {
		fmax = max(fmax, physics.Norm(f[i]))
	}
	if unit := mat.G * math.Cbrt(vol*vol); fmax > rigidStrainTol*unit {
		t.Fatalf("corrected: force under pure rotation %g N, want < %g", fmax, rigidStrainTol*unit)
	} else {
		t.Logf("force under pure rotation %.3g N (a unit strain's %.3g N)", fmax, unit)
	}
	got := bd.Rotation(0)
	if e := maxDiff(&got, &r); e > rotTol {
		t.Fatalf("extracted rotation off by %g", e)
	}

	// With the correction the deformation gradient of Eq. 3 is the rotation itself; without
	// it the boundary particles' F is R times a stretch of the deficient kernel sum (§3.3), so
	// F ≠ R under a rigid rotation (what pulls an uncorrected spinning body back is measured
	// in the world, TestSpinningCubeWithoutCorrectionIsPulledBack).
	worst := func(b *Body) float64 {
		e := 0.0
		for i := range x {
			e = max(e, maxDiff(&b.fg[i], &r))
		}
		return e
	}
	ec := worst(bd)
	if ec > correctedFTol {
		t.Fatalf("corrected: |F − R| = %g under a pure rotation, want < %g", ec, correctedFTol)
	}
	raw, _ := New(x, vol, &kr, Options{NoCorrection: true})
	raw.Force(xr, mat, f, pool)
	eu := worst(raw)
	t.Logf("largest |F − R| under a pure rotation: %.2g corrected, %.2g uncorrected", ec, eu)
	if eu < uncorrectedFMin {
		t.Fatalf("uncorrected: |F − R| only %g under a pure rotation, want at least %g", eu, uncorrectedFMin)
	}
}

// correctedFTol: the corrected gradients are stored in single precision (6e-8 relative), so F
// is the rotation to a few times that.
const correctedFTol = 1e-6

// uncorrectedFMin: at a corner of the cube the kernel sum Σ_j V_j x⁰_ji ⊗ ∇W misses about
// seven eighths of the neighbourhood, so F = R·S with S far from I; a tenth is a loose floor.
const uncorrectedFMin = 0.1

func TestSheetNeedsPseudoInverse(t *testing.T) {
	// One layer of particles: every Eq. 1 matrix has rank 2.
	var x []Vec3
	for i := 0; i < 8; i++ {
		for k := 0; k < 8; k++ {
			x = append(x, Vec3{float64(i) * 0.1, 0, float64(k) * 0.1})
		}
	}
	kr := physics.NewKernel(physics.CubicSpline, 0.2)
	bd, err := New(x, kr.LatticeVolume(0.1), &kr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range bd.l {
		for _, v := range bd.l[i] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("L_%d is not finite: %v", i, bd.l[i])
			}
		}
	}
	// In the sheet's plane the correction is exact: a rigid in-plane rotation shows no strain.
	c, s := math.Cos(0.4), math.Sin(0.4)
	r := mat3{c, 0, s, 0, 1, 0, -s, 0, c}
	xr := rotate(x, &r, Vec3{})
	pool := par.NewPool(1)
	defer pool.Close()
	f := make([]Vec3, len(x))
	bd.Force(xr, Material{G: 1e4, K: 1e4, Mass: 1}, f, pool)
	if st := bd.Strain(xr); st > rigidStrainTol {
		t.Fatalf("sheet: strain under in-plane rotation %g", st)
	}
}

func TestIsolatedParticleIsAnError(t *testing.T) {
	x := []Vec3{{0, 0, 0}, {0.1, 0, 0}, {5, 5, 5}}
	kr := physics.NewKernel(physics.CubicSpline, 0.2)
	_, err := New(x, 1e-3, &kr, Options{})
	ne, ok := err.(*NeighborError)
	if !ok || ne.Particle != 2 {
		t.Fatalf("got %v, want a NeighborError for particle 2", err)
	}
}

// deformed returns the lattice x stretched and sheared by a smooth random displacement.
func deformed(x []Vec3, rng *rand.Rand, amp float64) []Vec3 {
	out := make([]Vec3, len(x))
	a, b, c := rng.Float64(), rng.Float64(), rng.Float64()
	for i, p := range x {
		out[i] = Vec3{p[0] + amp*math.Sin(3*p[1]+a), p[1] + amp*math.Cos(2*p[2]+b), p[2] + amp*math.Sin(4*p[0]+c)}
	}
	return out
}

// momentumTol: the forces of Eq. 9 cancel pairwise, so their sum is round-off of the
// per-particle forces' size (|f| up to ~1e3 N here).
const momentumTol = 1e-9

func TestForceAndSolveConserveLinearMomentum(t *testing.T) {
	x, kr := cube(7, 0.1)
	vol := kr.LatticeVolume(0.1)
	rng := rand.New(rand.NewPCG(7, 8))
	bd, _ := New(x, vol, &kr, Options{})
	xd := deformed(x, rng, 0.02)
	pool := par.NewPool(2)
	defer pool.Close()
	mat := Material{G: 1e5, K: 2e5, Alpha: 0.1, Mass: 1000 * vol, MaxIterations: 200, MaxError: 1e-9}
	f := make([]Vec3, len(x))
	bd.Force(xd, mat, f, pool)
	var sum Vec3
	fmax := 0.0
	for _, v := range f {
		sum = Vec3{sum[0] + v[0], sum[1] + v[1], sum[2] + v[2]}
		fmax = max(fmax, physics.Norm(v))
	}
	if physics.Norm(sum) > momentumTol*max(1, fmax) {
		t.Fatalf("Σ f = %v (max |f| %g)", sum, fmax)
	}
	if fmax < 1 {
		t.Fatalf("deformation produced almost no force (%g N): the test would not see an imbalance", fmax)
	}

	v := make([]Vec3, len(x))
	var p0 Vec3
	for i := range v {
		v[i] = Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		p0 = Vec3{p0[0] + v[i][0], p0[1] + v[i][1], p0[2] + v[i][2]}
	}
	mat.Alpha = 0
	res := bd.Solve(xd, v, mat, 0.01, pool)
	if !res.Converged {
		t.Fatalf("CG did not converge: %+v", res)
	}
	var p1 Vec3
	for i := range v {
		p1 = Vec3{p1[0] + v[i][0], p1[1] + v[i][1], p1[2] + v[i][2]}
	}
	// Warm-started with v*, every CG residual sums to zero, so Σ v is kept to round-off.
	if d := physics.Norm(Vec3{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}); d > 1e-10*float64(len(v)) {
		t.Fatalf("Σ v changed by %g", d)
	}
}

// TestSolveMatchesDefinition checks the CG solution against Eq. 17 evaluated directly:
// v − Δt/m f(x + Δt v) = v* with f from Force at the moved positions (rotations held).
func TestSolveMatchesDefinition(t *testing.T) {
	x, kr := cube(6, 0.1)
	vol := kr.LatticeVolume(0.1)
	rng := rand.New(rand.NewPCG(9, 10))
	bd, _ := New(x, vol, &kr, Options{})
	xd := deformed(x, rng, 0.01)
	pool := par.NewPool(2)
	defer pool.Close()
	const dt = 0.005
	mat := Material{G: 1e5, K: 1e5, Mass: 1000 * vol, MaxIterations: 500, MaxError: 1e-12}
	vs := make([]Vec3, len(x))
	for i := range vs {
		vs[i] = Vec3{0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64()}
	}
	v := append([]Vec3(nil), vs...)
	res := bd.Solve(xd, v, mat, dt, pool)
	if !res.Converged {
		t.Fatalf("not converged: %+v", res)
	}
	// Evaluate f(x + Δt v, x⁰) with the solve's rotations: Eq. 13 is linear in the positions.
	xn := make([]Vec3, len(x))
	for i := range x {
		xn[i] = Vec3{xd[i][0] + dt*v[i][0], xd[i][1] + dt*v[i][1], xd[i][2] + dt*v[i][2]}
	}
	bd.x, bd.mat = xn, mat
	pool.For(bd.n, bd.fnStressX)
	worst := 0.0
	for i := range v {
		fx, fy, fz := bd.divergence(i)
		c := dt / mat.Mass
		e := Vec3{v[i][0] - c*fx - vs[i][0], v[i][1] - c*fy - vs[i][1], v[i][2] - c*fz - vs[i][2]}
		worst = max(worst, physics.Norm(e))
	}
	// The CG stops at an average residual of 1e-12 m/s; the worst particle is within 1e-9.
	if worst > 1e-9 {
		t.Fatalf("implicit equation violated by %g m/s", worst)
	}
}

// tractionTol: the resultant of the forces on one half of a uniformly stretched block equals
// the stress times the cross-section up to the kernel's truncation at the block's edges.
const tractionTol = 0.02

// TestUniformStretchTraction checks the force scale of Eq. 9: stretching a block uniformly by
// ε_xx = e, the forces on the particles of its upper half in x add up to −P_xx·A, the traction
// of the stress P_xx = (K + 4G/3)e across the mid-plane of area A.
func TestUniformStretchTraction(t *testing.T) {
	const n, s, e = 12, 0.1, 1e-3
	x, kr := cube(n, s)
	vol := s * s * s
	bd, _ := New(x, vol, &kr, Options{})
	xs := make([]Vec3, len(x))
	for i, p := range x {
		xs[i] = Vec3{p[0] * (1 + e), p[1], p[2]}
	}
	pool := par.NewPool(1)
	defer pool.Close()
	mat := Material{G: 1e5, K: 3e5, Mass: 1}
	f := make([]Vec3, len(x))
	bd.Force(xs, mat, f, pool)
	sum := 0.0
	for i, p := range x {
		if p[0] > 0.5*float64(n-1)*s {
			sum += f[i][0]
		}
	}
	want := -(mat.K + 4*mat.G/3) * e * float64(n*n) * s * s
	if math.Abs(sum-want) > tractionTol*math.Abs(want) {
		t.Fatalf("Σ f_x over the upper half %g N, want %g N", sum, want)
	}
}

// staticCantilever returns the static tip deflection of a clamped beam of square section
// a = n·s and length L = 10a (particles at cell centres, n pinned layers at x < 0) under
// gravity, and the Euler-Bernoulli value qL⁴/(8EI). The equilibrium is found with the solver
// itself: an implicit step with a time step far beyond the body's periods solves the
// linearised statics f(x + Δt v) = −m g for the rotations of x, and re-extracting the
// rotations a few times converges the corotated equilibrium.
func staticCantilever(t *testing.T, n int, g, k float64) (got, want float64, its int) {
	const a, rho, grav = 0.05, 1000.0, 9.81
	s := a / float64(n)
	var x []Vec3
	var pinned []bool
	for i := -n; i < 10*n; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < n; l++ {
				x = append(x, Vec3{(float64(i) + 0.5) * s, (float64(j) + 0.5) * s, (float64(l) + 0.5) * s})
				pinned = append(pinned, i < 0)
			}
		}
	}
	kr := physics.NewKernel(physics.CubicSpline, 2*s)
	vol := kr.LatticeVolume(s)
	bd, err := New(x, vol, &kr, Options{Pinned: pinned})
	if err != nil {
		t.Fatal(err)
	}
	pool := par.NewPool(2)
	defer pool.Close()
	const dt = 1.0
	mat := Material{G: g, K: k, Mass: rho * vol, MaxIterations: 100000, MaxError: 1e-6}
	xs := append([]Vec3(nil), x...)
	v := make([]Vec3, len(x))
	for outer := 0; outer < 3; outer++ {
		for i := range v {
			v[i] = Vec3{0, -grav * dt, 0}
		}
		res := bd.Solve(xs, v, mat, dt, pool)
		its += res.Iterations
		for i := range xs {
			xs[i] = Vec3{xs[i][0] + dt*v[i][0], xs[i][1] + dt*v[i][1], xs[i][2] + dt*v[i][2]}
		}
	}
	l := 10 * a
	sum, cnt := 0.0, 0
	for i := range x {
		if x[i][0] > l-s {
			sum += xs[i][1] - x[i][1]
			cnt++
		}
	}
	e := 9 * k * g / (3*k + g)
	q := rho * grav * a * a
	return -sum / float64(cnt), q * math.Pow(l, 4) / (8 * e * math.Pow(a, 4) / 12), its
}

// beamTol is the bound on the static tip deflection against Euler-Bernoulli. The SPH
// beam is 8 or 10 particles thick; its corrected gradients are one-sided at the surfaces,
// which makes a thin beam softer by roughly 3/n² (44 % at n = 4, 20 % at n = 6, 13 % at n =
// 8 as measured), plus about 1 % of shear (Timoshenko) that Euler-Bernoulli leaves out.
const beamTol = 0.15

func TestCantileverMatchesEulerBernoulli(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("two static beam solves")
	}
	var errs []float64
	for _, n := range []int{8, 10} {
		got, want, its := staticCantilever(t, n, 1e7, 1e7)
		rel := math.Abs(got-want) / want
		errs = append(errs, rel)
		t.Logf("n = %d across: tip deflection %.5f m, Euler-Bernoulli %.5f m, error %.1f %% (%d CG iterations)", n, got, want, 100*rel, its)
		if rel > beamTol {
			t.Errorf("n = %d: tip deflection %.5f m is %.1f %% off Euler-Bernoulli %.5f m", n, got, 100*rel, want)
		}
	}
	if errs[1] >= errs[0] {
		t.Errorf("the finer beam is not closer: %.3f (n = 8) vs %.3f (n = 10)", errs[0], errs[1])
	}
}

// blowUpSpeed is the speed (m/s) above which a run counts as unstable: the perturbed cube's
// vibration moves at about 0.1 m/s, an unstable update grows exponentially past it.
const blowUpSpeed = 10.0

// runCube integrates the perturbed 6³ cube (G = K = 1e6 Pa, ρ = 1000 kg/m³, no gravity) for
// steps steps of dt, explicitly by Eq. 14 (v += Δt f(x)/m, then x += Δt v) or implicitly by
// Eq. 17, and reports whether every speed stayed below blowUpSpeed.
func runCube(t *testing.T, dt float64, steps int, implicit bool) bool {
	const s = 0.05
	x0, kr := cube(6, s)
	vol := kr.LatticeVolume(s)
	bd, _ := New(x0, vol, &kr, Options{})
	rng := rand.New(rand.NewPCG(11, 12))
	x := deformed(x0, rng, 0.002)
	v := make([]Vec3, len(x))
	f := make([]Vec3, len(x))
	mat := Material{G: 1e6, K: 1e6, Mass: 1000 * vol, MaxIterations: 1000, MaxError: 1e-4}
	pool := par.NewPool(1)
	defer pool.Close()
	for step := 0; step < steps; step++ {
		if implicit {
			bd.Solve(x, v, mat, dt, pool)
		} else {
			bd.Force(x, mat, f, pool)
			for i := range v {
				c := dt / mat.Mass
				v[i] = Vec3{v[i][0] + c*f[i][0], v[i][1] + c*f[i][1], v[i][2] + c*f[i][2]}
			}
		}
		for i := range x {
			if !(physics.Norm(v[i]) < blowUpSpeed) {
				return false
			}
			x[i] = Vec3{x[i][0] + dt*v[i][0], x[i][1] + dt*v[i][1], x[i][2] + dt*v[i][2]}
		}
	}
	return true
}

// implicitGain is the requirement: the implicit update stays stable at a time step at
// least 5x the explicit update's largest stable one.
const implicitGain = 5

func TestImplicitStableBeyondExplicitLimit(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("hundreds of short runs")
	}
	const steps = 300
	// The largest stable explicit step, on a ladder of factors 1.1 from 0.1 ms.
	explicitMax := 0.0
	for dt := 1e-4; dt < 0.1; dt *= 1.1 {
		if !runCube(t, dt, steps, false) {
			break
		}
		explicitMax = dt
	}
	if explicitMax == 0 || explicitMax > 0.05 {
		t.Fatalf("explicit limit %g s is not a limit", explicitMax)
	}
	if runCube(t, 1.1*1.1*explicitMax, steps, false) {
		t.Fatalf("explicit update stable beyond its limit %g s too: the ladder is not resolving it", explicitMax)
	}
	for _, gain := range []float64{implicitGain, 20} {
		if !runCube(t, gain*explicitMax, steps, true) {
			t.Errorf("implicit update unstable at %g × the explicit limit (%g s)", gain, gain*explicitMax)
		}
	}
	t.Logf("explicit (Eq. 14) stable up to Δt = %.3g s; implicit (Eq. 17) stable at %d× and 20× that", explicitMax, implicitGain)
}

// relTol is the relative residual the CG is asked for in TestSolveStopsOnRelativeResidual.
const relTol = 1e-6

// relSlack allows for the CG's recursively updated residual drifting from the true
// b − A v by round-off: in float64, a few orders below relTol here.
const relSlack = 1.01

// systemResidual evaluates Eq. 17 for v directly, independently of the CG's own residual:
// r = v − Δt/m f(x + Δt v, x⁰) − v* and b = v* + Δt/m f(x, x⁰), f from the stress pass and the
// divergence of Eq. 9/10 at the moved positions (rotations of the solve held; Eq. 13 is linear
// in the positions, so f(x + Δt v) − f(x) is the product's f(Δt v, 0)). It returns ‖r‖₂/‖b‖₂.
func systemResidual(bd *Body, x, v, vs []Vec3, mat Material, dt float64, pool *par.Pool) float64 {
	force := func(pos []Vec3) []Vec3 {
		bd.x, bd.mat = pos, mat
		pool.For(bd.n, bd.fnStressX)
		out := make([]Vec3, bd.n)
		for i := range out {
			fx, fy, fz := bd.divergence(i)
			out[i] = Vec3{fx, fy, fz}
		}
		bd.x = nil
		return out
	}
	xn := make([]Vec3, len(x))
	for i := range x {
		xn[i] = Vec3{x[i][0] + dt*v[i][0], x[i][1] + dt*v[i][1], x[i][2] + dt*v[i][2]}
	}
	f0, f1 := force(x), force(xn)
	c := dt / mat.Mass
	var rr, bb float64
	for i := range v {
		for d := 0; d < 3; d++ {
			r := v[i][d] - c*f1[i][d] - vs[i][d]
			b := vs[i][d] + c*f0[i][d]
			rr += r * r
			bb += b * b
		}
	}
	return math.Sqrt(rr / bb)
}

// TestSolveStopsOnRelativeResidual: a slowly moving, slightly deformed body (velocities of
// order 1 mm/s) meets the paper's absolute criterion (average |r_i| ≤ 1e-3 m/s) with the warm
// start alone, far from the solution. With the relative criterion ‖r‖/‖b‖ ≤ relTol the solve
// must satisfy the implicit system (evaluated directly, not from the CG's residual) to relTol.
// Without it (RelError = 0, the absolute rule only) the same solve is shown to stop far above
// relTol, so the scene does exercise the relative rule.
func TestSolveStopsOnRelativeResidual(t *testing.T) {
	x, kr := cube(6, 0.1)
	vol := kr.LatticeVolume(0.1)
	rng := rand.New(rand.NewPCG(11, 12))
	bd, _ := New(x, vol, &kr, Options{})
	xd := deformed(x, rng, 1e-4)
	pool := par.NewPool(2)
	defer pool.Close()
	const dt = 0.005
	vs := make([]Vec3, len(x))
	for i := range vs {
		vs[i] = Vec3{1e-3 * rng.NormFloat64(), 1e-3 * rng.NormFloat64(), 1e-3 * rng.NormFloat64()}
	}
	solve := func(rel float64) (Result, float64) {
		mat := Material{G: 1e5, K: 1e5, Mass: 1000 * vol, MaxIterations: 1000, MaxError: 1e-3, RelError: rel}
		v := append([]Vec3(nil), vs...)
		res := bd.Solve(xd, v, mat, dt, pool)
		return res, systemResidual(bd, xd, v, vs, mat, dt, pool)
	}
	absOnly, absRel := solve(0)
	if absRel <= 10*relTol {
		t.Fatalf("absolute rule alone already reaches ‖r‖/‖b‖ = %.3g (%d iterations): the scene does not exercise the relative rule", absRel, absOnly.Iterations)
	}
	res, got := solve(relTol)
	if !res.Converged {
		t.Fatalf("not converged: %+v", res)
	}
	if got > relTol*relSlack {
		t.Fatalf("‖b − Av‖/‖b‖ = %.3g after the solve (CG reported %.3g, %d iterations), want ≤ %g", got, res.Relative, res.Iterations, relTol)
	}
	t.Logf("absolute rule only: %d iterations, ‖r‖/‖b‖ = %.3g; with relError %g: %d iterations, measured %.3g (CG's own %.3g)",
		absOnly.Iterations, absRel, relTol, res.Iterations, got, res.Relative)
}

// pairBytes is what a body stores per rest pair (docs/elastic.md): the neighbour index (4),
// the corrected gradient and its reverse pair's copy (12 + 12) and the two rotated gradients
// of a step (12 + 12).
const pairBytes = 52

// TestBytesPerPair sums the element sizes of the body's arrays that hold an entry per rest
// pair (every slice at least as long as the pairs; the per-particle arrays of a 6³ cube are
// shorter) and checks them against pairBytes: an array added per pair fails it.
func TestBytesPerPair(t *testing.T) {
	x, kr := cube(6, 0.1)
	bd, err := New(x, kr.LatticeVolume(0.1), &kr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := bd.Pairs()
	if pairs <= 2*bd.Len() {
		t.Fatalf("%d pairs for %d particles: too few to tell per-pair arrays from per-particle ones", pairs, bd.Len())
	}
	v := reflect.ValueOf(bd).Elem()
	total := uintptr(0)
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Slice && f.Len() >= pairs {
			total += f.Type().Elem().Size()
			t.Logf("%s: %d bytes per pair", v.Type().Field(i).Name, f.Type().Elem().Size())
		}
	}
	if total != pairBytes {
		t.Fatalf("%d bytes per pair, want %d", total, pairBytes)
	}
}
