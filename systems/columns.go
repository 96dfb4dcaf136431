package systems

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// columns is the fluid particles sorted into vertical columns of a square grid in x and z,
// built once per step for the rigid bodies' submerged fractions: a body then looks at the
// particles in the columns under its horizontal reach instead of at every particle.
type columns struct {
	cell       float64
	lo         [2]float64 // x, z of the grid's corner
	nx, nz     int
	start, idx []int32 // particles of column c: idx[start[c]:start[c+1]], in particle order
}

// build sorts the particles x into columns of at least the given size (a counting sort:
// deterministic, and no allocation once the slices have grown). A sparse spread coarsens the
// columns so that the grid stays within a few cells per particle.
func (g *columns) build(x []physics.Vec3, cell float64) {
	g.nx, g.nz = 0, 0
	if len(x) == 0 {
		return
	}
	lo, hi := [2]float64{x[0][0], x[0][2]}, [2]float64{x[0][0], x[0][2]}
	for _, p := range x {
		lo[0], hi[0] = math.Min(lo[0], p[0]), math.Max(hi[0], p[0])
		lo[1], hi[1] = math.Min(lo[1], p[2]), math.Max(hi[1], p[2])
	}
	limit := float64(4*len(x) + 1024)
	for (hi[0]-lo[0])/cell*(hi[1]-lo[1])/cell > limit {
		cell *= 2
	}
	g.cell, g.lo = cell, lo
	g.nx = int((hi[0]-lo[0])/cell) + 1
	g.nz = int((hi[1]-lo[1])/cell) + 1
	n := g.nx * g.nz
	if cap(g.start) < n+1 {
		g.start = make([]int32, n+1)
	}
	g.start = g.start[:n+1]
	clear(g.start)
	for _, p := range x {
		g.start[g.of(p[0], p[2])+1]++
	}
	for c := 0; c < n; c++ {
		g.start[c+1] += g.start[c]
	}
	if cap(g.idx) < len(x) {
		g.idx = make([]int32, len(x))
	}
	g.idx = g.idx[:len(x)]
	// place each particle at its column's next free slot, advancing start[c] as a cursor;
	// afterwards start[c] is the column's end, so shift the array back by one
	for i, p := range x {
		c := g.of(p[0], p[2])
		g.idx[g.start[c]] = int32(i)
		g.start[c]++
	}
	copy(g.start[1:], g.start[:n])
	g.start[0] = 0
}

// of returns the column of the point (x, z), clamped to the grid.
func (g *columns) of(x, z float64) int {
	i := min(g.nx-1, max(0, int((x-g.lo[0])/g.cell)))
	k := min(g.nz-1, max(0, int((z-g.lo[1])/g.cell)))
	return i*g.nz + k
}

// span returns the columns (i0..i1, k0..k1) that meet the square of half side r about (x, z);
// empty (i0 > i1) when there are none.
func (g *columns) span(x, z, r float64) (i0, i1, k0, k1 int) {
	if g.nx == 0 {
		return 1, 0, 1, 0
	}
	i0 = max(0, int(math.Floor((x-r-g.lo[0])/g.cell)))
	i1 = min(g.nx-1, int(math.Floor((x+r-g.lo[0])/g.cell)))
	k0 = max(0, int(math.Floor((z-r-g.lo[1])/g.cell)))
	k1 = min(g.nz-1, int(math.Floor((z+r-g.lo[1])/g.cell)))
	return i0, i1, k0, k1
}
