package flip

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/sluicephysics/sluice/physics/par"
)

// Totals counts work since the Sim was made (Save/Restore leave it alone).
type Totals struct {
	Steps                int
	SolveIterations      int // matrix products of the velocity solves
	CorrectionIterations int // matrix products of the density corrections
	PowerIterations      int // power iterations of both norm estimates
	Time                 StageTimes
}

// StageTimes is the wall time spent in each stage of Step (Table 3.2's columns). Timings do
// not influence the results.
type StageTimes struct {
	Rasterise   time.Duration // Eq. 3.10-3.12
	Correction  time.Duration // the density correction: assembly, MPRGP, Eq. 3.9
	Solve       time.Duration // gravity, assembly, MPRGP or PCG, Eq. 3.8
	Extrapolate time.Duration // wall velocities and §3.2.2
	Move        time.Duration // particle velocities and advection, §3.2.3-3.2.4
}

// Total returns the sum of the stages.
func (t StageTimes) Total() time.Duration {
	return t.Rasterise + t.Correction + t.Solve + t.Extrapolate + t.Move
}

// Stats describes the last step.
type Stats struct {
	Dt           float64     // step (s)
	Particles    int         // particle count
	LiquidCells  int         // cells in the pressure solve
	Pressurised  int         // system cells with positive pressure (unilateral) or all (bilateral)
	PerCell      float64     // particles per liquid cell
	Solve        MPRGPResult // the velocity (pressure) solve
	Correction   MPRGPResult // the density correction solve (zero when off)
	Norm         float64     // ‖A‖₂ estimate of the velocity solve's matrix (Eq. 3.6; s/m²)
	PowerIts     int         // power iterations spent on Norm (warm-started, §3.1)
	CorrPowerIts int         // power iterations of the correction's norm estimate
}

// Sim is one mass-full FLIP liquid in a box with static obstacles (§3.2-3.3).
type Sim struct {
	p     Params
	g     Grid
	cl    Lattice
	fl    [3]Lattice
	obs   []Obstacle
	pool  *par.Pool
	mp    float64 // particle mass (kg)
	rho0  float64
	rng   *rand.Rand
	src   *rand.PCG
	X, V  []Vec3 // particle positions (m) and velocities (m/s)
	time  float64
	steps int

	// Cells.
	mc, rhoMax, vc []float64 // rasterised mass (kg), capacity ρ_max (kg/m³), volume fraction
	rc             []float64 // cell density ρ_c (kg/m³), after the density correction
	drc            []float64 // the density correction's change of ρ_c (Eq. 3.9)
	count          []int32   // particles per cell (the bilateral solve's box filter)
	solid          []bool    // cell centre inside an obstacle (the bilateral solve's sharp obstacles)
	unk            []int32   // system index of each cell, −1 off the system
	pw, yw, eig    []float64 // per cell: pressure impulse (warm start), pseudo-pressure, eigenvector (warm start)
	eigY           []float64 // eigenvector warm start of the correction's matrix
	// dostalCorrection makes the density correction take Dostál's proportioning step instead
	// of the preconditioned one (BenchmarkFLIPCorrectionProportioning compares the two).
	dostalCorrection bool
	// Faces, per component.
	mf, uf, u0, vf, rf, dx, ext [3][]float64
	mark                        [3][]int32
	// System.
	sys            []int32 // cell of each unknown
	op             *poisson
	solver         MPRGP
	bvec, xvec     []float64
	evec, tmp      []float64
	stats          Stats
	totals         Totals
	fnMove         func(lo, hi, b int)
	fnRaster       func(lo, hi, b int)
	dt             float64
	massThreshRho  float64
	clampLo        Vec3 // the box shrunk by wallGap·h: where clipping keeps particles
	clampHi        Vec3
	particleOffset bool

	// Moving solids (bodies.go): the caller's bodies, their per-step fractions, and the static
	// obstacles' fractions every step starts from (nil until bodies are used).
	bodies []Body
	bstate []bodyState
	vcS    []float64
	vfS    [3][]float64

	// Solid particles (solidparticles.go): the caller's positions, volumes and impulses, and
	// their fractions of the last step on each lattice.
	spX          []Vec3
	spVol        []float64
	spImp        []Vec3
	spOn         bool // the fractions hold particles (undo them first)
	spApply      bool // which half solidBlock runs
	spC          []float64
	spF          [3][]float64
	fnSolid      func(lo, hi, b int)
	fnSolidReact func(lo, hi, b int)
}

