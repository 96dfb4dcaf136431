// Package elastoplastic is point-based elastoplastic solids: D. Gerszewski, H. Bhattacharya,
// A. W. Bargteil, "A point-based method for animating elastoplastic solids" (SCA 2009), as
// chapter 4 of D. Gerszewski's dissertation (University of Utah, 2014), cited below as "ch. 4".
//
// No rest configuration is stored. Each step, every particle fits the affine map that best
// carries its current neighbourhood from the positions of the previous step to the present
// ones (weighted least squares, Eq. 4.1-4.7, poly6 weights) and composes it into its elastic
// deformation gradient F (Eq. 4.8). F is diagonalised by an inversion-aware SVD (Irving et al.
// 2004; svd.go), plastic flow moves the volume-preserving part of the diagonal toward the
// identity (the multiplicative model of Bargteil et al. 2007, see plastic.go), the diagonal
// stress is Eq. 4.9, and the pair forces are Eq. 4.10-4.13 with the Solenthaler kernel; f_ij
// and f_ji are averaged so every pair's two forces cancel exactly (linear momentum is kept to
// round-off). The averaged pair force is not along the pair's offset (M_i and F_i⁻¹ turn it),
// so as printed Eq. 4.10 does not conserve angular momentum; with the kernel-gradient
// correction of Bonet and Lok (1999; see correct) it does, to round-off. The guards of §4.4
// skip a particle's update of F when it has fewer than six neighbours, an ill-conditioned
// moment matrix XXᵀ, or when the update would leave a singular value ≤ 0. A particle whose fit
// the first two guards reject (detached: fewer than six neighbours, or a neighbourhood flatter
// than 1 : 10 — splashed off, or a thin tip) also exerts no stress: its F no longer describes
// a neighbourhood, its gradient correction is near-singular, and its stale stress acting on
// the few particles near it made a splashing dough block and a dough star's thin points blow
// up in the world (TestDetachedParticleCarriesNoStress).
//
// The forces are explicit: Step adds Δt·f/m to the velocities, and StableDt gives the
// elastic wave-speed limit Δt ≤ C·spacing/c, c = √((λ+2μ)/ρ), that a caller's substep
// control must respect (C = StableCourant, measured).
//
// The package knows nothing of the ECS: a Body works on its own particles in their own order,
// the caller passes positions and velocities. Loops run over fixed blocks of physics/par with
// per-particle outputs and per-block counters summed in block order, so results do not depend
// on the number of workers; after the first steps a Step allocates nothing.
package elastoplastic

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/vec"
	"github.com/sluicephysics/sluice/physics/par"
)

// Vec3 is physics.Vec3.
type Vec3 = physics.Vec3

// MinNeighbors is the fewest neighbours with which a particle updates F (ch. 4, §4.4: "less
// than a set number of neighbors (6 in our implementation)"). Three non-coplanar neighbours
// determine an affine map; six leave the fit over-determined, so one stray neighbour cannot
// dictate it.
const MinNeighbors = 6

// MinMomentRatio is the smallest ratio of the least to the largest eigenvalue of the weighted
// moment matrix XXᵀ (Eq. 4.5) for which the fit is trusted (§4.4: "if XXᵀ is ill-conditioned").
// The eigenvalues scale with the squared extent of the neighbourhood along their axes, so 1e-2
// rejects neighbourhoods that are flatter than 1 : 10, where the fit's out-of-plane column
// amplifies round-off and the non-affine part of the motion more than 100-fold. 1e-4 (flatter
// than 1 : 100) let the one-particle-wide points of a dough star (examples/dough) through, and
// their fitted F grew a stretch of 12 within a frame and burst the star; every neighbourhood
// of a volume sampling, corners included, is above 1e-2 (TestBodyAtRest: no guard fires).
const MinMomentRatio = 1e-2

// Material is the constitutive model of one body.
type Material struct {
	Mu, Lambda float64 // Lamé parameters μ, λ of Eq. 4.9 (Pa)
	// YieldStress is the norm of the deviatoric stress below which the body is elastic
	// (Pa); +Inf makes it purely elastic.
	YieldStress float64
	// FlowRate ν (1/s): the fraction of the excess over the yield stress that flows per
	// second (Bargteil et al. 2007's flow rate, made per time unit, see plastic.go).
	FlowRate float64
	// Hardening K (Pa): the yield stress grows by K·α with the accumulated plastic strain α
	// (work hardening; negative K softens).
	Hardening float64
	// ZeroModeDamping ε (dimensionless, per step) damps the motion that the affine fit
	// cannot see. The fit (Eq. 4.6) and the force (Eq. 4.10) both average over the whole
	// kernel support, so a particle-scale zig-zag of the neighbours changes neither F nor the
	// force: it is a zero-energy mode, undamped, and the history-dependent F feeds energy into
	// it. The term adds ε Σ_j v_j W_ij (r_ij·ê)ê/Δt to v_i, with r_ij = (y_j − y_i) −
	// ½(F_i + F_j)(x_j − x_i) the pair's motion over the step that the two particles' fitted
	// affine maps do not explain and ê the pair's direction. It vanishes for every affine
	// motion (rigid rotations included), so it changes neither the stress nor the rest shape;
	// it is antisymmetric in i and j and along the pair, so linear and angular momentum are
	// kept. Not part of the chapter, which relied on SPH pressure forces "for additional
	// stability" (§4.4).
	ZeroModeDamping float64
}

