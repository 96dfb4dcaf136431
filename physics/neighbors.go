package physics

import "github.com/sluicephysics/sluice/physics/par"

// Neighbors holds, for every query point i, the points j of a target set within the kernel
// support, with the kernel value W_ij and gradient ∇_i W(x_i − x_j) of each pair. The lists are
// compressed sparse rows laid out per work block of par.BlockSize query points, so the parallel
// search writes each block's rows without a second counting pass or a final copy, and a stage
// that loops over the same blocks reads them in place.
type Neighbors struct {
	N      int // number of query points
	Blocks []NeighborBlock
}

// NeighborBlock is the CSR of one block of query points [Lo, Lo+BlockSize).
type NeighborBlock struct {
	Lo    int
	Start []int32 // pairs of point Lo+k are entries Start[k]:Start[k+1]
	J     []int32
	W     []float64
	GW    []Vec3
}

// Of returns the neighbour indices, kernel values and gradients of query point i.
func (nb *Neighbors) Of(i int) ([]int32, []float64, []Vec3) {
	b := &nb.Blocks[i/par.BlockSize]
	k := i - b.Lo
	s, e := b.Start[k], b.Start[k+1]
	return b.J[s:e], b.W[s:e], b.GW[s:e]
}

// Pairs returns the total number of stored pairs.
func (nb *Neighbors) Pairs() int {
	n := 0
	for b := range nb.Blocks {
		n += len(nb.Blocks[b].J)
	}
	return n
}

// Search fills out with the neighbours in target grid tg (positions xt) of every query point
// of grid qg (positions xq), using adj, the 27 adjacent target cells of each query cell (from
// qg.Adjacent(tg, …)). With same set, a point is not its own neighbour. Each list is ordered by
// adjacent cell, then by the target grid's z-order, so it does not depend on the worker count.
func Search(qg *Grid, xq []Vec3, tg *Grid, adj []int32, kr *Kernel, sameSet bool, out *Neighbors, pool *par.Pool) {
	n := len(xq)
	nb := par.Blocks(n)
	out.N = n
	if cap(out.Blocks) < nb {
		nbs := make([]NeighborBlock, nb)
		copy(nbs, out.Blocks[:cap(out.Blocks)])
		out.Blocks = nbs
	}
	out.Blocks = out.Blocks[:nb]
	h2 := kr.H * kr.H
	pool.For(n, func(lo, hi, b int) {
		blk := &out.Blocks[b]
		blk.Lo = lo
		blk.Start = grow(blk.Start, hi-lo+1)
		blk.J, blk.W, blk.GW = blk.J[:0], blk.W[:0], blk.GW[:0]
		for i := lo; i < hi; i++ {
			blk.Start[i-lo] = int32(len(blk.J))
			xi := xq[i]
			cells := adj[27*int(qg.cellOf[i]) : 27*int(qg.cellOf[i])+27]
			for _, c := range cells {
				if c < 0 {
					continue
				}
				s, e := tg.cellStart[c], tg.cellStart[c+1]
				for k := s; k < e; k++ {
					xj := &tg.Sorted[k]
					dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
					r2 := dx*dx + dy*dy + dz*dz
					if r2 >= h2 {
						continue
					}
					j := tg.Order[k]
					if sameSet && int(j) == i {
						continue
					}
					r := sqrt(r2)
					g := kr.GradFactor(r)
					blk.J = append(blk.J, j)
					blk.W = append(blk.W, kr.W(r))
					blk.GW = append(blk.GW, Vec3{g * dx, g * dy, g * dz})
				}
			}
		}
		blk.Start[hi-lo] = int32(len(blk.J))
	})
}
