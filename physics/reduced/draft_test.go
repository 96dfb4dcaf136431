package reduced

import (
	"testing"
)

// draftConfig is the drafting example of §5.4 (Fig. 5.5) at a smaller grid: a 1 × 2 m tall
// domain, 32 × 64 cells, the dissertation's 67 eigenmodes.
func draftConfig() Config {
	c := DefaultConfig()
	c.Width, c.Height = 1, 2
	c.CellsX, c.CellsY = 32, 64
	c.Modes = 67
	c.Viscosity = 1e-4
	c.Workers = 1
	return c
}

// DraftResult is what the drafting run measures.
type draftResult struct {
	gap0, gap   float64 // initial and final gap between the lower body's top and the upper's bottom (m)
	upperDrop   float64 // how far the upper body fell (m)
	time        float64
	lowerY      float64
	isolatedDrp float64
}

// runDraft drops two 10 cm boxes (areal density 1.5 kg/m², in air of 1.2 kg/m³), one 25 cm
// above the other, and steps at 1/120 s until the lower one's centre is below y = 0.3 m; it
// also drops one box alone from the upper box's start for the same time.
func runDraft(t testing.TB, c Config) draftResult {
	const dt = 1.0 / 120
	d := mustNew(t, c)
	box := func(y float64) BodyDef {
		return BodyDef{Outline: BoxOutline(0.1, 0.1), PanelsPerSide: []int{3}, Density: 1.5, Position: Vec2{0.5, y}}
	}
	lo, err := d.AddBody(box(1.5))
	if err != nil {
		t.Fatal(err)
	}
	up, err := d.AddBody(box(1.75))
	if err != nil {
		t.Fatal(err)
	}
	var res draftResult
	res.gap0 = up.State().Position.Y - lo.State().Position.Y - 0.1
	steps := 0
	for lo.State().Position.Y > 0.3 && steps < 2000 {
		if err := d.Step(dt); err != nil {
			t.Fatal(err)
		}
		steps++
	}
	res.gap = up.State().Position.Y - lo.State().Position.Y - 0.1
	res.upperDrop = 1.75 - up.State().Position.Y
	res.time = d.Time()
	res.lowerY = lo.State().Position.Y
	iso := mustNew(t, c)
	one, err := iso.AddBody(box(1.75))
	if err != nil {
		t.Fatal(err)
	}
	for range steps {
		_ = iso.Step(dt)
	}
	res.isolatedDrp = 1.75 - one.State().Position.Y
	return res
}

// TestDraftingUpperBodyCatchesUp: Fig. 5.5's drafting. The upper box falls in the wake the
// lower one drags along (through the feedback into the reduced field and the lower body's
// panels), so it falls farther than the same box alone in the same time and the gap between
// them shrinks by at least half (the criterion).
func TestDraftingUpperBodyCatchesUp(t *testing.T) {
	// minShrink: the "measured gap shrinks by ≥ 50 %".
	const minShrink = 0.5
	r := runDraft(t, draftConfig())
	shrink := 1 - r.gap/r.gap0
	t.Logf("after %.3f s (lower box at y = %.3f m): gap %.4f → %.4f m (shrinks %.0f %%); upper box fell %.3f m, alone %.3f m", r.time, r.lowerY, r.gap0, r.gap, 100*shrink, r.upperDrop, r.isolatedDrp)
	if shrink < minShrink {
		t.Errorf("gap shrank by %.0f %% < %.0f %%", 100*shrink, 100*minShrink)
	}
	if r.gap < -1e-9 {
		t.Errorf("the boxes overlap (gap %.4f m): the run should stop before contact", r.gap)
	}
	if r.upperDrop <= r.isolatedDrp {
		t.Errorf("upper box fell %.4f m, not farther than alone (%.4f m): no drafting", r.upperDrop, r.isolatedDrp)
	}
}
