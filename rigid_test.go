package sluice_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// rigidWorld is a world at r = 1 cm for rigid-body tests, with the given gravity.
func rigidWorld(t *testing.T, g mgl64.Vec3) *sluice.World {
	t.Helper()
	s := components.DefaultSolver()
	s.Gravity = g
	return rigidWorldWith(t, s)
}

// rigidWorldWith is rigidWorld with the solver settings s (its particle radius set to 1 cm).
func rigidWorldWith(t *testing.T, s components.Solver) *sluice.World {
	t.Helper()
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

func mustRigid(t *testing.T, w *sluice.World, name string, d components.RigidBody) sluice.Entity {
	t.Helper()
	e, err := w.AddRigidBody(name, d)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func steps(t *testing.T, w *sluice.World, n int, each func(sluice.StepStats)) {
	t.Helper()
	for i := 0; i < n; i++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		if each != nil {
			each(st)
		}
	}
}

// TestRigidFreeFallAndForce: a dynamic body falls with v = g t, and a constant force F acting
// for 1 s without gravity changes its velocity by F/m; semi-implicit Euler integrates a
// constant acceleration's velocity exactly, so both hold to round-off.
func TestRigidFreeFallAndForce(t *testing.T) {
	const roundOff = 1e-9 // relative: sums of a few hundred substeps
	g := mgl64.Vec3{0, -9.81, 0}
	w := rigidWorld(t, g)
	d := components.DefaultRigidBody()
	d.Shape, d.Radius = "sphere", 0.05
	ball := mustRigid(t, w, "ball", d)
	steps(t, w, 60, nil)
	v := w.RigidBody(ball).State.V
	if e := v.Sub(g.Mul(w.Time())).Len() / (9.81 * w.Time()); e > roundOff {
		t.Errorf("free fall: v = %v after %g s, want %v (relative error %.3g)", v, w.Time(), g.Mul(w.Time()), e)
	}

	w2 := rigidWorld(t, mgl64.Vec3{})
	d.Shape, d.Size = "box", mgl64.Vec3{0.1, 0.2, 0.3}
	box := mustRigid(t, w2, "box", d)
	rb := w2.RigidBody(box)
	f := mgl64.Vec3{3, -2, 1}
	rb.State.Force = f
	steps(t, w2, 60, nil)
	m := w2.RigidBody(box).State.Mass
	if math.Abs(m-1000*0.1*0.2*0.3) > 1e-12 {
		t.Fatalf("mass %g, want %g", m, 6.0)
	}
	dv := w2.RigidBody(box).State.V
	if e := dv.Sub(f.Mul(w2.Time()/m)).Len() / (f.Len() / m); e > roundOff {
		t.Errorf("force %v for %g s: Δv = %v, want %v", f, w2.Time(), dv, f.Mul(w2.Time()/m))
	}
}

// TestRigidTorque: a torque about a principal axis of a box spins it up at τ/I; on an
// L-shaped (off-centre) mesh the angular acceleration is I⁻¹τ with the full tensor, whose
// products of inertia turn ω away from τ. Both are checked in the first small rotation,
// before the gyroscopic term matters.
func TestRigidTorque(t *testing.T) {
	const tol = 1e-3 // ω after 1/60 s: the gyroscopic term ω×Iω is second order in t
	w := rigidWorld(t, mgl64.Vec3{})
	d := components.DefaultRigidBody()
	d.Size = mgl64.Vec3{0.2, 0.1, 0.3}
	box := mustRigid(t, w, "box", d)
	tau := mgl64.Vec3{0, 0, 0.05}
	w.RigidBody(box).State.Torque = tau
	steps(t, w, 1, nil)
	st := w.RigidBody(box).State
	m := st.Mass
	izz := m / 12 * (0.2*0.2 + 0.1*0.1)
	want := tau[2] / izz * w.Time()
	if e := math.Abs(st.W[2]/want - 1); e > tol {
		t.Errorf("box: ω_z = %g after %g s, τ/I t = %g", st.W[2], w.Time(), want)
	}

	// an L of two boxes: [0,0.3]×[0,0.1]×[0,0.1] and [0,0.1]×[0.1,0.3]×[0,0.1]
	lmesh := lShape()
	d.Shape, d.Mesh, d.Position = "mesh", &lmesh, mgl64.Vec3{1, 0, 0}
	l := mustRigid(t, w, "L", d)
	w.RigidBody(l).State.Torque = tau
	t0 := w.Time()
	steps(t, w, 1, nil)
	lb := w.RigidBody(l).State
	mp, err := lmesh.Properties(d.Density)
	if err != nil {
		t.Fatal(err)
	}
	if mp.Inertia[1] == 0 {
		t.Fatal("the L should have a product of inertia I_xy")
	}
	inv, _ := mp.Inertia.Inverse()
	alpha := inv.MulVec(tau)
	for k := 0; k < 3; k++ {
		want := alpha[k] * (w.Time() - t0)
		if math.Abs(lb.W[k]-want) > tol*alpha.Len()*(w.Time()-t0) {
			t.Errorf("L: ω[%d] = %g, I⁻¹τ t = %g", k, lb.W[k], want)
		}
	}
	// the mass centre of the L: (0.3·0.15 + 0.2·0.05)/0.5 = 0.11 in x, (0.3·0.05 + 0.2·0.2)/0.5 = 0.11 in y
	if math.Abs(mp.Center[0]-0.11) > 1e-12 || math.Abs(mp.Center[1]-0.11) > 1e-12 {
		t.Errorf("L centre of mass %v, want [0.11 0.11 0.05]", mp.Center)
	}
}

// lShape is the closed mesh of an L-shaped prism (extruded along z from 0 to 0.1).
func lShape() rigid.Shape {
	outline := [][2]float64{{0, 0}, {0.3, 0}, {0.3, 0.1}, {0.1, 0.1}, {0.1, 0.3}, {0, 0.3}}
	var v []mgl64.Vec3
	for _, z := range []float64{0, 0.1} {
		for _, p := range outline {
			v = append(v, mgl64.Vec3{p[0], p[1], z})
		}
	}
	n := int32(len(outline))
	var tris [][3]int32
	// caps: the L split into two convex quads (0,1,2,3) and (0,3,4,5)
	for _, q := range [][4]int32{{0, 1, 2, 3}, {0, 3, 4, 5}} {
		tris = append(tris, [3]int32{q[0], q[2], q[1]}, [3]int32{q[0], q[3], q[2]})                         // bottom, facing −z
		tris = append(tris, [3]int32{q[0] + n, q[1] + n, q[2] + n}, [3]int32{q[0] + n, q[2] + n, q[3] + n}) // top
	}
	for i := int32(0); i < n; i++ {
		j := (i + 1) % n
		tris = append(tris, [3]int32{i, j, j + n}, [3]int32{i, j + n, i + n})
	}
	return rigid.Shape{Kind: rigid.Mesh, V: v, Tris: tris}
}

// TestRigidBounce: a ball of restitution 0.5 dropped from 1 m rebounds to e²·1 m = 0.25 m.
func TestRigidBounce(t *testing.T) {
	const tol = 0.10 // the issue's ±10 %
	const r = 0.01   // contact distance: the samples' radius
	w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
	if _, err := w.AddBoundaryBox("floor", mgl64.Vec3{-0.5, -0.1, -0.5}, mgl64.Vec3{0.5, 0, 0.5}, false); err != nil {
		t.Fatal(err)
	}
	d := components.DefaultRigidBody()
	d.Shape, d.Radius, d.Restitution = "sphere", 0.1, 0.5
	d.Position = mgl64.Vec3{0, r + 1 + 0.1, 0}
	ball := mustRigid(t, w, "ball", d)
	up, peak := false, 0.0
	steps(t, w, 75, func(sluice.StepStats) {
		s := w.RigidBody(ball).State
		if s.V[1] > 0 {
			up = true
		}
		if up {
			peak = max(peak, s.X[1]-0.1-r)
		}
	})
	if !up || math.Abs(peak/0.25-1) > tol {
		t.Errorf("rebound height %.4f m, want 0.25 m ± %g %%", peak, 100*tol)
	}
}

// TestRigidSlopeFriction: on a 35° slope (tan 35° = 0.70) a box with μ = 0.3 slides, one with
// μ = 0.8 stays. The sliding one moves with a = g(sin θ − μ cos θ) while on the slope.
func TestRigidSlopeFriction(t *testing.T) {
	const stay = 0.002 // m over 0.5 s: static friction holds to the contact solver's creep
	const slideTol = 0.15
	a := 35 * math.Pi / 180
	for _, mu := range []float64{0.3, 0.8} {
		w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
		u := mgl64.Vec3{math.Cos(a), math.Sin(a), 0}.Mul(1.5)
		if _, err := w.AddBoundaryRect("slope", mgl64.Vec3{0, 0, 0.2}, u, mgl64.Vec3{0, 0, -0.4}); err != nil {
			t.Fatal(err)
		}
		d := components.DefaultRigidBody()
		d.Size, d.Friction = mgl64.Vec3{0.1, 0.1, 0.1}, mu
		n := mgl64.Vec3{-math.Sin(a), math.Cos(a), 0}
		d.Position = u.Normalize().Mul(1.2).Add(n.Mul(0.05 + 0.01))
		q := mgl64.QuatRotate(a, mgl64.Vec3{0, 0, 1})
		d.Orientation = [4]float64{q.W, q.V[0], q.V[1], q.V[2]}
		box := mustRigid(t, w, "box", d)
		x0 := w.RigidBody(box).State.X
		steps(t, w, 30, nil)
		moved := w.RigidBody(box).State.X.Sub(x0).Len()
		want := 0.5 * 9.81 * (math.Sin(a) - mu*math.Cos(a)) * w.Time() * w.Time()
		if mu == 0.8 && moved > stay {
			t.Errorf("μ = 0.8: the box moved %.4f m on a 35° slope", moved)
		}
		if mu == 0.3 && math.Abs(moved/want-1) > slideTol {
			t.Errorf("μ = 0.3: the box slid %.4f m in %.2f s, g(sin θ − μ cos θ)t²/2 = %.4f m", moved, w.Time(), want)
		}
	}
}

// TestRigidStack: five boxes stacked on the floor stand for 5 s: the top one drifts less than
// one particle radius.
func TestRigidStack(t *testing.T) {
	const drift = 0.01 // one particle radius
	w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
	if _, err := w.AddBoundaryBox("floor", mgl64.Vec3{-0.5, -0.1, -0.5}, mgl64.Vec3{0.5, 0, 0.5}, false); err != nil {
		t.Fatal(err)
	}
	var boxes []sluice.Entity
	for i := 0; i < 5; i++ {
		d := components.DefaultRigidBody()
		d.Size = mgl64.Vec3{0.1, 0.1, 0.1}
		d.Position = mgl64.Vec3{0, 0.01 + 0.05 + 0.1*float64(i), 0}
		boxes = append(boxes, mustRigid(t, w, "box"+string(rune('0'+i)), d))
	}
	x0 := w.RigidBody(boxes[4]).State.X
	steps(t, w, 300, nil)
	for i, b := range boxes {
		x := w.RigidBody(b).State.X
		want := mgl64.Vec3{0, 0.01 + 0.05 + 0.1*float64(i), 0}
		if d := x.Sub(want).Len(); d > drift {
			t.Errorf("box %d drifted %.4f m in 5 s (top started at %v)", i, d, x0)
		}
	}
}

// TestRigidBadInput: non-positive density or mass, a non-closed mesh, a degenerate inertia
// tensor and a non-unit quaternion are rejected with the body and field named.
func TestRigidBadInput(t *testing.T) {
	w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
	open := lShape()
	open.Tris = open.Tris[:len(open.Tris)-1]
	cases := []struct {
		name string
		edit func(*components.RigidBody)
		want string
	}{
		{"zero density", func(d *components.RigidBody) { d.Density = 0 }, `bodies["zero density"].density`},
		{"negative mass", func(d *components.RigidBody) { d.Mass = -1 }, `bodies["negative mass"].mass`},
		{"open mesh", func(d *components.RigidBody) { d.Shape, d.Mesh = "mesh", &open }, `bodies["open mesh"].file: mesh is not closed`},
		{"flat inertia", func(d *components.RigidBody) { d.Inertia = mgl64.Vec3{1, 1, 0} }, `bodies["flat inertia"].inertia[2]`},
		{"impossible inertia", func(d *components.RigidBody) { d.Inertia = mgl64.Vec3{1, 1, 3} }, `bodies["impossible inertia"].inertia[2]`},
		{"long quaternion", func(d *components.RigidBody) { d.Orientation = [4]float64{1, 0.1, 0, 0} }, `bodies["long quaternion"].orientation`},
		{"thin box", func(d *components.RigidBody) { d.Size = mgl64.Vec3{0.2, 0.01, 0.2} }, `bodies["thin box"].size`},
		{"bad type", func(d *components.RigidBody) { d.Type = "floaty" }, `bodies["bad type"].type`},
		{"no layer", func(d *components.RigidBody) { d.CollisionLayers = 0 }, `bodies["no layer"].collisionLayers`},
		{"wide mask", func(d *components.RigidBody) { d.CollisionMask = 1 << 33 }, `bodies["wide mask"].collisionMask`},
	}
	for _, c := range cases {
		d := components.DefaultRigidBody()
		c.edit(&d)
		_, err := w.AddRigidBody(c.name, d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to name %s", c.name, err, c.want)
		}
	}
}

// floatRun drops a 10 cm cube of the given density into a 40 cm tank filled to 25 cm (r = 1 cm,
// about 4200 particles) at the height y0 of its centre, runs it for the given time and returns
// the world, the cube and the tank.
func floatRun(t *testing.T, rho, y0, seconds float64, each func(w *sluice.World, cube sluice.Entity, st sluice.StepStats)) {
	t.Helper()
	w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.5, 0.4}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.25, 0.4}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	d := components.DefaultRigidBody()
	d.Size, d.Density, d.Position = mgl64.Vec3{0.1, 0.1, 0.1}, rho, mgl64.Vec3{0.2, y0, 0.2}
	cube := mustRigid(t, w, "cube", d)
	if w.RigidBody(cube).Displaced == 0 {
		t.Fatal("the cube displaced no water")
	}
	steps(t, w, int(seconds*60+0.5), func(st sluice.StepStats) { each(w, cube, st) })
}

