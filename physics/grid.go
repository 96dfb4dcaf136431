package physics

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/sluicephysics/sluice/physics/par"
)

// maxCoord is the largest cell coordinate on an axis (relative to the grid's lowest cell): about
// two million cells per axis, 200 km at a 0.1 m support radius. With it a cell's key (see Grid)
// stays below 2⁶³.
const maxCoord = 1<<21 - 1

// Grid is a compact cell grid over one point set (Ihmsen et al. 2011, "compact hashing"):
// memory is proportional to the number of occupied cells, never to the domain. The cell size
// is the kernel support radius H, so every neighbour of a point lies in the 27 cells around
// its own. Points are ordered by the key of their cell, with ties kept in index order (a stable
// radix sort), which makes Order a deterministic permutation that callers apply to their
// particle arrays for memory locality. The key orders the cells row by row, layer by layer:
// every neighbour of a particle then lies in the three layers of cells around its own in the
// arrays, and a sweep over the neighbour lists finds each neighbour's data among what the
// sweep of the last layers brought into the cache. The layers are taken across the axis whose
// most populated layer holds the fewest points (keyAxes), so that the window is small; in the
// z-order (Morton) key this grid used before, neighbours across the boundaries of its larger
// octants lay far apart in the arrays (docs/results.md, "The cell order").
type Grid struct {
	H float64 // cell size (m)
	// NoSelf skips the adjacency of the grid's cells to each other in Build, for a grid that
	// is only ever searched from another grid's points (the boundary grid, rebuilt every
	// substep while rigid bodies move).
	NoSelf bool

	origin [3]int32   // absolute coordinate of the lowest occupied cell on each axis
	extent [3]int32   // occupied cell range on each axis, relative to origin
	axes   [3]int     // the key's axes, fastest first (cellKeyOf)
	stride [3]uint64  // the key's step per cell along axes[0], axes[1], axes[2]
	layers [3][]int32 // keyAxes's sampled point counts per layer of cells across each axis

	// Order lists the points sorted by (cell key, index); Sorted[k] = x[Order[k]]. After
	// BuildOrder and RelabelTo, Sorted is the caller's permuted positions themselves.
	Order  []int32
	Sorted []Vec3
	own    []Vec3  // the buffer Build writes Sorted into
	cellOf []int32 // point → cell index

	cellStart []int32 // points of cell c are Order[cellStart[c]:cellStart[c+1]]
	cellCoord [][3]int32
	cellKey   []uint64
	table     []int32 // open-addressing hash table of cell indices, keyed by cellKey
	tableBits uint
	// dense maps a cell's linear index inside the occupied box to its cell index (-1: empty).
	// It replaces the hash table when the box has at most denseFactor cells per point (plus a
	// small constant), keeping memory proportional to the points while a lookup becomes one
	// array read instead of a key and a probe. Its box, from dorg with extent dext,
	// is the occupied box grown by one cell on every side, so that all 27 neighbours of every
	// occupied cell lie inside it and Adjacent takes them at fixed offsets (a grid's cells on
	// the faces of its box, about half the cells of a compact block of fluid, used to look
	// each neighbour up on its own).
	dense      []int32
	dorg, dext [3]int32

	key    []uint64
	tmpKey []uint64
	tmpIdx []int32
	count  []int32
	coord  [][3]int32
	bmin   [][3]int32 // per-block minimum and maximum cell coordinate
	bmax   [][3]int32
	bad    []int32 // per-block first non-finite point, -1 if none
	self   []int32 // 27 adjacent cells of each cell in this grid

	// Arguments of the block loops in flight, and the loops as method values made once, so a
	// Build allocates nothing once its buffers have grown. A Grid must not be copied.
	x                       []Vec3
	inv                     float64
	adjOther                *Grid
	adjOut                  []int32
	fnCoords, fnKeys, fnAdj func(lo, hi, block int)

	// The chunked sort's and cell pass's state (see radixSort): points, chunks, the digit's
	// shift, the pass's index and key arrays, and each chunk's cell count, then first cell.
	n, chunks                                     int
	sortShift                                     uint
	sortSrc, sortDst                              []int32
	sortKeys, sortKeyBuf                          []uint64
	chunkCells                                    []int32
	fnCount, fnScatter, fnCellsCount, fnCellsFill func(lo, hi, block int)
}

