package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// wallColumn builds a water column of the given depth at r = 1 cm in a narrow square tank of
// side width (most particles within a support radius of a side wall).
func wallColumn(t testing.TB, width, depth, eta float64, wallPressure string) (*sluice.World, sluice.Entity) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.MaxError = eta
	s.MaxIterations = 300
	s.WallPressure = wallPressure
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{width, depth + 0.2, width}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{width, depth, width}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// layerPressure is one layer's mean pressure, split into the particles within two radii of a
// side wall and the others.
type layerPressure struct {
	y, d             float64 // mean height and depth below the surface (m)
	wall, interior   float64 // mean pressure (Pa)
	nWall, nInterior int
}

// settledLayers runs the column for settle seconds, averages each particle's pressure over the
// next avg seconds and bins the particles into layers of height dy from the floor up. The
// depth is measured from the free surface at the top particles' centres plus one radius.
func settledLayers(t testing.TB, w *sluice.World, e sluice.Entity, width, r, dy, settle, avg float64) []layerPressure {
	t.Helper()
	its, sub := 0.0, 0
	run := func(seconds float64, each func()) {
		for k := 0; k < int(seconds/frame+0.5); k++ {
			st, err := w.Step(frame)
			if err != nil {
				t.Fatal(err)
			}
			its += st.PressureIterations * float64(st.Substeps)
			sub += st.Substeps
			each()
		}
	}
	run(settle, func() {})
	p := w.Particles(e)
	pAvg := make([]float64, p.Len())
	n := 0
	run(avg, func() {
		for k, pk := range p.Pressure {
			pAvg[k] += pk
		}
		n++
	})
	t.Logf("%d substeps, %.1f pressure iterations per substep", sub, its/float64(sub))
	top := 0.0
	for _, x := range p.X {
		top = max(top, x[1])
	}
	surface := top + r
	ls := make([]layerPressure, int(surface/dy)+1)
	ysum := make([]float64, len(ls))
	for k, x := range p.X {
		b := int(x[1] / dy)
		ysum[b] += x[1]
		if pk := pAvg[k] / float64(n); x[0] < 2*r || x[0] > width-2*r || x[2] < 2*r || x[2] > width-2*r {
			ls[b].wall += pk
			ls[b].nWall++
		} else {
			ls[b].interior += pk
			ls[b].nInterior++
		}
	}
	for b := range ls {
		l := &ls[b]
		if c := l.nWall + l.nInterior; c > 0 {
			l.y = ysum[b] / float64(c)
			l.d = surface - l.y
		}
		if l.nWall > 0 {
			l.wall /= float64(l.nWall)
		}
		if l.nInterior > 0 {
			l.interior /= float64(l.nInterior)
		}
	}
	return ls
}

// TestWallPressureIsHydrostatic: in a settled column (r = 1 cm, 0.3 m deep, 0.2 m square, so
// that 36 % of the particles lie within two radii of a side wall), every layer's mean
// pressure, separately for the particles within two radii of a side wall and for the others,
// is ρ0·g·d within 5 % — from the floor up to two support radii below the surface. With
// mirrored boundary pressures (the default) the wall particles read far above ρ0·g·d.
func TestWallPressureIsHydrostatic(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("2.5 s of a 1500-particle column at η = 0.03 %: skipped in -short and under -race")
	}
	// The criterion: every layer, walls included, within 5 % of ρ0·g·d.
	const layerTol = 0.05
	// η = 0.03 %: at the default 0.1 % the Jacobi iteration stops while the deep pressures
	// still lag (warm start ½ p(t − Δt)), and the whole column reads about 5 % low.
	const eta = 0.0003
	const width, depth, r = 0.2, 0.3, 0.01
	const g, rho0 = 9.81, 1000.0
	// Layers are two particle spacings (one support radius) high: the packing next to the floor
	// is not a clean lattice, and one-spacing bins split its layers unevenly.
	const dy = 4 * r
	// Within two support radii of the free surface the kernel sum is truncated and IISPH packs
	// particles closer to read ρ0, so the pressure there is not ρ0·g·d for any wall treatment
	// (as in TestRestingColumnIsHydrostatic); those layers are left out.
	const surfaceMargin = 8 * r
	// A layer's mean is compared when it holds at least this many particles of the set.
	const minCount = 5
	w, e := wallColumn(t, width, depth, eta, "extrapolate")
	defer w.Close()
	ls := settledLayers(t, w, e, width, r, dy, 3, 1)
	compared := 0
	for _, l := range ls {
		if l.d < surfaceMargin || l.nWall+l.nInterior == 0 {
			continue
		}
		want := rho0 * g * l.d
		t.Logf("y = %.3f m, d = %.3f m: ρ0·g·d = %.0f Pa, within 2r of a wall %.0f Pa (%+.1f %%, %d), interior %.0f Pa (%+.1f %%, %d)",
			l.y, l.d, want, l.wall, 100*(l.wall/want-1), l.nWall, l.interior, 100*(l.interior/want-1), l.nInterior)
		for _, s := range []struct {
			name string
			p    float64
			n    int
		}{{"within 2r of a wall", l.wall, l.nWall}, {"interior", l.interior, l.nInterior}} {
			if s.n < minCount {
				continue
			}
			compared++
			if math.Abs(s.p/want-1) > layerTol {
				t.Errorf("layer at y = %.3f m, %s: p = %.0f Pa, want ρ0·g·d = %.0f Pa ± %g %%", l.y, s.name, s.p, want, 100*layerTol)
			}
		}
	}
	if compared < 8 {
		t.Fatalf("only %d layer means compared", compared)
	}
}