// TestArchimedes: after settling, a cube of density 500 kg/m³ floats with half its volume
// below the water surface, one of 1000 kg/m³ stays at its initial depth, one of 2000 kg/m³
// rests on the floor; and the tank carries the weight of the water plus the floating cube.
func TestArchimedes(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("3 × 2.5 s of a 4200-particle tank: skipped in -short and under -race")
	}
	const fracTol = 0.05   // the 50 % ± 5 %
	const loadTol = 0.02   // the 2 %
	const driftRate = 0.01 // m/s: one particle radius per second
	const levelTol = 0.005 // m: the hydrostatic surface against the top particle centres
	// "at rest" on the floor: the bottom's range over the last second, a tenth of the 2 cm
	// spacing. The contact leaves the cube's velocity at a frame's end jittering by up to
	// ±0.07 m/s (logged) while its bottom stays within 0.4 mm, so a frame's velocity is no
	// measure of rest.
	const restTravel = 0.002
	const seconds = 2.5 // the cube settles within 1.5 s; the last second is averaged
	const g, rho0 = 9.81, 1000.0
	for _, rho := range []float64{500, 1000, 2000} {
		y0 := map[float64]float64{500: 0.25, 1000: 0.15, 2000: 0.1}[rho]
		var frac, load, weight, n float64
		var y, vy, ymin, ymax, vmax float64
		ymin = math.Inf(1)
		floatRun(t, rho, y0, seconds, func(w *sluice.World, cube sluice.Entity, st sluice.StepStats) {
			rb := w.RigidBody(cube)
			y, vy = rb.State.X[1], rb.State.V[1]
			if st.T < seconds-1 {
				return
			}
			n++
			ymin, ymax, vmax = min(ymin, y), max(ymax, y), max(vmax, math.Abs(vy))
			frac += rb.Submerged
			load += -st.Bodies[0].Load[1]
			water := w.Particles(w.Bodies()[1].Entity)
			weight = float64(water.Len())*w.Sim().Volume0*rho0*g + rb.State.Mass*g
		})
		frac, load = frac/n, load/n
		switch rho {
		case 500:
			if math.Abs(frac-0.5) > fracTol {
				t.Errorf("ρ = 500: %.1f %% below the surface, want 50 ± %g %%", 100*frac, 100*fracTol)
			}
			fallthrough
		case 1000:
			if e := math.Abs(load/weight - 1); e > loadTol {
				t.Errorf("ρ = %g: the tank carries %.2f N, water and cube weigh %.2f N (%.2f %% off)", rho, load, weight, 100*e)
			}
		}
		switch rho {
		case 1000:
			if r := math.Abs(y-y0) / seconds; r > driftRate {
				t.Errorf("ρ = 1000: drifted %.4f m in %g s (%.4f m/s)", y-y0, seconds, r)
			}
		case 2000:
			t.Logf("ρ = 2000: over the last second the bottom ranged %.4f–%.4f m, |v_y| at frame ends up to %.3f m/s", ymin-0.05, ymax-0.05, vmax)
			if bottom := y - 0.05; bottom > 0.01+0.02 || ymax-ymin > restTravel {
				t.Errorf("ρ = 2000: bottom at %.4f m, ranging over %.4f m in the last second, want on the floor (contact at 0.01 m, within one spacing) and at rest (range ≤ %g m)", bottom, ymax-ymin, restTravel)
			}
		}
		t.Logf("ρ = %g: y = %.4f m, submerged %.3f, tank load %.2f N for %.2f N of weight", rho, y, frac, load, weight)
	}
}