func (g *Grid) init() {
	if g.fnCoords == nil {
		g.fnCoords, g.fnKeys, g.fnAdj = g.coordsBlock, g.keysBlock, g.adjacentBlock
		g.fnCount, g.fnScatter = g.countChunk, g.scatterChunk
		g.fnCellsCount, g.fnCellsFill = g.cellsCountChunk, g.cellsFillChunk
	}
}

// ReleaseScratch frees the buffers only Build uses (the points' cell coordinates and keys, the
// radix sort's scratch and the per-block bounds): 40 bytes a point. A grid that is built once
// and then only searched, such as the boundary grid of a world whose walls do not move, calls
// it after Build; a later Build grows the buffers again.
func (g *Grid) ReleaseScratch() {
	g.coord, g.key, g.tmpKey, g.tmpIdx, g.count = nil, nil, nil, nil, nil
	g.bmin, g.bmax, g.bad = nil, nil, nil
}

// NumCells returns the number of occupied cells.
func (g *Grid) NumCells() int { return len(g.cellKey) }

// Build sorts the points x into the grid. It fails if a coordinate is not finite or the points
// span more than 2²¹ cells on an axis; callers remove particles that leave the domain first.
func (g *Grid) Build(x []Vec3, h float64, pool *par.Pool) error {
	return g.build(x, h, pool, true)
}

// BuildOrder is Build without Sorted, for a caller that permutes its points into Order
// (Permuter.Apply) and then calls RelabelTo with them: the grid is searched only after
// RelabelTo, and keeps no copy of the positions (24 bytes a point) nor spends the pass that
// writes one. Until RelabelTo, Sorted is nil.
func (g *Grid) BuildOrder(x []Vec3, h float64, pool *par.Pool) error {
	return g.build(x, h, pool, false)
}

func (g *Grid) build(x []Vec3, h float64, pool *par.Pool, sorted bool) error {
	if !(h > 0) {
		return fmt.Errorf("grid cell size %g must be > 0", h)
	}
	g.H = h
	n := len(x)
	nb := par.Blocks(n)
	g.coord = grow(g.coord, n)
	g.key = grow(g.key, n)
	g.cellOf = grow(g.cellOf, n)
	g.bmin = grow(g.bmin, nb)
	g.bmax = grow(g.bmax, nb)
	g.bad = grow(g.bad, nb)
	g.init()
	g.x, g.inv, g.n = x, 1/h, n
	pool.For(n, g.fnCoords)
	for b := 0; b < nb; b++ {
		if g.bad[b] >= 0 {
			i := g.bad[b]
			return fmt.Errorf("point %d has a non-finite or huge position %v", i, x[i])
		}
	}
	g.origin = [3]int32{}
	g.extent = [3]int32{}
	if n > 0 {
		mn, mx := g.bmin[0], g.bmax[0]
		for b := 1; b < nb; b++ {
			for d := 0; d < 3; d++ {
				mn[d] = min(mn[d], g.bmin[b][d])
				mx[d] = max(mx[d], g.bmax[b][d])
			}
		}
		for d := 0; d < 3; d++ {
			if int64(mx[d])-int64(mn[d]) > maxCoord {
				return fmt.Errorf("points span %d cells on axis %d, more than the grid's %d", int64(mx[d])-int64(mn[d]), d, maxCoord)
			}
		}
		g.origin = mn
		g.extent = [3]int32{mx[0] - mn[0], mx[1] - mn[1], mx[2] - mn[2]}
	}
	g.keyAxes()
	pool.For(n, g.fnKeys)
	keyBits := bits.Len64(g.cellKeyOf([3]uint32{uint32(g.extent[0]), uint32(g.extent[1]), uint32(g.extent[2])}))
	g.radixSort(n, keyBits, pool)

	// Runs of equal keys are cells: counted per chunk, numbered in chunk order, then written.
	chunks := g.chunksFor(n)
	g.chunkCells = grow(g.chunkCells, chunks)
	g.Sorted = nil
	if sorted {
		g.own = grow(g.own, n)
		g.Sorted = g.own
	}
	g.forChunks(chunks, g.fnCellsCount, pool)
	nc := int32(0)
	for c := range g.chunkCells[:chunks] {
		nc, g.chunkCells[c] = nc+g.chunkCells[c], nc
	}
	g.cellStart = grow(g.cellStart, int(nc)+1)
	g.cellKey = grow(g.cellKey, int(nc))
	g.cellCoord = grow(g.cellCoord, int(nc))
	g.forChunks(chunks, g.fnCellsFill, pool)
	g.cellStart[nc] = int32(n)

	g.dorg = [3]int32{g.origin[0] - 1, g.origin[1] - 1, g.origin[2] - 1}
	g.dext = [3]int32{g.extent[0] + 2, g.extent[1] + 2, g.extent[2] + 2}
	box := (int64(g.dext[0]) + 1) * (int64(g.dext[1]) + 1) * (int64(g.dext[2]) + 1)
	if box <= denseFactor*int64(n)+denseMin {
		g.dense = grow(g.dense, int(box))
		for i := range g.dense {
			g.dense[i] = -1
		}
		for c := range g.cellCoord {
			g.dense[g.denseIndex(g.cellCoord[c])] = int32(c)
		}
		g.table = g.table[:0]
	} else {
		g.dense = g.dense[:0]
		g.buildTable(int(nc))
	}
	if !g.NoSelf {
		g.self = grow(g.self, 27*int(nc))
		g.Adjacent(g, g.self, pool)
	}
	g.x = nil
	return nil
}

