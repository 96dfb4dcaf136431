package elastoplastic

import (
	"testing"

	"github.com/sluicephysics/sluice/internal/cputime"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// BenchmarkStepOrder is one Step of a 23³ lattice block (12,167 particles, the size of
// BenchmarkElastoplasticDrop's box) on one worker, with the particles worked on in index order
// (the lattice's) and in the z-order of the neighbour grid (StepOrdered). It reports the
// process's CPU time per step beside the wall time.
func BenchmarkStepOrder(b *testing.B) {
	for _, z := range []bool{false, true} {
		name := "index"
		if z {
			name = "zorder"
		}
		b.Run(name, func(b *testing.B) {
			x := block(23, 23, 23, testSpacing)
			for i := range x { // off the lattice, so no guard of §4.4 skips the work
				x[i][0] += 1e-3 * float64((i*7)%5)
			}
			mat := testMaterial(5000, 100)
			vol := testSpacing * testSpacing * testSpacing
			bd, err := New(len(x), testRho*vol, vol, 2*testSpacing, mat)
			if err != nil {
				b.Fatal(err)
			}
			pool := par.NewPool(1)
			defer pool.Close()
			var g physics.Grid
			var nb physics.Neighbors
			kr := physics.NewKernel(physics.CubicSpline, 2*testSpacing)
			if err := g.Build(x, kr.H, pool); err != nil {
				b.Fatal(err)
			}
			nb.SkipW = true
			physics.Search(&g, x, &g, g.SelfAdjacent(), &kr, true, &nb, pool)
			var order []int32
			if z {
				order = g.Order
			}
			v := make([]Vec3, len(x))
			for k := 0; k < 2; k++ {
				if _, err := bd.StepOrdered(x, v, 1e-4, &nb, order, pool); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			c0 := cputime.Nanos()
			for k := 0; k < b.N; k++ {
				if _, err := bd.StepOrdered(x, v, 1e-4, &nb, order, pool); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Nanos()-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
