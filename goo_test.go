package sluice_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/iisph"
	"github.com/sluicephysics/sluice/systems"
)

// gooMaterial is goo with coefficient c, connection distance α and no plasticity.
func gooMaterial(c, alpha float64) components.Material {
	m := components.DefaultMaterial()
	m.Viscoelastic.Enabled = true
	m.Viscoelastic.C, m.Viscoelastic.Alpha, m.Viscoelastic.W = c, alpha, 0
	return m
}

// bounds returns a body's bounding box.
func bounds(w *sluice.World, e sluice.Entity) (lo, hi mgl64.Vec3) {
	lo, hi = mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, mgl64.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, x := range w.Particles(e).X {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = math.Min(lo[d], x[d]), math.Max(hi[d], x[d])
		}
	}
	return lo, hi
}

// ballVolumes returns a body's volume, the region inside its surface (physics.ColorVolume,
// on cells of side r), and its clamped SPH volume Σ m/max(ρ, ρ0), which changes only if the
// material is compressed.
func ballVolumes(w *sluice.World, e sluice.Entity) (vol, volClamped float64) {
	p := w.Particles(e)
	rho0 := w.Material(e).RestDensity
	for i, m := range p.M {
		volClamped += m / math.Max(p.Density[i], rho0)
	}
	sim := w.Sim()
	return physics.ColorVolume(p.X, sim.Volume0, &sim.Kernel, w.Settings().ParticleRadius), volClamped
}

// lump is one separate piece of goo: its packed particles' count, centroid and bounds.
type lump struct {
	n      int
	c      mgl64.Vec3
	lo, hi mgl64.Vec3
}