// DefaultZeroModeDamping is the zero-mode damping of a new material, the value the squash
// tests pass with; without it (ε = 0) the elastic squeeze does not come back to its shape
// (TestZeroModeDampingNeeded).
const DefaultZeroModeDamping = 0.5

// Limits of the parameters. The moduli's ceiling is a steel-like 1e12 Pa; beyond that the
// wave-speed step limit makes any scene impractical. Flow rates above 1e6 /s flow fully in
// every step at any useful Δt.
const (
	MaxModulus   = 1e12
	MaxFlowRate  = 1e6
	MaxHardening = 1e12
)

// Validate reports the first parameter outside its range, naming it.
func (m *Material) Validate() error {
	switch {
	case !(m.Mu > 0 && m.Mu <= MaxModulus):
		return fmt.Errorf("elastoplastic: shear modulus μ = %g Pa is outside (0, %g]", m.Mu, MaxModulus)
	case !(m.Lambda >= 0 && m.Lambda <= MaxModulus):
		return fmt.Errorf("elastoplastic: Lamé λ = %g Pa is outside [0, %g]", m.Lambda, MaxModulus)
	case math.IsNaN(m.YieldStress) || m.YieldStress < 0:
		return fmt.Errorf("elastoplastic: yield stress %g Pa is outside [0, +Inf]", m.YieldStress)
	case !(m.FlowRate >= 0 && m.FlowRate <= MaxFlowRate):
		return fmt.Errorf("elastoplastic: flow rate %g 1/s is outside [0, %g]", m.FlowRate, MaxFlowRate)
	case !(m.Hardening >= -MaxHardening && m.Hardening <= MaxHardening):
		return fmt.Errorf("elastoplastic: hardening %g Pa is outside [%g, %g]", m.Hardening, -MaxHardening, MaxHardening)
	case !(m.ZeroModeDamping >= 0 && m.ZeroModeDamping <= 1):
		return fmt.Errorf("elastoplastic: zero-mode damping %g is outside [0, 1]", m.ZeroModeDamping)
	}
	return nil
}

// FromYoung returns the Lamé parameters of Young's modulus E (Pa) and Poisson's ratio ν:
// μ = E/(2(1+ν)), λ = Eν/((1+ν)(1−2ν)).
func FromYoung(e, nu float64) (mu, lambda float64) {
	return e / (2 * (1 + nu)), e * nu / ((1 + nu) * (1 - 2*nu))
}

// WaveSpeed returns the speed of longitudinal elastic waves c = √((λ+2μ)/ρ) (m/s) at rest
// density rho (kg/m³).
func (m *Material) WaveSpeed(rho float64) float64 { return math.Sqrt((m.Lambda + 2*m.Mu) / rho) }

// StableCourant is the constant C of the explicit step limit Δt ≤ C·s/c (s the particle
// spacing, c = WaveSpeed). The method's own limit, measured (docs/elastoplastic.md, "Time
// step"): the elastic squash of TestElasticSqueezeReturns comes back within 0.3-0.9 % of its
// extents at C = 0.5-0.9, 6.4 % too wide at 0.95 and 1.0 (the tests allow 2 %) and blows up at
// 1.1; in the world, the elastic box of TestElastoplasticBoxDropKeepsOrRecoversItsShape is
// stable at 0.9 and blows up at 1.0. C = 0.6 stays a factor of 1.5 below both.
// TestStabilityLimit asserts the margin: at C and at 1.5C the elastic and the plastic squash
// stay within the squash tests' bounds, and at 2C the elastic one blows up.
const StableCourant = 0.6

// StableDt returns the largest step for which the explicit elastic forces are stable,
// StableCourant·spacing/WaveSpeed(rho) (s).
func (m *Material) StableDt(spacing, rho float64) float64 {
	return StableCourant * spacing / m.WaveSpeed(rho)
}

// Stats describes one Step: how many particles each guard of §4.4 held back (their F was
// not updated), how many flowed plastically, and the extreme singular values of F.
type Stats struct {
	FewNeighbors, IllConditioned, Inverted int
	Yielded                                int
	MinSigma, MaxSigma                     float64
}

