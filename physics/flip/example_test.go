package flip_test

import (
	"fmt"

	"github.com/sluicephysics/sluice/physics/flip"
	"github.com/sluicephysics/sluice/physics/par"
)

// A column of water collapses in a 1.6 m × 1.2 m × 0.4 m box with a spherical obstacle: make
// the Sim, seed a block, advance a third of a second and read the particles and the stats.
func Example() {
	pool := par.NewPool(0)
	defer pool.Close()
	p := flip.DefaultParams()
	p.CellSize = 0.1
	p.Dims = [3]int{16, 12, 4}
	obs := []flip.Obstacle{{Kind: flip.ObstacleSphere, Center: flip.Vec3{1.2, 0, 0.2}, Radius: 0.25}}
	s, err := flip.New(p, obs, pool)
	if err != nil {
		panic(err)
	}
	n, err := s.AddBlock(flip.Vec3{0, 0, 0}, flip.Vec3{0.4, 0.8, 0.4}, flip.Vec3{})
	if err != nil {
		panic(err)
	}
	if _, err := s.Advance(1.0 / 3); err != nil {
		panic(err)
	}
	fmt.Printf("%d particles of %.3g kg\n", n, s.ParticleMass())
	fmt.Printf("front past 0.4 m: %v\n", maxX(s.X) > 0.4)
	fmt.Printf("last solve converged: %v\n", s.Stats().Solve.Converged)
	// Output:
	// 1024 particles of 0.125 kg
	// front past 0.4 m: true
	// last solve converged: true
}

func maxX(x []flip.Vec3) float64 {
	m := 0.0
	for _, p := range x {
		m = max(m, p[0])
	}
	return m
}
