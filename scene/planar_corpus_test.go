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

// TestCorpusSampling2D: the reference's Sampling_2D.json runs in the 2D world: its UnitBox tank
// (no mapInvert) becomes a tank because it holds every fluid block, with a warning naming
// RigidBodies[0].mapInvert, and the dragon is walled by its section with the plane. After 1 s
// of the large block falling onto the dragon none of its particles lies inside the dragon's
// section deeper than r/2, no particle has left the tank, and every particle stays at z = 0.
// (The scene's four small viscous blocks start inside the section's outline, as a ray
// crossing count reads it; the test logs where they are.)
func TestCorpusSampling2D(t *testing.T) {
	if testing.Short() {
		t.Skip("1 s of the 1726-particle scene (about 3 s of CPU)")
	}
	corpusFiles(t)
	sc, warns, err := ImportSPlisHSPlasH(filepath.Join(corpus, "Sampling_2D.json"))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range warns {
		found = found || w.Path == "RigidBodies[0].mapInvert"
	}
	if len(sc.Meshes) != 2 || !sc.Meshes[0].Tank || sc.Meshes[1].Tank || !found {
		t.Fatalf("meshes %d, tank flags %v, %v, mapInvert warning %v: want the box a tank (warned about) and the dragon an obstacle", len(sc.Meshes), sc.Meshes[0].Tank, sc.Meshes[1].Tank, found)
	}
	dragon, err := sc.Meshes[1].Placed(sc.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// the section's segments, cut from the triangles straddling z = 0
	var segs [][2]mgl64.Vec3
	for _, tr := range dragon.Tris {
		var ends []mgl64.Vec3
		for e := 0; e < 3; e++ {
			p, q := dragon.V[tr[e]], dragon.V[tr[(e+1)%3]]
			if (p[2] >= 0) != (q[2] >= 0) {
				u := p[2] / (p[2] - q[2])
				ends = append(ends, mgl64.Vec3{p[0] + u*(q[0]-p[0]), p[1] + u*(q[1]-p[1]), 0})
			}
		}
		if len(ends) == 2 {
			segs = append(segs, [2]mgl64.Vec3{ends[0], ends[1]})
		}
	}
	// depth returns how far x lies inside the section (0 outside): crossings of the ray
	// towards +x decide inside, the nearest segment the depth.
	depth := func(x mgl64.Vec3) float64 {
		in := false
		dmin := math.Inf(1)
		for _, s := range segs {
			a, b := s[0], s[1]
			if (a[1] > x[1]) != (b[1] > x[1]) {
				if xc := a[0] + (x[1]-a[1])/(b[1]-a[1])*(b[0]-a[0]); xc > x[0] {
					in = !in
				}
			}
			ab := b.Sub(a)
			u := 0.0
			if l2 := ab.Dot(ab); l2 > 0 {
				u = max(0, min(1, x.Sub(a).Dot(ab)/l2))
			}
			dmin = min(dmin, x.Sub(a.Add(ab.Mul(u))).Len())
		}
		if !in {
			return 0
		}
		return dmin
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	n0 := 0
	for _, b := range w.Bodies() {
		if b.Body.Phase.String() == "fluid" {
			n0 += b.Particles.Len()
		}
	}
	for w.Time() < 1-1e-9 {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	r := sc.Solver.ParticleRadius
	n, deep, worst := 0, 0, 0.0
	for _, b := range w.Bodies() {
		if b.Body.Phase.String() != "fluid" {
			continue
		}
		inside := 0
		for _, x := range b.Particles.X {
			n++
			if x[2] != 0 {
				t.Fatalf("%s: particle at %v off the plane", b.Body.Name, x)
			}
			d := depth(x)
			if d > 0 {
				inside++
			}
			if b.Body.Name == "fluid0" {
				worst = max(worst, d)
				if d > r/2 {
					deep++
				}
			}
		}
		t.Logf("%s: %d of %d particles inside the dragon's section after 1 s", b.Body.Name, inside, b.Particles.Len())
	}
	t.Logf("%d section segments; %d of %d particles after 1 s; the falling block's deepest inside the dragon %.4f m (r = %g)", len(segs), n, n0, worst, r)
	if n != n0 || deep > 0 {
		t.Errorf("%d of %d particles left; %d of the falling block lie inside the dragon's section deeper than r/2 (deepest %.4f m)", n, n0, deep, worst)
	}
}
