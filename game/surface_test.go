//go:build g3n && cgo

package game

import (
	"image"
	"io"
	"math"
	"os"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/scene"
)

// stillWater is a block of water of n×m×k particles of radius r at rest on the ground (never
// stepped: the test pauses the driver), with no walls, so every pixel that is not background
// is water.
func stillWater(t testing.TB, r float64, size mgl64.Vec3) *sluice.World {
	t.Helper()
	settings := components.DefaultSolver()
	settings.ParticleRadius = r
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{}, size, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// stillElastic is stillWater with an elastic block (the jelly preset) instead of the water.
func stillElastic(t testing.TB, r float64, size mgl64.Vec3) *sluice.World {
	t.Helper()
	settings := components.DefaultSolver()
	settings.ParticleRadius = r
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	jelly, err := scene.Preset("jelly", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddElasticBlock("jelly", jelly, mgl64.Vec3{}, size, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// pause is a Setup that stops the physics: the pictures show the initial state.
func pause(c *Context) error {
	c.Driver.SetPaused(true)
	return nil
}

// luminance of pixel (x, y) in 0–255 (Rec. 709 weights).
func luminance(img *image.RGBA, x, y int) float64 {
	i := img.PixOffset(x, y)
	return 0.2126*float64(img.Pix[i]) + 0.7152*float64(img.Pix[i+1]) + 0.0722*float64(img.Pix[i+2])
}

// isBackground reports whether pixel (x, y) is the clear colour (to 8-bit rounding).
func isBackground(img *image.RGBA, x, y int) bool {
	i := img.PixOffset(x, y)
	bg := [3]float32{Background.R, Background.G, Background.B}
	for c := 0; c < 3; c++ {
		if math.Abs(float64(img.Pix[i+c])-float64(bg[c]*255)) > backgroundTol {
			return false
		}
	}
	return true
}

// backgroundTol is the 8-bit channel difference a background pixel may show: the clear colour
// is stored rounded to 8 bits, so it is off by at most half a step; 2 leaves room for dithering.
const backgroundTol = 2

// innerOutline is the screen hull of the box of pts' centres one particle spacing inside the
// block's surface: the particles' union covers it (the scallops between the outer spheres lie
// outside). A flat (2D) block's box has no depth to shrink: its z stays at the plane's.
func innerOutline(shot *Shot, pts []mgl64.Vec3, r float64) [][2]float64 {
	lo, hi := pts[0], pts[0]
	for _, p := range pts {
		for c := 0; c < 3; c++ {
			lo[c], hi[c] = math.Min(lo[c], p[c]), math.Max(hi[c], p[c])
		}
	}
	in := mgl64.Vec3{2 * r, 2 * r, 2 * r}
	if hi[2]-lo[2] < 4*r {
		in[2] = 0
	}
	var corners [][2]float64
	for i := 0; i < 8; i++ {
		p := lo.Add(in)
		if i&1 != 0 {
			p[0] = hi[0] - in[0]
		}
		if i&2 != 0 {
			p[1] = hi[1] - in[1]
		}
		if i&4 != 0 {
			p[2] = hi[2] - in[2]
		}
		x, y, _ := shot.Project(p)
		corners = append(corners, [2]float64{x, y})
	}
	return hull(corners)
}

// waterStats measures a rendered still block of water: inside the block's projected outline
// shrunk by edgeMargin pixels (so silhouettes do not count), the mean over pixels of the
// standard deviation of luminance in the (2·window+1)² square around each; the number of
// background pixels there (holes); and the number of 4-connected components of non-background
// pixels outside the HUD with at least minComponent pixels.
func waterStats(shot *Shot, pts []mgl64.Vec3, r float64) (speckle float64, holes, components, inside int) {
	const (
		edgeMargin   = 8  // pixels: the filter's and the shading's reach at the silhouette
		window       = 2  // a 5×5 square: about a marble's radius at this framing
		minComponent = 20 // pixels: smaller specks are antialiasing crumbs, not water
	)
	h := innerOutline(shot, pts, r)
	img := shot.Image
	b := img.Bounds()
	var sum float64
	for y := b.Min.Y + window; y < b.Max.Y-window; y++ {
		for x := b.Min.X + window; x < b.Max.X-window; x++ {
			if !insideHull(h, [2]float64{float64(x), float64(y)}, -edgeMargin) || inAny(image.Pt(x, y), shot.Overlays) {
				continue
			}
			inside++
			if isBackground(img, x, y) {
				holes++
			}
			var s, s2, n float64
			for dy := -window; dy <= window; dy++ {
				for dx := -window; dx <= window; dx++ {
					l := luminance(img, x+dx, y+dy)
					s += l
					s2 += l * l
					n++
				}
			}
			m := s / n
			sum += math.Sqrt(math.Max(s2/n-m*m, 0))
		}
	}
	speckle = sum / float64(max(inside, 1))

	// Components of water (non-background) pixels, by flood fill.
	w, hgt := b.Dx(), b.Dy()
	seen := make([]bool, w*hgt)
	stack := []int{}
	for y0 := 0; y0 < hgt; y0++ {
		for x0 := 0; x0 < w; x0++ {
			k := y0*w + x0
			if seen[k] || isBackground(img, x0, y0) || inAny(image.Pt(x0, y0), shot.Overlays) {
				continue
			}
			size := 0
			seen[k] = true
			stack = append(stack[:0], k)
			for len(stack) > 0 {
				k := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				size++
				x, y := k%w, k/w
				for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
					nx, ny := x+d[0], y+d[1]
					if nx < 0 || ny < 0 || nx >= w || ny >= hgt {
						continue
					}
					nk := ny*w + nx
					if seen[nk] || isBackground(img, nx, ny) || inAny(image.Pt(nx, ny), shot.Overlays) {
						continue
					}
					seen[nk] = true
					stack = append(stack, nk)
				}
			}
			if size >= minComponent {
				components++
			}
		}
	}
	return speckle, holes, components, inside
}

// TestRenderSurfaceSmooth renders a still block of water (r = 2 cm, 15×10×12 particles) in the
// surface look, in the surface look with the depth filter off, as marbles, and in the surface
// look with anisotropic particles, with and without the filter, and compares
// image statistics inside the block's outline: the surface is one connected area without holes
// whose luminance varies little from pixel to pixel; the marbles' spheres, and the unfiltered
// surface's sphere caps, make it vary more than the bound the surface stays under.
// SLUICE_SHOT=PREFIX keeps PREFIX-surface.png, PREFIX-unfiltered.png and PREFIX-marbles.png.
func TestRenderSurfaceSmooth(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	const (
		// Mean local standard deviation of luminance (0–255) over 5×5 squares inside the
		// water. Measured: surface 1.3, marbles 8.7, the surface with the filter off 10.7 (the
		// sphere caps' normals and the lattice's uneven thickness): the bound sits well above
		// the filtered surface and well below both sphere-shaped looks.
		maxSpeckle = 2.5
		// Background pixels inside the shrunk outline: none (the closing sweep fills the
		// one-pixel channels a regular lattice shows straight through the block).
		maxHoles = 0
		// Anisotropic particles (Options.Anisotropic) without the filter against spheres
		// without it: the block's surface particles are discs in its faces' planes (aniso.go),
		// so the unfiltered faces show the seams between flat discs instead of sphere caps.
		// Measured 5.76 against 10.71 (0.54); spheres, or ellipsoids that are not flattened,
		// give 1.
		maxAnisoUnfilteredRatio = 0.7
	)
	r := 0.02
	w := stillWater(t, r, mgl64.Vec3{0.6, 0.4, 0.48})
	e, _ := w.BodyByName("water")
	pts := append([]mgl64.Vec3(nil), w.Particles(e).X...)
	prefix := os.Getenv("SLUICE_SHOT")
	stats := map[string][4]float64{}
	unfiltered := DefaultSurfaceStyle()
	unfiltered.FilterRadius, unfiltered.FilterIterations = 0, 0
	for _, look := range []string{LookSurface, "unfiltered", LookMarbles, "anisotropic", "anisotropic-unfiltered"} {
		o := Options{Width: 800, Height: 600, Frames: 6, Look: look, Setup: pause, Log: io.Discard}
		switch look {
		case "unfiltered":
			o.Look, o.Surface = LookSurface, &unfiltered
		case "anisotropic":
			o.Look, o.Anisotropic = LookSurface, true
		case "anisotropic-unfiltered":
			o.Look, o.Anisotropic, o.Surface = LookSurface, true, &unfiltered
		}
		if prefix != "" {
			o.Screenshot = prefix + "-" + look + ".png"
		}
		shot, err := runOnMain(w, o)
		if err != nil {
			t.Fatal(err)
		}
		sp, holes, comps, inside := waterStats(shot, pts, r)
		stats[look] = [4]float64{sp, float64(holes), float64(comps), float64(inside)}
		t.Logf("%s: mean local luminance std %.2f over %d pixels inside the outline, %d holes, %d water components", look, sp, inside, holes, comps)
	}
	s, m, u := stats[LookSurface], stats[LookMarbles], stats["unfiltered"]
	if s[3] < 10000 {
		t.Fatalf("%g pixels inside the outline: the block is not in view", s[3])
	}
	if s[0] > maxSpeckle {
		t.Errorf("surface: mean local luminance std %.2f, want ≤ %g", s[0], maxSpeckle)
	}
	if m[0] <= maxSpeckle {
		t.Errorf("marbles: mean local luminance std %.2f, want > %g (the bound must tell the looks apart)", m[0], maxSpeckle)
	}
	if u[0] <= maxSpeckle {
		t.Errorf("surface without the filter: mean local luminance std %.2f, want > %g (the filter must be what smooths it)", u[0], maxSpeckle)
	}
	if s[1] > maxHoles {
		t.Errorf("surface: %g background pixels inside the outline, want ≤ %d", s[1], maxHoles)
	}
	if s[2] != 1 {
		t.Errorf("surface: %g connected water areas, want 1", s[2])
	}
	// The anisotropic surface: as smooth by the same bound, without holes, one area; and
	// without the filter much smoother than the spheres without it.
	a, au := stats["anisotropic"], stats["anisotropic-unfiltered"]
	if a[0] > maxSpeckle || a[1] > maxHoles || a[2] != 1 {
		t.Errorf("anisotropic surface: mean local luminance std %.2f (want ≤ %g), %g holes (want ≤ %d), %g areas (want 1)", a[0], maxSpeckle, a[1], maxHoles, a[2])
	}
	if au[0] > maxAnisoUnfilteredRatio*u[0] {
		t.Errorf("anisotropic surface without the filter: mean local luminance std %.2f, want ≤ %g × the spheres' %.2f", au[0], maxAnisoUnfilteredRatio, u[0])
	}
}

// BenchmarkSurfacePasses renders a still block of 10k and of 100k water particles (r = 1 cm)
// at 1280×720 in the surface look and as marbles for 6 + b.N frames (the physics paused) and
// reports the mean milliseconds per frame (view sync, render, swap) and, for the surface, per
// pass, over the last b.N frames, and the pixels the block covers. Under Xvfb it measures Mesa's software renderer (llvmpipe).
//
//	CGO_ENABLED=1 xvfb-run -a -s "-screen 0 1280x720x24" go test -tags g3n -run '^$' -bench SurfacePasses -benchtime 10x ./game/
func BenchmarkSurfacePasses(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("no DISPLAY: the benchmark renders; run it under xvfb-run")
	}
	for _, c := range []struct {
		name    string
		n       [3]int // particles along x, y, z
		elastic bool   // an elastic block (the jelly preset) instead of water: the solids pass
	}{{"10k", [3]int{23, 23, 22}, false}, {"100k", [3]int{48, 48, 47}, false}, {"10k-elastic", [3]int{23, 23, 22}, true}} {
		const r = 0.01
		size := mgl64.Vec3{float64(c.n[0]) * 2 * r, float64(c.n[1]) * 2 * r, float64(c.n[2]) * 2 * r}
		var w *sluice.World
		if c.elastic {
			w = stillElastic(b, r, size)
		} else {
			w = stillWater(b, r, size)
		}
		moving := 0
		for _, look := range append(Looks(), "anisotropic") {
			if look == "anisotropic" && c.elastic {
				continue // the ellipsoids are the liquids'
			}
			b.Run(c.name+"/"+look, func(b *testing.B) {
				o := Options{Look: look}
				if look == "anisotropic" {
					o.Look, o.Anisotropic = LookSurface, true
				}
				shot, err := runOnMain(w, Options{Frames: profileWarmup + 1 + b.N, Look: o.Look, Anisotropic: o.Anisotropic, Profile: true, Setup: func(ctx *Context) error {
					ctx.Driver.SetPaused(true)
					moving = ctx.Driver.Current().Counts[0]
					return nil
				}, Log: io.Discard})
				if err != nil {
					b.Fatal(err)
				}
				if shot.Profiled != b.N {
					b.Fatalf("%d frames profiled, want %d", shot.Profiled, b.N)
				}
				b.ReportMetric(float64(moving), "particles")
				// The pixels the body covers (not background, outside the HUD) in the last frame:
				// what the screen passes' cost scales with.
				covered := 0
				for y := shot.Image.Rect.Min.Y; y < shot.Image.Rect.Max.Y; y++ {
					for x := shot.Image.Rect.Min.X; x < shot.Image.Rect.Max.X; x++ {
						if !isBackground(shot.Image, x, y) && !inAny(image.Pt(x, y), shot.Overlays) {
							covered++
						}
					}
				}
				b.ReportMetric(float64(covered), "covered-px")
				b.ReportMetric(shot.FrameMs, "ms/frame")
				b.ReportMetric(1000/shot.FrameMs, "fps")
				if o.Look == LookSurface {
					for i, ms := range shot.PassMs {
						b.ReportMetric(ms, PassNames[i]+"-ms")
					}
				}
			})
		}
	}
}

// TestViewLookRanges checks which bodies the surface look takes: a water block's and a slime
// (viscoelastic goo) block's particles go to the fluid surface's passes, an elastic block's to
// a solid surface of its own (impostors again when colouring by a field), Sync allocates
// nothing, and the marbles look gives every moving particle back to the impostors. No display
// needed.
func TestViewLookRanges(t *testing.T) {
	settings := components.DefaultSolver()
	settings.ParticleRadius = 0.05
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	slime, err := scene.Preset("slime", "")
	if err != nil {
		t.Fatal(err)
	}
	if !slime.Viscoelastic.Enabled {
		t.Fatal("the slime preset is not goo")
	}
	if _, err := w.AddFluidBlock("slime", slime, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0.3, 0.3}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0.5, 0, 0}, mgl64.Vec3{0.9, 0.4, 0.4}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	jelly, err := scene.Preset("jelly", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddElasticBlock("jelly", jelly, mgl64.Vec3{1.2, 0, 0}, mgl64.Vec3{1.5, 0.3, 0.3}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	d, err := NewDriver(WorldStepper{w}, 60, 8)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	moving, _ := v.Particles()
	slimeE, _ := w.BodyByName("slime")
	nw := w.Particles(water).Len() + w.Particles(slimeE).Len()
	if v.Look() != LookSurface || v.SurfaceParticles() != nw {
		t.Fatalf("look %s: %d particles drawn as the surface, want surface and the slime's and water's %d", v.Look(), v.SurfaceParticles(), nw)
	}
	jellyE, _ := w.BodyByName("jelly")
	nj := w.Particles(jellyE).Len()
	if n, m := len(v.depthGr.Materials()), len(v.gr.Materials()); n != 1 || m != 0 {
		t.Errorf("%d liquid and %d impostor ranges in the surface look, want 1 (slime and water) and 0", n, m)
	}
	if b, n := v.SolidSurfaces(); b != 1 || n != nj {
		t.Errorf("%d solid surfaces of %d particles, want the jelly's 1 of %d", b, n, nj)
	}
	// A frame's Sync allocates nothing with a solid surface in the view either.
	v.Sync()
	if a := testing.AllocsPerRun(20, v.Sync); a != 0 {
		t.Errorf("surface look with a solid surface: %g allocations per Sync, want 0", a)
	}
	// With anisotropic particles the liquids' ellipsoids fill a buffer of their own, 16 floats
	// a liquid particle (centre, colour, three semi-axes), each particle's centre the one in
	// the main buffer; Sync still allocates nothing.
	v.SetAnisotropic(true)
	if !v.Anisotropic() || len(v.abuf) != anisoStride*nw {
		t.Fatalf("anisotropic: on %v, %d floats in the ellipsoids' buffer, want on and %d", v.Anisotropic(), len(v.abuf), anisoStride*nw)
	}
	v.Sync()
	first := 0 // the range's first ellipsoid
	for _, rg := range v.liquidRanges {
		for k := 0; k < rg[1]; k++ {
			j, p := anisoStride*(first+k), stride*(rg[0]+k)
			if !equal3(v.abuf[j:j+3], v.buf[p:p+3]) {
				t.Fatalf("ellipsoid %d at %v, its particle at %v", first+k, v.abuf[j:j+3], v.buf[p:p+3])
			}
		}
		first += rg[1]
	}
	if a := testing.AllocsPerRun(20, v.Sync); a != 0 {
		t.Errorf("anisotropic: %g allocations per Sync, want 0", a)
	}
	v.SetAnisotropic(false)
	v.Close()
	// Coloured by a field, the elastic body is drawn as spheres in the field's colours.
	if err := v.SetColorMode("speed"); err != nil {
		t.Fatal(err)
	}
	if b, _ := v.SolidSurfaces(); b != 0 || len(v.gr.Materials()) != 1 || v.SurfaceParticles() != nw {
		t.Errorf("coloured by speed: %d solid surfaces, %d impostor ranges, %d liquid particles; want 0, 1 (the jelly) and %d", b, len(v.gr.Materials()), v.SurfaceParticles(), nw)
	}
	if err := v.SetColorMode("phase"); err != nil {
		t.Fatal(err)
	}
	if err := v.SetLook(LookMarbles); err != nil {
		t.Fatal(err)
	}
	if b, _ := v.SolidSurfaces(); v.SurfaceParticles() != 0 || b != 0 || len(v.depthGr.Materials()) != 0 || len(v.thickGr.Materials()) != 0 || len(v.gr.Materials()) != 1 {
		t.Errorf("marbles: %d surface particles, %d solid surfaces, %d depth and %d impostor ranges; want 0, 0, 0 and the %d moving particles in 1", v.SurfaceParticles(), b, len(v.depthGr.Materials()), len(v.gr.Materials()), moving)
	}
	if err := v.SetLook("glass"); err == nil || v.Look() != LookMarbles {
		t.Errorf("look glass: error %v, look %s; want an error and the look unchanged", err, v.Look())
	}
}

// meanLuminance is the mean luminance (0–255) of the pixels inside innerOutline shrunk by 8
// pixels, waterStats' edge margin.
func meanLuminance(shot *Shot, pts []mgl64.Vec3, r float64) float64 {
	h := innerOutline(shot, pts, r)
	b := shot.Image.Bounds()
	var sum float64
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if insideHull(h, [2]float64{float64(x), float64(y)}, -8) && !inAny(image.Pt(x, y), shot.Overlays) {
				sum += luminance(shot.Image, x, y)
				n++
			}
		}
	}
	return sum / float64(max(n, 1))
}

// TestRenderPlanarSheet renders a still 2D block of water (solver.dimensions 2, r = 1 cm, one
// sheet of 30×20 particles) front-on in the surface look, with the default planarDepth and with
// planarDepth = 2r (the thickness the sheet's own chords give). The sheet must be one connected
// area without background showing through (spheres drawn at radius r leave the gaps of the
// lattice: 50,884 of 289,529 pixels inside the outline and 3 areas, measured), and the default
// depth must draw it as a layer of water, brighter against the dark background than the thin
// film by planarContrast.
func TestRenderPlanarSheet(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	const (
		r = 0.01
		// planarContrast: mean luminance (0–255) inside the outline, default minus thin film.
		// Measured 50.5 and 35.9 (background 20.4): the bound is about half the difference.
		planarContrast = 7.0
	)
	settings := components.DefaultSolver()
	settings.ParticleRadius, settings.Dimensions = r, 2
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{}, mgl64.Vec3{0.6, 0.4, 0}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	pts := append([]mgl64.Vec3(nil), w.Particles(e).X...)
	thin := DefaultSurfaceStyle()
	thin.PlanarDepth = 2 * r
	var lum [2]float64
	for k, c := range []struct {
		name string
		st   *SurfaceStyle
	}{{"default", nil}, {"planarDepth 2r", &thin}} {
		o := Options{Width: 800, Height: 600, Frames: 6, Look: LookSurface, Surface: c.st, Setup: pause, Log: io.Discard}
		if p := os.Getenv("SLUICE_SHOT"); p != "" {
			o.Screenshot = p + "-planar-" + c.name + ".png"
		}
		shot, err := runOnMain(w, o)
		if err != nil {
			t.Fatal(err)
		}
		sp, holes, comps, inside := waterStats(shot, pts, r)
		lum[k] = meanLuminance(shot, pts, r)
		t.Logf("%s: %d pixels inside, %d holes, %d components, speckle %.2f, mean luminance %.1f (background %.1f)", c.name, inside, holes, comps, sp, lum[k], 255*(0.2126*Background.R+0.7152*Background.G+0.0722*Background.B))
		if inside < 10000 {
			t.Fatalf("%s: %d pixels inside the outline: the sheet is not in view", c.name, inside)
		}
		if holes > 0 || comps != 1 {
			t.Errorf("%s: %d background pixels inside the outline and %d water areas, want 0 and 1", c.name, holes, comps)
		}
	}
	if lum[0]-lum[1] < planarContrast {
		t.Errorf("mean luminance %.1f with the default planarDepth, %.1f with 2r: want the default brighter by ≥ %g", lum[0], lum[1], planarContrast)
	}
}

// meanColor is the mean colour (0–1 channels) of the pixels inside innerOutline shrunk by 8
// pixels, waterStats' edge margin.
func meanColor(shot *Shot, pts []mgl64.Vec3, r float64) Color {
	h := innerOutline(shot, pts, r)
	b := shot.Image.Bounds()
	var sum [3]float64
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if insideHull(h, [2]float64{float64(x), float64(y)}, -8) && !inAny(image.Pt(x, y), shot.Overlays) {
				i := shot.Image.PixOffset(x, y)
				for c := 0; c < 3; c++ {
					sum[c] += float64(shot.Image.Pix[i+c]) / 255
				}
				n++
			}
		}
	}
	k := float32(max(n, 1))
	return Color{float32(sum[0]) / k, float32(sum[1]) / k, float32(sum[2]) / k, 1}
}

