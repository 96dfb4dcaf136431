package physics

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/internal/cputime"
	"github.com/sluicephysics/sluice/physics/par"
)

// bruteForce returns, for each query point, the sorted indices of target points closer than h.
func bruteForce(xq, xt []Vec3, h float64, same bool) [][]int32 {
	out := make([][]int32, len(xq))
	for i, a := range xq {
		for j, b := range xt {
			if same && i == j {
				continue
			}
			if Dist2(a, b) < h*h {
				out[i] = append(out[i], int32(j))
			}
		}
	}
	return out
}

// float32Ulp is the relative spacing of float32 numbers (2⁻²³): a stored G may differ from
// W'(r)/r evaluated in float64 by the rounding to float32.
const float32Ulp = 1.0 / (1 << 23)

func checkSearch(t *testing.T, name string, xq, xt []Vec3, h float64, same bool, workers int) {
	t.Helper()
	pool := par.NewPool(workers)
	defer pool.Close()
	kr := NewKernel(CubicSpline, h)
	var gq, gt Grid
	if err := gq.Build(xq, h, pool); err != nil {
		t.Fatal(err)
	}
	adj := gq.self
	if !same {
		if err := gt.Build(xt, h, pool); err != nil {
			t.Fatal(err)
		}
		adj = make([]int32, 27*gq.NumCells())
		gq.Adjacent(&gt, adj, pool)
	} else {
		gt = gq
	}
	var nb Neighbors
	Search(&gq, xq, &gt, adj, &kr, same, &nb, pool)
	if hashed := strings.Contains(name, "hashed"); hashed != (len(gq.dense) == 0) {
		t.Fatalf("%s: dense index used = %v", name, len(gq.dense) > 0)
	}
	want := bruteForce(xq, xt, h, same)
	for i := range xq {
		js, ws, gws := nb.Of(i)
		got := slices.Clone(js)
		slices.Sort(got)
		if !slices.Equal(got, want[i]) {
			t.Fatalf("%s: point %d: neighbours %v, brute force %v", name, i, got, want[i])
		}
		for k, j := range js {
			x := Vec3{xq[i][0] - xt[j][0], xq[i][1] - xt[j][1], xq[i][2] - xt[j][2]}
			r := Norm(x)
			// G: float32 rounding of W'(r)/r (the search's cubic form rounds differently in
			// float64 by an ulp); a coincident pair (r = 0) has ∇W = G·0 = 0 for any finite G
			g := kr.GradFactor(r)
			gOK := math.Abs(float64(gws[k])-g) <= float32Ulp*math.Abs(g) || (r <= 1e-12*h && !math.IsInf(float64(gws[k]), 0) && !math.IsNaN(float64(gws[k])))
			if ws[k] != float32(kr.W(r)) || !gOK {
				t.Fatalf("%s: pair (%d,%d) has wrong kernel values", name, i, j)
			}
		}
	}
	// The weighted kernel sums, and the same lists without kernel values (SkipW). The weights
	// are distinct per target point, so a weight taken from the wrong point (the sorted index
	// instead of the target's own) moves a sum by far more than the bound.
	weights := make([]float64, len(xt))
	for j := range weights {
		weights[j] = 1 + float64(j%17)/16
	}
	var skip Neighbors
	skip.SkipW, skip.Weights = true, weights
	Search(&gq, xq, &gt, adj, &kr, same, &skip, pool)
	for i := range xq {
		js, _, gws := nb.Of(i)
		sj, sw, sg := skip.Of(i)
		if !slices.Equal(js, sj) || !slices.Equal(gws, sg) || sw != nil {
			t.Fatalf("%s: point %d: the lists with SkipW differ from the full lists", name, i)
		}
		// the sums add the float32-rounded kernel values in float64, in list order: the same
		// sum formed here in another order differs by round-off only
		const sumTol = 1e-12
		var unit, weighted float64
		for _, j := range want[i] {
			x := Vec3{xq[i][0] - xt[j][0], xq[i][1] - xt[j][1], xq[i][2] - xt[j][2]}
			w := float64(float32(kr.W(Norm(x))))
			unit += w
			weighted += weights[j] * w
		}
		if math.Abs(nb.Sum[i]-unit) > sumTol*(1+unit) || math.Abs(skip.Sum[i]-weighted) > sumTol*(1+weighted) {
			t.Fatalf("%s: point %d: sums %g, %g; brute force %g, %g", name, i, nb.Sum[i], skip.Sum[i], unit, weighted)
		}
	}
	if !skip.SummedWith(weights) || skip.SummedWith(weights[1:]) || !nb.SummedWith(nil) || nb.SummedWith(weights) {
		t.Fatalf("%s: SummedWith does not record the search's weights", name)
	}
	// A world that gains a reader of W (a goo body added) searches the same lists with the
	// kernel values again: they must come back whole, as from a fresh search.
	skip.SkipW, skip.Weights = false, nil
	Search(&gq, xq, &gt, adj, &kr, same, &skip, pool)
	for i := range xq {
		js, ws, gws := nb.Of(i)
		sj, sw, sg := skip.Of(i)
		if !slices.Equal(js, sj) || !slices.Equal(ws, sw) || !slices.Equal(gws, sg) {
			t.Fatalf("%s: point %d: the lists searched with W after SkipW differ from a fresh search", name, i)
		}
	}
}