// Body is the elastoplastic state of one body: F and the accumulated plastic strain α per
// particle, the positions of the previous step (the start of the next fit) and the scratch of
// one step.
type Body struct {
	n    int
	h    float64
	mass float64 // particle mass m (kg)
	vol  float64 // particle rest volume v (m³), Eq. 4.10
	mat  Material
	solC float64 // c of Eq. 4.13
	piH2 float64 // (π/(2h))²: the kernel's derivative is −c·cos(ρπ/(2h)) = −c·vec.CosQuarterSq(ρ²·piH2)
	// noCorrection leaves out the gradient correction (correct): the ablation that shows
	// what it is for.
	noCorrection bool

	f       []mat3    // elastic deformation gradient F per particle (Eq. 4.8)
	alpha   []float64 // accumulated plastic strain
	xPrev   []Vec3
	hasPrev bool
	// dtPrev is the time between xPrev and the positions of the next Step: the Δt of the
	// last Step, which the caller then integrated over (plus any time it let pass without a
	// Step, see Elapse). The zero-mode damping divides the residual motion over that
	// interval by it.
	dtPrev float64

	// Scratch of one step.
	m    []mat3 // U diag(F̂ ⊙ P̂) Vᵀ of Eq. 4.10, times the correction C_i⁻¹ (correct)
	finv []mat3 // F⁻¹ = V diag(1/F̂) Uᵀ of Eq. 4.11
	// hfinc is half the step's fitted affine map F_i of Eq. 4.6 (I where the fit was
	// rejected): the zero-mode damping needs ½(F_i + F_j) = ½F_i + ½F_j, the same bits, since
	// halving is exact.
	hfinc []mat3
	grid  physics.Grid
	nb    physics.Neighbors // the body's own search (Step); StepWith takes the caller's
	kr    physics.Kernel
	// The step's pairs in one compressed row list, each row sorted by neighbour index (see
	// setPairs): row i is entries pStart[i]:pStart[i+1], neighbour pJ, and pT the entry of
	// the same pair in row pJ (the transposed entry, (j, i)).
	pStart, pJ, pT, cursor []int32
	// rows[blk] holds, for the row of the particle that block blk is working on, the scalar
	// s_ij = W'(|u|)/|u| of the Solenthaler kernel at u = F_i⁻¹(y_i − y_j) (0 outside the
	// support) and u, computed once per ordered pair for the gradient correction and particle
	// i's term of Eq. 4.10 (a row's scratch, not a list over all pairs: it is read only while
	// row i is worked on, so it stays in cache); pa holds, per entry, that term,
	// M_i ∇W(F_i⁻¹(y_i − y_j)) (pairTerms), which pass 2 (pairBlock) reads for both particles
	// of the pair and replaces by the pair's velocity changes, which pass 3 (sumBlock) adds up.
	rows []rowScratch
	pa   []Vec3
	part [][5]float64 // per block: few, ill, inverted, yielded counts; unused slot kept zero
	pmin []float64
	pmax []float64

	// Arguments of the block loops in flight (method values made once: a Step allocates
	// nothing).
	x, v                    []Vec3
	dt                      float64
	fnDeform, fnPair, fnSum func(lo, hi, blk int)
}

// New makes a body of n particles of mass `mass` (kg) and rest volume vol (m³) each, with
// kernel support radius h (m) for both the fit (Eq. 4.7) and the forces (Eq. 4.12). F starts
// at I: the configuration of the first Step is the body's rest shape.
func New(n int, mass, vol, h float64, mat Material) (*Body, error) {
	if err := mat.Validate(); err != nil {
		return nil, err
	}
	if n < MinNeighbors+1 {
		return nil, fmt.Errorf("elastoplastic: a body of %d particles cannot fit an affine motion; it needs at least %d (%d neighbours per particle, ch. 4 §4.4)", n, MinNeighbors+1, MinNeighbors)
	}
	if !(mass > 0) || !(vol > 0) || !(h > 0) || math.IsInf(mass+vol+h, 0) {
		return nil, fmt.Errorf("elastoplastic: mass %g kg, volume %g m³ and support radius %g m must be finite and > 0", mass, vol, h)
	}
	b := &Body{n: n, h: h, mass: mass, vol: vol, mat: mat}
	b.solC = math.Pi / (8 * h * h * h * h * (math.Pi/3 - 8/math.Pi + 16/(math.Pi*math.Pi)))
	b.piH2 = (math.Pi / (2 * h)) * (math.Pi / (2 * h))
	b.f = make([]mat3, n)
	b.alpha = make([]float64, n)
	for i := range b.f {
		b.f[i] = identity()
	}
	b.xPrev = make([]Vec3, n)
	b.m = make([]mat3, n)
	b.finv = make([]mat3, n)
	b.hfinc = make([]mat3, n)
	nb := par.Blocks(n)
	b.part = make([][5]float64, nb)
	b.rows = make([]rowScratch, nb)
	b.pStart, b.cursor = make([]int32, n+1), make([]int32, n)
	b.pmin, b.pmax = make([]float64, nb), make([]float64, nb)
	b.kr = physics.NewKernel(physics.CubicSpline, h)
	b.fnDeform, b.fnPair, b.fnSum = b.deformBlock, b.pairBlock, b.sumBlock
	return b, nil
}

