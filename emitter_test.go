package sluice_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// jetWorld is a 2 m × 1 m × 0.6 m tank with a 0.3 m × 0.2 m box nozzle on its left wall
// shooting water along +x at 2 m/s from 0.1 s to 0.6 s, r = 2.5 cm (spacing 5 cm: 6 × 4 = 24
// particles a layer).
func jetWorld(t testing.TB, workers int, budget int) (*sluice.World, sluice.Entity) {
	w, err := sluice.NewWorld(components.DefaultSolver(), workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1, 0.6}, true); err != nil {
		t.Fatal(err)
	}
	var em components.Emitter
	em.Shape, em.Center, em.Direction, em.Up = "box", mgl64.Vec3{0.1, 0.5, 0.3}, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 1, 0}
	em.Width, em.Height, em.Speed, em.Start, em.Stop, em.Budget = 0.3, 0.2, 2, 0.1, 0.6, budget
	e, err := w.AddEmitter("jet", components.DefaultMaterial(), em)
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// TestEmitterFlowRateStartStopAndBudget: the emitter adds one 24-particle layer per 5 cm of
// flow, so over its 0.5 s at 2 m/s it adds 20 layers (the layer due exactly at the stop time
// is not emitted) — 480 particles — none before 0.1 s and none after 0.6 s; each layer leaves
// with the nozzle's velocity from where it has flowed to; and a budget of 100 particles stops
// it after 4 whole layers.
func TestEmitterFlowRateStartStopAndBudget(t *testing.T) {
	const spacing = 0.05
	const layer = 6 * 4
	w, jet := jetWorld(t, 0, 100000)
	defer w.Close()
	total := 0
	for k := 0; k < 48; k++ { // 0.8 s
		before := w.Time()
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		total += st.Emitted
		if st.Emitted%layer != 0 {
			t.Fatalf("t = %.3f s: %d particles emitted, not whole layers of %d", before, st.Emitted, layer)
		}
		if st.EmitterHeld != 0 {
			t.Fatalf("t = %.3f s: %d layers of a free jet waited for room", before, st.EmitterHeld)
		}
		// Emission at the start of the step at time `before` covers the layers due by then.
		if st.Emitted > 0 && (before < 0.1 || before > 0.6+frame) {
			t.Fatalf("%d particles emitted at t = %.3f s, outside [0.1, 0.6] s", st.Emitted, before)
		}
		if len(st.Removed) > 0 {
			t.Fatalf("t = %.2f s: particles left the tank: %+v", st.T, st.Removed)
		}
	}
	// Layers leave at 0.1 + k·0.025 s for 0.1 + k·0.025 < 0.6: k = 0 … 19.
	want := 20 * layer
	if total != want || w.Particles(jet).Len() != want || w.Emitter(jet).Emitted != want {
		t.Fatalf("emitted %d (body holds %d, emitter counts %d), want %d", total, w.Particles(jet).Len(), w.Emitter(jet).Emitted, want)
	}

	// The first layer: added at the start of the step at firstT where it has flowed to since
	// 0.1 s, with the nozzle's velocity; alone in the air it then flies on for the frame, so
	// its x is 0.1 + 2·(firstT − 0.1 + frame) and its vx stays 2 m/s (gravity acts along y).
	w2, jet2 := jetWorld(t, 1, 100000)
	defer w2.Close()
	firstT := 0.0
	for w2.Particles(jet2).Len() == 0 {
		firstT = w2.Time()
		if _, err := w2.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	p := w2.Particles(jet2)
	const posTol = 1e-9 // m and m/s: round-off of the substep sums
	wantX := 0.1 + 2*(firstT-0.1+frame)
	for i, x := range p.X {
		if math.Abs(x[0]-wantX) > posTol || math.Abs(p.V[i][0]-2) > posTol || math.Abs(p.V[i][2]) > posTol {
			t.Fatalf("layer particle %d at %v with velocity %v, want x = %.6f m and vx = 2 m/s", i, x, p.V[i], wantX)
		}
		if math.Abs(x[1]-0.5) > 0.1+0.01 || math.Abs(x[2]-0.3) > 0.15+posTol {
			t.Fatalf("layer particle %d at %v lies outside the 0.3 × 0.2 m nozzle", i, x)
		}
	}
	if len(p.X) != layer {
		t.Fatalf("the first emitting step added %d particles, want one layer of %d", len(p.X), layer)
	}

	b, bjet := jetWorld(t, 1, 100)
	defer b.Close()
	for k := 0; k < 48; k++ {
		if _, err := b.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	if n := b.Particles(bjet).Len(); n != 4*layer {
		t.Fatalf("budget 100: %d particles emitted, want the 4 whole layers of %d that fit", n, layer)
	}
}

// TestEmitterSnapshotContinues: a snapshot taken while the emitter is running restores to the
// same future, on another worker count too.
func TestEmitterSnapshotContinues(t *testing.T) {
	run := func(w *sluice.World, n int) {
		for k := 0; k < n; k++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
	}
	ref, _ := jetWorld(t, 2, 100000)
	defer ref.Close()
	run(ref, 30)
	want := stateHash(ref, entityOf(t, ref, "jet"))
	w, _ := jetWorld(t, 2, 100000)
	run(w, 15)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, workers := range []int{1, 2} {
		r, err := sluice.Restore(bytes.NewReader(buf.Bytes()), workers)
		if err != nil {
			t.Fatal(err)
		}
		run(r, 15)
		if got := stateHash(r, entityOf(t, r, "jet")); got != want {
			t.Errorf("restored on %d workers: hash %x, uninterrupted %x", workers, got[:8], want[:8])
		}
		r.Close()
	}
}

// TestEmitterRejectsBadInput: each bad emitter is refused with the field named.
func TestEmitterRejectsBadInput(t *testing.T) {
	w, err := sluice.NewWorld(components.DefaultSolver(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	good := components.Emitter{Shape: "box", Center: mgl64.Vec3{0, 0.5, 0}, Direction: mgl64.Vec3{1, 0, 0}, Up: mgl64.Vec3{0, 1, 0},
		Width: 0.2, Speed: 1, Stop: 1, Budget: 1000}
	cases := []struct {
		name string
		edit func(e *components.Emitter)
		want string
	}{
		{"zero direction", func(e *components.Emitter) { e.Direction = mgl64.Vec3{} }, "emitter.direction: must not be zero"},
		{"up parallel", func(e *components.Emitter) { e.Up = mgl64.Vec3{2, 0, 0} }, "emitter.up: [2 0 0] is parallel to direction"},
		{"stop before start", func(e *components.Emitter) { e.Start = 2 }, "emitter.stop: 1 s must be after start 2 s"},
		{"nozzle below spacing", func(e *components.Emitter) { e.Width = 0.04 }, "emitter.width: 0.04 m nozzle holds no particle at spacing 0.05 m"},
		{"bad shape", func(e *components.Emitter) { e.Shape = "star" }, `emitter.shape: "star" is not a nozzle shape`},
		{"negative speed", func(e *components.Emitter) { e.Speed = -1 }, "emitter.speed: -1 m/s must be greater than 0"},
		{"zero budget", func(e *components.Emitter) { e.Budget = 0 }, "emitter.budget: 0 is below the minimum 1"},
	}
	for _, c := range cases {
		em := good
		c.edit(&em)
		_, err := w.AddEmitter("jet-"+strings.ReplaceAll(c.name, " ", "-"), components.DefaultMaterial(), em)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := w.AddEmitter("ok", components.DefaultMaterial(), good); err != nil {
		t.Fatalf("the good emitter was refused: %v", err)
	}
}

// TestEmitterWaitsForRoom: a 6 cm × 6 cm nozzle points down at 0.5 m/s at the floor of a box,
// its mouth 10 cm above it, in zero gravity (r = 1 cm; ν = 0.1 m²/s, implicit; the walls'
// drag 0.1 m²/s): the water piles up in a column under the nozzle, which only the jet itself
// spreads. Two rules keep the layers from landing on the water: the nozzle drives the two
// layers in front of it at its own velocity (systems.Mouth), pushing the column on, and a layer
// may not put a particle within a fifth of the spacing of a particle already there (it waits
// and leaves from the nozzle when there is room). So the water is never compressed by more
// than compressMax (measured 8.0 %; without the wait 16.6 %, with neither rule the layers are
// pushed into the column and it reaches 36 %); the nozzle keeps delivering at least
// deliverMin of the 450 particles of its schedule (25 layers a second for 2 s; measured 432,
// while without the mouth's push the column stops it after 54); the layers that wait are
// reported (StepStats.EmitterHeld, Emitter.Held); and no particle is lost: the body holds
// exactly what the emitter counts and the steps report, in whole layers.
func TestEmitterWaitsForRoom(t *testing.T) {
	const compressMax = 0.10 // 10 %: above the 8 % measured, below the 16.6 % of pushing without waiting
	const deliverMin = 0.6   // 60 % of the schedule: the nozzle pushes on (12 % without the push)
	const layer, scheduled = 3 * 3, 450
	w, jet := waitWorld(t)
	defer w.Close()
	total, held, worst := 0, 0, 0.0
	for k := 0; k < 120; k++ { // 2 s
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		if st.Emitted%layer != 0 {
			t.Fatalf("t = %.3f s: %d particles emitted, not whole layers of %d", st.T, st.Emitted, layer)
		}
		total += st.Emitted
		held += st.EmitterHeld
		worst = max(worst, st.DensityErrorMeasuredMax)
		if len(st.Removed) > 0 {
			t.Fatalf("t = %.2f s: particles left the box: %+v", st.T, st.Removed)
		}
	}
	got := w.Emitter(jet)
	t.Logf("emitted %d particles (%d layers), layers waited %d times, schedule moved on by %.3f s, largest compression %.2f %%", total, total/layer, held, got.Held, 100*worst)
	if worst > compressMax {
		t.Errorf("largest measured compression %.1f %%, want at most %.0f %%", 100*worst, 100*compressMax)
	}
	if held == 0 || got.Held <= 0 {
		t.Errorf("no layer waited (EmitterHeld %d, Held %.3f s), yet the column stands in front of the nozzle", held, got.Held)
	}
	if n := w.Particles(jet).Len(); n != total || got.Emitted != total {
		t.Errorf("the body holds %d particles, the emitter counts %d, the steps %d; want all equal", n, got.Emitted, total)
	}
	if float64(total) < deliverMin*scheduled || total >= scheduled {
		t.Errorf("the nozzle delivered %d particles, want at least %.0f %% of the schedule's %d and, as layers waited, fewer", total, 100*deliverMin, scheduled)
	}

	// The time waited is state: a snapshot taken after 1 s continues bit-identically.
	a, _ := waitWorld(t)
	defer a.Close()
	for k := 0; k < 60; k++ {
		if _, err := a.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := a.Save(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := sluice.Restore(bytes.NewReader(buf.Bytes()), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for k := 0; k < 30; k++ {
		if _, err := a.Step(frame); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	if ha, hr := stateHash(a, entityOf(t, a, "jet")), stateHash(r, entityOf(t, r, "jet")); ha != hr {
		t.Errorf("restored after 1 s: hash %x, uninterrupted %x", hr[:8], ha[:8])
	}
}

// waitWorld is TestEmitterWaitsForRoom's world: the nozzle above the floor of a box in zero
// gravity.
func waitWorld(t *testing.T) (*sluice.World, sluice.Entity) {
	set := components.DefaultSolver()
	set.ParticleRadius, set.ViscositySolver, set.Gravity = 0.01, "implicit", mgl64.Vec3{}
	w, err := sluice.NewWorld(set, 0)
	if err != nil {
		t.Fatal(err)
	}
	box, err := w.AddBoundaryBox("box", mgl64.Vec3{-0.2, 0, -0.2}, mgl64.Vec3{0.2, 0.3, 0.2}, true)
	if err != nil {
		t.Fatal(err)
	}
	w.Material(box).Drag = 0.1
	var em components.Emitter
	em.Shape, em.Center, em.Direction, em.Up = "box", mgl64.Vec3{0, 0.1, 0}, mgl64.Vec3{0, -1, 0}, mgl64.Vec3{1, 0, 0}
	em.Width, em.Speed, em.Start, em.Stop, em.Budget = 0.06, 0.5, 0, 1e6, 100000
	mat := components.DefaultMaterial()
	mat.Viscosity = 0.1
	jet, err := w.AddEmitter("jet", mat, em)
	if err != nil {
		t.Fatal(err)
	}
	return w, jet
}
