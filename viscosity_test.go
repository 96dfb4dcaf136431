package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// poiseuilleTol bounds the difference between the implicit solve's steady Poiseuille profile at
// Δt = 5 ms and the explicit viscosity's at its stable step, as a fraction of the closed
// form's peak speed: the 5 %. The steady state of the implicit step does not depend on
// Δt, so the two must agree up to the solver tolerance and the explicit run's residual
// transient; a viscosity coefficient halved in either would double its profile.
const poiseuilleTol = 0.05

// planeFlowGap and friends define the Poiseuille channel: water between two plates 12
// spacings apart, 16 spacings wide in x and z.
const (
	pfR   = 0.005
	pfGap = 0.12
	pfL   = 0.16
	pfNu  = 0.5
	pfG   = 9.81
	pfBin = 6
)

// poiseuille runs the channel for tEnd and returns the mean x-velocity of the central column
// (|x − x̄|, |z − L/2| ≤ 2 support radii) in pfBin height bins, and the last step's stats.
func poiseuille(t *testing.T, mode string, dtMax, tEnd float64) ([pfBin]float64, sluice.StepStats, int) {
	s := components.DefaultSolver()
	s.ParticleRadius = pfR
	s.Gravity = mgl64.Vec3{pfG, 0, 0}
	s.ViscositySolver = mode
	s.ViscosityMaxError = 1e-4
	s.DtMax = dtMax
	s.DomainMin, s.DomainMax = mgl64.Vec3{-0.5, -0.1, -0.5}, mgl64.Vec3{1, 0.3, 0.8}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// floor at y = 0 (samples below), ceiling at y = gap (samples above)
	floor, err := w.AddBoundaryRect("floor", mgl64.Vec3{-0.1, 0, -0.1}, mgl64.Vec3{0, 0, pfL + 0.2}, mgl64.Vec3{pfL + 0.3, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	ceil, err := w.AddBoundaryRect("ceiling", mgl64.Vec3{-0.1, pfGap, -0.1}, mgl64.Vec3{pfL + 0.3, 0, 0}, mgl64.Vec3{0, 0, pfL + 0.2})
	if err != nil {
		t.Fatal(err)
	}
	w.Material(floor).Drag, w.Material(ceil).Drag = pfNu, pfNu
	m := components.DefaultMaterial()
	m.Viscosity = pfNu
	e, err := w.AddFluidBlock("oil", m, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{pfL, pfGap, pfL}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	var st sluice.StepStats
	substeps := 0
	for w.Time() < tEnd-1e-9 {
		if st, err = w.Step(frame); err != nil {
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
		if math.Abs(x[0]-cx) > 0.02 || math.Abs(x[2]-pfL/2) > 0.02 {
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
	return sum, st, substeps
}

// TestImplicitPoiseuilleFlow: water (ν = 0.5 m²/s) between two no-slip plates (boundary
// viscosity ν_b = ν), driven along x by gravity. The implicit solve runs at Δt = 5 ms, over
// 100 times the explicit viscosity's stable step; the explicit viscosity runs at that step.
// Both reach the steady profile (H²/(π²ν) = 3 ms; the run is 50 ms), which must agree within
// poiseuilleTol. The closed form u(y) = g y (H − y)/(2ν) is logged: both runs exceed it by
// the same margin (about half of u_max in this 12-spacing channel), the discrete operator's
// error, not the time integration's: on the cubic lattice Monaghan's Laplacian responds to a
// shear aligned with the lattice's axes with 0.70 of ν
// (physics.TestViscosityShearResponseOnTheLattice; docs/viscosity.md).
func TestImplicitPoiseuilleFlow(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("Poiseuille validation: long (skipped under -short and the race detector)")
	}
	t.Parallel()
	kr := physics.NewKernel(physics.CubicSpline, 4*pfR)
	lim := kr.ViscousDtLimit(2*pfR, components.DefaultSolver().BoundaryLayers, pfNu, pfNu)
	const dt = 0.005
	if dt/lim < 100 {
		t.Fatalf("Δt is %.0f× the explicit limit, want ≥ 100", dt/lim)
	}
	const tEnd = 3 * frame
	imp, sti, ni := poiseuille(t, "implicit", dt, tEnd)
	exp, ste, ne := poiseuille(t, "explicit", dt, tEnd)
	umax := pfG * pfGap * pfGap / (8 * pfNu)
	worst, closed := 0.0, 0.0
	for b := range imp {
		y := (float64(b) + 0.5) * pfGap / pfBin
		want := pfG * y * (pfGap - y) / (2 * pfNu)
		worst = max(worst, math.Abs(imp[b]-exp[b])/umax)
		closed = max(closed, math.Abs(imp[b]-want)/umax)
		t.Logf("y = %.3f m: implicit %.4f m/s, explicit %.4f, closed form %.4f", y, imp[b], exp[b], want)
	}
	t.Logf("implicit: %d substeps (dt %.3g s, %.1f CG iterations per solve); explicit: %d substeps (dt %.3g s, %.0f× smaller)", ni, sti.Dt, sti.ViscosityIterations, ne, ste.Dt, sti.Dt/ste.Dt)
	t.Logf("implicit vs explicit: worst %.2f %% of u_max = %.4f m/s; implicit vs closed form: %.1f %%", 100*worst, umax, 100*closed)
	if worst > poiseuilleTol {
		t.Errorf("the implicit steady profile deviates by %.2f %% of u_max from the explicit one, want ≤ %g %%", 100*worst, 100*poiseuilleTol)
	}
}

// viscousDamBreak builds issue 21's scene — ν = 0.05 m²/s, r = 1 cm, dtMax = 4 ms, a column
// 12 × 16 × 10 cm in a 40 cm tank — with the given viscosity solver and worker count.
func viscousDamBreak(t testing.TB, mode string, workers int) (*sluice.World, sluice.Entity) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.DtMax = 0.004
	s.ViscositySolver = mode
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.4, 0.1}, true); err != nil {
		t.Fatal(err)
	}
	m := components.DefaultMaterial()
	m.Viscosity = 0.05
	e, err := w.AddFluidBlock("honey", m, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.12, 0.16, 0.1}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// TestImplicitViscousDamBreak: issue 21's viscous dam break with the implicit viscosity. The
// substep is no longer held at the explicit limit (it runs at the CFL step, at most dtMax),
// and still the flow only slumps: no particle rises above the column's initial top (plus one
// spacing of surface sampling slack, as in TestHighViscosityIsStableAtAnyDtMax), none leaves
// the tank, and the front moves out.
func TestImplicitViscousDamBreak(t *testing.T) {
	const rise = 0.02
	w, e := viscousDamBreak(t, "implicit", 0)
	defer w.Close()
	top := 0.0
	for _, x := range w.Particles(e).X {
		top = max(top, x[1])
	}
	n0 := w.Particles(e).Len()
	spread, substeps, its, solves := 0.0, 0, 0, 0
	for i := 0; i < 60; i++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		substeps += st.Substeps
		its += st.ViscosityIterationsTotal
		solves += st.ViscositySolves
		p := w.Particles(e)
		if p.Len() != n0 {
			t.Fatalf("t=%.2f: %d particles, started with %d", st.T, p.Len(), n0)
		}
		for _, x := range p.X {
			if x[1] > top+rise {
				t.Fatalf("t=%.2f: a particle at y = %.3f m, above the column's top %.3f m (dt %.2g s)", st.T, x[1], top, st.Dt)
			}
			spread = max(spread, x[0])
		}
	}
	kr := physics.NewKernel(physics.CubicSpline, 0.04)
	lim := kr.ViscousDtLimit(0.02, 2, 0.05, 0)
	t.Logf("1 s in %d substeps (explicit limit %.3g s would need ≥ %.0f), %.1f CG iterations per solve; front at %.3f m", substeps, lim, math.Ceil(1/lim), float64(its)/float64(solves), spread)
	if solves != substeps {
		t.Errorf("%d implicit solves in %d substeps", solves, substeps)
	}
	if float64(substeps) > 0.5/lim {
		t.Errorf("%d substeps: the implicit run did not step past the explicit limit (%.3g s)", substeps, lim)
	}
	if spread < 0.15 {
		t.Errorf("the viscous column did not slump: front at %.3f m", spread)
	}
}

// TestImplicitViscosityIsIndependentOfWorkers: the viscous dam break with the implicit solve
// gives bit-identical particles for 1 and 3 workers.
func TestImplicitViscosityIsIndependentOfWorkers(t *testing.T) {
	if raceEnabled {
		t.Skip("slow under the race detector; physics/viscosity's worker test covers the solver")
	}
	frames := 10
	if testing.Short() {
		frames = 3
	}
	var ref []mgl64.Vec3
	for _, workers := range []int{1, 3} {
		w, e := viscousDamBreak(t, "implicit", workers)
		for i := 0; i < frames; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		p := w.Particles(e)
		if ref == nil {
			ref = append(ref, p.X...)
			ref = append(ref, p.V...)
		} else {
			got := append(append([]mgl64.Vec3(nil), p.X...), p.V...)
			for i := range ref {
				if got[i] != ref[i] {
					t.Fatalf("3 workers: entry %d is %v, 1 worker %v", i, got[i], ref[i])
				}
			}
		}
		w.Close()
	}
}

// TestImplicitViscositySnapshotContinuesBitIdentically: the viscous dam break with the
// implicit solve, saved after 10 frames and restored (on 2 and 1 workers), continues exactly
// as the uninterrupted run: the snapshot carries the solve's warm start.
func TestImplicitViscositySnapshotContinuesBitIdentically(t *testing.T) {
	run := func(w *sluice.World, steps int) {
		for i := 0; i < steps; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
	}
	ref, e := viscousDamBreak(t, "implicit", 2)
	defer ref.Close()
	run(ref, 20)
	want := stateHash(ref, e)
	w, _ := viscousDamBreak(t, "implicit", 2)
	run(w, 10)
	checkRestoreContinues(t, w, 10, "honey", want)
}

// TestAutoViscositySolver: with solver.viscositySolver "auto" the implicit solve takes the
// substeps the explicit limit would shorten (issue 21's ν = 0.05 m²/s: its limit, 0.9 ms, is
// below the 4 ms step the CFL condition allows the slow column), and a scene whose limit is
// above the step (ν = 0.002 m²/s: 22 ms) runs bit-identically to "explicit", with no solve.
func TestAutoViscositySolver(t *testing.T) {
	frames := 10
	if testing.Short() || raceEnabled {
		frames = 3
	}
	run := func(mode string, nu float64) ([32]byte, int, int) {
		w, e := viscousDamBreak(t, mode, 0)
		defer w.Close()
		w.Material(e).Viscosity = nu
		solves, substeps := 0, 0
		for i := 0; i < frames; i++ {
			st, err := w.Step(frame)
			if err != nil {
				t.Fatal(err)
			}
			solves += st.ViscositySolves
			substeps += st.Substeps
		}
		return stateHash(w, e), solves, substeps
	}
	_, solves, substeps := run("auto", 0.05)
	if solves == 0 || solves != substeps {
		t.Errorf("ν = 0.05 m²/s, auto: %d implicit solves in %d substeps, want all", solves, substeps)
	}
	hAuto, solves, _ := run("auto", 0.002)
	hExp, _, _ := run("explicit", 0.002)
	if solves != 0 || hAuto != hExp {
		t.Errorf("ν = 0.002 m²/s: auto made %d implicit solves and its state differs from explicit's: %v", solves, hAuto != hExp)
	}
}