// TestRigidDeterministicAndNoLeak: a kinematic paddle sweeping through a tank with a floating
// crate loses no particle through the paddle, the crate or the walls over 2 s, and the run is
// bit-identical on 1 and 3 workers.
func TestRigidDeterministicAndNoLeak(t *testing.T) {
	if raceEnabled {
		t.Skip("2 × 2 s of a 2000-particle tank: skipped under -race")
	}
	run := func(workers int) (mgl64.Vec3, []mgl64.Vec3, int) {
		s := components.DefaultSolver()
		s.ParticleRadius = 0.01
		w, err := sluice.NewWorld(s, workers)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.3, 0.2}, true); err != nil {
			t.Fatal(err)
		}
		water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.12, 0.2}, mgl64.Vec3{})
		if err != nil {
			t.Fatal(err)
		}
		p := components.DefaultRigidBody()
		p.Type, p.Size, p.Position = "kinematic", mgl64.Vec3{0.04, 0.2, 0.18}, mgl64.Vec3{0.06, 0.12, 0.1}
		paddle := mustRigid(t, w, "paddle", p)
		if err := w.SetMotion(paddle, components.Motion{Path: []components.MotionKey{{Until: 0.8, Velocity: mgl64.Vec3{0.3, 0, 0}}, {Until: 1.6, Velocity: mgl64.Vec3{-0.3, 0, 0}}}}); err != nil {
			t.Fatal(err)
		}
		c := components.DefaultRigidBody()
		c.Size, c.Density, c.Position = mgl64.Vec3{0.06, 0.06, 0.06}, 600, mgl64.Vec3{0.3, 0.16, 0.1}
		crate := mustRigid(t, w, "crate", c)
		n0 := w.Particles(water).Len()
		removed := 0
		steps(t, w, 120, func(st sluice.StepStats) {
			for _, r := range st.Removed {
				removed += r.Count
			}
		})
		xs := w.Particles(water).X
		out := 0
		for _, x := range xs {
			if x[0] < 0 || x[0] > 0.4 || x[1] < 0 || x[2] < 0 || x[2] > 0.2 {
				out++
			}
		}
		if removed > 0 || out > 0 || len(xs) != n0 {
			t.Errorf("%d workers: %d particles removed, %d outside the tank, %d of %d left", workers, removed, out, len(xs), n0)
		}
		return w.RigidBody(crate).State.X, append([]mgl64.Vec3(nil), xs...), len(xs)
	}
	c1, x1, _ := run(1)
	c3, x3, _ := run(3)
	if c1 != c3 {
		t.Errorf("crate at %v on 1 worker, %v on 3", c1, c3)
	}
	for i := range x1 {
		if x1[i] != x3[i] {
			t.Fatalf("particle %d at %v on 1 worker, %v on 3", i, x1[i], x3[i])
		}
	}
}

