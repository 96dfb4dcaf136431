package reduced

import (
	"math"
	"testing"
	"time"
)

// gameFeedbackError: the quadtree threshold used for the game scene (m/s); the scene's flow
// and body speeds are ~0.2 m/s.
const gameFeedbackError = 1e-3

// TestQuadtreeFeedbackWithinErrorOfNaive: on the game scene, (1) for single panels the
// quadtree's grid values differ from the naive ones by at most the threshold (the error table
// of Eq. 5.19 is a bound), (2) with all panels and images the difference at any sample is at
// most their number times the threshold and the projected coefficients differ by at most
// √(area) times that, and (3) outside the race detector, the quadtree is at least 5× faster.
func TestQuadtreeFeedbackWithinErrorOfNaive(t *testing.T) {
	c := gameConfig()
	c.FeedbackError = gameFeedbackError
	d := gameScene(t, c)
	d.SolvePanels()
	cp := &d.cp
	nsrc := len(cp.sg)
	diff := func() float64 {
		d.feedbackGrid(FeedbackNaive)
		un, vn := append([]float64(nil), d.ug...), append([]float64(nil), d.vg...)
		d.feedbackGrid(FeedbackQuadtree)
		w := 0.0
		for i := range un {
			w = math.Max(w, math.Abs(un[i]-d.ug[i]))
		}
		for i := range vn {
			w = math.Max(w, math.Abs(vn[i]-d.vg[i]))
		}
		return w
	}
	all := [6][]float64{cp.sox, cp.soy, cp.stx, cp.sty, cp.sln, cp.sg}
	for _, s := range []int{0, 40, 100, 146, nsrc - 1} {
		cp.sox, cp.soy, cp.stx, cp.sty, cp.sln, cp.sg = all[0][s:s+1], all[1][s:s+1], all[2][s:s+1], all[3][s:s+1], all[4][s:s+1], all[5][s:s+1]
		if w := diff(); w > c.FeedbackError {
			t.Errorf("source %d alone: quadtree differs from naive by %.3e > threshold %g", s, w, c.FeedbackError)
		}
	}
	cp.sox, cp.soy, cp.stx, cp.sty, cp.sln, cp.sg = all[0], all[1], all[2], all[3], all[4], all[5]
	w := diff()
	d.feedbackDelta(FeedbackNaive)
	rn := append([]float64(nil), d.fb.dr...)
	d.feedbackDelta(FeedbackQuadtree)
	e := 0.0
	for k := range rn {
		e += (rn[k] - d.fb.dr[k]) * (rn[k] - d.fb.dr[k])
	}
	e = math.Sqrt(e)
	t.Logf("%d sources: max sample difference %.3e m/s (bound %.3e), coefficient difference %.3e of |Δr| %.3e", nsrc, w, float64(nsrc)*c.FeedbackError, e, norm(rn))
	if w > float64(nsrc)*c.FeedbackError {
		t.Errorf("sample difference %.3e exceeds %d × %g", w, nsrc, c.FeedbackError)
	}
	if bound := math.Sqrt(c.Width*c.Height) * w; e > bound {
		t.Errorf("coefficient difference %.3e exceeds √area × max sample difference %.3e", e, bound)
	}
	if raceEnabled || testing.Short() {
		t.Skip("timing comparison skipped under the race detector and -short")
	}
	best := func(mode FeedbackMode) time.Duration {
		b := time.Duration(math.MaxInt64)
		for range 3 {
			t0 := time.Now()
			d.feedbackDelta(mode)
			b = min(b, time.Since(t0))
		}
		return b
	}
	tn, tq := best(FeedbackNaive), best(FeedbackQuadtree)
	tg := best(FeedbackGalerkin)
	t.Logf("feedback per step: naive %v, quadtree %v (%.1f× faster), galerkin %v", tn, tq, float64(tn)/float64(tq), tg)
	if tn < 5*tq {
		t.Errorf("quadtree feedback %v is not 5× faster than naive %v", tq, tn)
	}
}

// TestGalerkinFeedbackIsTheGridLimit: the exact projection of FeedbackGalerkin against the
// naive grid feedback of the same panels on grids of 32², 64² and 128² cells: the grid
// quadrature's error (the panels' velocity jumps across the sheets) shrinks under refinement
// toward the exact value.
func TestGalerkinFeedbackIsTheGridLimit(t *testing.T) {
	if raceEnabled {
		t.Skip("4 s under the race detector (the 128² naive feedback); the parallel loops are covered by TestDeterministicAcrossWorkers")
	}
	var errs []float64
	for _, n := range []int{32, 64, 128} {
		c := DefaultConfig()
		c.CellsX, c.CellsY, c.Modes, c.Workers = n, n, 40, 1
		d := mustNew(t, c)
		for _, def := range []BodyDef{
			{Outline: BoxOutline(0.1, 0.07), Position: Vec2{0.4, 0.5}, Angle: 0.3, Velocity: Vec2{0.3, -0.4}, AngularVelocity: 1},
			{Outline: []Vec2{{0, 0}, {0.08, 0.01}, {0.02, 0.07}}, Position: Vec2{0.7, 0.3}, Velocity: Vec2{-0.2, 0.1}},
		} {
			def.PanelsPerSide, def.Density, def.Kinematic = []int{5}, 100, true
			if _, err := d.AddBody(def); err != nil {
				t.Fatal(err)
			}
		}
		d.SolvePanels()
		d.feedbackDelta(FeedbackGalerkin)
		rg := append([]float64(nil), d.fb.dr...)
		d.feedbackDelta(FeedbackNaive)
		e := 0.0
		for k := range rg {
			e += (rg[k] - d.fb.dr[k]) * (rg[k] - d.fb.dr[k])
		}
		errs = append(errs, math.Sqrt(e)/norm(rg))
	}
	t.Logf("naive grid feedback vs exact, relative: %.3e (32²), %.3e (64²), %.3e (128²)", errs[0], errs[1], errs[2])
	// convergenceFactor: the jump across a sheet makes the grid quadrature first order, so each
	// halving of h should at least roughly halve the difference; 1.5 allows for the
	// irregular placement of the sheets relative to the samples.
	const convergenceFactor = 1.5
	if errs[1] > errs[0]/convergenceFactor || errs[2] > errs[1]/convergenceFactor {
		t.Errorf("naive feedback does not converge to the exact projection: %v", errs)
	}
}
