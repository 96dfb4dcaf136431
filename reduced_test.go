package sluice_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// draftWorld is the drafting example of Gerszewski 2014 §5.4 (Fig. 5.5) in the world: a
// 1 × 2 m reduced domain in the xy plane (32 × 64 cells, 67 eigenmodes, ν = 1e-4 m²/s, air)
// and 10 cm boxes, 10 cm deep, of density 1.5 kg/m³ (areal density 1.5 kg/m² in the plane,
// the package's drafting test), planar in z = 0 and coupled with 3 panels per side, their
// centres at x = 0.5 m and the given heights.
func draftWorld(t *testing.T, workers int, heights ...float64) (*sluice.World, sluice.Entity, []sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	var boxes []sluice.Entity
	for i, y := range heights {
		b := components.DefaultRigidBody()
		b.Size, b.Density = mgl64.Vec3{0.1, 0.1, 0.1}, 1.5
		b.Position = mgl64.Vec3{0.5, y, 0}
		b.PlaneNormal, b.ReducedPanels = mgl64.Vec3{0, 0, 1}, 3
		boxes = append(boxes, mustRigid(t, w, []string{"lower", "upper"}[i], b))
	}
	d := components.DefaultReducedDomain()
	d.Width, d.Height, d.CellsX, d.CellsY, d.Modes, d.Viscosity = 1, 2, 32, 64, 67, 1e-4
	dom, err := w.AddReducedDomain("air", d)
	if err != nil {
		t.Fatal(err)
	}
	return w, dom, boxes
}

// TestReducedDraftingInWorld: the drafting criterion run through World.Step with the
// world's rigid bodies. Two boxes fall through still air, the upper one 25 cm above the lower;
// the lower one drags a wake along (its panels, fed back into the modes), the upper one falls
// in it, so it falls farther than the same box alone in the same time and the gap between
// them shrinks by at least half (the "measured gap shrinks by ≥ 50 %") before the
// lower box reaches y = 0.3 m.
func TestReducedDraftingInWorld(t *testing.T) {
	// minShrink: the criterion.
	const minShrink = 0.5
	const dt = 1.0 / 120
	start := time.Now()
	w, _, boxes := draftWorld(t, 2, 1.5, 1.75)
	lo, up := w.RigidBody(boxes[0]), w.RigidBody(boxes[1])
	gap0 := up.State.X[1] - lo.State.X[1] - 0.1
	n := 0
	for lo.State.X[1] > 0.3 && n < 2000 {
		st, err := w.Step(dt)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && (len(st.Reduced) != 1 || st.Reduced[0].Bodies != 2 || st.Reduced[0].Panels != 24) {
			t.Fatalf("stats %+v: want one domain with 2 bodies and 24 panels", st.Reduced)
		}
		n++
	}
	gap := up.State.X[1] - lo.State.X[1] - 0.1
	drop := 1.75 - up.State.X[1]
	alone, _, one := draftWorld(t, 2, 1.75)
	for range n {
		if _, err := alone.Step(dt); err != nil {
			t.Fatal(err)
		}
	}
	dropAlone := 1.75 - alone.RigidBody(one[0]).State.X[1]
	shrink := 1 - gap/gap0
	t.Logf("after %d steps (%.3f s; lower box at y = %.3f m): gap %.4f → %.4f m (shrinks %.0f %%); upper box fell %.3f m, alone %.3f m; %.1f s wall", n, float64(n)*dt, lo.State.X[1], gap0, gap, 100*shrink, drop, dropAlone, time.Since(start).Seconds())
	if shrink < minShrink {
		t.Errorf("gap shrank by %.0f %% < %.0f %%", 100*shrink, 100*minShrink)
	}
	if drop <= dropAlone {
		t.Errorf("upper box fell %.4f m, not farther than alone (%.4f m): no drafting", drop, dropAlone)
	}
	for _, e := range boxes {
		st := w.RigidBody(e).State
		if math.Abs(st.X[2]) > 1e-12 || math.Abs(st.V[2]) > 1e-12 || math.Hypot(st.W[0], st.W[1]) > 1e-12 {
			t.Errorf("a coupled box left its plane: x %v, v %v, ω %v", st.X, st.V, st.W)
		}
	}
}

