package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// couetteTol bounds the steady plane Couette profile's departure from the closed form
// u(y) = U y/H, as a fraction of the plate speed U: the 5 %.
const couetteTol = 0.05

// couette runs the wide channel of TestPoiseuillePacking (wideChannel) without gravity, its
// ceiling sliding along x at speed u (a kinematic wall, components.Motion) and its floor at
// rest, with plate drag nuB, from the given particles (nil: AddFluidBlock's lattice) for tEnd
// at substeps of at most dtMax, and returns the mean x-velocity of the central column in
// pfBin height bins and the run's substeps.
func couette(t *testing.T, x []mgl64.Vec3, mode string, dtMax, tEnd, u, nuB float64) ([pfBin]float64, int) {
	s := components.DefaultSolver()
	s.ParticleRadius = pfR
	s.Gravity = mgl64.Vec3{}
	s.ViscositySolver = mode
	s.ViscosityMaxError = 1e-4
	s.DtMax = dtMax
	s.DomainMin, s.DomainMax = mgl64.Vec3{-0.5, -0.1, -0.5}, mgl64.Vec3{1.2, 0.3, 0.9}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	floor, err := w.AddBoundaryRect("floor", mgl64.Vec3{-0.1, 0, -0.1}, mgl64.Vec3{0, 0, pwL + 0.2}, mgl64.Vec3{pwL + 0.3, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	ceil, err := w.AddBoundaryRect("ceiling", mgl64.Vec3{-0.1, pfGap, -0.1}, mgl64.Vec3{pwL + 0.3, 0, 0}, mgl64.Vec3{0, 0, pwL + 0.2})
	if err != nil {
		t.Fatal(err)
	}
	w.Material(floor).Drag, w.Material(ceil).Drag = nuB, nuB
	if err := w.SetMotion(ceil, components.Motion{Path: []components.MotionKey{{Until: 1e3, Velocity: mgl64.Vec3{u, 0, 0}}}}); err != nil {
		t.Fatal(err)
	}
	m := components.DefaultMaterial()
	m.Viscosity = pfNu
	var e sluice.Entity
	if x == nil {
		e, err = w.AddFluidBlock("oil", m, mgl64.Vec3{}, mgl64.Vec3{pwL, pfGap, pwL}, mgl64.Vec3{})
	} else {
		e, err = w.AddFluidParticles("oil", m, x, make([]mgl64.Vec3, len(x)))
	}
	if err != nil {
		t.Fatal(err)
	}
	substeps := 0
	for w.Time() < tEnd-1e-9 {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		substeps += st.Substeps
	}
	var sum [pfBin]float64
	var cnt [pfBin]int
	p := w.Particles(e)
	cx := 0.0
	for _, x := range p.X {
		cx += x[0]
	}
	cx /= float64(p.Len())
	for i, x := range p.X {
		if math.Abs(x[0]-cx) > pwHW || math.Abs(x[2]-pwL/2) > pwHW {
			continue
		}
		b := min(int(x[1]/pfGap*pfBin), pfBin-1)
		sum[b] += p.V[i][0]
		cnt[b]++
	}
	for b := range sum {
		if cnt[b] == 0 {
			t.Fatalf("%s: no particle in height bin %d", mode, b)
		}
		sum[b] /= float64(cnt[b])
	}
	return sum, substeps
}

// TestImplicitCouetteFlow: the plate-drag closed form. Oil (ν = 0.5 m²/s) between a floor at
// rest and a ceiling sliding along x at U = 0.05 m/s, both no-slip plates (plate drag
// ν_b = ν), no gravity, in the wide channel whose free sides leave the central column alone,
// once on the world's lattice and once on the disordered packing of TestPoiseuillePacking:
// the implicit viscosity at Δt = 5 ms, over 100 times the explicit viscosity's stable step,
// must settle (H²/(π²ν) = 3 ms; the run is 50 ms) to the linear profile u(y) = U y/H within
// couetteTol of U in every height bin of the central column. A linear shear is what the
// discrete Laplacian leaves at rest wherever a particle's neighbourhood is symmetric (the
// lattice's direction-dependent response, which makes the Poiseuille profile of
// TestImplicitPoiseuilleFlow too fast, multiplies a zero there), so the profile tests the
// solve at the long step and the plates' coupling, not the size of ν (the swirl decay and
// TestPoiseuillePacking do): frictionless plates (ν_b = 0) and plates with half the drag
// (ν_b = ν/2) each fail it on both packings.
func TestImplicitCouetteFlow(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("Couette validation: long (skipped under -short and the race detector)")
	}
	t.Parallel()
	kr := physics.NewKernel(physics.CubicSpline, 4*pfR)
	lim := kr.ViscousDtLimit(2*pfR, components.DefaultSolver().BoundaryLayers, pfNu, pfNu)
	const dt, u = 0.005, 0.05
	if dt/lim < 100 {
		t.Fatalf("Δt is %.0f× the explicit limit, want ≥ 100", dt/lim)
	}
	for _, pk := range []struct {
		name string
		x    []mgl64.Vec3
	}{{"lattice", nil}, {"disordered", disorderedChannelPacking(17)}} {
		prof, n := couette(t, pk.x, "implicit", dt, 3*frame, u, pfNu)
		worst := 0.0
		for b := range prof {
			y := (float64(b) + 0.5) * pfGap / pfBin
			want := u * y / pfGap
			worst = max(worst, math.Abs(prof[b]-want)/u)
			t.Logf("y = %.3f m: implicit %.5f m/s, closed form %.5f", y, prof[b], want)
		}
		t.Logf("%s: %d substeps of %.3g s on average, %.0f× the explicit limit %.3g s; worst bin %.2f %% of U", pk.name, n, 3*frame/float64(n), 3*frame/float64(n)/lim, lim, 100*worst)
		if worst > couetteTol {
			t.Errorf("%s: the steady Couette profile deviates by %.2f %% of U from U y/H, want ≤ %g %%", pk.name, 100*worst, 100*couetteTol)
		}
	}
}
