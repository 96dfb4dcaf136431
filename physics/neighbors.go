package physics

import (
	"math"
	"sync"

	"github.com/sluicephysics/sluice/physics/par"
)

// Neighbors holds, for every query point i, the points j of a target set within the kernel
// support, with the kernel value W_ij and the gradient's scalar factor G_ij of each pair, so
// that ∇_i W(x_i − x_j) = G_ij (x_i − x_j) (G = W'(r)/r, see Grad). The lists are
// compressed sparse rows laid out per work block of par.BlockSize query points, so the parallel
// search writes each block's rows without a second counting pass or a final copy, and a stage
// that loops over the same blocks reads them in place.
type Neighbors struct {
	N      int // number of query points
	Blocks []NeighborBlock

	// SkipW, set before Search, leaves the kernel values W_ij out of the lists: a pair then
	// takes 8 bytes (index, G) instead of 12. A world whose stages read W_ij only through the
	// density sums (Sum) sets it; RowW then panics, and Of returns no kernel values.
	SkipW bool
	// Weights, set before Search, weighs each target point's kernel value in Sum (indexed by
	// target point, as the target set's positions); nil weighs every target point 1.
	Weights []float64
	// Sum[i] = Σ_j ω_j W_ij over the neighbours j of query point i, with ω = Weights (1 when
	// nil): the number density Σ_j W_ij of a fluid (Solenthaler & Pajarola 2008) or the
	// boundary term Σ_b V_b W_ib of Akinci et al. 2012, summed where the search evaluates the
	// kernel so that the density needs no kernel value stored per pair. Each W_ij is rounded
	// to float32 before it is summed in float64, as the stored values are.
	Sum []float64
	// Virtual, set before Search, adds to each query point's list its own virtual targets
	// (VirtualTargets): points that are not in the target grid, one per query point and
	// source, such as the boundary particle a volume-mapped wall places opposite each fluid
	// particle near it (Bender et al. 2019). nil adds none.
	Virtual *VirtualTargets
	// weightsLen and weights0 record the Weights the last search summed with (SummedWith).
	weightsLen int
	weights0   *float64

	// arguments of the search in flight; the block loop is a method value made once
	qg, tg   *Grid
	xq       []Vec3
	adj      []int32
	kr       *Kernel
	sameSet  bool
	fnSearch func(lo, hi, block int)
	scratch  *scratchPool

	// The pairs of all blocks live in the slab, a few large arrays per field (chunks) that
	// follow one another in the slab's positions: block b's lists are the views of positions
	// [off, off+len) of capacity rcap, its region, which lies in one chunk. Every search lays
	// the regions out afresh (layout) from the pairs each block is predicted to have, with a
	// little slack; a block whose pairs outgrow its region goes on in the scratch to count
	// them and is then searched again into the slab's reserve, the positions after the last
	// region (spill). So the lists neither grow per block, leaving old arrays to the
	// collector, nor keep each block's largest size: the slab holds the pairs of one search
	// and its slack. When the pairs outgrow the slab, a chunk is added for the excess and no
	// array is replaced, so a growth leaves no garbage that would stay resident next to its
	// replacement until the collector runs.
	chunks  []slabChunk
	reserve int // the slab's first position after the regions
	rchunk  int // and the chunk it lies in
	// pred[b] is the pairs block b is predicted to have in the next search, when predN is
	// that search's number of query points (set by Reorder); otherwise each block is
	// predicted to keep the pairs of the same block in the last search
	pred      []int
	predN     int
	order     []int32 // Reorder's argument, while its blocks run
	mean      int     // and the mean pairs per point of the last search
	fnPredict func(lo, hi, block int)
	redo      []int32 // the blocks that spilled, to search again
	fnRedo    func(lo, hi, k int)
	spills    int
	compacted int // how many spills laid every block out anew
}

// slabChunk is one array per field of a Neighbors' slab, holding the slab's positions
// [base, base+len(j)). w is empty when the search skips W.
type slabChunk struct {
	base int
	j    []int32
	g, w []float32
}

