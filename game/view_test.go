//go:build g3n && cgo

package game

import (
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/scene"
)

// smallWorld is a tank with a falling block, stepped a few times so velocities differ.
func smallWorld(t testing.TB) (*sluice.World, *Driver) {
	t.Helper()
	settings := components.DefaultSolver()
	settings.ParticleRadius = 0.05
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 0.5}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.5, 0.5}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	d, err := NewDriver(WorldStepper{w}, 60, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Advance(0.1 + 0.5/60); err != nil { // 6 steps and half a step carried
		t.Fatal(err)
	}
	return w, d
}

func TestViewBufferLayout(t *testing.T) {
	// The vertex buffer holds the moving particles at the driver's interpolated positions in
	// their phase style, the static buffer the wall samples at their positions in theirs.
	w, d := smallWorld(t)
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	water, _ := w.BodyByName("water")
	tank, _ := w.BodyByName("tank")
	nw, nt := w.Particles(water).Len(), w.Particles(tank).Len()
	if m, s := v.Particles(); m != nw || s != nt {
		t.Fatalf("view draws %d moving and %d static, the world has %d and %d", m, s, nw, nt)
	}
	packed := make([]float32, 3*nw)
	d.Interpolate(packed, 3)
	r := float32(w.Settings().ParticleRadius)
	fluid, wall := StyleOf(components.Fluid), StyleOf(components.Boundary)
	for i := 0; i < nw; i++ {
		j := stride * i
		for k := 0; k < 3; k++ {
			if v.buf[j+k] != packed[3*i+k] {
				t.Fatalf("fluid particle %d axis %d at %g, driver interpolates %g", i, k, v.buf[j+k], packed[3*i+k])
			}
		}
		if c := (Color{v.buf[j+3], v.buf[j+4], v.buf[j+5], v.buf[j+6]}); c != fluid.Color || v.buf[j+7] != fluid.RadiusScale*r {
			t.Fatalf("fluid particle %d colour %v radius %g, want %v and %g", i, c, v.buf[j+7], fluid.Color, fluid.RadiusScale*r)
		}
	}
	if len(v.buf) != stride*nw || len(v.sbuf) != stride*nt {
		t.Fatalf("buffers of %d and %d floats for %d moving and %d wall particles", len(v.buf), len(v.sbuf), nw, nt)
	}
	for i, x := range w.Particles(tank).X {
		j := stride * i
		if v.sbuf[j] != float32(x[0]) || v.sbuf[j+1] != float32(x[1]) || v.sbuf[j+2] != float32(x[2]) {
			t.Fatalf("wall sample %d at %v, world has %v", i, v.sbuf[j:j+3], x)
		}
		if c := (Color{v.sbuf[j+3], v.sbuf[j+4], v.sbuf[j+5], v.sbuf[j+6]}); c != wall.Color || v.sbuf[j+7] != wall.RadiusScale*r {
			t.Fatalf("wall sample %d colour %v radius %g, want %v and %g", i, c, v.sbuf[j+7], wall.Color, wall.RadiusScale*r)
		}
	}
}