// New validates p and obs and allocates the grid. Obstacles are static; their volume
// fractions (Eq. 3.13) are computed here once.
func New(p Params, obs []Obstacle, pool *par.Pool) (*Sim, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if pool == nil {
		return nil, fmt.Errorf("flip: New needs a worker pool (par.NewPool)")
	}
	g, err := newGrid(p.CellSize, p.Origin, p.Dims, p.MaxGridBytes)
	if err != nil {
		return nil, err
	}
	for i := range obs {
		if err := obs[i].validate(i); err != nil {
			return nil, err
		}
	}
	s := &Sim{p: p, g: g, obs: append([]Obstacle(nil), obs...), pool: pool, rho0: p.Density}
	s.src = rand.NewPCG(0x5eed, 14)
	s.rng = rand.New(s.src)
	s.cl = g.Cells()
	nc := s.cl.Len()
	s.mc, s.rhoMax, s.vc, s.rc = make([]float64, nc), make([]float64, nc), make([]float64, nc), make([]float64, nc)
	s.drc = make([]float64, nc)
	s.count, s.unk, s.solid = make([]int32, nc), make([]int32, nc), make([]bool, nc)
	s.pw, s.yw, s.eig, s.eigY = make([]float64, nc), make([]float64, nc), make([]float64, nc), make([]float64, nc)
	for d := 0; d < 3; d++ {
		s.fl[d] = g.Faces(d)
		nf := s.fl[d].Len()
		s.mf[d], s.uf[d], s.u0[d], s.vf[d] = make([]float64, nf), make([]float64, nf), make([]float64, nf), make([]float64, nf)
		s.rf[d], s.dx[d], s.ext[d] = make([]float64, nf), make([]float64, nf), make([]float64, nf)
		s.mark[d] = make([]int32, nf)
	}
	g.fractions(&s.cl, s.obs, s.vc)
	room := false
	for c, v := range s.vc {
		s.rhoMax[c] = p.Density * v
		if v > 0 {
			room = true
		}
	}
	for k := 0; k < g.N[2]; k++ {
		for j := 0; j < g.N[1]; j++ {
			for i := 0; i < g.N[0]; i++ {
				x := Vec3{g.Origin[0] + g.H*(float64(i)+0.5), g.Origin[1] + g.H*(float64(j)+0.5), g.Origin[2] + g.H*(float64(k)+0.5)}
				s.solid[s.cl.Index(i, j, k)] = s.inObstacle(x)
			}
		}
	}
	if !room {
		return nil, fmt.Errorf("flip: the obstacles leave no cell with room for liquid")
	}
	for d := 0; d < 3; d++ {
		g.fractions(&s.fl[d], s.obs, s.vf[d])
		// The box walls are closed: no flux through a face on the boundary.
		l := &s.fl[d]
		for k := 0; k < l.N[2]; k++ {
			for j := 0; j < l.N[1]; j++ {
				for i := 0; i < l.N[0]; i++ {
					ijk := [3]int{i, j, k}
					if ijk[d] == 0 || ijk[d] == l.N[d]-1 {
						s.vf[d][l.Index(i, j, k)] = 0
					}
				}
			}
		}
	}
	n := float64(p.ParticlesPerAxis)
	s.mp = p.Density * g.H * g.H * g.H / (n * n * n)
	s.massThreshRho = p.MassThreshold * p.Density
	s.op = newPoisson(pool)
	s.solver.PreconditionedExpansion = p.PreconditionedExpansion
	if p.Multigrid {
		s.op.mg = newMG(pool)
		s.op.gnx, s.op.gny, s.op.gnz = g.N[0], g.N[1], g.N[2]
	}
	top := g.Max()
	for d := 0; d < 3; d++ {
		s.clampLo[d] = g.Origin[d] + wallGap*g.H
		s.clampHi[d] = top[d] - wallGap*g.H
	}
	s.fnMove = s.moveBlock
	s.fnRaster = s.rasterBlock
	s.fnSolid = s.solidBlock
	s.fnSolidReact = s.solidReactBlock
	return s, nil
}

// Grid returns the grid.
func (s *Sim) Grid() Grid { return s.g }

// ParticleMass returns the mass of every particle (kg).
func (s *Sim) ParticleMass() float64 { return s.mp }

// Stats returns the last step's statistics.
func (s *Sim) Stats() Stats { return s.stats }

// Totals returns the work counters.
func (s *Sim) Totals() Totals { return s.totals }

// Time returns the simulated time (s).
func (s *Sim) Time() float64 { return s.time }

// Params returns the parameters.
func (s *Sim) Params() Params { return s.p }

// inObstacle reports whether x lies inside an obstacle or a moving body (SetBodies).
func (s *Sim) inObstacle(x Vec3) bool {
	for i := range s.obs {
		if d, _ := s.obs[i].distance(x); d < 0 {
			return true
		}
	}
	return len(s.bodies) > 0 && s.inBody(x) >= 0
}

// AddBlock seeds liquid at rest velocity v in the box [lo, hi]: ParticlesPerAxis particles per
// cell and axis on the sub-cell lattice (jittered by Jitter), skipping points outside the box
// or inside obstacles. It returns the number of particles added.
func (s *Sim) AddBlock(lo, hi, v Vec3) (int, error) {
	for d := 0; d < 3; d++ {
		if !(hi[d] > lo[d]) {
			return 0, fmt.Errorf("flip: block max[%d] = %g must exceed min[%d] = %g", d, hi[d], d, lo[d])
		}
		if !physicsFinite(v[d]) {
			return 0, fmt.Errorf("flip: block velocity[%d] = %g must be finite", d, v[d])
		}
	}
	n := s.p.ParticlesPerAxis
	sp := s.g.H / float64(n)
	var first, last [3]int
	for d := 0; d < 3; d++ {
		first[d] = max(0, int(math.Ceil((lo[d]-s.g.Origin[d])/sp-0.5)))
		last[d] = min(s.g.N[d]*n-1, int(math.Floor((hi[d]-s.g.Origin[d])/sp-0.5)))
		if last[d] < first[d] {
			return 0, fmt.Errorf("flip: block [%g, %g] on axis %d holds no particle at spacing %g m inside the box", lo[d], hi[d], d, sp)
		}
	}
	total := (last[0] - first[0] + 1) * (last[1] - first[1] + 1) * (last[2] - first[2] + 1)
	if total > 100_000_000 {
		return 0, fmt.Errorf("flip: block would hold %d particles, more than the limit 100000000", total)
	}
	added := 0
	top := s.g.Max()
	for k := first[2]; k <= last[2]; k++ {
		for j := first[1]; j <= last[1]; j++ {
			for i := first[0]; i <= last[0]; i++ {
				x := Vec3{
					s.g.Origin[0] + sp*(float64(i)+0.5),
					s.g.Origin[1] + sp*(float64(j)+0.5),
					s.g.Origin[2] + sp*(float64(k)+0.5),
				}
				if s.p.Jitter > 0 {
					for d := 0; d < 3; d++ {
						x[d] += s.p.Jitter * sp * (s.rng.Float64() - 0.5)
						x[d] = min(max(x[d], s.g.Origin[d]), top[d])
					}
				}
				if s.inObstacle(x) {
					continue
				}
				s.X = append(s.X, x)
				s.V = append(s.V, v)
				added++
			}
		}
	}
	return added, nil
}

