package flip

import (
	"math"
	"slices"
	"testing"
)

// martinMoyce is the surge front of Martin & Moyce (1952), square column n² = 2 (base a,
// height 2a), Table 2: dimensionless time T = t·√(2g/a) at which the front passed
// Z = x/a (as in the root package's SPH validation).
var martinMoyce = [][2]float64{
	{0.41, 1.11}, {0.84, 1.22}, {1.19, 1.44}, {1.43, 1.67}, {1.63, 1.89}, {1.83, 2.11}, {1.98, 2.33},
	{2.20, 2.56}, {2.32, 2.78}, {2.51, 3.00}, {2.65, 3.22}, {2.83, 3.44}, {2.98, 3.67},
}

// bulkDepth (× a) is the depth from which a column counts as the surge's bulk: 0.2a, as in the
// root package's SPH validation (its comment gives the reason: the experiment's surge is water
// whose depth drives it, and a sheet a few particles thick ahead of it flies ballistically).
const bulkDepth = 0.2

// damBreak runs the collapse of a column of base a and height 2a at cellsPerA cells across a
// in a slab 4 cells thick, and returns (T, Z) samples of the leading front (zs) and of the bulk
// front (zbs): the farthest x of the particles in the farthest column of width sp (the seeding
// spacing) where the liquid is at least bulkDepth·a deep, its depth being the column's
// particle volume over its footprint.
func damBreak(t *testing.T, unilateral bool, cellsPerA int) (ts, zs, zbs []float64) {
	const a = 0.05715
	p := DefaultParams()
	h := a / float64(cellsPerA)
	p.CellSize = h
	p.Dims = [3]int{int(4.2 * float64(cellsPerA)), int(2.25 * float64(cellsPerA)), 4}
	p.Unilateral = unilateral
	s := newTestSim(t, p, nil, 2)
	if _, err := s.AddBlock(Vec3{}, Vec3{a, 2 * a, 4 * h}, Vec3{}); err != nil {
		t.Fatal(err)
	}
	k := p.ParticlesPerAxis * p.ParticlesPerAxis * 4 // one particle layer across the slab
	xs := make([]float64, len(s.X))
	front := func() float64 {
		for i, x := range s.X {
			xs[i] = x[0]
		}
		slices.Sort(xs)
		return xs[len(xs)-k]
	}
	sp := h / float64(p.ParticlesPerAxis)
	var count []int
	bulk := func() float64 {
		count = count[:0]
		for _, x := range s.X {
			b := int(x[0] / sp)
			for len(count) <= b {
				count = append(count, 0)
			}
			count[b]++
		}
		// depth of column b: count·(sp³) / (sp · 4h)
		need := int(math.Ceil(bulkDepth * a * 4 * h / (sp * sp)))
		b := len(count) - 1
		for b > 0 && count[b] < need {
			b--
		}
		z := 0.0
		for _, x := range s.X {
			if int(x[0]/sp) == b {
				z = max(z, x[0]/a)
			}
		}
		return z
	}
	tscale := math.Sqrt(2 * 9.81 / a)
	frame := 0.05 / tscale
	for s.Time()*tscale < 3.05 {
		if _, err := s.Advance(frame); err != nil {
			t.Fatal(err)
		}
		ts = append(ts, s.Time()*tscale)
		zs = append(zs, front()/a)
		zbs = append(zbs, bulk())
	}
	return ts, zs, zbs
}

// compareMM interpolates the simulated front at the experiment's times and returns the
// relative deviations.
func compareMM(ts, zs []float64) []float64 {
	var out []float64
	for _, d := range martinMoyce {
		k := 1
		for k < len(ts)-1 && ts[k] < d[0] {
			k++
		}
		f := (d[0] - ts[k-1]) / (ts[k] - ts[k-1])
		z := zs[k-1] + f*(zs[k]-zs[k-1])
		out = append(out, z/d[1]-1)
	}
	return out
}