func TestViewColorsByField(t *testing.T) {
	// Colouring by speed maps the speeds through the colour map over the range reported for
	// the legend: the 1st–99th percentile of the speeds (RobustRange), clamped beyond it; the
	// full range is the slowest and fastest particle; the walls keep their phase colour.
	w, d := smallWorld(t)
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.SetColorMode("vorticity"); err == nil {
		t.Fatal("unknown colour mode accepted")
	}
	if err := v.SetColorMode("speed"); err != nil {
		t.Fatal(err)
	}
	v.Sync()
	name, unit, lo, hi, field := v.ColorMode()
	water, _ := w.BodyByName("water")
	speeds := w.Particles(water).V
	wantLo, wantHi := math.Inf(1), math.Inf(-1)
	for _, s := range speeds {
		sp := float64(float32(s.Len()))
		wantLo, wantHi = min(wantLo, sp), max(wantHi, sp)
	}
	vals := make([]float32, len(speeds))
	for i, s := range speeds {
		vals[i] = float32(s.Len())
	}
	pLo, pHi, _, _ := RobustRange(vals, make([]int32, rangeBins))
	if flo, fhi := v.FullRange(); flo != wantLo || fhi != wantHi {
		t.Errorf("full range [%g, %g], want the slowest and fastest [%g, %g]", flo, fhi, wantLo, wantHi)
	}
	if !field || name != "speed" || unit != "m/s" || lo != pLo || hi != pHi || !(hi > lo) || lo < wantLo || hi > wantHi {
		t.Fatalf("legend %q (%s) [%g, %g] field=%v, want speed (m/s) [%g, %g] within [%g, %g]", name, unit, lo, hi, field, pLo, pHi, wantLo, wantHi)
	}
	for i, s := range speeds {
		want := v.cmap.At(float32((float64(float32(s.Len())) - lo) / (hi - lo)))
		// The view maps through a lookup table of lutSize entries: within half an entry's step.
		step := 0.5 / (lutSize - 1) * maxStopStep(v.cmap)
		j := stride * i
		got := Color{v.buf[j+3], v.buf[j+4], v.buf[j+5], v.buf[j+6]}
		if math.Abs(float64(got.R-want.R)) > step || math.Abs(float64(got.G-want.G)) > step || math.Abs(float64(got.B-want.B)) > step {
			t.Fatalf("particle %d at speed %g coloured %v, want %v within %g", i, s.Len(), got, want, step)
		}
	}
	if (Color{v.sbuf[3], v.sbuf[4], v.sbuf[5], v.sbuf[6]}) != StyleOf(components.Boundary).Color {
		t.Fatal("a wall sample lost its phase colour in field mode")
	}
	v.CycleColor() // density error
	v.CycleColor() // pressure
	v.CycleColor() // back to phase
	v.Sync()
	if name, _, _, _, field := v.ColorMode(); name != "phase" || field || (Color{v.buf[3], v.buf[4], v.buf[5], v.buf[6]}) != StyleOf(components.Fluid).Color {
		t.Fatalf("after cycling: mode %q field=%v, first particle colour %v; want phase colours back", name, field, v.buf[3:7])
	}
}

// maxStopStep is the largest change of a channel per unit of t in a colour map.
func maxStopStep(m *ColorMap) float64 {
	worst := 0.0
	for i := 1; i < len(m.Stops); i++ {
		a, b := m.Stops[i-1], m.Stops[i]
		for _, d := range []float32{b.R - a.R, b.G - a.G, b.B - a.B} {
			worst = max(worst, math.Abs(float64(d))*float64(len(m.Stops)-1))
		}
	}
	return worst
}

func TestSyncAllocatesNothing(t *testing.T) {
	w, d := smallWorld(t)
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"phase", "speed"} {
		v.SetColorMode(mode)
		v.Sync()
		if a := testing.AllocsPerRun(20, v.Sync); a != 0 {
			t.Errorf("colour %s: %g allocations per Sync, want 0", mode, a)
		}
	}
}

// Pixel classes of the dam-break screenshot, on 0–1 channels.
const (
	bgTol          = 3.0 / 255 // a background pixel is within this of Background in every channel
	fluidMinBlue   = 0.20      // fluid: blue at least this…
	fluidBlueOverR = 0.10      // …and this much above red (the water colour shaded 30–100 %, also under a wall dot)
	wallOverBg     = 0.05      // wall dots: red this much above the background's…
	wallRedVsBlue  = 0.03      // …and red ≥ blue − this (the sand colour blended over the background)
)

type pixelClass int

const (
	pxBackground pixelClass = iota
	pxFluid
	pxWall
	pxOther
)

func classify(img *image.RGBA, x, y int) pixelClass {
	i := img.PixOffset(x, y)
	r, g, b := float64(img.Pix[i])/255, float64(img.Pix[i+1])/255, float64(img.Pix[i+2])/255
	bg := Background
	if math.Abs(r-float64(bg.R)) <= bgTol && math.Abs(g-float64(bg.G)) <= bgTol && math.Abs(b-float64(bg.B)) <= bgTol {
		return pxBackground
	}
	if b >= fluidMinBlue && b-r >= fluidBlueOverR {
		return pxFluid
	}
	if r >= float64(bg.R)+wallOverBg && r >= b-wallRedVsBlue {
		return pxWall
	}
	return pxOther
}

