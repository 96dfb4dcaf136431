// Package scene reads scene files and writes particle data. A native scene is a JSON file whose
// every key is declared once in Go (see package params): unknown keys, wrong types, missing
// required keys and out-of-range values are errors naming the JSON path and the allowed range.
package scene

import (
	"fmt"
	"os"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
)

// Scene is a native sluice scene file.
type Scene struct {
	Solver     components.Solver `json:"solver" doc:"solver and time-stepping settings"`
	Duration   float64           `json:"duration" unit:"s" default:"2" range:"(0,1000000]" doc:"simulated time; sluice run --duration overrides it"`
	FPS        float64           `json:"fps" unit:"1/s" default:"60" range:"[1,100000]" doc:"frames per simulated second: one World.Step (and one stats line) per frame"`
	Fluids     []FluidBlock      `json:"fluids" required:"true" doc:"fluid blocks"`
	Boundaries []BoundaryBox     `json:"boundaries" doc:"static walls"`
}

// FluidBlock is a box filled with fluid particles at spacing 2r (SPlisHSPlasH's block rule).
type FluidBlock struct {
	Name     string              `json:"name" required:"true" doc:"unique body name"`
	Min      mgl64.Vec3          `json:"min" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"lower corner of the box"`
	Max      mgl64.Vec3          `json:"max" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"upper corner of the box"`
	Velocity mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity"`
	Material components.Material `json:"material" doc:"fluid material"`
}

// BoundaryBox is the surface of a box sampled with boundary particles (Akinci et al. 2012).
type BoundaryBox struct {
	Name string     `json:"name" required:"true" doc:"unique body name"`
	Min  mgl64.Vec3 `json:"min" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"lower corner of the box"`
	Max  mgl64.Vec3 `json:"max" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"upper corner of the box"`
	Tank bool       `json:"tank" default:"true" doc:"true: fluid inside (a tank, sampled outward); false: an obstacle (sampled inward); the layer count is solver.boundaryLayers"`
}

// Default returns a scene holding only the declared defaults.
func Default() Scene {
	var s Scene
	params.Defaults(&s)
	return s
}

// Parse decodes and validates a native scene.
func Parse(data []byte) (*Scene, error) {
	s := Default()
	if err := params.Decode(data, &s, ""); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Load reads and validates a native scene file.
func Load(path string) (*Scene, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Validate checks ranges, box corners and name uniqueness.
func (s *Scene) Validate() error {
	if err := params.Validate(s, ""); err != nil {
		return err
	}
	if err := s.Solver.Validate("solver"); err != nil {
		return err
	}
	if len(s.Fluids) == 0 {
		return &params.Error{Path: "fluids", Msg: "at least one fluid block is required"}
	}
	names := map[string]string{}
	check := func(path, name string, lo, hi mgl64.Vec3) error {
		if name == "" {
			return &params.Error{Path: path + ".name", Msg: "must not be empty"}
		}
		if prev, ok := names[name]; ok {
			return &params.Error{Path: path + ".name", Msg: fmt.Sprintf("%q is used by %s already", name, prev)}
		}
		names[name] = path
		for d := 0; d < 3; d++ {
			if !(hi[d] > lo[d]) {
				return &params.Error{Path: fmt.Sprintf("%s.max[%d]", path, d), Msg: fmt.Sprintf("%g m must exceed min[%d] = %g m", hi[d], d, lo[d])}
			}
		}
		return nil
	}
	for i, f := range s.Fluids {
		if err := check(fmt.Sprintf("fluids[%d]", i), f.Name, f.Min, f.Max); err != nil {
			return err
		}
	}
	for i, b := range s.Boundaries {
		if err := check(fmt.Sprintf("boundaries[%d]", i), b.Name, b.Min, b.Max); err != nil {
			return err
		}
	}
	return nil
}

// Build creates a world holding the scene's bodies; workers ≤ 0 means GOMAXPROCS.
func (s *Scene) Build(workers int) (*sluice.World, error) {
	w, err := sluice.NewWorld(s.Solver, workers)
	if err != nil {
		return nil, err
	}
	for i, b := range s.Boundaries {
		if _, err := w.AddBoundaryBox(b.Name, b.Min, b.Max, b.Tank); err != nil {
			w.Close()
			return nil, fmt.Errorf("boundaries[%d]: %w", i, err)
		}
	}
	for i, f := range s.Fluids {
		if _, err := w.AddFluidBlock(f.Name, f.Material, f.Min, f.Max, f.Velocity); err != nil {
			w.Close()
			return nil, fmt.Errorf("fluids[%d]: %w", i, err)
		}
	}
	return w, nil
}

// FrameOf captures the world's bodies as an export frame (slices are shared, not copied).
func FrameOf(w *sluice.World) *Frame {
	fr := &Frame{Time: w.Time()}
	for _, b := range w.Bodies() {
		p := b.Particles
		fr.Bodies = append(fr.Bodies, FrameBody{Name: b.Body.Name, Phase: b.Body.Phase.String(),
			X: p.X, V: p.V, Density: p.Density, Pressure: p.Pressure})
	}
	return fr
}
