package sluice_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/systems"
)

// animTol bounds |v − expression| of an animated particle: the stage writes the expression's
// value at the substep's start time, and the test evaluates the same closed form, so only
// round-off of the time and the cosine separates them.
const animTol = 1e-12

// animWorld is a water block of 0.4 × 0.3 × 0.2 m at r = 1 cm in zero gravity, at rest, in a
// tank, stepped with single substeps of 2 ms.
func animWorld(t *testing.T, workers int) (*sluice.World, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.Gravity = mgl64.Vec3{}
	s.DtMax = 0.002
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.25, -0.2, -0.15}, mgl64.Vec3{0.25, 0.2, 0.15}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{-0.2, -0.15, -0.1}, mgl64.Vec3{0.2, 0.15, 0.1}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// stepOnce steps w by one 2 ms substep and returns the substep's start time.
func stepOnce(t *testing.T, w *sluice.World) float64 {
	t.Helper()
	t0 := w.Time()
	st, err := w.Step(0.002)
	if err != nil {
		t.Fatal(err)
	}
	if st.Substeps != 1 {
		t.Fatalf("%d substeps, want 1", st.Substeps)
	}
	return t0
}

// TestAnimationFieldSetsVelocityInsideItsShape checks the stage against a world without the
// field: both run alike for four substeps, then one gets a field. After the next substep the
// particles inside the field's shape (decided here from the shape's own geometry) have v_x =
// cos(2t)·0.1 at the substep's start time t and v_y, v_z of the other world; every other
// particle is bit for bit as in the other world, since the field acts after integration.
func TestAnimationFieldSetsVelocityInsideItsShape(t *testing.T) {
	shapes := []struct {
		name   string
		def    components.AnimationField
		inside func(x mgl64.Vec3) bool
	}{
		{"box turned 0.7 rad about z", func() components.AnimationField {
			a := components.DefaultAnimationField()
			a.Center, a.RotationAxis, a.RotationAngle, a.Size = mgl64.Vec3{0.05, -0.02, 0}, mgl64.Vec3{0, 0, 2}, 0.7, mgl64.Vec3{0.2, 0.1, 0.1}
			return a
		}(), func(x mgl64.Vec3) bool {
			dx, dy, dz := x[0]-0.05, x[1]+0.02, x[2]
			c, s := math.Cos(0.7), math.Sin(0.7)
			u, v := c*dx+s*dy, -s*dx+c*dy // Rᵀ(x − c) for a turn about z
			return math.Abs(u) < 0.1 && math.Abs(v) < 0.05 && math.Abs(dz) < 0.05
		}},
		{"sphere", func() components.AnimationField {
			a := components.DefaultAnimationField()
			a.Shape, a.Center, a.Size = "sphere", mgl64.Vec3{-0.1, 0.05, 0.02}, mgl64.Vec3{0.08, 0, 0}
			return a
		}(), func(x mgl64.Vec3) bool { return x.Sub(mgl64.Vec3{-0.1, 0.05, 0.02}).Len() < 0.08 }},
		{"cylinder along y", func() components.AnimationField {
			a := components.DefaultAnimationField()
			a.Shape, a.RotationAxis, a.RotationAngle, a.Size = "cylinder", mgl64.Vec3{0, 0, 1}, math.Pi/2, mgl64.Vec3{0.23, 0.065, 0}
			return a
		}(), func(x mgl64.Vec3) bool { return math.Abs(x[1]) < 0.115 && x[0]*x[0]+x[2]*x[2] < 0.065*0.065 }},
	}
	for _, sh := range shapes {
		a, ea := animWorld(t, 2)
		b, eb := animWorld(t, 2)
		for i := 0; i < 4; i++ {
			stepOnce(t, a)
			stepOnce(t, b)
		}
		def := sh.def
		def.X = "cos(2*t)*0.1"
		if err := a.AddAnimationField("push", def); err != nil {
			t.Fatal(err)
		}
		t0 := stepOnce(t, a)
		stepOnce(t, b)
		pa, pb := a.Particles(ea), b.Particles(eb)
		in := 0
		for i, x := range pa.X {
			if x != pb.X[i] {
				t.Fatalf("%s: particle %d at %v and %v: positions differ, the field acted before integration", sh.name, i, x, pb.X[i])
			}
			va, vb := pa.V[i], pb.V[i]
			if !sh.inside(x) {
				if va != vb {
					t.Fatalf("%s: particle %d at %v outside the shape: v %v, without the field %v", sh.name, i, x, va, vb)
				}
				continue
			}
			in++
			if want := math.Cos(2*t0) * 0.1; math.Abs(va[0]-want) > animTol || va[1] != vb[1] || va[2] != vb[2] {
				t.Fatalf("%s: particle %d at %v: v %v, want (%.15g, %g, %g) at t = %g s", sh.name, i, x, va, want, vb[1], vb[2], t0)
			}
		}
		if in == 0 || in == len(pa.X) {
			t.Fatalf("%s: %d of %d particles inside: the test needs both kinds", sh.name, in, len(pa.X))
		}
		t.Logf("%s: %d of %d particles animated", sh.name, in, len(pa.X))
		a.Close()
		b.Close()
	}
}

