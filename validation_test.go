package sluice_test

import (
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// angularMomentum returns L = Σ m (x − x_c) × v of a body's particles about their centre of
// mass (all particles of one body have the same mass, which cancels in the relative drift)
// and the kinetic energy per unit mass Σ |v|²/2.
func angularMomentum(p *components.Particles) (mgl64.Vec3, float64) {
	var c, l mgl64.Vec3
	for _, x := range p.X {
		c = c.Add(x)
	}
	c = c.Mul(1 / float64(p.Len()))
	ke := 0.0
	for i, x := range p.X {
		l = l.Add(x.Sub(c).Cross(p.V[i]))
		ke += 0.5 * p.V[i].Dot(p.V[i])
	}
	return l, ke
}

func TestRotatingDropKeepsAngularMomentum(t *testing.T) {
	// A free water ball in zero gravity, differentially rotating about z (Ω = ω(1 + ρ²/R²),
	// ρ the distance from the axis): the viscosity shears it towards rigid rotation and the
	// centrifugal force spreads it, but no external force or torque acts, so its angular
	// momentum L = Σ m x × v about the centre of mass must stay put. Every pair force of the
	// solver (pressure, viscosity) is central and equal and opposite, and semi-implicit Euler
	// keeps L exactly for such forces, so only round-off remains (the pair gradients are stored
	// in single precision). The issue asks for 1 % over 1 s; lTol is far tighter because the
	// viscosity with the neighbour's volume m_j/ρ_j alone (not symmetric where the densities
	// differ, at the surface) drifted by 0.5 % over 1 s at r = 5 mm.
	const lTol = 1e-6
	// The shear must actually have been worked on by the viscosity: the kinetic energy falls
	// by at least keDrop over the second (measured: see the log), while with ν = 0 it stays.
	const keDrop = 0.05
	if raceEnabled {
		t.Skip("rotating drop: 1 s of simulation, slow under the race detector (the short tests run the same passes)")
	}
	const radius, omega = 0.1, 2.0
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.Gravity = mgl64.Vec3{}
	// dtMax below the explicit viscous limit (~0.03 h_support²/ν = 4.8 ms here) so the
	// measurement does not depend on how the solver caps the viscous step.
	s.DtMax = 0.002
	s.DomainMin, s.DomainMax = mgl64.Vec3{-2, -2, -2}, mgl64.Vec3{2, 2, 2}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e, err := w.AddFluidSphere("drop", components.DefaultMaterial(), mgl64.Vec3{}, radius, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	for i, x := range p.X {
		om := omega * (1 + (x[0]*x[0]+x[1]*x[1])/(radius*radius))
		p.V[i] = mgl64.Vec3{-om * x[1], om * x[0], 0}
	}
	l0, ke0 := angularMomentum(p)
	n0 := p.Len()
	worst := 0.0
	var ke float64
	for i := 0; i < 60; i++ {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		if st.Particles != n0 {
			t.Fatalf("t=%.2f: %d particles, started with %d", st.T, st.Particles, n0)
		}
		var l mgl64.Vec3
		l, ke = angularMomentum(w.Particles(e))
		worst = max(worst, l.Sub(l0).Len()/l0.Len())
	}
	t.Logf("%d particles: |L| %.6g, worst drift |ΔL|/|L0| = %.3g over 1 s; kinetic energy %.4g → %.4g (−%.1f %%)", n0, l0.Len(), worst, ke0, ke, 100*(1-ke/ke0))
	if worst > lTol {
		t.Errorf("angular momentum drifted by %.3g of |L0|, want ≤ %g", worst, lTol)
	}
	if ke > (1-keDrop)*ke0 {
		t.Errorf("kinetic energy %.4g → %.4g: the viscosity did not act on the shear (want a drop ≥ %g)", ke0, ke, keDrop)
	}
}

// martinMoyce is the surge front of the collapsing water column of Martin & Moyce (1952), n² = 2
// (a column of base a and height 2a, a = 2¼ in), Table 2: the dimensionless time
// T = t·n·√(g/a) = t·√(2g/a) at which the front passed Z = z/a (z from the back wall; the
// stations are ¼ in apart, hence Z in ninths).
var martinMoyce = [][2]float64{
	{0.41, 1.11}, {0.84, 1.22}, {1.19, 1.44}, {1.43, 1.67}, {1.63, 1.89}, {1.83, 2.11}, {1.98, 2.33},
	{2.20, 2.56}, {2.32, 2.78}, {2.51, 3.00}, {2.65, 3.22}, {2.83, 3.44}, {2.98, 3.67},
}

func TestDamBreakFrontMatchesMartinMoyce(t *testing.T) {
	// The collapse of a water column of base a and height 2a in a thin slab (free-slip walls
	// on every side, physical water viscosity), front position against the experiment for
	// T ≤ 3, read two ways.
	//
	// The leading front (the layers-th largest x) leads the experiment: −1.2 % at T = 0.41,
	// +11.3 % at 0.84, +16.7 % at 1.19, +9.1 to +11.8 % for T ≥ 1.98. The lead is a sheet one
	// or two particles thick that shoots ahead of the surge: such a sheet is all surface
	// particles, short of neighbours, whose pressure is clamped at zero, so it moves
	// ballistically rather than as water driven by its depth. frontTol guards this state.
	//
	// The bulk front is where the water is at least bulkDepth = 0.2a deep: the farthest
	// particle of the farthest lattice column (particles binned by round(x/2r)) holding at
	// least 0.2a/2r particles per slab layer. Martin & Moyce read the surge front by eye; the
	// surge is water whose depth drives it, and a sheet one to three particles thick (up to
	// 0.15a here) is not: all its particles are surface particles, short of neighbours, their
	// pressure clamped at zero, so it flies ballistically. 0.2a is two support radii (2h) at
	// r = a/40, the thinnest layer in which a particle (the middle one) has its full
	// neighbourhood; it is set in units of a, not of h, so that it means the same water at
	// other resolutions. Measured: −3.4 % (T = 0.41) to +5.1 % (T = 1.19), within 4.4 %
	// elsewhere; bulkTol is the 10 %. Measured once, before the gravity step
	// condition (solver.gravityCFL) shortened the first substeps here from 2.7 to 1.35 ms
	// (the bulk front's worst was then +5.2 % at T = 1.83): the front where the water is
	// 0.1a or 0.15a deep leads by up to +14.6 % and +9.6 %; with the same definition and
	// set-up, no-slip walls (boundary viscosity ν_b = ν) −3.2 … +3.1 %; wallPressure
	// extrapolate −3.5 … +3.6 %; a slab twice as deep −3.3 … +4.5 %; dtMax = 0.5 ms −3.5 …
	// +4.4 %; with dtMax = 0.5 ms at r = a/60 −4.8 … +2.2 % and at r = a/80 −4.4 … +3.0 %:
	// the bulk front converges with resolution, the leading one does not approach the
	// experiment.
	//
	// At r = a/60 and a/80 the collapse used to blow up near T = 0.3 with the default dtMax
	// (TestDamBreakFineResolution, which guards it, gives the cause and the cure).
	if testing.Short() || raceEnabled {
		t.Skip("dam-break validation: long (skipped under -short and the race detector)")
	}
	martinMoyceCollapse(t, 40, 3)
}

// TestDamBreakFineResolution is the Martin & Moyce collapse of
// TestDamBreakFrontMatchesMartinMoyce at r = a/60 with the default solver settings. It used
// to blow up near T = 0.3: the fastest particle jumped from 0.8 to 7.6 √(ga) within one
// ΔT = 0.05 and the leading front ran up to +58 % ahead. The cause, from a per-substep log:
// from rest the CFL allows dtMax, and the test's frames (ΔT = 0.05, 2.7 ms) became single
// 2.7 ms substeps, in each of which gravity moves the water by g·Δt² = 3.8 % of the spacing
// 2r relative to the floor before the pressure answers. The floor and corner particles (at the
// tank's three-wall corners 6 fluid and 28 wall neighbours) came out of the first substeps
// up to 1.0 %, 2.9 %, 4.7 %, then 15-32 % compressed while every solve converged; the density
// the solve predicts is linear in the substep's motion (Ihmsen et al. 2014, Eq. 4 and 14) and
// missed it (with η tightened to 0.01 % the largest still measured 6.7-16.8 %); the pressure
// that pushed them out grew 1.2 g, 6.7 g, 19 g, 53 g, ... 10⁴ g, and particles shot off the
// corner. The gravity step condition solver.gravityCFL (Δt ≤ λ_g·√(2r/|g|), systems.Sim.NextDt;
// docs/how-it-computes.md) keeps that per-substep motion at λ_g² = 1 % of the spacing.
//
// maxSpeed bounds every frame's fastest particle: the shallow-water (Ritter) front of a dam of
// depth H = 2a runs at 2√(gH) = 2.83 √(ga), the fastest water of the collapse; 3 √(ga) leaves
// 6 % for the thin sheet SPH shoots ahead, and the blow-up (7.6) exceeds it.
func TestDamBreakFineResolution(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("dam-break validation at a/60: long (skipped under -short and the race detector)")
	}
	t.Parallel()
	martinMoyceCollapse(t, 60, 3)
}

// martinMoyceCollapse runs the collapse at r = a/n to T = 3 and checks the fronts against Martin & Moyce
// and the fastest particle against maxSpeed (see the two tests above).
func martinMoyceCollapse(t *testing.T, n, dims int) {
	const frontTol = 0.25
	const bulkTol = 0.10
	const bulkDepth = 0.2 // × a
	const maxSpeed = 3.0  // × √(ga)
	const a = 0.05715     // m, Martin & Moyce's 2¼ in column
	r := a / float64(n)   // n/2 particles across the column base
	sp := 2 * r
	layers := 8
	if dims == 2 {
		layers = 1 // a planar world is one layer: the experiment's 2D flow itself
	}
	depth := float64(layers) * sp // slab thickness: 8 particle layers
	s := components.DefaultSolver()
	s.ParticleRadius = r
	s.Dimensions = dims
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// The tank's samples lie on its faces and the first fluid particles one spacing inside, so
	// a block [0, a + sp] holds a/sp particles per row whose volumes span [r, a + r]: the
	// column is a wide and 2a high from the effective wall at x = r, and the front is at
	// x_max + r, i.e. Z = x_max/a.
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{6 * a, 2.5 * a, depth + sp}, true); err != nil {
		t.Fatal(err)
	}
	water := components.DefaultMaterial()
	water.Viscosity = 1e-6
	e, err := w.AddFluidBlock("water", water, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{a + sp, 2*a + sp, depth + sp}, water0)
	if err != nil {
		t.Fatal(err)
	}
	// The front is the layers-th largest x: as far as one particle per slab layer has come,
	// so a single particle skidding ahead of the toe does not decide it.
	var xs []float64
	front := func() float64 {
		xs = xs[:0]
		for _, x := range w.Particles(e).X {
			xs = append(xs, x[0])
		}
		slices.Sort(xs)
		return xs[len(xs)-layers] / a
	}
	var count []int
	bulk := func() float64 {
		p := w.Particles(e)
		count = count[:0]
		for _, x := range p.X {
			b := int(math.Round(x[0] / sp))
			for len(count) <= b {
				count = append(count, 0)
			}
			count[b]++
		}
		b := len(count) - 1
		for b > 0 && count[b] < int(math.Round(bulkDepth*a/sp))*layers {
			b--
		}
		z := 0.0
		for _, x := range p.X {
			if int(math.Round(x[0]/sp)) == b {
				z = max(z, x[0]/a)
			}
		}
		return z
	}
	if z, zb := front(), bulk(); math.Abs(z-1) > 1e-9 || math.Abs(zb-1) > 1e-9 {
		t.Fatalf("initial front Z = %.4f, bulk front %.4f, want 1", z, zb)
	}
	scale := math.Sqrt(2 * 9.81 / a) // T per second
	const dT = 0.05
	ts, zs, zbs := []float64{0}, []float64{1}, []float64{1}
	fastest := 0.0 // × √(ga)
	for ts[len(ts)-1] < 3 {
		st, err := w.Step(dT / scale)
		if err != nil {
			t.Fatal(err)
		}
		v := st.MaxSpeed / math.Sqrt(9.81*a)
		if v > maxSpeed {
			t.Errorf("T = %.2f: fastest particle %.2f √(ga), want ≤ %g", st.T*scale, v, maxSpeed)
		}
		fastest = max(fastest, v)
		ts, zs, zbs = append(ts, st.T*scale), append(zs, front()), append(zbs, bulk())
	}
	worst, worstBulk := 0.0, 0.0
	for _, d := range martinMoyce {
		k := 1
		for ts[k] < d[0] {
			k++
		}
		f := (d[0] - ts[k-1]) / (ts[k] - ts[k-1])
		z := zs[k-1] + f*(zs[k]-zs[k-1])
		zb := zbs[k-1] + f*(zbs[k]-zbs[k-1])
		rel, relBulk := z/d[1]-1, zb/d[1]-1
		worst, worstBulk = max(worst, math.Abs(rel)), max(worstBulk, math.Abs(relBulk))
		t.Logf("T = %.2f: leading front Z = %.3f (%+.1f %%), bulk front %.3f (%+.1f %%), experiment %.2f", d[0], z, 100*rel, zb, 100*relBulk, d[1])
		if math.Abs(rel) > frontTol {
			t.Errorf("T = %.2f: front Z = %.3f, experiment %.2f: off by %.1f %%, want ≤ %g %%", d[0], z, d[1], 100*rel, 100*frontTol)
		}
		if math.Abs(relBulk) > bulkTol {
			t.Errorf("T = %.2f: bulk front Z = %.3f, experiment %.2f: off by %.1f %%, want ≤ %g %%", d[0], zb, d[1], 100*relBulk, 100*bulkTol)
		}
	}
	t.Logf("%dD, r = a/%d, %d particles, worst deviation %.1f %% (leading front), %.1f %% (bulk front), fastest particle %.2f √(ga)", dims, n, w.Particles(e).Len(), 100*worst, 100*worstBulk, fastest)
}

