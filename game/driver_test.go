package game

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// fakeStepper is a simulation whose state after k steps is known exactly: particle i of a
// body sits at (i, k, 2k + 0.25). It records the step lengths it was asked for.
type fakeStepper struct {
	k      int
	n      int // particles
	dts    []float64
	failAt int     // step number that fails (0: never)
	counts []int   // overrides the body layout when set
	t      float64 // simulated time
}

func (f *fakeStepper) Step(dt float64) (sluice.StepStats, error) {
	if f.failAt > 0 && f.k+1 == f.failAt {
		return sluice.StepStats{}, errors.New("particle 3 of body \"water\" is not finite")
	}
	f.k++
	f.t += dt
	f.dts = append(f.dts, dt)
	return sluice.StepStats{T: f.t, Substeps: 1, Particles: f.n}, nil
}

func (f *fakeStepper) Capture(s *State) {
	s.T = f.t
	s.X = s.X[:0]
	for i := 0; i < f.n; i++ {
		s.X = append(s.X, float32(i), float32(f.k), float32(2*f.k)+0.25)
	}
	if f.counts != nil {
		s.Counts = append(s.Counts[:0], f.counts...)
	} else {
		s.Counts = append(s.Counts[:0], f.n)
	}
}

// remainderTol is the drift allowed between the driver's carried remainder and the exact
// remainder of the summed frame times: the rounding of a few hundred float64 additions.
const remainderTol = 1e-9

func TestAdvanceTakesTheDueSteps(t *testing.T) {
	// For frame rates below, at and above the physics rate, after every frame the total steps
	// taken are ⌊elapsed / h⌋ and the carried remainder is elapsed − steps·h, in [0, h).
	const rate = 60.0
	h := 1 / rate
	for _, frame := range []float64{1.0 / 240, 1.0 / 144, 1.0 / 120, 1.0 / 75, 1.0 / 60, 1.0 / 50, 1.0 / 30, 0.05, 0.1} {
		fs := &fakeStepper{n: 2}
		d, err := NewDriver(fs, rate, 100)
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= 500; k++ {
			if _, err := d.Advance(frame); err != nil {
				t.Fatal(err)
			}
			elapsed := float64(k) * frame
			want := int(math.Floor(elapsed/h + stepTol))
			if d.Steps() != want {
				t.Fatalf("frame %.5f s: after %d frames %d steps, want ⌊%g/%g⌋ = %d", frame, k, d.Steps(), elapsed, h, want)
			}
			if rem := elapsed - float64(want)*h; math.Abs(d.Remainder()-max(rem, 0)) > remainderTol {
				t.Fatalf("frame %.5f s, %d frames: remainder %g s, want %g s", frame, k, d.Remainder(), rem)
			}
			if d.Remainder() < 0 || d.Remainder() >= h {
				t.Fatalf("frame %.5f s: remainder %g s outside [0, h = %g s)", frame, d.Remainder(), h)
			}
		}
		for i, dt := range fs.dts {
			if dt != h {
				t.Fatalf("frame %.5f s: step %d of %g s, want the fixed %g s", frame, i, dt, h)
			}
		}
		if d.Dropped() != 0 {
			t.Fatalf("frame %.5f s: %g s dropped below the cap", frame, d.Dropped())
		}
	}
}

func TestAdvanceCarriesTheRemainder(t *testing.T) {
	// h = 10 ms, frames of 25 ms: 2 steps (5 ms carried, alpha ½), then 3 (0 carried), 2, 3…
	d, err := NewDriver(&fakeStepper{n: 1}, 100, 10)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []int{2, 3, 2, 3, 2, 3} {
		n, err := d.Advance(0.025)
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Fatalf("frame %d: %d steps, want %d", k, n, want)
		}
		wantAlpha := 0.5 * float64(1-k%2)
		if math.Abs(d.Alpha()-wantAlpha) > remainderTol/d.Step() {
			t.Fatalf("frame %d: alpha %g, want %g", k, d.Alpha(), wantAlpha)
		}
	}
}