// lumpsOf finds the goo's separate pieces of at least minSize particles, largest first: the
// connected components of the connection graph (as viscoelastic.State.Lumps), with where
// they are.
func lumpsOf(sim *systems.Sim, minSize int) []lump {
	g := &sim.Goo
	n := g.Len()
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := 0; i < n; i++ {
		js, _ := g.Conn.Of(i)
		for _, j := range js {
			if j >= 0 {
				a, b := find(i), find(int(j))
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	byRoot := map[int]*lump{}
	var out []*lump
	for i := 0; i < n; i++ {
		if g.Beta[i] == 0 {
			continue
		}
		r := find(i)
		l := byRoot[r]
		if l == nil {
			inf := math.Inf(1)
			l = &lump{lo: mgl64.Vec3{inf, inf, inf}, hi: mgl64.Vec3{-inf, -inf, -inf}}
			byRoot[r] = l
			out = append(out, l)
		}
		x := sim.Fluid.X[i]
		l.n++
		l.c = l.c.Add(x)
		for d := 0; d < 3; d++ {
			l.lo[d], l.hi[d] = math.Min(l.lo[d], x[d]), math.Max(l.hi[d], x[d])
		}
	}
	var res []lump
	for _, l := range out {
		if l.n >= minSize {
			l.c = l.c.Mul(1 / float64(l.n))
			res = append(res, *l)
		}
	}
	slices.SortStableFunc(res, func(a, b lump) int { return b.n - a.n })
	return res
}

// squeezeWorld is the paper's volume scene (Fig. 7/8) in small: a goo ball (R = 0.15 m, r =
// 5 mm, about 13k particles, c = 0.005, α = 0.5) resting on a floor without gravity, pressed to
// about 75 % of its height by a board moving down at 0.25 m/s for 0.3 s and back up, solved at
// the paper's η = 0.01 %. Substeps are at most 1 ms: c acts per substep, so the goo's
// stiffness depends on the substep (the paper's §5).
func squeezeWorld(t testing.TB, goo bool) (*sluice.World, sluice.Entity) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.005
	s.Gravity = mgl64.Vec3{}
	s.MaxError = 0.0001
	s.DtMax = 0.001
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryRect("floor", mgl64.Vec3{-0.3, 0, -0.3}, mgl64.Vec3{0.6, 0, 0}, mgl64.Vec3{0, 0, 0.6}); err != nil {
		t.Fatal(err)
	}
	board, err := w.AddBoundaryBox("board", mgl64.Vec3{-0.25, 0.31, -0.25}, mgl64.Vec3{0.25, 0.37, 0.25}, false)
	if err != nil {
		t.Fatal(err)
	}
	const down = 0.3 // s
	path := []components.MotionKey{{Until: 0.1}, {Until: 0.1 + down, Velocity: mgl64.Vec3{0, -0.25, 0}}, {Until: 0.1 + 2*down, Velocity: mgl64.Vec3{0, 0.25, 0}}}
	if err := w.SetMotion(board, components.Motion{Path: path}); err != nil {
		t.Fatal(err)
	}
	m := components.DefaultMaterial()
	if goo {
		m = gooMaterial(0.005, 0.5)
	}
	ball, err := w.AddFluidSphere("ball", m, mgl64.Vec3{0, 0.16, 0}, 0.15, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, ball
}

// TestGooSqueezeKeepsVolume is the paper's Fig. 8: the squeezed ball keeps its volume, and
// the velocity corrections do not slow the pressure solve (§3.1: they change v* only, so the
// solver sees the positions its neighbour lists were built from).
//
// The volume is the region inside the ball's surface (physics.ColorVolume), not the SPH sum
// Σ m/ρ: that sum counts a free-surface particle's missing neighbours as extra volume, so it
// dips wherever the board turns free surface into wall contact although nothing is compressed.
// The clamped SPH volume Σ m/max(ρ, ρ0) isolates compression and must stay within the solver's
// tolerance.
//
// The iteration comparison is controlled: in every substep a second IISPH solver solves the
// same state with the predicted velocities before the corrections, so "the same scene without
// velocity corrections" sees the same positions, neighbours and board. The goo stage's share
// of the step time is logged only: wall-clock shares depend on the machine's load.
func TestGooSqueezeKeepsVolume(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("squeeze scene: 13k particles, 1000 substeps (runs without -short and -race)")
	}
	const volumeTol = 0.02      // the bound on |V/V0 − 1| throughout
	const compressionTol = 1e-3 // |V_clamped/V0_clamped − 1|: ten times η, for the surface particles' ρ near ρ0
	// iterMax bounds the average pressure iterations with corrections against the uncorrected
	// solves of the same states. The paper (§3.1) finds no slowdown; with a stopping rule that
	// judges the iterate's true residual the uncorrected solves sit at the 2-iteration floor and
	// the corrections' small divergence costs 1.3 more (3.32 against 2.00; 2.23 when the solver
	// stopped on half the residual). Corrections that fought the pressure (a sign error, or c
	// applied twice) would multiply the iterations, as the stiff c = 0.05 ball's 7.7 show.
	const iterMax = 2.0
	const restoreTol = 0.05 // after the board leaves, the height returns within 5 %
	// The volume is measured every volumeEvery frames (a grid pass over 13k particles) and at
	// the deepest squeeze.
	const volumeEvery = 3
	w, ball := squeezeWorld(t, true)
	defer w.Close()
	sim := w.Sim()
	settings := w.Settings()
	shadow := iisph.NewSolver(settings.IISPH())
	var saved []physics.Vec3
	var f physics.FluidSet
	shadowIters, iters, solves := 0, 0, 0
	sched := w.Schedule()
	if err := sched.InsertBefore(systems.StageViscoelastic, "keepVStar", ecs.SystemFunc(func(ctx *ecs.Context) error {
		saved = append(saved[:0], sim.Fluid.VStar...)
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	if err := sched.InsertAfter(systems.StageViscoelastic, "uncorrectedSolve", ecs.SystemFunc(func(ctx *ecs.Context) error {
		src := &sim.Fluid
		f.Resize(src.Len())
		copy(f.X, src.X)
		copy(f.M, src.M)
		copy(f.Rho0, src.Rho0)
		copy(f.Rho, src.Rho)
		copy(f.P, src.P)
		copy(f.VStar, saved)
		r := shadow.Solve(&f, &sim.Bound, &sim.FF, &sim.FB, ctx.Dt, ctx.World.Pool)
		shadowIters += r.Iterations
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	if err := sched.InsertAfter(systems.StagePressureSolve, "countIterations", ecs.SystemFunc(func(ctx *ecs.Context) error {
		solves++
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	var v0, vc0, h0, worst, worstC, minH, gooMs, stepMs float64
	for k := 0; k < 60; k++ { // 1 s
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		iters += st.PressureIterationsTotal
		gooMs += st.StageMs[systems.StageViscoelastic]
		for name, ms := range st.StageMs {
			if name != "keepVStar" && name != "uncorrectedSolve" && name != "countIterations" {
				stepMs += ms
			}
		}
		lo, hi := bounds(w, ball)
		h := hi[1] - lo[1]
		if k == 0 {
			h0, minH = h, h
		}
		if k == 0 || k%volumeEvery == 0 || h < minH {
			v, vc := ballVolumes(w, ball)
			if k == 0 {
				v0, vc0 = v, vc
			}
			worst = math.Max(worst, math.Abs(v/v0-1))
			worstC = math.Max(worstC, math.Abs(vc/vc0-1))
		}
		minH = math.Min(minH, h)
		if st.Removed != nil {
			t.Fatalf("t = %.2f s: particles left the domain: %+v", st.T, st.Removed)
		}
	}
	lo, hi := bounds(w, ball)
	avg, avgShadow := float64(iters)/float64(solves), float64(shadowIters)/float64(solves)
	t.Logf("squeezed to %.0f %% of the height %.3f m; V0 = %.5f m³, |V/V0−1| ≤ %.4f, |Vc/Vc0−1| ≤ %.5f; iterations %.2f with corrections, %.2f without; height after %.3f m; goo stage %.1f %% of the step (%.0f of %.0f ms, not asserted)",
		100*minH/h0, h0, v0, worst, worstC, avg, avgShadow, hi[1]-lo[1], 100*gooMs/stepMs, gooMs, stepMs)
	if minH > 0.8*h0 {
		t.Fatalf("the board squeezed the ball only to %.0f %% of its height", 100*minH/h0)
	}
	if worst > volumeTol {
		t.Errorf("the volume inside the surface strayed %.2f %% from its initial value (bound %.0f %%)", 100*worst, 100*volumeTol)
	}
	if worstC > compressionTol {
		t.Errorf("the ball was compressed: clamped volume strayed %.3f %% (bound %.2f %%)", 100*worstC, 100*compressionTol)
	}
	if avg > iterMax*avgShadow {
		t.Errorf("%.2f pressure iterations per solve with corrections, %.2f without (bound %.1f×)", avg, avgShadow, iterMax)
	}
	if h := hi[1] - lo[1]; math.Abs(h/h0-1) > restoreTol {
		t.Errorf("height %.3f m after the squeeze, %.3f m before (bound ±%.0f %%)", h, h0, 100*restoreTol)
	}
}

// aspect is the height over the width of a body's bounding box.
func aspect(w *sluice.World, e sluice.Entity) float64 {
	lo, hi := bounds(w, e)
	return (hi[1] - lo[1]) / (hi[0] - lo[0])
}

// dropBall drops a goo ball (R = 0.15 m, r = 1 cm, 1365 particles) at 2 m/s from 0.45 m onto
// the floor of a tank and returns the aspect ratio before the impact, the smallest during it and
// the largest in the 0.4 s after the smallest, and the goo's pieces of at least 20 particles
// at the end (0.9 s).
func dropBall(t *testing.T, m components.Material) (a0, squashed, rebound float64, pieces []lump) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.5, 0, -0.5}, mgl64.Vec3{0.5, 1.2, 0.5}, true); err != nil {
		t.Fatal(err)
	}
	ball, err := w.AddFluidSphere("ball", m, mgl64.Vec3{0, 0.6, 0}, 0.15, mgl64.Vec3{0, -2, 0})
	if err != nil {
		t.Fatal(err)
	}
	a0 = aspect(w, ball)
	var as []float64
	for k := 0; k < 54; k++ { // 0.9 s
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
		as = append(as, aspect(w, ball))
	}
	// The first squash: the smallest aspect ratio of the first 0.4 s (the impact is at
	// about 0.2 s); the rebound: the largest in the 0.4 s after it.
	minAt := 0
	for k := range as[:24] {
		if as[k] < as[minAt] {
			minAt = k
		}
	}
	squashed = as[minAt]
	pieces = lumpsOf(w.Sim(), 20)
	for k := minAt; k < len(as) && k <= minAt+24; k++ {
		rebound = math.Max(rebound, as[k])
	}
	return a0, squashed, rebound, pieces
}

// TestGooBallBouncesBackOrStaysFlat: with high c and no plasticity a dropped ball is squashed
// by the impact and springs back to its round shape; with plastic weakening (Eq. 7) its c
// drops to l during the impact and it stays flattened: a pancake that does not spring back,
// and every piece its thin sheet tears into stays flat too. (The scene is symmetric under
// quarter turns, but round-off in the summation order breaks the symmetry and the tearing
// amplifies it: how many pieces tear off, where and how large, is not a stable fact to
// assert. With a frame's substeps 5, 5, 3.3, 3.3 ms the largest piece held 696 of 1365
// particles and five lumps of 42–159 tore off; with four equal substeps of 4.17 ms, the same
// time, it holds 437 and seven of 102–155 tore off.)
func TestGooBallBouncesBackOrStaysFlat(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("two 0.9 s drops of 1365 particles (runs without -short and -race)")
	}
	const shapeTol = 0.10 // the elastic ball's aspect ratio returns within 10 %
	const squashMax = 0.6 // the impact squashes either ball below this aspect ratio
	const flatMax = 0.5   // the plastic goo's bounding box and every piece stay below this aspect ratio
	elastic := gooMaterial(0.1, 0.5)
	a0, sq, back, _ := dropBall(t, elastic)
	t.Logf("elastic (c = 0.1, w = 0): aspect %.2f, squashed %.2f, back to %.2f", a0, sq, back)
	if sq > squashMax {
		t.Fatalf("the impact squashed the ball only to aspect %.2f", sq)
	}
	if math.Abs(back/a0-1) > shapeTol {
		t.Errorf("elastic ball: aspect ratio %.2f after the bounce, %.2f before (bound ±%.0f %%)", back, a0, 100*shapeTol)
	}
	plastic := elastic
	plastic.Viscoelastic.W, plastic.Viscoelastic.Gamma, plastic.Viscoelastic.L = 2, 0.05, 0.005
	a0, sq, back, pieces := dropBall(t, plastic)
	total := 0
	for _, l := range pieces {
		total += l.n
	}
	pan := pieces[0]
	panAspect := (pan.hi[1] - pan.lo[1]) / (pan.hi[0] - pan.lo[0])
	t.Logf("plastic (w = 2/s, γ = 0.05, l = 0.005): aspect %.2f, squashed %.2f, at most %.2f after; %d pieces, the pancake %d of %d particles, %.3f m high, %.3f m wide (aspect %.2f)",
		a0, sq, back, len(pieces), pan.n, total, pan.hi[1]-pan.lo[1], pan.hi[0]-pan.lo[0], panAspect)
	if sq > squashMax || back > flatMax {
		t.Errorf("plastic ball: squashed to %.2f and back to %.2f, want it to stay below %.2f", sq, back, flatMax)
	}
	for i, l := range pieces {
		d := math.Hypot(l.c[0]-pan.c[0], l.c[2]-pan.c[2])
		wide := max(l.hi[0]-l.lo[0], l.hi[2]-l.lo[2])
		t.Logf("piece %d: %d particles, %.3f m from the largest's axis, %.3f m high, %.3f m wide", i, l.n, d, l.hi[1]-l.lo[1], wide)
		if a := (l.hi[1] - l.lo[1]) / wide; a > flatMax {
			t.Errorf("plastic ball: piece %d (%d particles) has aspect %.2f, want below %.2f: it sprang back", i, l.n, a, flatMax)
		}
	}
}

// TestGooMergesAndSplits: two goo balls pushed together connect across the contact and hold
// together as one lump (merging, Algorithm 1 lines 2-5); a soft ball thrown at a pillar tears
// into separate lumps as its connections stretch beyond β·h (splitting, lines 6-8).
func TestGooMergesAndSplits(t *testing.T) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := gooMaterial(0.02, 1)
	const r = 0.08
	if _, err := w.AddFluidSphere("left", m, mgl64.Vec3{-r - 0.01, 0, 0}, r, mgl64.Vec3{0.3, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddFluidSphere("right", m, mgl64.Vec3{r + 0.01, 0, 0}, r, mgl64.Vec3{-0.3, 0, 0}); err != nil {
		t.Fatal(err)
	}
	sim := w.Sim()
	cross := func() int {
		n := 0
		for i := 0; i < sim.Goo.Len(); i++ {
			js, _ := sim.Goo.Conn.Of(i)
			for _, j := range js {
				if j >= 0 && sim.BodyName(i) != sim.BodyName(int(j)) {
					n++
				}
			}
		}
		return n
	}
	if _, err := w.Step(frame); err != nil {
		t.Fatal(err)
	}
	before := cross()
	for k := 0; k < 30; k++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	after := cross()
	lumps := len(sim.Goo.Lumps(10))
	t.Logf("merging: %d connections across the contact after the first frame, %d after 0.5 s; %d lump(s)", before, after, lumps)
	if after == 0 || after <= before {
		t.Errorf("the touching balls gained no connections across the contact (%d → %d)", before, after)
	}
	if lumps != 1 {
		t.Errorf("the merged balls form %d lumps, want 1", lumps)
	}

	// Splitting: a soft ball (R = 0.12 m, 739 particles) thrown at 3 m/s at a pillar 10 cm
	// wide, without gravity (the paper's Fig. 4, bottom, splits into three lumps): the part
	// that hits the pillar stays in front of it, the parts beyond its sides tear off and fly
	// past on either side — three lumps, the two passing ones mirror images under z → −z (the
	// scene's symmetry), so equal in size within splitSymTol.
	s.DomainMin, s.DomainMax = mgl64.Vec3{-2, -2, -2}, mgl64.Vec3{4, 2, 2}
	w2, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	if _, err := w2.AddBoundaryBox("pillar", mgl64.Vec3{0.3, -0.4, -0.05}, mgl64.Vec3{0.4, 0.4, 0.05}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := w2.AddFluidSphere("ball", gooMaterial(0.005, 1), mgl64.Vec3{0, 0, 0}, 0.12, mgl64.Vec3{3, 0, 0}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 36; k++ {
		if _, err := w2.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	const splitSymTol = 0.02
	const pillarFront, pillarBack = 0.3, 0.4 // the pillar's faces (m, along x)
	ls := lumpsOf(w2.Sim(), 50)
	for _, l := range ls {
		t.Logf("splitting: lump of %d particles at %.3f, x from %.3f to %.3f m", l.n, l.c, l.lo[0], l.hi[0])
	}
	if len(ls) != 3 {
		t.Fatalf("the ball thrown at the pillar ends in %d lumps of at least 50 particles, want 3", len(ls))
	}
	var front []lump
	var past []lump
	for _, l := range ls {
		switch { // by centroid: the lump in front may wrap around the pillar's edges
		case l.c[0] < pillarFront:
			front = append(front, l)
		case l.c[0] > pillarBack:
			past = append(past, l)
		}
	}
	if len(front) != 1 || len(past) != 2 {
		t.Fatalf("%d lumps in front of the pillar and %d past it, want 1 and 2", len(front), len(past))
	}
	if past[0].c[2]*past[1].c[2] >= 0 || math.Abs(float64(past[0].n)/float64(past[1].n)-1) > splitSymTol {
		t.Errorf("the lumps past the pillar (%d particles at z = %.3f m, %d at z = %.3f m) are not mirror images (sizes within %.0f %%)",
			past[0].n, past[0].c[2], past[1].n, past[1].c[2], 100*splitSymTol)
	}
}

// gooScene is a small goo scene exercising every goo state: a ball (r = 1 cm) dropped with
// plasticity on an adhesive floor of a tank, a kinematic board coming down on it, and a domain
// that the ball's splash partly leaves.
func gooScene(t testing.TB, workers int) *sluice.World {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.DomainMin, s.DomainMax = mgl64.Vec3{-0.16, -0.1, -0.16}, mgl64.Vec3{0.16, 0.8, 0.16}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := w.AddBoundaryRect("floor", mgl64.Vec3{-0.3, 0, -0.3}, mgl64.Vec3{0.6, 0, 0}, mgl64.Vec3{0, 0, 0.6})
	if err != nil {
		t.Fatal(err)
	}
	w.Material(floor).Adhesion = 0.02
	board, err := w.AddBoundaryBox("board", mgl64.Vec3{-0.15, 0.5, -0.15}, mgl64.Vec3{0.15, 0.56, 0.15}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetMotion(board, components.Motion{Path: []components.MotionKey{{Until: 0.2}, {Until: 0.8, Velocity: mgl64.Vec3{0, -0.5, 0}}}}); err != nil {
		t.Fatal(err)
	}
	m := gooMaterial(0.03, 1)
	m.Viscoelastic.W, m.Viscoelastic.Gamma = 0.5, 0.2
	if _, err := w.AddFluidSphere("goo", m, mgl64.Vec3{0, 0.2, 0}, 0.1, mgl64.Vec3{0, -1, 0}); err != nil {
		t.Fatal(err)
	}
	return w
}

// checkConnections asserts the goo's connection invariants: every partner index in range,
// every fluid connection mirrored with the same rest length.
func checkConnections(t *testing.T, sim *systems.Sim) (fluidPairs, wall int) {
	t.Helper()
	g := &sim.Goo
	for i := 0; i < g.Len(); i++ {
		js, rs := g.Conn.Of(i)
		for q, j := range js {
			if j < 0 {
				if int(-j-1) >= sim.Bound.Len() {
					t.Fatalf("particle %d: wall partner %d out of range", i, -j-1)
				}
				wall++
				continue
			}
			if int(j) >= g.Len() {
				t.Fatalf("particle %d: partner %d out of range", i, j)
			}
			back, brs := g.Conn.Of(int(j))
			ok := false
			for p, k := range back {
				if int(k) == i && brs[p] == rs[q] {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("connection %d→%d has no mirror", i, j)
			}
			fluidPairs++
		}
	}
	return fluidPairs / 2, wall
}

// TestGooStateSurvivesSortRemovalAndSnapshots runs the goo scene through cell-order sorts,
// removals of particles that left the domain and a snapshot: the connections stay mirrored
// and in range, and save at step 30, restore, run to 60 gives the same state as 60 steps on
// one run, for one and two workers.
func TestGooStateSurvivesSortRemovalAndSnapshots(t *testing.T) {
	hashOf := func(w *sluice.World) [32]byte { return stateHash(w, entityOf(t, w, "goo")) }
	ref := gooScene(t, 2)
	defer ref.Close()
	removed, wallSeen, weakened := 0, 0, false
	for k := 0; k < 60; k++ {
		st, err := ref.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Removed {
			removed += r.Count
		}
		_, wall := checkConnections(t, ref.Sim())
		wallSeen = max(wallSeen, wall)
		for _, c := range ref.Sim().Goo.C {
			weakened = weakened || (c > 0 && c < 0.03)
		}
	}
	pairs, wall := checkConnections(t, ref.Sim())
	t.Logf("after 1 s: %d goo pairs, %d wall connections (at most %d), %d particles removed, plasticity active: %v", pairs, wall, wallSeen, removed, weakened)
	if wallSeen == 0 || !weakened || removed == 0 {
		t.Fatalf("the scene did not exercise adhesion (%d wall connections), plasticity (%v) or removal (%d)", wallSeen, weakened, removed)
	}
	want := hashOf(ref)
	w := gooScene(t, 2)
	for k := 0; k < 30; k++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, workers := range []int{1, 2} {
		r, err := sluice.Restore(bytes.NewReader(buf.Bytes()), workers)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 30; k++ {
			if _, err := r.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		if got := hashOf(r); got != want {
			t.Errorf("restored on %d workers: hash %x, uninterrupted %x", workers, got[:8], want[:8])
		}
		r.Close()
	}
}

// TestGooHotReload: editing a goo body's c between steps restarts its particles' c at the
// new value (plasticity had lowered it); other edits keep the weakened c.
func TestGooHotReload(t *testing.T) {
	w := gooScene(t, 1)
	defer w.Close()
	for k := 0; k < 20; k++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	g := &w.Sim().Goo
	weakened := func() int { // particles whose c plasticity lowered below the initial 0.03
		n := 0
		for _, c := range g.C {
			if c < 0.03 {
				n++
			}
		}
		return n
	}
	if weakened() == 0 {
		t.Fatal("no particle's c was weakened: the test needs plasticity")
	}
	e := entityOf(t, w, "goo")
	w.Material(e).Viscoelastic.Gamma = 0.3 // not c: weakened values stay
	if _, err := w.Step(frame); err != nil {
		t.Fatal(err)
	}
	if weakened() == 0 {
		t.Fatal("editing γ reset the weakened c")
	}
	w.Material(e).Viscoelastic.C, w.Material(e).Viscoelastic.W = 0.04, 0
	if _, err := w.Step(frame); err != nil {
		t.Fatal(err)
	}
	for i, c := range g.C {
		if g.Beta[i] != 0 && c != 0.04 {
			t.Fatalf("particle %d: c = %g after c was set to 0.04 (and w to 0)", i, c)
		}
	}
}