// Elapse records that the caller let d seconds pass without a Step (it integrated the
// particles without the elastoplastic forces), so the next Step's fit and zero-mode damping
// span the whole interval since the last Step.
func (b *Body) Elapse(d float64) { b.dtPrev += d }

// Len returns the number of particles.
func (b *Body) Len() int { return b.n }

// SetMaterial changes the constitutive parameters (they may change between steps).
func (b *Body) SetMaterial(mat Material) error {
	if err := mat.Validate(); err != nil {
		return err
	}
	b.mat = mat
	return nil
}

// F returns the elastic deformation gradient of particle i (row-major).
func (b *Body) F(i int) [9]float64 { return b.f[i] }

// Step advances the elastic state to the positions x and adds the elastic accelerations to
// v: v_i += Δt f_i/m. It runs three passes:
//
//  1. (deformBlock) the fit of the motion since the last Step into F (Eq. 4.1-4.8) with the
//     guards of §4.4, the SVD, plastic flow and the diagonal stress (Eq. 4.9), and each
//     ordered pair's term of Eq. 4.10;
//  2. (pairBlock) per pair, the averaged force of Eq. 4.10-4.13 from those terms and the
//     zero-mode damping, as the two particles' velocity changes;
//  3. (sumBlock) per particle, the sum of its pairs' velocity changes.
//
// The neighbours are all particles of the body within h of the present positions (its own
// search), so the pairs are symmetric. The first Step has no previous positions: F stays as
// it is.
func (b *Body) Step(x, v []Vec3, dt float64, pool *par.Pool) (Stats, error) {
	if len(x) != b.n || len(v) != b.n {
		return Stats{}, fmt.Errorf("elastoplastic: %d positions and %d velocities for %d particles", len(x), len(v), b.n)
	}
	if err := b.grid.Build(x, b.h, pool); err != nil {
		return Stats{}, fmt.Errorf("elastoplastic: %w", err)
	}
	b.nb.SkipW = true // the zero-mode damping evaluates W_ij itself (pairBlock)
	physics.Search(&b.grid, x, &b.grid, b.grid.SelfAdjacent(), &b.kr, true, &b.nb, pool)
	return b.StepWith(x, v, dt, &b.nb, pool)
}

// StepWith is Step with the caller's neighbour lists instead of the body's own search, so a
// world that has already searched its particles does not search the body's again. nb must
// hold, for every particle i of the body (rows Lo+k of its blocks, in the body's indices),
// every other particle of the body within the support radius h of x_i; the order within a row
// does not matter, and kernel values are not read (the lists may be searched with SkipW).
// Lists that are not symmetric are an error.
func (b *Body) StepWith(x, v []Vec3, dt float64, nb *physics.Neighbors, pool *par.Pool) (Stats, error) {
	if len(x) != b.n || len(v) != b.n {
		return Stats{}, fmt.Errorf("elastoplastic: %d positions and %d velocities for %d particles", len(x), len(v), b.n)
	}
	if err := b.setPairs(nb); err != nil {
		return Stats{}, err
	}
	b.x, b.v, b.dt = x, v, dt
	pool.For(b.n, b.fnDeform)
	pool.For(b.n, b.fnPair)
	pool.For(b.n, b.fnSum)
	b.x, b.v = nil, nil
	copy(b.xPrev, x)
	b.hasPrev = true
	b.dtPrev = dt
	var st Stats
	st.MinSigma, st.MaxSigma = math.Inf(1), math.Inf(-1)
	for k := range b.part {
		st.FewNeighbors += int(b.part[k][0])
		st.IllConditioned += int(b.part[k][1])
		st.Inverted += int(b.part[k][2])
		st.Yielded += int(b.part[k][3])
		st.MinSigma = min(st.MinSigma, b.pmin[k])
		st.MaxSigma = max(st.MaxSigma, b.pmax[k])
	}
	return st, nil
}