// denseFactor and denseMin bound the dense cell index: at most 4 cells per point plus 2¹⁶.
const (
	denseFactor = 4
	denseMin    = 1 << 16
)

// denseIndex is the linear index of absolute cell coordinate c inside the dense box; the
// caller ensures c lies in it.
func (g *Grid) denseIndex(c [3]int32) int {
	nx, ny := int(g.dext[0])+1, int(g.dext[1])+1
	return (int(c[2]-g.dorg[2])*ny+int(c[1]-g.dorg[1]))*nx + int(c[0]-g.dorg[0])
}

func (g *Grid) buildTable(nc int) {
	g.tableBits = uint(bits.Len(uint(2*nc + 1)))
	g.table = grow(g.table, 1<<g.tableBits)
	for s := range g.table {
		g.table[s] = -1
	}
	mask := uint64(len(g.table) - 1)
	for c := 0; c < nc; c++ {
		s := g.slot(g.cellKey[c])
		for g.table[s] >= 0 {
			s = (s + 1) & mask
		}
		g.table[s] = int32(c)
	}
}

func (g *Grid) slot(key uint64) uint64 {
	return (key * 0x9E3779B97F4A7C15) >> (64 - g.tableBits)
}

// lookup returns the index of the cell at absolute coordinate c, or -1 if it is empty.
func (g *Grid) lookup(c [3]int32) int32 {
	if len(g.cellKey) == 0 {
		return -1
	}
	if len(g.dense) > 0 {
		for d := 0; d < 3; d++ {
			v := int64(c[d]) - int64(g.dorg[d])
			if v < 0 || v > int64(g.dext[d]) {
				return -1
			}
		}
		return g.dense[g.denseIndex(c)]
	}
	var r [3]uint32
	for d := 0; d < 3; d++ {
		v := int64(c[d]) - int64(g.origin[d])
		if v < 0 || v > int64(g.extent[d]) {
			return -1
		}
		r[d] = uint32(v)
	}
	key := g.cellKeyOf(r)
	mask := uint64(len(g.table) - 1)
	for s := g.slot(key); ; s = (s + 1) & mask {
		ci := g.table[s]
		if ci < 0 {
			return -1
		}
		if g.cellKey[ci] == key {
			return ci
		}
	}
}

// Adjacent fills out[27c:27c+27] with the cells of grid other (built with the same H) that are
// adjacent to cell c of g, or -1 where other has no points. Offsets run x fastest, then y, z.
func (g *Grid) Adjacent(other *Grid, out []int32, pool *par.Pool) {
	g.init()
	g.adjOther, g.adjOut = other, out
	pool.For(len(g.cellKey), g.fnAdj)
	g.adjOther, g.adjOut = nil, nil
}