// projectedBox returns the pixel rectangle around the projections of points, widened by
// margin pixels.
func projectedBox(shot *Shot, pts []mgl64.Vec3, margin float64) image.Rectangle {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		x, y, _ := shot.Project(p)
		x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
	}
	return image.Rect(int(x0-margin), int(y0-margin), int(x1+margin)+1, int(y1+margin)+1)
}

func inAny(p image.Point, rs []image.Rectangle) bool {
	for _, r := range rs {
		if p.In(r) {
			return true
		}
	}
	return false
}

// Screenshot thresholds of the dam break at 800×600 after 30 frames (0.5 s).
const (
	minFluidShare     = 0.03 // fluid pixels: at least this share of the image
	fluidInsideBox    = 0.97 // share of fluid pixels inside the fluid's projected box
	fluidAtParticles  = 0.97 // share of particle centres whose pixel is fluid-coloured
	bgOutsideTank     = 0.99 // share of background pixels outside the tank's projected box
	minWallPixels     = 500  // wall-dot pixels between the fluid and the tank's outline
	minHUDTextPixels  = 200  // near-white text pixels in the HUD panel
	hudTextBrightness = 0.8  // every channel of a text pixel at least this
	boxMargin         = 12   // pixels around projected boxes: the drawn sphere radius and more
)