// AddParticles appends particles at positions x with velocities v (mass ParticleMass each).
// Every position must lie inside the box and outside the obstacles, every value be finite;
// nothing is added when one is not.
func (s *Sim) AddParticles(x, v []Vec3) error {
	if len(x) != len(v) {
		return fmt.Errorf("flip: AddParticles: %d positions and %d velocities", len(x), len(v))
	}
	top := s.g.Max()
	for i := range x {
		for d := 0; d < 3; d++ {
			if !physicsFinite(x[i][d]) || !physicsFinite(v[i][d]) {
				return fmt.Errorf("flip: AddParticles: particle %d has position %v, velocity %v: must be finite", i, x[i], v[i])
			}
			if x[i][d] < s.g.Origin[d] || x[i][d] > top[d] {
				return fmt.Errorf("flip: AddParticles: particle %d at %v is outside the box [%v, %v]", i, x[i], s.g.Origin, top)
			}
		}
		if s.inObstacle(x[i]) {
			return fmt.Errorf("flip: AddParticles: particle %d at %v is inside an obstacle", i, x[i])
		}
	}
	s.X = append(s.X, x...)
	s.V = append(s.V, v...)
	return nil
}

func physicsFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// rasterise accumulates particle mass onto cell centres and mass and momentum onto faces
// with the trilinear filter, Eq. 3.10-3.12, then normalises face velocities (u_f = p_f/m_f)
// and converts masses to densities (ρ = m/h³). Weights of samples beyond the box are dropped
// (the blurred walls, see stencil). The four lattices (cell centres and the three face
// components) are independent scatters and run as four tasks; each runs sequentially in
// particle order, which makes its float sums independent of the worker count.
func (s *Sim) rasterise() {
	s.pool.For(4*par.BlockSize, s.fnRaster)
}

// rasterBlock is one task of rasterise: block 0 the cell centres (mass, particle counts and
// densities), blocks 1-3 the faces of component block−1. The pool's blocks serve as tasks:
// rasterise asks for four blocks' worth of items.
func (s *Sim) rasterBlock(_, _, b int) {
	mp := s.mp
	inv := 1 / (s.g.H * s.g.H * s.g.H)
	if b == 0 {
		clear(s.mc)
		clear(s.count)
		for _, x := range s.X {
			s.scatter(&s.cl, s.mc, nil, x, mp, 0)
			s.count[s.cellOf(x)]++
		}
		for c, m := range s.mc {
			s.rc[c] = m * inv
		}
		return
	}
	d := b - 1
	clear(s.mf[d])
	clear(s.uf[d])
	for pi, x := range s.X {
		s.scatter(&s.fl[d], s.mf[d], s.uf[d], x, mp, mp*s.V[pi][d])
	}
	for f, m := range s.mf[d] {
		if m > 0 {
			s.uf[d][f] /= m
		}
		s.rf[d][f] = m * inv
	}
	copy(s.u0[d], s.uf[d])
}

// scatter adds w·m to mass and w·mom to momentum (if not nil) at the samples of x's stencil;
// samples beyond the lattice are dropped.
func (s *Sim) scatter(l *Lattice, mass, momentum []float64, x Vec3, m, mom float64) {
	st := s.g.makeStencil(l, x)
	nx, ny, nz := l.N[0], l.N[1], l.N[2]
	i0, j0, k0 := st.i0[0], st.i0[1], st.i0[2]
	if i0 >= 0 && i0 < nx-1 && j0 >= 0 && j0 < ny-1 && k0 >= 0 && k0 < nz-1 {
		// Fast path: all eight samples exist.
		for c := 0; c < 2; c++ {
			for b := 0; b < 2; b++ {
				wyz := st.w[2][c] * st.w[1][b]
				o := i0 + nx*(j0+b+ny*(k0+c))
				w0, w1 := wyz*st.w[0][0], wyz*st.w[0][1]
				mass[o] += w0 * m
				mass[o+1] += w1 * m
				if momentum != nil {
					momentum[o] += w0 * mom
					momentum[o+1] += w1 * mom
				}
			}
		}
		return
	}
	for c := 0; c < 2; c++ {
		k := k0 + c
		if k < 0 || k >= nz {
			continue
		}
		for b := 0; b < 2; b++ {
			j := j0 + b
			if j < 0 || j >= ny {
				continue
			}
			wyz := st.w[2][c] * st.w[1][b]
			row := nx * (j + ny*k)
			for a := 0; a < 2; a++ {
				i := i0 + a
				if i < 0 || i >= nx {
					continue
				}
				w := wyz * st.w[0][a]
				mass[row+i] += w * m
				if momentum != nil {
					momentum[row+i] += w * mom
				}
			}
		}
	}
}

