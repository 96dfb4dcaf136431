package volumemap

import (
	"sync"

	"github.com/sluicephysics/sluice/physics"
)

// farCells marks, per grid cell At interpolates in (bit i + n0(j + n1 k) of the cell whose
// lowest stencil node is (i, j, k)), the cells whose 4³ stencil nodes all lie a support
// radius or more from the wall (φ ≥ H). It is computed on the first Far call (once; Far may
// be called from many goroutines).
type farCells struct {
	once sync.Once
	bits []uint64
}

// Far reports whether the wall has no virtual boundary particle within the kernel support of a
// fluid particle at x: x lies outside Bounds, or every node At would interpolate from lies a
// support radius or more from the wall (φ ≥ H). At's φ there departs from the nodes' by at most
// the interpolation error (0.056H at the default cell, the package doc's table), less than the
// half radius by which Offset places the particle beyond φ (R/2 = H/8 for the world's H = 4R), so
// the particle would lie beyond the support: Offset(φ, R) ≥ H (TestFarSkipsOnlyWhereThereIsNoParticle).
// Far costs a few nanoseconds where At costs a few hundred, so a caller asks it first for the
// many particles away from the walls.
func (m *Map) Far(x physics.Vec3) bool {
	if !(x[0] >= m.boxLo[0] && x[0] <= m.boxHi[0] && x[1] >= m.boxLo[1] && x[1] <= m.boxHi[1] && x[2] >= m.boxLo[2] && x[2] <= m.boxHi[2]) {
		return true
	}
	m.far.once.Do(m.markFar)
	c := 0
	stride := 1
	for d := 0; d < 3; d++ {
		i := int((x[d] - m.lo[d]) * m.inv)
		i = min(max(i, 1), m.n[d]-3) // as in At
		c += (i - 1) * stride
		stride *= m.n[d]
	}
	return m.far.bits[c>>6]>>(c&63)&1 == 1
}

// markFar fills far.bits: a node is far where φ ≥ H; a cell is far when the 4 nodes from its
// lowest stencil node on along x, then along y, then along z, are all zero (three passes of a
// running AND over windows of 4).
func (m *Map) markFar() {
	n0, n1, n2 := m.n[0], m.n[1], m.n[2]
	total := n0 * n1 * n2
	a := make([]bool, total)
	for idx := range a {
		a[idx] = m.nodes[2*idx] >= m.opt.H
	}
	b := make([]bool, total)
	window := func(src, dst []bool, stride, n, axis int) {
		for idx := range dst {
			var i int
			switch axis {
			case 0:
				i = idx % n0
			case 1:
				i = (idx / n0) % n1
			default:
				i = idx / (n0 * n1)
			}
			ok := i+3 < n
			for s := 0; ok && s < 4; s++ {
				ok = src[idx+s*stride]
			}
			dst[idx] = ok
		}
	}
	window(a, b, 1, n0, 0)
	window(b, a, n0, n1, 1)
	window(a, b, n0*n1, n2, 2)
	m.far.bits = make([]uint64, (total+63)/64)
	for idx, f := range b {
		if f {
			m.far.bits[idx>>6] |= 1 << (idx & 63)
		}
	}
}
