package rigid

import (
	"math"
	"testing"
)

// Tolerances of the joint tests.
const (
	// pendulumPeriodTol is the bound on a hinged pendulum's small-angle period. At 5°
	// the large-amplitude correction is θ0²/16 = 0.05 %.
	pendulumPeriodTol = 0.01
	// jointDriftTol is the bound on the separation of a joint's two anchors (m).
	jointDriftTol = 1e-3
	// motorSpeedTol: a motor with torque to spare holds its target speed to the solver's
	// velocity tolerance; 1 % of the target.
	motorSpeedTol = 0.01
)

// sphereBody is a dynamic sphere of radius r and density ρ at x.
func sphereBody(r, rho float64, x Vec3) Body {
	m := rho * 4 / 3 * math.Pi * r * r * r
	i := 0.4 * m * r * r
	return Body{Motion: Dynamic, Shape: &Shape{Kind: Sphere, Radius: r}, Mass: m, InvMass: 1 / m,
		Inertia: Mat3{i, 0, 0, 0, i, 0, 0, 0, i}, InvInertia: Mat3{1 / i, 0, 0, 0, 1 / i, 0, 0, 0, 1 / i},
		X: x, Q: QuatIdentity, Reach: r}
}

// pendulum is a 5 cm sphere hinged (or ball-jointed) to the world at a pivot 0.5 m above its
// centre's rest position, released at θ0 about the z axis.
func pendulum(kind JointKind, theta0 float64) (*Solver, Vec3) {
	const l = 0.5
	pivot := Vec3{0, 1, 0}
	b := sphereBody(0.05, 1000, Vec3{l * math.Sin(theta0), 1 - l*math.Cos(theta0), 0})
	s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: 0.01, Gravity: Vec3{0, -9.81, 0}}, Bodies: []Body{b}}
	s.Joints = []Joint{{Kind: kind, A: 0, B: -1, AnchorA: sub(pivot, b.X), AnchorB: pivot, AxisA: Vec3{0, 0, 1}, AxisB: Vec3{0, 0, 1}}}
	return s, pivot
}

func TestHingedPendulumPeriod(t *testing.T) {
	// A compound pendulum: T = 2π √(I_pivot/(m g l)), I_pivot = (2/5) m R² + m l², measured
	// between downward zero crossings of the angle over 10 s at 1 ms substeps; the anchors
	// stay together within 1 mm all along, and the hinge keeps the swing in its plane.
	for _, kind := range []JointKind{Hinge, Ball} {
		s, pivot := pendulum(kind, 5*math.Pi/180)
		b := &s.Bodies[0]
		const dt, l, r = 1e-3, 0.5, 0.05
		want := 2 * math.Pi * math.Sqrt((0.4*r*r+l*l)/(9.81*l))
		var crossings []float64
		prev := b.X[0]
		drift, offPlane := 0.0, 0.0
		for n := 1; n <= 10000; n++ {
			s.Step(dt)
			if prev > 0 && b.X[0] <= 0 {
				crossings = append(crossings, float64(n-1)*dt+dt*prev/(prev-b.X[0]))
			}
			prev = b.X[0]
			rq := b.Q.Matrix()
			anchor := add(b.X, rq.MulVec(s.Joints[0].AnchorA))
			drift = max(drift, norm(sub(anchor, pivot)))
			offPlane = max(offPlane, math.Abs(b.X[2]))
		}
		if len(crossings) < 5 {
			t.Fatalf("%v: %d crossings in 10 s", kind, len(crossings))
		}
		got := (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
		t.Logf("%v: period %.5f s, closed form %.5f s; drift %.2e m", kind, got, want, drift)
		if math.Abs(got-want) > pendulumPeriodTol*want {
			t.Errorf("%v: period %.5f s, closed form %.5f s", kind, got, want)
		}
		if drift > jointDriftTol {
			t.Errorf("%v: anchors %.2e m apart", kind, drift)
		}
		if offPlane > 1e-9 {
			t.Errorf("%v: the swing left its plane by %g m", kind, offPlane)
		}
	}
}

func TestHingeMotorReachesItsSpeed(t *testing.T) {
	// A wheel (sphere) hinged at its centre to the world, driven by a motor at 3 rad/s with
	// torque to spare, reaches the speed within a second (I ω / τ = 0.03 s) and holds it, about
	// the hinge axis only; with too little torque it accelerates at τ/I instead.
	for _, c := range []struct {
		torque float64
		want   float64
	}{{10, 3}, {0.002, 0}} {
		b := sphereBody(0.1, 1000, Vec3{0, 1, 0})
		s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: 0.01, Gravity: Vec3{0, -9.81, 0}}, Bodies: []Body{b}}
		s.Joints = []Joint{{Kind: Hinge, A: 0, B: -1, AnchorB: b.X, AxisA: Vec3{1, 0, 0}, AxisB: Vec3{1, 0, 0}, MotorSpeed: 3, MotorMax: c.torque}}
		const dt = 1e-3
		for n := 0; n < 500; n++ {
			s.Step(dt)
		}
		w := s.Bodies[0].W
		want := c.want
		if want == 0 { // torque-limited: ω = τ t / I
			want = c.torque * 0.5 / b.Inertia[0]
		}
		if math.Abs(w[0]-want) > motorSpeedTol*want || math.Hypot(w[1], w[2]) > 1e-9 {
			t.Errorf("torque %g: ω = %v after 0.5 s, want (%g, 0, 0)", c.torque, w, want)
		}
	}
}

