package components

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics/flip"
)

// FlipLiquid is the grid and the numerics of a FLIP liquid body: the mass-full FLIP with
// unilateral incompressibility of Gerszewski's dissertation, chapter 3 (package physics/flip).
// The liquid lives in the box [gridMin, gridMax] rounded up to whole cells of cellSize; the
// box's faces are its closed walls, and the world's solid walls inside it (boxes, closed
// meshes) are its obstacles (Eq. 3.13). Its density is the body material's density and its
// gravity the solver's.
type FlipLiquid struct {
	GridMin           mgl64.Vec3 `json:"gridMin" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"lower corner of the liquid's grid box, whose faces are its closed walls"`
	GridMax           mgl64.Vec3 `json:"gridMax" unit:"m" default:"[1,1,1]" range:"[-1e6,1e6]" doc:"upper corner of the grid box; the box is extended up to whole cells"`
	CellSize          float64    `json:"cellSize" unit:"m" default:"0.05" range:"(0,1000]" doc:"MAC grid spacing h; at least 2 cells per axis, and the grid's memory (bytesPerCell·cells) must stay within maxGridMemory"`
	ParticlesPerAxis  int        `json:"particlesPerAxis" default:"2" range:"[1,4]" doc:"particles seeded per cell and axis (mass-full FLIP, §3.2): a full cell holds the cube (8 for 2), each particle has mass density·h³/n³"`
	Unilateral        bool       `json:"unilateral" default:"true" doc:"true: the unilateral incompressibility LCP (Eq. 3.3-3.7, MPRGP; liquid separates from walls and itself); false: ordinary bilateral incompressible FLIP solved by PCG (§3.4's comparison)"`
	DensityCorrection bool       `json:"densityCorrection" default:"true" doc:"the position-based density correction LCP of §3.1 (Eq. 3.9) before the velocity solve; unilateral only"`
	FLIPRatio         float64    `json:"flipRatio" unit:"1" default:"0.95" range:"[0,1]" doc:"PIC/FLIP blend α of the particle velocity update (§3.2.3): 0 PIC, 1 FLIP"`
	MassThreshold     float64    `json:"massThreshold" unit:"1" default:"0.1" range:"(0,0.999]" doc:"cell density, as a fraction of the density, below which a cell is air (§3.2.1)"`
	Tolerance         float64    `json:"tolerance" unit:"1" default:"0.0001" range:"(0,0.1]" doc:"solver stop: ∞-norm of the projected gradient (MPRGP) or residual (PCG), a density error per cell as a fraction of the density"`
	MaxIterations     int        `json:"maxIterations" default:"1000" range:"[1,1000000]" doc:"most matrix products of one MPRGP or PCG solve"`
	Sweeps            int        `json:"extrapolationSweeps" default:"4" range:"[1,64]" doc:"sweeps of the velocity extrapolation into air (§3.2.2), one face layer each"`
	CFL               float64    `json:"cfl" unit:"1" default:"1" range:"(0,5]" doc:"the liquid's own step limit: a particle moves at most cfl cells per FLIP step (speed + √(|g|·h)); a world substep longer than that is split into equal FLIP steps"`
	Multigrid         bool       `json:"multigrid" default:"false" doc:"precondition the solves' conjugate-gradient steps with an aggregation multigrid V-cycle (fewer products, nearly flat as the grid grows, each about twice the cost); false: MIC(0), the chapter's §3.3"`
	PrecExpansion     bool       `json:"preconditionedExpansion" default:"false" doc:"MPRGP's expansion steps move along the preconditioned free gradient when that lowers the energy (pays with multigrid); false: always Dostál's fixed-length projected gradient step (the chapter's), whose count grows with the grid"`
	Jitter            float64    `json:"jitter" unit:"1" default:"0" range:"[0,1]" doc:"seeded particles are displaced by up to this fraction of their sub-cell spacing (fixed-seed, deterministic)"`
	MaxGridMemory     float64    `json:"maxGridMemory" unit:"B" default:"4294967296" range:"(0,1e15]" doc:"grid memory the body may allocate; a finer grid is refused before anything is allocated"`
}

// DefaultFlipLiquid returns the declared defaults.
func DefaultFlipLiquid() FlipLiquid {
	var f FlipLiquid
	params.Defaults(&f)
	return f
}

// Dims returns the cells per axis: the grid box divided by the cell size, rounded up.
func (f *FlipLiquid) Dims() [3]int {
	var n [3]int
	for d := 0; d < 3; d++ {
		n[d] = int(math.Ceil((f.GridMax[d]-f.GridMin[d])/f.CellSize - 1e-9))
	}
	return n
}

// Validate checks the ranges, the grid box and the cell count, naming the key; the grid's
// memory is checked against maxGridMemory here, before anything is allocated.
func (f *FlipLiquid) Validate(path string) error {
	if err := params.Validate(f, path); err != nil {
		return err
	}
	for d := 0; d < 3; d++ {
		if !(f.GridMax[d] > f.GridMin[d]) {
			return &params.Error{Path: pathJoin(path, fmt.Sprintf("gridMax[%d]", d)), Msg: fmt.Sprintf("%g m must exceed gridMin[%d] = %g m", f.GridMax[d], d, f.GridMin[d])}
		}
		if cells := (f.GridMax[d] - f.GridMin[d]) / f.CellSize; cells < 2-1e-9 {
			return &params.Error{Path: pathJoin(path, "cellSize"), Msg: fmt.Sprintf("%g m leaves %.3g cells along axis %d of the grid box; at least 2 are needed", f.CellSize, cells, d)}
		} else if cells > 1e7 {
			return &params.Error{Path: pathJoin(path, "cellSize"), Msg: fmt.Sprintf("%g m gives %.3g cells along axis %d, more than 1e7", f.CellSize, cells, d)}
		}
	}
	n := f.Dims()
	need := float64(n[0]) * float64(n[1]) * float64(n[2]) * flip.BytesPerCell
	if need > f.MaxGridMemory {
		return &params.Error{Path: pathJoin(path, "cellSize"), Msg: fmt.Sprintf("%g m gives a %d×%d×%d grid that needs %.3g bytes, more than maxGridMemory = %.3g bytes", f.CellSize, n[0], n[1], n[2], need, f.MaxGridMemory)}
	}
	return nil
}

// Params returns the physics/flip parameters of a liquid of the given density (kg/m³) under
// gravity g (m/s²).
func (f *FlipLiquid) Params(density float64, g mgl64.Vec3) flip.Params {
	return flip.Params{
		CellSize: f.CellSize, Origin: f.GridMin, Dims: f.Dims(), MaxGridBytes: int64(f.MaxGridMemory),
		Density: density, ParticlesPerAxis: f.ParticlesPerAxis, Jitter: f.Jitter, Gravity: g,
		Unilateral: f.Unilateral, DensityCorrection: f.DensityCorrection, FLIPRatio: f.FLIPRatio,
		MassThreshold: f.MassThreshold, Tolerance: f.Tolerance, MaxIterations: f.MaxIterations,
		ExtrapolationSweeps: f.Sweeps, CFL: f.CFL, Multigrid: f.Multigrid, PreconditionedExpansion: f.PrecExpansion,
	}
}
