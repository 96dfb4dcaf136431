package sluice_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// worldPendulumTol: the hinged pendulum's period in the world against the compound pendulum's
// closed form, the 1 %; the world's substeps are 5 ms at most here.
const worldPendulumTol = 0.01

func TestWorldHingedPendulum(t *testing.T) {
	// A 10 cm ball (1000 kg/m³) on a hinge 0.5 m above its centre, in air, released at 5°:
	// its period is 2π √((2/5 R² + l²)/(g l)) within 1 %; the same on 1 and 2 workers.
	// Removing the ball removes its joint.
	run := func(workers int) (float64, sluice.Entity, *sluice.World) {
		s := components.DefaultSolver()
		s.ParticleRadius = 0.0125
		w, err := sluice.NewWorld(s, workers)
		if err != nil {
			t.Fatal(err)
		}
		th := 5 * math.Pi / 180
		pivot := mgl64.Vec3{0, 1, 0}
		rb := components.DefaultRigidBody()
		rb.Shape, rb.Radius = "sphere", 0.05
		rb.Position = pivot.Add(mgl64.Vec3{0.5 * math.Sin(th), -0.5 * math.Cos(th), 0})
		ball, err := w.AddRigidBody("ball", rb)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddJoint(ball, sluice.Entity{}, sluice.JointDef{Kind: "hinge", Anchor: pivot, Axis: mgl64.Vec3{0, 0, 2}}); err != nil {
			t.Fatal(err)
		}
		var cross []float64
		prev := w.RigidBody(ball).State.X[0]
		for f := 0; f < 600; f++ {
			if _, err := w.Step(1.0 / 120); err != nil {
				t.Fatal(err)
			}
			x := w.RigidBody(ball).State.X[0]
			if prev > 0 && x <= 0 {
				tc := w.Time() - 1.0/120*x/(x-prev)
				cross = append(cross, tc)
			}
			prev = x
		}
		if len(cross) < 3 {
			t.Fatalf("%d crossings", len(cross))
		}
		return (cross[len(cross)-1] - cross[0]) / float64(len(cross)-1), ball, w
	}
	period, ball, w := run(1)
	defer w.Close()
	want := 2 * math.Pi * math.Sqrt((0.4*0.05*0.05+0.25)/(9.81*0.5))
	t.Logf("period %.5f s, closed form %.5f s", period, want)
	if math.Abs(period-want) > worldPendulumTol*want {
		t.Errorf("period %.5f s, closed form %.5f s", period, want)
	}
	p2, _, w2 := run(2)
	w2.Close()
	if p2 != period {
		t.Errorf("1 and 2 workers: periods %.12f and %.12f", period, p2)
	}
	if w.JointCount() != 1 {
		t.Fatalf("%d joints", w.JointCount())
	}
	if err := w.Remove(ball); err != nil {
		t.Fatal(err)
	}
	if w.JointCount() != 0 {
		t.Errorf("the removed ball's joint is still there")
	}
}