func TestFixedJointMovesAsOne(t *testing.T) {
	// Two spheres welded side by side and thrown spinning in free fall: their distance and
	// relative orientation stay what they were (within the drift bound). The pair's angular
	// momentum about its centre of mass has no external torque, but the velocity projection
	// after the position update (the relax phase) is first order: it loses a fraction of
	// order ω²Δt per unit time, so the loss over 1 s is below 3 % at 1 ms and falls by
	// at least 40 % when Δt halves.
	run := func(dt float64) (loss, gap, turn, spin float64) {
		a := sphereBody(0.05, 1000, Vec3{0, 1, 0})
		b := sphereBody(0.05, 1000, Vec3{0.12, 1, 0})
		a.V, b.V = Vec3{0, 0, 0.5}, Vec3{0, 0, -0.5}
		s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: 0.01, Gravity: Vec3{0, -9.81, 0}}, Bodies: []Body{a, b}}
		mid := Vec3{0.06, 1, 0}
		s.Joints = []Joint{{Kind: Fixed, A: 0, B: 1, AnchorA: sub(mid, a.X), AnchorB: sub(mid, b.X), RelQ: QuatIdentity}}
		angular := func() Vec3 {
			c := scale(add(s.Bodies[0].X, s.Bodies[1].X), 0.5)
			vc := scale(add(s.Bodies[0].V, s.Bodies[1].V), 0.5)
			l := Vec3{}
			for i := range s.Bodies {
				bi := &s.Bodies[i]
				r := bi.Q.Matrix()
				iw := rotateInertia(&r, &bi.Inertia)
				l = add(l, add(scale(cross(sub(bi.X, c), sub(bi.V, vc)), bi.Mass), iw.MulVec(bi.W)))
			}
			return l
		}
		l0 := angular()
		for n := 0; n < int(math.Round(1/dt)); n++ {
			s.Step(dt)
			gap = max(gap, math.Abs(norm(sub(s.Bodies[1].X, s.Bodies[0].X))-0.12))
		}
		qa, qb := s.Bodies[0].Q, s.Bodies[1].Q
		rel := qa.Mul(Quat{qb[0], -qb[1], -qb[2], -qb[3]})
		turn = 2 * math.Acos(min(1, math.Abs(rel[0])))
		return norm(sub(angular(), l0)) / norm(l0), gap, turn, s.Bodies[0].W[1]
	}
	loss1, gap, turn, spin := run(1e-3)
	loss2, _, _, _ := run(5e-4)
	t.Logf("angular momentum lost in 1 s: %.3f %% at 1 ms, %.3f %% at 0.5 ms", 100*loss1, 100*loss2)
	if gap > jointDriftTol || turn > 0.01 {
		t.Errorf("the welded spheres moved apart by %.2e m and turned %.4f rad relative to each other", gap, turn)
	}
	if spin < 1 {
		t.Errorf("the pair does not spin: ω_y = %g", spin)
	}
	if loss1 > 0.03 || loss2 > 0.6*loss1 {
		t.Errorf("angular momentum lost: %.3f %% at 1 ms, %.3f %% at 0.5 ms (bound 3 %%, first order)", 100*loss1, 100*loss2)
	}
}