// cellOf returns the index of the cell holding x (clamped into the box).
func (s *Sim) cellOf(x Vec3) int {
	var ijk [3]int
	for d := 0; d < 3; d++ {
		ijk[d] = min(max(int(math.Floor((x[d]-s.g.Origin[d])/s.g.H)), 0), s.g.N[d]-1)
	}
	return s.cl.Index(ijk[0], ijk[1], ijk[2])
}

// faceOf returns the face index of cell (i,j,k)'s face in direction dir (0..5: −x, +x, −y,
// +y, −z, +z), and the neighbouring cell index (−1 beyond the box).
func (s *Sim) faceOf(i, j, k, dir int) (face, nbr int) {
	d := dir / 2
	ijk := [3]int{i, j, k}
	f := ijk
	if dir%2 == 1 {
		f[d]++
	}
	face = s.fl[d].Index(f[0], f[1], f[2])
	n := ijk
	if dir%2 == 0 {
		n[d]--
	} else {
		n[d]++
	}
	if n[d] < 0 || n[d] >= s.g.N[d] {
		return face, -1
	}
	return face, s.cl.Index(n[0], n[1], n[2])
}

// buildSystem numbers the system cells (bilateral: cells holding a particle; unilateral:
// cells whose density reaches MassThreshold, §3.2.1; both only where the capacity is
// positive) and assembles the operator of Eq. 3.6 at the given scale.
func (s *Sim) buildSystem(bilateral bool, scale float64) {
	s.sys = s.sys[:0]
	for c := range s.unk {
		in := s.vc[c] > 0
		if bilateral {
			in = !s.solid[c] && s.count[c] > 0
		} else {
			in = in && s.rc[c] >= s.massThreshRho
		}
		if in {
			s.unk[c] = int32(len(s.sys))
			s.sys = append(s.sys, int32(c))
		} else {
			s.unk[c] = -1
		}
	}
	n := len(s.sys)
	o := s.op
	o.resize(n)
	o.scale = scale
	o.cell = s.sys
	ih2 := 1 / (s.g.H * s.g.H)
	nx, ny := s.g.N[0], s.g.N[1]
	for u, c32 := range s.sys {
		c := int(c32)
		i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
		diag := 0.0
		for dir := 0; dir < 6; dir++ {
			f, nb := s.faceOf(i, j, k, dir)
			o.nb[6*u+dir], o.cf[6*u+dir] = -1, 0
			v := s.vf[dir/2][f]
			if nb < 0 || v <= 0 || (bilateral && s.solid[nb]) {
				continue // a closed face: the box wall, fully solid, or (bilateral) a solid cell
			}
			cf := v * ih2
			diag += cf
			if s.unk[nb] >= 0 {
				o.nb[6*u+dir], o.cf[6*u+dir] = s.unk[nb], cf
			}
		}
		o.diag[u] = diag
	}
	s.bvec = par.Grow(s.bvec, n)
	s.xvec = par.Grow(s.xvec, n)
	s.evec = par.Grow(s.evec, n)
	s.tmp = par.Grow(s.tmp, n)
}

// divergence returns Σ_faces ±q_f / h at cell c (outward positive).
func (s *Sim) divergence(q *[3][]float64, c int) float64 {
	nx, ny := s.g.N[0], s.g.N[1]
	i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
	// Face (i,j,k) of component d is the cell's lower face; the upper one is a stride on.
	fx := i + (nx+1)*(j+ny*k)
	fy := i + nx*(j+(ny+1)*k)
	fz := c
	return (q[0][fx+1] - q[0][fx] + q[1][fy+nx] - q[1][fy] + q[2][fz+nx*ny] - q[2][fz]) / s.g.H
}

// solveLCP runs MPRGP on the current system with right-hand side bvec, warm-started from
// the per-cell vector warm (pressure or pseudo-pressure) and the per-cell eigenvector eig.
func (s *Sim) solveLCP(warm, eig []float64) (MPRGPResult, float64, int) {
	for u, c := range s.sys {
		s.xvec[u] = warm[c]
		s.evec[u] = eig[c]
	}
	// The norm estimate by power iteration from the previous step's eigenvector (§3.1),
	// stopped at a 1 % change, reported as Stats.Norm. The expansion's step is ᾱ = 2/G with
	// G = max_i Σ_j |A_ij| the Gershgorin bound: G ≥ ‖A‖₂, so ᾱ ≤ 2/‖A‖₂ lies in MPRGP's
	// (0, 2/‖A‖] (Dostál & Schöberl 2005; Dostál 2009, ch. 5), and for these 7-point stencils
	// G is within 2 % of ‖A‖₂ (TestGershgorinBoundIsNearTheNorm), so ᾱ is close to the
	// interval's upper end. The step 1/λ with the 1 %-stopped power estimate λ (what §3.1's
	// estimate was for) is about half as long: the fixed-length expansion P(x − ᾱφ) moves the
	// active set's boundary a limited distance per expansion, and with the longer step fewer
	// expansions are needed, more so as the grid grows (TestLongExpansionStepCutsExpansions,
	// BenchmarkFLIPScaling in docs/flip.md). Any power estimate is ≤ ‖A‖₂, so it could not
	// give a step this long safely.
	lam, its := PowerNorm(s.op, s.evec, s.tmp, 1e-2, 100)
	gersh := s.op.gershgorin()
	lam = max(lam, 0.5*gersh)
	tol := s.p.Tolerance * s.rho0
	res := MPRGPResult{Converged: true}
	if len(s.sys) > 0 && gersh > 0 {
		res = s.solver.Solve(s.op, s.bvec, s.xvec, 2/gersh, tol, s.p.MaxIterations)
	}
	clear(warm)
	for u, c := range s.sys {
		warm[c] = s.xvec[u]
		eig[c] = s.evec[u]
	}
	return res, lam, its
}

