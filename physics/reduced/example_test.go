package reduced_test

import (
	"fmt"

	"github.com/sluicephysics/sluice/physics/reduced"
)

// A box falls through still air in a 1 × 1 m domain; the panels push the air aside and the
// feedback leaves the wake in the reduced coefficients.
func Example() {
	c := reduced.DefaultConfig()
	c.CellsX, c.CellsY, c.Modes = 32, 32, 40
	d, err := reduced.New(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	box, err := d.AddBody(reduced.BodyDef{Outline: reduced.BoxOutline(0.1, 0.1), PanelsPerSide: []int{3},
		Density: 1.5, Position: reduced.Vec2{X: 0.5, Y: 0.8}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 30 {
		if err := d.Step(1.0 / 120); err != nil {
			fmt.Println(err)
			return
		}
	}
	st := box.State()
	fmt.Printf("after %.2f s the box is at y = %.2f m, falling at %.2f m/s; the air holds %.1e m⁴/s² of kinetic energy\n",
		d.Time(), st.Position.Y, -st.Velocity.Y, d.Energy())
	// Output:
	// after 0.25 s the box is at y = 0.74 m, falling at 0.49 m/s; the air holds 6.0e-03 m⁴/s² of kinetic energy
}
