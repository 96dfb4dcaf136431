// Package components is sluice's data model (DESIGN §3): plain structs attached to entities.
// An entity is a body — a fluid block, a static wall — never a single particle; a body's
// particles are struct-of-arrays slices in its Particles component. Every parameter is declared
// once here with its JSON name, SI unit, default, range and doc (see package params).
package components

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/iisph"
)

// Phase says how a body's particles are simulated.
type Phase uint8

const (
	// Fluid particles are simulated by the pressure solver (IISPH).
	Fluid Phase = iota
	// Boundary particles are static wall samples (Akinci et al. 2012); they never move.
	Boundary
)

// String returns the phase name used in stats and exports.
func (p Phase) String() string {
	switch p {
	case Fluid:
		return "fluid"
	case Boundary:
		return "boundary"
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// Body identifies a body. ID orders bodies deterministically (queries are sorted by it).
type Body struct {
	ID    uint32
	Name  string
	Phase Phase
}

// Material is what a body is made of. The fields used depend on Phase.
type Material struct {
	RestDensity float64 `json:"density" unit:"kg/m^3" default:"1000" range:"[1,100000]" doc:"rest density ρ0"`
	Viscosity   float64 `json:"viscosity" unit:"m^2/s" default:"0.01" range:"[0,10]" doc:"kinematic viscosity ν of the Laplacian viscosity force; the default 0.01 (SPlisHSPlasH's dam-break value) damps the sub-resolution noise of coarse (cm-scale) particles, physical water is 1e-6"`
}

// DefaultMaterial is water.
func DefaultMaterial() Material {
	var m Material
	params.Defaults(&m)
	return m
}

// Validate checks the ranges.
func (m *Material) Validate(path string) error { return params.Validate(m, path) }

// Particles holds a body's particles as struct-of-arrays slices; index i is the same particle
// in every slice, and indices stay stable across steps (the solver sorts its own packed copy).
// Boundary bodies use X only.
type Particles struct {
	X        []mgl64.Vec3 // position (m)
	V        []mgl64.Vec3 // velocity (m/s)
	Density  []float64    // SPH density of the last step (kg/m³)
	Pressure []float64    // pressure of the last step (Pa); warm-starts the next solve
}

// Len returns the number of particles.
func (p *Particles) Len() int { return len(p.X) }

// Solver holds the world's solver and time-stepping settings, a resource of the world.
type Solver struct {
	ParticleRadius float64    `json:"particleRadius" unit:"m" default:"0.025" range:"(0,10]" doc:"particle radius r: spacing 2r, kernel support radius 4r"`
	Kernel         string     `json:"kernel" default:"cubic" doc:"smoothing kernel: cubic (cubic spline) or wendland (Wendland C2)"`
	Gravity        mgl64.Vec3 `json:"gravity" unit:"m/s^2" default:"[0,-9.81,0]" range:"[-10000,10000]" doc:"gravitational acceleration, y up"`
	MaxError       float64    `json:"maxError" unit:"1" default:"0.001" range:"[1e-6,0.1]" doc:"IISPH stop criterion η: average density error as a fraction of ρ0 (0.001 = 0.1 %)"`
	MinIterations  int        `json:"minIterations" default:"2" range:"[1,1000]" doc:"minimum pressure iterations per solve (the paper uses 2)"`
	MaxIterations  int        `json:"maxIterations" default:"100" range:"[1,100000]" doc:"maximum pressure iterations per solve"`
	Omega          float64    `json:"omega" unit:"1" default:"0.5" range:"(0,1]" doc:"relaxation factor ω of the relaxed Jacobi iteration (paper: 0.5)"`
	CFL            float64    `json:"cfl" unit:"1" default:"0.4" range:"(0,1]" doc:"CFL factor λ in dt = λ·2r/v_max"`
	DtMin          float64    `json:"dtMin" unit:"s" default:"1e-5" range:"(0,1]" doc:"smallest substep"`
	DtMax          float64    `json:"dtMax" unit:"s" default:"0.005" range:"(0,1]" doc:"largest substep"`
	XSPH           float64    `json:"xsph" unit:"1" default:"0" range:"[0,1]" doc:"XSPH velocity smoothing factor ε (0 = off)"`
	BoundaryLayers int        `json:"boundaryLayers" default:"2" range:"[1,4]" doc:"sample layers of every wall (Akinci 2012 uses one; two keep fast splashes from squeezing through)"`
	SortEvery      int        `json:"sortEvery" default:"32" range:"[1,1000000]" doc:"z-order sort of the particle arrays every k substeps (memory locality)"`
	DomainMin      mgl64.Vec3 `json:"domainMin" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"lower corner of the simulation domain; particles leaving it are removed and reported (domainMin = domainMax = 0: automatic, the bodies' bounds widened by half their size)"`
	DomainMax      mgl64.Vec3 `json:"domainMax" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"upper corner of the simulation domain"`
}

// DefaultSolver returns the declared defaults.
func DefaultSolver() Solver {
	var s Solver
	params.Defaults(&s)
	return s
}

// Validate checks every field's range and the relations between fields.
func (s *Solver) Validate(path string) error {
	if err := params.Validate(s, path); err != nil {
		return err
	}
	if _, err := physics.ParseKernel(s.Kernel); err != nil {
		return &params.Error{Path: pathJoin(path, "kernel"), Msg: err.Error()}
	}
	if s.DtMin > s.DtMax {
		return &params.Error{Path: pathJoin(path, "dtMin"), Msg: fmt.Sprintf("%g s exceeds dtMax %g s", s.DtMin, s.DtMax)}
	}
	if s.MinIterations > s.MaxIterations {
		return &params.Error{Path: pathJoin(path, "minIterations"), Msg: fmt.Sprintf("%d exceeds maxIterations %d", s.MinIterations, s.MaxIterations)}
	}
	auto := s.DomainMin == (mgl64.Vec3{}) && s.DomainMax == (mgl64.Vec3{})
	for d := 0; d < 3 && !auto; d++ {
		if s.DomainMax[d] <= s.DomainMin[d] {
			return &params.Error{Path: pathJoin(path, fmt.Sprintf("domainMax[%d]", d)), Msg: fmt.Sprintf("%g m must exceed domainMin[%d] = %g m", s.DomainMax[d], d, s.DomainMin[d])}
		}
	}
	return nil
}

// IISPH returns the pressure solver's parameters.
func (s *Solver) IISPH() iisph.Params {
	return iisph.Params{MaxError: s.MaxError, MinIterations: s.MinIterations, MaxIterations: s.MaxIterations, Omega: s.Omega}
}

// Spacing is the particle spacing 2r (m).
func (s *Solver) Spacing() float64 { return 2 * s.ParticleRadius }

// SupportRadius is the kernel support radius h = 4r (m), SPlisHSPlasH's convention: about 33
// neighbours per particle in 3D.
func (s *Solver) SupportRadius() float64 { return 4 * s.ParticleRadius }

func pathJoin(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