// TestReducedBadInputNamesTheField: out-of-range domain keys and coupled bodies that cannot be
// coupled are refused with an error naming the key, the value and the range.
func TestReducedBadInputNamesTheField(t *testing.T) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, c := range []struct {
		name string
		set  func(d *components.ReducedDomain)
		want string
	}{
		{"modes above the grid's", func(d *components.ReducedDomain) { d.CellsX, d.CellsY, d.Modes = 8, 8, 17 }, `reducedDomains["air"].modes: 17 is out of range [1, 16]`},
		{"zero modes", func(d *components.ReducedDomain) { d.Modes = 0 }, `reducedDomains["air"].modes: 0 is below the minimum 1`},
		{"grid too coarse", func(d *components.ReducedDomain) { d.CellsX = 2 }, `reducedDomains["air"].cellsX: 2 is below the minimum 4`},
		{"negative viscosity", func(d *components.ReducedDomain) { d.Viscosity = -1 }, `reducedDomains["air"].viscosity: -1 m^2/s is below the minimum 0`},
		{"axes not orthogonal", func(d *components.ReducedDomain) { d.AxisV = mgl64.Vec3{1, 0, 0} }, `reducedDomains["air"].axisV: [1 0 0] is not orthogonal to axisU`},
		{"unknown feedback", func(d *components.ReducedDomain) { d.Feedback = "fast" }, `reducedDomains["air"].feedback: "fast" is not galerkin, quadtree, naive or off`},
	} {
		d := components.DefaultReducedDomain()
		c.set(&d)
		_, err := w.AddReducedDomain("air", d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	b := components.DefaultRigidBody()
	b.PlaneNormal, b.ReducedPanels = mgl64.Vec3{0, 0, 1}, 4
	if _, err := w.AddRigidBody("even", b); err == nil || !strings.Contains(err.Error(), `bodies["even"].reducedPanels: 4 must be 0 or odd`) {
		t.Errorf("even panel count: got %v", err)
	}
	b.ReducedPanels = 3
	b.Size, b.Position = mgl64.Vec3{0.6, 0.1, 0.1}, mgl64.Vec3{0.5, 0.3, 0}
	mustRigid(t, w, "plank", b)
	d := components.DefaultReducedDomain()
	d.Width, d.Height = 1, 0.5
	if _, err := w.AddReducedDomain("air", d); err == nil || !strings.Contains(err.Error(), `bodies["plank"].size: a 0.6 × 0.1 m outline is too large for reduced domain "air" of 1 × 0.5 m`) {
		t.Errorf("body larger than the domain: got %v", err)
	}
}

// reducedState is every number the coupled run carries: the boxes' poses and velocities and
// the domain's reduced coefficients.
func reducedState(t *testing.T, w *sluice.World) []float64 {
	t.Helper()
	var out []float64
	for _, name := range []string{"lower", "upper"} {
		e, ok := w.BodyByName(name)
		if !ok {
			t.Fatalf("no body %q", name)
		}
		st := w.RigidBody(e).State
		out = append(out, st.X[:]...)
		out = append(out, st.Q[:]...)
		out = append(out, st.V[:]...)
		out = append(out, st.W[:]...)
	}
	dom, ok := w.ReducedDomainByName("air")
	if !ok {
		t.Fatal("no reduced domain \"air\"")
	}
	return append(out, w.ReducedDomain(dom).Coefficients(nil)...)
}

func stepN(t *testing.T, w *sluice.World, k int, dt float64) {
	t.Helper()
	for range k {
		if _, err := w.Step(dt); err != nil {
			t.Fatal(err)
		}
	}
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: value %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestReducedDeterministicAcrossWorkersAndSnapshot: the drafting run (two coupled boxes, the
// reduced air) is bit-identical on 1, 2 and 8 workers, and a run saved half-way and restored
// (on another worker count) continues bit-identically.
func TestReducedDeterministicAcrossWorkersAndSnapshot(t *testing.T) {
	const n, dt = 40, 1.0 / 120
	var ref []float64
	for _, workers := range []int{1, 2, 8} {
		w, _, _ := draftWorld(t, workers, 1.5, 1.75)
		stepN(t, w, n, dt)
		got := reducedState(t, w)
		if ref == nil {
			ref = got
			continue
		}
		sameBits(t, fmt.Sprintf("%d workers against 1", workers), got, ref)
	}
	w, _, _ := draftWorld(t, 2, 1.5, 1.75)
	stepN(t, w, n/2, dt)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := sluice.Restore(&buf, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stepN(t, r, n/2, dt)
	sameBits(t, "restored half-way", reducedState(t, r), ref)
}

// freeFallTol: with no air force a dynamic body's velocity changes by g·Δt per substep
// exactly in semi-implicit Euler; the sum over a step rounds to 1e-12 m/s.
const freeFallTol = 1e-12

// TestReducedRemove: removing a coupled body drops its panels from the next step while the
// other box stays coupled (the air still slows its fall below g); removing the domain stops
// the air's forces (the box then gains exactly g·Δt per step), takes its stats out, and a
// second removal is an error.
func TestReducedRemove(t *testing.T) {
	const dt = 1.0 / 120
	w, dom, boxes := draftWorld(t, 2, 1.5, 1.75)
	stepN(t, w, 10, dt)
	if err := w.Remove(boxes[1]); err != nil {
		t.Fatal(err)
	}
	lo := w.RigidBody(boxes[0])
	v0 := lo.State.V[1]
	st, err := w.Step(dt)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Reduced) != 1 || st.Reduced[0].Bodies != 1 || st.Reduced[0].Panels != 12 {
		t.Fatalf("after removing the upper box: stats %+v, want 1 body with 12 panels", st.Reduced)
	}
	// the falling box meets the air: its speed grows by less than g·Δt
	if dv := v0 - lo.State.V[1]; !(dv < 9.81*dt*(1-1e-6)) {
		t.Errorf("coupled box gained %.6g m/s in a step, free fall %.6g m/s: the air no longer pushes it", dv, 9.81*dt)
	}
	if err := w.Remove(dom); err != nil {
		t.Fatal(err)
	}
	if w.ReducedDomain(dom) != nil {
		t.Error("the removed domain is still reachable")
	}
	if err := w.Remove(dom); err == nil {
		t.Error("removing the domain twice was not an error")
	}
	for range 3 {
		v0 := lo.State.V[1]
		st, err := w.Step(dt)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Reduced) != 0 {
			t.Errorf("stats still list domains: %+v", st.Reduced)
		}
		if dv := v0 - lo.State.V[1]; math.Abs(dv-9.81*dt) > freeFallTol {
			t.Errorf("without the domain the box gained %.15g m/s in a step, free fall %.15g m/s", dv, 9.81*dt)
		}
	}
}