func TestHingeHoldsItsPlane(t *testing.T) {
	// Pushed across its plane, a hinged pendulum stays in it (within the drift bound) while a
	// ball-jointed one swings out of it.
	for _, kind := range []JointKind{Hinge, Ball} {
		s, _ := pendulum(kind, 5*math.Pi/180)
		s.Bodies[0].V = Vec3{0, 0, 0.3}
		out := 0.0
		for n := 0; n < 1000; n++ {
			s.Step(1e-3)
			out = max(out, math.Abs(s.Bodies[0].X[2]))
		}
		if kind == Hinge && out > jointDriftTol {
			t.Errorf("hinge: the bob left its plane by %.2e m", out)
		}
		if kind == Ball && out < 0.03 {
			t.Errorf("ball: the bob stayed within %.2e m of the plane", out)
		}
	}
}

func TestJointedBodiesDoNotCollide(t *testing.T) {
	// Two overlapping boxes welded together stay where they were welded, at rest; without the
	// weld their contacts push them apart.
	for _, weld := range []bool{true, false} {
		box := func(x Vec3) Body {
			he := Vec3{0.1, 0.1, 0.1}
			sh := &Shape{Kind: Box, HalfExtents: he}
			m := 8.0
			i := m / 12 * 0.08
			b := Body{Motion: Dynamic, Shape: sh, Mass: m, InvMass: 1 / m, Inertia: Mat3{i, 0, 0, 0, i, 0, 0, 0, i},
				InvInertia: Mat3{1 / i, 0, 0, 0, 1 / i, 0, 0, 0, 1 / i}, X: x, Q: QuatIdentity, Reach: norm(he)}
			b.Samples, b.Outer, _ = sh.Samples(0.02, 1)
			return b
		}
		a, b := box(Vec3{0, 1, 0}), box(Vec3{0.15, 1, 0})
		s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: 0.01}, Bodies: []Body{a, b}}
		if weld {
			s.Joints = []Joint{{Kind: Fixed, A: 0, B: 1, AnchorA: Vec3{0.075, 0, 0}, AnchorB: Vec3{-0.075, 0, 0}, RelQ: QuatIdentity}}
		}
		for n := 0; n < 100; n++ {
			s.Step(1e-3)
		}
		d := norm(sub(s.Bodies[1].X, s.Bodies[0].X))
		if weld && math.Abs(d-0.15) > jointDriftTol {
			t.Errorf("welded: the boxes moved to %.4f m apart", d)
		}
		if !weld && d < 0.16 {
			t.Errorf("unwelded overlapping boxes stayed %.4f m apart: the test does not test", d)
		}
	}
}

// wheel is a light hub (a 3 cm sphere of 0.113 kg) hinged to the world about z at (0, 1, 0),
// with four 2 kg boxes welded to it at 0.2 m, turning at w0 rad/s: the mass ratio of 18 and
// the lever arms are what make joints solved one by one fail to converge.
func wheel(w0 float64) *Solver {
	pivot := Vec3{0, 1, 0}
	hub := sphereBody(0.03, 1000, pivot)
	s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: 0.01, Gravity: Vec3{0, -9.81, 0}}, Bodies: []Body{hub}}
	s.Joints = []Joint{{Kind: Hinge, A: 0, B: -1, AnchorB: pivot, AxisA: Vec3{0, 0, 1}, AxisB: Vec3{0, 0, 1}}}
	for k := 0; k < 4; k++ {
		phi := float64(k) * math.Pi / 2
		x := add(pivot, Vec3{0.2 * math.Cos(phi), 0.2 * math.Sin(phi), 0})
		he := Vec3{0.05, 0.05, 0.05}
		m := 2.0
		i := m / 3 * he[0] * he[0] * 2
		p := Body{Motion: Dynamic, Shape: &Shape{Kind: Box, HalfExtents: he}, Mass: m, InvMass: 1 / m,
			Inertia: Mat3{i, 0, 0, 0, i, 0, 0, 0, i}, InvInertia: Mat3{1 / i, 0, 0, 0, 1 / i, 0, 0, 0, 1 / i},
			X: x, Q: QuatIdentity, Reach: norm(he)}
		p.V = scale(cross(Vec3{0, 0, w0}, sub(x, pivot)), 1)
		p.W = Vec3{0, 0, w0}
		s.Bodies = append(s.Bodies, p)
		mid := scale(add(pivot, x), 0.5)
		s.Joints = append(s.Joints, Joint{Kind: Fixed, A: 0, B: k + 1, AnchorA: sub(mid, pivot), AnchorB: sub(mid, x), RelQ: QuatIdentity})
	}
	s.Bodies[0].W = Vec3{0, 0, w0}
	return s
}

