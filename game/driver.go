package game

import (
	"errors"
	"fmt"
	"math"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/systems"
)

// Stepper is what a Driver advances: a sluice World (see WorldStepper) or, in tests, anything
// whose state is a list of bodies' positions. Keeping the driver's core behind this interface
// lets its timing be tested without a World.
type Stepper interface {
	// Step advances the simulation by dt seconds.
	Step(dt float64) (sluice.StepStats, error)
	// Capture writes the current drawn state into s, reusing s's slices.
	Capture(s *State)
}

// State is the drawn state of the moving bodies after one physics step: their particle
// positions as one flat float32 slice (x0, y0, z0, x1, …), the bodies one after another, and
// each body's particle count; and the pose of every rigid body. float32 is what the vertex
// buffer holds, so a frame's sync is a blend of two flat slices. Rigid bodies are drawn as
// meshes at their poses, so their boundary particles are not in X.
type State struct {
	T      float64   // simulated time (s)
	X      []float32 // positions, 3 per particle
	Counts []int     // particles per body, in body order
	Poses  []Pose    // rigid bodies' poses, in body order
}

// copyFrom makes s a copy of o, reusing s's storage.
func (s *State) copyFrom(o *State) {
	s.T = o.T
	s.X = append(s.X[:0], o.X...)
	s.Counts = append(s.Counts[:0], o.Counts...)
	s.Poses = append(s.Poses[:0], o.Poses...)
}

// Pose is where a rigid body is: the position of its centre of mass (m) and its orientation as
// a unit quaternion [w, x, y, z] rotating body to world, as in rigid.Body's X and Q. A body's
// geometry (rigid.Body.Shape) is given about its centre of mass, so the pose places it.
type Pose struct {
	X [3]float64
	Q [4]float64
}

// LerpPose blends two poses: the position linearly, the orientation by normalised linear
// interpolation of the quaternions (nlerp) along the shorter arc (q and −q are the same
// rotation). Between two physics steps a body turns by a few degrees at most, where nlerp and
// slerp differ by far less than a pixel, and nlerp needs no trigonometry. At t ≤ 0 it returns a
// and at t ≥ 1 b exactly (bit for bit: the end states are shown as the physics left them).
func LerpPose(a, b Pose, t float64) Pose {
	if t <= 0 {
		return a
	}
	if t >= 1 {
		return b
	}
	s := 1 - t
	var p Pose
	for k := 0; k < 3; k++ {
		p.X[k] = s*a.X[k] + t*b.X[k]
	}
	if a.Q[0]*b.Q[0]+a.Q[1]*b.Q[1]+a.Q[2]*b.Q[2]+a.Q[3]*b.Q[3] < 0 {
		t = -t
	}
	l := 0.0
	for k := 0; k < 4; k++ {
		p.Q[k] = s*a.Q[k] + t*b.Q[k]
		l += p.Q[k] * p.Q[k]
	}
	if l == 0 { // only from a zero quaternion (never the solver's): keep the earlier pose
		return a
	}
	l = 1 / math.Sqrt(l)
	for k := 0; k < 4; k++ {
		p.Q[k] *= l
	}
	return p
}

// Lerp writes (1−t)·a + t·b into dst element-wise; dst, a and b have the same length. At t = 0
// it returns a exactly and at t = 1 b exactly (the products by 0 and 1 are exact), and at
// t = ½ the correctly rounded midpoint. Each product is rounded to float32 on its own (the
// explicit conversions), so the ends stay exact even where the compiler fuses multiply-adds.
func Lerp(dst, a, b []float32, t float32) {
	s := 1 - t
	b = b[:len(a)]
	dst = dst[:len(a)]
	for i := range a {
		dst[i] = float32(s*a[i]) + float32(t*b[i])
	}
}

// Driver runs a Stepper from a game loop at a fixed physics rate: each frame's wall time (times
// Speed) goes into an accumulator, whole physics steps of 1/Rate seconds are taken out of it,
// and the remainder is carried to the next frame and used to interpolate the drawn positions
// between the last two physics states (Interpolate), so motion is smooth at any frame rate and
// the physics is the same at any frame rate. After a stall (a slow frame, a breakpoint, a
// dragged window) at most MaxSteps are taken in one frame and the rest of the backlog is
// dropped, so the game never spirals into ever longer frames.
type Driver struct {
	stepper  Stepper
	h        float64 // physics step (s)
	maxSteps int

	acc          float64 // simulated time owed to the physics (s), < h between frames
	speed        float64
	paused       bool
	singles      int // single steps requested while paused
	prev, curr   State
	last         sluice.StepStats
	steps        int     // physics steps taken in total
	dropped      float64 // simulated time dropped by the catch-up cap (s)
	lastFrameRun int     // physics steps taken by the last Advance
}

