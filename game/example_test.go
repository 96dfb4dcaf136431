package game_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/game"
)

// ExampleDriver is the game-loop program of docs/view.md: a crate dropped into a tank of water,
// stepped at a fixed 60 Hz from a loop drawing at 144 Hz, the drawn particle positions and the
// crate's drawn pose interpolated between the last two physics states. In the g3n build,
// game.NewView draws them (the crate as a box mesh) and game.Run does all of this in a window.
func ExampleDriver() {
	w, err := sluice.NewWorld(components.DefaultSolver(), 0)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 0.6}, true)
	w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.4, 0.6}, mgl64.Vec3{})
	crate := components.DefaultRigidBody()
	crate.Size, crate.Density, crate.Position = mgl64.Vec3{0.25, 0.25, 0.25}, 500, mgl64.Vec3{0.5, 0.45, 0.3}
	if _, err := w.AddRigidBody("crate", crate); err != nil {
		panic(err)
	}

	d, err := game.NewDriver(game.WorldStepper{W: w}, 60, 8) // 60 steps/s, ≤ 8 per frame
	if err != nil {
		panic(err)
	}
	var drawn []float32
	var poses []game.Pose
	for frame := 0; frame < 72; frame++ { // 0.5 s of 144 Hz frames
		if _, err := d.Advance(1.0 / 144); err != nil { // frame time from your loop's clock
			panic(err)
		}
		drawn = d.Drawn(drawn) // x, y, z per particle, blended by d.Alpha(); reuses drawn
		poses = d.Poses(poses) // the rigid bodies' centres and orientations, blended likewise
		// … upload drawn to the GPU, place the crate's mesh at poses[0], render …
	}
	st := d.LastStats()
	fmt.Printf("%d frames, %d physics steps, t = %.2f s, last step %d substeps\n", 72, d.Steps(), w.Time(), st.Substeps)
	fmt.Printf("%d particles and %d rigid body drawn, the crate at y = %.2f m\n", len(drawn)/3, len(poses), poses[0].X[1])
	// Output:
	// 72 frames, 30 physics steps, t = 0.50 s, last step 4 substeps
	// 1438 particles and 1 rigid body drawn, the crate at y = 0.35 m
}
