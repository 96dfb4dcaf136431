package reduced

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics/par"
)

// FeedbackMode selects how the panels' velocity is fed back into the reduced coefficients
// (§5.3.4).
type FeedbackMode int

const (
	// FeedbackGalerkin projects the panels' velocity onto the basis exactly, without the grid:
	// by Green's identity ⟨u_p, b_k⟩ = ∫ ω_p ψ_k dA = Σ_i γ_i ∫_panel i ψ_k ds, because the
	// modes' stream functions ψ_k vanish on the walls and the panels' vorticity inside the
	// domain is the vortex sheets themselves (images lie outside it and add a potential flow,
	// orthogonal to every mode). The integrals along straight panels have closed forms, so the
	// cost is O(panels × modes). This goes beyond the dissertation (which sums u_p on the grid,
	// naively or by the quadtree) and is the default.
	FeedbackGalerkin FeedbackMode = iota
	// FeedbackQuadtree evaluates each panel at quadtree node centres where the precomputed
	// error bound of Eq. 5.19 is below Config.FeedbackError, and descends otherwise.
	FeedbackQuadtree
	// FeedbackNaive evaluates every panel at every grid sample (the O(panels × samples)
	// reference).
	FeedbackNaive
	// FeedbackOff skips the feedback (panel strengths then have no effect on the reduced
	// state).
	FeedbackOff
)

func (m FeedbackMode) String() string {
	switch m {
	case FeedbackGalerkin:
		return "galerkin"
	case FeedbackQuadtree:
		return "quadtree"
	case FeedbackNaive:
		return "naive"
	case FeedbackOff:
		return "off"
	}
	return fmt.Sprintf("FeedbackMode(%d)", int(m))
}

// Config declares a reduced fluid domain. Each parameter has its unit, default (from
// DefaultConfig) and accepted range; New checks every one and names the first that is out of
// range.
type Config struct {
	// Width and Height of the rectangular domain [0,Width]×[0,Height] (m). Default 1 × 1;
	// range (0, 1e6].
	Width, Height float64
	// CellsX, CellsY: cells of the staggered background grid (§5.1). Default 64 × 64; range
	// [4, 1024]. The ambient eigenmodes have wave numbers up to CellsX/2 and CellsY/2, so the
	// grid quadrature integrates products of them exactly.
	CellsX, CellsY int
	// Modes: number r of closed-form Laplacian eigenmodes in the basis, the r of smallest
	// eigenvalue (§5.1). Default 64; range [1, (CellsX/2)·(CellsY/2)] and at most MaxModes.
	Modes int
	// Viscosity ν (m²/s) of Eq. 5.1; each eigenmode decays as exp(−νλt). Default 0 (inviscid);
	// range [0, 10].
	Viscosity float64
	// TaylorOrder p: terms of the Taylor series of the exponential in Eq. 5.9. Default 4; range
	// [1, 16]. Energy drifts at global order 2⌊p/2⌋+1 in the step (see advanceFluid).
	TaylorOrder int
	// Density ρ of the fluid (kg/m³, per unit depth in 2D) in Eq. 5.20 and 5.22. Default 1.2
	// (air); range (0, 1e5].
	Density float64
	// Gravity g (m/s²), acting along −y on the bodies and in the buoyancy of Eq. 5.22. Default
	// 9.81; range [0, 1000].
	Gravity float64
	// PanelEpsilon ε of Eq. 5.11 (m): keeps the logarithm finite at a panel's end points. It
	// shifts the flux through a panel by about γε ln(A/ε)/(2π), so it is kept far below the
	// panel length. Default 1e-12; range [0, 0.01·min(cell size)].
	PanelEpsilon float64
	// Feedback selects the panel→reduced feedback of §5.3.4. Default FeedbackGalerkin.
	Feedback FeedbackMode
	// FeedbackError: the quadtree's error threshold (m/s): a panel is evaluated once at a
	// node's centre for all the node's samples when the precomputed bound of Eq. 5.19 times the
	// panel's circulation is below it. Default 1e-3; range [0, 1e3] (0 evaluates every sample).
	FeedbackError float64
	// LeafCells: the quadtree's largest leaf, in cells per side (§5.3.4 uses 4). Default 4;
	// range [1, 64].
	LeafCells int
	// CouplingIterations: the most fixed-point sweeps of the multi-body iteration (Eq. 5.17).
	// Default 50; range [1, 10000].
	CouplingIterations int
	// CouplingTolerance: the sweeps stop when the largest change of a panel strength is at most
	// this fraction of the largest strength. Default 1e-10; range (0, 1).
	CouplingTolerance float64
	// Images enables the method of images at the domain walls (§5.3.3). Default true.
	Images bool
	// WallError: a body is mirrored across a wall when the dipole estimate (R/d)² of the
	// relative normal flow its panels induce on that wall exceeds this fraction (R: the body's
	// bounding radius, d: its centre's distance to the wall). Default 0.01; range [0, 1].
	WallError float64
	// Workers: goroutines of the parallel loops (0: GOMAXPROCS). Results do not depend on it.
	// Range [0, 1024].
	Workers int
	// Enrich: user-authored or data-driven velocity fields added to the basis (§5.2,
	// Eq. 5.10). Default none; at most MaxEnrich.
	Enrich []Field
}