func TestCatchUpIsCappedAfterAStall(t *testing.T) {
	// A 2 s stall at 60 Hz owes 120 steps; the cap takes 5 and drops the rest (keeping the
	// fractional remainder), and the next normal frame takes one step, not the backlog.
	const rate, cap = 60.0, 5
	h := 1 / rate
	d, err := NewDriver(&fakeStepper{n: 1}, rate, cap)
	if err != nil {
		t.Fatal(err)
	}
	n, err := d.Advance(2.0 + 0.5*h)
	if err != nil {
		t.Fatal(err)
	}
	if n != cap {
		t.Fatalf("stall: %d steps, want the cap %d", n, cap)
	}
	if want := 115 * h; math.Abs(d.Dropped()-want) > remainderTol {
		t.Fatalf("dropped %g s, want 115 steps = %g s", d.Dropped(), want)
	}
	if math.Abs(d.Remainder()-0.5*h) > remainderTol {
		t.Fatalf("remainder %g s after the stall, want half a step %g s", d.Remainder(), 0.5*h)
	}
	if n, _ := d.Advance(h); n != 1 {
		t.Fatalf("frame after the stall: %d steps, want 1", n)
	}
}

func TestInterpolationEndsAndMidpoint(t *testing.T) {
	// Lerp returns a exactly at 0, b exactly at 1 and the correctly rounded midpoint at ½, for
	// values of every magnitude and sign.
	a := []float32{0, 1, -3.75, 1e-7, 123456.79, -0.1, 3.4e37, 7}
	b := []float32{1, 1, 2.5, -1e-7, 123456.8, 0.3, -3.4e37, 7.0000005}
	dst := make([]float32, len(a))
	Lerp(dst, a, b, 0)
	for i := range a {
		if dst[i] != a[i] {
			t.Fatalf("t=0: element %d is %g, want exactly %g", i, dst[i], a[i])
		}
	}
	Lerp(dst, a, b, 1)
	for i := range a {
		if dst[i] != b[i] {
			t.Fatalf("t=1: element %d is %g, want exactly %g", i, dst[i], b[i])
		}
	}
	Lerp(dst, a, b, 0.5)
	for i := range a {
		if want := float32((float64(a[i]) + float64(b[i])) / 2); dst[i] != want {
			t.Fatalf("t=½: element %d is %g, want the midpoint %g", i, dst[i], want)
		}
	}
}

func TestDriverInterpolatesBetweenTheLastTwoStates(t *testing.T) {
	// With the remainder at 0, ½ and while paused the drawn positions are the previous state,
	// the midpoint and the current state, exactly.
	fs := &fakeStepper{n: 3}
	d, err := NewDriver(fs, 100, 10)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float32, 9)
	check := func(label string, want func(i int) float32) {
		t.Helper()
		d.Interpolate(dst, 3)
		for i := range dst {
			if dst[i] != want(i) {
				t.Fatalf("%s: element %d is %g, want %g", label, i, dst[i], want(i))
			}
		}
	}
	d.Advance(0.01) // one step, remainder 0: draws the state before it (k = 0)
	check("alpha 0", func(i int) float32 { return d.Previous().X[i] })
	if d.Previous().X[1] != 0 || d.Current().X[1] != 1 {
		t.Fatalf("states after one step: previous k = %g, current k = %g, want 0 and 1", d.Previous().X[1], d.Current().X[1])
	}
	d.Advance(0.015) // one more step, half a step carried
	check("alpha ½", func(i int) float32 {
		return float32((float64(d.Previous().X[i]) + float64(d.Current().X[i])) / 2)
	})
	if d.Current().X[1] != 2 {
		t.Fatalf("current k = %g after two steps, want 2", d.Current().X[1])
	}
	d.SetPaused(true)
	check("paused", func(i int) float32 { return d.Current().X[i] })
	got := d.Drawn(nil)
	for i := range got {
		if len(got) != len(d.Current().X) || got[i] != d.Current().X[i] {
			t.Fatalf("Drawn while paused: element %d is %g of %d, want %g of %d", i, got[i], len(got), d.Current().X[i], len(d.Current().X))
		}
	}
}

