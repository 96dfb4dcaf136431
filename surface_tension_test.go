package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/surface"
)

// wadell returns Wadell's sphericity π^{1/3}(6V)^{2/3}/A of the fluid's surface as
// physics/surface extracts it (the colour field's ½ level set, cell r/2): 1 for a ball, 0.806
// for a cube; the particles' kernel rounds a block's edges, so a sampled cube reads about 0.85.
func wadell(t testing.TB, w *sluice.World, x []mgl64.Vec3) float64 {
	s := w.Sim()
	m, err := surface.Extract(x, s.Volume0, &s.Kernel, w.Settings().ParticleRadius/2)
	if err != nil {
		t.Fatal(err)
	}
	a := 0.0
	for _, tr := range m.Tris {
		p, q, r := m.V[tr[0]], m.V[tr[1]], m.V[tr[2]]
		a += q.Sub(p).Cross(r.Sub(p)).Len() / 2
	}
	return math.Cbrt(math.Pi) * math.Pow(6*m.Volume(), 2.0/3) / a
}

// Zero-gravity water: a cube of 11³ particles (r = 5 mm) with γ = 1.
const (
	stR     = 0.005
	stEdge  = 0.11
	stGamma = 1.0
)

// sphereTol is the sphericity a zero-gravity cube must reach: Wadell's sphericity
// ≥ 0.95 of its surface. The sampled cube reads 0.867, and still does after 0.5 s without
// the force (the test logs both), so the bound tells the two shapes apart.
const sphereTol = 0.95

