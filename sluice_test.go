package sluice_test

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

const frame = 1.0 / 60

// colW is the width of the resting column's tank (m).
const colW = 0.4

// colWidth is the resting column's width in a world of the given dimensions: colW in 3D; in 2D
// 1.2 m, so that a layer of the interior again holds about 16 particles or more (a 2D layer
// of colW would hold 4).
func colWidth(dims int) float64 {
	if dims == 2 {
		return 1.2
	}
	return colW
}

// restingColumn builds a 1 m deep water column in a 0.4 m square tank at r = 0.025 m.
func restingColumn(t testing.TB, maxErr float64) (*sluice.World, sluice.Entity) {
	return restingColumnWith(t, "iisph", maxErr)
}

// restingColumnWith is restingColumn with the given pressure solver.
func restingColumnWith(t testing.TB, solver string, maxErr float64) (*sluice.World, sluice.Entity) {
	return restingColumnDims(t, solver, maxErr, 3)
}

// restingColumnDims is restingColumnWith in a world of the given dimensions (2: the column's
// x–y section, one particle layer at z = 0).
func restingColumnDims(t testing.TB, solver string, maxErr float64, dims int) (*sluice.World, sluice.Entity) {
	s := components.DefaultSolver()
	s.PressureSolver = solver
	s.MaxError = maxErr
	s.Dimensions = dims
	// The column is solved to η = 0.01 %, which DFSPH's constant-density solve reaches only
	// after about 100 corrections: the cap is raised so the pressures compared are converged.
	s.MaxIterations = 1000
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	cw := colWidth(dims)
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{cw, 1.6, cw}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{cw, 1.05, cw}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

func TestRestingColumnIsHydrostatic(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if raceEnabled {
		t.Skip("2 s of a 1 m column at η = 0.01 %: 23 s normally, 8 minutes under the race detector (runs without -race)")
	}
	w := checkRestingColumn(t, "iisph", 3)
	w.Close()
}

// checkRestingColumn settles the 1 m column for 5 s with the given pressure solver and checks
// that it comes to rest, its density error and the hydrostatic pressure of its interior; it
// returns the world at the end.
func checkRestingColumn(t *testing.T, solver string, dims int) *sluice.World {
	// Pressure at rest is ρ0·g·d at depth d: over the interior (away from floor, walls and
	// surface, where the boundary and the free surface's kernel deficiency distort it)
	// Σp/Σρ0·g·d must be within 5 %, and each layer's mean within 10 % — a layer holds about
	// 16 interior particles and Jacobi leaves a few percent of pressure noise per particle.
	const pressureTol = 0.05
	const layerTol = 0.10
	// The column is solved at η = 0.01 %: at the default 0.1 % the pressure of a 10-particle-deep
	// column lags by a few Jacobi sweeps each step and the column keeps bobbing (the paper's
	// Fig. 4 shows the same at looser tolerances).
	const eta = 0.0001
	// The settled fluid's average compression, measured from the SPH density itself after the
	// move (η bounds the solver's predicted density, not this), must be below the default η.
	const etaDefault = 0.001
	// Kinetic energy must fall at least tenfold from the collapse transient (t < 0.5 s) to
	// the last half second: the column comes to rest.
	const keDrop = 10.0
	w, e := restingColumnDims(t, solver, eta, dims)
	cw := colWidth(dims)
	keEarly, keLate := 0.0, 0.0
	// Pressures are averaged per particle over the last 30 frames (the column is at rest by
	// then) so one substep's Jacobi residual does not decide the comparison.
	const avgFrames = 30
	const frames = 300
	pAvg := make([]float64, w.Particles(e).Len())
	for i := 0; i < frames; i++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		if i >= frames-avgFrames {
			for k, pk := range w.Particles(e).Pressure {
				pAvg[k] += pk / avgFrames
			}
		}
		if i < 30 {
			keEarly = max(keEarly, st.KineticEnergy)
		}
		if i >= frames-30 {
			keLate = max(keLate, st.KineticEnergy)
		}
		if st.Bodies[1].Min[1] < 0 || st.Bodies[1].Min[0] < 0 || st.Bodies[1].Max[0] > cw || (dims == 3 && (st.Bodies[1].Min[2] < 0 || st.Bodies[1].Max[2] > cw)) {
			t.Fatalf("t=%.2f: fluid left the tank: %+v", st.T, st.Bodies[1])
		}
	}
	if keLate*keDrop > keEarly {
		t.Errorf("kinetic energy %.3g J in the last 0.5 s, want < %.3g J (1/%g of the transient's %.3g J)", keLate, keEarly/keDrop, keDrop, keEarly)
	}
	p := w.Particles(e)
	top := 0.0
	errSum := 0.0
	for i, x := range p.X {
		top = max(top, x[1])
		errSum += max(0, p.Density[i]-1000) / 1000
	}
	avg := errSum / float64(p.Len())
	if avg > etaDefault {
		t.Errorf("average density error %.5f, want ≤ %g", avg, etaDefault)
	}
	t.Logf("average density error %.5f %%, KE %.3g → %.3g J", 100*avg, keEarly, keLate)
	// Compare the pressure of interior particles (one support radius from the side walls, 1.5
	// from the floor, 2 from the surface) with ρ0·g·d, d the depth below the free surface at
	// the top particles' height plus one radius. Within two support radii of the surface the
	// kernel sum is truncated and IISPH packs particles closer to read ρ0, so the true mass
	// density and the pressure slope there are higher; near the floor the boundary bends the
	// profile (measured: +9 % 2.5 spacings above the floor).
	const margin = 0.1
	const floorMargin = 0.15
	const surfMargin = 0.2
	surface := top + 0.025
	const spacing = 0.05
	var sumP, sumY [40]float64
	var cnt [40]int
	for i, x := range p.X {
		if x[0] < margin || x[0] > cw-margin || (dims == 3 && (x[2] < margin || x[2] > cw-margin)) || x[1] < floorMargin || x[1] > surface-surfMargin {
			continue
		}
		b := int(x[1] / spacing)
		sumP[b] += pAvg[i]
		sumY[b] += x[1]
		cnt[b]++
	}
	layers := 0
	var sumAll, wantAll float64
	for b := range cnt {
		if cnt[b] < 5 {
			continue
		}
		layers++
		y, pr := sumY[b]/float64(cnt[b]), sumP[b]/float64(cnt[b])
		want := 1000 * 9.81 * (surface - y)
		t.Logf("y = %.3f m: p = %.0f Pa, ρ0·g·d = %.0f Pa (%+.1f %%)", y, pr, want, 100*(pr/want-1))
		if math.Abs(pr/want-1) > layerTol {
			t.Errorf("layer at y = %.3f m: p = %.1f Pa, want ρ0·g·d = %.1f Pa ± %g %%", y, pr, want, 100*layerTol)
		}
		sumAll += sumP[b]
		wantAll += want * float64(cnt[b])
	}
	if r := sumAll / wantAll; math.Abs(r-1) > pressureTol {
		t.Errorf("interior Σp/Σρ0·g·d = %.4f, want 1 ± %g", r, pressureTol)
	} else {
		t.Logf("interior Σp/Σρ0·g·d = %.4f", r)
	}
	if layers < 3 {
		t.Fatalf("only %d interior layers to compare", layers)
	}
	return w
}

