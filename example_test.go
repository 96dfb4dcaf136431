package sluice_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// Example is the README's embedding program: a water block collapsing in a tank, stepped from
// a game loop, its particles read between steps.
func Example() {
	w, err := sluice.NewWorld(components.DefaultSolver(), 0) // r = 0.025 m, η = 0.1 %
	if err != nil {
		panic(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1.5, 1}, true)
	water, _ := w.AddFluidBlock("water", components.DefaultMaterial(),
		mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 1, 1}, mgl64.Vec3{})
	inside := true
	for frame := 0; frame < 30; frame++ {
		stats, err := w.Step(1.0 / 60) // as many CFL substeps as needed
		if err != nil {
			panic(err) // e.g. a particle turned NaN: the error names the body
		}
		for _, x := range w.Particles(water).X { // read (or write) positions between steps
			inside = inside && x[0] > 0 && x[0] < 2 && x[1] > 0 && x[2] > 0 && x[2] < 1
		}
		_ = stats.StageMs["PressureSolve"] // wall ms of a stage in this step
	}
	fmt.Printf("%d particles, t = %.2f s, all inside the tank: %v\n", w.Particles(water).Len(), w.Time(), inside)
	// Output: 3971 particles, t = 0.50 s, all inside the tank: true
}