// VirtualTargets are K target slots per query point that Search appends to the query point's
// list after its grid neighbours: slot s = K·i + k belongs to query point i, has the target
// index Base + s (the target set numbers them after its grid points) and the position X[s].
// A slot is live when its weight (Neighbors.Weights[Base+s], the slot's volume) is positive
// and it lies within the support; Search then stores the pair and sums its weighted kernel
// value into Sum like any other. The weights are required: they say which slots are live.
type VirtualTargets struct {
	K    int
	Base int32
	X    []Vec3
}

// NeighborBlock is the CSR of one block of query points [Lo, Lo+BlockSize).
type NeighborBlock struct {
	Lo    int
	Start []int32 // pairs of point Lo+k are entries Start[k]:Start[k+1]
	J     []int32
	W     []float32 // W_ij; empty when the search ran with Neighbors.SkipW
	G     []float32 // G_ij = W'(|x_ij|)/|x_ij|: ∇_i W_ij = G_ij x_ij
	skipW bool
	// the block's region in its Neighbors' slab, and the most entries the block's lists
	// held in the last search (the pairs, and while a point was searched, its candidates)
	off, rcap, need int
	spilled         bool
}

// searchScratch is the search's scratch for one block at a time. The blocks take it from a
// free list (scratchPool) and give it back, so there are as many as blocks run at once (the
// workers), not one per block: 406 blocks of the 100k dam break held 3.3 MB of it.
type searchScratch struct {
	cand []int32 // indices of the candidates one query point accepts
	near []int32 // sorted indices of the points in the 27 cells around a cell
	// the positions of the points of near relative to the first query point of the run, in
	// single precision and one array per axis, for the screen (see screen)
	nx, ny, nz []float32
	r2         []float64 // squared distances of one query point's pairs
	ws         []float32 // their kernel values when the lists keep none (SkipW)
	// the lists of a block that outgrew its region in the slab, written here to count them
	j    []int32
	w, g []float32
}

// scratchPool is the free list of searchScratch; a block's scratch holds nothing from one
// block to the next, so which one a block takes does not change the lists.
type scratchPool struct {
	mu   sync.Mutex
	free []*searchScratch
	all  []*searchScratch // every one made, for Bytes
}

func (p *scratchPool) get() *searchScratch {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.free); k > 0 {
		sc := p.free[k-1]
		p.free = p.free[:k-1]
		return sc
	}
	sc := new(searchScratch)
	p.all = append(p.all, sc)
	return sc
}

func (p *scratchPool) put(sc *searchScratch) {
	p.mu.Lock()
	p.free = append(p.free, sc)
	p.mu.Unlock()
}

// Grad returns the kernel gradient ∇_i W(x_i − x_j) = G_ij (x_i − x_j) of a pair from its
// stored factor g = G_ij and the two positions.
//
// A pair stores the gradient's scalar factor, not its vector: 4 bytes instead of 12, so a pair
// takes 12 bytes (index, W, G) instead of 20, and a pressure sweep, which reads the index and
// G of every pair, streams 8 bytes a pair instead of 16. The stages read x_j (which they
// gather anyway next to v_j, p_j, ...) and form x_i − x_j in float64; the lists are used only
// between the search and the integration of the same substep, while the positions are those
// the search saw. Pairs are single precision: float32's relative precision (6e-8) is far below
// any tolerance the solvers use; all sums are accumulated in float64.
func Grad(g float32, xi, xj *Vec3) Vec3 {
	c := float64(g)
	return Vec3{c * (xi[0] - xj[0]), c * (xi[1] - xj[1]), c * (xi[2] - xj[2])}
}

// Of returns the neighbour indices, kernel values and gradient factors of query point i. The
// kernel values are nil when the lists were searched with SkipW.
func (nb *Neighbors) Of(i int) ([]int32, []float32, []float32) {
	b := &nb.Blocks[i/par.BlockSize]
	k := i - b.Lo
	s, e := b.Start[k], b.Start[k+1]
	if b.skipW {
		return b.J[s:e], nil, b.G[s:e]
	}
	return b.J[s:e], b.W[s:e], b.G[s:e]
}