// zeroGravityCube returns a world with the cube of water at rest in zero gravity.
func zeroGravityCube(t *testing.T, gamma float64, workers int) (*sluice.World, sluice.Entity) {
	s := components.DefaultSolver()
	s.ParticleRadius = stR
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	m := components.DefaultMaterial()
	m.SurfaceTension = gamma
	e, err := w.AddFluidBlock("cube", m, mgl64.Vec3{}, mgl64.Vec3{stEdge, stEdge, stEdge}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// TestCubeBecomesSphere: a cube of water in zero gravity becomes a ball under surface
// tension within 0.5 s (Wadell's sphericity ≥ sphereTol), and without it stays a cube.
func TestCubeBecomesSphere(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("long validation (1.5 s of CPU)")
	}
	t.Parallel()
	for _, gamma := range []float64{stGamma, 0} {
		w, e := zeroGravityCube(t, gamma, 1)
		start := wadell(t, w, w.Particles(e).X)
		for w.Time() < 0.5-1e-9 {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		got := wadell(t, w, w.Particles(e).X)
		w.Close()
		t.Logf("γ = %g: Wadell sphericity %.4f at t = 0, %.4f at t = 0.5 s", gamma, start, got)
		if gamma > 0 && got < sphereTol {
			t.Errorf("γ = %g: sphericity %.4f after 0.5 s, want ≥ %g", gamma, got, sphereTol)
		}
		if gamma == 0 && got >= sphereTol {
			t.Errorf("without surface tension the cube reads sphericity %.4f ≥ %g: the measure does not tell a cube from a ball", got, sphereTol)
		}
	}
}

// TestSurfaceTensionDeterministic: a world with surface tension steps bit-identically with
// 1, 2 and 5 workers (the cube's 1331 particles span 6 blocks).
func TestSurfaceTensionDeterministic(t *testing.T) {
	var ref []mgl64.Vec3
	for _, workers := range []int{1, 2, 5} {
		w, e := zeroGravityCube(t, stGamma, workers)
		for k := 0; k < 3; k++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		x := append([]mgl64.Vec3(nil), w.Particles(e).X...)
		w.Close()
		if ref == nil {
			ref = x
			if ref[0] == (mgl64.Vec3{stR, stR, stR}) {
				t.Fatal("the corner particle did not move: the test does not exercise the surface tension")
			}
			continue
		}
		for i := range ref {
			if x[i] != ref[i] {
				t.Fatalf("%d workers: particle %d at %v, 1 worker %v", workers, i, x[i], ref[i])
			}
		}
	}
}

// dropQuad returns ⟨z²⟩ − ½⟨x² + y²⟩ about the centroid (m²): 0 for a ball, > 0 for a drop
// stretched along z, < 0 for one flattened.
func dropQuad(x []mgl64.Vec3) float64 {
	var c mgl64.Vec3
	for _, p := range x {
		c = c.Add(p)
	}
	c = c.Mul(1 / float64(len(x)))
	s := 0.0
	for _, p := range x {
		d := p.Sub(c)
		s += d[2]*d[2] - 0.5*(d[0]*d[0]+d[1]*d[1])
	}
	return s / float64(len(x))
}

// overshootFrac is how far past the ball (q = 0) a drop must swing, as a fraction of its
// deepest flattening, to count as oscillating: well above the shape noise of a few hundred
// surface particles, well below the swings measured (docs/surface_tension.md).
const overshootFrac = 0.1

// overshoot returns the largest q after q's minimum as a fraction of |q_min|: the kick
// flattens the drop (q < 0); an oscillating drop turns, passes through the ball and swings on
// into the stretched shape (q > 0), a drop that only relaxes does not.
func overshoot(qs []float64) float64 {
	k0 := 0
	for k, q := range qs {
		if q < qs[k0] {
			k0 = k
		}
	}
	m := math.Inf(-1)
	for _, q := range qs[k0:] {
		m = max(m, q)
	}
	return m / math.Abs(qs[k0])
}

// dropRelax (s): how long kickedDrop lets a drop find its rest shape before the kick, its
// velocities zeroed every half frame. A ball cut from the particle lattice is not at rest
// under surface tension: its particles rearrange for a few tenths of a second, with motions of
// the kick's size, and a kick given at once rides on them (the fitted period then depended on
// the kick: 0.60 s and 1.00 s for kicks of 0.3 and 0.15 1/s, docs/surface_tension.md).
const dropRelax = 0.5

// kickedDrop returns the times and shapes q = ⟨z²⟩ − ½⟨x² + y²⟩ of a ball of water of
// sampling radius rad (r = 5 mm, ν = 0.001 m²/s, zero gravity), relaxed for dropRelax and then
// kicked into its l = 2 mode with the divergence-free velocity c·(x, y, −2z) about its centroid,
// sampled every 1/120 s for tEnd after the kick, and the drop's radius from its volume.
func kickedDrop(t *testing.T, rad, gamma, c, tEnd float64) (ts, qs []float64, radius float64) {
	const nu = 0.001
	s := components.DefaultSolver()
	s.ParticleRadius = stR
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m := components.DefaultMaterial()
	m.SurfaceTension, m.Viscosity = gamma, nu
	e, err := w.AddFluidSphere("drop", m, mgl64.Vec3{}, rad, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	for w.Time() < dropRelax-1e-9 {
		if _, err := w.Step(frame / 2); err != nil {
			t.Fatal(err)
		}
		clear(w.Particles(e).V)
	}
	p := w.Particles(e)
	var cen mgl64.Vec3
	for _, x := range p.X {
		cen = cen.Add(x)
	}
	cen = cen.Mul(1 / float64(p.Len()))
	for i, x := range p.X {
		d := x.Sub(cen)
		p.V[i] = mgl64.Vec3{c * d[0], c * d[1], -2 * c * d[2]}
	}
	for w.Time() < dropRelax+tEnd-1e-9 {
		if _, err := w.Step(frame / 2); err != nil {
			t.Fatal(err)
		}
		ts, qs = append(ts, w.Time()-dropRelax), append(qs, dropQuad(w.Particles(e).X))
	}
	vol := float64(p.Len()) * w.Sim().Volume0
	return ts, qs, math.Cbrt(3 * vol / (4 * math.Pi))
}

// rayleighTol: the 15 % between a drop's measured l = 2 period and Rayleigh's
// formula. Measured: −3.9 % and +3.9 % for the smaller and the larger drop, −11.5 % for the
// half kick (docs/surface_tension.md).
const rayleighTol = 0.15

// TestDropletRayleigh kicks relaxed drops (sampling radii 7, 9 and 11 cm, γ = 1) into their
// l = 2 mode and fits each one's shape q(t) over 1.5 s with a damped oscillation a + bt +
// e^{−λt}(c cos ωt + d sin ωt), natural frequency ω0² = ω² + λ². Rayleigh's formula ω0² =
// l(l − 1)(l + 2)σ/(ρR³) = 8σ/(ρR³) needs σ, which the model does not take as an input (γ is
// not σ): σ is read from the 9 cm drop, and the formula with it must give the periods of the
// 7 and 11 cm drops — its R^{3/2} law over a factor 1.6 in radius — and of the 9 cm drop kicked
// half as hard (a linear oscillator's period does not depend on the amplitude), each within
// rayleighTol. The 9 cm drop must swing past the ball by more than overshootFrac of its
// flattening, and the same drop without surface tension must not.
func TestDropletRayleigh(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("long validation (60 s of CPU)")
	}
	t.Parallel()
	const rho, tEnd, kick = 1000.0, 1.5, 1.2
	var sigma float64
	for k, run := range []struct{ rad, c float64 }{{0.09, kick}, {0.07, kick}, {0.11, kick}, {0.09, kick / 2}} {
		ts, qs, radius := kickedDrop(t, run.rad, stGamma, run.c, tEnd)
		om, lam, rel := fitDampedOscillation(ts, qs, 3, 60, 20)
		w0 := math.Sqrt(om*om + lam*lam)
		period := 2 * math.Pi / w0
		t.Logf("R = %.4f m, kick %g 1/s: ω = %.3f rad/s, λ = %.3f 1/s (viscous theory 5ν/R² = %.3f), natural period %.4f s, fit residual %.3f, overshoot %.3f", radius, run.c, om, lam, 5*0.001/(radius*radius), period, rel, overshoot(qs))
		if k == 0 {
			if o := overshoot(qs); o <= overshootFrac {
				t.Errorf("R = %.4f m, kick %g 1/s: the drop swings past the ball by %.3g of its flattening, want > %g: it does not oscillate", radius, run.c, o, overshootFrac)
			}
			sigma = w0 * w0 * rho * radius * radius * radius / 8
			t.Logf("σ = ω0²ρR³/8 = %.4g N/m (γ = %g, r = %g m)", sigma, stGamma, stR)
			continue
		}
		want := 2 * math.Pi / math.Sqrt(8*sigma/(rho*radius*radius*radius))
		t.Logf("Rayleigh's period with that σ: %.4f s, measured %.4f s (%+.1f %%)", want, period, 100*(period-want)/want)
		if math.Abs(period-want) > rayleighTol*want {
			t.Errorf("R = %.4f m, kick %g 1/s: period %.4f s, Rayleigh's formula %.4f s (± %g %%)", radius, run.c, period, want, 100*rayleighTol)
		}
	}
	_, qs, _ := kickedDrop(t, 0.09, 0, kick, 0.6)
	t.Logf("without surface tension: overshoot %.3g", overshoot(qs))
	if o := overshoot(qs); o > overshootFrac {
		t.Errorf("without surface tension the drop swings past the ball by %.3g of its flattening: something else pulls it round", o)
	}
}

// stableDensityErr bounds the step's measured density error (the compression of the positions
// the substeps produced, StepStats.DensityErrorMeasuredAvg) of a stable run: ten times the
// pressure solve's η = 0.1 %. Unstable explicit forces shake particles into each other faster
// than the solve can correct; with the step limit left out this run read 3.9 % (and a speed of
// 4.8 m/s against 1.4 m/s with it).
const stableDensityErr = 0.01

// TestStrongSurfaceTensionIsStable: γ = 100, a hundred times the cube test's, at the default
// step settings. The substep is held below the force condition (tension.StepLimit), so the
// cube stays a coherent fluid: its measured density error stays below stableDensityErr.
func TestStrongSurfaceTensionIsStable(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("long validation (5 s of CPU)")
	}
	t.Parallel()
	w, _ := zeroGravityCube(t, 100, 1)
	defer w.Close()
	worst, vmax, subs := 0.0, 0.0, 0
	for w.Time() < 0.25-1e-9 {
		st, err := w.Step(frame)
		if err != nil {
			t.Fatal(err)
		}
		worst, vmax, subs = max(worst, st.DensityErrorMeasuredAvg), max(vmax, st.MaxSpeed), max(subs, st.Substeps)
	}
	t.Logf("γ = 100: largest measured density error of a frame %.4g %%, largest speed %.3g m/s, shortest mean substep of a frame %.3g ms", 100*worst, vmax, 1000*frame/float64(subs))
	if worst > stableDensityErr {
		t.Errorf("measured density error %.3g %% > %g %%: the explicit surface tension is unstable at this step", 100*worst, 100*stableDensityErr)
	}
}

// TestSurfaceTensionRestoreContinues: a world with surface tension saved after 3 frames and
// restored (on 2 and 1 workers) continues bit-identically to the uninterrupted run: the force
// keeps no state between substeps and its step limit depends on the materials alone.
func TestSurfaceTensionRestoreContinues(t *testing.T) {
	if raceEnabled {
		t.Skip("6 frames of 1331 particles, several times")
	}
	w, e := zeroGravityCube(t, 10, 1) // γ = 10: the step limit binds (CFL and viscosity allow more)
	for k := 0; k < 6; k++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	want := stateHash(w, e)
	w.Close()
	w, _ = zeroGravityCube(t, 10, 1)
	for k := 0; k < 3; k++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	checkRestoreContinues(t, w, 3, "cube", want)
}
