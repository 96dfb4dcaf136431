// Package par is sluice's parallel-for. Work over n items is cut into fixed-size blocks whose
// boundaries depend only on n and the block size, never on the number of workers; workers
// claim blocks in any order, but every block writes only its own outputs (and its own slot of a
// per-block partial-sum array), and reductions are summed by the caller in block order. So a
// step gives bit-identical results for any GOMAXPROCS or worker count (DESIGN §7).
//
// A Pool keeps its goroutines between calls and takes a plain func(lo, hi, block int): callers
// that store their block functions once (method values made at construction) run a parallel
// loop without allocating.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// BlockSize is the number of items in one work block. Per-block buffers (e.g. the neighbour
// lists of physics.Neighbors) are laid out with the same block size, so a stage that loops over
// blocks finds each block's data in one place.
const BlockSize = 256

// Blocks returns the number of BlockSize blocks that cover n items.
func Blocks(n int) int { return (n + BlockSize - 1) / BlockSize }

// Pool runs block loops on a fixed set of worker goroutines. The zero value is not usable;
// make one with NewPool. A Pool must not be used by two goroutines at once.
type Pool struct {
	workers int
	fn      func(lo, hi, block int)
	n       int
	nblocks int64
	next    atomic.Int64
	wake    []chan struct{}
	done    sync.WaitGroup
	closed  bool
}

// NewPool starts a pool of the given number of workers (the calling goroutine counts as one).
// workers ≤ 0 means runtime.GOMAXPROCS(0).
func NewPool(workers int) *Pool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &Pool{workers: workers}
	for w := 1; w < workers; w++ {
		ch := make(chan struct{})
		p.wake = append(p.wake, ch)
		go p.loop(ch)
	}
	return p
}

// Workers returns the number of workers, the caller included.
func (p *Pool) Workers() int { return p.workers }

func (p *Pool) loop(ch chan struct{}) {
	for range ch {
		p.claim()
		p.done.Done()
	}
}

func (p *Pool) claim() {
	for {
		b := p.next.Add(1) - 1
		if b >= p.nblocks {
			return
		}
		lo := int(b) * BlockSize
		hi := min(lo+BlockSize, p.n)
		p.fn(lo, hi, int(b))
	}
}

// For calls fn(lo, hi, block) for every block of [0, n). It returns when all blocks are done.
func (p *Pool) For(n int, fn func(lo, hi, block int)) {
	nb := Blocks(n)
	if nb == 0 {
		return
	}
	if p.workers == 1 || nb == 1 {
		for b := 0; b < nb; b++ {
			lo := b * BlockSize
			fn(lo, min(lo+BlockSize, n), b)
		}
		return
	}
	p.fn, p.n, p.nblocks = fn, n, int64(nb)
	p.next.Store(0)
	helpers := min(len(p.wake), nb-1)
	p.done.Add(helpers)
	for w := 0; w < helpers; w++ {
		p.wake[w] <- struct{}{}
	}
	p.claim()
	p.done.Wait()
	p.fn = nil
}

// Close stops the worker goroutines. The pool must not be used afterwards.
func (p *Pool) Close() {
	if p.closed {
		return
	}
	p.closed = true
	for _, ch := range p.wake {
		close(ch)
	}
}

// Sum adds the per-block partials in block order, the one reduction order that makes a sum
// independent of which worker ran which block.
func Sum(partials []float64) float64 {
	s := 0.0
	for _, v := range partials {
		s += v
	}
	return s
}

// Max returns the largest of the per-block partials (0 for none).
func Max(partials []float64) float64 {
	m := 0.0
	for _, v := range partials {
		m = max(m, v)
	}
	return m
}

// Grow returns s resliced to length n, reallocating (without copying) only when its capacity
// is too small: scratch buffers reach their steady size in the first steps and later steps
// allocate nothing. Contents are not preserved across a reallocation.
func Grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n, n+n/8)
}