// SummedWith reports whether the last search summed Sum with the weights w (the same slice).
func (nb *Neighbors) SummedWith(w []float64) bool {
	if len(w) == 0 {
		return nb.weightsLen == 0
	}
	return nb.weightsLen == len(w) && nb.weights0 == &w[0]
}

// Row returns the neighbour indices and gradient factors of the k-th point of the block, for
// stages that loop over the same blocks as the lists and so skip Of's block lookup.
func (b *NeighborBlock) Row(k int) ([]int32, []float32) {
	s, e := b.Start[k], b.Start[k+1]
	return b.J[s:e], b.G[s:e]
}

// RowW is Row with the kernel values. It panics if the lists were searched with SkipW: a stage
// that reads W_ij must be one the world's SkipW decision knows of.
func (b *NeighborBlock) RowW(k int) ([]int32, []float32, []float32) {
	if b.skipW {
		panic("physics: RowW on neighbour lists searched with SkipW (their kernel values were not stored)")
	}
	s, e := b.Start[k], b.Start[k+1]
	return b.J[s:e], b.W[s:e], b.G[s:e]
}

// Pairs returns the total number of stored pairs.
func (nb *Neighbors) Pairs() int {
	n := 0
	for b := range nb.Blocks {
		n += len(nb.Blocks[b].J)
	}
	return n
}

// Bytes returns the memory the lists use (the J, W, G and Start entries in use, and Sum) and
// the memory their slices hold (capacities, including the search's per-block scratch).
func (nb *Neighbors) Bytes() (used, held int) {
	for b := range nb.Blocks {
		blk := &nb.Blocks[b]
		used += 4*len(blk.J) + 4*len(blk.W) + 4*len(blk.G) + 4*len(blk.Start)
		held += 4 * cap(blk.Start)
		if len(nb.chunks) == 0 {
			// lists filled without Search, each block with its own arrays
			held += 4*cap(blk.J) + 4*cap(blk.W) + 4*cap(blk.G)
		}
	}
	for _, ch := range nb.chunks {
		held += 4*cap(ch.j) + 4*cap(ch.w) + 4*cap(ch.g)
	}
	if p := nb.scratch; p != nil {
		for _, sc := range p.all {
			held += 4*cap(sc.cand) + 4*cap(sc.near) + 4*cap(sc.nx) + 4*cap(sc.ny) + 4*cap(sc.nz) + 8*cap(sc.r2) + 4*cap(sc.ws)
			held += 4*cap(sc.j) + 4*cap(sc.w) + 4*cap(sc.g)
		}
	}
	used += 8 * len(nb.Sum)
	held += 8 * cap(nb.Sum)
	return used, held
}