func TestAnimationFieldTimeWindowAndRemoval(t *testing.T) {
	// A field v_y = −t with startTime 0.006 s leaves the particles alone in the substeps
	// starting before it, sets them from it on, and stops once removed.
	w, e := animWorld(t, 1)
	defer w.Close()
	a := components.DefaultAnimationField()
	a.Size, a.Y, a.StartTime = mgl64.Vec3{1, 1, 1}, "-t", 0.006
	if err := w.AddAnimationField("down", a); err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	for i := 0; i < 3; i++ { // substeps starting at 0, 2 and 4 ms
		t0 := stepOnce(t, w)
		for k := range p.V {
			if t0 > 0 && math.Abs(p.V[k][1]+t0) <= animTol {
				t.Fatalf("substep at %g s: particle %d already animated", t0, k)
			}
		}
	}
	t0 := stepOnce(t, w) // starts at 6 ms
	for k := range p.V {
		if math.Abs(p.V[k][1]+t0) > animTol {
			t.Fatalf("particle %d: v_y %g, want %g", k, p.V[k][1], -t0)
		}
	}
	if !w.RemoveAnimationField("down") {
		t.Fatal("the field was not found")
	}
	t0 = stepOnce(t, w)
	for k := range p.V {
		if math.Abs(p.V[k][1]+t0) <= animTol {
			t.Fatalf("particle %d: v_y = −t after the removal", k)
		}
	}
}

