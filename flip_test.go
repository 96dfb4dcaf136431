package sluice_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/flip"
	"github.com/sluicephysics/sluice/physics/par"
)

// flipSubstep is the world substep of the FLIP tests (dtMin = dtMax): the substeps of a frame
// are then known, so a standalone flip.Sim can take exactly the world's steps.
const flipSubstep = 1.0 / 240

// flipTank is a 0.8 × 0.6 × 0.3 m grid box of 5 cm cells holding a 0.3 m wide, 0.4 m high
// column of water against its −x wall (a small dam break), and a solid box wall on the floor
// in the liquid's path.
func flipTank() (liq components.FlipLiquid, lo, hi, wallLo, wallHi mgl64.Vec3) {
	liq = components.DefaultFlipLiquid()
	liq.GridMin, liq.GridMax = mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.8, 0.6, 0.3}
	liq.CellSize = 0.05
	return liq, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0.4, 0.3}, mgl64.Vec3{0.5, 0, 0}, mgl64.Vec3{0.6, 0.1, 0.3}
}

// flipWorld builds the flipTank world; with ball, a floating rigid ball (radius 5 cm,
// 500 kg/m³) starts half in the liquid column and a small block of SPH oil (500 kg/m³) sits in
// it, so both couplings run too.
func flipWorld(t *testing.T, workers int, ball bool) (*sluice.World, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.DtMin, s.DtMax = flipSubstep, flipSubstep
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	liq, lo, hi, wlo, whi := flipTank()
	if _, err := w.AddBoundaryBox("step", wlo, whi, false); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFlipBlock("water", components.DefaultMaterial(), liq, lo, hi, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	if ball {
		d := components.DefaultRigidBody()
		d.Shape, d.Radius, d.Density, d.Position = "sphere", 0.05, 500, mgl64.Vec3{0.15, 0.4, 0.15}
		if _, err := w.AddRigidBody("ball", d); err != nil {
			t.Fatal(err)
		}
		oil := components.DefaultMaterial()
		oil.RestDensity = 500
		if _, err := w.AddFluidBlock("oil", oil, mgl64.Vec3{0.1, 0.05, 0.05}, mgl64.Vec3{0.25, 0.2, 0.25}, mgl64.Vec3{}); err != nil {
			t.Fatal(err)
		}
	}
	return w, e
}

// ballState returns the rigid ball's position and velocity and the oil's positions and
// velocities.
func ballState(t *testing.T, w *sluice.World) []mgl64.Vec3 {
	e, ok := w.BodyByName("ball")
	o, ok2 := w.BodyByName("oil")
	if !ok || !ok2 {
		t.Fatal("no ball or oil")
	}
	st := w.RigidBody(e).State
	p := w.Particles(o)
	if p.Len() == 0 {
		t.Fatal("the oil is gone")
	}
	return append(append([]mgl64.Vec3{st.X, st.V}, p.X...), p.V...)
}

// flipWorldMatch is how far the world's FLIP particles may lie from the standalone Sim's
// after the frames of TestFlipBodyStepsAsThePackage: the two differ only in how the solid
// wall's clipped surface point is computed (x − d·n against a clamp, equal to round-off, see
// physics/flip.TestSDFObstacleMatchesBox), so they may part by round-off that a splash
// amplifies (measured: 0 m, bit-identical). A wrong gravity, density, step length, obstacle
// or a lost particle moves particles by millimetres or more (a density of 999 instead of
// 1000 kg/m³ fails it).
const flipWorldMatch = 1e-6 // m

// TestFlipBodyStepsAsThePackage: a flip body in a world is the physics/flip liquid — the world
// takes, per substep, the FLIP steps a standalone flip.Sim with the same parameters, gravity,
// density and obstacle (the world's solid wall as an ObstacleBox) takes, and its particles
// end where the standalone's do. Particle count and total mass are conserved exactly, and
// the step's statistics are the Sim's.
func TestFlipBodyStepsAsThePackage(t *testing.T) {
	w, e := flipWorld(t, 2, false)
	liq, lo, hi, wlo, whi := flipTank()
	pool := par.NewPool(1)
	defer pool.Close()
	ref, err := flip.New(liq.Params(1000, w.Settings().Gravity), []flip.Obstacle{{Kind: flip.ObstacleBox, Min: wlo, Max: whi}}, pool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ref.AddBlock(lo, hi, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	n := p.Len()
	if n != len(ref.X) || n == 0 {
		t.Fatalf("the world seeded %d particles, the package %d", n, len(ref.X))
	}
	// mass-full FLIP: every particle carries ρ·h³/n³, so the body holds ρ times its cells' volume
	mass0 := 0.0
	for _, m := range p.M {
		mass0 += m
	}
	if want := 1000 * float64(n) * 0.05 * 0.05 * 0.05 / 8; math.Abs(mass0-want) > 1e-9*want {
		t.Fatalf("body mass %g kg, want ρ·h³/8 per particle = %g kg", mass0, want)
	}
	const frames = 15
	frame := 1.0 / 60
	steps := 0
	for f := 0; f < frames; f++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		// the world clock's substeps (ecs.Clock.AdvanceVar with a fixed substep)
		for rem := frame; rem > 1e-12*frame; {
			dt := flipSubstep
			if dt >= rem*(1-1e-9) {
				dt = rem
			} else if dt > 0.5*rem {
				dt = 0.5 * rem
			}
			k := max(1, int(math.Ceil(dt/ref.MaxStep()-1e-12)))
			for range k {
				if err := ref.Step(dt / float64(k)); err != nil {
					t.Fatal(err)
				}
				steps++
			}
			rem -= dt
		}
		if len(st.Flip) != 1 {
			t.Fatalf("frame %d: %d flip stats, want 1", f, len(st.Flip))
		}
		fs := st.Flip[0]
		rs := ref.Stats()
		if fs.Name != "water" || fs.Grid != [3]int{16, 12, 6} || fs.Particles != n || fs.LiquidCells != rs.LiquidCells || fs.ParticlesPerCell != rs.PerCell || fs.SolveIterations <= 0 {
			t.Fatalf("frame %d: flip stats %+v; the package's last step %+v", f, fs, rs)
		}
	}
	if got := w.FlipState(e).Sim.Totals().Steps; got != steps {
		t.Fatalf("the world took %d FLIP steps, the package %d", got, steps)
	}
	p = w.Particles(e)
	if p.Len() != n {
		t.Fatalf("%d particles after the frames, started with %d", p.Len(), n)
	}
	worst := 0.0
	for i, x := range p.X {
		worst = max(worst, x.Sub(ref.X[i]).Len())
		if x[0] > wlo[0] && x[0] < whi[0] && x[1] > wlo[1] && x[1] < whi[1] && x[2] > wlo[2] && x[2] < whi[2] {
			t.Fatalf("particle %d at %v is inside the solid wall", i, x)
		}
	}
	front := 0.0
	for _, x := range p.X {
		front = max(front, x[0])
	}
	t.Logf("world and package differ by up to %.3g m after %d FLIP steps; the front is at x = %.3f m", worst, steps, front)
	if front < wlo[0] {
		t.Fatalf("the front is at x = %g m: the liquid never reached the wall (x = %g m), the test does not exercise the obstacle", front, wlo[0])
	}
	if worst > flipWorldMatch {
		t.Fatalf("world and package particles differ by up to %g m (allowed %g m)", worst, flipWorldMatch)
	}
	moved := 0.0
	for i, x := range p.X {
		moved = max(moved, x.Sub(w.FlipState(e).Sim.X[i]).Len())
	}
	if moved != 0 {
		t.Fatalf("the body's particles are not the Sim's (off by %g m)", moved)
	}
}

// TestFlipBodyDeterministic: a flip body's particles, a rigid ball and SPH oil floating in it
// are bit-identical for 1, 2 and 8 workers.
func TestFlipBodyDeterministic(t *testing.T) {
	var ref []mgl64.Vec3
	var refBall []mgl64.Vec3
	for _, workers := range []int{1, 2, 8} {
		w, e := flipWorld(t, workers, true)
		for f := 0; f < 4; f++ {
			if _, err := w.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		x := w.Particles(e).X
		if ref == nil {
			ref = append([]mgl64.Vec3(nil), x...)
			refBall = ballState(t, w)
			continue
		}
		if b := ballState(t, w); !slices.Equal(b, refBall) {
			t.Fatalf("%d workers: the ball or the oil differ from 1 worker's", workers)
		}
		for i := range x {
			if x[i] != ref[i] {
				t.Fatalf("%d workers: particle %d at %v, 1 worker %v", workers, i, x[i], ref[i])
			}
		}
	}
}

// TestFlipBodyRemoval: RemoveParticles takes exactly the named particles out of a flip body
// at the next Step (the others go on, the count drops by the number removed), and Remove
// takes the whole body and its FLIP state away.
func TestFlipBodyRemoval(t *testing.T) {
	w, e := flipWorld(t, 1, false)
	n := w.Particles(e).Len()
	if err := w.RemoveParticles(e, []int{0, 5, 5, n - 1}); err != nil {
		t.Fatal(err)
	}
	keep := append([]mgl64.Vec3(nil), w.Particles(e).X[1:5]...)
	if _, err := w.Step(1.0 / 60); err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	if p.Len() != n-3 || len(p.M) != n-3 || len(w.FlipState(e).Sim.X) != n-3 {
		t.Fatalf("%d particles (%d masses, %d in the Sim) after removing 3 of %d", p.Len(), len(p.M), len(w.FlipState(e).Sim.X), n)
	}
	// the first kept particles sat on the floor in the corner, where a frame moves them by
	// far less than the lattice spacing h/2 = 2.5 cm
	for i, x := range keep {
		if d := p.X[i].Sub(x).Len(); d > 0.0125 {
			t.Fatalf("particle %d moved %g m: the removal shifted the wrong ones", i, d)
		}
	}
	if err := w.Remove(e); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Step(1.0 / 60); err != nil {
		t.Fatal(err)
	}
	if len(w.Sim().Flip) != 0 {
		t.Fatalf("%d FLIP states after removing the body", len(w.Sim().Flip))
	}
}

// TestFlipBodyBadInput: the bad input, each refused with the key and the limit.
func TestFlipBodyBadInput(t *testing.T) {
	w, err := sluice.NewWorld(components.DefaultSolver(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	liq, lo, hi, _, _ := flipTank()
	cases := []struct {
		name string
		edit func(l *components.FlipLiquid)
		want []string
	}{
		{"zero cell", func(l *components.FlipLiquid) { l.CellSize = 0 }, []string{"cellSize", "0"}},
		{"one cell", func(l *components.FlipLiquid) { l.CellSize = 0.5 }, []string{"cellSize", "at least 2"}},
		{"memory", func(l *components.FlipLiquid) { l.CellSize = 0.001; l.MaxGridMemory = 1e9 }, []string{"cellSize", "maxGridMemory"}},
		{"particles per cell", func(l *components.FlipLiquid) { l.ParticlesPerAxis = 5 }, []string{"particlesPerAxis", "5"}},
		{"flip ratio", func(l *components.FlipLiquid) { l.FLIPRatio = 1.5 }, []string{"flipRatio", "1.5"}},
		{"inverted box", func(l *components.FlipLiquid) { l.GridMax[1] = -1 }, []string{"gridMax[1]"}},
		{"block outside", func(l *components.FlipLiquid) { l.GridMin[0] = 0.5 }, []string{"water", "no particle"}},
	}
	for _, c := range cases {
		l := liq
		c.edit(&l)
		_, err := w.AddFlipBlock("water", components.DefaultMaterial(), l, lo, hi, mgl64.Vec3{})
		if err == nil {
			t.Fatalf("%s: accepted", c.name)
		}
		for _, s := range c.want {
			if !strings.Contains(err.Error(), s) {
				t.Fatalf("%s: error %q does not name %q", c.name, err, s)
			}
		}
	}
	// a solid wall that fills the whole grid box leaves no liquid cell
	if _, err := w.AddBoundaryBox("block", mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{2, 2, 2}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddFlipBlock("water", components.DefaultMaterial(), liq, lo, hi, mgl64.Vec3{}); err == nil || !strings.Contains(err.Error(), "no cell") {
		t.Fatalf("a grid box filled by a wall: error %v", err)
	}
	if len(w.Sim().Flip) != 0 {
		t.Fatalf("%d FLIP states left by refused bodies", len(w.Sim().Flip))
	}
}

// TestFlipBodySnapshotContinuesBitIdentically: a world with a flip body, a rigid ball and SPH
// oil floating in it, saved mid-splash and restored, continues bit-identically (particles, the
// ball, the oil, and the solves' iteration counts, which depend on the warm starts the snapshot
// carries), and the restored body is a flip body with its grid and parameters.
func TestFlipBodySnapshotContinuesBitIdentically(t *testing.T) {
	w, e := flipWorld(t, 2, true)
	for f := 0; f < 3; f++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := sluice.Restore(&buf, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	re, ok := r.BodyByName("water")
	if !ok || r.Body(re).Phase != components.Flip || r.FlipState(re) == nil {
		t.Fatal("the restored world has no flip body water")
	}
	if got, want := r.FlipState(re).Liquid, w.FlipState(e).Liquid; got != want {
		t.Fatalf("restored parameters %+v, saved %+v", got, want)
	}
	for f := 0; f < 3; f++ {
		a, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		b, err := r.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		if a.Flip[0] != b.Flip[0] {
			t.Fatalf("frame %d after the restore: flip stats %+v, restored %+v", f, a.Flip[0], b.Flip[0])
		}
	}
	if a, b := ballState(t, w), ballState(t, r); !slices.Equal(a, b) {
		t.Fatal("the ball or the oil differ from the restored world's")
	}
	x, y := w.Particles(e), r.Particles(re)
	for i := range x.X {
		if x.X[i] != y.X[i] || x.V[i] != y.V[i] || x.M[i] != y.M[i] {
			t.Fatalf("particle %d: %v %v %g, restored %v %v %g", i, x.X[i], x.V[i], x.M[i], y.X[i], y.V[i], y.M[i])
		}
	}
}

// floatInFlip drops a ball of 10 cm radius and density rho onto the surface of a 30 cm deep
// FLIP tank (60 cm box of 5 cm cells, the same box a wall tank for the ball's contacts; one
// FLIP step per 1/60 s substep) and returns, averaged over the last second of 4 s, the ball's
// centre height and the liquid's upward impulse on it per second, with the level the liquid's
// volume (particles × h³/8) and the ball's submerged volume make, and the ball's weight. The
// ball's linear and angular damping of 3 1/s take out the bobbing (the coupling is explicit,
// one step, and the unilateral liquid lets go of a rising ball): damping changes no
// equilibrium.
func floatInFlip(t *testing.T, rho float64) (y, force, level, weight float64) {
	t.Helper()
	sv := components.DefaultSolver()
	sv.DtMax = 1.0 / 60
	w, err := sluice.NewWorld(sv, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.6}, true); err != nil {
		t.Fatal(err)
	}
	const radius = 0.1
	d := components.DefaultRigidBody()
	d.Shape, d.Radius, d.Density, d.Position = "sphere", radius, rho, mgl64.Vec3{0.3, 0.41, 0.3}
	d.LinearDamping, d.AngularDamping = 3, 3
	ball, err := w.AddRigidBody("ball", d)
	if err != nil {
		t.Fatal(err)
	}
	liq := components.DefaultFlipLiquid()
	liq.GridMin, liq.GridMax, liq.CellSize = mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.6}, 0.05
	water, err := w.AddFlipBlock("water", components.DefaultMaterial(), liq, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.3, 0.6}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	const seconds = 4
	n := 0.0
	for f := 0; f < 60*seconds; f++ {
		rb := w.RigidBody(ball).State
		p0 := rb.Mass * rb.V[1]
		x0 := rb.X[1]
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		rb = w.RigidBody(ball).State
		weight = rb.Mass * 9.81
		// Over a substep the ball's momentum changes by gravity's impulse, the damping's and
		// the liquid's: the reaction is the momentum it takes (while it floats free of walls).
		if rho < 1000 && x0 > radius+0.05 {
			v1 := (p0/rb.Mass - 9.81/60) / (1 + 3.0/60) // gravity, then the damping of the substep
			if dp, want := rb.Mass*rb.V[1]-rb.Mass*v1, st.Flip[0].RigidImpulse[1]; math.Abs(dp-want) > flipMomentumTol*weight {
				t.Fatalf("frame %d: the ball's momentum changed by %g N·s beyond gravity and damping, the liquid's impulse was %g N·s", f, dp, want)
			}
		}
		if st.T < seconds-1 {
			continue
		}
		n++
		y += rb.X[1]
		force += st.Flip[0].RigidImpulse[1] * 60
	}
	vol := float64(w.Particles(water).Len()) * 0.05 * 0.05 * 0.05 / 8
	level = (vol + min(rho/1000, 1)*4.0/3*math.Pi*radius*radius*radius) / 0.36
	return y / n, force / n, level, weight
}

// Tolerances of TestFlipFloatsAndSinks.
const (
	// flipDraftTol is how far (m) the floating ball's centre may lie from where Archimedes
	// puts it (at the level, for a ball of half the liquid's density): 3/10 of a 5 cm cell.
	// The free surface of a mass-full FLIP liquid is blurred by the filter over about a cell,
	// and the reaction on a body through the surface depends on where the body's blurred
	// surface falls in its cells (physics/flip.TestBodyBuoyancy: +2.4 % for a cell-aligned
	// box); measured: the ball rides 9 mm high.
	flipDraftTol = 0.015
	// flipSupportTol: averaged over a second, the liquid carries the floating ball's weight to
	// within 5 % (the ball still moves by millimetres).
	flipSupportTol = 0.05
	// flipMomentumTol: the ball's momentum change beyond gravity and damping equals the
	// liquid's reported impulse to round-off, as a fraction of one second of its weight.
	flipMomentumTol = 1e-9
	// flipRestTol: a sunk ball rests on the floor within a spacing of the wall's contact
	// (contacts keep surfaces r apart).
	flipRestTol = 0.05
)

// TestFlipFloatsAndSinks: a rigid ball of density 500 kg/m³ dropped on a FLIP tank floats at
// its Archimedes draft (its centre at the level the liquid's volume and the displaced volume
// make), the liquid carries its weight, and the pressure's reaction is the momentum it takes
// (two-way); a ball of 2000 kg/m³ sinks to the floor, where the liquid still lifts it by its
// buoyancy.
func TestFlipFloatsAndSinks(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if raceEnabled {
		t.Skip("8 s of a FLIP tank with a rigid body: too slow under the race detector")
	}
	y, force, level, weight := floatInFlip(t, 500)
	t.Logf("ρ = 500: centre at %.4f m, Archimedes %.4f m; the liquid carries %.2f N of %.2f N", y, level, force, weight)
	if math.Abs(y-level) > flipDraftTol {
		t.Errorf("ρ = 500: the ball's centre is at %.4f m, Archimedes puts it at the level %.4f m (±%g m)", y, level, flipDraftTol)
	}
	if math.Abs(force/weight-1) > flipSupportTol {
		t.Errorf("ρ = 500: the liquid carries %.2f N of the ball's %.2f N", force, weight)
	}
	y, force, _, weight = floatInFlip(t, 2000)
	t.Logf("ρ = 2000: centre at %.4f m; the liquid carries %.2f N of %.2f N", y, force, weight)
	if y > 0.1+flipRestTol {
		t.Errorf("ρ = 2000: the ball's centre is at %.4f m, on the floor it is at 0.1 m", y)
	}
	// on the floor, under water, the liquid still lifts it by the weight of the liquid its
	// whole volume displaces (the floor carries the rest)
	if b := 1000 * 9.81 * 4.0 / 3 * math.Pi * 0.001; math.Abs(force/b-1) > flipSupportTol {
		t.Errorf("ρ = 2000: the liquid lifts the sunk ball by %.2f N, its buoyancy is %.2f N", force, b)
	}
}

// flipSPHTol: a small block of SPH fluid ends within a cell (5 cm) of where buoyancy in the
// FLIP liquid puts it: the surface for a light one (its particles' mean height against the
// level of 30 cm), the floor for a heavy one. A block of 18 particles at 5 cm spacing is a
// cell thick; the test tells floating from sinking, not a draft.
const flipSPHTol = 0.05

// TestFlipBuoysSPHFluid: SPH fluid in a FLIP tank is an obstacle to the liquid and takes the
// pressure's reaction −V·∇P: a block of 500 kg/m³ starting on the floor rises to the surface,
// one of 2000 kg/m³ stays on the floor (2 s each).
func TestFlipBuoysSPHFluid(t *testing.T) {
	if raceEnabled {
		t.Skip("4 s of a FLIP tank with SPH fluid: too slow under the race detector")
	}
	for _, rho := range []float64{500, 2000} {
		sv := components.DefaultSolver()
		sv.DtMax = 1.0 / 120
		w, err := sluice.NewWorld(sv, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.6}, true); err != nil {
			t.Fatal(err)
		}
		m := components.DefaultMaterial()
		m.RestDensity = rho
		oil, err := w.AddFluidBlock("oil", m, mgl64.Vec3{0.2, 0.05, 0.2}, mgl64.Vec3{0.4, 0.2, 0.4}, mgl64.Vec3{})
		if err != nil {
			t.Fatal(err)
		}
		liq := components.DefaultFlipLiquid()
		liq.GridMin, liq.GridMax, liq.CellSize = mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.6}, 0.05
		if _, err := w.AddFlipBlock("water", components.DefaultMaterial(), liq, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.3, 0.6}, mgl64.Vec3{}); err != nil {
			t.Fatal(err)
		}
		var up float64
		for f := 0; f < 120; f++ {
			st, err := w.Step(1.0 / 60)
			if err != nil {
				t.Fatal(err)
			}
			up += st.Flip[0].ParticleImpulse[1]
		}
		y := 0.0
		p := w.Particles(oil)
		for _, x := range p.X {
			y += x[1]
		}
		y /= float64(p.Len())
		t.Logf("ρ = %g: %d SPH particles at mean height %.4f m; the liquid pushed them up by %.3f N·s", rho, p.Len(), y, up)
		if rho < 1000 && math.Abs(y-0.3) > flipSPHTol {
			t.Errorf("ρ = %g: the block is at %.4f m, the surface at 0.3 m", rho, y)
		}
		if rho > 1000 && y > flipSPHTol {
			t.Errorf("ρ = %g: the block is at %.4f m, not on the floor", rho, y)
		}
	}
}
