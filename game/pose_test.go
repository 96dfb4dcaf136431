package game

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// poseTol is the round-off allowed in an interpolated pose: a few float64 ulps of unit-sized
// numbers through a blend and a normalisation.
const poseTol = 1e-14

// turn is the rotation by angle (rad) about axis as a Pose orientation.
func turn(axis mgl64.Vec3, angle float64) [4]float64 {
	return [4]float64(rigid.QuatAxisAngle(axis, angle))
}

func TestLerpPoseEnds(t *testing.T) {
	// At t = 0 and t = 1 the interpolation returns the two poses bit for bit, also when the
	// second quaternion is on the other hemisphere (−q, the same rotation), and in between it
	// returns unit quaternions.
	a := Pose{X: [3]float64{0.1, 0.7, -0.3}, Q: turn(mgl64.Vec3{1, 2, 3}, 0.4)}
	for _, b := range []Pose{
		{X: [3]float64{0.15, 0.65, -0.25}, Q: turn(mgl64.Vec3{1, 2, 3}, 0.5)},
		{X: [3]float64{0.1, 0.7, -0.3}, Q: turn(mgl64.Vec3{0, 1, 0}, 3)},
		{X: [3]float64{-1, 0, 2}, Q: [4]float64{-a.Q[0], -a.Q[1], -a.Q[2], -a.Q[3]}},
	} {
		if got := LerpPose(a, b, 0); got != a {
			t.Errorf("t = 0: %v, want %v exactly", got, a)
		}
		if got := LerpPose(a, b, 1); got != b {
			t.Errorf("t = 1: %v, want %v exactly", got, b)
		}
		for _, f := range []float64{1e-9, 0.25, 0.5, 0.75, 1 - 1e-9} {
			q := LerpPose(a, b, f).Q
			if l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]); math.Abs(l-1) > poseTol {
				t.Errorf("t = %g: |q| = %.17g, want 1", f, l)
			}
		}
	}
}

func TestLerpPoseMidway(t *testing.T) {
	// Halfway between the identity and a turn by θ about z lies the turn by θ/2 (nlerp is exact
	// at the midpoint by symmetry), whichever sign the second quaternion has; the position is
	// the midpoint.
	const theta = 0.3
	a := Pose{Q: [4]float64{1, 0, 0, 0}}
	q := turn(mgl64.Vec3{0, 0, 1}, theta)
	want := turn(mgl64.Vec3{0, 0, 1}, theta/2)
	for _, sign := range []float64{1, -1} {
		b := Pose{X: [3]float64{2, -4, 6}, Q: [4]float64{sign * q[0], sign * q[1], sign * q[2], sign * q[3]}}
		m := LerpPose(a, b, 0.5)
		if m.X != [3]float64{1, -2, 3} {
			t.Errorf("sign %g: midpoint position %v, want [1 -2 3]", sign, m.X)
		}
		for k := range want {
			if math.Abs(m.Q[k]-want[k]) > poseTol {
				t.Fatalf("sign %g: midway orientation %v, want %v (the half turn)", sign, m.Q, want)
			}
		}
	}
}

func TestDriverPosesWithARealWorld(t *testing.T) {
	// A crate dropped into a tank: the drawn state holds its pose (not its boundary particles),
	// the current pose is the solver's exactly, the drawn pose is the blend of the last two at
	// the driver's alpha, and paused the current pose is drawn exactly.
	settings := components.DefaultSolver()
	settings.ParticleRadius = 0.05
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 1}, true); err != nil {
		t.Fatal(err)
	}
	water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.3, 1}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	def := components.DefaultRigidBody()
	def.Size = mgl64.Vec3{0.4, 0.4, 0.4}
	def.Density = 500
	def.Position = mgl64.Vec3{0.5, 0.6, 0.5}
	def.Orientation = turn(mgl64.Vec3{1, 0, 1}, 0.5)
	crate, err := w.AddRigidBody("crate", def)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDriver(WorldStepper{w}, 60, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := d.Advance(1.0 / 144); err != nil {
			t.Fatal(err)
		}
	}
	cur, prev := d.Current(), d.Previous()
	if len(cur.Counts) != 1 || cur.Counts[0] != w.Particles(water).Len() || len(cur.Poses) != 1 {
		t.Fatalf("drawn state: counts %v and %d poses, want the water's %d particles and one pose", cur.Counts, len(cur.Poses), w.Particles(water).Len())
	}
	st := &w.RigidBody(crate).State
	if cur.Poses[0] != (Pose{X: st.X, Q: st.Q}) {
		t.Fatalf("current pose %v, the solver's %v %v", cur.Poses[0], st.X, st.Q)
	}
	if cur.Poses[0].X == prev.Poses[0].X {
		t.Fatal("the crate did not move between the last two steps")
	}
	a := d.Alpha()
	if !(a > 0 && a < 1) {
		t.Fatalf("alpha %g: want a frame between two steps", a)
	}
	drawn := d.Poses(nil)
	if want := LerpPose(prev.Poses[0], cur.Poses[0], a); len(drawn) != 1 || drawn[0] != want {
		t.Fatalf("drawn %v, want %v", drawn, want)
	}
	if n := testing.AllocsPerRun(10, func() { drawn = d.Poses(drawn) }); n != 0 {
		t.Errorf("Poses allocates %g times per call with a large enough dst", n)
	}
	d.SetPaused(true)
	if drawn = d.Poses(drawn); drawn[0] != cur.Poses[0] {
		t.Fatalf("paused: drawn %v, want the current pose %v exactly", drawn[0], cur.Poses[0])
	}
}

// paddleTol is how far a kinematic paddle may be from its scripted path after a few steps: the
// round-off of summing substeps of its velocity.
const paddleTol = 1e-9

func TestDriverPosesFollowAKinematicPaddle(t *testing.T) {
	// A kinematic paddle on a motion path is a rigid body like any other for the driver: its
	// pose (not its particles) is captured, and it advances at the path's velocity.
	settings := components.DefaultSolver()
	settings.ParticleRadius = 0.05
	w, err := sluice.NewWorld(settings, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.5, 0.3, 0.5}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	def := components.DefaultRigidBody()
	def.Type = "kinematic"
	def.Size = mgl64.Vec3{0.2, 0.4, 0.4}
	def.Position = mgl64.Vec3{1, 0.2, 0.25}
	paddle, err := w.AddRigidBody("paddle", def)
	if err != nil {
		t.Fatal(err)
	}
	const speed = 0.3 // m/s along x
	if err := w.SetMotion(paddle, components.Motion{Path: []components.MotionKey{{Until: 10, Velocity: mgl64.Vec3{speed, 0, 0}}}}); err != nil {
		t.Fatal(err)
	}
	d, err := NewDriver(WorldStepper{w}, 60, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, err := d.Advance(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	cur := d.Current()
	if len(cur.Poses) != 1 || len(cur.Counts) != 1 {
		t.Fatalf("drawn state: %d poses and %d particle bodies, want the paddle's pose and the water", len(cur.Poses), len(cur.Counts))
	}
	if want := 1 + speed*w.Time(); math.Abs(cur.Poses[0].X[0]-want) > paddleTol || cur.Poses[0].X[1] != 0.2 {
		t.Fatalf("paddle at %v after %g s, want x = %g", cur.Poses[0].X, w.Time(), want)
	}
	if dx := cur.Poses[0].X[0] - d.Previous().Poses[0].X[0]; math.Abs(dx-speed/60) > paddleTol {
		t.Fatalf("paddle moved %g m in the last step, want %g", dx, speed/60)
	}
}
