package flip

import (
	"math"
	"testing"
)

// boxBody is a body: the axis-aligned box [lo, hi] at rest.
func boxBody(lo, hi Vec3) Body {
	c := lo.Add(hi).Mul(0.5)
	half := hi.Sub(lo).Mul(0.5)
	return Body{Min: lo, Max: hi, Center: c, SDF: func(x Vec3) (float64, Vec3) {
		var q, o Vec3
		for d := 0; d < 3; d++ {
			q[d] = math.Abs(x[d]-c[d]) - half[d]
			o[d] = math.Max(q[d], 0)
		}
		if l := math.Sqrt(o[0]*o[0] + o[1]*o[1] + o[2]*o[2]); l > 0 {
			for d := 0; d < 3; d++ {
				o[d] = math.Copysign(o[d]/l, x[d]-c[d])
			}
			return l, o
		}
		ax := 0
		for d := 1; d < 3; d++ {
			if q[d] > q[ax] {
				ax = d
			}
		}
		var n Vec3
		n[ax] = math.Copysign(1, x[ax]-c[ax])
		return q[ax], n
	}}
}

// Tolerances of TestBodyBuoyancy. A body deep in the liquid sits in the hydrostatic pressure
// the solve resolves to within its tolerance (measured: −0.08 %); one that pierces the free
// surface depends on where the blurred surface is, within a fraction of a cell of the
// 2-cell draft (measured: +2.4 %).
const (
	buoyancySubmergedTol = 0.01
	buoyancySurfaceTol   = 0.05
)

// TestBodyBuoyancy: a 20 cm box held in a settled 50 cm deep tank (5 cm cells) takes, as the
// pressure's reaction (Body.Impulse per second, averaged over the last half second), the
// weight of the liquid it displaces (Archimedes): fully submerged and half out of the water.
// The setup is symmetric about the box's vertical axis, so the sideways force is what the
// solve's tolerance leaves (measured below 2e-5 of the weight; allowed 1e-3).
func TestBodyBuoyancy(t *testing.T) {
	if raceEnabled {
		t.Skip("90 steps of two tanks: too slow under the race detector")
	}
	for _, tc := range []struct {
		name   string
		lo, hi Vec3
		sub    float64 // submerged volume (m³)
		tol    float64
	}{
		{"submerged", Vec3{0.2, 0.15, 0.2}, Vec3{0.4, 0.35, 0.4}, 0.2 * 0.2 * 0.2, buoyancySubmergedTol},
		{"half", Vec3{0.2, 0.4, 0.2}, Vec3{0.4, 0.6, 0.4}, 0.2 * 0.1 * 0.2, buoyancySurfaceTol},
	} {
		p := DefaultParams()
		p.CellSize = 0.05
		p.Dims = [3]int{12, 16, 12}
		s := newTestSim(t, p, nil, 2)
		bodies := []Body{boxBody(tc.lo, tc.hi)}
		s.SetBodies(bodies)
		if _, err := s.AddBlock(Vec3{0, 0, 0}, Vec3{0.6, 0.5, 0.6}, Vec3{}); err != nil {
			t.Fatal(err)
		}
		var j Vec3
		tm := 0.0
		for st := 0; st < 90; st++ {
			dt := 1.0 / 60
			if err := s.Step(dt); err != nil {
				t.Fatal(err)
			}
			if st >= 60 {
				j = j.Add(bodies[0].Impulse)
				tm += dt
			}
		}
		f := j.Mul(1 / tm)
		want := 1000 * 9.81 * tc.sub
		t.Logf("%s: force %v N, Archimedes %g N (%+.2f %%)", tc.name, f, want, 100*(f[1]/want-1))
		if math.Abs(f[1]/want-1) > tc.tol || math.Abs(f[0]) > 1e-3*want || math.Abs(f[2]) > 1e-3*want {
			t.Errorf("%s: force %v N, want (0, %g, 0) N within %g", tc.name, f, want, tc.tol)
		}
	}
}

// solidParticleTol: a block of solid particles deep in the liquid takes the displaced weight
// as TestBodyBuoyancy's submerged box does, to within 2 % — its blurred volume is the
// particles' trilinear footprint, whose edges the filter smears over a cell on each side
// rather than the box's sampled surface (measured: −0.34 %). The block starts overlapping the
// seeded liquid, which it pushes out in the first steps; the sideways push of that liquid's
// sloshing is bounded by 1 % of the weight (measured 0.25 %).
const (
	solidParticleTol         = 0.02
	solidParticleSidewaysTol = 0.01
)

// TestSolidParticlesBuoyancy: a 20 cm block of solid particles (a world's SPH particles: 8 per
// cell, each of volume (h/2)³, held in place) deep in a settled tank is pushed up by the weight
// of the liquid it displaces, ρ·g·V (the sum of the particles' impulses per second, averaged
// over the last half second), and pushed sideways by little.
func TestSolidParticlesBuoyancy(t *testing.T) {
	if raceEnabled {
		t.Skip("90 steps of a tank: too slow under the race detector")
	}
	p := DefaultParams()
	p.CellSize = 0.05
	p.Dims = [3]int{12, 16, 12}
	s := newTestSim(t, p, nil, 2)
	var x []Vec3
	var vol []float64
	sp := 0.025
	for k := 0; k < 8; k++ {
		for j := 0; j < 8; j++ {
			for i := 0; i < 8; i++ {
				x = append(x, Vec3{0.2 + sp*(float64(i)+0.5), 0.15 + sp*(float64(j)+0.5), 0.2 + sp*(float64(k)+0.5)})
				vol = append(vol, sp*sp*sp)
			}
		}
	}
	imp := make([]Vec3, len(x))
	s.SetSolidParticles(x, vol, imp)
	if _, err := s.AddBlock(Vec3{0, 0, 0}, Vec3{0.6, 0.5, 0.6}, Vec3{}); err != nil {
		t.Fatal(err)
	}
	var j Vec3
	tm := 0.0
	for st := 0; st < 90; st++ {
		if err := s.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
		if st >= 60 {
			for _, v := range imp {
				j = j.Add(v)
			}
			tm += 1.0 / 60
		}
	}
	f := j.Mul(1 / tm)
	want := 1000 * 9.81 * 0.008
	t.Logf("force %v N, Archimedes %g N (%+.2f %%)", f, want, 100*(f[1]/want-1))
	if math.Abs(f[1]/want-1) > solidParticleTol || math.Abs(f[0]) > solidParticleSidewaysTol*want || math.Abs(f[2]) > solidParticleSidewaysTol*want {
		t.Errorf("force %v N, want (0, %g, 0) N within %g", f, want, solidParticleTol)
	}
}