// TestRenderDamBreak renders 30 frames of the example dam break and checks the screenshot by
// pixel statistics. SLUICE_SHOT=FILE.png keeps the screenshot for a look.
func TestRenderDamBreak(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	sc, _, err := scene.LoadAny("../examples/scenes/dambreak.json")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	path := filepath.Join(t.TempDir(), "dambreak.png")
	if p := os.Getenv("SLUICE_SHOT"); p != "" {
		path = p
	}
	shot, err := runOnMain(w, Options{Width: 800, Height: 600, Frames: 30, Screenshot: path, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Steps != 30 || math.Abs(w.Time()-0.5) > 1e-9 {
		t.Fatalf("%d physics steps to t = %g s, want 30 to 0.5 s", shot.Steps, w.Time())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	img := shot.Image
	if decoded.Bounds() != img.Bounds() || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
		t.Fatalf("screenshot %v, returned image %v, want 800×600", decoded.Bounds(), img.Bounds())
	}
	for _, p := range []image.Point{{0, 0}, {400, 300}, {799, 599}} {
		r1, g1, b1, _ := decoded.At(p.X, p.Y).RGBA()
		r2, g2, b2, _ := img.At(p.X, p.Y).RGBA()
		if r1 != r2 || g1 != g2 || b1 != b2 {
			t.Fatalf("PNG pixel %v differs from the rendered one", p)
		}
	}

	water, _ := w.BodyByName("water")
	tank, _ := w.BodyByName("tank")
	fluidBox := projectedBox(shot, w.Particles(water).X, boxMargin)
	tankBox := projectedBox(shot, w.Particles(tank).X, boxMargin)
	var n, fluid, fluidIn, bgOut, outside, wall int
	counts := map[pixelClass]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p := image.Pt(x, y)
			if inAny(p, shot.Overlays) {
				continue
			}
			n++
			c := classify(img, x, y)
			counts[c]++
			switch {
			case c == pxFluid:
				fluid++
				if p.In(fluidBox) {
					fluidIn++
				}
			case c == pxWall && p.In(tankBox) && !p.In(fluidBox):
				wall++
			}
			if !p.In(tankBox) {
				outside++
				if c == pxBackground {
					bgOut++
				}
			}
		}
	}
	hits, centres := 0, 0
	for _, x := range w.Particles(water).X {
		px, py, ok := shot.Project(x)
		p := image.Pt(int(px), int(py))
		if !ok || !p.In(b) || inAny(p, shot.Overlays) {
			continue
		}
		centres++
		if classify(img, p.X, p.Y) == pxFluid {
			hits++
		}
	}
	t.Logf("pixels (outside the HUD) %d: background %d, fluid %d, wall %d, other %d; fluid box %v, tank box %v",
		n, counts[pxBackground], counts[pxFluid], counts[pxWall], counts[pxOther], fluidBox, tankBox)
	t.Logf("fluid inside its box %d/%d, particle centres on fluid pixels %d/%d, background outside the tank %d/%d, wall pixels beside the fluid %d",
		fluidIn, fluid, hits, centres, bgOut, outside, wall)
	if share := float64(fluid) / float64(n); share < minFluidShare {
		t.Errorf("fluid covers %.3f of the image, want ≥ %g", share, minFluidShare)
	}
	if share := float64(fluidIn) / float64(max(fluid, 1)); share < fluidInsideBox {
		t.Errorf("%.3f of the fluid pixels inside the fluid's projected box, want ≥ %g", share, fluidInsideBox)
	}
	if share := float64(hits) / float64(max(centres, 1)); centres == 0 || share < fluidAtParticles {
		t.Errorf("%d/%d particle centres on fluid pixels (%.3f), want ≥ %g", hits, centres, share, fluidAtParticles)
	}
	if share := float64(bgOut) / float64(max(outside, 1)); outside == 0 || share < bgOutsideTank {
		t.Errorf("%d/%d pixels outside the tank are background (%.3f), want ≥ %g", bgOut, outside, share, bgOutsideTank)
	}
	if wall < minWallPixels {
		t.Errorf("%d wall-coloured pixels inside the tank beside the fluid, want ≥ %d", wall, minWallPixels)
	}
	text := 0
	hud := shot.Overlays[0]
	for y := hud.Min.Y; y < hud.Max.Y; y++ {
		for x := hud.Min.X; x < hud.Max.X; x++ {
			i := img.PixOffset(x, y)
			if float64(min(img.Pix[i], img.Pix[i+1], img.Pix[i+2]))/255 >= hudTextBrightness {
				text++
			}
		}
	}
	if text < minHUDTextPixels {
		t.Errorf("%d text pixels in the HUD %v, want ≥ %d", text, hud, minHUDTextPixels)
	}

	// Coloured by speed, the fluid takes the colour map's hues and the legend shows the map:
	// its bar has the map's red end, which neither the phase colours nor the background have.
	shot2, err := runOnMain(w, Options{Width: 800, Height: 600, Frames: 2, Color: "speed", Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	red := 0
	legend := shot2.Overlays[1]
	for y := legend.Min.Y; y < legend.Max.Y; y++ {
		for x := legend.Min.X; x < legend.Max.X; x++ {
			i := shot2.Image.PixOffset(x, y)
			if r, g := float64(shot2.Image.Pix[i])/255, float64(shot2.Image.Pix[i+1])/255; r >= 0.6 && g <= 0.3 {
				red++
			}
		}
	}
	t.Logf("speed legend %v: %d red pixels", legend, red)
	if red < 20 {
		t.Errorf("%d red pixels in the speed legend %v, want the colour bar's red end (≥ 20)", red, legend)
	}
}

// BenchmarkSync100k measures the per-frame CPU cost of View.Sync for 100k moving particles
// (interpolating between two physics states into the interleaved vertex buffer; with a field,
// also evaluating it and mapping it to colours). No GL context is needed: the upload itself is
// the GL driver's, at the next render.
func BenchmarkSync100k(b *testing.B) {
	settings := components.DefaultSolver() // r = 0.025 m: spacing 0.05 m
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	// 50 × 50 × 40 = 100,000 samples at 0.05 m (a block holds ⌊side/0.05⌉ − 1 per axis).
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2.55, 2.55, 2.05}, mgl64.Vec3{}); err != nil {
		b.Fatal(err)
	}
	d, err := NewDriver(WorldStepper{w}, 60, 8)
	if err != nil {
		b.Fatal(err)
	}
	d.acc = 0.5 * d.h // interpolate halfway, the general case
	v, err := NewView(w, d)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := v.Particles()
	if n != 100000 {
		b.Fatalf("%d particles, want 100000", n)
	}
	for _, mode := range []string{"phase", "speed"} {
		b.Run(mode, func(b *testing.B) {
			v.SetColorMode(mode)
			v.Sync()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v.Sync()
			}
			b.StopTimer()
			perFrame := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perFrame, "ns/frame")
			b.ReportMetric(perFrame/float64(n), "ns/particle")
			b.ReportMetric(float64(n), "particles")
		})
	}
}

