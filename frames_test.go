package sluice_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// TestCarriedFramesTakeFewerSubsteps runs the small dam break for 0.3 s in 1/60 s frames with
// the solver's alignFrames true (each frame split into equal substeps) and false (whole CFL
// substeps carried across frames). With frames not aligned the world's clock plus Behind is
// the frames' total after every Step (timeTol: round-off of 18 sums), Behind stays below the
// largest substep dtMax, the run takes fewer substeps, and the water's front ends where the
// aligned run's does within frontTol. frontTol: one particle spacing (5 cm), against the
// 0.6 m the front travels by 0.3 s; the clocks differ by less than one substep (5 ms), in
// which the front, at about 2–3 m/s, moves 1–1.5 cm.
func TestCarriedFramesTakeFewerSubsteps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two 0.3 s dam breaks")
	}
	const timeTol = 1e-12
	const frontTol = 0.05
	const frames = 18
	run := func(align bool) (substeps int, front float64, w *sluice.World) {
		s := components.DefaultSolver()
		s.AlignFrames = align
		w, e := damBreakSolver(t, s, 2)
		for f := 1; f <= frames; f++ {
			st, err := w.Step(frame)
			if err != nil {
				t.Fatal(err)
			}
			substeps += st.Substeps
			total := float64(f) * frame
			if align && w.Behind() != 0 {
				t.Fatalf("aligned frames: behind by %g s after frame %d", w.Behind(), f)
			}
			if b := w.Behind(); b < 0 || b >= s.DtMax {
				t.Fatalf("alignFrames %v: behind by %g s after frame %d (dtMax %g s)", align, b, f, s.DtMax)
			}
			if d := w.Time() + w.Behind() - total; math.Abs(d) > timeTol {
				t.Fatalf("alignFrames %v: time %g + behind %g is not the frames' %g", align, w.Time(), w.Behind(), total)
			}
		}
		front = math.Inf(-1)
		for _, x := range w.Particles(e).X {
			front = max(front, x[0])
		}
		return substeps, front, w
	}
	na, fa, wa := run(true)
	defer wa.Close()
	nc, fc, wc := run(false)
	defer wc.Close()
	t.Logf("0.3 s: %d substeps with aligned frames, front at %.3f m; %d carried, front at %.3f m (behind by %.2f ms)", na, fa, nc, fc, 1e3*wc.Behind())
	if nc >= na {
		t.Errorf("carried frames took %d substeps, aligned %d: no fewer", nc, na)
	}
	if math.Abs(fc-fa) > frontTol {
		t.Errorf("front at %.3f m with carried frames, %.3f m aligned (tolerance %g m)", fc, fa, frontTol)
	}
}

// TestCarriedFramesDoNotDependOnTheFrameRate: with alignFrames false the substeps take the
// lengths the CFL rule proposes, whatever the frames, so the small dam break run for 0.2 s in
// 12 frames of 1/60 s and in 200 frames of 1 ms (most of them shorter than a substep) takes the
// same substeps and ends in the same state, bit for bit. A clock that let the frames trim a
// substep to the time owed (by round-off) ended the two in different states.
func TestCarriedFramesDoNotDependOnTheFrameRate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two 0.2 s dam breaks")
	}
	s := components.DefaultSolver()
	s.AlignFrames = false
	run := func(frameDt float64, frames int) (int, [32]byte, float64, float64) {
		w, e := damBreakSolver(t, s, 2)
		defer w.Close()
		n := 0
		for f := 0; f < frames; f++ {
			st, err := w.Step(frameDt)
			if err != nil {
				t.Fatal(err)
			}
			n += st.Substeps
		}
		return n, stateHash(w, e), w.Time(), w.Behind()
	}
	n60, h60, t60, b60 := run(1.0/60, 12)
	n1k, h1k, t1k, b1k := run(0.001, 200)
	t.Logf("0.2 s: %d substeps in 1/60 s frames (time %.6f s, behind %.3f ms), %d in 1 ms frames (time %.6f s, behind %.3f ms)", n60, t60, 1e3*b60, n1k, t1k, 1e3*b1k)
	if n60 != n1k || t60 != t1k {
		t.Fatalf("%d substeps to %v s in 1/60 s frames, %d to %v s in 1 ms frames", n60, t60, n1k, t1k)
	}
	if h60 != h1k {
		t.Fatalf("the same %d substeps end in different states: hash %x and %x", n60, h60[:8], h1k[:8])
	}
}

// TestCarriedFramesSnapshotContinuesBitIdentically: a world with alignFrames false saved
// while it is behind its frames continues, restored, exactly as the uninterrupted run (the
// state hash and the clock), so the time it owes the frames is part of its state.
func TestCarriedFramesSnapshotContinuesBitIdentically(t *testing.T) {
	s := components.DefaultSolver()
	s.AlignFrames = false
	run := func(w *sluice.World, steps int) {
		for i := 0; i < steps; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
	}
	ref, e := damBreakSolver(t, s, 2)
	defer ref.Close()
	run(ref, 20)
	want := stateHash(ref, e)

	w, _ := damBreakSolver(t, s, 2)
	run(w, 10)
	if w.Behind() == 0 {
		t.Fatal("the world is not behind its frames when saved: the test would not see the owed time")
	}
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := sluice.Restore(bytes.NewReader(buf.Bytes()), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	run(r, 10)
	if got := stateHash(r, entityOf(t, r, "water")); got != want {
		t.Fatalf("restored: hash %x, uninterrupted %x", got[:8], want[:8])
	}
	if r.Time() != ref.Time() || r.Behind() != ref.Behind() {
		t.Fatalf("restored clock %v behind %v, uninterrupted %v behind %v", r.Time(), r.Behind(), ref.Time(), ref.Behind())
	}
}