func (g *Grid) adjacentBlock(lo, hi, _ int) {
	other, out := g.adjOther, g.adjOut
	// With other's dense index, a cell whose 27 neighbours all lie inside other's box finds
	// them at fixed offsets from its own dense index, in the same order as the loops below.
	var off [27]int
	dense := other.dense
	ex := other.dext
	if len(dense) > 0 {
		nx, nxy := int(ex[0])+1, (int(ex[0])+1)*(int(ex[1])+1)
		o := 0
		for dz := -1; dz <= 1; dz++ {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					off[o] = dz*nxy + dy*nx + dx
					o++
				}
			}
		}
	}
	for c := lo; c < hi; c++ {
		cc := g.cellCoord[c]
		o := 27 * c
		if len(dense) > 0 {
			vx, vy, vz := cc[0]-other.dorg[0], cc[1]-other.dorg[1], cc[2]-other.dorg[2]
			if vx >= 1 && vx < ex[0] && vy >= 1 && vy < ex[1] && vz >= 1 && vz < ex[2] {
				base := other.denseIndex(cc)
				dst := out[o : o+27]
				for k := range dst {
					dst[k] = dense[base+off[k]]
				}
				continue
			}
		}
		for dz := int32(-1); dz <= 1; dz++ {
			for dy := int32(-1); dy <= 1; dy++ {
				for dx := int32(-1); dx <= 1; dx++ {
					out[o] = other.lookup([3]int32{cc[0] + dx, cc[1] + dy, cc[2] + dz})
					o++
				}
			}
		}
	}
}

// keysBlock computes the cell keys of a block of points (cellKeyOf).
func (g *Grid) keysBlock(lo, hi, _ int) {
	org := g.origin
	for i := lo; i < hi; i++ {
		c := g.coord[i]
		g.key[i] = g.cellKeyOf([3]uint32{uint32(c[0] - org[0]), uint32(c[1] - org[1]), uint32(c[2] - org[2])})
	}
}

// coordsBlock computes the cell coordinates of a block of points and their bounds.
func (g *Grid) coordsBlock(lo, hi, b int) {
	x, inv := g.x, g.inv
	mn := [3]int32{math.MaxInt32, math.MaxInt32, math.MaxInt32}
	mx := [3]int32{math.MinInt32, math.MinInt32, math.MinInt32}
	g.bad[b] = -1
	for i := lo; i < hi; i++ {
		var c [3]int32
		for d := 0; d < 3; d++ {
			f := math.Floor(x[i][d] * inv)
			if !(f > -1e9 && f < 1e9) {
				if g.bad[b] < 0 {
					g.bad[b] = int32(i)
				}
				f = 0
			}
			c[d] = int32(f)
			mn[d] = min(mn[d], c[d])
			mx[d] = max(mx[d], c[d])
		}
		g.coord[i] = c
	}
	g.bmin[b], g.bmax[b] = mn, mx
}

// sortChunks is the number of contiguous chunks of the sort's input that count their digits
// and scatter their keys in parallel (and of the cell pass after it). A stable sort's result
// does not depend on how its input is chunked, so the sorted order, the cells and everything
// searched from them are the same for any chunking and any number of workers
// (TestParallelSortMatchesSerial); the chunk count only bounds the per-chunk digit counts'
// memory (sortChunks × 2¹¹ counters).
const sortChunks = 8

// parallelSortMin is the number of points from which Build sorts in chunks: below it one chunk
// is cheaper than dispatching eight.
const parallelSortMin = 1 << 14

// sortDigit is the radix sort's digit width in bits.
const sortDigit = 11