// TestRowWPanicsWithoutKernelValues: a stage reading W_ij from lists searched with SkipW
// must stop, not read stale or missing values.
func TestRowWPanicsWithoutKernelValues(t *testing.T) {
	pool := par.NewPool(1)
	defer pool.Close()
	x := []Vec3{{0, 0, 0}, {0.05, 0, 0}}
	kr := NewKernel(CubicSpline, 0.1)
	var g Grid
	if err := g.Build(x, kr.H, pool); err != nil {
		t.Fatal(err)
	}
	nb := Neighbors{SkipW: true}
	Search(&g, x, &g, g.SelfAdjacent(), &kr, true, &nb, pool)
	defer func() {
		if recover() == nil {
			t.Fatal("RowW on lists without kernel values did not panic")
		}
	}()
	nb.Blocks[0].RowW(0)
}

func TestSearchMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := 0.1
	cloud := func(n int, lo, hi float64) []Vec3 {
		x := make([]Vec3, n)
		for i := range x {
			for d := 0; d < 3; d++ {
				x[i][d] = lo + (hi-lo)*rng.Float64()
			}
		}
		return x
	}
	random := cloud(3000, -0.37, 0.41)
	// Duplicates and points exactly on cell borders (multiples of h) and at negative coordinates.
	edge := cloud(500, -0.3, 0.3)
	for i := 0; i < 200; i++ {
		edge = append(edge, Vec3{float64(i%7-3) * h, float64(i%5-2) * h, float64(i%3-1) * h})
	}
	edge = append(edge, edge[:100]...)
	// Two clusters apart: many empty cells between them (dense index), and two clusters 500 m
	// apart, whose box of 5000³ cells forces the hash table.
	sparse := append(cloud(400, 0, 0.2), cloud(400, 3, 3.2)...)
	far := append(cloud(300, 0, 0.2), cloud(300, 500, 500.2)...)
	for _, c := range []struct {
		name string
		x    []Vec3
	}{{"random", random}, {"edges+duplicates", edge}, {"sparse", sparse}, {"far/hashed", far}} {
		for _, w := range []int{1, 2} {
			checkSearch(t, c.name, c.x, c.x, h, true, w)
		}
		checkSearch(t, c.name+"/cross", c.x, random, h, false, 2)
	}
	// After permuting the points into the grid's cell order the search still matches brute force.
	pool := par.NewPool(2)
	defer pool.Close()
	var g Grid
	if err := g.Build(random, h, pool); err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(g.Sorted)
	checkSearch(t, "sorted", sorted, sorted, h, true, 2)
	// The cell order is a permutation of all points.
	seen := make([]bool, len(random))
	for _, i := range g.Order {
		seen[i] = true
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("point %d missing from Order", i)
		}
	}
}