// TestRigidSnapshotContinues: a tank with water, a floating L-shaped mesh crate, a sinking
// ball and a kinematic paddle, saved at step 30 and restored (on another worker count),
// reaches step 60 bit-identically to a run that was never interrupted: poses, velocities,
// contact impulses and the fluid.
func TestRigidSnapshotContinues(t *testing.T) {
	if raceEnabled {
		t.Skip("2 × 1 s of a 1600-particle tank: 200 s under -race; the parallel loops it runs are race-tested by the shorter tests")
	}
	build := func(workers int) *sluice.World {
		s := components.DefaultSolver()
		s.ParticleRadius = 0.01
		w, err := sluice.NewWorld(s, workers)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.3, 0.2}, true); err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.1, 0.2}, mgl64.Vec3{}); err != nil {
			t.Fatal(err)
		}
		// the L at half size, so it fits the tank (at full size it reached through the wall)
		l := lShape()
		for i := range l.V {
			l.V[i] = l.V[i].Mul(0.5)
		}
		c := components.DefaultRigidBody()
		c.Shape, c.Mesh, c.Density, c.Position = "mesh", &l, 400, mgl64.Vec3{0.22, 0.12, 0.05}
		mustRigid(t, w, "crate", c)
		b := components.DefaultRigidBody()
		b.Shape, b.Radius, b.Density, b.Position = "sphere", 0.03, 3000, mgl64.Vec3{0.1, 0.2, 0.1}
		mustRigid(t, w, "ball", b)
		p := components.DefaultRigidBody()
		p.Type, p.Size, p.Position = "kinematic", mgl64.Vec3{0.03, 0.15, 0.18}, mgl64.Vec3{0.04, 0.1, 0.1}
		paddle := mustRigid(t, w, "paddle", p)
		if err := w.SetMotion(paddle, components.Motion{Path: []components.MotionKey{{Until: 1, Velocity: mgl64.Vec3{0.1, 0, 0}}}}); err != nil {
			t.Fatal(err)
		}
		return w
	}
	state := func(w *sluice.World) []mgl64.Vec3 {
		var out []mgl64.Vec3
		for _, b := range w.Bodies() {
			out = append(out, b.Particles.X...)
			if rb := w.RigidBody(b.Entity); rb != nil {
				q := rb.State.Q
				out = append(out, rb.State.X, rb.State.V, rb.State.W, mgl64.Vec3{q[0], q[1], q[2]})
			}
		}
		return out
	}
	ref := build(2)
	defer ref.Close()
	steps(t, ref, 60, nil)
	want := state(ref)

	w := build(2)
	steps(t, w, 30, nil)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := sluice.Restore(&buf, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	steps(t, r, 30, nil)
	got := state(r)
	if len(got) != len(want) {
		t.Fatalf("restored world has %d state vectors, uninterrupted %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("state vector %d: restored %v, uninterrupted %v", i, got[i], want[i])
		}
	}
}

