package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// rotatedPoiseuille runs the Poiseuille channel of TestImplicitPoiseuilleFlow with its plates
// and gravity turned about z by theta (the channel's axis e = (cos θ, sin θ, 0), its normal
// n = (−sin θ, cos θ, 0)) while the fluid stays sampled on the world's axis-aligned lattice
// of AddFluidBlock: every point (i, j, k)·2r with 0 < x' < L, 0 < z < L and at least half a
// spacing from the plates, r ≤ y' ≤ H − r, is a particle. At θ = 0 these are exactly the
// block of TestImplicitPoiseuilleFlow (11 layers 2r to H − 2r); turned, the layers are cut
// obliquely and the same amount of fluid lies between the plates. nuB is the plates' drag
// viscosity. It returns, for the central column (|x' − x̄'|, |z − L/2| ≤ 2
// support radii), the particles' distance y' from the floor and their speed along e.
func rotatedPoiseuille(t *testing.T, mode string, theta, nuB, dtMax, tEnd float64) (y, u []float64, substeps int, st sluice.StepStats) {
	c, s := math.Cos(theta), math.Sin(theta)
	ex, ny, ez := mgl64.Vec3{c, s, 0}, mgl64.Vec3{-s, c, 0}, mgl64.Vec3{0, 0, 1}
	at := func(xp, yp, z float64) mgl64.Vec3 { return ex.Mul(xp).Add(ny.Mul(yp)).Add(ez.Mul(z)) }
	sol := components.DefaultSolver()
	sol.ParticleRadius = pfR
	sol.Gravity = ex.Mul(pfG)
	sol.ViscositySolver = mode
	sol.ViscosityMaxError = 1e-4
	sol.DtMax = dtMax
	sol.DomainMin, sol.DomainMax = mgl64.Vec3{-0.6, -0.4, -0.5}, mgl64.Vec3{1, 0.6, 0.8}
	w, err := sluice.NewWorld(sol, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	floor, err := w.AddBoundaryRect("floor", at(-0.1, 0, -0.1), ez.Mul(pfL+0.2), ex.Mul(pfL+0.3))
	if err != nil {
		t.Fatal(err)
	}
	ceil, err := w.AddBoundaryRect("ceiling", at(-0.1, pfGap, -0.1), ex.Mul(pfL+0.3), ez.Mul(pfL+0.2))
	if err != nil {
		t.Fatal(err)
	}
	w.Material(floor).Drag, w.Material(ceil).Drag = nuB, nuB
	sp := 2 * pfR
	const eps = 1e-9 // keeps the lattice points on the bounds at θ = 0 in or out as intended
	var x []mgl64.Vec3
	for i := -40; i < 40; i++ {
		for j := -40; j < 40; j++ {
			for k := 1; k < int(math.Round(pfL/sp)); k++ {
				p := mgl64.Vec3{float64(i) * sp, float64(j) * sp, float64(k) * sp}
				xp, yp := p.Dot(ex), p.Dot(ny)
				if yp >= pfR-eps && yp <= pfGap-pfR+eps && xp > eps && xp < pfL-eps {
					x = append(x, p)
				}
			}
		}
	}
	m := components.DefaultMaterial()
	m.Viscosity = pfNu
	e, err := w.AddFluidParticles("oil", m, x, make([]mgl64.Vec3, len(x)))
	if err != nil {
		t.Fatal(err)
	}
	for w.Time() < tEnd-1e-9 {
		if st, err = w.Step(frame); err != nil {
			t.Fatal(err)
		}
		substeps += st.Substeps
	}
	p := w.Particles(e)
	cx := 0.0
	for _, q := range p.X {
		cx += q.Dot(ex)
	}
	cx /= float64(p.Len())
	for i, q := range p.X {
		if math.Abs(q.Dot(ex)-cx) > 0.02 || math.Abs(q[2]-pfL/2) > 0.02 {
			continue
		}
		y = append(y, q.Dot(ny))
		u = append(u, p.V[i].Dot(ex))
	}
	return y, u, substeps, st
}

// rotatedSlipTol bounds the wall slip (the constant A of the fit u = A + B y'(H − y')) in the
// channel turned by 20° with ν_b = ν, as a fraction of the closed form's peak speed: the
// plates' drag then acts as the no-slip wall the closed form assumes. Halving ν_b gives a slip
// of about a third of u_max (logged).
const rotatedSlipTol = 0.03

// rotatedBulkTol bounds the relative change of the fit's curvature B when the plates' drag is
// halved: B is the interior's response to the drive (B = g/(2ν_eff)) and does not depend on
// the walls; the tolerance allows for the sampling noise of the 6 × 4 × 4-spacing column
// (about 130 particles, each with its own y').
const rotatedBulkTol = 0.03

// poiseuilleFit fits u = A + B y'(H − y') by least squares and returns A, B and the largest
// difference of a height bin's mean speed from the closed form's mean over the same particles,
// as a fraction of u_max; it logs the bins.
func poiseuilleFit(t *testing.T, y, u []float64) (a, b, worst float64) {
	umax := pfG * pfGap * pfGap / (8 * pfNu)
	var sum, want [pfBin]float64
	var cnt [pfBin]int
	var s1, ss, su, sss, ssu float64
	for i := range y {
		k := min(max(int(y[i]/pfGap*pfBin), 0), pfBin-1)
		q := y[i] * (pfGap - y[i])
		sum[k] += u[i]
		want[k] += pfG * q / (2 * pfNu)
		cnt[k]++
		s1++
		ss += q
		su += u[i]
		sss += q * q
		ssu += q * u[i]
	}
	b = (s1*ssu - ss*su) / (s1*sss - ss*ss)
	a = (su - b*ss) / s1
	for k := range sum {
		if cnt[k] == 0 {
			t.Fatalf("no particle in height bin %d", k)
		}
		sum[k] /= float64(cnt[k])
		want[k] /= float64(cnt[k])
		worst = max(worst, math.Abs(sum[k]-want[k])/umax)
		t.Logf("  y' bin %d (%d particles): %.4f m/s, closed form %.4f (%+.1f %% of u_max)", k, cnt[k], sum[k], want[k], 100*(sum[k]-want[k])/umax)
	}
	return a, b, worst
}

// TestPoiseuilleRotatedChannel: the Poiseuille channel of TestImplicitPoiseuilleFlow with its
// plates and gravity turned about z by θ while the fluid stays on the world's lattice, run
// with the implicit viscosity at over 100 times the explicit limit. On the cubic lattice at a
// support of two spacings Monaghan's Laplacian (the 2(d+2) form Weiler et al. 2018 use;
// docs/viscosity.md) responds to a plane shear with 0.70 + 1.47·Q of ν, Q = sin²(2θ)/2 here
// (physics.TestViscosityShearResponseOnTheLattice); θ = 20° (Q = 0.21) is where that response
// is 1. The test fits u = A + B y'(H − y') to the central column: A is the plates' slip, B
// the interior's curvature, ν_eff = g/(2B). It asserts that
//   - at θ = 20° with ν_b = ν the slip is within rotatedSlipTol of u_max (the plates act as
//     no-slip walls), and halving ν_b leaves B within rotatedBulkTol (the excess over the
//     closed form is the interior's, not the plates');
//   - ν_eff/ν grows with Q (θ = 0°, 20°, 45°), as the lattice's fourth moment predicts.
//
// The closed form within 5 % (issue 17) is not met: the profiles are logged, and so is the
// explicit viscosity's run of the 20° channel at its stable step, which differs from the
// implicit run (dtMax 5 ms; 2.78 ms substeps) — in the aligned channel the two agree
// (TestImplicitPoiseuilleFlow).
func TestPoiseuilleRotatedChannel(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("rotated Poiseuille channel: long (skipped under -short and the race detector)")
	}
	t.Parallel()
	kr := physics.NewKernel(physics.CubicSpline, 4*pfR)
	lim := kr.ViscousDtLimit(2*pfR, components.DefaultSolver().BoundaryLayers, pfNu, pfNu)
	umax := pfG * pfGap * pfGap / (8 * pfNu)
	const dt, tEnd = 0.005, 3 * frame
	type run struct {
		theta, nuB float64
		mode       string
	}
	runs := []run{{0, pfNu, "implicit"}, {20, pfNu, "implicit"}, {45, pfNu, "implicit"}, {20, pfNu / 2, "implicit"}, {20, pfNu, "explicit"}}
	var a, b [5]float64
	for i, r := range runs {
		t.Logf("θ = %g°, ν_b = %g m²/s, %s:", r.theta, r.nuB, r.mode)
		y, u, n, st := rotatedPoiseuille(t, r.mode, r.theta*math.Pi/180, r.nuB, dt, tEnd)
		if r.mode == "implicit" && st.Dt/lim < 100 {
			t.Fatalf("θ = %g°: the substep %.3g s is %.0f× the explicit limit, want ≥ 100", r.theta, st.Dt, st.Dt/lim)
		}
		var worst float64
		a[i], b[i], worst = poiseuilleFit(t, y, u)
		q := math.Pow(math.Sin(2*r.theta*math.Pi/180), 2) / 2
		t.Logf("  Q = %.3f: %d substeps (last %.3g s, %.0f× the explicit limit), %.1f CG iterations; worst bin %.1f %% of u_max; slip A = %+.1f %% of u_max, B = %.3f 1/(m s) (ν_eff/ν = g/(2νB) = %.3f)",
			q, n, st.Dt, st.Dt/lim, st.ViscosityIterations, 100*worst, 100*a[i]/umax, b[i], pfG/(2*pfNu)/b[i])
	}
	if math.Abs(a[1]) > rotatedSlipTol*umax {
		t.Errorf("θ = 20°, ν_b = ν: slip %.1f %% of u_max, want within %g %%", 100*a[1]/umax, 100*rotatedSlipTol)
	}
	if d := math.Abs(b[3]-b[1]) / b[1]; d > rotatedBulkTol {
		t.Errorf("θ = 20°: halving ν_b changed the interior's curvature by %.1f %%, want ≤ %g %%", 100*d, 100*rotatedBulkTol)
	}
	if !(b[0] > b[1] && b[1] > b[2]) {
		t.Errorf("ν_eff/ν = %.3f, %.3f, %.3f at θ = 0°, 20°, 45°: want growing with Q", pfG/(2*pfNu)/b[0], pfG/(2*pfNu)/b[1], pfG/(2*pfNu)/b[2])
	}
}