func TestGridRejectsNaN(t *testing.T) {
	pool := par.NewPool(1)
	var g Grid
	x := []Vec3{{0, 0, 0}, {nan(), 0, 0}}
	if err := g.Build(x, 0.1, pool); err == nil {
		t.Fatal("NaN position accepted")
	}
}

func nan() float64 { var z float64; return z / z }

// jitteredBlock is a cube of n³ points on a lattice of spacing h/2 (the fluid's rest spacing
// at a support of twice the spacing), each moved by up to 0.3 spacings on every axis.
func jitteredBlock(n int, h float64) []Vec3 {
	rng := rand.New(rand.NewPCG(3, 4))
	s := h / 2
	x := make([]Vec3, 0, n*n*n)
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				p := Vec3{float64(i) * s, float64(j) * s, float64(k) * s}
				for d := 0; d < 3; d++ {
					p[d] += 0.6 * s * (rng.Float64() - 0.5)
				}
				x = append(x, p)
			}
		}
	}
	return x
}

// BenchmarkGridSearch builds the grid of a jittered block of 47³ = 103,823 points and searches
// it (the fluid→fluid part of the NeighborSearch stage), on one worker.
func BenchmarkGridSearch(b *testing.B) {
	const h = 0.05
	x := jitteredBlock(47, h)
	pool := par.NewPool(1)
	defer pool.Close()
	kr := NewKernel(CubicSpline, h)
	var g Grid
	var nb Neighbors
	// the fluid's arrays are in the grid's order after a sort substep
	if err := g.Build(x, h, pool); err != nil {
		b.Fatal(err)
	}
	x = slices.Clone(g.Sorted)
	if err := g.Build(x, h, pool); err != nil {
		b.Fatal(err)
	}
	b.Run("build", func(b *testing.B) {
		cpu0 := cputime.Nanos()
		for i := 0; i < b.N; i++ {
			if err := g.Build(x, h, pool); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, cpu0, len(x))
	})
	// the same build on two workers (wall time per point; the sort and the cell pass run in
	// chunks, in parallel)
	b.Run("build-2workers", func(b *testing.B) {
		pool2 := par.NewPool(2)
		defer pool2.Close()
		for i := 0; i < b.N; i++ {
			if err := g.Build(x, h, pool2); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(x)), "ns/particle")
	})
	b.Run("search", func(b *testing.B) {
		cpu0 := cputime.Nanos()
		for i := 0; i < b.N; i++ {
			Search(&g, x, &g, g.SelfAdjacent(), &kr, true, &nb, pool)
		}
		reportCPU(b, cpu0, len(x))
		b.ReportMetric(float64(nb.Pairs())/float64(len(x)), "neighbours")
	})
}

// reportCPU reports the wall and CPU time per point of each op since cpu0 (the CPU time
// measures a one-worker benchmark better than the wall clock on a shared machine).
func reportCPU(b *testing.B, cpu0 int64, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/particle")
	if cpu := cputime.Nanos() - cpu0; cpu0 > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N)/float64(n), "cpu-ns/particle")
	}
}

// referenceLists is the plain search Search must reproduce exactly: for every query point the
// 27 adjacent cells in order, each cell's points in the target grid's order, every point
// closer than H (not the point itself within one set), with W and G = W'(r)/r rounded to float32.
func referenceLists(qg *Grid, xq []Vec3, tg *Grid, adj []int32, kr *Kernel, same bool) (js [][]int32, ws [][]float32, gws [][]float32) {
	js, ws, gws = make([][]int32, len(xq)), make([][]float32, len(xq)), make([][]float32, len(xq))
	for i, xi := range xq {
		c := qg.cellOf[i]
		for _, cell := range adj[27*c : 27*c+27] {
			if cell < 0 {
				continue
			}
			for k := tg.cellStart[cell]; k < tg.cellStart[cell+1]; k++ {
				j, xj := tg.Order[k], tg.Sorted[k]
				d := Vec3{xi[0] - xj[0], xi[1] - xj[1], xi[2] - xj[2]}
				r2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
				if r2 >= kr.H*kr.H || (same && int(j) == i) {
					continue
				}
				w, g := kr.Eval(sqrt(r2))
				js[i] = append(js[i], j)
				ws[i] = append(ws[i], float32(w))
				gws[i] = append(gws[i], float32(g))
			}
		}
	}
	return js, ws, gws
}