// damBreak is a 0.6 m × 0.6 m × 0.4 m water block in the corner of a 1.6 m × 1 m × 0.4 m tank.
func damBreak(t testing.TB, workers int) (*sluice.World, sluice.Entity) {
	return damBreakSolver(t, components.DefaultSolver(), workers)
}

// damBreakSolver is damBreak with the given solver settings.
func damBreakSolver(t testing.TB, s components.Solver, workers int) (*sluice.World, sluice.Entity) {
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.6, 1, 0.4}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.4}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// massTol is the relative error allowed in a sum of 10⁴ equal masses: summation rounding only.
const massTol = 1e-12

// sumMass is the total of a body's particle masses (components.Particles.M, the state) and of
// the masses the solver packed for the step (Sim.Fluid.M).
func sumMass(w *sluice.World, e sluice.Entity) (body, packed float64) {
	for _, m := range w.Particles(e).M {
		body += m
	}
	for _, m := range w.Sim().Fluid.M {
		packed += m
	}
	return body, packed
}

func TestDamBreakConservesParticlesAndMass(t *testing.T) {
	// Particles are never created or lost inside a closed tank, so count and mass are exact:
	// the mass at creation is n·ρ0·V0, and both the bodies' masses and the solver's packed
	// copy must still add up to it after every step (a particle dropped or duplicated without
	// a report, or a mass rewritten, changes the sums).
	w, e := damBreak(t, 0)
	defer w.Close()
	n0 := w.Particles(e).Len()
	m0 := float64(n0) * 1000 * w.Sim().Volume0
	if b, _ := sumMass(w, e); math.Abs(b-m0) > massTol*m0 {
		t.Fatalf("mass at creation %.12g kg, want n·ρ0·V0 = %.12g kg", b, m0)
	}
	for i := 0; i < 60; i++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		if st.Particles != n0 || len(st.Removed) > 0 {
			t.Fatalf("t=%.2f: %d particles (removed %v), started with %d", st.T, st.Particles, st.Removed, n0)
		}
		if b, p := sumMass(w, e); math.Abs(b-m0) > massTol*m0 || math.Abs(p-m0) > massTol*m0 {
			t.Fatalf("t=%.2f: mass %.12g kg in the body, %.12g kg packed; started with %.12g", st.T, b, p, m0)
		}
		b := st.Bodies[1]
		if b.Min[1] < 0 || b.Min[0] < 0 || b.Max[0] > 1.6 {
			t.Fatalf("t=%.2f: fluid outside the tank: %+v", st.T, b)
		}
	}
	if front := w.Particles(e); front.Len() != n0 {
		t.Fatalf("body holds %d particles, want %d", front.Len(), n0)
	}
}