// setPairs copies the neighbour lists nb into the compressed rows pStart/pJ, each row
// sorted by neighbour index, and finds every entry's transposed entry pT, so that pass 2 reads
// a pair's other term instead of evaluating it again. Both are one serial sweep over the
// pairs, and deterministic: row i's length is its count in nb; then, for i in increasing
// order, every neighbour j of i in nb gets i appended to its row, which leaves each row
// sorted; for a symmetric nb the rows hold the same pairs as nb. Then, again for i in
// increasing order, entry (i, j) finds (j, i) as the next unclaimed entry of row j: row j is
// sorted, so its entries are claimed in the order of i.
func (b *Body) setPairs(nb *physics.Neighbors) error {
	if nb.N != b.n {
		return fmt.Errorf("elastoplastic: neighbour lists of %d points for %d particles", nb.N, b.n)
	}
	start := b.pStart
	start[0] = 0
	for k := range nb.Blocks {
		blk := &nb.Blocks[k]
		for r := 0; r+1 < len(blk.Start); r++ {
			start[blk.Lo+r+1] = blk.Start[r+1] - blk.Start[r]
		}
	}
	for i := 0; i < b.n; i++ {
		start[i+1] += start[i]
	}
	total := int(start[b.n])
	// Room for three more entries: vec.PairForces reads the indices of a row four at a time.
	b.pJ, b.pT = par.Grow(b.pJ, total+3)[:total], par.Grow(b.pT, total+3)[:total]
	b.pa = par.Grow(b.pa, total)
	cur := b.cursor
	clear(cur)
	asym := func(i, j int32) error {
		return fmt.Errorf("elastoplastic: neighbour lists are not symmetric (particle %d lists %d, but not the other way round)", i, j)
	}
	for k := range nb.Blocks {
		blk := &nb.Blocks[k]
		for r := 0; r+1 < len(blk.Start); r++ {
			i := int32(blk.Lo + r)
			for e := blk.Start[r]; e < blk.Start[r+1]; e++ {
				j := blk.J[e]
				if j < 0 || int(j) >= b.n || j == i {
					return fmt.Errorf("elastoplastic: particle %d lists neighbour %d (of %d particles)", i, j, b.n)
				}
				p := start[j] + cur[j]
				if p >= start[j+1] {
					return asym(i, j)
				}
				b.pJ[p] = i
				cur[j]++
			}
		}
	}
	clear(cur)
	for i := int32(0); int(i) < b.n; i++ {
		for e := start[i]; e < start[i+1]; e++ {
			j := b.pJ[e]
			p := start[j] + cur[j]
			if p >= start[j+1] || b.pJ[p] != i {
				return asym(i, j)
			}
			b.pT[e] = p
			cur[j]++
		}
	}
	return nil
}

// fit returns the affine map F_i of Eq. 4.6 that carries the neighbourhood of particle i
// from x to y: with the columns of X and Y (Eq. 4.2-4.3) the offsets x_j − x_i and y_j − y_i,
// each multiplied by the poly6 weight W(|x_j − x_i|) of Eq. 4.7, the normal equations (Eq. 4.5)
// give F = (Y Xᵀ)(X Xᵀ)⁻¹. The poly6 normalisation 315/(64πh⁹) multiplies both factors' squared
// columns alike and cancels, so it is left out. ok is false when a guard of §4.4 rejects
// the fit: reason 0 for fewer than MinNeighbors neighbours with a positive weight, 1 for an
// ill-conditioned XXᵀ.
func fit(i int, nbr []int32, x, y []Vec3, h float64) (f mat3, ok bool, reason int) {
	// a = XXᵀ and c = YXᵀ, the sums in four lanes (vec.FitSums, vector assembly where the
	// processor has it).
	sum, cnt := vec.FitSums(nbr, x, y, &x[i], &y[i], h*h)
	if cnt < MinNeighbors {
		return f, false, 0
	}
	a := mat3{sum[0], sum[1], sum[2], sum[1], sum[3], sum[4], sum[2], sum[4], sum[5]}
	c := mat3(sum[6:15])
	inv, ok := symInverse(&a, MinMomentRatio)
	if !ok {
		lam, v := physics.SymEigen3(&a)
		lmax := max(lam[0], lam[1], lam[2])
		lmin := min(lam[0], lam[1], lam[2])
		if !(lmin > MinMomentRatio*lmax) {
			return f, false, 1
		}
		// (XXᵀ)⁻¹ = V diag(1/λ) Vᵀ, then F = (YXᵀ)(XXᵀ)⁻¹.
		inv = udvt(&v, [3]float64{1 / lam[0], 1 / lam[1], 1 / lam[2]}, &v)
	}
	return mul(&c, &inv), true, 0
}

// symInverse returns the inverse of the symmetric positive semi-definite matrix a by its
// adjugate, adj(a)/det(a), when det(a) > ratio·tr(a)³; ok is false otherwise (and for a
// non-finite or non-positive trace). The test is a sufficient condition for every eigenvalue
// to exceed ratio times the largest, without the eigenvalues: with λ₁ ≤ λ₂ ≤ λ₃ ≥ 0,
// λ₁ = det/(λ₂λ₃) ≥ det/λ₃², and λ₃ ≤ tr, so λ₁/λ₃ ≥ det/λ₃³ ≥ det/tr³ > ratio. A well-shaped
// neighbourhood (det/tr³ is 1/27 for an isotropic one) passes and skips the Jacobi
// eigen-solve, which the fit and the gradient correction otherwise needed for every particle
// and substep; a flatter one falls back to it, so the guards decide exactly as before.
func symInverse(a *mat3, ratio float64) (inv mat3, ok bool) {
	tr := a[0] + a[4] + a[8]
	if !(tr > 0) || math.IsInf(tr, 1) {
		return inv, false
	}
	c0 := a[4]*a[8] - a[5]*a[7]
	c1 := a[5]*a[6] - a[3]*a[8]
	c2 := a[3]*a[7] - a[4]*a[6]
	d := a[0]*c0 + a[1]*c1 + a[2]*c2
	if !(d > ratio*tr*tr*tr) {
		return inv, false
	}
	id := 1 / d
	inv = mat3{
		c0 * id, (a[2]*a[7] - a[1]*a[8]) * id, (a[1]*a[5] - a[2]*a[4]) * id,
		c1 * id, (a[0]*a[8] - a[2]*a[6]) * id, (a[2]*a[3] - a[0]*a[5]) * id,
		c2 * id, (a[1]*a[6] - a[0]*a[7]) * id, (a[0]*a[4] - a[1]*a[3]) * id,
	}
	return inv, true
}