// Speed limits: a factor of 1/16 (slow motion) to 8 (fast forward) of real time.
const (
	MinSpeed = 1.0 / 16
	MaxSpeed = 8.0
)

// NewDriver makes a driver taking physics steps of 1/rate seconds, at most maxSteps per frame,
// and captures the stepper's initial state as both interpolation ends.
func NewDriver(s Stepper, rate float64, maxSteps int) (*Driver, error) {
	if s == nil {
		return nil, errors.New("driver: no stepper")
	}
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("driver: physics rate %g steps/s must be a positive finite number", rate)
	}
	if maxSteps < 1 {
		return nil, fmt.Errorf("driver: catch-up cap %d steps per frame must be at least 1", maxSteps)
	}
	d := &Driver{stepper: s, h: 1 / rate, maxSteps: maxSteps, speed: 1}
	s.Capture(&d.curr)
	d.prev.copyFrom(&d.curr)
	return d, nil
}

// stepTol absorbs the rounding of sums of frame times: a frame of exactly one physics step
// (1/60 s against 1/60 s) takes one step although the summed float may fall 1 ulp short.
const stepTol = 1e-9

// Advance feeds frameDt seconds of wall time into the accumulator and takes the physics steps
// now due (none while paused, except requested single steps). It returns the number of steps
// taken; on a step's error it stops and returns the error with the steps taken before it.
func (d *Driver) Advance(frameDt float64) (int, error) {
	if frameDt < 0 || math.IsNaN(frameDt) || math.IsInf(frameDt, 0) {
		return 0, fmt.Errorf("driver: frame time %g s must be a finite number ≥ 0", frameDt)
	}
	n := 0
	if d.paused {
		n, d.singles = d.singles, 0
	} else {
		d.acc += frameDt * d.speed
		n = int(math.Floor(d.acc/d.h + stepTol))
		d.acc = max(0, d.acc-float64(n)*d.h)
		if n > d.maxSteps {
			d.dropped += float64(n-d.maxSteps) * d.h
			n = d.maxSteps
		}
	}
	d.lastFrameRun = 0
	for i := 0; i < n; i++ {
		st, err := d.stepper.Step(d.h)
		if err != nil {
			d.paused = true
			d.singles = 0
			d.acc = 0
			return i, err
		}
		d.last = st
		d.steps++
		d.lastFrameRun++
		d.prev, d.curr = d.curr, d.prev
		d.stepper.Capture(&d.curr)
	}
	return n, nil
}

// Alpha is the interpolation weight of the current state: the carried remainder as a fraction
// of a physics step, in [0, 1); 1 while paused, which shows the newest state exactly.
func (d *Driver) Alpha() float64 {
	if d.paused {
		return 1
	}
	return min(d.acc/d.h, 1)
}

// Interpolate writes the drawn positions, Lerp(previous, current, Alpha()), into dst: particle
// i's x, y, z at dst[stride·i], dst[stride·i+1], dst[stride·i+2] (stride 3: packed; a larger
// stride writes straight into an interleaved vertex buffer, leaving the other attributes
// alone). dst holds at least stride·(particles−1)+3 floats. A body whose particle count changed
// in the last step (particles left the domain and were removed) is drawn at its current state,
// and so are the bodies after it, whose offsets moved. It allocates nothing.
func (d *Driver) Interpolate(dst []float32, stride int) {
	t := float32(d.Alpha())
	s := 1 - t
	cur, prev := &d.curr, &d.prev
	off := 0
	for b, n := range cur.Counts {
		if b >= len(prev.Counts) || prev.Counts[b] != n {
			// From this body on the two states' layouts differ: draw the current state.
			copyStrided(dst, cur.X, off, stride)
			return
		}
		if stride == 3 {
			Lerp(dst[3*off:3*(off+n)], prev.X[3*off:3*(off+n)], cur.X[3*off:3*(off+n)], t)
		} else {
			a, c := prev.X[3*off:3*(off+n)], cur.X[3*off:3*(off+n)]
			o := dst[stride*off:]
			for i, j := 0, 0; i+2 < len(a); i, j = i+3, j+stride {
				o[j] = float32(s*a[i]) + float32(t*c[i])
				o[j+1] = float32(s*a[i+1]) + float32(t*c[i+1])
				o[j+2] = float32(s*a[i+2]) + float32(t*c[i+2])
			}
		}
		off += n
	}
}

// Poses writes the drawn rigid-body poses, LerpPose(previous, current, Alpha()), into dst's
// storage (one per rigid body, in body order) and returns it, allocating only when dst is too
// small. When the number of rigid bodies changed in the last step, the current poses are
// drawn.
func (d *Driver) Poses(dst []Pose) []Pose {
	cur, prev := d.curr.Poses, d.prev.Poses
	if cap(dst) < len(cur) {
		dst = make([]Pose, len(cur))
	}
	dst = dst[:len(cur)]
	if len(prev) != len(cur) {
		copy(dst, cur)
		return dst
	}
	t := d.Alpha()
	for i := range cur {
		dst[i] = LerpPose(prev[i], cur[i], t)
	}
	return dst
}

