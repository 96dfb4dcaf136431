package sluice_test

import (
	"bytes"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// sleepWorld is a dry 0.8 m x 0.5 m x 0.3 m tank with a 400 kg/m³ crate resting on its floor
// at x = 0.6 m (the default rigidSleepTime, 0.5 s).
func sleepWorld(t *testing.T) (*sluice.World, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = 0.0125
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.8, 0.5, 0.3}, true); err != nil {
		t.Fatal(err)
	}
	c := components.DefaultRigidBody()
	c.Size, c.Density, c.Position = mgl64.Vec3{0.1, 0.1, 0.1}, 400, mgl64.Vec3{0.6, 0.0625, 0.15}
	return w, mustRigid(t, w, "crate", c)
}

func TestSleepingCrateWakesInWater(t *testing.T) {
	// A crate at rest on a dry floor sleeps within 1 s (0.5 s at rest after settling) and does
	// not move while asleep; a water column released next to it at t = 1.2 s wakes it (the fluid's load
	// departs from the dry one), and the wave pushes it along the floor. Saved
	// asleep and restored, the run continues bit-identically through the wake. An impulse on
	// a sleeping crate moves it at the next step.
	if raceEnabled {
		t.Skip("6 s of fluid steps; the rigid solver's sleeping is raced in physics/rigid")
	}
	w, crate := sleepWorld(t)
	var sleptAt float64
	for f := 1; f <= 60; f++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		if sleptAt == 0 && st.Bodies[1].Rigid.Asleep {
			sleptAt = w.Time()
		}
	}
	if sleptAt == 0 {
		t.Fatalf("the crate did not sleep within 1 s (v = %v m/s)", w.RigidBody(crate).State.V)
	}
	x0 := w.RigidBody(crate).State.X
	steps(t, w, 12, nil)
	if x := w.RigidBody(crate).State.X; x != x0 || !w.RigidBody(crate).State.Asleep {
		t.Fatalf("asleep since t = %.3f s, the crate moved from %v to %v (asleep: %v)", sleptAt, x0, x, w.RigidBody(crate).State.Asleep)
	}
	var snap bytes.Buffer
	if err := w.Save(&snap); err != nil {
		t.Fatal(err)
	}
	pour := func(w *sluice.World) {
		if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0.05, 0, 0}, mgl64.Vec3{0.45, 0.3, 0.3}, mgl64.Vec3{}); err != nil {
			t.Fatal(err)
		}
	}
	pour(w)
	var wokeAt float64
	for f := 0; f < 60; f++ {
		steps(t, w, 1, nil)
		if wokeAt == 0 && !w.RigidBody(crate).State.Asleep {
			wokeAt = w.Time()
		}
	}
	moved := w.RigidBody(crate).State.X.Sub(x0).Len()
	t.Logf("asleep at t = %.3f s, woken by the water at t = %.3f s; by t = %.2f s the wave moved it %.3f m", sleptAt, wokeAt, w.Time(), moved)
	if wokeAt == 0 {
		t.Fatal("the water did not wake the crate")
	}
	if moved < 0.01 {
		t.Errorf("woken by the wave, the crate moved %.4f m", moved)
	}

	r, err := sluice.Restore(&snap, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rc, _ := r.BodyByName("crate")
	if !r.RigidBody(rc).State.Asleep {
		t.Fatal("the restored crate is awake")
	}
	pour(r)
	steps(t, r, 60, nil)
	if a, b := w.RigidBody(crate).State, r.RigidBody(rc).State; a.X != b.X || a.V != b.V || a.Q != b.Q {
		t.Errorf("restored: crate at %v, uninterrupted at %v", b.X, a.X)
	}

	w2, crate2 := sleepWorld(t)
	steps(t, w2, 72, nil)
	if !w2.RigidBody(crate2).State.Asleep {
		t.Fatal("the crate of the second world is awake")
	}
	if err := w2.ApplyImpulse(crate2, mgl64.Vec3{0, 0.8, 0}, w2.RigidBody(crate2).State.X); err != nil {
		t.Fatal(err)
	}
	y := w2.RigidBody(crate2).State.X[1]
	steps(t, w2, 1, nil)
	if dy := w2.RigidBody(crate2).State.X[1] - y; dy <= 0 || w2.RigidBody(crate2).State.Asleep {
		t.Errorf("an upward impulse on the sleeping crate moved it %.2e m (asleep: %v)", dy, w2.RigidBody(crate2).State.Asleep)
	}
}