// deformBlock is pass 1 of Step for particles [lo, hi). It takes the particles four at a
// time: their fits, then the four SVDs at once (Decompose4, the same result as one at a time),
// then the rest of each particle's update.
func (b *Body) deformBlock(lo, hi, blk int) {
	var cnt [5]float64
	smin, smax := math.Inf(1), math.Inf(-1)
	for i0 := lo; i0 < hi; i0 += 4 {
		nl := min(4, hi-i0)
		// For each particle of the group: the matrix to decompose (the fitted update of F, or
		// F itself), and whether the fit was rejected (detached) or not made (no previous step).
		var fs [4]mat3
		var fitted, detached [4]bool
		for l := range fs {
			fs[l] = identity()
			if l >= nl {
				continue
			}
			i := i0 + l
			fi := b.f[i]
			fs[l] = fi
			b.hfinc[i] = halfIdentity
			if !b.hasPrev {
				continue
			}
			finc, ok, reason := fit(i, b.pJ[b.pStart[i]:b.pStart[i+1]], b.xPrev, b.x, b.h)
			if ok {
				for k := range finc {
					b.hfinc[i][k] = 0.5 * finc[k]
				}
				fs[l] = mul(&finc, &fi)
				fitted[l] = true
			} else {
				cnt[reason]++
				detached[l] = true
			}
		}
		var ss [4]SVD3
		Decompose4(&fs, &ss)
		for l := 0; l < nl; l++ {
			i := i0 + l
			s := &ss[l]
			// §4.4: no update that leaves a singular value ≤ 0 (an inverted or collapsed
			// neighbourhood); with Irving's convention only σ₃ can be.
			if fitted[l] && !(s.S[2] > 0) {
				cnt[2]++
				*s = Decompose(&b.f[i])
				fs[l] = b.f[i]
			}
			// The new F is the decomposed matrix itself unless plastic flow changed its
			// singular values (U Σ Vᵀ would give it back only to round-off).
			if plasticFlow(&s.S, &b.alpha[i], &b.mat, b.dt) {
				cnt[3]++
				b.f[i] = udvt(&s.U, s.S, &s.V)
			} else {
				b.f[i] = fs[l]
			}
			p := stress(s.S, b.mat.Mu, b.mat.Lambda)
			b.m[i] = udvt(&s.U, [3]float64{s.S[0] * p[0], s.S[1] * p[1], s.S[2] * p[2]}, &s.V)
			// F⁻¹ = V diag(1/σ) Uᵀ: the arguments swap roles in udvt.
			b.finv[i] = udvt(&s.V, [3]float64{1 / s.S[0], 1 / s.S[1], 1 / s.S[2]}, &s.U)
			e0, e1 := b.pStart[i], b.pStart[i+1]
			c := b.pairScalars(i, b.pJ[e0:e1], &b.rows[blk])
			if detached[l] {
				b.m[i] = mat3{}
			} else if !b.noCorrection {
				b.correct(i, &c)
			}
			b.pairTerms(i, &b.rows[blk], b.pa[e0:e1])
			smin = min(smin, s.S[2])
			smax = max(smax, s.S[0])
		}
	}
	b.part[blk] = cnt
	b.pmin[blk], b.pmax[blk] = smin, smax
}

// stress returns the diagonal stress of Eq. 4.9, P̂ = 2μ(F̂ − I) + λ tr(F̂ − I) I (Irving et
// al. 2004's corotated linear model on the diagonalised F).
func stress(s [3]float64, mu, lambda float64) [3]float64 {
	tr := lambda * (s[0] - 1 + s[1] - 1 + s[2] - 1)
	return [3]float64{2*mu*(s[0]-1) + tr, 2*mu*(s[1]-1) + tr, 2*mu*(s[2]-1) + tr}
}

// rowScratch is one block's scratch for the row it works on (Body.rows).
type rowScratch struct {
	s, u0, u1, u2 []float64 // per entry: s_ij and the components of u (pairScalars)
	args          vec.PairArgs
	forces        vec.ForceArgs // pairBlock's
}