// radixSort fills Order with the point indices sorted by key (LSD radix, 11-bit digits,
// stable: equal keys keep index order). Each pass counts the digits per chunk, lays out every
// (digit, chunk) run in digit-major, chunk-minor order and lets each chunk scatter its own
// keys into its runs, so the passes run in parallel and stay stable.
func (g *Grid) radixSort(n, keyBits int, pool *par.Pool) {
	const buckets = 1 << sortDigit
	g.Order = grow(g.Order, n)
	g.tmpIdx = grow(g.tmpIdx, n)
	g.tmpKey = grow(g.tmpKey, 2*n)
	chunks := g.chunksFor(n)
	g.count = grow(g.count, chunks*buckets)
	g.sortSrc, g.sortDst = g.Order, g.tmpIdx
	g.sortKeys, g.sortKeyBuf = g.tmpKey[:n], g.tmpKey[n:2*n]
	for i := range g.sortSrc {
		g.sortSrc[i] = int32(i)
	}
	copy(g.sortKeys, g.key[:n])
	for shift := 0; shift < keyBits; shift += sortDigit {
		g.sortShift = uint(shift)
		g.forChunks(chunks, g.fnCount, pool)
		sum := int32(0)
		for d := 0; d < buckets; d++ {
			for c := 0; c < chunks; c++ {
				k := c*buckets + d
				cnt := g.count[k]
				g.count[k] = sum
				sum += cnt
			}
		}
		g.forChunks(chunks, g.fnScatter, pool)
		g.sortSrc, g.sortDst = g.sortDst, g.sortSrc
		g.sortKeys, g.sortKeyBuf = g.sortKeyBuf, g.sortKeys
	}
	if n > 0 && &g.sortSrc[0] != &g.Order[0] {
		copy(g.Order, g.sortSrc)
	}
	g.sortSrc, g.sortDst, g.sortKeys, g.sortKeyBuf = nil, nil, nil, nil
}

// chunksFor returns the number of chunks Build's sort and cell pass split n points into.
func (g *Grid) chunksFor(n int) int {
	if n < parallelSortMin {
		return 1
	}
	return sortChunks
}

// chunkRange returns the points [lo, hi) of chunk c when n points are cut into chunks.
func chunkRange(n, chunks, c int) (int, int) {
	return c * n / chunks, (c + 1) * n / chunks
}

// forChunks runs fn(c) for every chunk c < chunks: through the pool, one work block per chunk,
// when there are several.
func (g *Grid) forChunks(chunks int, fn func(lo, hi, block int), pool *par.Pool) {
	g.chunks = chunks
	if chunks == 1 {
		fn(0, par.BlockSize, 0)
		return
	}
	pool.For(chunks*par.BlockSize, fn)
}

// countChunk counts the current digit of chunk c's keys into its row of g.count.
func (g *Grid) countChunk(_, _, c int) {
	const buckets = 1 << sortDigit
	lo, hi := chunkRange(g.n, g.chunks, c)
	cnt := g.count[c*buckets : (c+1)*buckets]
	clear(cnt)
	shift := g.sortShift
	for _, k := range g.sortKeys[lo:hi] {
		cnt[(k>>shift)&(buckets-1)]++
	}
}

// scatterChunk moves chunk c's indices and keys to their places for the current digit, in
// chunk order within each digit's run (stable).
func (g *Grid) scatterChunk(_, _, c int) {
	const buckets = 1 << sortDigit
	lo, hi := chunkRange(g.n, g.chunks, c)
	cnt := g.count[c*buckets : (c+1)*buckets]
	shift := g.sortShift
	src, dst, keys, keyBuf := g.sortSrc, g.sortDst, g.sortKeys, g.sortKeyBuf
	for k := lo; k < hi; k++ {
		key := keys[k]
		d := (key >> shift) & (buckets - 1)
		p := cnt[d]
		cnt[d]++
		dst[p] = src[k]
		keyBuf[p] = key
	}
}

// cellsCountChunk fills Sorted over chunk c (unless BuildOrder left it nil) and counts the
// cells that start in it (a point whose key differs from the point before it in the sorted
// order starts a cell).
func (g *Grid) cellsCountChunk(_, _, c int) {
	lo, hi := chunkRange(g.n, g.chunks, c)
	order, key, x := g.Order, g.key, g.x
	if g.Sorted != nil {
		for k := lo; k < hi; k++ {
			g.Sorted[k] = x[order[k]]
		}
	}
	starts := int32(0)
	for k := lo; k < hi; k++ {
		i := order[k]
		if k == 0 || key[i] != key[order[k-1]] {
			starts++
		}
	}
	g.chunkCells[c] = starts
}