// TestSearchEqualsReferenceExactly: the lists Search writes (gathering each query cell's
// candidates once per run of query points in that cell) are, entry for entry and bit for bit,
// those of the plain search, on 1 and 3 workers, for query points in the grid's order (long
// runs per cell), in a shuffled order (runs of one) and in the grid's order with every 5th point
// moved to the end (runs broken at random places), within one set and across two.
func TestSearchEqualsReferenceExactly(t *testing.T) {
	const h = 0.05
	kr := NewKernel(CubicSpline, h)
	rng := rand.New(rand.NewPCG(5, 6))
	block := jitteredBlock(14, h)
	pool := par.NewPool(1)
	defer pool.Close()
	var g0 Grid
	if err := g0.Build(block, h, pool); err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(g0.Sorted)
	shuffled := slices.Clone(sorted)
	rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	var broken, tail []Vec3
	for i, x := range sorted {
		if i%5 == 4 {
			tail = append(tail, x)
		} else {
			broken = append(broken, x)
		}
	}
	broken = append(broken, tail...)
	// a wall-like target: a plane of points across the block's lower face
	var wall []Vec3
	for i := 0; i < 30; i++ {
		for k := 0; k < 30; k++ {
			wall = append(wall, Vec3{float64(i) * h / 2, -0.01, float64(k) * h / 2})
		}
	}
	vec := useAVX2
	defer func() { useAVX2 = vec }()
	for _, workers := range []int{1, 3} {
		p := par.NewPool(workers)
		// with three workers the screen is the Go loop, with one the vector screen where the
		// processor has it: both must give the plain search's lists
		useAVX2 = vec && workers == 1
		for _, c := range []struct {
			name string
			x    []Vec3
		}{{"sorted", sorted}, {"shuffled", shuffled}, {"broken runs", broken}} {
			for _, cross := range []bool{false, true} {
				var qg, tg Grid
				if err := qg.Build(c.x, h, p); err != nil {
					t.Fatal(err)
				}
				adj, tgp := qg.SelfAdjacent(), &qg
				if cross {
					if err := tg.Build(wall, h, p); err != nil {
						t.Fatal(err)
					}
					adj = make([]int32, 27*qg.NumCells())
					qg.Adjacent(&tg, adj, p)
					tgp = &tg
				}
				var nb Neighbors
				Search(&qg, c.x, tgp, adj, &kr, !cross, &nb, p)
				js, ws, gws := referenceLists(&qg, c.x, tgp, adj, &kr, !cross)
				pairs := 0
				for i := range c.x {
					j, w, gw := nb.Of(i)
					if !slices.Equal(j, js[i]) || !slices.Equal(w, ws[i]) || !slices.Equal(gw, gws[i]) {
						t.Fatalf("%s, cross %v, %d workers: point %d: lists differ from the plain search:\n%v\n%v", c.name, cross, workers, i, j, js[i])
					}
					pairs += len(j)
				}
				if pairs == 0 {
					t.Fatalf("%s, cross %v: no pairs at all", c.name, cross)
				}
			}
		}
		p.Close()
	}
}