// TestRigidNoLeaks: over 5 s at the largest CFL factor the solver accepts (1.0), a kinematic
// paddle sweeping back and forth through a tank, and a sloshing tank (the tank itself shaken)
// with a floating crate, lose no particle through any body: none is removed and none ends
// outside the tank.
func TestRigidNoLeaks(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("2 × 5 s of a 2000-particle tank: skipped in -short and under -race")
	}
	for _, slosh := range []bool{false, true} {
		s := components.DefaultSolver()
		s.ParticleRadius, s.CFL = 0.01, 1.0
		w, err := sluice.NewWorld(s, 2)
		if err != nil {
			t.Fatal(err)
		}
		tank, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.3, 0.2}, true)
		if err != nil {
			t.Fatal(err)
		}
		water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.12, 0.2}, mgl64.Vec3{})
		if err != nil {
			t.Fatal(err)
		}
		var path []components.MotionKey
		for k := 0; k < 10; k++ {
			v := 0.25
			if k%2 == 1 {
				v = -0.25
			}
			path = append(path, components.MotionKey{Until: 0.5 * float64(k+1), Velocity: mgl64.Vec3{v, 0, 0}})
		}
		mover := tank
		if slosh {
			c := components.DefaultRigidBody()
			c.Size, c.Density, c.Position = mgl64.Vec3{0.06, 0.06, 0.06}, 600, mgl64.Vec3{0.2, 0.13, 0.1}
			mustRigid(t, w, "crate", c)
			for k := range path {
				path[k].Velocity = path[k].Velocity.Mul(0.4)
			}
		} else {
			p := components.DefaultRigidBody()
			p.Type, p.Size, p.Position = "kinematic", mgl64.Vec3{0.03, 0.2, 0.18}, mgl64.Vec3{0.14, 0.12, 0.1}
			mover = mustRigid(t, w, "paddle", p)
		}
		if err := w.SetMotion(mover, components.Motion{Path: path}); err != nil {
			t.Fatal(err)
		}
		n0, removed := w.Particles(water).Len(), 0
		steps(t, w, 300, func(st sluice.StepStats) {
			for _, r := range st.Removed {
				removed += r.Count
			}
		})
		// the tank's displacement at the end of the path is zero (whole periods)
		out := 0
		for _, x := range w.Particles(water).X {
			if x[0] < 0 || x[0] > 0.4 || x[1] < 0 || x[2] < 0 || x[2] > 0.2 {
				out++
			}
		}
		if removed > 0 || out > 0 || w.Particles(water).Len() != n0 {
			t.Errorf("slosh %v: %d particles removed, %d outside the tank, %d of %d left", slosh, removed, out, w.Particles(water).Len(), n0)
		}
		w.Close()
	}
}

