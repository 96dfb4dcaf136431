package sluice_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// Example is the README's embedding program: a crate dropped into a tank of water, stepped
// from a game loop; the water's particles, the crate's pose and the stage timings read between
// steps.
func Example() {
	w, err := sluice.NewWorld(components.DefaultSolver(), 0) // r = 0.025 m, η = 0.1 %
	if err != nil {
		panic(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 0.6}, true)
	water, _ := w.AddFluidBlock("water", components.DefaultMaterial(),
		mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.4, 0.6}, mgl64.Vec3{})
	def := components.DefaultRigidBody() // dynamic box, water's density
	def.Size = mgl64.Vec3{0.25, 0.25, 0.25}
	def.Density = 500                         // pine: floats half under water
	def.Position = mgl64.Vec3{0.5, 0.45, 0.3} // just above the surface
	crate, err := w.AddRigidBody("crate", def)
	if err != nil {
		panic(err)
	}
	inside, pressureMs := true, 0.0
	for frame := 0; frame < 60; frame++ {
		stats, err := w.Step(1.0 / 60) // as many CFL substeps as needed
		if err != nil {
			panic(err) // e.g. a particle turned NaN: the error names the body
		}
		for _, x := range w.Particles(water).X { // read (or write) positions between steps
			inside = inside && x[0] > 0 && x[0] < 1 && x[1] > 0 && x[2] > 0 && x[2] < 0.6
		}
		pressureMs += stats.StageMs["PressureSolve"] // wall ms of a stage in this step
	}
	rb := w.RigidBody(crate)
	pose := rb.State // centre of mass X, orientation Q = [w, x, y, z] (body to world)
	tilt := 2 * math.Acos(min(1, math.Abs(pose.Q[0]))) * 180 / math.Pi
	fmt.Printf("%d water particles, t = %.2f s, all inside the tank: %v\n", w.Particles(water).Len(), w.Time(), inside)
	fmt.Printf("crate at y = %.2f m, tilted %.0f°, %.0f %% under water\n", pose.X[1], tilt, 100*rb.Submerged)
	fmt.Printf("pressure solve timed: %v\n", pressureMs > 0)
	// Output:
	// 1438 water particles, t = 1.00 s, all inside the tank: true
	// crate at y = 0.38 m, tilted 0°, 50 % under water
	// pressure solve timed: true
}

// ExampleWorld_SurfaceHeight is a game's side of the world between steps: ask how high the
// water stands under a floating crate, kick the crate with an impulse, let the player drink
// the water in a box, and take the crate away.
func ExampleWorld_SurfaceHeight() {
	w, err := sluice.NewWorld(components.DefaultSolver(), 0)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 0.6}, true)
	water, _ := w.AddFluidBlock("water", components.DefaultMaterial(),
		mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.4, 0.6}, mgl64.Vec3{})
	def := components.DefaultRigidBody()
	def.Size, def.Density, def.Position = mgl64.Vec3{0.25, 0.25, 0.25}, 500, mgl64.Vec3{0.5, 0.45, 0.3}
	crate, _ := w.AddRigidBody("crate", def)
	step := func(frames int) {
		for i := 0; i < frames; i++ {
			if _, err := w.Step(1.0 / 60); err != nil {
				panic(err)
			}
		}
	}
	step(60)
	level, _, _ := w.SurfaceHeight(0.15, 0.3) // beside the crate
	here, _ := w.FluidAt(mgl64.Vec3{0.15, 0.1, 0.3})
	fmt.Printf("water level %.2f m; 0.1 m above the floor: in water %v, %.0f kg/m³\n", level, here.Inside, here.Density)

	// A kick along x at the crate's centre of mass: Δv = J/m = 2 N s / 7.8125 kg.
	if err := w.ApplyImpulse(crate, mgl64.Vec3{2, 0, 0}, w.RigidBody(crate).State.X); err != nil {
		panic(err)
	}
	fmt.Printf("crate speed after the kick: %.3f m/s\n", w.RigidBody(crate).State.V[0])

	// Drink: the particles in a box by the wall leave at the next step.
	n, _ := w.RemoveParticlesInBox(water, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.2, 1, 0.6})
	before := w.Particles(water).Len()
	step(1)
	fmt.Printf("drank %d particles: %d left\n", n, w.Particles(water).Len())
	fmt.Println(before-n == w.Particles(water).Len())

	if err := w.Remove(crate); err != nil {
		panic(err)
	}
	step(1)
	fmt.Printf("bodies: %d; the crate answers nil: %v\n", len(w.Bodies()), w.RigidBody(crate) == nil)
	// Output:
	// water level 0.37 m; 0.1 m above the floor: in water true, 1030 kg/m³
	// crate speed after the kick: 0.256 m/s
	// drank 278 particles: 1160 left
	// true
	// bodies: 2; the crate answers nil: true
}
