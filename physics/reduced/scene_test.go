package reduced

import (
	"math"
	"math/rand"
	"testing"
)

// gameConfig is the dissertation's game scene (§5.4, Table 5.1): 73 eigenmodes on a 65×65
// staggered grid. Gravity is off (a top-down game: the bodies drift with the wind): the
// package has no body-body contacts, and under gravity the bodies pile up and overlap on the
// floor, where the multi-body sweeps no longer converge.
func gameConfig() Config {
	c := DefaultConfig()
	c.Gravity = 0
	c.CellsX, c.CellsY = 65, 65
	c.Modes = 73
	c.Viscosity = 1e-4
	c.Workers = 1
	return c
}

// gameScene adds the game's 15 bodies with 147 panels: nine 5 cm boxes with 3 panels per side
// (108), three triangles of 5 cm sides with 3 per side (27) and three 1.5 cm boxes with 1 per
// side (12), in a 5×3 arrangement with seeded angles and velocities, in a seeded flow.
func gameScene(t testing.TB, c Config) *Domain {
	d := mustNew(t, c)
	rng := rand.New(rand.NewSource(15))
	r := make([]float64, d.Modes())
	for i := range r {
		r[i] = 0.05 * rng.NormFloat64()
	}
	_ = d.SetCoefficients(r)
	tri := []Vec2{{0, 0}, {0.05, 0}, {0.025, 0.05 * math.Sqrt(3) / 2}}
	for k := 0; k < 15; k++ {
		def := BodyDef{Density: 200, Position: Vec2{0.15 + 0.175*float64(k%5), 0.3 + 0.2*float64(k/5)},
			Angle: rng.Float64() * math.Pi, Velocity: Vec2{0.2 * rng.NormFloat64(), 0.2 * rng.NormFloat64()},
			AngularVelocity: rng.NormFloat64()}
		switch {
		case k < 9:
			def.Outline, def.PanelsPerSide = BoxOutline(0.05, 0.05), []int{3}
		case k < 12:
			def.Outline, def.PanelsPerSide = tri, []int{3}
		default:
			def.Outline, def.PanelsPerSide = BoxOutline(0.015, 0.015), []int{1}
		}
		if _, err := d.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	if d.PanelCount() != 147 {
		t.Fatalf("game scene has %d panels, want 147", d.PanelCount())
	}
	return d
}
