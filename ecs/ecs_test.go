package ecs

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func rec(log *[]string, name string) System {
	return SystemFunc(func(*Context) error { *log = append(*log, name); return nil })
}

func TestScheduleOrderInsertReplaceDisable(t *testing.T) {
	var log []string
	var s Schedule
	for _, n := range []string{"A", "B", "C"} {
		if err := s.Add(n, rec(&log, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.InsertBefore("B", "pre", rec(&log, "pre")); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertAfter("C", "post", rec(&log, "post")); err != nil {
		t.Fatal(err)
	}
	if err := s.Replace("A", rec(&log, "A2")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEnabled("C", false); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(&Context{}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"A2", "pre", "B", "post"}; !reflect.DeepEqual(log, want) {
		t.Fatalf("ran %v, want %v", log, want)
	}
	if want := []string{"A", "pre", "B", "C", "post"}; !reflect.DeepEqual(s.Names(), want) {
		t.Fatalf("names %v, want %v", s.Names(), want)
	}
	if err := s.InsertAfter("nope", "x", rec(&log, "x")); err == nil || !strings.Contains(err.Error(), "stages: A, pre, B, C, post") {
		t.Fatalf("unknown stage error %v", err)
	}
	if err := s.Add("B", rec(&log, "B")); err == nil {
		t.Fatal("duplicate stage accepted")
	}
	if times := s.TakeTimes(); len(times) != 5 || times[0].Name != "A" {
		t.Fatalf("times %v", times)
	}
}

func TestClockCoversTheFrameExactly(t *testing.T) {
	// The substeps of one Advance sum to the frame time up to round-off, none is longer than
	// the proposed step, and with a constant proposal they are the fewest equal ones,
	// ⌈frame/dt⌉ (a 1/60 s frame at 5 ms: four of 4.17 ms, not 5, 5, 3.3, 3.3), so no
	// remainder is left as a sliver and no frame ends on shortened substeps.
	const tol = 1e-12
	for _, c := range []struct{ frame, dt float64 }{{1.0 / 60, 0.005}, {1.0 / 60, 0.001}, {0.01, 0.02}, {0.0101, 0.005}} {
		var clk Clock
		var steps []float64
		n, err := clk.Advance(c.frame, func() float64 { return c.dt }, func(dt float64) error { steps = append(steps, dt); return nil })
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for _, s := range steps {
			sum += s
			if s > c.dt*(1+tol) {
				t.Fatalf("frame %g dt %g: substep %g exceeds dt", c.frame, c.dt, s)
			}
			if s < 0.25*math.Min(c.dt, c.frame) {
				t.Fatalf("frame %g dt %g: sliver substep %g", c.frame, c.dt, s)
			}
		}
		if want := int(math.Ceil(c.frame/c.dt - 1e-9)); n != want {
			t.Fatalf("frame %g dt %g: %d substeps, want %d", c.frame, c.dt, n, want)
		}
		for _, s := range steps {
			if math.Abs(s-steps[0]) > tol*steps[0] {
				t.Fatalf("frame %g dt %g: unequal substeps %v", c.frame, c.dt, steps)
			}
		}
		if math.Abs(sum-c.frame) > tol || n != len(steps) || math.Abs(clk.Time-c.frame) > tol {
			t.Fatalf("frame %g dt %g: %d substeps sum to %g, clock %g", c.frame, c.dt, n, sum, clk.Time)
		}
	}
	// Four steps of 1e-4 s cover a 4e-4 s frame in exactly four substeps despite round-off.
	var c4 Clock
	if n, _ := c4.Advance(4e-4, func() float64 { return 1e-4 }, func(float64) error { return nil }); n != 4 {
		t.Fatalf("4e-4 s frame at dt 1e-4 s took %d substeps, want 4", n)
	}
	var clk Clock
	if _, err := clk.Advance(0, func() float64 { return 1 }, func(float64) error { return nil }); err == nil {
		t.Fatal("zero frame time accepted")
	}
}

func TestClockCarryTakesWholeStepsAcrossFrames(t *testing.T) {
	// With a constant proposal dt, AdvanceCarry over many frames takes ⌊T/dt⌋ substeps for
	// the total time T (Advance takes ⌈frame/dt⌉ per frame), each exactly dt (bit for bit:
	// the frames must not change a substep's length), and leaves Time + Owed equal to T with
	// Owed below dt after every call. tol: round-off of the sums.
	const tol = 1e-12
	for _, c := range []struct {
		frame, dt float64
		frames    int
	}{{1.0 / 60, 0.005, 60}, {1.0 / 60, 0.001, 30}, {0.01, 0.02, 10}, {1.0 / 60, 1.0 / 120, 7}} {
		var clk Clock
		total, steps := 0.0, 0
		for f := 0; f < c.frames; f++ {
			n, err := clk.AdvanceCarry(c.frame, func() float64 { return c.dt }, func(dt float64) (float64, error) {
				if dt != c.dt {
					t.Fatalf("frame %g dt %g: a substep of %g", c.frame, c.dt, dt)
				}
				return dt, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			steps += n
			total += c.frame
			if clk.Owed < 0 || clk.Owed >= c.dt*(1+tol) {
				t.Fatalf("frame %g dt %g: owed %g after frame %d", c.frame, c.dt, clk.Owed, f)
			}
			if math.Abs(clk.Time+clk.Owed-total) > tol*total {
				t.Fatalf("frame %g dt %g: time %g + owed %g, frames %g", c.frame, c.dt, clk.Time, clk.Owed, total)
			}
		}
		if want := int(math.Floor(total/c.dt + 1e-9)); steps != want || clk.Steps != want {
			t.Fatalf("frame %g dt %g: %d substeps over %d frames, want %d", c.frame, c.dt, steps, c.frames, want)
		}
	}
	// 60 frames of 1/60 s at 5 ms: 200 substeps, where Advance takes 240.
	var a, b Clock
	na, nb := 0, 0
	for f := 0; f < 60; f++ {
		n, _ := a.AdvanceCarry(1.0/60, func() float64 { return 0.005 }, func(dt float64) (float64, error) { return dt, nil })
		na += n
		n, _ = b.Advance(1.0/60, func() float64 { return 0.005 }, func(float64) error { return nil })
		nb += n
	}
	if na != 200 || nb != 240 {
		t.Fatalf("one second at 5 ms: %d substeps carried, %d aligned; want 200 and 240", na, nb)
	}
	var clk Clock
	if _, err := clk.AdvanceCarry(0, func() float64 { return 1 }, func(dt float64) (float64, error) { return dt, nil }); err == nil {
		t.Fatal("zero frame time accepted")
	}
}