// Search fills out with the neighbours in target grid tg (positions xt) of every query point
// of grid qg (positions xq), using adj, the 27 adjacent target cells of each query cell (from
// qg.Adjacent(tg, …)). With same set, a point is not its own neighbour. Each list is ordered by
// adjacent cell, then by the target grid's cell order, so it does not depend on the worker count.
//
// The sorted indices of the points in the 27 cells around a query cell are gathered once for
// a run of consecutive query points in that cell (callers keep their points in the cell order of
// a recent sort, so runs are several points long). Per query point these candidates are
// screened in one loop without branches (every candidate's index is written, the write cursor
// advances only when it lies inside the support), then the kernel is evaluated once per
// accepted pair: a data-dependent branch per candidate would mispredict on about one candidate
// in seven, and a loop per cell mispredicted at the end of most cells.
//
// It also fills out.Sum with each query point's weighted kernel sum (out.Weights), and stores
// the kernel values per pair unless out.SkipW.
func Search(qg *Grid, xq []Vec3, tg *Grid, adj []int32, kr *Kernel, sameSet bool, out *Neighbors, pool *par.Pool) {
	n := len(xq)
	nb := par.Blocks(n)
	oldN := min(out.N, par.BlockSize*len(out.Blocks))
	out.N = n
	if cap(out.Blocks) < nb {
		nbs := make([]NeighborBlock, nb)
		copy(nbs, out.Blocks[:cap(out.Blocks)])
		out.Blocks = nbs
	}
	out.Blocks = out.Blocks[:nb]
	if out.fnSearch == nil {
		out.fnSearch = out.searchBlock
		out.fnRedo = out.redoBlock
	}
	if out.scratch == nil {
		out.scratch = new(scratchPool)
	}
	out.layout(n, oldN)
	nt := len(tg.Order)
	if vt := out.Virtual; vt != nil {
		if int(vt.Base) != nt || len(vt.X) != vt.K*n || out.Weights == nil {
			panic("physics: Search with virtual targets that do not follow the grid's points, cover every query point or have weights")
		}
		nt += len(vt.X)
	}
	if out.Weights != nil && len(out.Weights) != nt {
		panic("physics: Search with Weights of another length than the target set")
	}
	out.Sum = grow(out.Sum, n)
	out.weightsLen, out.weights0 = len(out.Weights), nil
	if len(out.Weights) > 0 {
		out.weights0 = &out.Weights[0]
	}
	out.qg, out.xq, out.tg, out.adj, out.kr, out.sameSet = qg, xq, tg, adj, kr, sameSet
	pool.For(n, out.fnSearch)
	if out.spill() {
		pool.For(len(out.redo)*par.BlockSize, out.fnRedo)
		for _, b := range out.redo {
			if out.Blocks[b].spilled {
				panic("physics: a block's pairs outgrew the region laid out for their count")
			}
		}
	}
	out.qg, out.xq, out.tg, out.adj, out.kr = nil, nil, nil, nil, nil
}

// Spills returns how many times a block's pairs outgrew the region laid out for them, so that
// the block was searched twice, over every search of these lists.
func (nb *Neighbors) Spills() int { return nb.spills }

// Reorder tells the lists that the query points of the next search are those of the last
// in a new order: point k of the next search is point order[k] of the last (order[k] ≥ the
// last search's count for a new point). The next search then lays out each block's region
// for the pairs its points had, which a block of the last search predicts badly once the
// points are sorted anew. It changes no list, only where the next search writes them.
func (nb *Neighbors) Reorder(order []int32, pool *par.Pool) {
	n := len(order)
	nb.pred = grow(nb.pred, par.Blocks(n))
	if nb.fnPredict == nil {
		nb.fnPredict = nb.predictBlock
	}
	nb.order, nb.mean = order, 0
	if nb.N > 0 {
		nb.mean = nb.Pairs() / nb.N
	}
	pool.For(n, nb.fnPredict)
	nb.order = nil
	nb.predN = n
}

// predictBlock sums, for the points [lo, hi) of the next search, the pairs their points had
// in the last search (the mean of all points' for a new point).
func (nb *Neighbors) predictBlock(lo, hi, b int) {
	mean, p := nb.mean, 0
	for _, j := range nb.order[lo:hi] {
		if int(j) >= nb.N {
			p += mean
			continue
		}
		blk := &nb.Blocks[int(j)/par.BlockSize]
		k := int(j) - blk.Lo
		p += int(blk.Start[k+1] - blk.Start[k])
	}
	nb.pred[b] = p
}

