//go:build g3n && cgo

package game

import (
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/g3n/engine/camera"
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/light"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/renderer"
	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// Options configures Run. Zero values take the documented defaults.
type Options struct {
	Title      string  // window title (default "sluice")
	Width      int     // window width in pixels (default 1280)
	Height     int     // window height in pixels (default 720)
	Rate       float64 // physics steps per simulated second (default 60)
	MaxCatchUp int     // physics steps per frame at most, after a stall (default 8)
	Color      string  // initial colouring: "phase" (default) or a field name (see ColorModes)
	ScenePath  string  // scene file whose fluid materials are hot-reloaded when it changes ("": none)
	Frames     int     // > 0: render this many frames, then return
	Screenshot string  // with Frames: save the last frame as a PNG file here
	// RigidSamples draws rigid bodies as their boundary samples instead of meshes (key B).
	RigidSamples bool
	// WallSamples draws the static walls as their boundary samples; by default box walls are
	// drawn as glass sides and an opaque floor (key W).
	WallSamples bool
	// Look draws the liquid bodies as the screen-space fluid surface and the elastic and
	// elastoplastic bodies as opaque surfaces ("surface", default), or all of them as shaded
	// spheres ("marbles"); key F switches.
	Look string
	// Anisotropic draws the liquids of a 3D world in the surface look as ellipsoids shaped by
	// their neighbours (Yu and Turk 2013; docs/view.md) instead of spheres: flatter surfaces for
	// a CPU pass over the liquid particles each frame; key A switches.
	Anisotropic bool
	// Surface is the surface look's parameters (nil: DefaultSurfaceStyle).
	Surface *SurfaceStyle
	// Profile times the frames (Shot.FrameMs) and the surface's passes (Shot.PassMs; waiting
	// for the GL after each pass).
	Profile bool
	// FrameDt > 0 advances the physics by this many seconds per frame instead of by the wall
	// clock, making the frames reproducible (default with Frames: 1/Rate).
	FrameDt float64
	Log     io.Writer // reload results and step errors (default os.Stderr)

	// Setup, when set, is called once before the first frame: a game adds its own meshes,
	// lights and HUD to the scene graph and subscribes to the window's input there.
	Setup func(c *Context) error
	// OnFrame, when set, is called every frame before the physics advances, with the
	// frame's time step (s): a game reads its input and pushes bodies here, between steps.
	OnFrame func(c *Context, dt float64) error
	// OnStep, when set, is called after every physics step the driver takes, with its
	// statistics; World.Events lists what happened in it.
	OnStep func(c *Context, st sluice.StepStats) error
}

// Context is what Run gives a game's callbacks: the world and the g3n objects it draws with.
type Context struct {
	World  *sluice.World
	Driver *Driver
	Scene  *core.Node // the scene graph: add meshes, lights and GUI panels to it
	Camera *camera.Camera
	Window *window.GlfwWindow
	// Frame is the number of the frame being prepared (from 1).
	Frame int

	frames     int // Options.Frames: the last frame of a recorded run, 0 for an open window
	screenshot string
}

// lastFrame reports whether the frame being prepared is the last of a run with Options.Frames.
func (c *Context) lastFrame() bool { return c.frames > 0 && c.Frame == c.frames }

// SaveScreenshot asks Run to save the frame being prepared, once rendered, as a PNG file.
func (c *Context) SaveScreenshot(path string) { c.screenshot = path }

// hookedStepper calls a game's OnStep after every step of the world.
type hookedStepper struct {
	WorldStepper
	ctx    *Context
	onStep func(c *Context, st sluice.StepStats) error
}

// Step implements Stepper.
func (h hookedStepper) Step(dt float64) (sluice.StepStats, error) {
	st, err := h.WorldStepper.Step(dt)
	if err != nil {
		return st, err
	}
	if err := h.onStep(h.ctx, st); err != nil {
		return st, fmt.Errorf("OnStep: %w", err)
	}
	return st, nil
}

// Shot is what Run returns: the last frame's pixels (when Frames was set) and how to find
// world points in it.
type Shot struct {
	Image    *image.RGBA       // last frame, top row first; nil without Frames
	Overlays []image.Rectangle // the HUD's rectangles in the image
	Frames   int               // frames rendered
	Steps    int               // physics steps taken
	Project  func(p mgl64.Vec3) (x, y float64, visible bool)
	// With Options.Profile: the mean milliseconds of the whole frame (view sync, render,
	// buffer swap; physics excluded) and, in the surface look, of each surface pass
	// (PassNames), over the frames after the first profileWarmup, and how many frames that was.
	PassMs   [NumPasses]float64
	FrameMs  float64
	Profiled int
}

// profileWarmup is the number of frames not profiled: the first frames compile the programs,
// allocate the targets and upload the buffers.
const profileWarmup = 5

// Background is the clear colour of the view.
var Background = Color{0.07, 0.08, 0.11, 1}

// validate fills defaults and checks the options, naming the bad field.
func (o *Options) validate() error {
	if o.Title == "" {
		o.Title = "sluice"
	}
	if o.Width == 0 {
		o.Width = 1280
	}
	if o.Height == 0 {
		o.Height = 720
	}
	if o.Rate == 0 {
		o.Rate = 60
	}
	if o.MaxCatchUp == 0 {
		o.MaxCatchUp = 8
	}
	if o.Color == "" {
		o.Color = "phase"
	}
	if o.Look == "" {
		o.Look = LookSurface
	}
	if err := checkLook(o.Look); err != nil {
		return err
	}
	if o.Surface == nil {
		st := DefaultSurfaceStyle()
		o.Surface = &st
	} else if err := o.Surface.Validate(); err != nil {
		return err
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	switch {
	case o.Width < 16 || o.Height < 16:
		return fmt.Errorf("window size %d×%d: width and height must be at least 16 pixels", o.Width, o.Height)
	case o.Frames < 0:
		return fmt.Errorf("frames %d must be ≥ 0", o.Frames)
	case o.Screenshot != "" && o.Frames == 0:
		return fmt.Errorf("screenshot %q needs Frames ≥ 1: the frame to capture", o.Screenshot)
	case o.FrameDt < 0 || math.IsNaN(o.FrameDt) || math.IsInf(o.FrameDt, 0):
		return fmt.Errorf("frame time %g s must be a finite number ≥ 0", o.FrameDt)
	}
	if o.Frames > 0 && o.FrameDt == 0 {
		o.FrameDt = 1 / o.Rate
	}
	return nil
}

var winErr error
var winOpen bool

// openWindow creates g3n's window (a process-wide singleton) or resizes the existing one.
// g3n binds the GL context to the OS thread that created the window: every Run of a process
// must come from that goroutine (a program's main goroutine; cmd/sluice locks it in init).
func openWindow(o *Options) (*window.GlfwWindow, error) {
	if winErr != nil {
		return nil, winErr
	}
	if !winOpen {
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return nil, errors.New("no display: DISPLAY is not set (run under a desktop session, or headless under xvfb-run)")
		}
		if err := window.Init(o.Width, o.Height, o.Title); err != nil {
			winErr = fmt.Errorf("opening a %d×%d OpenGL 3.3 window: %w", o.Width, o.Height, err)
			return nil, winErr
		}
		winOpen = true
	}
	gw := window.Get().(*window.GlfwWindow)
	gw.SetTitle(o.Title)
	gw.SetSize(o.Width, o.Height)
	gw.SetShouldClose(false)
	return gw, nil
}

// Run opens a window on w and runs the game loop until the window is closed, Esc is pressed or
// Options.Frames frames were drawn: each frame feeds its wall time (or Options.FrameDt) to a
// Driver at Options.Rate, syncs the View, updates the HUD and renders. Keys: space pauses,
// N (or .) single-steps, + and − double and halve the speed, 0 restores real time, C cycles the
// colouring, F switches liquids between the fluid surface and marbles (Options.Look), B
// switches rigid bodies between meshes and their boundary samples, W the static walls between
// faces and samples (Options.WallSamples), A the liquids between spheres and anisotropic
// ellipsoids (Options.Anisotropic), R reloads the
// materials of Options.ScenePath (which is also reloaded whenever the file changes), the mouse
// and the arrow keys orbit, Esc quits. A game hooks in through Options.Setup (once, with the
// scene graph, camera and window), Options.OnFrame (every frame, before the physics) and
// Options.OnStep (after every physics step), and saves frames with Context.SaveScreenshot.
func Run(w *sluice.World, o Options) (*Shot, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	ctx := &Context{World: w, frames: o.Frames}
	var stepper Stepper = WorldStepper{w}
	if o.OnStep != nil {
		stepper = hookedStepper{WorldStepper: WorldStepper{w}, ctx: ctx, onStep: o.OnStep}
	}
	driver, err := NewDriver(stepper, o.Rate, o.MaxCatchUp)
	if err != nil {
		return nil, err
	}
	ctx.Driver = driver
	view, err := NewView(w, driver)
	if err != nil {
		return nil, err
	}
	if err := view.SetColorMode(o.Color); err != nil {
		return nil, err
	}
	if err := view.SetWallSamples(o.WallSamples); err != nil {
		return nil, err
	}
	if err := view.SetRigidSamples(o.RigidSamples); err != nil {
		return nil, err
	}
	if err := view.SetLook(o.Look); err != nil {
		return nil, err
	}
	view.SetAnisotropic(o.Anisotropic)
	defer view.Close()
	var watch *FileWatch
	if o.ScenePath != "" {
		if watch, err = NewFileWatch(o.ScenePath); err != nil {
			return nil, fmt.Errorf("hot reload: %w", err)
		}
	}
	gw, err := openWindow(&o)
	if err != nil {
		return nil, err
	}
	gs := gw.Gls()
	rend := renderer.NewRenderer(gs)
	if err := rend.AddDefaultShaders(); err != nil {
		return nil, fmt.Errorf("g3n shaders: %w", err)
	}
	RegisterShaders(rend)
	surf := newSurface(gs, rend)
	surf.profile = o.Profile
	defer surf.dispose()

	scene := core.NewNode()
	gui.Manager().Set(scene)
	scene.Add(view.Node)
	// The rigid bodies' meshes are lit: ambient light and a sun from the upper left in front,
	// about where the particles' camera-fixed light falls from the initial view.
	scene.Add(light.NewAmbient(&math32.Color{R: 1, G: 1, B: 1}, 0.4))
	sun := light.NewDirectional(&math32.Color{R: 1, G: 1, B: 1}, 0.75)
	sun.SetPosition(-0.4, 1, 0.8)
	scene.Add(sun)
	var kinds []rigid.Motion
	seenKind := map[rigid.Motion]bool{}
	for _, b := range w.Bodies() {
		if IsRigid(w, b) {
			if k := w.RigidBody(b.Entity).State.Motion; !seenKind[k] {
				seenKind[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	hud := NewHUD(LegendKeys(w))
	hud.AddRigidKeys(kinds)
	scene.Add(hud.Node)

	// Camera: frame the world's bounding box from the front, a little above and to the right
	// (a 2D world straight from the front, looking along −z at its plane), far enough that the
	// whole box is in view (FrameDistance).
	lo, hi := view.Bounds()
	center := *lo.Clone().Add(&hi).MultiplyScalar(0.5)
	size := math32.Max(hi.X-lo.X, math32.Max(hi.Y-lo.Y, hi.Z-lo.Z))
	const fov = 45
	cam := camera.NewPerspective(float32(o.Width)/float32(o.Height), 0.01*size, 100*size, fov, camera.Vertical)
	look := [3]float64{0.3, 0.45, 1}
	if w.Settings().Dimensions == 2 {
		look = [3]float64{0, 0, 1}
	}
	dir := math32.NewVector3(float32(look[0]), float32(look[1]), float32(look[2])).Normalize()
	dist := float32(FrameDistance([3]float64{float64(lo.X), float64(lo.Y), float64(lo.Z)},
		[3]float64{float64(hi.X), float64(hi.Y), float64(hi.Z)}, look, fov, float64(o.Width)/float64(o.Height)))
	cam.SetPositionVec(center.Clone().Add(dir.MultiplyScalar(dist)))
	cam.LookAt(&center, math32.NewVector3(0, 1, 0))
	scene.Add(cam)
	orbit := camera.NewOrbitControl(cam)
	orbit.SetTarget(center)
	orbit.MinDistance = 0.05 * size
	defer orbit.Dispose()

	resize := func() {
		fbw, fbh := gw.GetFramebufferSize()
		_, wh := gw.GetSize()
		gs.Viewport(0, 0, int32(fbw), int32(fbh))
		cam.SetAspect(float32(fbw) / float32(max(fbh, 1)))
		hud.Resize(wh)
	}
	resize()
	onSize := func(string, interface{}) { resize() }
	gw.SubscribeID(window.OnWindowSize, &hud, onSize)
	defer gw.UnsubscribeID(window.OnWindowSize, &hud)

	message := ""
	note := func(format string, args ...any) {
		message = fmt.Sprintf(format, args...)
		fmt.Fprintln(o.Log, message)
	}
	reload := func() {
		r, err := ReloadMaterials(w, o.ScenePath)
		if err != nil {
			note("reload failed, materials unchanged: %v", err)
			return
		}
		note("reloaded %s: %s", filepath.Base(o.ScenePath), r)
	}
	quit := false
	onKey := func(_ string, ev interface{}) {
		kev := ev.(*window.KeyEvent)
		if kev.Mods != 0 && kev.Mods != window.ModShift {
			return
		}
		switch kev.Key {
		case window.KeySpace:
			driver.SetPaused(!driver.Paused())
		case window.KeyN, window.KeyPeriod:
			driver.StepOnce()
		case window.KeyEqual, window.KeyKPAdd:
			driver.SetSpeed(2 * driver.Speed())
		case window.KeyMinus, window.KeyKPSubtract:
			driver.SetSpeed(driver.Speed() / 2)
		case window.Key0:
			driver.SetSpeed(1)
		case window.KeyC:
			view.CycleColor()
		case window.KeyB:
			on, _ := view.RigidSamples()
			if err := view.SetRigidSamples(!on); err != nil {
				note("rigid bodies: %v", err)
			}
		case window.KeyW:
			on, _ := view.WallSamples()
			if err := view.SetWallSamples(!on); err != nil {
				note("walls: %v", err)
			}
		case window.KeyF:
			look := LookMarbles
			if view.Look() == LookMarbles {
				look = LookSurface
			}
			if err := view.SetLook(look); err != nil {
				note("fluid look: %v", err)
			}
		case window.KeyA:
			view.SetAnisotropic(!view.anisoOn)
		case window.KeyR:
			if o.ScenePath == "" {
				note("no scene file to reload materials from")
			} else {
				reload()
			}
		case window.KeyEscape, window.KeyQ:
			quit = true
		}
	}
	gw.SubscribeID(window.OnKeyDown, &driver, onKey)
	gw.SubscribeID(window.OnKeyRepeat, &driver, onKey)
	defer gw.UnsubscribeID(window.OnKeyDown, &driver)
	defer gw.UnsubscribeID(window.OnKeyRepeat, &driver)

	ctx.Scene, ctx.Camera, ctx.Window = scene, cam, gw
	if o.Setup != nil {
		if err := o.Setup(ctx); err != nil {
			return nil, fmt.Errorf("Setup: %w", err)
		}
	}
	shot := &Shot{}
	bg := Background
	gs.ClearColor(bg.R, bg.G, bg.B, 1)
	last := time.Now()
	lastHUD, lastWatch := time.Time{}, time.Now()
	var fpsAvg, stepMs float64
	for frame := 1; !quit && !gw.ShouldClose(); frame++ {
		now := time.Now()
		wall := now.Sub(last).Seconds()
		last = now
		if frame > 1 {
			if fpsAvg == 0 {
				fpsAvg = 1 / max(wall, 1e-6)
			}
			fpsAvg += 0.1 * (1/max(wall, 1e-6) - fpsAvg)
		}
		dt := wall
		if o.FrameDt > 0 {
			dt = o.FrameDt
		}
		ctx.Frame = frame
		if o.OnFrame != nil {
			if err := o.OnFrame(ctx, dt); err != nil {
				return nil, fmt.Errorf("OnFrame (frame %d): %w", frame, err)
			}
		}
		t0 := time.Now()
		n, err := driver.Advance(dt)
		tPhysics := time.Now()
		if err != nil {
			note("physics stopped (paused) at t = %.4g s: %v", w.Time(), err)
		}
		if n > 0 {
			stepMs = float64(time.Since(t0).Microseconds()) / 1e3 / float64(n)
		}
		final := o.Frames > 0 && frame == o.Frames
		if final {
			// Draw the last frame at the world's state itself (alpha 1), so a screenshot after N
			// frames shows t = N·FrameDt exactly rather than the interpolation's lag behind it.
			driver.SetPaused(true)
		}
		view.Sync()

		if watch != nil && now.Sub(lastWatch) > 500*time.Millisecond {
			lastWatch = now
			if changed, _ := watch.Changed(); changed {
				reload()
			}
		}
		if final || now.Sub(lastHUD) > 250*time.Millisecond {
			lastHUD = now
			hud.SetStats(hudLines(driver, view, fpsAvg, stepMs, message, !final))
			hud.SetLegend(view)
		}

		fbw, fbh := gw.GetFramebufferSize()
		solids, _ := view.SolidSurfaces()
		surfaced := view.Look() == LookSurface && (view.SurfaceParticles() > 0 || solids > 0)
		if surfaced {
			if err := surf.render(view, scene, hud.Node, cam, o.Surface, bg, fbw, fbh); err != nil {
				// No float render targets (or another GL refusal): fall back to the marbles
				// rather than stop.
				note("fluid surface unavailable, drawing marbles: %v", err)
				gs.BindFramebuffer(0)
				_ = view.SetLook(LookMarbles)
				surfaced = false
			}
		}
		if !surfaced {
			gs.ClearColor(bg.R, bg.G, bg.B, 1)
			gs.Clear(gls.COLOR_BUFFER_BIT | gls.DEPTH_BUFFER_BIT)
			if err := rend.Render(scene, cam); err != nil {
				return nil, fmt.Errorf("render: %w", err)
			}
		}
		shot.Frames, shot.Steps = frame, driver.Steps()
		if ctx.screenshot != "" {
			if err := savePNG(ctx.screenshot, readPixels(gs, fbw, fbh)); err != nil {
				return nil, err
			}
			ctx.screenshot = ""
		}
		if final {
			shot.Image = readPixels(gs, fbw, fbh)
			shot.Overlays = hud.Rects()
			shot.Project = projector(cam, fbw, fbh)
			if o.Screenshot != "" {
				if err := savePNG(o.Screenshot, shot.Image); err != nil {
					return nil, err
				}
			}
			break
		}
		gw.SwapBuffers()
		if o.Profile && frame > profileWarmup {
			if surfaced {
				for i, ms := range surf.times {
					shot.PassMs[i] += ms
				}
			}
			shot.FrameMs += float64(time.Since(tPhysics).Nanoseconds()) / 1e6
			shot.Profiled++
		}
		gw.PollEvents()
	}
	if shot.Profiled > 0 {
		for i := range shot.PassMs {
			shot.PassMs[i] /= float64(shot.Profiled)
		}
		shot.FrameMs /= float64(shot.Profiled)
	}
	return shot, nil
}

// hudLines is the HUD's statistics text.
// The time shown is the drawn (interpolated) one. showPause is false for a screenshot's last
// frame, which pauses only to draw the world's exact state.
func hudLines(d *Driver, v *View, fps, stepMs float64, message string, showPause bool) []string {
	st := d.LastStats()
	moving, static := v.Particles()
	state := fmt.Sprintf("speed ×%g", d.Speed())
	if d.Paused() && showPause {
		state += "  PAUSED"
	}
	a, prev, cur := d.Alpha(), d.Previous().T, d.Current().T
	solver := fmt.Sprintf("last step: %d substeps, %.1f pressure iterations, density error %.3f %%", st.Substeps, st.PressureIterations, 100*st.DensityErrorAvg)
	if st.ElasticSolves > 0 {
		solver += fmt.Sprintf(", %.1f elastic CG iterations", st.ElasticIterations)
	}
	lines := []string{
		fmt.Sprintf("t = %.3f s   %.0f fps   %s   physics %.1f ms/step (%g Hz)", (1-a)*prev+a*cur, fps, state, stepMs, 1/d.Step()),
		fmt.Sprintf("particles %d moving, %d wall   rigid bodies %d", moving, static, v.RigidBodies()),
		solver,
		hudKeys,
	}
	if message != "" {
		lines = append(lines, message)
	}
	return lines
}

// readPixels reads the back buffer (before the swap) as an RGBA image, top row first.
func readPixels(gs *gls.GLS, w, h int) *image.RGBA {
	data := gs.ReadPixels(0, 0, w, h, gls.RGBA, gls.UNSIGNED_BYTE)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		copy(img.Pix[y*img.Stride:y*img.Stride+4*w], data[(h-1-y)*4*w:(h-y)*4*w])
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255 // the framebuffer's alpha is blending bookkeeping, not transparency
	}
	return img
}

// projector maps world points to pixels of a w×h image of cam's current view.
func projector(cam *camera.Camera, w, h int) func(p mgl64.Vec3) (float64, float64, bool) {
	var view, proj, vp math32.Matrix4
	cam.ViewMatrix(&view)
	cam.ProjMatrix(&proj)
	vp.MultiplyMatrices(&proj, &view)
	return func(p mgl64.Vec3) (float64, float64, bool) {
		v := math32.NewVector3(float32(p[0]), float32(p[1]), float32(p[2]))
		v.ApplyProjection(&vp)
		x := (float64(v.X) + 1) / 2 * float64(w)
		y := (1 - float64(v.Y)) / 2 * float64(h)
		return x, y, v.Z >= -1 && v.Z <= 1
	}
}

func savePNG(path string, img image.Image) error {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("screenshot %s: %w", path, err)
	}
	return f.Close()
}