func stateHash(w *sluice.World, e sluice.Entity) [32]byte {
	h := sha256.New()
	p := w.Particles(e)
	var buf [8]byte
	for i := range p.X {
		for d := 0; d < 3; d++ {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(p.X[i][d]))
			h.Write(buf[:])
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(p.V[i][d]))
			h.Write(buf[:])
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	// Fixed blocks and block-ordered reductions make the state bit-identical for any
	// GOMAXPROCS and worker count.
	var hashes [][32]byte
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		w, e := damBreak(t, procs)
		for i := 0; i < 20; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		hashes = append(hashes, stateHash(w, e))
		w.Close()
		runtime.GOMAXPROCS(old)
	}
	for i := 1; i < len(hashes); i++ {
		if hashes[i] != hashes[0] {
			t.Fatalf("state hash differs between worker counts: %x vs %x", hashes[0][:8], hashes[i][:8])
		}
	}
}

func TestLeavingTheDomainIsReported(t *testing.T) {
	// A block with no tank falls out of the explicit domain; every particle is reported as
	// removed, none silently.
	s := components.DefaultSolver()
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -0.5, -1}, mgl64.Vec3{1, 1, 1}
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e, err := w.AddFluidBlock("drop", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	n0 := w.Particles(e).Len()
	m1 := w.Particles(e).M[0] // every particle of the block has the same mass
	removed := 0
	for i := 0; i < 60 && w.Particles(e).Len() > 0; i++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Removed {
			if r.Body != "drop" {
				t.Fatalf("removal names body %q", r.Body)
			}
			removed += r.Count
		}
		if st.Particles+removed != n0 {
			t.Fatalf("t=%.2f: %d particles + %d removed ≠ %d", st.T, st.Particles, removed, n0)
		}
		// The mass left is the mass at creation minus the removed particles' masses.
		if b, _ := sumMass(w, e); math.Abs(b-float64(n0-removed)*m1) > massTol*float64(n0)*m1 {
			t.Fatalf("t=%.2f: mass %.12g kg left, want %d × %.6g kg", st.T, b, n0-removed, m1)
		}
	}
	if removed != n0 || w.Particles(e).Len() != 0 {
		t.Fatalf("removed %d of %d, %d left", removed, n0, w.Particles(e).Len())
	}
}

