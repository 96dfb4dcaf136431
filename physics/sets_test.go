package physics

import (
	"math/rand/v2"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

func TestCompressionErrorMatchesBruteForce(t *testing.T) {
	// Random densities around two rest densities over several blocks: the average and largest
	// compression max(0, ρ−ρ0)/ρ0 equal a direct sum (up to summation order, compErrTol), and
	// are bit-identical for 1 and 3 workers.
	const compErrTol = 1e-14
	n := 3*par.BlockSize + 7
	var f FluidSet
	f.Resize(n)
	rng := rand.New(rand.NewPCG(3, 4))
	sum, mx := 0.0, 0.0
	for i := 0; i < n; i++ {
		f.Rho0[i] = []float64{1000, 500}[i%2]
		f.Rho[i] = f.Rho0[i] * (1 + 0.02*(rng.Float64()-0.5))
		e := max(0, f.Rho[i]-f.Rho0[i]) / f.Rho0[i]
		sum += e
		mx = max(mx, e)
	}
	var got [2][2]float64
	for k, workers := range []int{1, 3} {
		pool := par.NewPool(workers)
		nb := par.Blocks(n)
		avg, m := f.CompressionError(make([]float64, nb), make([]float64, nb), pool)
		pool.Close()
		got[k] = [2]float64{avg, m}
	}
	if got[0] != got[1] {
		t.Fatalf("1 worker %v, 3 workers %v", got[0], got[1])
	}
	if d := got[0][0] - sum/float64(n); d > compErrTol || d < -compErrTol || got[0][1] != mx {
		t.Fatalf("average %.17g, max %.17g; want %.17g, %.17g", got[0][0], got[0][1], sum/float64(n), mx)
	}
}
