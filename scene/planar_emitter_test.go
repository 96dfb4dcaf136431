package scene

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestCorpusEmitter2D: the reference's Emitter_2D.json imports its two emitters as the
// reference's 2D loader makes them — a box of width 8 and height 5 becomes a line of 5
// particles, a circle of width 7 a line of 7, both rotated about z (the second's rotationAxis
// [0, 1, 0] is replaced, with a warning) — and emits: after 0.11 s the first has added its
// lines of 5 in the plane (the second starts at 2 s), and its air drag (dragMethod 2) runs in
// the 2D world.
func TestCorpusEmitter2D(t *testing.T) {
	corpusFiles(t)
	sc, warns, err := ImportSPlisHSPlasH(filepath.Join(corpus, "Emitter_2D.json"))
	if err != nil {
		t.Fatal(err)
	}
	sp := sc.Solver.Spacing()
	if len(sc.Emitters) != 2 {
		t.Fatalf("%d emitters imported, the scene has 2", len(sc.Emitters))
	}
	for k, c := range []struct {
		width  float64 // particles across
		dir    mgl64.Vec3
		center mgl64.Vec3
	}{{5, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{-1.2, 0.8, 0}}, {7, mgl64.Vec3{-1, 0, 0}, mgl64.Vec3{0.9, 0.25, 0}}} {
		e := sc.Emitters[k]
		if len(e.Line(sp)) != int(c.width) || e.Height != 0 || e.Direction.Sub(c.dir).Len() > 1e-12 || e.Center != c.center {
			t.Errorf("emitter %d: line of %d, height %g, direction %v, centre %v; want %g, 0, %v, %v", k, len(e.Line(sp)), e.Height, e.Direction, e.Center, c.width, c.dir, c.center)
		}
		if e.Material.AirDrag == 0 {
			t.Errorf("emitter %d: no air drag (the material's dragMethod 2)", k)
		}
	}
	found := false
	for _, w := range warns {
		found = found || w.Path == "Emitters[1].rotationAxis"
	}
	if !found {
		t.Errorf("no warning at Emitters[1].rotationAxis: %v", warns)
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const tEnd = 0.11
	for w.Time() < tEnd-1e-9 {
		if _, err := w.Step(tEnd / 4); err != nil {
			t.Fatal(err)
		}
	}
	// the layers due at the start of the last of the four frames, 3/4 of tEnd, at 2 m/s
	layers := int(math.Floor(0.75*tEnd*2/sp)) + 1
	seen := 0
	for _, b := range w.Bodies() {
		if b.Body.Name == "emitter0" || b.Body.Name == "emitter1" {
			seen++
		}
		if b.Body.Name == "emitter0" && b.Particles.Len() != 5*layers {
			t.Errorf("emitter0 has %d particles, want %d lines of 5", b.Particles.Len(), layers)
		}
		if b.Body.Name == "emitter1" && b.Particles.Len() != 0 {
			t.Errorf("emitter1 has %d particles before its start at 2 s", b.Particles.Len())
		}
		for i, x := range b.Particles.X {
			if x[2] != 0 {
				t.Fatalf("%s: particle %d at %v is off the plane", b.Body.Name, i, x)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d of the bodies emitter0 and emitter1 in the world", seen)
	}
}