func TestNonFiniteStateIsReported(t *testing.T) {
	// Gather unpacks the bodies over blocks: with non-finite particles in two blocks the
	// error names the first one in packed order (on the first step, the body's order) for
	// any worker count.
	for _, workers := range []int{1, 2} {
		w, e := damBreak(t, workers)
		p := w.Particles(e)
		if p.Len() <= 700 {
			t.Fatalf("%d particles: the second NaN must lie in a later block", p.Len())
		}
		p.V[700] = mgl64.Vec3{0, math.Inf(1), 0}
		p.V[7] = mgl64.Vec3{math.NaN(), 0, 0}
		_, err := w.Step(frame)
		w.Close()
		if err == nil {
			t.Fatalf("%d workers: NaN velocity accepted", workers)
		}
		if !contains(err.Error(), `"water" particle 7 `) {
			t.Fatalf("%d workers: error does not name the body and its first non-finite particle: %v", workers, err)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestSubstepsDoNotAllocate(t *testing.T) {
	// A substep (search, density, forces, elastic solve, pressure solve, integration) with water
	// and a pinned elastic body allocates nothing once
	// its buffers have grown: a Step of four substeps allocates exactly what a Step of one does
	// (the per-Step statistics handed to the caller).
	s := components.DefaultSolver()
	s.DtMax = 1e-4 // below any CFL step here, so Step(k·dt) takes exactly k substeps
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.6, 1, 0.4}, true)
	w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.4}, mgl64.Vec3{})
	jelly := components.DefaultMaterial()
	jelly.Elastic.PinnedMin, jelly.Elastic.PinnedMax = mgl64.Vec3{0.9, 0, 0}, mgl64.Vec3{1.0, 0.2, 0.4}
	if _, err := w.AddElasticBlock("jelly", jelly, mgl64.Vec3{0.9, 0, 0}, mgl64.Vec3{1.2, 0.3, 0.3}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		if _, err := w.Step(1e-3); err != nil {
			t.Fatal(err)
		}
	}
	one := substepsAllocateNothing(t, w, s.DtMax)
	t.Logf("%v allocations per Step (its statistics), 0 per substep", one)
}

func TestFreshBlockStartsAtRestDensity(t *testing.T) {
	// With the particle volume from the lattice sum and the wall calibration γ, every particle
	// of a block sampled in a tank, corners and wall layers included, starts within 0.5 % of
	// the rest density (the top lacks neighbours and is lower): the first pressure solve has
	// nothing to push apart. Checked for one and two wall layers.
	const tol = 0.005
	for _, layers := range []int{1, 2} {
		s := components.DefaultSolver()
		s.BoundaryLayers = layers
		s.Gravity = mgl64.Vec3{}
		w, err := sluice.NewWorld(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.6, 0.6}, true)
		e, _ := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.4, 0.6}, mgl64.Vec3{})
		st, err := w.Step(1e-4)
		if err != nil {
			t.Fatal(err)
		}
		maxRho := 0.0
		for _, r := range w.Particles(e).Density {
			maxRho = max(maxRho, r)
		}
		if maxRho > 1000*(1+tol) || st.MaxSpeed > 0.01 {
			t.Errorf("%d layers: largest initial density %.2f kg/m³ (want ≤ %.0f), max speed %.3g m/s", layers, maxRho, 1000*(1+tol), st.MaxSpeed)
		}
		t.Logf("%d layers: largest initial density %.3f kg/m³", layers, maxRho)
		w.Close()
	}
}

func TestObstacleKeepsFluidOut(t *testing.T) {
	// Water dropped onto a 0.3 m block standing in a tank flows around it: no particle centre
	// ever gets deeper than half a spacing inside the obstacle's sampled surface.
	const inside = 0.025
	w, err := sluice.NewWorld(components.DefaultSolver(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1.2, 0.4}, true)
	lo, hi := mgl64.Vec3{0.35, 0, 0}, mgl64.Vec3{0.65, 0.3, 0.4}
	if _, err := w.AddBoundaryBox("block", lo, hi, false); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0.3, 0.45, 0}, mgl64.Vec3{0.7, 0.8, 0.4}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	reachedFloor := false
	for i := 0; i < 60; i++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		for k, x := range w.Particles(e).X {
			reachedFloor = reachedFloor || x[1] < 0.1
			if x[0] > lo[0]+inside && x[0] < hi[0]-inside && x[1] < hi[1]-inside {
				t.Fatalf("t=%.2f: particle %d at %v is inside the obstacle", st.T, k, x)
			}
		}
	}
	if !reachedFloor {
		t.Fatal("no water flowed past the block to the floor: the test did not exercise the obstacle")
	}
}