func TestInterpolationSnapsBodiesWhoseCountChanged(t *testing.T) {
	// Particles leaving the domain change a body's count between two states; that body (and
	// the ones after it, whose offsets moved) are drawn at the current state.
	fs := &fakeStepper{n: 4, counts: []int{2, 2}}
	d, _ := NewDriver(fs, 100, 10)
	d.Advance(0.01)
	fs.counts = []int{1, 3}
	d.Advance(0.015) // alpha ½
	dst := make([]float32, 12)
	d.Interpolate(dst, 3)
	for i := range dst {
		if dst[i] != d.Current().X[i] {
			t.Fatalf("element %d is %g, want the current %g", i, dst[i], d.Current().X[i])
		}
	}
}

func TestPauseSingleStepAndSpeed(t *testing.T) {
	const rate = 100.0
	fs := &fakeStepper{n: 1}
	d, _ := NewDriver(fs, rate, 100)
	d.SetPaused(true)
	if n, _ := d.Advance(1); n != 0 {
		t.Fatalf("paused: %d steps, want 0", n)
	}
	d.StepOnce()
	d.StepOnce()
	if n, _ := d.Advance(0); n != 2 {
		t.Fatalf("two single steps: %d steps, want 2", n)
	}
	if n, _ := d.Advance(1); n != 0 {
		t.Fatalf("paused after single steps: %d steps, want 0", n)
	}
	d.SetPaused(false)
	// Resuming restarts from the shown (current) state: both ends equal.
	if d.Previous().X[1] != d.Current().X[1] || d.Alpha() != 0 {
		t.Fatalf("after resume: previous k %g, current k %g, alpha %g; want equal ends and alpha 0", d.Previous().X[1], d.Current().X[1], d.Alpha())
	}
	d.SetSpeed(2)
	if n, _ := d.Advance(0.1); n != 20 {
		t.Fatalf("speed 2: %d steps in 0.1 s at %g Hz, want 20", n, rate)
	}
	d.SetSpeed(0.25)
	if n, _ := d.Advance(0.2); n != 5 {
		t.Fatalf("speed ¼: %d steps in 0.2 s at %g Hz, want 5", n, rate)
	}
	d.SetSpeed(1000)
	if d.Speed() != MaxSpeed {
		t.Fatalf("speed 1000 set to %g, want the clamp %g", d.Speed(), MaxSpeed)
	}
	d.SetSpeed(0)
	if d.Speed() != MinSpeed {
		t.Fatalf("speed 0 set to %g, want the clamp %g", d.Speed(), MinSpeed)
	}
	d.SetPaused(false)
	d.StepOnce() // pauses a running driver
	if !d.Paused() {
		t.Fatal("StepOnce on a running driver did not pause it")
	}
}

func TestStepErrorPausesAndReports(t *testing.T) {
	fs := &fakeStepper{n: 1, failAt: 3}
	d, _ := NewDriver(fs, 100, 10)
	n, err := d.Advance(0.05)
	if err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Fatalf("error %v, want the step's error", err)
	}
	if n != 2 || !d.Paused() {
		t.Fatalf("%d steps before the failure and paused=%v, want 2 and paused", n, d.Paused())
	}
}

