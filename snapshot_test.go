package sluice_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

func TestSnapshotContinuesBitIdentically(t *testing.T) {
	// Save at step 100, restore, run to step 200: the state hash equals that of a run that was
	// never interrupted (the test), also for a restore on a different worker count.
	run := func(w *sluice.World, steps int) {
		for i := 0; i < steps; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
	}
	ref, e := damBreak(t, 2)
	defer ref.Close()
	run(ref, 200)
	want := stateHash(ref, e)

	w, _ := damBreak(t, 2)
	run(w, 100)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	snap := buf.Bytes()
	for _, workers := range []int{2, 1} {
		r, err := sluice.Restore(bytes.NewReader(snap), workers)
		if err != nil {
			t.Fatal(err)
		}
		run(r, 100)
		if got := stateHash(r, entityOf(t, r, "water")); got != want {
			t.Fatalf("restored on %d workers: hash %x, uninterrupted %x", workers, got[:8], want[:8])
		}
		if r.Time() != ref.Time() {
			t.Fatalf("restored clock %v, uninterrupted %v", r.Time(), ref.Time())
		}
		r.Close()
	}
}

func entityOf(t *testing.T, w *sluice.World, name string) sluice.Entity {
	e, ok := w.BodyByName(name)
	if !ok {
		t.Fatalf("no body %q", name)
	}
	return e
}

func TestSnapshotAfterRemovalContinues(t *testing.T) {
	// A snapshot taken right after particles left the domain restores to the same future.
	s := components.DefaultSolver()
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -0.3, -1}, mgl64.Vec3{1, 1, 1}
	mk := func() *sluice.World {
		w, _ := sluice.NewWorld(s, 1)
		w.AddFluidBlock("drop", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0.3, 0.3}, mgl64.Vec3{})
		return w
	}
	a, b := mk(), mk()
	defer a.Close()
	defer b.Close()
	removedAt := -1
	for i := 0; i < 40 && removedAt < 0; i++ {
		st, _ := a.Step(frame)
		b.Step(frame)
		if len(st.Removed) > 0 {
			removedAt = i
		}
	}
	if removedAt < 0 {
		t.Fatal("no particle left the domain; the test does not exercise removal")
	}
	var buf bytes.Buffer
	if err := a.Save(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := sluice.Restore(&buf, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < 5; i++ {
		b.Step(frame)
		r.Step(frame)
	}
	if stateHash(r, entityOf(t, r, "drop")) != stateHash(b, entityOf(t, b, "drop")) {
		t.Fatal("restored run differs after a removal")
	}
}

func TestCorruptSnapshotsAreRejected(t *testing.T) {
	w, _ := damBreak(t, 1)
	defer w.Close()
	w.Step(frame)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	cases := map[string][]byte{
		"flipped byte": func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 1; return b }(),
		"truncated":    good[:len(good)-40],
		"wrong magic":  append([]byte("NOTSLUICE"), good[9:]...),
		"new version":  func() []byte { b := bytes.Clone(good); b[8] = 99; return b }(),
		"old version":  func() []byte { b := bytes.Clone(good); b[8] = 3; return b }(), // before rigid bodies
		"empty":        nil,
	}
	for name, data := range cases {
		r, err := sluice.Restore(bytes.NewReader(data), 1)
		if err == nil || !errors.Is(err, sluice.ErrSnapshot) || r != nil {
			t.Errorf("%s: restore gave world %v, error %v", name, r != nil, err)
		}
	}
}

// TestVersion4SnapshotIsMigrated reads testdata/snapshot_v4.bin, written by the version-4
// format (before particle masses were state): a tank with a 27-particle block of
// ρ0 = 800 kg/m³, saved after 5 frames. It has no masses; it must be read with m = ρ0·V0 of
// the body's own material, what version 4 recomputed at every step (checked exactly, so a
// migration with another density or volume fails), and step on.
func TestVersion4SnapshotIsMigrated(t *testing.T) {
	data, err := os.ReadFile("testdata/snapshot_v4.bin")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sluice.Restore(bytes.NewReader(data), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := entityOf(t, w, "water")
	p := w.Particles(e)
	want := 800 * w.Sim().Volume0
	if len(p.M) != p.Len() || p.Len() != 27 || p.MassDensity != 800 {
		t.Fatalf("%d masses for %d particles (saved: 27), massDensity %g", len(p.M), p.Len(), p.MassDensity)
	}
	for i, m := range p.M {
		if m != want {
			t.Fatalf("particle %d: mass %g kg, want ρ0·V0 = %g kg", i, m, want)
		}
	}
	for i := 0; i < 10; i++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
}

// checkRestoreContinues saves w (and closes it), restores the snapshot on 2 and on 1 workers,
// steps each restored world frames frames and fails unless the body's state hash equals want,
// that of a run that was never interrupted.
func checkRestoreContinues(t *testing.T, w *sluice.World, frames int, body string, want [32]byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, workers := range []int{2, 1} {
		r, err := sluice.Restore(bytes.NewReader(buf.Bytes()), workers)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < frames; i++ {
			if _, err := r.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		if got := stateHash(r, entityOf(t, r, body)); got != want {
			t.Fatalf("restored on %d workers: hash %x, uninterrupted %x", workers, got[:8], want[:8])
		}
		r.Close()
	}
}
