package elastoplastic

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

// intervalTol: the damping term is isolated as the difference of two steps from the same
// state with ε = 0.5 and ε = 0, so it carries the round-off of the elastic part of the
// velocity; 1e-9 of the largest damping velocity is far above that and far below the factor
// 10 (or ½) a wrong interval makes.
const intervalTol = 1e-9

// TestZeroModeDampingUsesTheElapsedInterval: the zero-mode damping turns the non-affine motion
// since the previous step into a velocity by dividing by the time it took, not by the present
// step: the same motion gives the same damping velocity whether the present step is as long as
// the last one or ten times shorter, and half of it when as much time again passed without a
// step (Body.Elapse).
func TestZeroModeDampingUsesTheElapsedInterval(t *testing.T) {
	x0 := block(5, 5, 5, testSpacing)
	x1 := make([]Vec3, len(x0))
	for i, p := range x0 {
		s := 1.0 - 2*float64(i%2) // a particle-scale zig-zag: motion no affine map explains
		x1[i] = Vec3{p[0] + 0.002*s, p[1] - 0.001*s, p[2]}
	}
	s := newSim(t, append([]Vec3(nil), x0...), testMaterial(1e12, 0), 1)
	dt1 := s.dt
	if _, err := s.b.Step(x0, make([]Vec3, len(x0)), dt1, s.pool); err != nil {
		t.Fatal(err)
	}
	st := s.b.Save() // previous positions x0, the interval dt1 since them
	pool := par.NewPool(1)
	defer pool.Close()
	step := func(eps, dt2, elapse float64) []Vec3 {
		m := testMaterial(1e12, 0)
		m.ZeroModeDamping = eps
		vol := testSpacing * testSpacing * testSpacing
		b, err := New(len(x0), testRho*vol, vol, 2*testSpacing, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Restore(st); err != nil {
			t.Fatal(err)
		}
		b.Elapse(elapse)
		v := make([]Vec3, len(x0))
		if _, err := b.Step(x1, v, dt2, pool); err != nil {
			t.Fatal(err)
		}
		return v
	}
	damping := func(dt2, elapse float64) []Vec3 {
		a, b := step(DefaultZeroModeDamping, dt2, elapse), step(0, dt2, elapse)
		for i := range a {
			a[i] = Vec3{a[i][0] - b[i][0], a[i][1] - b[i][1], a[i][2] - b[i][2]}
		}
		return a
	}
	ref := damping(dt1, 0)
	scale := 0.0
	for _, d := range ref {
		scale = max(scale, math.Abs(d[0]), math.Abs(d[1]), math.Abs(d[2]))
	}
	if scale == 0 {
		t.Fatal("the zig-zag is not damped at all")
	}
	for _, c := range []struct {
		name        string
		dt2, elapse float64
		factor      float64
	}{
		{"a ten times shorter step", dt1 / 10, 0, 1},
		{"as much time again without a step", dt1, dt1, 0.5},
	} {
		got := damping(c.dt2, c.elapse)
		worst := 0.0
		for i := range got {
			for k := 0; k < 3; k++ {
				worst = max(worst, math.Abs(got[i][k]-c.factor*ref[i][k]))
			}
		}
		t.Logf("%s: damping velocity differs from %g × the reference by %.2g of its %.3g m/s", c.name, c.factor, worst/scale, scale)
		if worst > intervalTol*scale {
			t.Errorf("%s: damping velocity off by %.3g of %.3g m/s, want %g × the reference", c.name, worst, scale, c.factor)
		}
	}
}
