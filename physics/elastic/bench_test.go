package elastic

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sluicephysics/sluice/internal/cputime"
	"github.com/sluicephysics/sluice/physics/par"
)

// BenchmarkSolve times Solve on one worker for a deformed lattice cube (23³ = 12,167 and
// 47³ = 103,823 particles, G = K = 1 MPa, Δt = 1 ms) with the CG stopped after exactly
// 0 and 20 iterations (MaxError = RelError = 0 never converge): the difference of the two
// ns-per-particle figures over 20 is the cost of one CG iteration (two gathers over the rest
// pairs and the vector updates), the first the rotation extraction and right-hand side of
// every solve. The first solve's rotation extraction starts from identity and is slower than
// the warm-started ones that follow; -benchtime 20x or more amortises it.
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{23, 47} {
		for _, iters := range []int{0, 20} {
			b.Run(fmt.Sprintf("%d/it%d", n*n*n, iters), func(b *testing.B) {
				x, kr := cube(n, 0.025)
				vol := kr.LatticeVolume(0.025)
				bd, err := New(x, vol, &kr, Options{})
				if err != nil {
					b.Fatal(err)
				}
				xd := deformed(x, rand.New(rand.NewPCG(3, 4)), 0.002)
				pool := par.NewPool(1)
				defer pool.Close()
				mat := Material{G: 1e6, K: 1e6, Mass: 1000 * vol, MaxIterations: iters}
				v0 := make([]Vec3, len(x))
				for i := range v0 {
					v0[i] = Vec3{0, -1, 0}
				}
				v := make([]Vec3, len(x))
				b.ResetTimer()
				cpu0 := cputime.Nanos()
				for i := 0; i < b.N; i++ {
					copy(v, v0)
					if res := bd.Solve(xd, v, mat, 1e-3, pool); res.Iterations != iters {
						b.Fatalf("%d iterations, want %d", res.Iterations, iters)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)), "ns/particle/solve")
				b.ReportMetric(float64(bd.Pairs())/float64(len(x)), "pairs/particle")
				if cpu := cputime.Nanos() - cpu0; cpu0 > 0 {
					// CPU time of the process (one worker): the work, when the machine is shared.
					b.ReportMetric(float64(cpu)/float64(b.N)/float64(len(x)), "cpu-ns/particle/solve")
				}
			})
		}
	}
}