// pairScalars fills r.s[n] with s_ij = W'(|u|)/|u| and r.u0-u2[n] with u = F_i⁻¹(y_i − y_j),
// for the neighbours j = nbr[n] of particle i (s_ij = 0 where u is outside the support or
// zero), so ∇W(u) = s_ij u (pairTerms reads u instead of forming it again), and returns the
// gradient correction's matrix C_i = v Σ_j |W'(|u_j|)|/|u_j| u_j u_jᵀ (see correct), summed in
// the same sweep over the pairs (vec.PairScalars: W'(ρ) = −c cos(ρπ/(2h)) below, and the
// weight v|W'|/ρ = −v s_ij since W' ≤ 0 inside the support).
func (b *Body) pairScalars(i int, nbr []int32, r *rowScratch) mat3 {
	up := (len(nbr) + 3) &^ 3 // vec.PairScalars writes whole groups of four
	r.s, r.u0 = par.Grow(r.s, up)[:len(nbr)], par.Grow(r.u0, up)[:len(nbr)]
	r.u1, r.u2 = par.Grow(r.u1, up)[:len(nbr)], par.Grow(r.u2, up)[:len(nbr)]
	a := &r.args
	a.A, a.Xi, a.H = b.finv[i], b.x[i], b.h
	a.NegSolC, a.PiH2, a.NegVol = -b.solC, b.piH2, -b.vol
	c := vec.PairScalars(nbr, b.x, r.s, r.u0, r.u1, r.u2, a)
	return mat3{c[0], c[1], c[2], c[1], c[3], c[4], c[2], c[4], c[5]}
}

// pairTerms sets pa[n] to particle i's term of Eq. 4.10 for its neighbour j = nbr[n],
// M_i ∇W(u) = M_i (s_ij u) with the scalars and u of pairScalars (r) and M_i as corrected
// (correct). The Solenthaler kernel of Eq. 4.12-4.13 with support h,
// W(ρ) = c(2h/π)(cos((ρ+h)π/(2h)) + 1), has dW/dρ = −c sin((ρ+h)π/(2h)) = −c cos(ρπ/(2h))
// for 0 ≤ ρ < h (evaluated by vec.CosQuarterSq), and ∇W(q) = W'(|q|) q/|q|.
func (b *Body) pairTerms(i int, r *rowScratch, pa []Vec3) {
	vec.PairTerms(r.s, r.u0, r.u1, r.u2, &b.m[i], pa)
}

// dampFactor returns ε v/Δt_prev, the factor of the zero-mode damping's velocity change, or
// 0 when it is off or there is no previous step. The residual r_ij is the motion over the
// interval since xPrev, so r/dtPrev is a velocity; dividing by the present Δt instead would
// damp by ε·dtPrev/Δt, more than the whole residual after a substep much shorter than the last
// one (as a fast particle makes the CFL step).
func (b *Body) dampFactor() float64 {
	if b.hasPrev && b.dtPrev > 0 {
		return b.mat.ZeroModeDamping * b.vol / b.dtPrev
	}
	return 0
}

// pairBlock is pass 2 of Step for the pairs (i, j), j > i, of the particles i in [lo, hi): it
// replaces the two stored terms of each pair (pass 1's pa, in the entry e of (i, j) and its
// transposed entry pT[e] of (j, i)) by the pair's velocity changes, g_ij for i in e and
// g_ji = −g_ij for j in pT[e]. Each pair's two entries are read and written by this pair
// alone, so the blocks work side by side; sumBlock then adds each row up.
//
// The force: Eq. 4.10-4.11 give the force particle i exerts on j as
// f_ij = −2 v_i v_j U_i F̂_i P̂_i V_iᵀ d_ij with d_ij the kernel gradient at the offset between
// the two taken back to i's reference space by F_i⁻¹. (Eq. 4.11 as printed reads
// F⁻¹(y_i − y_i); it is read as d_ij = ∇W(F_i⁻¹(y_i − y_j)), the sign under which a stretched
// body contracts.) The chapter averages f_ij and f_ji into equal and opposite forces: particle
// i receives ½(f_ji − f_ij) = v_i v_j [M_i ∇W(F_i⁻¹(y_i − y_j)) − M_j ∇W(F_j⁻¹(y_j − y_i))],
// the difference of the two stored terms, times Δt/m for the velocity. M_i is stored with the
// gradient correction applied (correct), which makes the sum of the torques vanish.
//
// The zero-mode damping (when on, dampFactor ≠ 0) adds ε v/Δt_prev · q_ij r_ij with the pair's
// scalar q_ij = W_ij (h_ij·r_ij)/|r_ij|², r_ij = y_i − y_j and h_ij = y_j − y_i −
// ½(F_i + F_j)(x_j − x_i) the non-affine residual of the step's motion of the pair (see
// Material.ZeroModeDamping), and W_ij the cubic spline of support h at |r_ij|, rounded to
// float32 as a neighbour search stores it. Swapping i and j negates both h and r, so
// q_ji = q_ij and the term is along the pair, equal and opposite.
//
// g_ji is the exact negation of g_ij, so the sum of all velocity changes, times m, vanishes to
// the round-off of the accumulation per particle (linear momentum), whatever the order.
func (b *Body) pairBlock(lo, hi, blk int) {
	x, xp, fc := b.x, b.xPrev, b.hfinc
	start, pj, pt, pa := b.pStart, b.pJ, b.pT, b.pa
	k := b.vol * b.vol * b.dt / b.mass
	damp := b.dampFactor()
	if damp == 0 {
		for i := lo; i < hi; i++ {
			for e := start[i]; e < start[i+1]; e++ {
				if int(pj[e]) < i {
					continue
				}
				p := pt[e]
				a, c := &pa[e], &pa[p]
				g0, g1, g2 := k*(a[0]-c[0]), k*(a[1]-c[1]), k*(a[2]-c[2])
				pa[e], pa[p] = Vec3{g0, g1, g2}, Vec3{-g0, -g1, -g2}
			}
		}
		return
	}
	// With the damping, the pairs j > i of each row (the end of the row, which is sorted) go
	// to vec.PairForces, four at a time in vector assembly where the processor has it.
	args := &b.rows[blk].forces
	args.K, args.Damp = k, damp
	args.InvH, args.W = b.kr.Consts()
	for i := lo; i < hi; i++ {
		e, e1 := start[i], start[i+1]
		for e < e1 && int(pj[e]) < i {
			e++
		}
		args.HFi, args.Xi, args.XPi = fc[i], x[i], xp[i]
		vec.PairForces(pj[e:e1], pt[e:e1], int(e), pa, x, xp, fc, args)
	}
}