// faceGrad sets out[d][f] = v_f (y₊ − y₋)/h on every face with v_f > 0 between two cells
// (y is per cell; cells off the system count as 0), and 0 elsewhere.
func (s *Sim) faceGrad(y []float64, out *[3][]float64) {
	h := s.g.H
	for d := 0; d < 3; d++ {
		l := &s.fl[d]
		q := out[d]
		stride := [3]int{1, s.g.N[0], s.g.N[0] * s.g.N[1]}[d]
		for k := 0; k < l.N[2]; k++ {
			for j := 0; j < l.N[1]; j++ {
				for i := 0; i < l.N[0]; i++ {
					f := l.Index(i, j, k)
					v := s.vf[d][f]
					ijk := [3]int{i, j, k}
					if v <= 0 || ijk[d] == 0 || ijk[d] == s.g.N[d] {
						q[f] = 0
						continue
					}
					hi := s.cl.Index(i, j, k) // the cell on the + side has the face's index
					lo := hi - stride
					q[f] = v * (y[hi] - y[lo]) / h
				}
			}
		}
	}
}

// densityCorrection is the position-based density correction of §3.1 (Narain et al. 2010):
// the LCP of Eq. 3.3-3.5 with Δt = 1 and b = ρ_max − ρ_c (no velocity term) gives pseudo-
// pressures y ≥ 0; the face flux x = v_f ∇y updates the cell densities by Eq. 3.9,
// ρ_c += ∇·x, the face densities by the mean change of their two cells, and the face
// displacements δx_f = −x_f/ρ_f are applied to the particles before advection. Signs: y is
// positive where a cell is over-full; x points towards it; particles move away from it.
func (s *Sim) densityCorrection() {
	s.buildSystem(false, 1)
	for u, c := range s.sys {
		s.bvec[u] = s.rhoMax[c] - s.rc[int(c)]
	}
	// The pseudo-pressures start from 0: last step's correction has been applied to the
	// particles already, so it is no guess for this one (a warm start from it took 50 % more
	// products in BenchmarkFLIPDamBreak). The norm estimate is still warm-started (§3.1).
	clear(s.yw)
	// From 0 the pressurised region grows by one layer of cells per proportioning step; the
	// preconditioned proportioning step (MPRGP.proportionPreconditioned) solves on each grown
	// face at once and leaves fewer conjugate gradient steps between them
	// (BenchmarkFLIPCorrectionProportioning). The velocity solve keeps Dostál's step: it
	// starts from the last step's pressure, and the step was not measured there.
	s.solver.PreconditionedProportioning = !s.dostalCorrection
	res, _, its := s.solveLCP(s.yw, s.eigY)
	s.solver.PreconditionedProportioning = false
	s.stats.Correction, s.stats.CorrPowerIts = res, its
	s.faceGrad(s.yw, &s.ext)
	// Displacements use the rasterised face density (the divisor of Eq. 3.8, bounded below).
	for d := 0; d < 3; d++ {
		for f, x := range s.ext[d] {
			s.dx[d][f] = -x / max(s.rf[d][f], s.massThreshRho)
		}
	}
	s.wallVelocities(&s.dx)
	s.particleOffset = true
	// Eq. 3.9 on the cells, then the mean change of the two cells beside each inner face on
	// the faces (drc keeps the change per cell).
	for c := range s.rc {
		dr := s.divergence(&s.ext, c)
		s.rc[c] += dr
		s.drc[c] = dr
	}
	for d := 0; d < 3; d++ {
		l := &s.fl[d]
		stride := [3]int{1, s.g.N[0], s.g.N[0] * s.g.N[1]}[d]
		for k := 0; k < l.N[2]; k++ {
			for j := 0; j < l.N[1]; j++ {
				for i := 0; i < l.N[0]; i++ {
					ijk := [3]int{i, j, k}
					if ijk[d] == 0 || ijk[d] == s.g.N[d] {
						continue
					}
					hi := s.cl.Index(i, j, k)
					s.rf[d][l.Index(i, j, k)] += 0.5 * (s.drc[hi] + s.drc[hi-stride])
				}
			}
		}
	}
}

// Step advances the liquid by dt: the six stages of §3.2 (rasterise, external forces, the
// incompressibility solve with the velocity update of Eq. 3.8, extrapolation, particle
// velocity update, advection), with the density correction before the velocity solve.
func (s *Sim) Step(dt float64) error {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("flip: step dt = %g must be positive and finite", dt)
	}
	s.dt = dt
	s.stats = Stats{Dt: dt, Particles: len(s.X)}
	s.particleOffset = false
	t0 := time.Now()
	s.undoSolidParticles()
	s.placeBodies()
	s.applySolidParticles()
	s.rasterise()
	t1 := time.Now()
	if s.p.Unilateral && s.p.DensityCorrection {
		s.densityCorrection()
	}
	t2 := time.Now()
	s.applyForces()
	s.pressureSolve()
	s.bodyReactions()
	s.solidReactions()
	t3 := time.Now()
	s.wallVelocities(&s.uf)
	s.bodyVelocities()
	s.extrapolate()
	t4 := time.Now()
	s.pool.For(len(s.X), s.fnMove)
	t5 := time.Now()
	tm := &s.totals.Time
	tm.Rasterise += t1.Sub(t0)
	tm.Correction += t2.Sub(t1)
	tm.Solve += t3.Sub(t2)
	tm.Extrapolate += t4.Sub(t3)
	tm.Move += t5.Sub(t4)
	s.time += dt
	s.steps++
	s.totals.Steps++
	s.totals.SolveIterations += s.stats.Solve.Iterations
	s.totals.CorrectionIterations += s.stats.Correction.Iterations
	s.totals.PowerIterations += s.stats.PowerIts + s.stats.CorrPowerIts
	return nil
}