// water0 is a fluid block's initial velocity: at rest.
var water0 = mgl64.Vec3{}

// swirlDecay runs the Stokes decay of a Gaussian swirl in a free water ball at support radius
// h = σ/q and returns the worst relative deviation of E(t)/E(0) from the closed form over
// 0 < t ≤ tEnd (see TestViscousSwirlDecay).
func swirlDecay(t *testing.T, q float64) float64 {
	const sigma, nu, om0 = 0.05, 0.01, 0.2
	s := components.DefaultSolver()
	s.ParticleRadius = sigma / q / 4
	s.Gravity = mgl64.Vec3{}
	// A fixed substep of σ²/(800ν), below the explicit viscous limit at every q used and
	// short against the decay (the energy falls by ~1 % per substep), for all resolutions.
	s.DtMax = sigma * sigma / (800 * nu)
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mat := components.DefaultMaterial()
	mat.Viscosity = nu
	// The ball's radius, 3.5σ, is where the swirl has decayed to e^{−12} of its peak; the
	// free surface still shows in the decay (measured at σ/h = 2: +6.4, +5.4, +5.2, +5.1 %
	// for radii 3, 3.5, 4, 5σ), converging as the ball grows.
	e, err := w.AddFluidSphere("ball", mat, mgl64.Vec3{}, 3.5*sigma, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	for i, x := range p.X {
		om := om0 * math.Exp(-x.Dot(x)/(sigma*sigma))
		p.V[i] = mgl64.Vec3{-om * x[1], om * x[0], 0}
	}
	energy := func() float64 {
		k := 0.0
		for _, v := range w.Particles(e).V {
			k += v.Dot(v)
		}
		return k
	}
	e0 := energy()
	tEnd := 0.5 * sigma * sigma / (4 * nu)
	const frames = 10
	worst := 0.0
	for i := 1; i <= frames; i++ {
		st, err := w.Step(tEnd / frames)
		if err != nil {
			t.Fatal(err)
		}
		want := math.Pow(1+4*nu*st.T/(sigma*sigma), -2.5)
		got := energy() / e0
		worst = max(worst, math.Abs(got/want-1))
		if i == frames {
			t.Logf("σ/h = %g, %d particles: E/E0 = %.4f at t = %.4f s, closed form %.4f (%+.2f %%); worst %.2f %%", q, p.Len(), got, st.T, want, 100*(got/want-1), 100*worst)
		}
	}
	return worst
}

func TestViscousSwirlDecay(t *testing.T) {
	// The viscosity against a closed form, away from any wall or free-surface effect: a
	// Gaussian swirl u = ∇f × ẑ with f = A e^{−r²/σ²} (r the distance from the ball's
	// centre) inside a ball of water in zero gravity. u is divergence free, and since
	// ∇²(∇f × ẑ) = ∇(∇²f) × ẑ, f solving the heat equation makes u solve the unsteady Stokes
	// equations: f = A (σ/s)³ e^{−r²/s²}, s² = σ² + 4νt, whose kinetic energy is
	// E(t)/E(0) = (1 + 4νt/σ²)^{−5/2}. The inertial term is O(Re) = O(Ω0 σ²/ν) = 0.05 and
	// enters the energy at O(Re²). The swirl is followed until 4νt/σ² = 1/2 (E/E0 = 0.36).
	//
	// swirlTol is the 5 %, met at σ/h = 3 (measured 4.5 %); a viscosity 10 % lower or
	// 20 % higher misses it (E/E0 at the end moves by +9 % or −15 %). The deviations fall with resolution
	// (measured 6.6 %, 5.4 %, 4.5 % at σ/h = 1.5, 2, 3; a fit c0 + c(h/σ)² gives c0 ≈ 3.9 %):
	// the part that does not vanish scales with h like the kernel sums at the fixed neighbour
	// count (h = 4r) and the 0.01h² regularisation of the viscosity, plus the finite ball
	// (below). The simulated swirl decays too slowly: the effective ν is ~5 % low.
	const swirlTol = 0.05
	if testing.Short() || raceEnabled {
		t.Skip("viscous swirl validation: long (skipped under -short and the race detector)")
	}
	prev := math.Inf(1)
	for _, q := range []float64{1.5, 2, 3} {
		worst := swirlDecay(t, q)
		if worst >= prev {
			t.Errorf("σ/h = %g: deviation %.2f %% did not fall below %.2f %% of the coarser run", q, 100*worst, 100*prev)
		}
		prev = worst
	}
	if prev > swirlTol {
		t.Errorf("finest run: E(t)/E(0) deviates by %.2f %% from the closed form, want ≤ %g %%", 100*prev, 100*swirlTol)
	}
}