// TestExtrapolatedWallPressureExchangesMomentum: with extrapolated boundary pressures (whose
// hydrostatic term needs gravity) a rigid box flying into a falling fluid ball takes exactly
// the reaction of the force the ball feels from it: the total momentum changes by the weight's
// impulse alone. Breaking the pair symmetry (e.g. leaving p_b out of the body's load) fails it.
func TestExtrapolatedWallPressureExchangesMomentum(t *testing.T) {
	const momentumTol = 1e-9 // relative to the box's initial momentum: round-off of the sums
	g := mgl64.Vec3{0, -9.81, 0}
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.Gravity = g
	s.WallPressure = "extrapolate"
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -3, -1}, mgl64.Vec3{1, 1, 1} // room for 0.5 s of fall
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mat := components.DefaultMaterial()
	mat.Viscosity = 0 // the Laplacian viscosity's pair forces differ where densities do
	ball, err := w.AddFluidSphere("water", mat, mgl64.Vec3{0, 0, 0}, 0.06, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	d := components.DefaultRigidBody()
	d.Size, d.Position, d.Velocity = mgl64.Vec3{0.08, 0.08, 0.08}, mgl64.Vec3{0.1, 0, 0}, mgl64.Vec3{-0.3, 0, 0}
	box := mustRigid(t, w, "box", d)
	m := mat.RestDensity * w.Sim().Volume0
	momentum := func() (p mgl64.Vec3, mass float64) {
		rb := w.RigidBody(box).State
		p, mass = rb.V.Mul(rb.Mass), rb.Mass
		for _, v := range w.Particles(ball).V {
			p = p.Add(v.Mul(m))
			mass += m
		}
		return p, mass
	}
	p0, mass := momentum()
	var st sluice.StepStats
	steps(t, w, 30, func(s sluice.StepStats) { st = s })
	p1, mass1 := momentum()
	if mass1 != mass {
		t.Fatalf("mass %g kg → %g kg: particles were lost", mass, mass1)
	}
	want := p0.Add(g.Mul(mass * st.T))
	if e := p1.Sub(want).Len() / p0.Len(); e > momentumTol {
		t.Errorf("momentum %v → %v, want %v with the weight's impulse (relative error %.3g)", p0, p1, want, e)
	}
	if v := w.RigidBody(box).State.V[0]; !(v > -0.3*0.9) {
		t.Errorf("box at %.4f m/s: the ball should have slowed it (from −0.3 m/s)", v)
	}
}

// TestArchimedesExtrapolated: with extrapolated boundary pressures (and the body's sample
// volumes capped at the particle volume, see systems.Sim) a 10 cm cube of 500 kg/m³ floats half
// submerged and the tank carries the weight of the water and the cube, as in TestArchimedes.
// Without the cap the cube's inflated edge volumes lift it to 43.9 % submerged.
func TestArchimedesExtrapolated(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("2.5 s of a 4200-particle tank: skipped in -short and under -race")
	}
	const fracTol = 0.05 // TestArchimedes's 50 % ± 5 %
	const loadTol = 0.02 // TestArchimedes's 2 %
	const seconds = 2.5  // the cube settles within 1.5 s; the last second is averaged
	const g, rho0 = 9.81, 1000.0
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.WallPressure = "extrapolate"
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.5, 0.4}, true); err != nil {
		t.Fatal(err)
	}
	water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.25, 0.4}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	d := components.DefaultRigidBody()
	d.Size, d.Density, d.Position = mgl64.Vec3{0.1, 0.1, 0.1}, 500, mgl64.Vec3{0.2, 0.25, 0.2}
	cube := mustRigid(t, w, "cube", d)
	var frac, load, weight, n float64
	steps(t, w, 150, func(st sluice.StepStats) { // seconds at 60 frames per second
		if st.T < seconds-1 {
			return
		}
		rb := w.RigidBody(cube)
		n++
		frac += rb.Submerged
		load += -st.Bodies[0].Load[1]
		weight = float64(w.Particles(water).Len())*w.Sim().Volume0*rho0*g + rb.State.Mass*g
	})
	frac, load = frac/n, load/n
	if math.Abs(frac-0.5) > fracTol {
		t.Errorf("%.1f %% below the surface, want 50 ± %g %%", 100*frac, 100*fracTol)
	}
	if e := math.Abs(load/weight - 1); e > loadTol {
		t.Errorf("the tank carries %.2f N, water and cube weigh %.2f N (%.2f %% off)", load, weight, 100*e)
	}
	t.Logf("submerged %.3f, tank load %.2f N for %.2f N of weight", frac, load, weight)
}