// layout gives every block of a search of n query points its region in the slab (the last
// search had oldN): the pairs predicted for it (by Reorder, or else the pairs of the same
// block in the last search, and the mean per point for points it did not have) and a 64th
// more and 8, one after the other, a region that would straddle two chunks starting the next.
// The rest of the slab is the reserve for blocks that spill. A chunk is added (addChunk) only
// when the regions do not fit: rarely, and without copying, as the search writes every list
// anew.
func (out *Neighbors) layout(n, oldN int) {
	nb := par.Blocks(n)
	blocks := out.Blocks
	if out.predN != n || len(out.pred) < nb {
		out.pred = grow(out.pred, nb)
		mean := 0
		if oldN > 0 {
			pairs := 0
			for _, blk := range blocks[:cap(blocks)][:par.Blocks(oldN)] {
				pairs += len(blk.J)
			}
			mean = pairs / oldN
		}
		for b := range nb {
			lo := b * par.BlockSize
			hi := min(lo+par.BlockSize, n)
			p := mean * (hi - lo)
			if lo < oldN {
				k := min(hi, oldN) - lo // the block's points the last search had
				p = len(blocks[b].J) + mean*(hi-lo-k)
			}
			out.pred[b] = p
		}
	}
	out.predN = -1
	total := 0
	for _, p := range out.pred[:nb] {
		total += regionFor(p)
	}
	k, pos := 0, 0
	for b := range nb {
		size := regionFor(out.pred[b])
		var ok bool
		if k, pos, ok = out.fit(k, pos, size); !ok {
			rest := 0
			for _, p := range out.pred[b:nb] {
				rest += regionFor(p)
			}
			k, pos = out.addChunk(rest, total)
		}
		blocks[b].off, blocks[b].rcap = pos, size
		pos += size
	}
	out.reserve, out.rchunk = pos, k
	for c := range out.chunks {
		ch := &out.chunks[c]
		if out.SkipW {
			ch.w = nil
		} else if len(ch.w) != len(ch.j) {
			ch.w = make([]float32, len(ch.j))
		}
	}
}

// regionFor is the region laid out for a block predicted to have p pairs: a 64th more and 8.
func regionFor(p int) int { return p + p/64 + 8 }

// slabLen returns the number of positions of the slab, all its chunks together.
func (out *Neighbors) slabLen() int {
	if k := len(out.chunks); k > 0 {
		ch := &out.chunks[k-1]
		return ch.base + len(ch.j)
	}
	return 0
}

// fit returns the first position at or after pos (which lies in chunk k or at its end), in
// chunk k or a later one, where a region of size positions lies inside one chunk, and that
// chunk; ok is false when no chunk has the room.
func (out *Neighbors) fit(k, pos, size int) (int, int, bool) {
	for ; k < len(out.chunks); k++ {
		ch := &out.chunks[k]
		pos = max(pos, ch.base)
		if pos+size <= ch.base+len(ch.j) {
			return k, pos, true
		}
	}
	return k, pos, false
}

// addChunk appends to the slab a chunk for rest positions that no chunk has room for, when
// all regions take total: rest and an eighth of total more, so that pairs that keep growing
// add a few chunks, each at least an eighth of the slab. The chunks already there stay: their
// lists are in use, and replacing them would leave their arrays to the collector, resident
// next to the new ones until it runs. It returns the new chunk and its first position.
func (out *Neighbors) addChunk(rest, total int) (int, int) {
	c := rest + total/8
	ch := slabChunk{base: out.slabLen(), j: make([]int32, c), g: make([]float32, c)}
	if !out.SkipW {
		ch.w = make([]float32, c)
	}
	out.chunks = append(out.chunks, ch)
	return len(out.chunks) - 1, ch.base
}

// chunkAt returns the chunk that holds slab position pos (the last one for its end).
func (out *Neighbors) chunkAt(pos int) *slabChunk {
	k := len(out.chunks) - 1
	for k > 0 && out.chunks[k].base > pos {
		k--
	}
	return &out.chunks[k]
}

// view points the block's lists at the first m entries of its region.
func (out *Neighbors) view(blk *NeighborBlock, m int) {
	ch := out.chunkAt(blk.off)
	r0 := blk.off - ch.base
	r1 := r0 + blk.rcap
	blk.J, blk.G = ch.j[r0:r0+m:r1], ch.g[r0:r0+m:r1]
	if !out.SkipW {
		blk.W = ch.w[r0 : r0+m : r1]
	}
}

