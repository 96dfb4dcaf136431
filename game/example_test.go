package game_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/game"
)

// ExampleDriver is the README's game-loop program: a world stepped at a fixed 60 Hz from a
// loop drawing at 144 Hz, the drawn positions interpolated between the last two physics
// states. In the g3n build, game.NewView draws them and game.Run does all of this in a window.
func ExampleDriver() {
	w, err := sluice.NewWorld(components.DefaultSolver(), 0)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1.5, 1}, true)
	w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 1, 1}, mgl64.Vec3{})

	d, err := game.NewDriver(game.WorldStepper{W: w}, 60, 8) // 60 steps/s, ≤ 8 per frame
	if err != nil {
		panic(err)
	}
	var drawn []float32
	for frame := 0; frame < 72; frame++ { // 0.5 s of 144 Hz frames
		if _, err := d.Advance(1.0 / 144); err != nil { // frame time from your loop's clock
			panic(err)
		}
		drawn = d.Drawn(drawn) // x, y, z per particle, blended by d.Alpha(); reuses drawn
		// … upload drawn to the GPU and render …
	}
	st := d.LastStats()
	fmt.Printf("%d frames, %d physics steps, t = %.2f s, %d particles drawn, last step %d substeps\n",
		72, d.Steps(), w.Time(), len(drawn)/3, st.Substeps)
	// Output: 72 frames, 30 physics steps, t = 0.50 s, 3971 particles drawn, last step 9 substeps
}
