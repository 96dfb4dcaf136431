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
//
// The hand-off. A step makes tens of short parallel loops per substep (a DFSPH substep of the
// reference's 6,859-particle dam break makes about 25), so waking a parked goroutine for each
// (a futex and the scheduler) cost as much as the work it shared: with a channel per loop that
// scene took 2.25–2.64 s of wall time on two workers and 2.23–2.62 s on one (four alternating
// runs), and 1.94–2.02 s on two with this hand-off. Between loops a helper watches the loop
// counter (epoch) for a while (spinLimit checks, yielding its thread every spinYield checks so
// that a caller on the same thread can run; about 0.1 ms here) before it parks on its channel,
// and the caller waits for the helpers' count of unfinished loops the same way. A helper announces
// that it parks (state parked) and then looks at the epoch once more; the caller, after
// publishing a loop, wakes every helper it finds parked (state woken, and a send). Both sides
// use sequentially consistent atomics, so either the caller sees the helper parked or the
// helper sees the new loop: none is missed. Which worker runs which block still does not
// matter to the results.
type Pool struct {
	workers int
	fn      func(lo, hi, block int)
	n       int
	shares  []share       // per worker: its contiguous run of the loop's blocks
	epoch   atomic.Uint64 // counts the loops For has published
	pending atomic.Int64  // helpers still in the current loop
	helpers []helper
	closed  bool
}

// share is one worker's run of a loop's blocks, [next, end): worker w of W owns blocks
// [w·nb/W, (w+1)·nb/W), takes them from the front and, when its own are gone, takes the other
// workers' remaining blocks from the front of theirs. So in loop after loop a worker runs the
// same blocks, the same particles, and finds their data in its own core's cache, where blocks
// handed out first-come-first-served went to either worker and the next loop read, for about
// half its blocks, what the other core had just written. Which worker runs a block still does
// not change its results. The padding keeps two workers' counters out of one cache line.
type share struct {
	next atomic.Int64
	end  int64
	_    [48]byte
}

// helper is one worker goroutine's hand-off state.
type helper struct {
	state atomic.Int32  // spinning, parked or woken
	wake  chan struct{} // where a parked helper waits (buffered: the caller never blocks)
}

const (
	spinning int32 = iota
	parked
	woken
)

// spinLimit and spinYield bound a helper's watch between loops and set how often a waiting
// helper or caller yields its thread.
const (
	spinLimit = 1 << 14
	spinYield = 64
)

// NewPool starts a pool of the given number of workers (the calling goroutine counts as one).
// workers ≤ 0 means runtime.GOMAXPROCS(0).
func NewPool(workers int) *Pool {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &Pool{workers: workers, helpers: make([]helper, max(0, workers-1)), shares: make([]share, workers)}
	for w := range p.helpers {
		p.helpers[w].wake = make(chan struct{}, 1)
		go p.loop(&p.helpers[w], w+1)
	}
	return p
}

// Workers returns the number of workers, the caller included.
func (p *Pool) Workers() int { return p.workers }

// loop is helper goroutine number w (the caller is worker 0): it waits for each new epoch
// (spinning, then parked) and runs its share of that loop's blocks.
func (p *Pool) loop(h *helper, w int) {
	seen := uint64(0)
	for {
		e := p.epoch.Load()
		for spins := 0; e == seen; spins++ {
			if spins < spinLimit {
				if spins%spinYield == spinYield-1 {
					runtime.Gosched()
				}
				e = p.epoch.Load()
				continue
			}
			h.state.Store(parked)
			if e = p.epoch.Load(); e != seen {
				// a loop came while announcing: take it back unless the caller is waking us
				if !h.state.CompareAndSwap(parked, spinning) {
					<-h.wake
					h.state.Store(spinning)
				}
				break
			}
			if _, ok := <-h.wake; !ok {
				return
			}
			h.state.Store(spinning)
			e = p.epoch.Load()
			spins = 0
		}
		if e >= closedEpoch {
			return
		}
		seen = e
		p.claim(w)
		p.pending.Add(-1)
	}
}

// closedEpoch is the epoch Close publishes: the helpers return.
const closedEpoch = 1 << 63

// claim runs worker w's own blocks, then whatever is left of the others', in worker order
// from w.
func (p *Pool) claim(w int) {
	for k := range p.shares {
		sh := &p.shares[(w+k)%len(p.shares)]
		for {
			b := sh.next.Add(1) - 1
			if b >= sh.end {
				break
			}
			lo := int(b) * BlockSize
			hi := min(lo+BlockSize, p.n)
			p.fn(lo, hi, int(b))
		}
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
	// Every helper takes part in every loop (one with no block left just reports back), and
	// For returns only when all have: so no helper can still be in a loop when the next one
	// is published.
	p.fn, p.n = fn, n
	for w := range p.shares {
		sh := &p.shares[w]
		sh.end = int64((w + 1) * nb / p.workers)
		sh.next.Store(int64(w * nb / p.workers))
	}
	p.pending.Store(int64(len(p.helpers)))
	p.epoch.Add(1)
	for w := range p.helpers {
		if h := &p.helpers[w]; h.state.CompareAndSwap(parked, woken) {
			h.wake <- struct{}{}
		}
	}
	p.claim(0)
	for spins := 1; p.pending.Load() != 0; spins++ {
		if spins%spinYield == 0 {
			runtime.Gosched()
		}
	}
	p.fn = nil
}

// Close stops the worker goroutines. The pool must not be used afterwards.
func (p *Pool) Close() {
	if p.closed {
		return
	}
	p.closed = true
	p.epoch.Store(closedEpoch)
	for w := range p.helpers {
		close(p.helpers[w].wake)
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