// spill gives each block that outgrew its region in the search just done a region of the
// room it took, and lists them in out.redo to search again; it reports whether any did. The
// regions are taken from the reserve, in block order. Should the reserve be too small (the
// pairs of many blocks grew at once, as when a compressing lattice brings a whole shell of
// neighbours inside the support), every block gets a region of exactly the room it took: the
// blocks that kept their pairs move there (in place, those moving down in increasing order,
// then those moving up in decreasing order, so that none overwrites one not yet moved), and
// a chunk is added only if the blocks need more than the slab has. Every decision depends on
// the blocks' counts alone, not on the number of workers.
func (out *Neighbors) spill() bool {
	blocks := out.Blocks
	redo := out.redo[:0]
	total := 0
	for b := range blocks {
		blk := &blocks[b]
		total += blk.need
		if blk.spilled {
			redo = append(redo, int32(b))
		}
	}
	out.redo = redo
	if len(redo) == 0 {
		return false
	}
	out.spills += len(redo)
	// the new positions (pred is spent until the next Reorder): first of the spilled blocks
	// in the reserve, if they all fit there
	to := out.pred[:len(blocks)]
	k, pos, fits := out.rchunk, out.reserve, true
	for q, b := range redo {
		if k, pos, fits = out.fit(k, pos, blocks[b].need); !fits {
			break
		}
		to[q] = pos
		pos += blocks[b].need
	}
	if fits {
		for q, b := range redo {
			blocks[b].off, blocks[b].rcap = to[q], blocks[b].need
		}
		out.reserve, out.rchunk = pos, k
		return true
	}
	out.compacted++
	k, pos = 0, 0
	for b := range blocks {
		var ok bool
		if k, pos, ok = out.fit(k, pos, blocks[b].need); !ok {
			rest := 0
			for _, blk := range blocks[b:] {
				rest += blk.need
			}
			k, pos = out.addChunk(rest, total)
		}
		to[b] = pos
		pos += blocks[b].need
	}
	move := func(b int) {
		blk := &blocks[b]
		m, o := len(blk.J), blk.off
		if o == to[b] {
			return
		}
		dst, src := out.chunkAt(to[b]), out.chunkAt(o)
		d, s := to[b]-dst.base, o-src.base
		copy(dst.j[d:d+m], src.j[s:s+m])
		copy(dst.g[d:d+m], src.g[s:s+m])
		if !out.SkipW {
			copy(dst.w[d:d+m], src.w[s:s+m])
		}
	}
	for b := range blocks {
		if !blocks[b].spilled && to[b] <= blocks[b].off {
			move(b)
		}
	}
	for b := len(blocks) - 1; b >= 0; b-- {
		if !blocks[b].spilled && to[b] > blocks[b].off {
			move(b)
		}
	}
	for b := range blocks {
		blk := &blocks[b]
		blk.off, blk.rcap = to[b], blk.need
		out.view(blk, len(blk.J))
	}
	out.reserve, out.rchunk = pos, k
	return true
}

// redoBlock searches again the k-th block of out.redo, one that spilled.
func (out *Neighbors) redoBlock(_, _, k int) {
	b := int(out.redo[k])
	lo := b * par.BlockSize
	out.searchBlock(lo, min(lo+par.BlockSize, out.N), b)
}

