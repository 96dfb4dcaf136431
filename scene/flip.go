package scene

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics/flip"
)

// FlipBody is a FLIP liquid (Gerszewski's dissertation ch. 3; docs/flip.md): a box of liquid
// seeded on the sub-cell lattice of its own MAC grid, whose box (flip.gridMin, flip.gridMax)
// is its container; the scene's solid walls inside that box are its obstacles.
type FlipBody struct {
	Name     string                `json:"name" required:"true" doc:"unique body name"`
	Min      mgl64.Vec3            `json:"min" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"lower corner of the liquid block"`
	Max      mgl64.Vec3            `json:"max" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"upper corner of the liquid block (inside the grid box)"`
	Velocity mgl64.Vec3            `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity"`
	Liquid   components.FlipLiquid `json:"flip" doc:"the grid box, cell size and solver parameters of the FLIP liquid"`
	Material components.Material   `json:"material" doc:"material; its density is the liquid's (the other keys are not used by a FLIP liquid)"`
}

// validate checks the block, the name (through unique), the liquid's parameters (the grid's
// memory before anything is allocated) and the material, naming the key at path.
func (b *FlipBody) validate(path string, unique func(path, name string) error) error {
	if err := unique(path, b.Name); err != nil {
		return err
	}
	for d := 0; d < 3; d++ {
		if !(b.Max[d] > b.Min[d]) {
			return &params.Error{Path: fmt.Sprintf("%s.max[%d]", path, d), Msg: fmt.Sprintf("%g m must exceed min[%d] = %g m", b.Max[d], d, b.Min[d])}
		}
	}
	if err := b.Liquid.Validate(path + ".flip"); err != nil {
		return err
	}
	return b.Material.Validate(path + ".material")
}

// add creates the FLIP body in w.
func (b *FlipBody) add(w *sluice.World) error {
	_, err := w.AddFlipBlock(b.Name, b.Material, b.Liquid, b.Min, b.Max, b.Velocity)
	return err
}

// flipBytesPerParticle is a FLIP particle's memory: position and velocity in the Sim and in
// the body's Particles (4 vectors of 24 bytes), and the body's mass, density and pressure.
const flipBytesPerParticle = 4*24 + 3*8

// flipMemory returns the bytes the scene's FLIP bodies take: their grids
// (flip.BytesPerCell per cell) and their particles (a full block's count, ParticlesPerAxis³
// per cell of the block).
func (s *Scene) flipMemory() float64 {
	total := 0.0
	for _, b := range s.Flip {
		n := b.Liquid.Dims()
		total += float64(n[0]) * float64(n[1]) * float64(n[2]) * flip.BytesPerCell
		h := b.Liquid.CellSize
		ppc := float64(b.Liquid.ParticlesPerAxis * b.Liquid.ParticlesPerAxis * b.Liquid.ParticlesPerAxis)
		block := 1.0
		for d := 0; d < 3; d++ {
			block *= math.Max(0, b.Max[d]-b.Min[d])
		}
		total += block / (h * h * h) * ppc * flipBytesPerParticle
	}
	return total
}