// applyForces adds gravity to the face velocities (stage 2 of §3.2) and zeroes the closed
// walls and fully solid faces (v_f = 0).
func (s *Sim) applyForces() {
	for d := 0; d < 3; d++ {
		gd := s.p.Gravity[d] * s.dt
		for f := range s.uf[d] {
			if s.vf[d][f] <= 0 {
				s.uf[d][f] = 0
				continue
			}
			s.uf[d][f] += gd
		}
	}
	if !s.p.Unilateral {
		s.closeSolidFaces()
	}
}

// closeSolidFaces zeroes the velocity on every face of a solid cell: the bilateral solve's
// obstacles are sharp (§3.4: "traditional nonblurred obstacles"), a cell whose centre is
// inside an obstacle is solid and its faces are closed.
func (s *Sim) closeSolidFaces() {
	nx, ny := s.g.N[0], s.g.N[1]
	for c, sol := range s.solid {
		if !sol {
			continue
		}
		i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
		for dir := 0; dir < 6; dir++ {
			f, _ := s.faceOf(i, j, k, dir)
			s.uf[dir/2][f] = 0
		}
	}
}

// pressureSolve assembles and solves the unilateral LCP (Eq. 3.3-3.7, MPRGP) or the
// bilateral system (PCG) and applies the velocity update.
func (s *Sim) pressureSolve() {
	dt := s.dt
	bil := !s.p.Unilateral
	s.buildSystem(bil, dt)
	// Mass flux ρ_f u* (unilateral, Eq. 3.7) or ρ0 v_f u* (bilateral) on every face, in ext.
	for d := 0; d < 3; d++ {
		for f, u := range s.uf[d] {
			if bil {
				s.ext[d][f] = s.rho0 * s.vf[d][f] * u
			} else {
				s.ext[d][f] = s.rf[d][f] * u
			}
		}
	}
	for u, c := range s.sys {
		div := s.divergence(&s.ext, int(c))
		if bil {
			s.bvec[u] = dt * div
		} else {
			s.bvec[u] = s.rhoMax[c] - s.rc[c] + dt*div // Eq. 3.7
		}
	}
	if bil {
		for u, c := range s.sys {
			s.xvec[u] = s.pw[c]
		}
		s.stats.Solve = s.solver.PCG(s.op, s.bvec, s.xvec, s.p.Tolerance*s.rho0, s.p.MaxIterations)
		clear(s.pw)
		for u, c := range s.sys {
			s.pw[c] = s.xvec[u]
		}
	} else {
		s.stats.Solve, s.stats.Norm, s.stats.PowerIts = s.solveLCP(s.pw, s.eig)
	}
	s.stats.LiquidCells = len(s.sys)
	for _, c := range s.sys {
		if s.pw[c] > 0 || bil {
			s.stats.Pressurised++
		}
	}
	if len(s.sys) > 0 {
		s.stats.PerCell = float64(len(s.X)) / float64(len(s.sys))
	}
	// Velocity update: Eq. 3.8, u = u* − v_f ∇p/ρ_f (unilateral; ρ_f bounded below by the
	// air threshold), or u = u* − ∇p/ρ0 (bilateral, Batty et al. 2007).
	s.faceGrad(s.pw, &s.ext)
	for d := 0; d < 3; d++ {
		for f, g := range s.ext[d] {
			if g == 0 {
				continue
			}
			if bil {
				s.uf[d][f] -= g / (s.vf[d][f] * s.rho0)
			} else {
				s.uf[d][f] -= g / max(s.rf[d][f], s.massThreshRho)
			}
		}
	}
	if bil {
		s.closeSolidFaces()
	}
}

// wallVelocities sets the velocity (or the density correction's displacement) on the faces
// that lie on the box walls, which the solve
// treats as closed (no flux), for what particles interpolate: the velocity of the next face
// inside where it points away from the wall, 0 where it points into it. A zero velocity on
// the wall face would be interpolated into every particle within a cell of the wall and hold
// it there, a stickiness that no pressure causes; the box walls are then as free to separate
// from as the blurred obstacles of §3.3 (the solve decides whether the liquid may leave).
func (s *Sim) wallVelocities(q *[3][]float64) {
	for d := 0; d < 3; d++ {
		l := &s.fl[d]
		u := q[d]
		stride := [3]int{1, l.N[0], l.N[0] * l.N[1]}[d]
		last := l.N[d] - 1
		for k := 0; k < l.N[2]; k++ {
			for j := 0; j < l.N[1]; j++ {
				for i := 0; i < l.N[0]; i++ {
					ijk := [3]int{i, j, k}
					f := l.Index(i, j, k)
					switch ijk[d] {
					case 0:
						u[f] = max(u[f+stride], 0)
					case last:
						u[f] = min(u[f-stride], 0)
					}
				}
			}
		}
	}
}

