package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// Light bodies. Three 10 cm cubes of 50, 100 and 200 kg/m³ float side by side in one tank of
// water 15 cm deep (r = 1 cm) for 10 s, each placed at its Archimedes draft.
//
// The draft is read from the differences of the cubes' heights: floating in the same water,
// cubes of densities ρ_i and ρ_j stand (ρ_j − ρ_i)/ρ_w · L apart in height (Archimedes; L the
// side). An absolute draft would need the water level to 2 mm, and at r = 1 cm the water
// itself settles about 8 mm below its fill height in its first second (its particles leave the
// initial lattice) with its columns' tops spread over ±2 mm; the differences cancel the level.
const (
	// lightDraftTol (m): the height differences within 2 % of the side, the 2 %.
	lightDraftTol = 0.002
	// lightGrowth, lightJitter: the vertical motion's RMS about its mean over the last 2 s may
	// not exceed 1.5 × that over 2–4 s plus 0.5 mm (a twentieth of r). An added-mass
	// instability of the coupling grows exponentially, by orders of magnitude within a
	// second; a body that keeps bobbing at its initial amplitude passes.
	lightGrowth = 1.5
	lightJitter = 0.0005
)

// TestLightBodiesFloat: cubes of 50, 100 and 200 kg/m³ float upright without their bobbing
// growing over 10 s (lightGrowth, lightJitter), and those whose draft is at least r (100 and
// 200 kg/m³) at their Archimedes drafts relative to each other (lightDraftTol). The 50 kg/m³
// cube's draft, 5 mm, is half a particle radius: its height is logged, not asserted.
//
// Upright is the stable pose only below a density ratio s = (3 − √3)/6 ≈ 0.211 (and above
// 0.789): a cube floating face up has the metacentric height GM = L(1/(12 s) − (1 − s)/2),
// negative in between, so a 250 kg/m³ cube rightly tips over (it did, by 11°, in 10 s); 200
// kg/m³ (GM = +0.017 L) is the densest light cube that must stay upright.
func TestLightBodiesFloat(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("10 s of a 2300-particle tank: skipped in -short and under -race")
	}
	const side, rhoW, fill = 0.1, 1000.0, 0.15
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustBox(t, w, "tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.3, 0.2}, true)
	mustBlock(t, w, "water", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, fill, 0.2})
	rhos := []float64{50, 100, 200}
	var cubes []sluice.Entity
	for i, rho := range rhos {
		d := components.DefaultRigidBody()
		d.Size, d.Density = mgl64.Vec3{side, side, side}, rho
		d.Position = mgl64.Vec3{0.1 + 0.2*float64(i), fill + side/2 - rho/rhoW*side, 0.1}
		cubes = append(cubes, mustRigid(t, w, "cube"+string(rune('0'+i)), d))
	}
	var early, late, mean [3][]float64
	for f := 1; f <= 600; f++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
		tt := w.Time()
		for i, c := range cubes {
			y := w.RigidBody(c).State.X[1]
			switch {
			case tt > 2 && tt <= 4:
				early[i] = append(early[i], y)
			case tt > 8:
				late[i] = append(late[i], y)
			}
			if tt > 4 {
				mean[i] = append(mean[i], y)
			}
		}
	}
	for i, c := range cubes {
		e, l := rms(early[i]), rms(late[i])
		q := w.RigidBody(c).State.Q
		t.Logf("ρ = %g kg/m³: centre %.4f m, height RMS %.2f mm at 2–4 s, %.2f mm at 8–10 s, orientation %.4v", rhos[i], avg(mean[i]), 1e3*e, 1e3*l, q)
		if l > lightGrowth*e+lightJitter {
			t.Errorf("ρ = %g: bobbing grew from %.2f mm to %.2f mm RMS", rhos[i], 1e3*e, 1e3*l)
		}
		if math.Abs(q[0]) < math.Cos(math.Pi/36) { // |w| = cos(θ/2): tilted by more than 10°
			t.Errorf("ρ = %g: tipped over (orientation %v)", rhos[i], q)
		}
		for j := i + 1; j < len(cubes); j++ {
			if rhos[i]/rhoW*side < s.ParticleRadius {
				// a draft under r lies inside the water's top particle layer, whose particles
				// carry no pressure (their density is short of neighbours and the pressure is
				// clamped at zero): no particle resolution of r resolves it
				continue
			}
			got := avg(mean[i]) - avg(mean[j])
			want := (rhos[j] - rhos[i]) / rhoW * side
			t.Logf("ρ = %g vs %g: %.2f mm higher, Archimedes %.2f mm", rhos[i], rhos[j], 1e3*got, 1e3*want)
			if math.Abs(got-want) > lightDraftTol {
				t.Errorf("ρ = %g floats %.2f mm above ρ = %g, Archimedes says %.2f mm (± %g mm)", rhos[i], 1e3*got, rhos[j], 1e3*want, 1e3*lightDraftTol)
			}
		}
	}
}

func avg(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	return m / float64(len(v))
}

// rms is the root mean square of v about its mean.
func rms(v []float64) float64 {
	m, q := avg(v), 0.0
	for _, x := range v {
		q += (x - m) * (x - m)
	}
	return math.Sqrt(q / float64(len(v)))
}