// sumBlock is pass 3 of Step for particles [lo, hi): v_i += Σ_j g_ij over row i (pairBlock),
// in the row's order (by neighbour index), so the result does not depend on the workers.
func (b *Body) sumBlock(lo, hi, blk int) {
	v, start, pa := b.v, b.pStart, b.pa
	for i := lo; i < hi; i++ {
		var g0, g1, g2 float64
		for _, g := range pa[start[i]:start[i+1]] {
			g0 += g[0]
			g1 += g[1]
			g2 += g[2]
		}
		v[i][0] += g0
		v[i][1] += g1
		v[i][2] += g2
	}
}

// correctionCutoff is the smallest eigenvalue of C_i, relative to its largest, that the
// gradient correction inverts (correct); smaller ones are left out of the pseudo-inverse.
const correctionCutoff = 1e-8

// correct multiplies M_i by C_i⁻¹ (C_i from pairScalars): the kernel-gradient correction of
// J. Bonet and T.-S. L. Lok, "Variational and momentum preservation aspects of Smooth Particle
// Hydrodynamic formulations" (CMAME 180, 1999) applied to the force of Eq. 4.10, which is what makes it conserve angular momentum exactly.
//
// With τ_i = F_i S_i F_iᵀ (S_i = V P̂ Vᵀ, so M_i = U F̂ P̂ Vᵀ = F_i S_i = τ_i F_i⁻ᵀ) the term of
// particle i in Eq. 4.10 is τ_i q_ij with q_ij = F_i⁻ᵀ ∇W(F_i⁻¹ r_ij), r_ij = y_i − y_j. The
// total torque of the averaged pair forces is Σ_i Σ_j r_ij × τ_i q_ij, which vanishes for a
// symmetric τ_i exactly when Σ_j q_ij ⊗ r_ij is a multiple of I; Bonet and Lok's corrected
// gradient L_i q_ij with L_i = (v Σ_j q_ij ⊗ (y_j − y_i))⁻¹ makes it −I/v, the consistent
// gradient of a linear field. Writing u_j = F_i⁻¹ r_ij, q_ij ⊗ r_ij = F_i⁻ᵀ (W'/|u|) u uᵀ F_iᵀ,
// so L_i = F_i⁻ᵀ C_i⁻¹ F_iᵀ with C_i = v Σ_j |W'(|u_j|)|/|u_j| u_j u_jᵀ (symmetric, positive
// semi-definite, in the reference space), and the corrected term is τ_i L_i q_ij =
// M_i C_i⁻¹ ∇W(u_j): M_i is simply multiplied by C_i⁻¹. The inverse is the pseudo-inverse
// over eigenvalues above 1e-8 of the largest (a flat neighbourhood's missing direction carries
// no information; the guards already keep F from updating there).
func (b *Body) correct(i int, c *mat3) {
	ci, ok := symInverse(c, correctionCutoff)
	if !ok {
		lam, v := physics.SymEigen3(c)
		lmax := max(lam[0], lam[1], lam[2])
		var inv [3]float64
		for k := range lam {
			if lam[k] > correctionCutoff*lmax {
				inv[k] = 1 / lam[k]
			}
		}
		ci = udvt(&v, inv, &v)
	}
	b.m[i] = mul(&b.m[i], &ci)
}