// TestAdjacentEqualsLookups: Adjacent (which reads a dense index at fixed offsets for cells
// inside the other grid's box) gives, for every cell and offset, the cell lookup finds, for a
// grid with itself and with a smaller and a larger grid (cells inside, on and beyond the other
// box's border), with a dense index and with the hash table; and a dense grid with itself
// takes the fixed offsets for every cell, those on its box's faces included.
func TestAdjacentEqualsLookups(t *testing.T) {
	const h = 0.05
	pool := par.NewPool(2)
	defer pool.Close()
	big := jitteredBlock(20, h)
	small := jitteredBlock(6, h)
	for i := range small {
		small[i][0] += 0.2
	}
	far := append(jitteredBlock(5, h), Vec3{400, 0, 0}) // a box of 8000 cells per point: hashed
	grids := make([]Grid, 3)
	for k, x := range [][]Vec3{big, small, far} {
		if err := grids[k].Build(x, h, pool); err != nil {
			t.Fatal(err)
		}
	}
	if len(grids[0].dense) == 0 || len(grids[2].dense) != 0 {
		t.Fatal("want the first grid dense and the last hashed")
	}
	fast := 0
	for a := range grids {
		for b := range grids {
			g, o := &grids[a], &grids[b]
			fast0 := fast
			out := make([]int32, 27*g.NumCells())
			g.Adjacent(o, out, pool)
			for c, cc := range g.cellCoord {
				k := 0
				for dz := int32(-1); dz <= 1; dz++ {
					for dy := int32(-1); dy <= 1; dy++ {
						for dx := int32(-1); dx <= 1; dx++ {
							if want := o.lookup([3]int32{cc[0] + dx, cc[1] + dy, cc[2] + dz}); out[27*c+k] != want {
								t.Fatalf("grids %d→%d cell %d offset %d: %d, lookup %d", a, b, c, k, out[27*c+k], want)
							}
							k++
						}
					}
				}
				if len(o.dense) > 0 {
					v := [3]int32{cc[0] - o.dorg[0], cc[1] - o.dorg[1], cc[2] - o.dorg[2]}
					if v[0] >= 1 && v[0] < o.dext[0] && v[1] >= 1 && v[1] < o.dext[1] && v[2] >= 1 && v[2] < o.dext[2] {
						fast++
					}
				}
			}
			if a == b && len(o.dense) > 0 && fast-fast0 != g.NumCells() {
				// the dense box has a cell of margin around the occupied one
				t.Fatalf("grid %d with itself: %d of %d cells took the dense offsets, want all", a, fast-fast0, g.NumCells())
			}
		}
	}
	if fast == 0 {
		t.Fatal("no cell took the dense offsets")
	}
}

// TestChunkedSortMatchesStableSort builds the grid of 40,000 points in random order (above
// parallelSortMin, so the sort and the cell pass run in sortChunks chunks), many of them
// sharing a cell, on 1 and 3 workers, and compares the order, the cells and each point's
// cell with a plain stable sort of the keys: the chunked passes must be stable and must
// number the cells exactly as one serial pass does, whatever the chunking or the workers.
func TestChunkedSortMatchesStableSort(t *testing.T) {
	const n, h = 40000, 0.1
	rng := rand.New(rand.NewPCG(7, 11))
	x := make([]Vec3, n)
	for i := range x {
		// a 2 m × 1 m × 1 m box: about 20 points a cell, cells split across chunk borders
		x[i] = Vec3{2 * rng.Float64(), rng.Float64(), rng.Float64()}
	}
	if n < parallelSortMin || sortChunks < 2 {
		t.Fatalf("the test needs a chunked build: %d points, %d chunks", n, sortChunks)
	}
	for _, workers := range []int{1, 3} {
		pool := par.NewPool(workers)
		var g Grid
		if err := g.Build(x, h, pool); err != nil {
			t.Fatal(err)
		}
		pool.Close()
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			ka, kb := g.key[a], g.key[b]
			switch {
			case ka < kb:
				return -1
			case ka > kb:
				return 1
			}
			return 0
		})
		if !slices.Equal(g.Order, want) {
			t.Fatalf("%d workers: the chunked sort's order differs from a stable sort", workers)
		}
		cells := 0
		for k, i := range want {
			if k == 0 || g.key[i] != g.key[want[k-1]] {
				if g.cellStart[cells] != int32(k) || g.cellKey[cells] != g.key[i] || g.cellCoord[cells] != g.coord[i] {
					t.Fatalf("%d workers: cell %d starts at %d with key %d, want %d and %d", workers, cells, g.cellStart[cells], g.cellKey[cells], k, g.key[i])
				}
				cells++
			}
			if g.cellOf[i] != int32(cells-1) {
				t.Fatalf("%d workers: point %d in cell %d, want %d", workers, i, g.cellOf[i], cells-1)
			}
			if g.Sorted[k] != x[i] {
				t.Fatalf("%d workers: Sorted[%d] is not point %d", workers, k, i)
			}
		}
		if g.NumCells() != cells || g.cellStart[cells] != n {
			t.Fatalf("%d workers: %d cells ending at %d, want %d ending at %d", workers, g.NumCells(), g.cellStart[g.NumCells()], cells, n)
		}
	}
}

