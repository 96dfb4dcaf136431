package sluice_test

import (
	"math"
	"strconv"
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

// Absolute drafts of light bodies. The same three cubes (50, 100, 200 kg/m³, side 10 cm) in a
// 0.66 × 0.22 m tank of water 6 cm deep at r = 0.5 cm, run 2.5 s once with each wall pressure
// (mirror, the default, and extrapolate); each cube's draft is its water level minus its
// bottom, averaged over 1.5–2.5 s.
//
// The water level is the free surface as a particle fluid defines it: the height where the
// colour field c(y) = Σ_j V0 W(|x − x_j|) (Müller et al. 2003, Sec. 3.3; physics.ColorVolume),
// averaged over probe points, falls to ½ — on a flat lattice half a spacing above the top
// layer, where the particles' volumes end. The probes lie on a square ring 3 cm (1.5 support
// radii) outside the cube's faces, beyond the reach of its boundary samples, so the level is
// the water's beside the cube, sloshing included (the tank's seiche moves the water 0.5 mm
// between the cubes and the tank's middle over a second).
const (
	// lightAbsDraftTol: a draft within 0.2 r (1 mm at r = 0.5 cm) of Archimedes'. The water's
	// free surface is resolved only to a fraction of r: the top particles' centres plus r
	// read it 0.5–0.9 mm off the colour-½ level in the same run (logged), and the cubes'
	// errors are offsets of that order, not shares of the draft. Measured over 1.5–2.5 s:
	// mirror −0.54, +0.17, +0.18 mm, extrapolate −0.19, −0.26, −0.02 mm for 50, 100,
	// 200 kg/m³. The same set-up run 6 s and averaged over 4–6 s, when the water has
	// settled (its level still sinks 0.3 mm between 1 and 3 s as the particles leave their
	// lattice): mirror −0.58, 0.00, +0.24 mm, extrapolate −0.78, −0.57, −0.53 mm. So 2 % of
	// a 5–20 mm draft (0.1–0.4 mm) is not resolved at r = 0.5 cm, and neither wall pressure
	// is the more accurate in absolute terms; extrapolate gets the drafts' differences
	// closer (settled 100 − 50: 5.21 mm, 200 − 100: 10.04 mm; mirror 5.58 and 10.24 mm;
	// Archimedes 5 and 10 mm). A buoyancy off by a tenth moves the 200 kg/m³ cube by 2 mm.
	lightAbsDraftTol = 0.2
	// lightRingOffset (m): the probe ring's distance from the cube's faces.
	lightRingOffset = 0.03
)

// TestLightBodiesAbsoluteDraft: cubes of 50, 100 and 200 kg/m³ float with their bottoms at the
// Archimedes draft ρ/ρ_w · L below the water level beside them, within lightAbsDraftTol, upright
// and without their bobbing growing (lightGrowth, lightJitter) from 0.5–1.5 s to 1.5–2.5 s;
// TestLightBodiesFloat checks the growth over 10 s at r = 1 cm.
func TestLightBodiesAbsoluteDraft(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("2.5 s of a 6500-particle tank at r = 0.5 cm, twice: skipped in -short and under -race")
	}
	for _, mode := range []string{"mirror", "extrapolate"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			lt := lightTank{r: 0.005, fill: 0.06, gap: 0.12, settle: 2.5, average: 1}
			for _, rho := range []float64{50, 100, 200} {
				lt.bodies = append(lt.bodies, lightBody{rho, mgl64.Vec3{0.1, 0.1, 0.1}})
			}
			for i, e := range lightDrafts(t, mode, lt) {
				if math.Abs(e) > lightAbsDraftTol*lt.r {
					t.Errorf("ρ = %g: draft off by %.2f mm (± %.2f mm)", lt.bodies[i].rho, 1e3*e, 1e3*lightAbsDraftTol*lt.r)
				}
			}
		})
	}
}

// lightBody is one floating box of lightDrafts: density (kg/m³) and size (m).
type lightBody struct {
	rho  float64
	size mgl64.Vec3
}

// lightTank is a set-up of lightDrafts: particle radius r, water depth fill, and the boxes,
// placed side by side along x, each at its Archimedes draft, gap apart and gap/2 from the
// tank's walls; the tank is as deep (z) as the widest box plus gap, as high as the water plus
// the tallest box.
type lightTank struct {
	r, fill, gap float64
	bodies       []lightBody
	// settle, average (s): the run's length and the span at its end over which the drafts
	// and the late bobbing are averaged; the early bobbing is the span before it
	settle, average float64
	// walls (m): 0 for a closed box tank as tall as the water plus the tallest body; above 0,
	// a floor and four wall slabs standing this far above the water, open at the top, so a
	// tall body's samples above the water are not matched by tall walls
	walls float64
}