func TestDamBreakFrontMatchesMartinMoyce(t *testing.T) {
	// The collapse of a water column of base a and height 2a (16 cells across a, 8 particles
	// per cell, a slab 4 cells thick with walls on every side, unilateral solve) against the
	// experiment for T ≤ 3, read two ways, as the root package's SPH validation reads it.
	//
	// The bulk front (where the liquid is at least bulkDepth·a deep) is the surge Martin &
	// Moyce read by eye: bulkTol, the 10 %, on every station (measured −4.7 % at
	// T = 0.41, +5.3 % at 1.83, within ±4 % elsewhere). It is logged, not asserted, for the
	// two comparison runs: at 12 cells across a the bulk front's column is a/24 wide, 3 % of Z
	// at T = 1.19, and it is off by up to +10.5 % there (−3.4 … +5.5 % at the other stations);
	// the bilateral run's is within 4.7 %.
	//
	// The leading front (the particle with one particle layer across the slab beyond it)
	// leads the experiment, as sharp-release simulations do (the SPH validation records
	// +12 % at T = 0.84 and +18 % at 1.19 for its leading front): measured +15 % at T = 0.84,
	// +21 % at 1.19 and +11 % at 2.98. It is a sheet a few particles thick shooting ahead of
	// the surge; frontTol guards it. The lead is no resolution effect: at 12 cells across a
	// the leading fronts agree within convTol, and the bilateral solve gives the same fronts
	// within convTol too (a dam break does not separate before it hits a wall). speedTol
	// checks the leading front's speed dZ/dT over T ∈ [1.98, 2.98] (measured +6.8 %).
	const (
		frontTol = 0.25
		bulkTol  = 0.10
		speedTol = 0.10
		convTol  = 0.05
	)
	if raceEnabled {
		t.Skip("dam-break validation: 8 s, and the race detector slows the step about 15-fold")
	}
	ts, zs, zbs := damBreak(t, true, 16)
	rel := compareMM(ts, zs)
	relB := compareMM(ts, zbs)
	for i, r := range rel {
		t.Logf("T = %.2f: leading front Z = %.3f (%+.1f %%), bulk front %.3f (%+.1f %%), experiment %.2f", martinMoyce[i][0], martinMoyce[i][1]*(1+r), 100*r, martinMoyce[i][1]*(1+relB[i]), 100*relB[i], martinMoyce[i][1])
		if math.Abs(r) > frontTol {
			t.Errorf("T = %.2f: leading front off by %.1f %%, want ≤ %g %%", martinMoyce[i][0], 100*r, 100*frontTol)
		}
		if math.Abs(relB[i]) > bulkTol {
			t.Errorf("T = %.2f: bulk front off by %.1f %%, want ≤ %g %%", martinMoyce[i][0], 100*relB[i], 100*bulkTol)
		}
	}
	i0, i1 := 6, len(martinMoyce)-1 // T = 1.98 and 2.98
	z0 := martinMoyce[i0][1] * (1 + rel[i0])
	z1 := martinMoyce[i1][1] * (1 + rel[i1])
	dt := martinMoyce[i1][0] - martinMoyce[i0][0]
	sim := (z1 - z0) / dt
	exp := (martinMoyce[i1][1] - martinMoyce[i0][1]) / dt
	t.Logf("front speed dZ/dT over T ∈ [%.2f, %.2f]: %.3f, experiment %.3f (%+.1f %%)", martinMoyce[i0][0], martinMoyce[i1][0], sim, exp, 100*(sim/exp-1))
	if math.Abs(sim/exp-1) > speedTol {
		t.Errorf("front speed %.3f, experiment %.3f: off by more than %g %%", sim, exp, 100*speedTol)
	}
	for _, v := range []struct {
		name string
		uni  bool
		n    int
	}{{"12 cells across a", true, 12}, {"bilateral", false, 16}} {
		tv, zv, zbv := damBreak(t, v.uni, v.n)
		relv := compareMM(tv, zv)
		relBv := compareMM(tv, zbv)
		worst, worstB := 0.0, 0.0
		for i := range rel {
			d := (1+relv[i])/(1+rel[i]) - 1
			worst = max(worst, math.Abs(d))
			worstB = max(worstB, math.Abs(relBv[i]))
		}
		t.Logf("%s: leading fronts within %.1f %% of the reference run; bulk fronts within %.1f %% of the experiment", v.name, 100*worst, 100*worstB)
		if worst > convTol {
			t.Errorf("%s: fronts differ by up to %.1f %% from the reference run, want ≤ %g %%", v.name, 100*worst, 100*convTol)
		}
	}
}