// MaxModes bounds Config.Modes: the dense per-step matrices are Modes² and the Taylor step
// costs p·Modes² (a few hundred modes is already beyond the method's interactive use).
const MaxModes = 1024

// MaxEnrich bounds the number of enrichment fields.
const MaxEnrich = 16

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{
		Width: 1, Height: 1, CellsX: 64, CellsY: 64, Modes: 64, Viscosity: 0, TaylorOrder: 4,
		Density: 1.2, Gravity: 9.81, PanelEpsilon: 1e-12, Feedback: FeedbackGalerkin,
		FeedbackError: 1e-3, LeafCells: 4, CouplingIterations: 50, CouplingTolerance: 1e-10,
		Images: true, WallError: 0.01,
	}
}

func rangeErr(field string, v any, lo, hi any) error {
	return fmt.Errorf("reduced: Config.%s = %v is out of range [%v, %v]", field, v, lo, hi)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks every field against its documented range.
func (c *Config) Validate() error {
	if !finite(c.Width) || c.Width <= 0 || c.Width > 1e6 {
		return fmt.Errorf("reduced: Config.Width = %v m is out of range (0, 1e6]", c.Width)
	}
	if !finite(c.Height) || c.Height <= 0 || c.Height > 1e6 {
		return fmt.Errorf("reduced: Config.Height = %v m is out of range (0, 1e6]", c.Height)
	}
	if c.CellsX < 4 || c.CellsX > 1024 {
		return rangeErr("CellsX", c.CellsX, 4, 1024)
	}
	if c.CellsY < 4 || c.CellsY > 1024 {
		return rangeErr("CellsY", c.CellsY, 4, 1024)
	}
	amb := (c.CellsX / 2) * (c.CellsY / 2)
	if hi := min(amb, MaxModes); c.Modes < 1 || c.Modes > hi {
		return fmt.Errorf("reduced: Config.Modes = %d is out of range [1, %d] (the grid's %d ambient eigenmodes, at most MaxModes = %d)", c.Modes, hi, amb, MaxModes)
	}
	if !finite(c.Viscosity) || c.Viscosity < 0 || c.Viscosity > 10 {
		return fmt.Errorf("reduced: Config.Viscosity = %v m²/s is out of range [0, 10]", c.Viscosity)
	}
	if c.TaylorOrder < 1 || c.TaylorOrder > 16 {
		return rangeErr("TaylorOrder", c.TaylorOrder, 1, 16)
	}
	if !finite(c.Density) || c.Density <= 0 || c.Density > 1e5 {
		return fmt.Errorf("reduced: Config.Density = %v kg/m³ is out of range (0, 1e5]", c.Density)
	}
	if !finite(c.Gravity) || c.Gravity < 0 || c.Gravity > 1000 {
		return fmt.Errorf("reduced: Config.Gravity = %v m/s² is out of range [0, 1000]", c.Gravity)
	}
	h := min(c.Width/float64(c.CellsX), c.Height/float64(c.CellsY))
	if !finite(c.PanelEpsilon) || c.PanelEpsilon < 0 || c.PanelEpsilon > 0.01*h {
		return fmt.Errorf("reduced: Config.PanelEpsilon = %v m is out of range [0, %g] (0.01 cell)", c.PanelEpsilon, 0.01*h)
	}
	if c.Feedback < FeedbackGalerkin || c.Feedback > FeedbackOff {
		return fmt.Errorf("reduced: Config.Feedback = %d is not one of FeedbackGalerkin (0), FeedbackQuadtree (1), FeedbackNaive (2), FeedbackOff (3)", int(c.Feedback))
	}
	if !finite(c.FeedbackError) || c.FeedbackError < 0 || c.FeedbackError > 1e3 {
		return fmt.Errorf("reduced: Config.FeedbackError = %v m/s is out of range [0, 1e3]", c.FeedbackError)
	}
	if c.LeafCells < 1 || c.LeafCells > 64 {
		return rangeErr("LeafCells", c.LeafCells, 1, 64)
	}
	if c.CouplingIterations < 1 || c.CouplingIterations > 10000 {
		return rangeErr("CouplingIterations", c.CouplingIterations, 1, 10000)
	}
	if !finite(c.CouplingTolerance) || c.CouplingTolerance <= 0 || c.CouplingTolerance >= 1 {
		return fmt.Errorf("reduced: Config.CouplingTolerance = %v is out of range (0, 1)", c.CouplingTolerance)
	}
	if !finite(c.WallError) || c.WallError < 0 || c.WallError > 1 {
		return rangeErr("WallError", c.WallError, 0, 1)
	}
	if c.Workers < 0 || c.Workers > 1024 {
		return rangeErr("Workers", c.Workers, 0, 1024)
	}
	if len(c.Enrich) > MaxEnrich {
		return fmt.Errorf("reduced: Config.Enrich has %d fields, out of range [0, %d]", len(c.Enrich), MaxEnrich)
	}
	for i, f := range c.Enrich {
		if err := f.validate(c); err != nil {
			return fmt.Errorf("reduced: Config.Enrich[%d]: %w", i, err)
		}
	}
	return nil
}

// Domain is a reduced fluid in a rectangle, two-way coupled with planar rigid bodies. A Domain
// must not be used by two goroutines at once (its methods share scratch buffers); its parallel
// loops run on its own worker pool.
type Domain struct {
	cfg Config
	am  ambient
	g   *grid
	b   *basis

	r    []float64 // reduced coefficients r̃ (Eq. 5.3)
	time float64
	step int64

	pool   *par.Pool
	bodies []*Body
	cp     coupling
	fb     feedback
	timing Timing

	// scratch
	mat, term, next, acc []float64
	q, pa                []float64
	tr                   trig
	ug, vg               []float64
	enriched             []int // per Config.Enrich field, the number of modes it added after deflation
}

// New builds the basis (eigenmodes, then enrichment), precomputes the reduced operators and
// returns a domain at rest.
func New(cfg Config) (*Domain, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Domain{cfg: cfg}
	d.am = ambient{lx: cfg.Width, ly: cfg.Height, kx: cfg.CellsX / 2, ky: cfg.CellsY / 2}
	d.g = newGrid(&d.am, cfg.CellsX, cfg.CellsY)
	d.b = newBasis(&d.am, d.g, cfg.Modes)
	if len(cfg.Enrich) > 0 {
		added, err := d.b.enrich(cfg.Enrich)
		if err != nil {
			return nil, err
		}
		d.enriched = added
	}
	d.b.finish()
	n := d.b.n
	d.r = make([]float64, n)
	d.mat = make([]float64, n*n)
	d.term, d.next, d.acc = make([]float64, n), make([]float64, n), make([]float64, n)
	d.q = make([]float64, len(d.b.active))
	d.pa = make([]float64, len(d.b.active))
	d.tr = d.b.newTrig()
	d.ug, d.vg = make([]float64, d.g.nu()), make([]float64, d.g.nv())
	d.pool = par.NewPool(cfg.Workers)
	return d, nil
}

// Close stops the worker goroutines.
func (d *Domain) Close() { d.pool.Close() }

// Config returns the domain's configuration.
func (d *Domain) Config() Config { return d.cfg }

// Modes returns the basis size r (eigenmodes plus enriched modes).
func (d *Domain) Modes() int { return d.b.n }

// EnrichedModes returns, per Config.Enrich field in order, how many modes it added.
func (d *Domain) EnrichedModes() []int { return append([]int(nil), d.enriched...) }

// Time returns the simulated time (s).
func (d *Domain) Time() float64 { return d.time }

// Coefficients copies the reduced coefficients into dst (grown as needed) and returns it.
func (d *Domain) Coefficients(dst []float64) []float64 {
	dst = par.Grow(dst, len(d.r))
	copy(dst, d.r)
	return dst
}

// SetCoefficients sets the reduced coefficients; len(r) must equal Modes().
func (d *Domain) SetCoefficients(r []float64) error {
	if len(r) != len(d.r) {
		return fmt.Errorf("reduced: SetCoefficients got %d coefficients, the basis has %d", len(r), len(d.r))
	}
	for i, x := range r {
		if !finite(x) {
			return fmt.Errorf("reduced: SetCoefficients: coefficient %d = %v is not finite", i, x)
		}
	}
	copy(d.r, r)
	return nil
}

// Eigenvalue returns λ of basis mode k (∇²b_k = −λ b_k) for an eigenmode, or the Rayleigh
// quotient −D̃_kk for an enriched mode.
func (d *Domain) Eigenvalue(k int) float64 { return -d.b.dtil[k*d.b.n+k] }

// ReducedVelocityAt returns the reduced velocity u_r = Σ r_k b_k at (x, y) (m/s).
func (d *Domain) ReducedVelocityAt(x, y float64) (u, v float64) {
	d.b.ambientCoefficients(d.q, d.r)
	return d.b.velocity(d.q, x, y, d.tr)
}

// ModeVelocityAt returns basis mode k's velocity at (x, y).
func (d *Domain) ModeVelocityAt(k int, x, y float64) (u, v float64) {
	na := len(d.b.active)
	return d.b.velocity(d.b.coef[k*na:(k+1)*na], x, y, d.tr)
}

// GridVelocity reconstructs the reduced velocity on the staggered grid: ug holds the
// (CellsX+1)·CellsY u samples at (i·hx, (j+½)·hy), index i·CellsY+j, and vg the
// CellsX·(CellsY+1) v samples at ((i+½)·hx, j·hy), index i·(CellsY+1)+j. Slices are grown as
// needed and returned.
func (d *Domain) GridVelocity(ug, vg []float64) ([]float64, []float64) {
	ug, vg = par.Grow(ug, d.g.nu()), par.Grow(vg, d.g.nv())
	d.b.ambientCoefficients(d.q, d.r)
	d.b.reconstruct(ug, vg, d.q)
	return ug, vg
}

// ProjectGrid returns the reduced coefficients Bᵀu (Eq. 5.3) of a field given on the staggered
// grid in GridVelocity's layout.
func (d *Domain) ProjectGrid(dst, ug, vg []float64) ([]float64, error) {
	if len(ug) != d.g.nu() || len(vg) != d.g.nv() {
		return nil, fmt.Errorf("reduced: ProjectGrid needs %d u and %d v samples, got %d and %d", d.g.nu(), d.g.nv(), len(ug), len(vg))
	}
	dst = par.Grow(dst, d.b.n)
	d.b.project(d.pa, ug, vg)
	d.b.reduce(dst, d.pa)
	return dst, nil
}

// AdvanceFluid advances only the reduced fluid by dt (Eq. 5.9), without bodies.
func (d *Domain) AdvanceFluid(dt float64) error {
	if !finite(dt) || dt <= 0 {
		return fmt.Errorf("reduced: dt = %v s must be finite and > 0", dt)
	}
	d.advanceFluid(dt)
	d.time += dt
	d.step++
	return nil
}

// Project returns the reduced coefficients f̃ = Bᵀf of a field (Eq. 5.3/5.4) on the grid's
// quadrature: a velocity to excite, or an external force density to apply with AddScaled.
func (d *Domain) Project(f Field) ([]float64, error) {
	if err := f.validate(&d.cfg); err != nil {
		return nil, fmt.Errorf("reduced: Project: %w", err)
	}
	f.sample(d.g, d.ug, d.vg)
	out := make([]float64, d.b.n)
	d.b.project(d.pa, d.ug, d.vg)
	d.b.reduce(out, d.pa)
	return out, nil
}

// AddScaled adds s·f̃ to the reduced coefficients (Eq. 5.5): with f̃ from Project of a force
// density (m/s²) and s = Δt it applies the force for one step; with f̃ the projection of a
// velocity and s = 1 it adds that velocity.
func (d *Domain) AddScaled(f []float64, s float64) error {
	if len(f) != len(d.r) {
		return fmt.Errorf("reduced: AddScaled got %d coefficients, the basis has %d", len(f), len(d.r))
	}
	if !finite(s) {
		return fmt.Errorf("reduced: AddScaled scale %v is not finite", s)
	}
	for k, x := range f {
		d.r[k] += s * x
	}
	return nil
}
