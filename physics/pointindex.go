package physics

import (
	"cmp"
	"math"
	"slices"
)

// PointIndex finds the points within a distance of a position: the points sorted by cell
// (keyed by cell coordinates, so memory follows the points, not the space they span), with the
// sorted list of occupied cells. A key orders cells by x, then z, then y, so the cells of a
// vertical column are contiguous (QueryColumn). Building and querying are serial and
// deterministic.
type PointIndex struct {
	cell  float64
	keys  []uint64 // occupied cells, sorted
	start []int32  // points of keys[c] are idx[start[c]:start[c+1]]
	idx   []int32
	kps   []keyedPoint
}

const (
	cellBias = 1 << 20
	cellMax  = 1<<21 - 1
)

func cellKey(x, y, z int64) uint64 {
	return uint64(x+cellBias)<<42 | uint64(z+cellBias)<<21 | uint64(y+cellBias)
}

// keyedPoint is a point's cell key and index, sorted by key to build the index.
type keyedPoint struct {
	k uint64
	i int32
}

func cmpKeyed(a, b keyedPoint) int {
	if a.k != b.k {
		return cmp.Compare(a.k, b.k)
	}
	return cmp.Compare(a.i, b.i)
}

func cellOf(v, cell float64) int64 {
	return min(max(int64(math.Floor(v/cell)), -cellBias), cellMax-cellBias)
}

// Build indexes the points x[i] for i in ids with cubic cells of the given size (m). Within a
// cell the points are in index order. Coordinates beyond 2²⁰ cells from the origin share the
// outermost cells (queries stay exact, only slower there).
func (pi *PointIndex) Build(x []Vec3, ids []int32, cell float64) {
	pi.cell = cell
	pi.idx = pi.idx[:0]
	if cap(pi.kps) < len(ids) {
		pi.kps = make([]keyedPoint, len(ids))
	}
	kps := pi.kps[:len(ids)]
	for n, i := range ids {
		p := x[i]
		kps[n] = keyedPoint{cellKey(cellOf(p[0], cell), cellOf(p[1], cell), cellOf(p[2], cell)), i}
	}
	slices.SortFunc(kps, cmpKeyed)
	pi.keys, pi.start = pi.keys[:0], pi.start[:0]
	for n, e := range kps {
		if n == 0 || e.k != kps[n-1].k {
			pi.keys = append(pi.keys, e.k)
			pi.start = append(pi.start, int32(n))
		}
		pi.idx = append(pi.idx, e.i)
	}
	pi.start = append(pi.start, int32(len(kps)))
}

// Query appends to out the indices of the points within rad of c, in cell order.
func (pi *PointIndex) Query(c Vec3, rad float64, x []Vec3, out []int32) []int32 {
	if len(pi.keys) == 0 {
		return out
	}
	r2 := rad * rad
	ylo, yhi := cellOf(c[1]-rad, pi.cell), cellOf(c[1]+rad, pi.cell)
	for ix := cellOf(c[0]-rad, pi.cell); ix <= cellOf(c[0]+rad, pi.cell); ix++ {
		for iz := cellOf(c[2]-rad, pi.cell); iz <= cellOf(c[2]+rad, pi.cell); iz++ {
			k0, k1 := cellKey(ix, ylo, iz), cellKey(ix, yhi, iz)
			a, _ := slices.BinarySearch(pi.keys, k0)
			for q := a; q < len(pi.keys) && pi.keys[q] <= k1; q++ {
				for _, i := range pi.idx[pi.start[q]:pi.start[q+1]] {
					p := x[i]
					dx, dy, dz := p[0]-c[0], p[1]-c[1], p[2]-c[2]
					if dx*dx+dy*dy+dz*dz <= r2 {
						out = append(out, i)
					}
				}
			}
		}
	}
	return out
}

// QueryColumn appends to out the indices of the points within horizontal distance rad of the
// vertical line through (cx, cz), at any height, in cell order.
func (pi *PointIndex) QueryColumn(cx, cz, rad float64, x []Vec3, out []int32) []int32 {
	if len(pi.keys) == 0 {
		return out
	}
	r2 := rad * rad
	for ix := cellOf(cx-rad, pi.cell); ix <= cellOf(cx+rad, pi.cell); ix++ {
		for iz := cellOf(cz-rad, pi.cell); iz <= cellOf(cz+rad, pi.cell); iz++ {
			k0, k1 := cellKey(ix, -cellBias, iz), cellKey(ix, cellMax-cellBias, iz)
			a, _ := slices.BinarySearch(pi.keys, k0)
			for q := a; q < len(pi.keys) && pi.keys[q] <= k1; q++ {
				for _, i := range pi.idx[pi.start[q]:pi.start[q+1]] {
					p := x[i]
					dx, dz := p[0]-cx, p[2]-cz
					if dx*dx+dz*dz <= r2 {
						out = append(out, i)
					}
				}
			}
		}
	}
	return out
}