func TestAnimationFieldDeterministicOverWorkers(t *testing.T) {
	// Three fields (velocity, microrotation, position) on 2394 particles, 10 blocks of 256: the
	// results of 1 and 3 workers are bit for bit the same.
	run := func(workers int) *sluice.World {
		w, _ := animWorld(t, workers)
		defs := []components.AnimationField{components.DefaultAnimationField(), components.DefaultAnimationField(), components.DefaultAnimationField()}
		defs[0].Size, defs[0].X, defs[0].Y = mgl64.Vec3{0.2, 0.2, 0.2}, "sin(3*t+x)*0.2", "vy*0.5+valuez"
		defs[1].Field, defs[1].Shape, defs[1].Size, defs[1].Z = "angularVelocity", "sphere", mgl64.Vec3{0.1, 0, 0}, "2*y-valuez"
		defs[2].Field, defs[2].Center, defs[2].Size, defs[2].X = "position", mgl64.Vec3{0.1, 0, 0}, mgl64.Vec3{0.05, 0.3, 0.3}, "x+dt*0.5"
		for i, d := range defs {
			if err := w.AddAnimationField(string(rune('a'+i)), d); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < 5; i++ {
			stepOnce(t, w)
		}
		return w
	}
	w1, w3 := run(1), run(3)
	defer w1.Close()
	defer w3.Close()
	f1, f3 := &w1.Sim().Fluid, &w3.Sim().Fluid
	if f1.Len() < 1000 {
		t.Fatalf("%d particles: too few for several blocks", f1.Len())
	}
	for i := range f1.X {
		if f1.X[i] != f3.X[i] || f1.V[i] != f3.V[i] || f1.Omega[i] != f3.Omega[i] {
			t.Fatalf("particle %d differs between 1 and 3 workers", i)
		}
	}
}

func TestAnimationFieldErrors(t *testing.T) {
	w, _ := animWorld(t, 1)
	defer w.Close()
	bad := func(edit func(a *components.AnimationField), want ...string) {
		t.Helper()
		a := components.DefaultAnimationField()
		edit(&a)
		err := w.AddAnimationField("f", a)
		if err == nil {
			t.Fatalf("no error, want one naming %v", want)
		}
		for _, s := range want {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%v: does not name %q", err, s)
			}
		}
	}
	bad(func(a *components.AnimationField) { a.Field = "colour" }, `animationFields["f"].field`, "colour")
	bad(func(a *components.AnimationField) { a.Shape = "cone" }, `animationFields["f"].shape`, "cone")
	bad(func(a *components.AnimationField) { a.Y = "cos(2*t" }, `animationFields["f"].y`, `"cos(2*t"`, "position 7")
	bad(func(a *components.AnimationField) { a.Size[1] = 0 }, `animationFields["f"].size`)
	bad(func(a *components.AnimationField) { a.StartTime, a.EndTime = 2, 1 }, `animationFields["f"].endTime`)
	if err := w.AddAnimationField("f", components.DefaultAnimationField()); err != nil {
		t.Fatal(err)
	}
	if err := w.AddAnimationField("f", components.DefaultAnimationField()); err == nil {
		t.Error("a second field of the same name was accepted")
	}
}

func TestAnimationFieldStageAllocatesNothing(t *testing.T) {
	// The stage runs every substep: after its first run it allocates nothing.
	w, _ := animWorld(t, 2)
	defer w.Close()
	a := components.DefaultAnimationField()
	a.Shape, a.Size, a.X, a.Y = "sphere", mgl64.Vec3{0.1, 0, 0}, "cos(2*t)*0.1", "valuey*0.5"
	if err := w.AddAnimationField("f", a); err != nil {
		t.Fatal(err)
	}
	stepOnce(t, w)
	stage := systems.AnimationFields{S: w.Sim()}
	ctx := &ecs.Context{Time: 0.01, Dt: 0.002}
	if n := testing.AllocsPerRun(20, func() {
		if err := stage.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("%v allocations per run of the stage", n)
	}
}

func TestAnimationFieldGivesAnEmptyMicrorotationItsLength(t *testing.T) {
	// A world may keep the microrotation empty until a stage uses it; an angularVelocity
	// field then gives it the set's length and writes ω_z inside its shape, zeros elsewhere.
	w, _ := animWorld(t, 1)
	defer w.Close()
	a := components.DefaultAnimationField()
	a.Field, a.Shape, a.Size, a.Z = "angularVelocity", "sphere", mgl64.Vec3{0.1, 0, 0}, "0.5"
	if err := w.AddAnimationField("spin", a); err != nil {
		t.Fatal(err)
	}
	stepOnce(t, w)
	f := &w.Sim().Fluid
	f.Omega = nil
	if err := (systems.AnimationFields{S: w.Sim()}).Run(&ecs.Context{Time: 0.002, Dt: 0.002}); err != nil {
		t.Fatal(err)
	}
	if len(f.Omega) != f.Len() {
		t.Fatalf("ω has %d entries for %d particles", len(f.Omega), f.Len())
	}
	in := 0
	for i, x := range f.X {
		want := mgl64.Vec3{}
		if x.Len() < 0.1 {
			want[2] = 0.5
			in++
		}
		if f.Omega[i] != want {
			t.Fatalf("particle %d at %v: ω %v, want %v", i, x, f.Omega[i], want)
		}
	}
	if in == 0 {
		t.Fatal("no particle inside the sphere")
	}
}
