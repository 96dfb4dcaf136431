package rigid

import (
	"testing"
)

// sleepCostRatio is the bound on a sleeping stack's cost against its awake cost,
// counted in signed-distance evaluations of the contact search (the bulk of a resting body's
// work, and a count, not a clock, so the test does not depend on the machine's load).
const sleepCostRatio = 0.05

// stack is three 10 cm boxes of 500 kg/m³ resting on a floor of static samples (spacing
// 2 cm), the solver set to sleep after SleepTime s at rest.
func stack(sleepTime float64) *Solver {
	const r = 0.01
	var floor, vel []Vec3
	var ids []int32
	for i := -20; i <= 20; i++ {
		for k := -20; k <= 20; k++ {
			ids = append(ids, int32(len(floor)))
			floor = append(floor, Vec3{float64(i) * 2 * r, 0, float64(k) * 2 * r})
			vel = append(vel, Vec3{})
		}
	}
	s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: r, Gravity: Vec3{0, -9.81, 0}, SleepTime: sleepTime}}
	s.SetStatic(floor, vel, ids, 4*r)
	for k := 0; k < 3; k++ {
		s.Bodies = append(s.Bodies, box(Vec3{0.05, 0.05, 0.05}, 500, Vec3{0.003 * float64(k), r + 0.05 + 0.1*float64(k) + 0.002*float64(k), 0}, 2*r))
	}
	return s
}

// box is a dynamic box of half extents he and density rho at x, sampled at spacing.
func box(he Vec3, rho float64, x Vec3, spacing float64) Body {
	sh := &Shape{Kind: Box, HalfExtents: he}
	m := rho * 8 * he[0] * he[1] * he[2]
	ix, iy, iz := m/3*(he[1]*he[1]+he[2]*he[2]), m/3*(he[0]*he[0]+he[2]*he[2]), m/3*(he[0]*he[0]+he[1]*he[1])
	b := Body{Motion: Dynamic, Shape: sh, Mass: m, InvMass: 1 / m, Inertia: Mat3{ix, 0, 0, 0, iy, 0, 0, 0, iz},
		InvInertia: Mat3{1 / ix, 0, 0, 0, 1 / iy, 0, 0, 0, 1 / iz}, X: x, Q: QuatIdentity, Reach: norm(he), Friction: 0.5}
	b.Samples, b.Outer, _ = sh.Samples(spacing, 1)
	return b
}

func TestRestingStackSleeps(t *testing.T) {
	// The issue: a resting stack sleeps within 2 s and then costs < 5 % of its awake cost.
	// Asleep, it does not move; a push on its top box wakes the whole stack (one island), and
	// so does a box dropped on it. With sleeping off it never sleeps.
	const dt = 1e-3
	s := stack(0.5)
	slept := -1.0
	awakeCost := 0
	for n := 1; n <= 2000; n++ {
		s.Step(dt)
		if n == 400 { // settled, still awake (the bodies need 0.5 s at rest)
			awakeCost = s.DistanceQueries()
		}
		if slept < 0 && s.Bodies[0].Asleep && s.Bodies[1].Asleep && s.Bodies[2].Asleep {
			slept = float64(n) * dt
		}
	}
	if slept < 0 {
		t.Fatalf("the stack did not sleep within 2 s (top box moving at %v m/s)", s.Bodies[2].V)
	}
	x0 := [3]Vec3{s.Bodies[0].X, s.Bodies[1].X, s.Bodies[2].X}
	s.Step(dt)
	asleepCost := s.DistanceQueries()
	t.Logf("asleep at t = %.3f s; contact search %d distance evaluations awake, %d asleep", slept, awakeCost, asleepCost)
	if awakeCost == 0 || float64(asleepCost) > sleepCostRatio*float64(awakeCost) {
		t.Errorf("asleep the stack costs %d evaluations, awake %d (bound %g of it)", asleepCost, awakeCost, sleepCostRatio)
	}
	for n := 0; n < 500; n++ {
		s.Step(dt)
	}
	for k := range x0 {
		if s.Bodies[k].X != x0[k] {
			t.Errorf("box %d moved in its sleep: %v → %v", k, x0[k], s.Bodies[k].X)
		}
	}

	// a push on the top box wakes every box, and the top one slides: at 0.3 m/s against
	// μ = 0.5 it stops after v²/(2μg) = 9.2 mm
	s.Bodies[2].V = Vec3{0.3, 0, 0}
	s.Step(dt)
	for k := range s.Bodies {
		if s.Bodies[k].Asleep {
			t.Errorf("box %d sleeps on after its stack's top box was pushed", k)
		}
	}
	for n := 0; n < 100; n++ {
		s.Step(dt)
	}
	if moved := s.Bodies[2].X[0] - x0[2][0]; moved < 0.5*0.09/(2*0.5*9.81) {
		t.Errorf("the pushed top box slid %.4f m, friction stops it after 9.2 mm", moved)
	}

	// a box dropped on a sleeping stack wakes it on contact
	s = stack(0.5)
	for n := 0; n < 2000; n++ {
		s.Step(dt)
	}
	s.Bodies = append(s.Bodies, box(Vec3{0.05, 0.05, 0.05}, 500, Vec3{0, 0.6, 0}, 0.02))
	woke := false
	for n := 0; n < 400 && !woke; n++ {
		s.Step(dt)
		woke = !s.Bodies[2].Asleep
	}
	if !woke {
		t.Error("a box dropped on the sleeping stack did not wake it")
	}
	if top := s.Bodies[3].X[1]; top < 0.33 {
		t.Errorf("the dropped box fell through the stack to y = %.3f m", top)
	}

	s = stack(0)
	for n := 0; n < 2000; n++ {
		s.Step(dt)
	}
	if s.Bodies[0].Asleep || s.Bodies[2].Asleep {
		t.Error("with SleepTime 0 the stack sleeps")
	}
}

// TestFloatingBodyStaysAwake: a box held up by the water alone (its fluid force balancing its
// weight, no contact) is at rest but does not sleep, so it keeps following the water (a level
// that settles by a millimetre moves it); the same box resting on the floor sleeps. Without the
// held-island rule the floating box slept at t = 0.5 s.
func TestFloatingBodyStaysAwake(t *testing.T) {
	const dt = 1e-3
	s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: 0.01, Gravity: Vec3{0, -9.81, 0}, SleepTime: 0.5}}
	s.Bodies = append(s.Bodies, box(Vec3{0.05, 0.05, 0.05}, 500, Vec3{0, 1, 0}, 0.02))
	b := &s.Bodies[0]
	for n := 1; n <= 2000; n++ {
		b.FluidForce = Vec3{0, 9.81 * b.Mass, 0} // the buoyancy of its draft, set every step as the fluid does
		s.Step(dt)
		if b.Asleep {
			t.Fatalf("the floating box fell asleep at t = %.3f s", float64(n)*dt)
		}
	}
	floor := stack(0.5)
	floor.Bodies = floor.Bodies[:1]
	for n := 1; n <= 2000 && !floor.Bodies[0].Asleep; n++ {
		floor.Step(dt)
	}
	if !floor.Bodies[0].Asleep {
		t.Fatal("the box resting on the floor did not sleep in 2 s")
	}
}