func TestJointErrors(t *testing.T) {
	s := components.DefaultSolver()
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	room, _ := w.AddBoundaryBox("room", mgl64.Vec3{-1, 0, -1}, mgl64.Vec3{1, 2, 1}, true)
	rb := components.DefaultRigidBody()
	rb.Position = mgl64.Vec3{0, 1, 0}
	a, _ := w.AddRigidBody("a", rb)
	rb.Position, rb.Type = mgl64.Vec3{0.5, 1, 0}, "static"
	st, _ := w.AddRigidBody("post", rb)
	rb.Position = mgl64.Vec3{-0.5, 1, 0}
	st2, _ := w.AddRigidBody("post2", rb)
	p := mgl64.Vec3{0, 1.2, 0}
	for _, c := range []struct {
		a, b sluice.Entity
		def  sluice.JointDef
		want string
	}{
		{a, a, sluice.JointDef{Kind: "ball", Anchor: p}, "itself"},
		{room, sluice.Entity{}, sluice.JointDef{Kind: "ball", Anchor: p}, "not a rigid body"},
		{st, st2, sluice.JointDef{Kind: "ball", Anchor: p}, "neither"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "rope", Anchor: p}, "not a joint"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "hinge", Anchor: p}, "axis"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "ball", Anchor: mgl64.Vec3{math.NaN(), 0, 0}}, "not finite"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "ball", Anchor: p, MotorMaxTorque: 1}, "hinge only"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "hinge", Anchor: p, Axis: mgl64.Vec3{1, 0, 0}, MotorMaxTorque: -1}, "≥ 0"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "hinge", Anchor: p, Axis: mgl64.Vec3{1, 0, 0}, MotorMaxForce: 1}, "slider only"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "slider", Anchor: p, Axis: mgl64.Vec3{1, 0, 0}, MotorMaxTorque: 1}, "hinge only"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "slider", Anchor: p}, "axis"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "ball", Anchor: p, Limited: true, Lower: -1, Upper: 1}, "hinge or a slider"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "slider", Anchor: p, Axis: mgl64.Vec3{1, 0, 0}, Limited: true, Lower: 0.1, Upper: 1}, "contain 0"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "hinge", Anchor: p, Axis: mgl64.Vec3{1, 0, 0}, Limited: true, Lower: -4, Upper: 1}, "[−π, π]"},
		{a, sluice.Entity{}, sluice.JointDef{Kind: "ball", Anchor: mgl64.Vec3{0, 9, 0}}, "beyond 10 times its reach"},
	} {
		if _, err := w.AddJoint(c.a, c.b, c.def); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.def, err, c.want)
		}
	}
	id, err := w.AddJoint(a, st, sluice.JointDef{Kind: "fixed", Anchor: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveJoint(id); err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveJoint(id); err == nil {
		t.Error("removing a joint twice gives no error")
	}
}

func TestJointsSurviveASnapshot(t *testing.T) {
	// A hinged, motor-driven paddle with limits, a ball on a ball joint and a box on a
	// motor-driven, limited slider, saved after 30 frames and restored: the next 30 frames are
	// bit-identical to an uninterrupted run, joints and their warm-start impulses (limits'
	// included) too. At the end the paddle and the lift rest on their upper limits.
	build := func() *sluice.World {
		s := components.DefaultSolver()
		s.ParticleRadius = 0.0125
		w, err := sluice.NewWorld(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		rb := components.DefaultRigidBody()
		rb.Size, rb.Position = mgl64.Vec3{0.4, 0.05, 0.1}, mgl64.Vec3{0, 1, 0}
		paddle, _ := w.AddRigidBody("paddle", rb)
		rb.Shape, rb.Radius, rb.Position = "sphere", 0.05, mgl64.Vec3{0.3, 0.7, 0}
		ball, _ := w.AddRigidBody("ball", rb)
		if _, err := w.AddJoint(paddle, sluice.Entity{}, sluice.JointDef{Kind: "hinge", Anchor: mgl64.Vec3{0, 1, 0}, Axis: mgl64.Vec3{0, 0, 1}, MotorSpeed: 2, MotorMaxTorque: 50,
			Limited: true, Lower: -0.8, Upper: 0.8}); err != nil {
			t.Fatal(err)
		}
		rb.Shape, rb.Size, rb.Position = "box", mgl64.Vec3{0.1, 0.1, 0.1}, mgl64.Vec3{-0.5, 0.5, 0}
		lift, _ := w.AddRigidBody("lift", rb)
		if _, err := w.AddJoint(lift, sluice.Entity{}, sluice.JointDef{Kind: "slider", Anchor: mgl64.Vec3{-0.5, 0.5, 0}, Axis: mgl64.Vec3{0, 1, 0}, MotorSpeed: 0.3, MotorMaxForce: 100,
			Limited: true, Lower: -0.1, Upper: 0.2}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddJoint(ball, paddle, sluice.JointDef{Kind: "ball", Anchor: mgl64.Vec3{0.2, 1, 0}}); err != nil {
			t.Fatal(err)
		}
		return w
	}
	steps := func(w *sluice.World, n int) {
		for i := 0; i < n; i++ {
			if _, err := w.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
	}
	ref := build()
	defer ref.Close()
	steps(ref, 60)
	w := build()
	steps(w, 30)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := sluice.Restore(&buf, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.JointCount() != 3 {
		t.Fatalf("%d joints restored", r.JointCount())
	}
	steps(r, 30)
	for _, name := range []string{"paddle", "ball", "lift"} {
		a, _ := ref.BodyByName(name)
		b, _ := r.BodyByName(name)
		sa, sb := ref.RigidBody(a).State, r.RigidBody(b).State
		if sa.X != sb.X || sa.Q != sb.Q || sa.V != sb.V || sa.W != sb.W {
			t.Errorf("%s: restored run at %v %v, uninterrupted at %v %v", name, sb.X, sb.W, sa.X, sa.W)
		}
	}
	// jointLimitTol: the limits are speculative rows, held to the solver's drift (rad, m)
	const jointLimitTol = 2e-3
	pe, _ := ref.BodyByName("paddle")
	q := ref.RigidBody(pe).State.Q
	if turn := 2 * math.Atan2(q[3], q[0]); math.Abs(turn-0.8) > jointLimitTol {
		t.Errorf("the motor turns the paddle to %.4f rad, its upper limit is 0.8", turn)
	}
	le, _ := ref.BodyByName("lift")
	if y := ref.RigidBody(le).State.X[1]; math.Abs(y-0.7) > jointLimitTol {
		t.Errorf("the lift's motor raises it to y = %.4f m, its upper limit is 0.7", y)
	}
}
