package sluice_test

import (
	"bytes"
	"math"
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

func flipWorld(t *testing.T, workers int) (*sluice.World, sluice.Entity) {
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
	return w, e
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
	w, e := flipWorld(t, 2)
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

// TestFlipBodyDeterministic: a flip body's particles are bit-identical for 1, 2 and 8 workers.
func TestFlipBodyDeterministic(t *testing.T) {
	var ref []mgl64.Vec3
	for _, workers := range []int{1, 2, 8} {
		w, e := flipWorld(t, workers)
		for f := 0; f < 4; f++ {
			if _, err := w.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		x := w.Particles(e).X
		if ref == nil {
			ref = append([]mgl64.Vec3(nil), x...)
			continue
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
	w, e := flipWorld(t, 1)
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

// TestFlipBodySnapshotContinuesBitIdentically: a world with a flip body saved mid-splash and
// restored continues bit-identically (particles, and the solves' iteration counts, which
// depend on the warm starts the snapshot carries), and the restored body is a flip body with
// its grid and parameters.
func TestFlipBodySnapshotContinuesBitIdentically(t *testing.T) {
	w, e := flipWorld(t, 2)
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
	x, y := w.Particles(e), r.Particles(re)
	for i := range x.X {
		if x.X[i] != y.X[i] || x.V[i] != y.V[i] || x.M[i] != y.M[i] {
			t.Fatalf("particle %d: %v %v %g, restored %v %v %g", i, x.X[i], x.V[i], x.M[i], y.X[i], y.V[i], y.M[i])
		}
	}
}