// lightDrafts runs a lightTank with the given solver.wallPressure and returns each body's
// draft error (m, measured minus Archimedes), after checking that it stays upright and its
// bobbing does not grow.
func lightDrafts(t *testing.T, wallPressure string, lt lightTank) []float64 {
	const rhoW = 1000.0
	r, fill, gap := lt.r, lt.fill, lt.gap
	wide, deep, tall := 0.0, 0.0, 0.0
	for _, b := range lt.bodies {
		wide += b.size[0] + gap
		deep = max(deep, b.size[2]+gap)
		tall = max(tall, fill+b.size[1])
	}
	s := components.DefaultSolver()
	s.ParticleRadius = r
	s.WallPressure = wallPressure
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if lt.walls > 0 {
		const th = 0.02 // the slabs' thickness (m)
		hy := fill + lt.walls
		mustBox(t, w, "floor", mgl64.Vec3{-th, -th, -th}, mgl64.Vec3{wide + th, 0, deep + th}, false)
		mustBox(t, w, "wallx0", mgl64.Vec3{-th, 0, -th}, mgl64.Vec3{0, hy, deep + th}, false)
		mustBox(t, w, "wallx1", mgl64.Vec3{wide, 0, -th}, mgl64.Vec3{wide + th, hy, deep + th}, false)
		mustBox(t, w, "wallz0", mgl64.Vec3{0, 0, -th}, mgl64.Vec3{wide, hy, 0}, false)
		mustBox(t, w, "wallz1", mgl64.Vec3{0, 0, deep}, mgl64.Vec3{wide, hy, deep + th}, false)
	} else {
		mustBox(t, w, "tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{wide, tall, deep}, true)
	}
	water := mustBlock(t, w, "water", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{wide, fill, deep})
	var cubes []sluice.Entity
	x0 := gap / 2
	for i, b := range lt.bodies {
		d := components.DefaultRigidBody()
		d.Size, d.Density = b.size, b.rho
		d.Position = mgl64.Vec3{x0 + b.size[0]/2, fill + b.size[1]/2 - b.rho/rhoW*b.size[1], deep / 2}
		x0 += b.size[0] + gap
		cubes = append(cubes, mustRigid(t, w, "body"+string(rune('0'+i)), d))
	}
	sim := w.Sim()
	var near []mgl64.Vec3 // the particles within reach of the surface
	var ring [][2]float64
	// level is the height where the colour field averaged over ring falls to ½, found by
	// bisection between lo and hi (c̄ decreases with height through the surface).
	level := func(lo, hi float64) float64 {
		h2 := sim.Kernel.H * sim.Kernel.H
		cbar := func(y float64) float64 {
			c := 0.0
			for _, p := range ring {
				for _, x := range near {
					dx, dy, dz := x[0]-p[0], x[1]-y, x[2]-p[1]
					if d2 := dx*dx + dy*dy + dz*dz; d2 < h2 {
						c += sim.Volume0 * sim.Kernel.W(math.Sqrt(d2))
					}
				}
			}
			return c / float64(len(ring))
		}
		for range 24 {
			if m := (lo + hi) / 2; cbar(m) > 0.5 {
				lo = m
			} else {
				hi = m
			}
		}
		return (lo + hi) / 2
	}
	nb := len(cubes)
	drafts, topGap := make([]float64, nb), make([]float64, nb)
	early, late := make([][]float64, nb), make([][]float64, nb) // heights before and in the average
	frames := int(math.Round(lt.settle * 60))
	avgFrom := frames - int(math.Round(lt.average*60))
	n := 0
	for f := 1; f <= frames; f++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
		for i, c := range cubes {
			if y := w.RigidBody(c).State.X[1]; f > avgFrom {
				late[i] = append(late[i], y)
			} else if f > 2*avgFrom-frames {
				early[i] = append(early[i], y)
			}
		}
		if f <= avgFrom || f%6 != 0 { // the drafts every tenth of a second
			continue
		}
		top := 0.0
		for _, x := range w.Particles(water).X {
			top = max(top, x[1])
		}
		near = near[:0]
		for _, x := range w.Particles(water).X {
			if x[1] > top-sim.Kernel.H-4*r {
				near = append(near, x)
			}
		}
		for i, c := range cubes {
			x := w.RigidBody(c).State.X
			size := lt.bodies[i].size
			ring = ring[:0]
			ax, az := size[0]/2+lightRingOffset, size[2]/2+lightRingOffset
			for u := -ax; u < ax-1e-9; u += 2 * r {
				ring = append(ring, [2]float64{x[0] + u, x[2] - az}, [2]float64{x[0] - u, x[2] + az})
			}
			for u := -az; u < az-1e-9; u += 2 * r {
				ring = append(ring, [2]float64{x[0] + ax, x[2] + u}, [2]float64{x[0] - ax, x[2] - u})
			}
			lc := level(top-4*r, top+2*r)
			drafts[i] += lc - (x[1] - size[1]/2)
			// the other common reading of the level: the highest particle over each probe
			// (horizontally within 2r of it) plus r, for the log
			tops, nt := 0.0, 0
			for _, p := range ring {
				h := math.Inf(-1)
				for _, q := range near {
					if dx, dz := q[0]-p[0], q[2]-p[1]; dx*dx+dz*dz < 4*r*r {
						h = max(h, q[1])
					}
				}
				if !math.IsInf(h, -1) {
					tops, nt = tops+h+r, nt+1
				}
			}
			topGap[i] += lc - tops/float64(nt)
		}
		n++
	}
	errs := make([]float64, nb)
	for i, c := range cubes {
		b := lt.bodies[i]
		got, want := drafts[i]/float64(n), b.rho/rhoW*b.size[1]
		errs[i] = got - want
		t.Logf("ρ = %g kg/m³: draft %.2f mm, Archimedes %.2f mm (%+.2f mm, %+.2f %%); the top particles' centres plus r read the level %+.2f mm off", b.rho, 1e3*got, 1e3*want, 1e3*(got-want), 100*(got/want-1), -1e3*topGap[i]/float64(n))
		if q := w.RigidBody(c).State.Q; math.Abs(q[0]) < math.Cos(math.Pi/36) {
			t.Errorf("ρ = %g: tipped over (orientation %v)", b.rho, q)
		}
		// the stability criterion of TestLightBodiesFloat over the run
		e, l := rms(early[i]), rms(late[i])
		t.Logf("ρ = %g kg/m³: height RMS %.2f mm before the average, %.2f mm in it", b.rho, 1e3*e, 1e3*l)
		if l > lightGrowth*e+lightJitter {
			t.Errorf("ρ = %g: bobbing grew from %.2f mm to %.2f mm RMS", b.rho, 1e3*e, 1e3*l)
		}
	}
	return errs
}