func TestViewFollowsRemovals(t *testing.T) {
	// Removing bodies between frames: the view lays itself out again at the next Sync, so a
	// removed wall is no longer drawn and a removed crate's mesh goes, without a panic.
	w, d := smallWorld(t)
	def := components.DefaultRigidBody()
	def.Size, def.Position = mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0.7, 0.6, 0.25}
	crate, err := w.AddRigidBody("crate", def)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Advance(1.0 / 60); err != nil {
		t.Fatal(err)
	}
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	if v.RigidBodies() != 1 {
		t.Fatalf("view draws %d rigid bodies, want the crate", v.RigidBodies())
	}
	tank, _ := w.BodyByName("tank")
	water, _ := w.BodyByName("water")
	if err := w.Remove(tank); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Advance(1.0 / 60); err != nil {
		t.Fatal(err)
	}
	v.Sync()
	if m, s := v.Particles(); s != 0 || m != w.Particles(water).Len() {
		t.Errorf("after removing the tank the view draws %d moving and %d static particles", m, s)
	}
	if err := w.Remove(crate); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Advance(1.0 / 60); err != nil {
		t.Fatal(err)
	}
	v.Sync()
	if v.RigidBodies() != 0 {
		t.Errorf("after removing the crate the view draws %d rigid bodies", v.RigidBodies())
	}
}

func TestRunCallsTheGamesHooks(t *testing.T) {
	// Setup runs once with the scene graph (a mesh added there is drawn), OnFrame once per
	// frame with the frame's step, OnStep once per physics step; an impulse given in OnFrame
	// reaches the crate; SaveScreenshot writes the frame it was asked in.
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	w, _ := smallWorld(t)
	def := components.DefaultRigidBody()
	def.Size, def.Position, def.Density = mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0.7, 0.8, 0.25}, 500
	crate, err := w.AddRigidBody("crate", def)
	if err != nil {
		t.Fatal(err)
	}
	var setups, frames, steps int
	var dts []float64
	marker := geometry.NewBox(0.05, 0.05, 0.05)
	shotPath := filepath.Join(t.TempDir(), "frame5.png")
	o := Options{Width: 320, Height: 240, Frames: 10, Log: io.Discard,
		Setup: func(c *Context) error {
			setups++
			c.Scene.Add(graphic.NewMesh(marker, material.NewStandard(&math32.Color{R: 1, G: 0, B: 1})))
			return nil
		},
		OnFrame: func(c *Context, dt float64) error {
			frames++
			dts = append(dts, dt)
			if c.Frame == 3 {
				return c.World.ApplyImpulse(crate, mgl64.Vec3{1, 0, 0}, c.World.RigidBody(crate).State.X)
			}
			if c.Frame == 5 {
				c.SaveScreenshot(shotPath)
			}
			return nil
		},
		OnStep: func(c *Context, st sluice.StepStats) error {
			steps++
			return nil
		},
	}
	shot, err := runOnMain(w, o)
	if err != nil {
		t.Fatal(err)
	}
	if setups != 1 || frames != 10 || steps != shot.Steps || steps == 0 {
		t.Errorf("Setup %d times, OnFrame %d, OnStep %d for %d physics steps", setups, frames, steps, shot.Steps)
	}
	for _, dt := range dts {
		if dt != 1.0/60 {
			t.Errorf("OnFrame got dt %g, want the frame step 1/60", dt)
			break
		}
	}
	// 1 N s on a 4 kg crate in the air: 0.25 m/s along x, untouched since (it falls free).
	if vx := w.RigidBody(crate).State.V[0]; math.Abs(vx-0.25) > 1e-9 {
		t.Errorf("the crate kicked in OnFrame moves at %g m/s along x, want 0.25", vx)
	}
	if _, err := os.Stat(shotPath); err != nil {
		t.Errorf("SaveScreenshot: %v", err)
	}
}