// wheelInertia is the wheel's moment of inertia about its axle (kg m²).
func wheelInertia(s *Solver) float64 {
	c := s.Bodies[0].X
	iz := 0.0
	for i := range s.Bodies {
		b := &s.Bodies[i]
		d := sub(b.X, c)
		iz += b.Inertia[8] + b.Mass*(d[0]*d[0]+d[1]*d[1])
	}
	return iz
}

func TestHeavyWheelOnALightHub(t *testing.T) {
	// A free wheel keeps its spin (no torque about the axle: gravity acts at the axle, the
	// wheel being balanced) within wheelSpinTol over 2 s, its paddles stay welded and its hub
	// on the axle within the drift bound; then a motor brings it to its target speed.
	const (
		// wheelSpinTol: the relax phase's first-order velocity projection loses a fraction
		// of order ω²Δt·(lever) per second (see TestFixedJointMovesAsOne): 2 %.
		wheelSpinTol = 0.02
		dt           = 1e-3
	)
	s := wheel(3)
	drift := 0.0
	for n := 0; n < 2000; n++ {
		s.Step(dt)
		for k := range s.Joints {
			j := &s.Joints[k]
			a := &s.Bodies[j.A]
			pa := a.ToWorld(j.AnchorA)
			pb := j.AnchorB
			if j.B >= 0 {
				pb = s.Bodies[j.B].ToWorld(j.AnchorB)
			}
			drift = max(drift, norm(sub(pa, pb)))
		}
		if !(drift < 1) {
			break
		}
	}
	w := s.Bodies[0].W[2]
	t.Logf("free wheel: ω = %.5f rad/s after 2 s (started at 3), joint drift %.2e m", w, drift)
	if drift > jointDriftTol {
		t.Errorf("joint drift %.3e m, bound %g m", drift, jointDriftTol)
	}
	if math.Abs(w-3) > wheelSpinTol*3 {
		t.Errorf("free wheel spins at %.5f rad/s after 2 s, started at 3 (tolerance %g)", w, wheelSpinTol)
	}
	for i := 1; i < len(s.Bodies); i++ {
		if d := math.Abs(s.Bodies[i].W[2] - w); d > 1e-3*math.Abs(w) {
			t.Errorf("paddle %d turns at %.5f rad/s, the hub at %.5f", i, s.Bodies[i].W[2], w)
		}
	}

	// A motor of 2 N m from rest: the wheel speeds up at τ/I_axle until it reaches 5 rad/s.
	s = wheel(0)
	s.Joints[0].MotorSpeed, s.Joints[0].MotorMax = 5, 2
	iz := wheelInertia(s)
	for n := 0; n < 100; n++ {
		s.Step(dt)
	}
	acc := s.Bodies[0].W[2] / 0.1
	if math.Abs(acc-2/iz) > 0.02*2/iz {
		t.Errorf("motor: angular acceleration %.4f rad/s², τ/I = %.4f", acc, 2/iz)
	}
	for n := 0; n < 2000; n++ {
		s.Step(dt)
	}
	if w := s.Bodies[0].W[2]; math.Abs(w-5) > motorSpeedTol*5 {
		t.Errorf("motor: ω = %.4f rad/s after 2.1 s, target 5", w)
	}
}