// TestRelabelEqualsBuildOfPermutedPoints checks Relabel against its definition: after the
// points are permuted into the grid's order, the relabelled grid is the one a Build of the
// permuted points makes (the same order, cells, cell of every point and adjacency), and a
// search over it gives the same lists. The world relabels instead of building again after
// each sort.
func TestRelabelEqualsBuildOfPermutedPoints(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewPCG(7, 8))
	x0 := make([]Vec3, 3000)
	for i := range x0 {
		x0[i] = Vec3{rng.Float64(), 0.5 * rng.Float64(), 0.7 * rng.Float64()}
	}
	x0[17], x0[2500] = x0[5], x0[5] // coincident points: ties broken by index
	pool := par.NewPool(2)
	defer pool.Close()
	// Build then Relabel, and BuildOrder then RelabelTo (Sorted: the permuted points)
	for _, inPlace := range []bool{false, true} {
		x := slices.Clone(x0)
		var g, want Grid
		build := g.Build
		if inPlace {
			build = g.BuildOrder
		}
		if err := build(x, h, pool); err != nil {
			t.Fatal(err)
		}
		if inPlace && g.Sorted != nil {
			t.Fatal("BuildOrder wrote Sorted")
		}
		var pm Permuter
		pm.Apply([]Field{{Vec: &x}}, g.Order, pool)
		if inPlace {
			g.RelabelTo(x)
		} else {
			g.Relabel()
		}
		if err := want.Build(x, h, pool); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.Order, want.Order) || !slices.Equal(g.cellOf, want.cellOf) ||
			!slices.Equal(g.cellStart, want.cellStart) || !slices.Equal(g.Sorted, want.Sorted) ||
			!slices.Equal(g.SelfAdjacent(), want.SelfAdjacent()) {
			t.Fatalf("in place %v: relabelled grid differs from a Build of the permuted points", inPlace)
		}
		kr := NewKernel(CubicSpline, h)
		var a, b Neighbors
		Search(&g, x, &g, g.SelfAdjacent(), &kr, true, &a, pool)
		Search(&want, x, &want, want.SelfAdjacent(), &kr, true, &b, pool)
		for i := range x {
			ja, wa, ga := a.Of(i)
			jb, wb, gb := b.Of(i)
			if !slices.Equal(ja, jb) || !slices.Equal(wa, wb) || !slices.Equal(ga, gb) {
				t.Fatalf("in place %v, point %d: lists differ", inPlace, i)
			}
		}
	}
}