// searchBlock fills the lists of one block of query points.
func (out *Neighbors) searchBlock(lo, hi, b int) {
	qg, xq, tg, adj, kr, sameSet := out.qg, out.xq, out.tg, out.adj, out.kr, out.sameSet
	h2 := kr.H * kr.H
	cubic := kr.Kind == CubicSpline
	blk := &out.Blocks[b]
	blk.Lo = lo
	blk.Start = grow(blk.Start, hi-lo+1)
	skipW, weights, sum := out.SkipW, out.Weights, out.Sum
	blk.skipW = skipW
	if skipW {
		// the values of an earlier search with W are freed, not kept as dead capacity
		blk.W = nil
	}
	sc := out.scratch.get()
	defer out.scratch.put(sc)
	// The block writes into its region of the slab. Should its pairs outgrow the region, it
	// goes on in the scratch's lists to count them and is searched again into the reserve
	// (Search, spill).
	out.view(blk, 0)
	spilled, peak := false, 0 // peak: the most the lists held before a point's pairs were known
	cand, near := sc.cand[:0], sc.near[:0]
	vt, nv := out.Virtual, 0
	if vt != nil {
		nv = vt.K
	}
	// The screen compares squared distances in single precision against h² widened by
	// screenMargin, more than the rounding of the relative positions and of the sum (at most
	// about 10⁻⁶ h²); the kernel loop below then keeps exactly the pairs with r² < h² in double
	// precision, so the lists are those of a double-precision screen.
	h2f := float32(h2 * (1 + screenMargin))
	nx, ny, nz := sc.nx, sc.ny, sc.nz
	r2s, ws32 := sc.r2, sc.ws
	var ox, oy, oz float64 // origin of the run's relative positions
	prev := -1
	for i := lo; i < hi; i++ {
		blk.Start[i-lo] = int32(len(blk.J))
		xi := xq[i]
		if c := int(qg.cellOf[i]); c != prev {
			prev = c
			cells := adj[27*c : 27*c+27]
			nn := 0
			for _, cell := range cells {
				if cell >= 0 {
					nn += int(tg.cellStart[cell+1] - tg.cellStart[cell])
				}
			}
			padded := (nn + 7) &^ 7 // the vector screen takes 8 at a time
			near = resize(near, padded)
			nx, ny, nz = resize(nx, padded), resize(ny, padded), resize(nz, padded)
			ox, oy, oz = xi[0], xi[1], xi[2]
			t := gatherRun(cells, tg.cellStart, tg.Sorted, near, nx, ny, nz, ox, oy, oz)
			for ; t < padded; t++ {
				// padding far outside any support: its squared distance overflows to +Inf
				near[t] = 0
				nx[t], ny[t], nz[t] = math.MaxFloat32, math.MaxFloat32, math.MaxFloat32
			}
		}
		cand = resize(cand, len(near))
		cand = cand[:screenVec(cand, near, nx, ny, nz, float32(xi[0]-ox), float32(xi[1]-oy), float32(xi[2]-oz), h2f)]
		base := len(blk.J)
		need := base + len(cand) + nv
		peak = max(peak, need)
		if need > cap(blk.J) || (!skipW && need > cap(blk.W)) {
			if !spilled {
				// out of the region: go on in the scratch
				spilled = true
				sc.j, sc.g = append(sc.j[:0], blk.J...), append(sc.g[:0], blk.G...)
				blk.J, blk.G = sc.j, sc.g
				if !skipW {
					sc.w = append(sc.w[:0], blk.W...)
					blk.W = sc.w
				}
			}
			// Grow the scratch to the block's projected total (the pairs so far per point,
			// times the block's points) rather than by a fixed factor: a large first search
			// then reallocates it a few times instead of dozens.
			want := need * (hi - lo) / (i - lo + 1)
			want = max(need, want+want/8)
			blk.J = growTo(blk.J, need, want)
			if !skipW {
				blk.W = growTo(blk.W, need, want)
			}
			blk.G = growTo(blk.G, need, want)
		} else {
			blk.J, blk.G = blk.J[:need], blk.G[:need]
			if !skipW {
				blk.W = blk.W[:need]
			}
		}
		// The pairs inside the support, their squared distances in r2s; then the kernel for
		// all of them at once (four at a time for the cubic spline with AVX2) and the
		// weighted sum in list order.
		r2s = resize(r2s, len(cand))
		self := int32(-1)
		if sameSet {
			self = int32(i)
		}
		na := keepExact(cand, tg.Order, tg.Sorted, &xi, h2, self, blk.J[base:base+len(cand)], r2s)
		m := base + na
		wv := ws32
		if !skipW {
			wv = blk.W[base:m]
		} else {
			wv = resize(wv, na)
			ws32 = wv
		}
		gv := blk.G[base:m]
		if cubic {
			kr.cubicSquared(r2s[:na], wv, gv)
		} else {
			for q, r2 := range r2s[:na] {
				w, g := kr.Eval(sqrt(r2))
				wv[q], gv[q] = float32(w), float32(g)
			}
		}
		ws := 0.0
		if weights != nil {
			for q, j := range blk.J[base:m] {
				ws += weights[j] * float64(wv[q])
			}
		} else {
			for _, w := range wv[:na] {
				ws += float64(w)
			}
		}
		for s := nv * i; s < nv*(i+1); s++ {
			j := vt.Base + int32(s)
			if weights[j] <= 0 {
				continue
			}
			xj := &vt.X[s]
			dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			r2 := dx*dx + dy*dy + dz*dz
			if r2 >= h2 {
				continue
			}
			var w, g float64
			if r := sqrt(r2); cubic {
				w, g = kr.cubic(r)
			} else {
				w, g = kr.Eval(r)
			}
			w32 := float32(w)
			ws += weights[j] * float64(w32)
			blk.J[m] = j
			if !skipW {
				blk.W[m] = w32
			}
			blk.G[m] = float32(g)
			m++
		}
		sum[i] = ws
		blk.J, blk.G = blk.J[:m], blk.G[:m]
		if !skipW {
			blk.W = blk.W[:m]
		}
	}
	blk.Start[hi-lo] = int32(len(blk.J))
	blk.spilled, blk.need = spilled, peak
	if spilled {
		// keep the grown scratch for the next block
		sc.j, sc.g = blk.J[:0], blk.G[:0]
		blk.J, blk.G = nil, nil
		if !skipW {
			sc.w = blk.W[:0]
			blk.W = nil
		}
	}
	sc.cand, sc.near = cand, near
	sc.nx, sc.ny, sc.nz = nx, ny, nz
	sc.r2, sc.ws = r2s, ws32
}