func TestHingeLimitsStopTheSwing(t *testing.T) {
	// A pendulum pushed from the bottom at 1.5 m/s would swing to 39.5° (energy:
	// cos θ = 1 − v²/(2 g l)); a hinge
	// limited to ±20° stops it there, within limitTol (the speculative row lets it reach the
	// limit within a substep and not pass it by more than the bias leaves), and it swings back.
	const limitTol = 0.5 * math.Pi / 180
	for _, limited := range []bool{true, false} {
		s, pivot := pendulum(Hinge, 0)
		j := &s.Joints[0]
		j.RefA, j.RefB = Vec3{1, 0, 0}, Vec3{1, 0, 0}
		j.Limited, j.Lower, j.Upper = limited, -20*math.Pi/180, 20*math.Pi/180
		b := &s.Bodies[0]
		b.V = Vec3{1.5, 0, 0}
		peak, back := 0.0, false
		for n := 0; n < 1500; n++ {
			s.Step(1e-3)
			d := sub(b.X, pivot)
			th := math.Atan2(d[0], -d[1])
			peak = max(peak, math.Abs(th))
			back = back || th < -5*math.Pi/180
		}
		t.Logf("limited %v: peak swing %.3f°", limited, peak*180/math.Pi)
		if limited && (peak > 20*math.Pi/180+limitTol || !back) {
			t.Errorf("limited to ±20°: peak swing %.3f°, swung back: %v", peak*180/math.Pi, back)
		}
		if !limited && peak < 35*math.Pi/180 {
			t.Errorf("unlimited: peak swing %.3f°, want 39.5°: the test does not test", peak*180/math.Pi)
		}
	}
}

func TestSliderRunsOnItsAxis(t *testing.T) {
	// A box on a vertical slider to the world, pushed sideways and spun: it keeps to the axis
	// and its orientation within the drift bound while it falls freely at g (the slider takes
	// no load along its axis: within sliderFallTol), then rests on its lower limit 0.3 m down;
	// a motor lifts it at its target speed.
	const sliderFallTol = 0.01
	he := Vec3{0.05, 0.05, 0.05}
	m := 1.0
	i := m / 3 * 2 * he[0] * he[0]
	box := Body{Motion: Dynamic, Shape: &Shape{Kind: Box, HalfExtents: he}, Mass: m, InvMass: 1 / m,
		Inertia: Mat3{i, 0, 0, 0, i, 0, 0, 0, i}, InvInertia: Mat3{1 / i, 0, 0, 0, 1 / i, 0, 0, 0, 1 / i},
		X: Vec3{0, 1, 0}, Q: QuatIdentity, Reach: norm(he), V: Vec3{0.4, 0, -0.3}, W: Vec3{1, 2, 3}}
	s := &Solver{Params: Params{Iterations: 10, Relax: 4, Radius: 0.01, Gravity: Vec3{0, -9.81, 0}}, Bodies: []Body{box}}
	s.Joints = []Joint{{Kind: Slider, A: 0, B: -1, AnchorB: Vec3{0, 1, 0}, AxisA: Vec3{0, 1, 0}, RelQ: QuatIdentity,
		Limited: true, Lower: -0.3, Upper: 0.5}}
	b := &s.Bodies[0]
	off, turn := 0.0, 0.0
	for n := 1; n <= 1000; n++ {
		s.Step(1e-3)
		off = max(off, math.Hypot(b.X[0], b.X[2]))
		turn = max(turn, 2*math.Acos(min(1, math.Abs(b.Q[0]))))
		if n == 200 { // 0.196 m down: before the limit
			if fall := 1 - b.X[1]; math.Abs(fall-0.5*9.81*0.04) > sliderFallTol*0.5*9.81*0.04 {
				t.Errorf("fell %.5f m in 0.2 s, free fall %.5f m", fall, 0.5*9.81*0.04)
			}
		}
	}
	if off > jointDriftTol || turn > 1e-3 {
		t.Errorf("left the axis by %.2e m, turned %.2e rad", off, turn)
	}
	if d := b.X[1] - 0.7; math.Abs(d) > jointDriftTol || math.Abs(b.V[1]) > 0.01 {
		t.Errorf("at rest on the lower limit: y = %.5f m (want 0.7), v_y = %.4f m/s", b.X[1], b.V[1])
	}
	s.Joints[0].MotorSpeed, s.Joints[0].MotorMax = 0.5, 3*m*9.81
	for n := 0; n < 300; n++ {
		s.Step(1e-3)
	}
	if math.Abs(b.V[1]-0.5) > motorSpeedTol*0.5 {
		t.Errorf("motor: v_y = %.4f m/s, target 0.5", b.V[1])
	}
}