// TestCellOrderKeepsNeighboursWithinTwoLayers checks the grid's cell order (see Grid) on a
// jittered box of 26 × 9 × 17 cells at eight points a cell, released in a shuffled order: the
// sorted points run through the cells row by row (y fastest, the axis of the smallest extent,
// then z, then x, the largest), ties in index order; and once the points are permuted into
// that order every neighbour pair (i, j) has |i − j| below the number of points in the three
// layers of cells across x around i's layer, the locality the order is for. In the z-order
// (Morton) key the grid used before, pairs across the boundary of the box's top octants lay
// tens of layers apart.
func TestCellOrderKeepsNeighboursWithinTwoLayers(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewPCG(21, 22))
	var x []Vec3
	for k := 0; k < 2*17; k++ {
		for j := 0; j < 2*9; j++ {
			for i := 0; i < 2*26; i++ {
				p := Vec3{(float64(i) + 0.5) * h / 2, (float64(j) + 0.5) * h / 2, (float64(k) + 0.5) * h / 2}
				for d := 0; d < 3; d++ {
					p[d] += 0.4 * h / 2 * (rng.Float64() - 0.5)
				}
				x = append(x, p)
			}
		}
	}
	rng.Shuffle(len(x), func(a, b int) { x[a], x[b] = x[b], x[a] })
	pool := par.NewPool(2)
	defer pool.Close()
	var g Grid
	if err := g.Build(x, h, pool); err != nil {
		t.Fatal(err)
	}
	cell := func(p Vec3) [3]int {
		return [3]int{int(math.Floor(p[0] / h)), int(math.Floor(p[1] / h)), int(math.Floor(p[2] / h))}
	}
	// row by row: (x, z, y) non-decreasing, and the index increasing within a cell
	for k := 1; k < len(g.Sorted); k++ {
		a, b := cell(g.Sorted[k-1]), cell(g.Sorted[k])
		ka, kb := [3]int{a[0], a[2], a[1]}, [3]int{b[0], b[2], b[1]}
		if slices.Compare(ka[:], kb[:]) > 0 || ka == kb && g.Order[k-1] > g.Order[k] {
			t.Fatalf("sorted points %d and %d: cells %v then %v (indices %d, %d) are not in row order", k-1, k, a, b, g.Order[k-1], g.Order[k])
		}
	}
	xs := slices.Clone(g.Sorted)
	layer := make([]int, 27)
	for _, p := range xs {
		layer[cell(p)[0]]++
	}
	kr := NewKernel(CubicSpline, h)
	var g2 Grid
	if err := g2.Build(xs, h, pool); err != nil {
		t.Fatal(err)
	}
	var nb Neighbors
	Search(&g2, xs, &g2, g2.SelfAdjacent(), &kr, true, &nb, pool)
	pairs := 0
	for i := range xs {
		l := cell(xs[i])[0]
		window := layer[l]
		if l > 0 {
			window += layer[l-1]
		}
		if l+1 < len(layer) {
			window += layer[l+1]
		}
		js, _, _ := nb.Of(i)
		for _, j := range js {
			pairs++
			if d := i - int(j); d >= window || -d >= window {
				t.Fatalf("pair (%d, %d) lies %d apart, at least the %d points of the three layers around %d", i, j, d, window, l)
			}
		}
	}
	if pairs < 20*len(xs) {
		t.Fatalf("%d pairs for %d points: the box is not searched as a fluid", pairs, len(xs))
	}
}

// TestCellOrderIgnoresFarSplashes: a pool 30 cells long (x), 3 deep (y) and 20 wide (z) at
// eight points a cell, with five splash points 50 cells above it, so that y has the largest
// extent. The layers are still taken across x, whose fullest layer (3 × 20 cells) holds the
// fewest points, and the rows run along y, whose layers (30 × 20 cells) hold the most; a
// choice by extent would take the layers across y, each holding a sixth of the pool.
func TestCellOrderIgnoresFarSplashes(t *testing.T) {
	const h = 0.1
	var x []Vec3
	for k := 0; k < 2*20; k++ {
		for j := 0; j < 2*3; j++ {
			for i := 0; i < 2*30; i++ {
				x = append(x, Vec3{(float64(i) + 0.5) * h / 2, (float64(j) + 0.5) * h / 2, (float64(k) + 0.5) * h / 2})
			}
		}
	}
	for s := 0; s < 5; s++ {
		x = append(x, Vec3{0.3 + 0.4*float64(s), 5.05, 1})
	}
	pool := par.NewPool(1)
	defer pool.Close()
	var g Grid
	if err := g.Build(x, h, pool); err != nil {
		t.Fatal(err)
	}
	if g.extent[1] <= g.extent[0] || g.extent[1] <= g.extent[2] {
		t.Fatalf("extents %v: the splashes do not make y the longest axis", g.extent)
	}
	if g.axes != [3]int{1, 2, 0} {
		t.Fatalf("key axes (fastest first) %v, want [1 2 0]: rows along y, layers across x", g.axes)
	}
}
