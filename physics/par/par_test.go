package par

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// TestForAfterTheHelpersPark: loops far enough apart that the helpers stop watching and park
// (they watch for about 0.1 ms; the gaps are 2 ms), loops back to back, and loops with
// fewer blocks than workers all cover every item once; Close then ends every helper, parked
// or not; and a pool with more workers than GOMAXPROCS allows threads still finishes its loops
// (the waits yield their thread).
func TestForAfterTheHelpersPark(t *testing.T) {
	base := runtime.NumGoroutine()
	check := func(p *Pool, n int) {
		hits := make([]int32, n)
		p.For(n, func(lo, hi, _ int) {
			for i := lo; i < hi; i++ {
				hits[i]++
			}
		})
		for i, h := range hits {
			if h != 1 {
				t.Fatalf("item %d of %d visited %d times", i, n, h)
			}
		}
	}
	p := NewPool(4)
	for rep := 0; rep < 10; rep++ {
		check(p, 7*BlockSize+3)
		check(p, 2*BlockSize) // fewer blocks than workers
		time.Sleep(2 * time.Millisecond)
	}
	p.Close()
	prev := runtime.GOMAXPROCS(1)
	q := NewPool(3)
	for rep := 0; rep < 50; rep++ {
		check(q, 5*BlockSize)
	}
	q.Close()
	runtime.GOMAXPROCS(prev)
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > base; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after Close, %d before the pools", runtime.NumGoroutine(), base)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWorkersStartOnTheirOwnShares: with two workers and eight blocks, the first block each
// worker takes is the first of its own share, 0 for the caller and 4 for the helper (blocks
// handed out first-come-first-served would start them on 0 and 1); each of the two first
// blocks waits until the other has started, so both are a worker's first.
func TestWorkersStartOnTheirOwnShares(t *testing.T) {
	p := NewPool(2)
	defer p.Close()
	for rep := 0; rep < 20; rep++ {
		var started atomic.Int32
		first := make([]int, 0, 2)
		var mu sync.Mutex
		p.For(8*BlockSize, func(lo, hi, b int) {
			if started.Add(1) > 2 {
				return
			}
			mu.Lock()
			first = append(first, b)
			mu.Unlock()
			for deadline := time.Now().Add(2 * time.Second); started.Load() < 2 && time.Now().Before(deadline); {
				runtime.Gosched()
			}
		})
		if len(first) != 2 || min(first[0], first[1]) != 0 || max(first[0], first[1]) != 4 {
			t.Fatalf("round %d: the workers' first blocks %v, want 0 and 4", rep, first)
		}
	}
}