// Light bodies at the 2 %. A floating box's draft is d = (ρ_b/ρ_w) H, and what the
// particles resolve is an offset of a fraction of r (TestLightBodiesAbsoluteDraft: up to 0.2 r),
// so 2 % of the draft needs d ≥ 6 r or so. Boxes of 50, 100 and 250 kg/m³, each as tall as
// makes its draft 6 r = 30 mm at r = 0.5 cm (60, 30 and 12 cm), each in its own tank of water
// 8 cm deep, float 9 s; the drafts are averaged over the last 2 s as in
// TestLightBodiesAbsoluteDraft (water level from the colour field beside the body).
//
// The boxes are wide enough to float upright: a box of side W, height H and density ratio s
// has the metacentric height W²/(12 s H) − (1 − s) H/2, positive for W > √(6 s (1 − s)) H
// (0.32, 0.22 and 0.13 m); they are 0.36, 0.26 and 0.16 m wide. The water under them is 5 cm
// (2.5 support radii) deep: with 3 cm (1.5 h, six particle layers between the floor and the
// box) all three sank 2.2–2.8 mm (7–9 %) too deep (6 s, sleeping off, closed tanks): an
// effect of the thin layer's resolution, not studied further here.
//
// Measured (mirror wall pressure, the default): +0.31, +0.24, +0.05 mm (+1.04, +0.81,
// +0.17 %) for 50, 100, 250 kg/m³, bobbing RMS 0.06 → 0.12, 0.01 → 0.00, 0.00 → 0.00 mm
// (5–7 s → 7–9 s). Run 6 s instead in a closed tank (average over 4–6 s, the widest tank's
// water level still settling) the 50 kg/m³ box was +2.17 % off; 80 cm tall (draft 8 r),
// +0.82 % at 6 s.
const lightShareTol = 0.02 // the 2 % of the draft

func TestLightBodiesDraftWithinTwoPercent(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("9 s of three tanks of 5–13k particles at r = 0.5 cm: skipped in -short and under -race")
	}
	for _, b := range []lightBody{{50, mgl64.Vec3{0.36, 0.6, 0.36}}, {100, mgl64.Vec3{0.26, 0.3, 0.26}}, {250, mgl64.Vec3{0.16, 0.12, 0.16}}} {
		t.Run(strconv.FormatFloat(b.rho, 'g', -1, 64), func(t *testing.T) {
			t.Parallel()
			lt := lightTank{r: 0.005, fill: 0.08, gap: 0.1, settle: 9, average: 2, bodies: []lightBody{b}, walls: 0.04}
			e := lightDrafts(t, "mirror", lt)[0]
			if want := b.rho / 1000 * b.size[1]; math.Abs(e) > lightShareTol*want {
				t.Errorf("ρ = %g kg/m³: draft off by %+.2f mm, %+.2f %% of Archimedes' %.1f mm (± %g %%)", b.rho, 1e3*e, 100*e/want, 1e3*want, 100*lightShareTol)
			}
		})
	}
}