// TestRenderElasticSurface renders a still elastic block (r = 2 cm, 15×10×12 particles, the
// jelly preset, physics paused, no walls) as an opaque surface (the default look) and as
// marbles, with the statistics of TestRenderSurfaceSmooth inside the block's outline: the
// surface is one connected area without holes whose luminance varies little from pixel to
// pixel, where the marbles' spheres vary more than the bound; and its mean colour has the
// body's hue, away from the water's.
func TestRenderElasticSurface(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	const (
		// maxSolidSpeckle: mean local standard deviation of luminance (0–255) over 5×5 squares
		// inside the block, the fluid surface's bound (TestRenderSurfaceSmooth): a smooth
		// surface stays well below it, sphere-shaped shading (the marbles) well above.
		maxSolidSpeckle = 2.5
		// maxHueShift: degrees between the block's mean colour's hue and its material colour's.
		// The shading scales the colour and adds a white highlight, neither of which turns the
		// hue; 10° leaves room for 8-bit rounding of the darker pixels.
		maxHueShift = 10
	)
	r := 0.02
	settings := components.DefaultSolver()
	settings.ParticleRadius = r
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	jelly, err := scene.Preset("jelly", "")
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.AddElasticBlock("jelly", jelly, mgl64.Vec3{}, mgl64.Vec3{0.6, 0.4, 0.48}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	pts := append([]mgl64.Vec3(nil), w.Particles(e).X...)
	body := BodyStyle(components.Elastic, jelly.Color).Color
	bodyHue, _ := hue(body)
	waterHue, _ := hue(StyleOf(components.Fluid).Color)
	speckle := map[string]float64{}
	for _, look := range Looks() {
		o := Options{Width: 800, Height: 600, Frames: 6, Look: look, Setup: pause, Log: io.Discard}
		if p := os.Getenv("SLUICE_SHOT"); p != "" {
			o.Screenshot = p + "-elastic-" + look + ".png"
		}
		shot, err := runOnMain(w, o)
		if err != nil {
			t.Fatal(err)
		}
		sp, holes, comps, inside := waterStats(shot, pts, r)
		speckle[look] = sp
		mh, _ := hue(meanColor(shot, pts, r))
		t.Logf("%s: mean local luminance std %.2f over %d pixels inside the outline, %d holes, %d areas; mean hue %.1f° (body %.1f°, water %.1f°)", look, sp, inside, holes, comps, mh, bodyHue, waterHue)
		if inside < 10000 {
			t.Fatalf("%s: %d pixels inside the outline: the block is not in view", look, inside)
		}
		if look != LookSurface {
			continue
		}
		if holes > 0 || comps != 1 {
			t.Errorf("surface: %d background pixels inside the outline and %d areas, want 0 and 1", holes, comps)
		}
		if g := hueGap(mh, bodyHue); g > maxHueShift {
			t.Errorf("surface: mean hue %.1f°, %.1f° from the body's %.1f°, want ≤ %d°", mh, g, bodyHue, maxHueShift)
		}
		if g := hueGap(mh, waterHue); g < minHueGap {
			t.Errorf("surface: mean hue %.1f°, %.1f° from the water's %.1f°, want ≥ %d°", mh, g, waterHue, minHueGap)
		}
	}
	if speckle[LookSurface] > maxSolidSpeckle {
		t.Errorf("surface: mean local luminance std %.2f, want ≤ %g", speckle[LookSurface], maxSolidSpeckle)
	}
	if speckle[LookMarbles] <= maxSolidSpeckle {
		t.Errorf("marbles: mean local luminance std %.2f, want > %g (the bound must tell the looks apart)", speckle[LookMarbles], maxSolidSpeckle)
	}
}

// TestRenderSolidBodiesApart renders two still elastic blocks of different colours (the jelly
// preset and the elastic phase's green, 0.15 m apart) in front of a wider and taller block of
// water, in the surface look: each block is drawn as a surface of its own, so the mean colour
// inside each block's outline has that block's hue — neither takes the other's colour nor the
// water's from behind it — and each is one area without holes.
func TestRenderSolidBodiesApart(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	// maxHueShift as in TestRenderElasticSurface: the shading scales the colour and adds white.
	const maxHueShift = 10
	// maxWaterHueShift, minWaterSaturation: the water seen over the background is its colour
	// absorbed and lit, plus the sky's blue-grey reflection, which turns the hue a little and
	// greys it; black or grey water (saturation near 0) is what a lost colour looks like.
	const (
		maxWaterHueShift   = 20
		minWaterSaturation = 0.3
	)
	r := 0.02
	settings := components.DefaultSolver()
	settings.ParticleRadius = r
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	jelly, err := scene.Preset("jelly", "")
	if err != nil {
		t.Fatal(err)
	}
	green := jelly
	green.Color = mgl64.Vec3{} // the elastic phase's colour
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{-0.2, 0, -0.4}, mgl64.Vec3{0.9, 0.5, -0.1}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	blocks := []struct {
		name   string
		mat    components.Material
		lo, hi mgl64.Vec3
	}{
		{"jelly", jelly, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.28, 0.28, 0.28}},
		{"green", green, mgl64.Vec3{0.43, 0, 0}, mgl64.Vec3{0.71, 0.28, 0.28}},
	}
	water, _ := w.BodyByName("water")
	waterPts := append([]mgl64.Vec3(nil), w.Particles(water).X...)
	var pts [][]mgl64.Vec3
	for _, b := range blocks {
		e, err := w.AddElasticBlock(b.name, b.mat, b.lo, b.hi, mgl64.Vec3{})
		if err != nil {
			t.Fatal(err)
		}
		pts = append(pts, append([]mgl64.Vec3(nil), w.Particles(e).X...))
	}
	o := Options{Width: 800, Height: 600, Frames: 6, Setup: pause, Log: io.Discard}
	if p := os.Getenv("SLUICE_SHOT"); p != "" {
		o.Screenshot = p + "-solids-apart.png"
	}
	shot, err := runOnMain(w, o)
	if err != nil {
		t.Fatal(err)
	}
	waterHue, _ := hue(StyleOf(components.Fluid).Color)
	// The water's pixels beside the blocks (inside its outline, outside theirs widened by 8
	// pixels) keep the water's hue: the solid surfaces' passes leave the liquid's alone.
	wh := innerOutline(shot, waterPts, r)
	widen := 0.0
	// A block's silhouette lies up to a spacing plus a radius (3r) outside its inner outline:
	// its outline is widened by that length's projection at the block's front corner, plus 8.
	var hulls [][][2]float64
	for i, b := range blocks {
		hulls = append(hulls, innerOutline(shot, pts[i], r))
		x0, y0, _ := shot.Project(mgl64.Vec3{b.lo[0], b.lo[1], b.hi[2]})
		x1, y1, _ := shot.Project(mgl64.Vec3{b.lo[0] + 3*r, b.lo[1], b.hi[2]})
		widen = max(widen, 8+math.Hypot(x1-x0, y1-y0))
	}
	var sum [3]float64
	n := 0
	bnd := shot.Image.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			q := [2]float64{float64(x), float64(y)}
			if !insideHull(wh, q, -8) || inAny(image.Pt(x, y), shot.Overlays) || insideHull(hulls[0], q, widen) || insideHull(hulls[1], q, widen) {
				continue
			}
			i := shot.Image.PixOffset(x, y)
			for c := 0; c < 3; c++ {
				sum[c] += float64(shot.Image.Pix[i+c]) / 255
			}
			n++
		}
	}
	if n < 10000 {
		t.Fatalf("%d water pixels beside the blocks: the water is not in view", n)
	}
	k := float32(n)
	wc := Color{float32(sum[0]) / k, float32(sum[1]) / k, float32(sum[2]) / k, 1}
	got, sat := hue(wc)
	t.Logf("water beside the blocks: mean colour %.3f %.3f %.3f over %d pixels, hue %.1f°, saturation %.2f (its colour's hue %.1f°)", wc.R, wc.G, wc.B, n, got, sat, waterHue)
	if g := hueGap(got, waterHue); g > maxWaterHueShift || sat < minWaterSaturation {
		t.Errorf("water beside the blocks: hue %.1f° (%.1f° from its colour's), saturation %.2f; want ≤ %d° and ≥ %g", got, g, sat, maxWaterHueShift, minWaterSaturation)
	}
	for i, b := range blocks {
		want, _ := hue(BodyStyle(components.Elastic, b.mat.Color).Color)
		got, _ := hue(meanColor(shot, pts[i], r))
		t.Logf("%s: mean hue %.1f° inside its outline, its colour's %.1f° (water %.1f°)", b.name, got, want, waterHue)
		if g := hueGap(got, want); g > maxHueShift {
			t.Errorf("%s: mean hue %.1f°, %.1f° from its colour's %.1f°, want ≤ %d°", b.name, got, g, want, maxHueShift)
		}
	}
}

// equal3 reports whether two float triples are equal.
func equal3(a, b []float32) bool { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] }
