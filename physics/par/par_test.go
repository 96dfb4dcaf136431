package par

import (
	"math"
	"testing"
)

func TestForCoversEveryItemOnceAndSumsDeterministically(t *testing.T) {
	const n = 10*BlockSize + 17
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Sin(float64(i)) * 1e3 // values whose float sum depends on order
	}
	var ref float64
	for _, workers := range []int{1, 2, 3, 8} {
		p := NewPool(workers)
		hits := make([]int, n)
		partial := make([]float64, Blocks(n))
		for rep := 0; rep < 20; rep++ {
			p.For(n, func(lo, hi, b int) {
				s := 0.0
				for i := lo; i < hi; i++ {
					hits[i]++
					s += x[i]
				}
				partial[b] = s
			})
			sum := Sum(partial)
			if workers == 1 && rep == 0 {
				ref = sum
			}
			if sum != ref {
				t.Fatalf("%d workers: sum %v differs from %v", workers, sum, ref)
			}
		}
		for i, h := range hits {
			if h != 20 {
				t.Fatalf("%d workers: item %d visited %d times in 20 runs", workers, i, h)
			}
		}
		p.Close()
	}
}
