package flip

import (
	"fmt"
	"math"
)

// Params are the parameters of one FLIP liquid. Every field lists its unit, default (see
// DefaultParams) and accepted range; New validates them once.
type Params struct {
	// CellSize is the grid spacing h (m). Default 0.05; > 0. With Dims it fixes the box.
	CellSize float64
	// Origin is the lower corner of the simulated box (m). Default (0, 0, 0).
	Origin Vec3
	// Dims is the number of cells per axis. Default 32×32×32; each ≥ 2, and the grid's memory
	// (about 0.5 kB per cell) must stay within MaxGridBytes.
	Dims [3]int
	// MaxGridBytes is the grid memory New may allocate (bytes). Default 4 GiB; > 0.
	MaxGridBytes int64
	// Density is the liquid's rest density ρ_f of Eq. 3.13 (kg/m³). Default 1000 (water);
	// in [1, 1e5].
	Density float64
	// ParticlesPerAxis is the number of particles seeded per cell along each axis: a full
	// cell holds its cube (8 for the default 2), and every particle has mass
	// Density·h³/ParticlesPerAxis³ (mass-full FLIP, §3.2). In [1, 4].
	ParticlesPerAxis int
	// Jitter displaces seeded particles by up to this fraction of their sub-cell spacing,
	// from a fixed-seed generator (deterministic). Default 0 (a regular lattice); in [0, 1].
	Jitter float64
	// Gravity is the body acceleration applied on the grid (m/s²). Default (0, −9.81, 0).
	Gravity Vec3
	// Unilateral selects the unilateral incompressibility LCP of Eq. 3.3-3.7 solved by MPRGP
	// (true, the chapter's method) or the ordinary bilateral incompressible solve, A p = −b
	// with particle-occupied ("box filter") liquid cells, solved by PCG (false, the chapter's
	// comparison in §3.4). Default true.
	Unilateral bool
	// DensityCorrection enables the position-based density correction LCP (§3.1, Eq. 3.9;
	// Narain et al. 2010) before the velocity solve. Unilateral only. Default true.
	DensityCorrection bool
	// FLIPRatio blends the particle velocity update (§3.2.3): 0 is PIC (the interpolated grid
	// velocity), 1 is FLIP (the particle velocity plus the interpolated grid change).
	// Default 0.95; in [0, 1].
	FLIPRatio float64
	// MassThreshold is the cell density, as a fraction of Density, below which a cell is air
	// and not part of the solve (§3.2.1); it also bounds the face density Eq. 3.8 divides by.
	// Default 0.1; in (0, 0.999].
	MassThreshold float64
	// Tolerance is the solver stop: the ∞-norm of the projected gradient of the LCP (MPRGP)
	// or of the residual (PCG), a density error per cell, as a fraction of Density.
	// Default 1e-4; in (0, 0.1].
	Tolerance float64
	// MaxIterations caps the matrix products of one solve. Default 1000; in [1, 1e6].
	MaxIterations int
	// ExtrapolationSweeps is the number of sweeps of the velocity extrapolation of §3.2.2
	// (each reaches one more face layer beyond the liquid). Default 4; in [1, 64].
	ExtrapolationSweeps int
	// Multigrid selects the preconditioner of both solves' conjugate-gradient steps: an
	// aggregation multigrid V-cycle (true; mg.go), whose iterations stay nearly flat as the
	// grid grows, or MIC(0) (false; Bridson §5.2, the chapter's §3.3), whose iterations grow
	// with the grid but cost about half as much each. Default false (docs/flip.md, Scaling:
	// up to 10⁶ particles MIC(0) is the faster in CPU time).
	Multigrid bool
	// PreconditionedExpansion lets MPRGP's expansion step move along the preconditioned free
	// gradient when that lowers the energy (MPRGP.PreconditionedExpansion), instead of always
	// taking Dostál's fixed-length projected gradient step, whose number grows with the
	// grid. Default false (it pays with the multigrid, whose direction reaches across the
	// face; with MIC(0) it saves little).
	PreconditionedExpansion bool
	// CFL is the step limit of Advance: a particle moves at most CFL cells per step
	// (speed + √(|g|·h) bounds its velocity). Default 1; in (0, 5].
	CFL float64
}

// DefaultParams returns the defaults listed on Params.
func DefaultParams() Params {
	return Params{
		CellSize:            0.05,
		Dims:                [3]int{32, 32, 32},
		MaxGridBytes:        4 << 30,
		Density:             1000,
		ParticlesPerAxis:    2,
		Gravity:             Vec3{0, -9.81, 0},
		Unilateral:          true,
		DensityCorrection:   true,
		FLIPRatio:           0.95,
		MassThreshold:       0.1,
		Tolerance:           1e-4,
		MaxIterations:       1000,
		ExtrapolationSweeps: 4,
		CFL:                 1,
	}
}

func checkRange(name string, v, lo, hi float64, loOpen bool) error {
	if math.IsNaN(v) || v > hi || v < lo || (loOpen && v == lo) {
		open := "["
		if loOpen {
			open = "("
		}
		return fmt.Errorf("flip: %s = %g outside %s%g, %g]", name, v, open, lo, hi)
	}
	return nil
}

// validate checks every field against its range.
func (p *Params) validate() error {
	if p.MaxGridBytes <= 0 {
		return fmt.Errorf("flip: MaxGridBytes = %d must be positive", p.MaxGridBytes)
	}
	if p.ParticlesPerAxis < 1 || p.ParticlesPerAxis > 4 {
		return fmt.Errorf("flip: ParticlesPerAxis = %d outside [1, 4]", p.ParticlesPerAxis)
	}
	if p.MaxIterations < 1 || p.MaxIterations > 1_000_000 {
		return fmt.Errorf("flip: MaxIterations = %d outside [1, 1000000]", p.MaxIterations)
	}
	if p.ExtrapolationSweeps < 1 || p.ExtrapolationSweeps > 64 {
		return fmt.Errorf("flip: ExtrapolationSweeps = %d outside [1, 64]", p.ExtrapolationSweeps)
	}
	for d := 0; d < 3; d++ {
		if math.IsNaN(p.Gravity[d]) || math.Abs(p.Gravity[d]) > 1e4 {
			return fmt.Errorf("flip: Gravity[%d] = %g outside [−1e4, 1e4] m/s²", d, p.Gravity[d])
		}
	}
	checks := []struct {
		name      string
		v, lo, hi float64
		loOpen    bool
	}{
		{"Density", p.Density, 1, 1e5, false},
		{"Jitter", p.Jitter, 0, 1, false},
		{"FLIPRatio", p.FLIPRatio, 0, 1, false},
		{"MassThreshold", p.MassThreshold, 0, 0.999, true},
		{"Tolerance", p.Tolerance, 0, 0.1, true},
		{"CFL", p.CFL, 0, 5, true},
	}
	for _, c := range checks {
		if err := checkRange(c.name, c.v, c.lo, c.hi, c.loOpen); err != nil {
			return err
		}
	}
	return nil
}
