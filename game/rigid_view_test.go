//go:build g3n && cgo

package game

import (
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// crateWorld is a tank with a pine crate (500 kg/m³, 30 cm, turned 30° about the vertical)
// dropped onto a layer of water, at the default resolution (r = 2.5 cm).
func crateWorld(t testing.TB) (*sluice.World, sluice.Entity) {
	t.Helper()
	w, err := sluice.NewWorld(components.DefaultSolver(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.8, 0.6}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.35, 0.6}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	def := components.DefaultRigidBody()
	def.Size = mgl64.Vec3{0.3, 0.3, 0.3}
	def.Density = 500
	def.Position = mgl64.Vec3{0.5, 0.42, 0.3}
	def.Orientation = [4]float64(rigid.QuatAxisAngle(mgl64.Vec3{0, 1, 0}, math.Pi/6))
	crate, err := w.AddRigidBody("crate", def)
	if err != nil {
		t.Fatal(err)
	}
	return w, crate
}

// meshTol is the float32 rounding of a pose copied into a g3n node.
const meshTol = 1e-6

func TestViewRigidMeshes(t *testing.T) {
	// The crate is one mesh (its boundary samples are not in the particle buffer) placed at the
	// driver's interpolated pose every Sync, which allocates nothing.
	w, crate := crateWorld(t)
	d, err := NewDriver(WorldStepper{w}, 60, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Advance(0.1 + 0.5/60); err != nil { // 6 steps and half a step carried
		t.Fatal(err)
	}
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	water, _ := w.BodyByName("water")
	tank, _ := w.BodyByName("tank")
	if m, s := v.Particles(); m != w.Particles(water).Len() || s != w.Particles(tank).Len() || v.RigidBodies() != 1 {
		t.Fatalf("view draws %d moving, %d wall particles and %d meshes; want the water's %d, the tank's %d and 1 (the crate's %d samples as a mesh)",
			m, s, v.RigidBodies(), w.Particles(water).Len(), w.Particles(tank).Len(), w.Particles(crate).Len())
	}
	t.Logf("%d water particles, %d wall samples, the crate's %d samples drawn as one mesh", w.Particles(water).Len(), w.Particles(tank).Len(), w.Particles(crate).Len())
	want := d.Poses(nil)[0]
	if want == d.Current().Poses[0] {
		t.Fatal("the drawn pose is the current one: the test wants a frame between two steps")
	}
	node := v.rigid[0].mesh
	p, q := node.Position(), node.Quaternion()
	got := [7]float64{float64(p.X), float64(p.Y), float64(p.Z), float64(q.W), float64(q.X), float64(q.Y), float64(q.Z)}
	exp := [7]float64{want.X[0], want.X[1], want.X[2], want.Q[0], want.Q[1], want.Q[2], want.Q[3]}
	for k := range got {
		if math.Abs(got[k]-exp[k]) > meshTol {
			t.Fatalf("mesh at %v %v, want the interpolated pose %v", p, q, want)
		}
	}
	v.Sync()
	if a := testing.AllocsPerRun(20, v.Sync); a != 0 {
		t.Errorf("%g allocations per Sync with a rigid body, want 0", a)
	}
}

// sampleTol is the float32 rounding of a sample's world position (coordinates below 1 m).
const sampleTol = 1e-6

func TestViewRigidSamples(t *testing.T) {
	// Drawn as samples, the crate's mesh is hidden and its samples sit, opaque and in its
	// colour, between the moving particles and the walls, at the interpolated pose (at alpha 1,
	// paused, exactly where the solver put the body); Sync still allocates nothing; switched
	// back, the buffer is the meshes-only layout again.
	w, crate := crateWorld(t)
	d, err := NewDriver(WorldStepper{w}, 60, 8)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Advance(0.1); err != nil {
		t.Fatal(err)
	}
	d.SetPaused(true)
	v, err := NewView(w, d)
	if err != nil {
		t.Fatal(err)
	}
	moving, static := v.Particles()
	if err := v.SetRigidSamples(true); err != nil {
		t.Fatal(err)
	}
	v.Sync()
	st := &w.RigidBody(crate).State
	on, n := v.RigidSamples()
	if !on || n != len(st.Samples) || v.rigid[0].mesh.Visible() {
		t.Fatalf("samples on %v, %d drawn for the crate's %d, mesh visible %v", on, n, len(st.Samples), v.rigid[0].mesh.Visible())
	}
	if m, s := v.Particles(); m != moving || s != static {
		t.Fatalf("moving and wall particles %d, %d changed from %d, %d", m, s, moving, static)
	}
	c := RigidShade(st.Motion, 0)
	for k, smp := range st.Samples {
		x := st.ToWorld(smp)
		j := stride * (moving + k)
		for a := 0; a < 3; a++ {
			if math.Abs(float64(v.buf[j+a])-x[a]) > sampleTol {
				t.Fatalf("sample %d drawn at %v, the body puts it at %v", k, v.buf[j:j+3], x)
			}
		}
		if got := (Color{v.buf[j+3], v.buf[j+4], v.buf[j+5], v.buf[j+6]}); got != c {
			t.Fatalf("sample %d colour %v, want the crate's %v", k, got, c)
		}
	}
	if a := testing.AllocsPerRun(20, v.Sync); a != 0 {
		t.Errorf("%g allocations per Sync drawing samples, want 0", a)
	}
	if err := v.SetRigidSamples(false); err != nil {
		t.Fatal(err)
	}
	if on, n := v.RigidSamples(); on || n != 0 || !v.rigid[0].mesh.Visible() || len(v.buf) != stride*moving || len(v.sbuf) != stride*static {
		t.Fatalf("back to meshes: samples %v (%d), mesh visible %v, buffers %d and %d floats for %d moving and %d wall particles", on, n, v.rigid[0].mesh.Visible(), len(v.buf), len(v.sbuf), moving, static)
	}
}

// Pixel class of the crate, on 0–1 channels: its wood colour shaded by ambient and diffuse
// light is red well above blue and green below red; neither the water, the translucent wall
// dots nor the background come near.
const (
	crateMinRed     = 0.25
	crateRedOverB   = 0.18
	crateInsideBox  = 0.98 // share of crate pixels inside the crate's projected outline
	crateCoverage   = 0.5  // share of the outline covered by crate pixels (water hides the rest)
	crateEdgeMargin = 1.5  // pixels the outline is widened by (rasterisation at its edges)
)

func isCrate(img *image.RGBA, x, y int) bool {
	i := img.PixOffset(x, y)
	r, g, b := float64(img.Pix[i])/255, float64(img.Pix[i+1])/255, float64(img.Pix[i+2])/255
	return r >= crateMinRed && r-b >= crateRedOverB && g < r
}

// hull is the convex hull of points, counter-clockwise in image coordinates (monotone chain).
func hull(pts [][2]float64) [][2]float64 {
	sort.Slice(pts, func(i, j int) bool {
		return pts[i][0] < pts[j][0] || (pts[i][0] == pts[j][0] && pts[i][1] < pts[j][1])
	})
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	var h [][2]float64
	for pass := 0; pass < 2; pass++ {
		start := len(h)
		for _, p := range pts {
			for len(h) >= start+2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
				h = h[:len(h)-1]
			}
			h = append(h, p)
		}
		h = h[:len(h)-1]
		for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
	}
	return h
}

// insideHull reports whether p lies in the convex polygon h or within margin pixels of it.
func insideHull(h [][2]float64, p [2]float64, margin float64) bool {
	for i := range h {
		a, b := h[i], h[(i+1)%len(h)]
		ex, ey := b[0]-a[0], b[1]-a[1]
		// Distance of p to the left of the edge a→b (inside for this winding) is negative.
		if (ex*(p[1]-a[1])-ey*(p[0]-a[0]))/math.Hypot(ex, ey) < -margin {
			return false
		}
	}
	return true
}

// TestRenderFloatingCrate renders a crate floating in water and checks by pixel statistics that
// the crate's colour appears where its box projects (the outline of its 8 corners at its pose)
// and almost nowhere else. SLUICE_SHOT=FILE.png keeps the screenshot for a look.
func TestRenderFloatingCrate(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: the render test needs an X server; run it under xvfb-run (see .ci/g3n.sh)")
	}
	w, crate := crateWorld(t)
	path := filepath.Join(t.TempDir(), "crate.png")
	if p := os.Getenv("SLUICE_SHOT"); p != "" {
		path = p
	}
	const frames = 20
	shot, err := runOnMain(w, Options{Width: 800, Height: 600, Frames: frames, Screenshot: path, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if shot.Steps != frames {
		t.Fatalf("%d physics steps, want %d", shot.Steps, frames)
	}
	st := &w.RigidBody(crate).State
	h := st.Shape.HalfExtents
	var corners [][2]float64
	for _, s := range [8][3]float64{{-1, -1, -1}, {1, -1, -1}, {-1, 1, -1}, {1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {-1, 1, 1}, {1, 1, 1}} {
		x, y, ok := shot.Project(st.ToWorld(rigid.Vec3{s[0] * h[0], s[1] * h[1], s[2] * h[2]}))
		if !ok {
			t.Fatal("a corner of the crate is outside the view")
		}
		corners = append(corners, [2]float64{x, y})
	}
	outline := hull(corners)
	img := shot.Image
	b := img.Bounds()
	var crates, inside, area, covered int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if inAny(image.Pt(x, y), shot.Overlays) {
				continue
			}
			c := [2]float64{float64(x) + 0.5, float64(y) + 0.5}
			in := insideHull(outline, c, crateEdgeMargin)
			isC := isCrate(img, x, y)
			if isC {
				crates++
				if in {
					inside++
				}
			}
			if insideHull(outline, c, 0) {
				area++
				if isC {
					covered++
				}
			}
		}
	}
	topX, topY, _ := shot.Project(st.ToWorld(rigid.Vec3{0, h[1], 0}))
	t.Logf("crate at %.4v, %d crate pixels, %d inside its outline (%d pixels, %d covered), top centre at (%.0f, %.0f)",
		st.X, crates, inside, area, covered, topX, topY)
	if share := float64(inside) / float64(max(crates, 1)); crates == 0 || share < crateInsideBox {
		t.Errorf("%d/%d crate pixels inside the crate's projected outline (%.3f), want ≥ %g", inside, crates, share, crateInsideBox)
	}
	if share := float64(covered) / float64(max(area, 1)); share < crateCoverage {
		t.Errorf("crate colour covers %d of the %d pixels of its outline (%.3f), want ≥ %g", covered, area, share, crateCoverage)
	}
	if !isCrate(img, int(topX), int(topY)) {
		t.Errorf("the centre of the crate's top face (%.0f, %.0f) is not crate-coloured", topX, topY)
	}
}

// BenchmarkSyncRigid measures the per-frame CPU cost of moving the rigid bodies' meshes:
// interpolating each body's pose between the last two physics states and setting its mesh
// node's position and rotation (View.syncRigid, the part of Sync rigid bodies add). The bodies
// are boxes, spheres and capsules floating on a small pool; no GL context is needed.
func BenchmarkSyncRigid(b *testing.B) {
	for _, n := range []int{4, 32} {
		w, err := sluice.NewWorld(components.DefaultSolver(), 1)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		// a tank, so that the bodies' shadows are drawn (and timed) too
		if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.3, 0, -0.5}, mgl64.Vec3{2.5, 2, 0.6}, true); err != nil {
			b.Fatal(err)
		}
		if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.5, 0.2, 0.5}, mgl64.Vec3{}); err != nil {
			b.Fatal(err)
		}
		shapes := []string{"box", "sphere", "capsule"}
		for i := 0; i < n; i++ {
			def := components.DefaultRigidBody()
			def.Shape = shapes[i%len(shapes)]
			def.Position = mgl64.Vec3{float64(i%8) * 0.3, 0.5 + float64(i/8)*0.3, 0}
			def.Orientation = [4]float64(rigid.QuatAxisAngle(mgl64.Vec3{1, 2, 3}, 0.1*float64(i)))
			if _, err := w.AddRigidBody(string(rune('a'+i%26))+string(rune('0'+i/26)), def); err != nil {
				b.Fatal(err)
			}
		}
		d, err := NewDriver(WorldStepper{w}, 60, 8)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Advance(1.5 / 60); err != nil { // one step, half a step carried
			b.Fatal(err)
		}
		v, err := NewView(w, d)
		if err != nil {
			b.Fatal(err)
		}
		if v.RigidBodies() != n {
			b.Fatalf("%d meshes, want %d", v.RigidBodies(), n)
		}
		b.Run(fmt.Sprintf("bodies=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				v.syncRigid()
			}
			perFrame := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perFrame/1e3, "µs/frame")
			b.ReportMetric(perFrame/float64(n), "ns/body")
		})
	}
}