// TestRigidFluidMomentumExchange: without gravity or walls, a box flying into a goo ball, or
// off a goo ball that sticks to it or drags on it, exchanges momentum with the goo only
// through the pressure loads, the goo's connections (Takahashi 2015, Eq. 9) and the boundary
// viscosity: the total momentum of goo and box stays what it was, and adhesive goo or drag
// hold back a leaving box that plain goo lets go.
func TestRigidFluidMomentumExchange(t *testing.T) {
	const momentumTol = 1e-9 // relative to the box's initial momentum: round-off of the sums
	var speeds []float64
	for _, adhesion := range []float64{-1, 0, 0.5, -2} {
		w := rigidWorld(t, mgl64.Vec3{})
		// without viscosity: the Laplacian viscosity's pair forces m_i m_j/ρ_j and m_j m_i/ρ_i
		// differ where densities do (the ball's surface), so it does not conserve momentum
		mat := gooMaterial(0.05, 1)
		mat.Viscosity = 0
		ball, err := w.AddFluidSphere("goo", mat, mgl64.Vec3{0, 0, 0}, 0.06, mgl64.Vec3{})
		if err != nil {
			t.Fatal(err)
		}
		d := components.DefaultRigidBody()
		d.Size, d.Position, d.Velocity = mgl64.Vec3{0.08, 0.08, 0.08}, mgl64.Vec3{0.1, 0, 0}, mgl64.Vec3{0.3, 0, 0}
		box := mustRigid(t, w, "box", d)
		if adhesion == -1 {
			w.RigidBody(box).State.V = mgl64.Vec3{-0.3, 0, 0}
		} else if adhesion == -2 {
			w.Material(box).Drag = 0.05 // boundary viscosity: the water is dragged along
		} else {
			w.Material(box).Adhesion = adhesion
		}
		momentum := func() mgl64.Vec3 {
			rb := w.RigidBody(box).State
			p := rb.V.Mul(rb.Mass)
			m := w.Material(ball).RestDensity * w.Sim().Volume0
			for _, v := range w.Particles(ball).V {
				p = p.Add(v.Mul(m))
			}
			return p
		}
		p0 := momentum()
		steps(t, w, 30, nil)
		if e := momentum().Sub(p0).Len() / p0.Len(); e > momentumTol {
			t.Errorf("adhesion %g: momentum %v → %v (relative change %.3g)", adhesion, p0, momentum(), e)
		}
		speeds = append(speeds, w.RigidBody(box).State.V[0])
	}
	if !(speeds[0] > -0.3*0.9) || !(speeds[2] < 0.9*speeds[1]) || !(speeds[3] < speeds[1]) {
		t.Errorf("box speeds %v m/s: the ball should have slowed the box flying into it (from −0.3), and the adhesive goo and the drag held back the one leaving (from 0.3)", speeds)
	}
	t.Logf("box speed after 0.5 s: %.4f m/s after hitting the ball, %.4f m/s leaving free, %.4f m/s held by goo, %.4f m/s with drag", speeds[0], speeds[1], speeds[2], speeds[3])
}

