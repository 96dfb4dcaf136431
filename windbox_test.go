package sluice_test

import (
	"bytes"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// windWorld is a world without gravity holding a 1 m wind box at the origin (32 modes, wave
// numbers up to 4) with a seeded random wind, a 10 cm ball of density 50 kg/m³ and a lone
// fluid particle (no neighbours: no pressure or viscosity acts on it).
func windWorld(t *testing.T, workers int, def components.WindBox) (*sluice.World, sluice.Entity, sluice.Entity, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	ball := components.DefaultRigidBody()
	ball.Shape, ball.Radius, ball.Density = "sphere", 0.1, 50
	ball.Position = mgl64.Vec3{0.3, 0.5, 0.4}
	be := mustRigid(t, w, "ball", ball)
	pe, err := w.AddFluidParticles("drop", components.DefaultMaterial(), []mgl64.Vec3{{0.7, 0.6, 0.5}}, []mgl64.Vec3{{0.1, -0.2, 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	def.MaxWave, def.Modes = 4, 32
	we, err := w.AddWindBox("wind", def)
	if err != nil {
		t.Fatal(err)
	}
	b := w.WindBox(we)
	rng := rand.New(rand.NewSource(5))
	r := make([]float64, b.Modes())
	for i := range r {
		r[i] = 0.3 * rng.NormFloat64()
	}
	if err := b.SetCoefficients(r); err != nil {
		t.Fatal(err)
	}
	return w, we, be, pe
}

// windTol: the drag formulas are applied once per step and integrated exactly by the
// substeps (a constant load; v ← u + (v − u)e^{−rate·Δt}); only rounding differs, 1e-12
// relative.
const windTol = 1e-12

// TestWindBoxPushesBodiesAndDragsParticles: over one step the ball's velocity changes by
// F·Δt/m with the quadratic drag F = ½ρ C_d πR² |u−v|(u−v) of the wind at its centre, and the
// lone particle's velocity becomes u + (v − u)e^{−rate·Δt}, u the wind at its position (both
// read from the box after its step, before the substeps move anything).
func TestWindBoxPushesBodiesAndDragsParticles(t *testing.T) {
	def := components.DefaultWindBox()
	def.ParticleDrag, def.BodyDrag, def.Density = 4, 0.8, 1.2
	w, we, be, pe := windWorld(t, 2, def)
	const dt = 1.0 / 60
	rb := w.RigidBody(be)
	x0, v0 := rb.State.X, rb.State.V
	px0, pv0 := w.Particles(pe).X[0], w.Particles(pe).V[0]
	st, err := w.Step(dt)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Wind) != 1 || st.Wind[0].Bodies != 1 || st.Wind[0].Particles != 1 {
		t.Fatalf("wind stats %+v: want one box that pushed 1 body and dragged 1 particle", st.Wind)
	}
	u, err := w.WindAt(we, x0)
	if err != nil {
		t.Fatal(err)
	}
	rel := u.Sub(v0)
	area := math.Pi * 0.1 * 0.1
	f := rel.Mul(0.5 * 1.2 * 0.8 * area * rel.Len())
	wantV := v0.Add(f.Mul(dt / rb.State.Mass))
	if d := rb.State.V.Sub(wantV).Len(); d > windTol*wantV.Len() || wantV.Sub(v0).Len() < 1e-3*wantV.Len() {
		t.Errorf("ball velocity %v, drag gives %v (from %v)", rb.State.V, wantV, v0)
	}
	up, _ := w.WindAt(we, px0)
	wantP := up.Add(pv0.Sub(up).Mul(math.Exp(-4 * dt)))
	if d := w.Particles(pe).V[0].Sub(wantP).Len(); d > windTol*wantP.Len() {
		t.Errorf("particle velocity %v, drag gives %v", w.Particles(pe).V[0], wantP)
	}
	t.Logf("wind at the ball %.4f m/s: Δv %.3e m/s; at the particle %.4f m/s", u, rb.State.V.Sub(v0).Len(), up)
}

// TestWindBoxFanAndDeterminism: a fan blowing +x at 2 m/s in a ball of radius 0.15 m, off the
// box's centre, in still air raises the wind at its centre to point along +x (cosine ≥ 0.9:
// the modes' projection of the ball and advection turn it little in 1 s); the run is bit-identical on 1 and 4 workers
// and through save/restore; removing the box stops it (no stats, the ball keeps its velocity
// exactly).
func TestWindBoxFanAndDeterminism(t *testing.T) {
	const dt, n = 1.0 / 60, 60
	def := components.DefaultWindBox()
	def.FanRadius, def.FanPosition, def.FanVelocity = 0.15, mgl64.Vec3{0.4, 0.6, 0.45}, mgl64.Vec3{2, 0, 0}
	state := func(w *sluice.World) []float64 {
		e, _ := w.WindBoxByName("wind")
		b, _ := w.BodyByName("ball")
		out := w.WindBox(e).Coefficients(nil)
		st := w.RigidBody(b).State
		return append(append(out, st.X[:]...), st.V[:]...)
	}
	var ref []float64
	for _, workers := range []int{1, 4} {
		w, we, _, _ := windWorld(t, workers, def)
		_ = w.WindBox(we).SetCoefficients(make([]float64, 32))
		stepN(t, w, n, dt)
		if ref == nil {
			ref = state(w)
			u, _ := w.WindAt(we, def.FanPosition)
			c := u[0] / u.Len()
			t.Logf("wind at the fan's centre after 1 s: %.4f m/s (cosine with +x %.4f)", u, c)
			if !(c >= 0.9) {
				t.Errorf("wind at the fan %v does not blow along +x (cosine %.3f)", u, c)
			}
			continue
		}
		sameBits(t, "4 workers against 1", state(w), ref)
	}
	w, we, _, _ := windWorld(t, 2, def)
	_ = w.WindBox(we).SetCoefficients(make([]float64, 32))
	stepN(t, w, n/2, dt)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := sluice.Restore(&buf, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	stepN(t, r, n/2, dt)
	sameBits(t, "restored half-way", state(r), ref)
	e, _ := r.WindBoxByName("wind")
	if err := r.Remove(e); err != nil {
		t.Fatal(err)
	}
	b, _ := r.BodyByName("ball")
	v0 := r.RigidBody(b).State.V
	st, err := r.Step(dt)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Wind) != 0 || r.RigidBody(b).State.V != v0 {
		t.Errorf("after removing the box: stats %+v, ball velocity %v → %v", st.Wind, v0, r.RigidBody(b).State.V)
	}
}

// TestWindBoxBadInputNamesTheField: out-of-range keys and an empty box are refused with the
// key named.
func TestWindBoxBadInputNamesTheField(t *testing.T) {
	w := rigidWorld(t, mgl64.Vec3{})
	for _, c := range []struct {
		set  func(d *components.WindBox)
		want string
	}{
		{func(d *components.WindBox) { d.MaxWave, d.Modes = 2, 29 }, `windBoxes["w"].modes: 29 is out of range [1, 28]`},
		{func(d *components.WindBox) { d.Max = mgl64.Vec3{1, 0, 1} }, `windBoxes["w"].max: [1 0 1] is not above min [0 0 0] on axis 1`},
		{func(d *components.WindBox) { d.Viscosity = -1 }, `windBoxes["w"].viscosity: -1 m^2/s is below the minimum 0`},
		{func(d *components.WindBox) { d.FanTime = 0 }, `windBoxes["w"].fanTime: 0 s must be greater than 0`},
	} {
		d := components.DefaultWindBox()
		c.set(&d)
		if _, err := w.AddWindBox("w", d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
