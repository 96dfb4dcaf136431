package physics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

// searchSame searches the points x against themselves into nb.
func searchSame(t *testing.T, x []Vec3, h float64, nb *Neighbors, pool *par.Pool) {
	t.Helper()
	var g Grid
	if err := g.Build(x, h, pool); err != nil {
		t.Fatal(err)
	}
	kr := NewKernel(CubicSpline, h)
	Search(&g, x, &g, g.SelfAdjacent(), &kr, true, nb, pool)
}

// sameLists fails unless got holds, point by point, the lists and sums of want.
func sameLists(t *testing.T, name string, got, want *Neighbors) {
	t.Helper()
	if got.N != want.N {
		t.Fatalf("%s: %d query points, want %d", name, got.N, want.N)
	}
	for i := range want.N {
		gj, gw, gg := got.Of(i)
		wj, ww, wg := want.Of(i)
		if !slices.Equal(gj, wj) || !slices.Equal(gw, ww) || !slices.Equal(gg, wg) || got.Sum[i] != want.Sum[i] {
			t.Fatalf("%s: point %d: the lists differ from a fresh search's", name, i)
		}
	}
}

// TestSlabLayoutKeepsTheLists: where a search writes its lists (the regions Neighbors lays out
// in its slab from predicted pair counts, the reserve a block that outgrows its region moves
// to, the compaction when the reserve is too small, the slab's growth) changes nothing in
// them. One Neighbors searches, in turn, a set with isolated and dense blocks from nothing,
// the same set again, the set after a Reorder whose order lies about the points (blocks
// predicted too many, too few and the right pairs), the set with one block's points drawn
// together, half the set and the whole set again; after each search its lists and sums equal
// those of a fresh Neighbors searching the same points, and every path was taken.
func TestSlabLayoutKeepsTheLists(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewPCG(21, 22))
	// 2 blocks of isolated points (no pairs), then 20 blocks of a dense cloud
	iso, n := 2*par.BlockSize, 22*par.BlockSize
	x := make([]Vec3, n)
	for i := range iso {
		x[i] = Vec3{10 + 3*h*float64(i), 0, 0}
	}
	for i := iso; i < n; i++ {
		x[i] = Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		if i >= n/2+iso/2 {
			x[i][0] += 3 // the last 10 blocks in a second cloud
		}
	}
	for _, workers := range []int{1, 2} {
		pool := par.NewPool(workers)
		var nb Neighbors
		check := func(name string, pts []Vec3) {
			t.Helper()
			var fresh Neighbors
			searchSame(t, pts, h, &fresh, pool)
			sameLists(t, name, &nb, &fresh)
		}

		searchSame(t, x, h, &nb, pool)
		check("first search", x)
		if nb.Spills() != 20 || nb.slabLen() == 0 || nb.compacted != 1 {
			t.Fatalf("first search: %d blocks spilled, %d compactions; want the 20 dense ones in one, into a new chunk", nb.Spills(), nb.compacted)
		}
		c0, k0 := nb.slabLen(), len(nb.chunks)
		first := make([]*int32, k0) // the chunks' arrays, which a growth must keep
		for k, ch := range nb.chunks {
			first[k] = &ch.j[0]
		}

		searchSame(t, x, h, &nb, pool)
		check("same points again", x)
		if nb.Spills() != 20 {
			t.Fatalf("the same points again: %d more blocks spilled, want none", nb.Spills()-20)
		}

		// blocks predicted with 1.8 times the mean pairs of a dense point (so that the
		// regions fit the slab but leave too small a reserve), with none, and exactly, in turn
		mean := float64(nb.Pairs()) / float64(n-iso)
		over := iso
		for i := iso; i < n; i++ {
			if math.Abs(float64(nb.count(i))-1.8*mean) < math.Abs(float64(nb.count(over))-1.8*mean) {
				over = i
			}
		}
		order := make([]int32, n)
		for i := range order {
			order[i] = int32(i) // the isolated blocks and every third dense one: exact
			if i < iso {
				continue
			}
			switch (i - iso) / par.BlockSize % 3 {
			case 0:
				order[i] = int32(over)
			case 1:
				order[i] = 0 // an isolated point
			}
		}
		nb.Reorder(order, pool)
		searchSame(t, x, h, &nb, pool)
		check("after a lying Reorder", x)
		if nb.compacted != 2 || nb.slabLen() != c0 {
			t.Fatalf("after a lying Reorder: %d compactions, slab %d → %d; want one more compaction in place", nb.compacted, c0, nb.slabLen())
		}

		// 40 points of one dense block gathered in a ball far off: that block gains pairs
		// and spills into the reserve, the other blocks lose some
		y := slices.Clone(x)
		for i := 5 * par.BlockSize; i < 5*par.BlockSize+40; i++ {
			y[i] = Vec3{5 + 0.3*h*rng.Float64(), 0.3 * h * rng.Float64(), 0.3 * h * rng.Float64()}
		}
		spills := nb.Spills()
		searchSame(t, y, h, &nb, pool)
		check("one block gathered", y)
		if nb.Spills() != spills+1 || nb.compacted != 2 {
			t.Fatalf("one block gathered: %d blocks spilled, %d compactions; want one into the reserve", nb.Spills()-spills, nb.compacted-2)
		}

		// the second cloud squeezed to a third of its volume: its blocks' pairs triple, all
		// pairs outgrow the slab, a chunk is added, and blocks move into it
		z := slices.Clone(x)
		for i := n/2 + iso/2; i < n; i++ {
			for d := range 3 {
				z[i][d] = 0.7 * z[i][d]
			}
		}
		spills = nb.Spills()
		searchSame(t, z, h, &nb, pool)
		check("second cloud squeezed", z)
		// (a first-cloud block may spill too, having regained the pairs of the points that
		// were gathered; the others keep their lists)
		if c, k := nb.slabLen(), nb.Spills()-spills; k < 10 || k > 15 || nb.compacted != 3 || c <= c0 || len(nb.chunks) != k0+1 {
			t.Fatalf("second cloud squeezed: %d blocks spilled, %d compactions, slab %d → %d in %d → %d chunks; want its 10 blocks and few others in a slab grown by a chunk", k, nb.compacted-2, c0, c, k0, len(nb.chunks))
		}
		for k, p := range first {
			if &nb.chunks[k].j[0] != p {
				t.Fatalf("second cloud squeezed: the slab's chunk %d was replaced; a growth must keep the chunks in use and add one", k)
			}
		}

		searchSame(t, x[:n/2], h, &nb, pool)
		check("half the points", x[:n/2])
		searchSame(t, x, h, &nb, pool)
		check("all the points again", x)
		pool.Close()
	}
}

// count returns the number of pairs of query point i.
func (nb *Neighbors) count(i int) int {
	j, _, _ := nb.Of(i)
	return len(j)
}