func TestViewDrawsDiffuseParticles(t *testing.T) {
	// With solver.diffuse on, the dam break's wave makes spray, foam and bubbles; after a Sync
	// the diffuse buffer holds each of them at its position in its kind's style, and a Sync
	// with as many particles as before allocates nothing.
	settings := components.DefaultSolver()
	settings.Diffuse.Enabled = true
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.6, 1, 0.4}, true)
	w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.4}, mgl64.Vec3{})
	d, err := NewDriver(WorldStepper{w}, 60, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 48; i++ { // 0.8 s: the wave has hit the far wall
		if _, err := d.Advance(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	df := w.Diffuse()
	if df.Len() == 0 || v.Diffuse() != df.Len() || len(v.dbuf) != stride*df.Len() {
		t.Fatalf("%d diffuse particles in the world, %d drawn, buffer of %d floats", df.Len(), v.Diffuse(), len(v.dbuf))
	}
	for i, x := range df.X {
		j := stride * i
		st := DiffuseStyles[df.Kind[i]]
		if v.dbuf[j] != float32(x[0]) || v.dbuf[j+1] != float32(x[1]) || v.dbuf[j+2] != float32(x[2]) ||
			(Color{v.dbuf[j+3], v.dbuf[j+4], v.dbuf[j+5], v.dbuf[j+6]}) != st.Color || v.dbuf[j+7] != st.RadiusScale*v.radius {
			t.Fatalf("diffuse particle %d (%v at %v) drawn as %v", i, df.Kind[i], x, v.dbuf[j:j+stride])
		}
	}
	if a := testing.AllocsPerRun(20, v.Sync); a != 0 {
		t.Errorf("%g allocations per Sync with %d diffuse particles, want 0", a, df.Len())
	}
	t.Logf("%d diffuse particles drawn", df.Len())
}

// TestRenderMaterialColors renders water, honey and slime side by side: each shows as an area
// of its own hue (within materialHueTol of its material's colour, at least minMaterialPixels),
// so the three are told apart on screen. SLUICE_SHOT=FILE.png keeps the screenshot.
func TestRenderMaterialColors(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	const (
		materialHueTol    = 12   // degrees: shading scales a colour's channels, keeping its hue
		minMaterialPixels = 1500 // of 480 000: each block covers far more (measured below)
		minSaturation     = 0.5  // the walls' sand-grey dots and the background are greyer
	)
	dir := t.TempDir()
	src := `{"solver": {"particleRadius": 0.025},
	  "boundaries": [{"name": "tank", "min": [0, 0, 0], "max": [1.3, 0.5, 0.3], "tank": true}],
	  "fluids": [
	    {"name": "water", "min": [0, 0, 0], "max": [0.35, 0.25, 0.3], "material": {"preset": "water"}},
	    {"name": "honey", "min": [0.475, 0, 0], "max": [0.825, 0.25, 0.3], "material": {"preset": "honey"}},
	    {"name": "slime", "min": [0.95, 0, 0], "max": [1.3, 0.25, 0.3], "material": {"preset": "slime"}}]}`
	p := filepath.Join(dir, "three.json")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, _, err := scene.LoadAny(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	path := filepath.Join(dir, "three.png")
	if s := os.Getenv("SLUICE_SHOT"); s != "" {
		path = s
	}
	shot, err := runOnMain(w, Options{Width: 800, Height: 600, Frames: 5, Screenshot: path, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	img := shot.Image
	for _, name := range []string{"water", "honey", "slime"} {
		e, _ := w.BodyByName(name)
		hm, _ := hue(BodyStyle(components.Fluid, w.Material(e).Color).Color)
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if inAny(image.Pt(x, y), shot.Overlays) {
					continue
				}
				r, g, bb, _ := img.At(x, y).RGBA()
				h, s := hue(Color{float32(r) / 65535, float32(g) / 65535, float32(bb) / 65535, 1})
				if s >= minSaturation && hueGap(h, hm) <= materialHueTol {
					n++
				}
			}
		}
		t.Logf("%s (hue %.0f°): %d pixels", name, hm, n)
		if n < minMaterialPixels {
			t.Errorf("%s: %d pixels of its hue %.0f°, want ≥ %d", name, n, hm, minMaterialPixels)
		}
	}
}
