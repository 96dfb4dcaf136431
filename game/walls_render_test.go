//go:build g3n && cgo

package game

import (
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// Thresholds of TestRenderTankWalls: the share of the water's pixels covered by a wall sample.
const (
	// maxSampleOverWater with the default faces: no sample is drawn, so none may cover the water;
	// 0.5 % leaves room for a key-coloured pixel from blending at the image's edges.
	maxSampleOverWater = 0.005
	// minSampleOverWater with the samples toggled on: the near wall's two layers of dots
	// (drawn 0.45 r wide, 2r apart) lie between the camera and the water and cover a share of
	// its pixels that is not small (about π·0.45²/4 ≈ 16 % per layer face-on).
	minSampleOverWater = 0.10
)

// stillTank is a tank with its lower half full of resting water.
func stillTank(t *testing.T, walls bool) *sluice.World {
	t.Helper()
	settings := components.DefaultSolver()
	settings.ParticleRadius = 0.025
	w, err := sluice.NewWorld(settings, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if walls {
		if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.6, 0.5}, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.3, 0.5}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestRenderTankWalls renders a still tank with the walls as faces (the default) and as
// samples (Options.WallSamples) and counts the water's pixels (those at its particles'
// projected centres) covered by a wall sample. The samples are drawn opaque in a key colour
// (pure red, which neither the water, the glass nor the floor has) so a covered pixel is
// recognisable. The water is drawn as marbles, which the translucent samples are blended over
// where they lie in front (the surface look composites the liquid over the scene's points, so
// there the samples never show over the water either way). A world without walls renders too.
func TestRenderTankWalls(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	saved := PhaseStyles[components.Boundary]
	key := saved
	key.Color = Color{1, 0, 0, 1}
	PhaseStyles[components.Boundary] = key
	defer func() { PhaseStyles[components.Boundary] = saved }()

	covered := func(samples bool) float64 {
		w := stillTank(t, true)
		shot, err := runOnMain(w, Options{Width: 640, Height: 400, Frames: 6, WallSamples: samples, Look: LookMarbles, Log: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		water, _ := w.BodyByName("water")
		n, red := 0, 0
		b := shot.Image.Bounds()
		for _, x := range w.Particles(water).X {
			px, py, ok := shot.Project(x)
			if !ok || int(px) < b.Min.X || int(py) < b.Min.Y || int(px) >= b.Max.X || int(py) >= b.Max.Y {
				continue
			}
			i := shot.Image.PixOffset(int(px), int(py))
			r, g, bl := float64(shot.Image.Pix[i])/255, float64(shot.Image.Pix[i+1])/255, float64(shot.Image.Pix[i+2])/255
			n++
			if r >= 0.5 && g <= 0.25 && bl <= 0.25 {
				red++
			}
		}
		if n == 0 {
			t.Fatal("no water particle projects into the image")
		}
		share := float64(red) / float64(n)
		t.Logf("wall samples %v: %d of %d water pixels covered by a sample (%.3f)", samples, red, n, share)
		return share
	}
	if s := covered(false); s > maxSampleOverWater {
		t.Errorf("walls as faces: %.3f of the water's pixels covered by wall samples, want ≤ %g", s, maxSampleOverWater)
	}
	if s := covered(true); s < minSampleOverWater {
		t.Errorf("walls as samples: %.3f of the water's pixels covered by wall samples, want ≥ %g", s, minSampleOverWater)
	}

	w := stillTank(t, false)
	if _, err := runOnMain(w, Options{Width: 320, Height: 200, Frames: 5, Log: io.Discard}); err != nil {
		t.Errorf("a world without walls: %v", err)
	}
}

// TestViewWallFaces checks the toggle's bookkeeping: a box wall is drawn as one glass and one
// floor mesh and its samples are left out of the drawn ranges; with the samples on, no mesh
// and the samples drawn.
func TestViewWallFaces(t *testing.T) {
	w, d := smallWorld(t)
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	// In the marbles look the moving particles are one range of the points graphic, the drawn
	// wall samples one of the walls' graphic.
	drawn := func() int { return len(v.gr.Materials()) + len(v.sgr.Materials()) }
	if on, boxes := v.WallSamples(); on || boxes != 1 || len(v.wallMeshes) != 2 {
		t.Fatalf("default: samples %v, %d boxes, %d meshes; want faces, 1 box, 2 meshes", on, boxes, len(v.wallMeshes))
	}
	v.SetLook(LookMarbles)
	if n := drawn(); n != 1 {
		t.Errorf("faces: %d ranges drawn as points, want the moving particles' only", n)
	}
	if err := v.SetWallSamples(true); err != nil {
		t.Fatal(err)
	}
	if on, boxes := v.WallSamples(); !on || boxes != 0 || len(v.wallMeshes) != 0 {
		t.Fatalf("samples: samples %v, %d boxes, %d meshes; want samples, 0, 0", on, boxes, len(v.wallMeshes))
	}
	if n := drawn(); n != 2 {
		t.Errorf("samples: %d ranges drawn as points, want the moving particles' and the walls'", n)
	}
}

// TestSyncUploadsWallsOnce checks that the static walls are uploaded once, at layout, and that
// each Sync queues only the moving particles' buffer: the buffer g3n re-uploads every frame
// holds no wall sample, and the walls' buffer is queued no more after any number of frames.
func TestSyncUploadsWallsOnce(t *testing.T) {
	w, d := smallWorld(t)
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.SetWallSamples(true); err != nil { // a layout: the walls queued again
		t.Fatal(err)
	}
	moving, static := v.Particles()
	_, before := v.Uploads()
	for i := 0; i < 10; i++ {
		if _, err := d.Advance(1.0 / 60); err != nil {
			t.Fatal(err)
		}
		v.Sync()
	}
	frame, after := v.Uploads()
	if after != before || before != 2*stride*static {
		t.Errorf("walls' floats queued: %d after two layouts, %d after 10 frames; want %d both", before, after, 2*stride*static)
	}
	if frame != stride*moving || v.vbo.Buffer().Len() != stride*moving {
		t.Errorf("a frame queues %d floats in a buffer of %d, want the %d moving particles' %d", frame, v.vbo.Buffer().Len(), moving, stride*moving)
	}
	t.Logf("per frame %d floats uploaded; with the walls in the same buffer it was %d (walls %.0f %%)",
		frame, stride*(moving+static), 100*float64(static)/float64(moving+static))
}

// TestViewDrawsMeshWalls checks that walls made from triangle meshes are drawn as their
// triangles: beside smallWorld's box tank, a closed octahedron obstacle and an open ramp sheet
// each become one solid mesh and their samples are left out of the drawn ranges; with the
// samples on, no wall is drawn as faces. A wall given as samples (no mesh, not a box) keeps
// its samples drawn either way.
func TestViewDrawsMeshWalls(t *testing.T) {
	w, d := smallWorld(t)
	oct := []mgl64.Vec3{{0.7, 0.1, 0.25}, {0.85, 0.25, 0.25}, {0.7, 0.4, 0.25}, {0.55, 0.25, 0.25}, {0.7, 0.25, 0.1}, {0.7, 0.25, 0.4}}
	octTris := [][3]int32{{0, 1, 5}, {1, 2, 5}, {2, 3, 5}, {3, 0, 5}, {1, 0, 4}, {2, 1, 4}, {3, 2, 4}, {0, 3, 4}}
	if _, err := w.AddBoundaryMesh("octahedron", oct, octTris, false); err != nil {
		t.Fatal(err)
	}
	if m, ok := w.WallMesh(mustBody(t, w, "octahedron")); !ok || !m.Closed {
		t.Fatalf("the octahedron: mesh kept %v, closed %v; want a closed mesh", ok, m.Closed)
	}
	ramp := []mgl64.Vec3{{0.1, 0.8, 0.1}, {0.4, 0.7, 0.1}, {0.4, 0.7, 0.4}, {0.1, 0.8, 0.4}}
	if _, err := w.AddBoundaryMesh("ramp", ramp, [][3]int32{{0, 2, 1}, {0, 3, 2}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryParticles("posts", []mgl64.Vec3{{0.9, 0.5, 0.1}, {0.9, 0.6, 0.1}}); err != nil {
		t.Fatal(err)
	}
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	v.SetLook(LookMarbles)
	if on, faced := v.WallSamples(); on || faced != 3 || len(v.wallMeshes) != 4 {
		t.Fatalf("default: samples %v, %d walls as faces, %d meshes; want faces, 3 walls (tank, octahedron, ramp), 4 meshes (glass, floor, two solids)", on, faced, len(v.wallMeshes))
	}
	if n := len(v.sgr.Materials()); n != 1 {
		t.Errorf("faces: %d ranges of wall samples drawn, want 1 (the posts')", n)
	}
	if err := v.SetWallSamples(true); err != nil {
		t.Fatal(err)
	}
	if on, faced := v.WallSamples(); !on || faced != 0 || len(v.wallMeshes) != 0 {
		t.Fatalf("samples: samples %v, %d walls as faces, %d meshes; want samples, 0, 0", on, faced, len(v.wallMeshes))
	}
}

// mustBody returns the body of w called name.
func mustBody(t *testing.T, w *sluice.World, name string) sluice.Entity {
	t.Helper()
	e, ok := w.BodyByName(name)
	if !ok {
		t.Fatalf("no body %q", name)
	}
	return e
}

// TestRenderPlanarWalls renders a still 2D dam break (solver.dimensions 2, r = 1 cm, a 3.2 m ×
// 1.6 m tank of two layers, a 0.8 m × 1.2 m water column) front-on and walks the pixels along
// the projected centre lines of the tank's outer left column and outer floor row of samples:
// drawn as a strip (the default) the wall is a continuous band, so no pixel along them is
// background; drawn as its samples (the toggle: dots 0.45 r wide, 2r apart) most of them are,
// which shows the walk would see gaps.
func TestRenderPlanarWalls(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	const (
		r = 0.01
		// maxGapShare: the share of the walked pixels that may be background with the strip.
		// The squares meet edge to edge, so none should be; 1 % leaves room for a rasterised
		// seam between two squares at a pixel's edge.
		maxGapShare = 0.01
		// minGapShareSamples: the share with the samples drawn, dots 0.9 r wide every 2r, about
		// 55 % gaps between them; asking for a third shows the walk tells the two apart.
		minGapShareSamples = 0.33
	)
	settings := components.DefaultSolver()
	settings.ParticleRadius, settings.Dimensions = r, 2
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	tank, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{3.2, 1.6, 0}, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{}, mgl64.Vec3{0.8, 1.2, 0}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	x := w.Particles(tank).X
	lo, hi := x[0], x[0]
	for _, p := range x {
		for c := 0; c < 2; c++ {
			lo[c], hi[c] = math.Min(lo[c], p[c]), math.Max(hi[c], p[c])
		}
	}
	for _, samples := range []bool{false, true} {
		o := Options{Width: 800, Height: 600, Frames: 4, WallSamples: samples, Setup: pause, Log: io.Discard}
		if p := os.Getenv("SLUICE_SHOT"); p != "" {
			o.Screenshot = fmt.Sprintf("%s-planar-walls-samples-%v.png", p, samples)
		}
		shot, err := runOnMain(w, o)
		if err != nil {
			t.Fatal(err)
		}
		// The outer left column from the floor's outer row to the top, and the outer floor row
		// from the left to the right outer column.
		walked, gaps := 0, 0
		for _, seg := range [][2]mgl64.Vec3{{{lo[0], lo[1], 0}, {lo[0], hi[1], 0}}, {{lo[0], lo[1], 0}, {hi[0], lo[1], 0}}} {
			x0, y0, _ := shot.Project(seg[0])
			x1, y1, _ := shot.Project(seg[1])
			n := int(math.Ceil(math.Max(math.Abs(x1-x0), math.Abs(y1-y0))))
			for i := 0; i <= n; i++ {
				f := float64(i) / float64(max(n, 1))
				px, py := int(math.Round(x0+f*(x1-x0))), int(math.Round(y0+f*(y1-y0)))
				if !image.Pt(px, py).In(shot.Image.Bounds()) || inAny(image.Pt(px, py), shot.Overlays) {
					continue
				}
				walked++
				if isBackground(shot.Image, px, py) {
					gaps++
				}
			}
		}
		share := float64(gaps) / float64(max(walked, 1))
		t.Logf("samples %v: %d of %d pixels along the wall's outer column and row are background (%.1f %%)", samples, gaps, walked, 100*share)
		if walked < 300 {
			t.Fatalf("samples %v: %d pixels walked: the tank is not in view", samples, walked)
		}
		if !samples && share > maxGapShare {
			t.Errorf("strip: %.1f %% of the wall's pixels are background, want ≤ %g %%", 100*share, 100*maxGapShare)
		}
		if samples && share < minGapShareSamples {
			t.Errorf("samples: %.1f %% of the wall's pixels are background, want ≥ %g %% (the walk must see the gaps between dots)", 100*share, 100*minGapShareSamples)
		}
	}
}