// gatherRunGo is gatherRun's Go loop.
func gatherRunGo(cells, cellStart []int32, sorted []Vec3, near []int32, nx, ny, nz []float32, ox, oy, oz float64) int {
	t := 0
	for _, cell := range cells {
		if cell < 0 {
			continue
		}
		s, e := cellStart[cell], cellStart[cell+1]
		src := sorted[s:e]
		dn, dx, dy, dz := near[t:t+len(src)], nx[t:t+len(src)], ny[t:t+len(src)], nz[t:t+len(src)]
		for q := range src {
			p := &src[q]
			dn[q] = s + int32(q)
			dx[q], dy[q], dz[q] = float32(p[0]-ox), float32(p[1]-oy), float32(p[2]-oz)
		}
		t += len(src)
	}
	return t
}

// screenMargin is the relative widening of h² in the single-precision screen. A candidate
// lies within 2h of the run's first point on each axis and the query point within h, so
// rounding their relative positions to float32 (2⁻²⁴ relative) moves a coordinate difference
// by at most about 2·10⁻⁷ h, and a squared distance near h² by at most about 10⁻⁶ h² with the
// rounding of the squares and sums; 4·10⁻⁶ leaves a factor of four.
const screenMargin = 4e-6

// useAVX2 selects the AVX2 screen (screen_amd64.s) where the processor has it; tests clear it
// to compare the two.
var useAVX2 bool

// screen writes to cand the entries near[t] whose positions (nx[t], ny[t], nz[t]), relative
// like (x, y, z) to the run's first query point, lie closer than √h2, and returns their number,
// without a branch per point: every index is written, the cursor advances only for one
// inside. It is a function of its own so that its loop keeps the cursor in a register (in the
// larger searchBlock the compiler kept it on the stack, a store and reload per candidate).
// The positions are single precision in three arrays read in order: 12 bytes a candidate
// instead of an index and a 24-byte gather.
//
//go:noinline
func screen(cand, near []int32, nx, ny, nz []float32, x, y, z, h2 float32) int {
	n := 0
	cand = cand[:len(near)]
	nx, ny, nz = nx[:len(near)], ny[:len(near)], nz[:len(near)]
	for t, k := range near {
		dx, dy, dz := x-nx[t], y-ny[t], z-nz[t]
		cand[n] = k
		if dx*dx+dy*dy+dz*dz < h2 {
			n++
		}
	}
	return n
}

// growTo returns s with length n and capacity at least c (≥ n), its contents kept.
func growTo[T any](s []T, n, c int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	t := make([]T, n, c)
	copy(t, s)
	return t
}