// cellsFillChunk writes the cells that start in chunk c, from its first cell index
// g.chunkCells[c], and each of its points' cell.
func (g *Grid) cellsFillChunk(_, _, c int) {
	lo, hi := chunkRange(g.n, g.chunks, c)
	order, key := g.Order, g.key
	cell := g.chunkCells[c] - 1 // the cell the chunk's first point belongs to if it starts none
	for k := lo; k < hi; k++ {
		i := order[k]
		if k == 0 || key[i] != key[order[k-1]] {
			cell++
			g.cellStart[cell] = int32(k)
			g.cellKey[cell] = key[i]
			g.cellCoord[cell] = g.coord[i]
		}
		g.cellOf[i] = cell
	}
}

// Relabel makes the grid that of its points permuted into the grid's order, after the caller
// has set x′[k] = x[Order[k]] (Permuter.Apply with Order): exactly the grid a Build of x′
// would make, since the points of a cell keep their relative order and a Build breaks ties
// by index, without sorting again. Order becomes the identity and each point's cell its
// position's; the cells, their adjacency and Sorted are unchanged.
func (g *Grid) Relabel() {
	for c := range len(g.cellStart) - 1 {
		for k := g.cellStart[c]; k < g.cellStart[c+1]; k++ {
			g.Order[k], g.cellOf[k] = k, int32(c)
		}
	}
}

// RelabelTo is Relabel after BuildOrder: xp are the permuted points (x′ above), and Sorted
// becomes xp itself, which is x′[Order[k]] once Order is the identity. The grid then reads the
// caller's positions: it stays the grid of xp only while they do not move, as any grid stays
// that of the positions it was built from.
func (g *Grid) RelabelTo(xp []Vec3) {
	if len(xp) != g.n {
		panic("physics: Grid.RelabelTo with another number of points than the grid's")
	}
	g.Relabel()
	g.Sorted = xp
}

// keyAxes chooses the key's axes (see Grid). Per axis it counts the points in each layer of
// cells across it, on every layerSample-th point, and orders the axes by their most populated
// layer, fullest first: the rows run along the axis whose layers hold the most points and the
// layers are taken across the one whose fullest layer holds the fewest, which bounds the
// arrays' distance between neighbours. The counts, not the extents, decide, as a few far
// splashes would stretch an axis's extent without thinning its layers. An axis longer than
// maxLayers cells (points scattered far apart) counts as the emptiest. Ties go by axis, x
// before y before z. The choice depends on the points alone, so it is the same for any worker
// count and after a restore.
func (g *Grid) keyAxes() {
	e := g.extent
	var full [3]int32
	for d := 0; d < 3; d++ {
		if e[d] >= maxLayers {
			continue
		}
		h := grow(g.layers[d], int(e[d])+1)
		clear(h)
		o := g.origin[d]
		for i := 0; i < g.n; i += layerSample {
			c := g.coord[i][d] - o
			h[c]++
			full[d] = max(full[d], h[c])
		}
		g.layers[d] = h
	}
	a := [3]int{0, 1, 2}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if full[a[j]] > full[a[i]] {
				a[i], a[j] = a[j], a[i]
			}
		}
	}
	g.axes = a
	g.stride = [3]uint64{1, uint64(e[a[0]]) + 1, (uint64(e[a[0]]) + 1) * (uint64(e[a[1]]) + 1)}
}

// layerSample and maxLayers bound keyAxes's work: it counts every 17th point, in at most 2¹⁶
// layers per axis. The stride is prime, so that it does not alias with the rows of a lattice
// block or with the eight points of a cell: every 16th point of a block sampled every other
// layer of cells and doubled the count of those it hit (TestCellOrderIgnoresFarSplashes).
const (
	layerSample = 17
	maxLayers   = 1 << 16
)

// cellKeyOf is the key of the cell at coordinate r relative to the grid's origin (inside its
// extent): its index in the row-by-row order of Grid.
func (g *Grid) cellKeyOf(r [3]uint32) uint64 {
	a, s := &g.axes, &g.stride
	return uint64(r[a[0]]) + s[1]*uint64(r[a[1]]) + s[2]*uint64(r[a[2]])
}

// grow is par.Grow, named short for the many buffers of this package.
func grow[T any](s []T, n int) []T { return par.Grow(s, n) }

// SelfAdjacent returns the 27 adjacent cells of each cell within the grid itself, for Search
// over one point set.
func (g *Grid) SelfAdjacent() []int32 { return g.self }