// TestRigidSubstepsDoNotAllocate: with a floating crate with drag, a kinematic paddle on a
// path and a shaking tank (the walls re-indexed every substep), a Step of four substeps
// allocates exactly what a Step of one does: the rigid-body work allocates nothing per substep.
func TestRigidSubstepsDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates on its own")
	}
	s := components.DefaultSolver()
	s.ParticleRadius, s.DtMax = 0.01, 1e-4
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tank, _ := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0.2, 0.15}, true)
	w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0.1, 0.15}, mgl64.Vec3{})
	c := components.DefaultRigidBody()
	c.Size, c.Density, c.Position = mgl64.Vec3{0.05, 0.05, 0.05}, 500, mgl64.Vec3{0.2, 0.1, 0.075}
	crate := mustRigid(t, w, "crate", c)
	w.Material(crate).Drag = 0.01
	p := components.DefaultRigidBody()
	p.Type, p.Size, p.Position = "kinematic", mgl64.Vec3{0.03, 0.1, 0.1}, mgl64.Vec3{0.05, 0.08, 0.075}
	paddle := mustRigid(t, w, "paddle", p)
	slow := []components.MotionKey{{Until: 100, Velocity: mgl64.Vec3{0.01, 0, 0}}}
	if err := w.SetMotion(paddle, components.Motion{Path: slow}); err != nil {
		t.Fatal(err)
	}
	if err := w.SetMotion(tank, components.Motion{Path: slow}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if _, err := w.Step(1e-3); err != nil {
			t.Fatal(err)
		}
	}
	substepsAllocateNothing(t, w, s.DtMax)
}

// TestRigidOverlapReported: a body placed reaching 3 cm into the floor, or into another body,
// is refused with an error naming both bodies and the depth; one placed touching the floor
// (its surface on the floor's surface) is accepted; and a body that falls out of the domain is
// reported in every step's statistics from the step its centre leaves it.
func TestRigidOverlapReported(t *testing.T) {
	const depthTol = 1e-9 // m: the depth comes from exact distances of exactly placed samples
	w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
	if _, err := w.AddBoundaryBox("floor", mgl64.Vec3{-0.5, -0.1, -0.5}, mgl64.Vec3{0.5, 0, 0.5}, false); err != nil {
		t.Fatal(err)
	}
	d := components.DefaultRigidBody()
	d.Size, d.Position = mgl64.Vec3{0.1, 0.1, 0.1}, mgl64.Vec3{0, 0.05 - 0.03, 0}
	_, err := w.AddRigidBody("sunk", d)
	if err == nil || !strings.Contains(err.Error(), `bodies["sunk"]`) || !strings.Contains(err.Error(), `"floor"`) {
		t.Fatalf("a box 3 cm into the floor: error %v, want one naming the box and the floor", err)
	}
	var depth float64
	if _, err := fmt.Sscanf(err.Error()[strings.Index(err.Error(), " by ")+4:], "%g", &depth); err != nil || math.Abs(depth-0.03) > depthTol {
		t.Errorf("reported depth %g m (%v), want 0.03 m", depth, err)
	}
	d.Position = mgl64.Vec3{0, 0.05, 0}
	mustRigid(t, w, "touching", d)
	d.Position = mgl64.Vec3{0.08, 0.05, 0}
	if _, err := w.AddRigidBody("into the other", d); err == nil || !strings.Contains(err.Error(), `"touching"`) {
		t.Errorf("a box 2 cm into another: error %v, want one naming the other body", err)
	}

	// off the floor's edge: the box falls past the domain (the bodies' bounds widened by ten
	// support radii or half their size) within a second
	d.Position = mgl64.Vec3{0.7, 0.06, 0}
	mustRigid(t, w, "falling", d)
	var first float64
	steps(t, w, 90, func(st sluice.StepStats) {
		if slices.Contains(st.RigidOutside, "falling") && first == 0 {
			first = st.T
		}
		if first > 0 && !slices.Contains(st.RigidOutside, "falling") {
			t.Fatalf("t = %.3f s: the box outside the domain is no longer reported", st.T)
		}
	})
	lo, hi := w.Sim().DomainMin, w.Sim().DomainMax
	x := w.RigidBody(entityOf(t, w, "falling")).State.X
	if first == 0 || (x[1] >= lo[1] && x[1] <= hi[1]) {
		t.Errorf("the falling box at %v (domain %v–%v) was never reported outside", x, lo, hi)
	}
	t.Logf("the box left the domain at t = %.3f s", first)
}