// extrapolate is the velocity extrapolation of §3.2.2: faces that received mass are marked;
// each sweep gives every unmarked face with marked neighbours (the six faces of the same
// component around it) the mean of their velocities and marks it. A sweep reads only marks
// of earlier sweeps, so its result does not depend on the visiting order.
func (s *Sim) extrapolate() {
	for d := 0; d < 3; d++ {
		l := &s.fl[d]
		mark := s.mark[d]
		nx, ny, nz := l.N[0], l.N[1], l.N[2]
		// Mark, and find the box of marked faces: sweep n only visits it grown by n.
		lo, hi := [3]int{nx, ny, nz}, [3]int{-1, -1, -1}
		for k := 0; k < nz; k++ {
			for j := 0; j < ny; j++ {
				row := nx * (j + ny*k)
				for i := 0; i < nx; i++ {
					if s.mf[d][row+i] > 0 {
						mark[row+i] = 0
						lo = [3]int{min(lo[0], i), min(lo[1], j), min(lo[2], k)}
						hi = [3]int{max(hi[0], i), max(hi[1], j), max(hi[2], k)}
					} else {
						mark[row+i] = -1
					}
				}
			}
		}
		if hi[0] < 0 {
			continue
		}
		u := s.uf[d]
		for sweep := int32(1); sweep <= int32(s.p.ExtrapolationSweeps); sweep++ {
			g := int(sweep)
			for k := max(lo[2]-g, 0); k <= min(hi[2]+g, nz-1); k++ {
				for j := max(lo[1]-g, 0); j <= min(hi[1]+g, ny-1); j++ {
					for i := max(lo[0]-g, 0); i <= min(hi[0]+g, nx-1); i++ {
						f := l.Index(i, j, k)
						if mark[f] >= 0 {
							continue
						}
						sum, n := 0.0, 0
						if i > 0 && mark[f-1] >= 0 && mark[f-1] < sweep {
							sum, n = sum+u[f-1], n+1
						}
						if i+1 < nx && mark[f+1] >= 0 && mark[f+1] < sweep {
							sum, n = sum+u[f+1], n+1
						}
						if j > 0 && mark[f-nx] >= 0 && mark[f-nx] < sweep {
							sum, n = sum+u[f-nx], n+1
						}
						if j+1 < ny && mark[f+nx] >= 0 && mark[f+nx] < sweep {
							sum, n = sum+u[f+nx], n+1
						}
						if k > 0 && mark[f-nx*ny] >= 0 && mark[f-nx*ny] < sweep {
							sum, n = sum+u[f-nx*ny], n+1
						}
						if k+1 < nz && mark[f+nx*ny] >= 0 && mark[f+nx*ny] < sweep {
							sum, n = sum+u[f+nx*ny], n+1
						}
						if n > 0 && s.vf[d][f] > 0 {
							u[f] = sum / float64(n)
							mark[f] = sweep
						}
					}
				}
			}
		}
	}
}

// velocityAt interpolates the grid velocity field q at x.
func (s *Sim) velocityAt(q *[3][]float64, x Vec3) Vec3 {
	var v Vec3
	for d := 0; d < 3; d++ {
		v[d], _, _ = s.g.interp3(&s.fl[d], q[d], nil, nil, x)
	}
	return v
}

// moveBlock updates and moves the particles of one block: first the particle velocity update
// of §3.2.3, v ← (1−α)·u(x) + α·(v + u(x) − u⁰(x)) with α = FLIPRatio, u the updated grid
// velocity and u⁰ the rasterised one; then the density correction's displacement δx(x)
// (interpolated with the same stencil) and the trapezoidal rule of §3.2.4 through the
// extrapolated grid velocity, every move clipped against the box and the obstacles.
func (s *Sim) moveBlock(lo, hi, _ int) {
	a := s.p.FLIPRatio
	dt := s.dt
	var off Vec3
	for i := lo; i < hi; i++ {
		x := s.X[i]
		v := s.V[i]
		for d := 0; d < 3; d++ {
			var dx []float64
			if s.particleOffset {
				dx = s.dx[d]
			}
			u, u0, o := s.g.interp3(&s.fl[d], s.uf[d], s.u0[d], dx, x)
			v[d] = (1-a)*u + a*(v[d]+u-u0)
			off[d] = o
		}
		s.V[i] = v
		if s.particleOffset {
			x = s.clip(x, x.Add(off))
		}
		u1 := s.velocityAt(&s.uf, x)
		x1 := s.clip(x, Vec3{x[0] + dt*u1[0], x[1] + dt*u1[1], x[2] + dt*u1[2]})
		u2 := s.velocityAt(&s.uf, x1)
		xn := Vec3{x[0] + 0.5*dt*(u1[0]+u2[0]), x[1] + 0.5*dt*(u1[1]+u2[1]), x[2] + 0.5*dt*(u1[2]+u2[2])}
		s.X[i] = s.clip(x, xn)
	}
}

// wallGap keeps clipped particles this fraction of a cell inside the box walls, so that no
// particle sits exactly on a boundary face.
const wallGap = 1e-3