// TestHighViscosityIsStableAtAnyDtMax: the scene — ν = 0.05 m²/s, r = 1 cm, dtMax =
// 4 ms — as a small viscous dam break built through the Go API. The substep control holds the
// explicit viscosity's limit, so the flow only slumps: no particle ever rises above the
// column's initial top (a viscous slump has no energy to lift anything; the old cap,
// 0.125 H²/ν with H the support radius, allowed 4 ms and sprayed particles to twice the
// depth), and no particle leaves the tank.
func TestHighViscosityIsStableAtAnyDtMax(t *testing.T) {
	const (
		nu     = 0.05
		height = 0.16
		rise   = 0.02 // one particle spacing of slack above the initial top (surface sampling)
	)
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.DtMax = 0.004
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.4, 0.1}, true); err != nil {
		t.Fatal(err)
	}
	m := components.DefaultMaterial()
	m.Viscosity = nu
	e, err := w.AddFluidBlock("honey", m, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.12, height, 0.1}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	top := 0.0
	for _, x := range w.Particles(e).X {
		top = max(top, x[1])
	}
	n0 := w.Particles(e).Len()
	var spread float64
	for i := 0; i < 60; i++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
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
	if spread < 0.15 {
		t.Errorf("the viscous column did not slump: front at %.3f m", spread)
	}
}

// restEditTol bounds the change of the water's mean height when its rest density is edited: a
// settled 6-layer block at η = 0.1 % moves by far less than 1 %, while masses left at the old
// value would have to compress the water by ρ0'/ρ0 = 1.2 to read the new rest density, 17 %
// lower.
const restEditTol = 0.01