// TestRigidSpinInWorld: a free box (moments in the ratio of its sides' squares) spun near its
// intermediate axis in an empty world flips over and over (the Dzhanibekov effect) while its
// kinetic energy and |L| stay within the 0.1 % for 60 s; the explicit gyroscopic term
// gained 9.3 % energy in 10 s at 5 ms steps.
func TestRigidSpinInWorld(t *testing.T) {
	const tol = 1e-3 // the 0.1 %
	w := rigidWorld(t, mgl64.Vec3{})
	d := components.DefaultRigidBody()
	d.Size = mgl64.Vec3{0.1, 0.2, 0.3}
	box := mustRigid(t, w, "box", d)
	w.RigidBody(box).State.W = rigid.Vec3{0.02, 3, 0.02}
	measure := func() (e, l float64, wy float64) {
		st := &w.RigidBody(box).State
		r := st.Q.Matrix()
		rt := r.Transpose()
		ri := r.Mul(&st.Inertia)
		iw := ri.Mul(&rt)
		lv := iw.MulVec(st.W)
		return 0.5 * (st.W[0]*lv[0] + st.W[1]*lv[1] + st.W[2]*lv[2]), math.Sqrt(lv[0]*lv[0] + lv[1]*lv[1] + lv[2]*lv[2]), r.MulTVec(st.W)[1]
	}
	e0, l0, _ := measure()
	flips, sign := 0, 1.0
	steps(t, w, 60*60, func(sluice.StepStats) {
		if _, _, wy := measure(); wy*sign < 0 {
			flips++
			sign = -sign
		}
	})
	e, l, _ := measure()
	if d := math.Abs(e/e0 - 1); d > tol {
		t.Errorf("energy changed by %.3g %% in 60 s", 100*d)
	}
	if d := math.Abs(l/l0 - 1); d > tol {
		t.Errorf("|L| changed by %.3g %% in 60 s", 100*d)
	}
	if flips < 2 {
		t.Errorf("the spin about the intermediate axis flipped %d times in 60 s, want several", flips)
	}
	t.Logf("energy %.2g, |L| %.2g, %d flips", e/e0-1, l/l0-1, flips)
}

// TestStatsTellRigidBodiesFromWalls: the per-step statistics list a rigid body with phase
// "rigid" and its motion type, and a wall with phase "boundary".
func TestStatsTellRigidBodiesFromWalls(t *testing.T) {
	w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.5, 0.5, 0.5}, true); err != nil {
		t.Fatal(err)
	}
	d := components.DefaultRigidBody()
	d.Size, d.Position = mgl64.Vec3{0.1, 0.1, 0.1}, mgl64.Vec3{0.25, 0.25, 0.25}
	mustRigid(t, w, "crate", d)
	st, err := w.Step(1.0 / 60)
	if err != nil {
		t.Fatal(err)
	}
	phases := map[string]string{}
	motion := ""
	for _, b := range st.Bodies {
		phases[b.Name] = b.Phase
		if b.Rigid != nil {
			motion = b.Rigid.Motion
		}
	}
	if phases["tank"] != "boundary" || phases["crate"] != "rigid" || motion != "dynamic" {
		t.Errorf("stats phases %v, crate motion %q; want the tank boundary and the crate rigid and dynamic", phases, motion)
	}
}