// Drawn returns the interpolated positions packed (3 floats per particle) in dst's storage,
// allocating only when dst is too small.
func (d *Driver) Drawn(dst []float32) []float32 {
	n := len(d.curr.X)
	if cap(dst) < n {
		dst = make([]float32, n)
	}
	dst = dst[:n]
	d.Interpolate(dst, 3)
	return dst
}

// copyStrided copies the packed positions x from particle off on into dst at the given stride.
func copyStrided(dst, x []float32, off, stride int) {
	for i, j := 3*off, stride*off; i+2 < len(x); i, j = i+3, j+stride {
		dst[j], dst[j+1], dst[j+2] = x[i], x[i+1], x[i+2]
	}
}

// Current is the newest physics state; Previous the one before it.
func (d *Driver) Current() *State  { return &d.curr }
func (d *Driver) Previous() *State { return &d.prev }

// Paused reports whether the physics is paused.
func (d *Driver) Paused() bool { return d.paused }

// SetPaused pauses or resumes the physics. Resuming restarts the interpolation from the state
// shown while paused (the current one), so the picture does not jump back.
func (d *Driver) SetPaused(p bool) {
	if d.paused && !p {
		d.acc = 0
		d.prev.copyFrom(&d.curr)
	}
	d.paused = p
	d.singles = 0
}

// StepOnce requests one physics step at the next Advance while paused (it pauses a running
// driver first: single-stepping is a paused activity).
func (d *Driver) StepOnce() {
	if !d.paused {
		d.SetPaused(true)
	}
	d.singles++
}

// Speed is the factor of simulated to wall time.
func (d *Driver) Speed() float64 { return d.speed }

// SetSpeed sets the factor of simulated to wall time, clamped to [MinSpeed, MaxSpeed].
func (d *Driver) SetSpeed(f float64) {
	if math.IsNaN(f) {
		return
	}
	d.speed = min(max(f, MinSpeed), MaxSpeed)
}

// Step is the physics step (s); Steps the steps taken so far; Remainder the carried
// accumulator (s); Dropped the simulated time the catch-up cap dropped (s); LastStats the
// statistics of the newest step; StepsLastFrame the steps the last Advance took.
func (d *Driver) Step() float64                { return d.h }
func (d *Driver) Steps() int                   { return d.steps }
func (d *Driver) Remainder() float64           { return d.acc }
func (d *Driver) Dropped() float64             { return d.dropped }
func (d *Driver) LastStats() *sluice.StepStats { return &d.last }
func (d *Driver) StepsLastFrame() int          { return d.lastFrameRun }

// WorldStepper drives a sluice World. Its drawn state holds the particles of the bodies that
// move (see Moves) and the poses of the rigid bodies, both in ID order; static walls are drawn
// from their positions once.
type WorldStepper struct {
	W *sluice.World
}

// Step advances the world by dt in as many CFL substeps as it needs.
func (ws WorldStepper) Step(dt float64) (sluice.StepStats, error) { return ws.W.Step(dt) }

// Capture copies the moving bodies' positions into s as float32 and the rigid bodies' poses.
func (ws WorldStepper) Capture(s *State) {
	s.T = ws.W.Time()
	s.X = s.X[:0]
	s.Counts = s.Counts[:0]
	s.Poses = s.Poses[:0]
	for _, b := range ws.W.Bodies() {
		if rb := ws.W.RigidBody(b.Entity); rb != nil {
			s.Poses = append(s.Poses, Pose{X: rb.State.X, Q: rb.State.Q})
			continue
		}
		if !Moves(ws.W, b) {
			continue
		}
		s.Counts = append(s.Counts, b.Particles.Len())
		for _, x := range b.Particles.X {
			s.X = append(s.X, float32(x[0]), float32(x[1]), float32(x[2]))
		}
	}
}

// Moves reports whether a body's particles move and are drawn interpolated: every phase but
// Boundary, and walls with a kinematic path (a moving board). Rigid bodies (see IsRigid) are
// drawn as meshes at their poses instead, static, kinematic or dynamic.
func Moves(w *sluice.World, b systems.BodyView) bool {
	if IsRigid(w, b) {
		return false
	}
	return b.Body.Phase != components.Boundary || w.Motion(b.Entity) != nil
}

// IsRigid reports whether a body is a rigid body (drawn by its pose, not its particles).
func IsRigid(w *sluice.World, b systems.BodyView) bool {
	return b.Body.Phase == components.Boundary && w.RigidBody(b.Entity) != nil
}