// clip returns the end of the move from → to kept inside the box and outside the obstacles
// (§3.2.4): a particle that ends inside an obstacle is put on its surface (the closest
// point, exact for boxes and spheres), and if that lands outside the box or inside another
// obstacle, bisection along the path finds the last free point. from must be free.
func (s *Sim) clip(from, to Vec3) Vec3 {
	x := s.clampBox(to)
	if !s.inObstacle(x) {
		return x
	}
	moved := false
	for i := range s.obs {
		if d, p := s.obs[i].distance(x); d < 0 {
			// Step a tiny distance beyond the surface along the outward direction.
			dir := p.Sub(x)
			l := math.Sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])
			if l > 0 {
				p = p.Add(dir.Mul(wallGap * s.g.H / l))
			}
			x = s.clampBox(p)
			moved = true
			break
		}
	}
	if k := s.inBodyIf(!moved, x); k >= 0 {
		// a moving body: out along its normal to just beyond its surface
		d, n := s.bodies[k].SDF(x)
		x = s.clampBox(x.Sub(n.Mul(d - wallGap*s.g.H)))
	}
	if !s.inObstacle(x) {
		return x
	}
	lo, hi := 0.0, 1.0
	for it := 0; it < 30; it++ {
		mid := 0.5 * (lo + hi)
		if s.inObstacle(s.clampBox(from.Add(to.Sub(from).Mul(mid)))) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return s.clampBox(from.Add(to.Sub(from).Mul(lo)))
}

func (s *Sim) clampBox(x Vec3) Vec3 {
	for d := 0; d < 3; d++ {
		x[d] = min(max(x[d], s.clampLo[d]), s.clampHi[d])
	}
	return x
}

// MaxSpeed returns the largest particle speed (m/s).
func (s *Sim) MaxSpeed() float64 {
	m := 0.0
	for _, v := range s.V {
		m = max(m, v[0]*v[0]+v[1]*v[1]+v[2]*v[2])
	}
	return math.Sqrt(m)
}

// MaxStep returns the CFL limit of a step, CFL·h/(v_max + √(|g|·h)), with v_max the largest
// particle speed now (s).
func (s *Sim) MaxStep() float64 {
	gl := math.Sqrt(s.p.Gravity[0]*s.p.Gravity[0] + s.p.Gravity[1]*s.p.Gravity[1] + s.p.Gravity[2]*s.p.Gravity[2])
	return s.p.CFL * s.g.H / (s.MaxSpeed() + math.Sqrt(gl*s.g.H) + 1e-12)
}

// CellValues returns the last step's density ρ_c (after the density correction; kg/m³) and
// pressure (Pa) of the cell holding x (clamped into the box).
func (s *Sim) CellValues(x Vec3) (rho, p float64) {
	c := s.cellOf(x)
	if s.dt > 0 {
		p = s.pw[c] / s.dt
	}
	return s.rc[c], p
}

// Advance steps the liquid through duration in equal steps no longer than the CFL limit
// (MaxStep, before each step) and returns the number of steps.
func (s *Sim) Advance(duration float64) (int, error) {
	if !(duration > 0) || math.IsInf(duration, 0) {
		return 0, fmt.Errorf("flip: duration = %g must be positive and finite", duration)
	}
	n := 0
	left := duration
	for left > 0 {
		lim := s.MaxStep()
		k := math.Ceil(left / lim)
		dt := left / k
		if err := s.Step(dt); err != nil {
			return n, err
		}
		n++
		left -= dt
		if left < 1e-12*duration {
			break
		}
	}
	return n, nil
}

// State is a snapshot of a Sim: particles, time and the warm starts (pressures and
// power-iteration vectors), everything that a later step reads.
type State struct {
	X, V      []Vec3
	Pressure  []float64 // pressure impulse per cell (the velocity solve's warm start)
	Eig, EigY []float64 // power-iteration vectors per cell (both solves' norm estimates)
	Time, Dt  float64   // simulated time and the last step
	Steps     int
	RNG       []byte // the seeding generator (Jitter)
}

// Save returns a deep copy of the state.
func (s *Sim) Save() State {
	rngState, _ := s.src.MarshalBinary()
	return State{
		X: append([]Vec3(nil), s.X...), V: append([]Vec3(nil), s.V...),
		Pressure: append([]float64(nil), s.pw...),
		Eig:      append([]float64(nil), s.eig...), EigY: append([]float64(nil), s.eigY...),
		Time: s.time, Dt: s.dt, Steps: s.steps, RNG: rngState,
	}
}

// Restore sets the state from st, which must come from a Sim with the same grid.
func (s *Sim) Restore(st State) error {
	if len(st.Pressure) != len(s.pw) || len(st.Eig) != len(s.eig) || len(st.EigY) != len(s.eigY) {
		return fmt.Errorf("flip: state has %d cells, the grid %d", len(st.Pressure), len(s.pw))
	}
	if len(st.X) != len(st.V) {
		return fmt.Errorf("flip: state has %d positions and %d velocities", len(st.X), len(st.V))
	}
	s.X = append(s.X[:0], st.X...)
	s.V = append(s.V[:0], st.V...)
	copy(s.pw, st.Pressure)
	copy(s.eig, st.Eig)
	copy(s.eigY, st.EigY)
	s.time, s.dt, s.steps = st.Time, st.Dt, st.Steps
	src := rand.NewPCG(0, 0)
	if err := src.UnmarshalBinary(st.RNG); err != nil {
		return fmt.Errorf("flip: state's generator: %v", err)
	}
	s.src, s.rng = src, rand.New(src)
	return nil
}

// Pressure returns the pressure of cell (i,j,k) in the last step (Pa): the solve's unknown is
// the pressure impulse p·Δt of Eq. 3.6-3.8, divided here by the step.
func (s *Sim) Pressure(i, j, k int) float64 {
	if s.dt == 0 {
		return 0
	}
	return s.pw[s.cl.Index(i, j, k)] / s.dt
}

// inBodyIf returns inBody(x) when check is true and there are bodies, else −1.
func (s *Sim) inBodyIf(check bool, x Vec3) int {
	if !check || len(s.bodies) == 0 {
		return -1
	}
	return s.inBody(x)
}