func TestRestDensityEditRescalesMass(t *testing.T) {
	// Mass is state (components.Particles.M), so the only mass change without a removal is a
	// material edit: raising ρ0 from 1000 to 1200 kg/m³ between steps scales every mass by 1.2
	// (the body becomes heavier) and the water keeps its volume.
	w, err := sluice.NewWorld(components.DefaultSolver(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0.6, 0.3}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.3, 0.3, 0.3}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	meanY := func() float64 {
		y := 0.0
		for _, x := range w.Particles(e).X {
			y += x[1]
		}
		return y / float64(w.Particles(e).Len())
	}
	run := func(frames int) {
		for i := 0; i < frames; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(30)
	m0, _ := sumMass(w, e)
	y0 := meanY()
	w.Material(e).RestDensity = 1200
	run(30)
	m1, packed := sumMass(w, e)
	y1 := meanY()
	t.Logf("mass %.6g → %.6g kg (×%.12f), mean height %.5f → %.5f m", m0, m1, m1/m0, y0, y1)
	if math.Abs(m1/m0-1.2) > massTol || math.Abs(packed/m0-1.2) > massTol || w.Particles(e).MassDensity != 1200 {
		t.Errorf("after ρ0 1000 → 1200: mass ×%.12f (packed ×%.12f), massDensity %g; want ×1.2 and 1200", m1/m0, packed/m0, w.Particles(e).MassDensity)
	}
	if math.Abs(y1/y0-1) > restEditTol {
		t.Errorf("mean height %.4f m → %.4f m after the edit: the water changed volume (bound ±%.0f %%)", y0, y1, 100*restEditTol)
	}
}

func TestParticleWithoutMassIsReported(t *testing.T) {
	// A particle a game appends to a body without its mass is refused by name, never given a
	// recomputed one; a non-positive mass likewise.
	w, e := damBreak(t, 1)
	defer w.Close()
	p := w.Particles(e)
	p.X = append(p.X, mgl64.Vec3{0.3, 0.7, 0.2})
	p.V = append(p.V, mgl64.Vec3{})
	if _, err := w.Step(frame); err == nil || !contains(err.Error(), `"water"`) || !contains(err.Error(), "masses") {
		t.Fatalf("a particle without a mass: error %v", err)
	}
	p.M = append(p.M, 0)
	if _, err := w.Step(frame); err == nil || !contains(err.Error(), "mass 0 kg") {
		t.Fatalf("a particle of zero mass: error %v", err)
	}
	p.M[len(p.M)-1] = p.M[0]
	if _, err := w.Step(frame); err != nil {
		t.Fatalf("with its mass the particle is accepted: %v", err)
	}
}

// measuredErrFactor is k in "measured average compression ≤ k·η", and estimateTol bounds the
// ratio of the measured compression to the solver's own estimate. The solver stops when the
// predicted compression of its iterate is ≤ η; the 25 % is for what the prediction leaves out
// (it linearises the density in Δt around the substep's neighbour lists). Measured: 0.99η and
// 1.00 × the estimate in the settled column, 0.89η and 1.01 × in the dam break. The estimate
// the solver used before (the new pressure with the neighbour sums of the old iterate, ω times
// the residual) left 1.99η and read half the truth: both bounds fail on it.
const (
	measuredErrFactor = 1.25
	estimateTol       = 0.25
)

func TestMeasuredDensityErrorIsBounded(t *testing.T) {
	// The density error measured from the positions each substep produced (StepStats
	// DensityErrorMeasuredAvg, the SPH density of the next substep) must stay within k·η at the
	// default η = 0.1 %: in a settled 1 m column (averaged over its second second) and over the
	// first second of a dam break.
	if raceEnabled {
		t.Skip("3 s of two scenes (runs without -race)")
	}
	const eta = 0.001
	run := func(name string, w *sluice.World, frames, from int) {
		defer w.Close()
		var pred, meas float64
		n := 0
		for i := 0; i < frames; i++ {
			st, err := w.Step(frame)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && st.DensityErrorMeasured != st.Substeps {
				t.Fatalf("%s t=%.2f: %d of %d substeps measured", name, st.T, st.DensityErrorMeasured, st.Substeps)
			}
			if i >= from {
				pred += st.DensityErrorAvg
				meas += st.DensityErrorMeasuredAvg
				n++
			}
		}
		pred, meas = pred/float64(n), meas/float64(n)
		t.Logf("%s: solver's estimate %.4f %%, measured %.4f %% (%.2f η, %.2f × the estimate)", name, 100*pred, 100*meas, meas/eta, meas/pred)
		if meas > measuredErrFactor*eta {
			t.Errorf("%s: measured average compression %.4f %%, want ≤ %g·η = %.3f %%", name, 100*meas, measuredErrFactor, 100*measuredErrFactor*eta)
		}
		if math.Abs(meas/pred-1) > estimateTol {
			t.Errorf("%s: the solver's estimate %.4f %% is not the measured %.4f %% (within %.0f %%)", name, 100*pred, 100*meas, 100*estimateTol)
		}
	}
	col, _ := restingColumn(t, eta)
	run("resting column", col, 120, 60)
	db, _ := damBreak(t, 0)
	run("dam break", db, 60, 0)
}

// substepsAllocateNothing checks that a Step of four substeps of dt (the world's dtMax)
// allocates exactly as much as a Step of one — the per-Step statistics — so its substeps
// allocate nothing, and returns the allocations per Step.
func substepsAllocateNothing(t *testing.T, w *sluice.World, dt float64) float64 {
	t.Helper()
	one := testing.AllocsPerRun(10, func() { w.Step(dt) })
	st, _ := w.Step(4 * dt)
	if st.Substeps != 4 {
		t.Fatalf("Step(4·dtMax) took %d substeps", st.Substeps)
	}
	four := testing.AllocsPerRun(10, func() { w.Step(4 * dt) })
	if four != one {
		t.Fatalf("allocations: %v per 1-substep Step, %v per 4-substep Step; substeps must not allocate", one, four)
	}
	return one
}