func TestDriverRejectsBadInput(t *testing.T) {
	fs := &fakeStepper{n: 1}
	for _, c := range []struct {
		rate float64
		cap  int
		want string
	}{
		{0, 5, "physics rate 0"},
		{-60, 5, "physics rate -60"},
		{math.Inf(1), 5, "physics rate +Inf"},
		{60, 0, "catch-up cap 0"},
	} {
		if _, err := NewDriver(fs, c.rate, c.cap); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewDriver(rate %g, cap %d): error %v, want one naming %q", c.rate, c.cap, err, c.want)
		}
	}
	d, _ := NewDriver(fs, 60, 5)
	for _, dt := range []float64{-0.01, math.NaN(), math.Inf(1)} {
		if _, err := d.Advance(dt); err == nil || !strings.Contains(err.Error(), "frame time") {
			t.Errorf("Advance(%g): error %v, want one naming the frame time", dt, err)
		}
	}
}

func TestDriverWithARealWorld(t *testing.T) {
	// A small dam break driven at 60 Hz by frames of 1/144 s: the world's time is the steps
	// taken times h, and the drawn state holds the fluid's positions (not the wall's) exactly
	// as float32.
	settings := components.DefaultSolver()
	settings.ParticleRadius = 0.05
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 0.5}, true); err != nil {
		t.Fatal(err)
	}
	water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.5, 0.5}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	const rate = 60.0
	d, err := NewDriver(WorldStepper{w}, rate, 4)
	if err != nil {
		t.Fatal(err)
	}
	const frames = 36 // 0.25 s
	for i := 0; i < frames; i++ {
		if _, err := d.Advance(1.0 / 144); err != nil {
			t.Fatal(err)
		}
	}
	if want := int(math.Floor(frames / 144.0 * rate)); d.Steps() != want {
		t.Fatalf("%d steps, want %d", d.Steps(), want)
	}
	// 1e-12 s: the rounding of adding 15 steps of 1/60 s.
	if math.Abs(w.Time()-float64(d.Steps())/rate) > 1e-12 {
		t.Fatalf("world time %g s after %d steps of 1/%g s", w.Time(), d.Steps(), rate)
	}
	p := w.Particles(water)
	cur := d.Current()
	if len(cur.Counts) != 1 || cur.Counts[0] != p.Len() || len(cur.X) != 3*p.Len() {
		t.Fatalf("drawn state counts %v (%d floats), want the fluid's %d particles only", cur.Counts, len(cur.X), p.Len())
	}
	moved := false
	for i, x := range p.X {
		for k := 0; k < 3; k++ {
			if cur.X[3*i+k] != float32(x[k]) {
				t.Fatalf("particle %d axis %d drawn at %g, world has %g", i, k, cur.X[3*i+k], x[k])
			}
		}
		moved = moved || d.Previous().X[3*i+1] != cur.X[3*i+1]
	}
	if !moved {
		t.Fatal("the previous and current states are equal: the fluid did not fall")
	}
	if d.LastStats().Particles != p.Len() || d.LastStats().Substeps < 1 {
		t.Fatalf("last stats: %d particles, %d substeps", d.LastStats().Particles, d.LastStats().Substeps)
	}
}

func TestInterpolateStridedMatchesPacked(t *testing.T) {
	// Writing into an interleaved buffer (8 floats per particle) gives the packed result at
	// each particle's first three floats and leaves the other five untouched, at alpha ½ and
	// after a body's count changed.
	fs := &fakeStepper{n: 5, counts: []int{2, 3}}
	d, _ := NewDriver(fs, 100, 10)
	d.Advance(0.015)
	for round := 0; round < 2; round++ {
		packed := make([]float32, 15)
		d.Interpolate(packed, 3)
		inter := make([]float32, 8*5)
		for i := range inter {
			inter[i] = -7
		}
		d.Interpolate(inter, 8)
		for i := 0; i < 5; i++ {
			for k := 0; k < 8; k++ {
				want := float32(-7)
				if k < 3 {
					want = packed[3*i+k]
				}
				if inter[8*i+k] != want {
					t.Fatalf("round %d particle %d float %d = %g, want %g", round, i, k, inter[8*i+k], want)
				}
			}
		}
		fs.counts = []int{1, 4}
		d.Advance(0.01)
	}
}
