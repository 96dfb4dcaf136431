package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// Adhesion to walls (Akinci et al. 2013, Eq. 6–7; material.wallAdhesion β).
const (
	// wetSpread, wetDrop: a drop of water on the floor with β = 20 spreads at least wetSpread
	// times as wide and its centroid sinks to at most wetDrop of its height with β = 0 (measured
	// 1.63 and 0.63; β = 10 gives 1.13 and 0.81). A wall that pulls the water's edge outward
	// lowers the contact angle: hydrophilic walls wet.
	wetSpread = 1.3
	wetDrop   = 0.8
	// adhesionMomentumTol: the water's and the body's momenta add to zero within this share of
	// Σ m|v| (the adhesion's pair forces and the pressure's are each exactly equal and
	// opposite; measured 5.8e-14 with β = 20, 7.3e-14 without).
	adhesionMomentumTol = 1e-12
)

// wettingDrop drops a ball of water (r = 2.5 mm, radius 2 cm, γ = 2) resting on the floor of a
// box for 1 s with material.wallAdhesion β and returns its centroid height and its largest
// horizontal distance from the centroid (m).
func wettingDrop(t *testing.T, beta float64) (cy, spread float64) {
	const r = 0.0025
	s := components.DefaultSolver()
	s.ParticleRadius = r
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustBox(t, w, "tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.16, 0.08, 0.16}, true)
	m := components.DefaultMaterial()
	m.WallAdhesion, m.SurfaceTension = beta, 2
	e, err := w.AddFluidSphere("drop", m, mgl64.Vec3{0.08, 0.021, 0.08}, 0.02, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	for w.Time() < 1-1e-9 {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	var c mgl64.Vec3
	p := w.Particles(e)
	for _, x := range p.X {
		c = c.Add(x.Mul(1 / float64(p.Len())))
	}
	for _, x := range p.X {
		d := x.Sub(c)
		spread = max(spread, math.Hypot(d[0], d[2]))
	}
	return c[1], spread
}

// TestAdhesionWetsTheFloor: a drop of water held round by surface tension (γ = 2) spreads on a
// floor that adheres (β = 10, 20) and sinks lower: at β = 20 by wetSpread and wetDrop.
func TestAdhesionWetsTheFloor(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("three drops of 179 particles for 1 s (3570 substeps each): skipped in -short and under -race")
	}
	t.Parallel()
	var cy, spread [3]float64
	for k, beta := range []float64{0, 10, 20} {
		cy[k], spread[k] = wettingDrop(t, beta)
		t.Logf("β = %g: centroid %.2f mm above the floor, spread %.2f mm (%.2f, %.2f of β = 0)", beta, 1e3*cy[k], 1e3*spread[k], cy[k]/cy[0], spread[k]/spread[0])
	}
	if !(spread[0] < spread[1] && spread[1] < spread[2] && cy[0] > cy[1] && cy[1] > cy[2]) {
		t.Errorf("the drop must spread wider and sink lower as β grows: spreads %v, centroids %v", spread, cy)
	}
	if spread[2] < wetSpread*spread[0] || cy[2] > wetDrop*cy[0] {
		t.Errorf("β = 20: spread %.3g× and centroid %.3g× those of β = 0, want ≥ %g× and ≤ %g×", spread[2]/spread[0], cy[2]/cy[0], wetSpread, wetDrop)
	}
}

// adheringPair runs a ball of water (r = 2.5 mm, radius 2 cm, γ = 2, material.wallAdhesion β)
// and a free 6 cm box of 500 kg/m³ whose face lies 3h/4 beyond the ball's outermost particles,
// in zero gravity, for 0.5 s. It checks every frame that their momenta add to zero within
// adhesionMomentumTol and returns how far the box moved towards the water (m).
func adheringPair(t *testing.T, beta float64) float64 {
	const r = 0.0025
	s := components.DefaultSolver()
	s.ParticleRadius = r
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := components.DefaultMaterial()
	m.WallAdhesion, m.SurfaceTension = beta, 2
	e, err := w.AddFluidSphere("drop", m, mgl64.Vec3{}, 0.02, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	xmax := 0.0
	for _, x := range w.Particles(e).X {
		xmax = max(xmax, x[0])
	}
	d := components.DefaultRigidBody()
	d.Size, d.Density = mgl64.Vec3{0.06, 0.06, 0.06}, 500
	d.Position = mgl64.Vec3{xmax + 0.75*w.Sim().Kernel.H + 0.03, 0, 0}
	box := mustRigid(t, w, "box", d)
	worst := 0.0
	for w.Time() < 0.5-1e-9 {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
		var sum, abs mgl64.Vec3
		p := w.Particles(e)
		for i, v := range p.V {
			for a := 0; a < 3; a++ {
				sum[a] += p.M[i] * v[a]
				abs[a] += math.Abs(p.M[i] * v[a])
			}
		}
		b := w.RigidBody(box).State
		for a := 0; a < 3; a++ {
			sum[a] += b.Mass * b.V[a]
			abs[a] += math.Abs(b.Mass * b.V[a])
			worst = max(worst, math.Abs(sum[a])/abs[a])
			if math.Abs(sum[a]) > adhesionMomentumTol*abs[a] {
				t.Fatalf("β = %g, t = %.3f s: momentum along axis %d is %.3g of Σ m|v| = %.3g kg m/s", beta, w.Time(), a, sum[a]/abs[a], abs[a])
			}
		}
	}
	t.Logf("β = %g: largest momentum imbalance %.3g of Σ m|v|", beta, worst)
	return d.Position[0] - w.RigidBody(box).State.X[0]
}

// TestAdhesionPullsBodyAndWaterTogether: a free box within reach of a ball of water is drawn
// to it by the adhesion's reaction (it moves towards the water by more than a millimetre in
// 0.5 s with β = 20, measured 1.83 mm; without adhesion the water's pressure pushes it away,
// measured 0.23 mm), and the water and the box exchange equal and opposite momentum
// (adhesionMomentumTol).
func TestAdhesionPullsBodyAndWaterTogether(t *testing.T) {
	if raceEnabled {
		t.Skip("two drops of 179 particles for 0.5 s")
	}
	with, without := adheringPair(t, 20), adheringPair(t, 0)
	t.Logf("the box moved %.3f mm towards the water with β = 20, %.4f mm with β = 0", 1e3*with, 1e3*without)
	if with < 1e-3 || without > 0 {
		t.Errorf("the box moved %.3g m towards the water with β = 20 (want > 1 mm) and %.3g m with β = 0 (want ≤ 0: nothing pulls it)", with, without)
	}
}
