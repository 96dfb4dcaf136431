package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// couetteTol bounds the steady plane Couette profile's departure from the closed form
// u(y) = U y/H, as a fraction of the plate speed U: the 5 %.
const couetteTol = 0.05

// couette runs the wide channel (wideChannelWorld) without gravity, its ceiling sliding along
// x at speed u over a floor at rest, with plate drag nuB, from the given particles (nil: the
// lattice) for 50 ms, and returns the mean x-velocity of the central column in pfBin height
// bins and the run's substeps.
func couette(t *testing.T, x []mgl64.Vec3, u, nuB float64) ([pfBin]float64, int) {
	w, e, _ := wideChannelWorld(t, x, pfNu, 0, u, nuB)
	defer w.Close()
	substeps, _ := runChannel(t, w)
	ys, us := centralColumn(w, e)
	var sum [pfBin]float64
	var cnt [pfBin]int
	for k, y := range ys {
		b := min(int(y/pfGap*pfBin), pfBin-1)
		sum[b] += us[k]
		cnt[b]++
	}
	for b := range sum {
		if cnt[b] == 0 {
			t.Fatalf("no particle in height bin %d", b)
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
		prof, n := couette(t, pk.x, u, pfNu)
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
