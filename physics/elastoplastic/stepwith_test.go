package elastoplastic

import (
	"slices"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// TestStepWithAnyRowOrder: StepWith on lists holding the same pairs as the body's own search
// in another order (every row reversed) gives bit-identical positions and F over 40 steps of
// a squeezed, yielding block: the body sorts the rows (setPairs) before it sums over them,
// so a world can pass its own lists in its own order and the results do not depend on it.
// Lists that are not symmetric are refused, naming the pair.
func TestStepWithAnyRowOrder(t *testing.T) {
	run := func(reverse bool) *sim {
		s := newSim(t, block(8, 8, 8, testSpacing), testMaterial(200, 50), 2)
		s.accel = func(x Vec3, _ float64) Vec3 { return Vec3{0, 0, -250 * x[2]} }
		if reverse {
			var g physics.Grid
			var nb physics.Neighbors
			kr := physics.NewKernel(physics.CubicSpline, 2*testSpacing)
			s.lists = func(x []Vec3) *physics.Neighbors {
				if err := g.Build(x, kr.H, s.pool); err != nil {
					t.Fatal(err)
				}
				physics.Search(&g, x, &g, g.SelfAdjacent(), &kr, true, &nb, s.pool)
				for b := range nb.Blocks {
					blk := &nb.Blocks[b]
					for r := 0; r+1 < len(blk.Start); r++ {
						lo, hi := blk.Start[r], blk.Start[r+1]
						slices.Reverse(blk.J[lo:hi])
						slices.Reverse(blk.W[lo:hi])
					}
				}
				return &nb
			}
		}
		yielded := 0
		for k := 0; k < 40; k++ {
			yielded += s.step(t).Yielded
		}
		if yielded == 0 {
			t.Fatal("no particle flowed: the test does not cover plasticity")
		}
		return s
	}
	a, b := run(false), run(true)
	for i := range a.x {
		if a.x[i] != b.x[i] || a.b.F(i) != b.b.F(i) {
			t.Fatalf("particle %d: reversed rows give x %v F %v, the body's search x %v F %v", i, b.x[i], b.b.F(i), a.x[i], a.b.F(i))
		}
	}

	// A list in which particle 0 names 1 but 1 does not name 0.
	nb := physics.Neighbors{N: 8, Blocks: []physics.NeighborBlock{{Lo: 0, Start: []int32{0, 1, 1, 1, 1, 1, 1, 1, 1}, J: []int32{1}, W: []float32{1}}}}
	x := block(2, 2, 2, testSpacing)
	bd, err := New(8, testRho, 1, 2*testSpacing, testMaterial(200, 50))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bd.StepWith(x, make([]Vec3, 8), 1e-3, &nb, a.pool); err == nil || !strings.Contains(err.Error(), "not symmetric") {
		t.Fatalf("asymmetric lists: error %v, want one saying they are not symmetric", err)
	}
}
