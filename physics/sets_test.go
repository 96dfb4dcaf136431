package physics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

func TestCompressionErrorMatchesBruteForce(t *testing.T) {
	// Random densities around two rest densities over several blocks: the average and largest
	// compression max(0, ρ−ρ0)/ρ0 equal a direct sum (up to summation order, compErrTol), and
	// are bit-identical for 1 and 3 workers.
	const compErrTol = 1e-14
	n := 3*par.BlockSize + 7
	var f FluidSet
	f.Resize(n)
	rng := rand.New(rand.NewPCG(3, 4))
	sum, mx := 0.0, 0.0
	for i := 0; i < n; i++ {
		f.Rho0[i] = []float64{1000, 500}[i%2]
		f.Rho[i] = f.Rho0[i] * (1 + 0.02*(rng.Float64()-0.5))
		e := max(0, f.Rho[i]-f.Rho0[i]) / f.Rho0[i]
		sum += e
		mx = max(mx, e)
	}
	var got [2][2]float64
	for k, workers := range []int{1, 3} {
		pool := par.NewPool(workers)
		nb := par.Blocks(n)
		avg, m := f.CompressionError(make([]float64, nb), make([]float64, nb), pool)
		pool.Close()
		got[k] = [2]float64{avg, m}
	}
	if got[0] != got[1] {
		t.Fatalf("1 worker %v, 3 workers %v", got[0], got[1])
	}
	if d := got[0][0] - sum/float64(n); d > compErrTol || d < -compErrTol || got[0][1] != mx {
		t.Fatalf("average %.17g, max %.17g; want %.17g, %.17g", got[0][0], got[0][1], sum/float64(n), mx)
	}
}

// TestPermuterMatchesGather: the permutation equals the gather b[k] = a[order[k]], on the
// calling goroutine and on pools of 1–3 workers, for random permutations (one long cycle
// over several blocks of the walk, others, fixed points), for permutations of many short
// cycles and of shifts (a run moved by one, as a sort after a particle crosses cells makes:
// cycles that begin and end inside and across the walk's blocks), and for an increasing
// selection; and it leaves order as it found it.
func TestPermuterMatchesGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pools := []*par.Pool{nil, par.NewPool(1), par.NewPool(2), par.NewPool(3)}
	defer func() {
		for _, p := range pools[1:] {
			p.Close()
		}
	}()
	identity := func(n int) []int32 {
		order := make([]int32, n)
		for k := range order {
			order[k] = int32(k)
		}
		return order
	}
	kinds := map[string]func(n int) []int32{
		"random": func(n int) []int32 {
			order := identity(n)
			rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
			if n > 2 {
				order[0], order[order[0]] = order[order[0]], order[0] // a fixed point, usually
			}
			return order
		},
		"local": func(n int) []int32 { // swaps and short cycles within windows of 5
			order := identity(n)
			for lo := 0; lo < n; lo += 5 {
				w := order[lo:min(lo+5, n)]
				rng.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
			}
			return order
		},
		"shifts": func(n int) []int32 { // runs rotated by one, of lengths up to 3 blocks
			order := identity(n)
			for lo := 0; lo < n; {
				hi := min(n, lo+1+rng.IntN(3*par.BlockSize))
				r := order[lo:hi]
				if rng.IntN(2) == 0 {
					first := r[0]
					copy(r, r[1:])
					r[len(r)-1] = first
				} else {
					last := r[len(r)-1]
					copy(r[1:], r)
					r[0] = last
				}
				lo = hi + rng.IntN(4)
			}
			return order
		},
	}
	for _, name := range []string{"random", "local", "shifts"} {
		for _, n := range []int{1, 2, 7, 1000, 5*par.BlockSize + 3} {
			order := kinds[name](n)
			x := make([]Vec3, n)
			s := make([]float64, n)
			for k := range x {
				x[k] = Vec3{float64(k), rng.Float64(), 0}
				s[k] = rng.Float64()
			}
			wantX, wantS := make([]Vec3, n), make([]float64, n)
			for k, i := range order {
				wantX[k], wantS[k] = x[i], s[i]
			}
			saved := slices.Clone(order)
			for w, pool := range pools {
				gx, gs := slices.Clone(x), slices.Clone(s)
				var pm Permuter
				var empty []Vec3
				pm.Apply([]Field{{Vec: &gx}, {Scalar: &gs}, {Vec: &empty}}, order, pool)
				if !slices.Equal(gx, wantX) || !slices.Equal(gs, wantS) || len(empty) != 0 {
					t.Fatalf("%s, n = %d, pool %d: permuted fields differ from the gather", name, n, w)
				}
				if !slices.Equal(order, saved) {
					t.Fatalf("%s, n = %d, pool %d: order was not restored", name, n, w)
				}
			}
			// the moves' blocks in reverse order, a schedule two workers may take: a block
			// that read what the next one overwrites fails here
			gx, gs := slices.Clone(x), slices.Clone(s)
			var pm Permuter
			fields := []Field{{Vec: &gx}, {Scalar: &gs}}
			if m := pm.prepare(fields, order); m > 0 {
				nb := par.Blocks(m)
				for b := nb - 1; b >= 0; b-- {
					pm.save(b*par.BlockSize, min((b+1)*par.BlockSize, m), b)
				}
				for b := nb - 1; b >= 0; b-- {
					pm.move(b*par.BlockSize, min((b+1)*par.BlockSize, m), b)
				}
			}
			if !slices.Equal(gx, wantX) || !slices.Equal(gs, wantS) {
				t.Fatalf("%s, n = %d: permuted fields differ from the gather with the blocks in reverse order", name, n)
			}
		}
	}
	// many fields of each kind, all moved in one walk of the cycles
	order := []int32{3, 0, 4, 1, 2, 5}
	var fields []Field
	var vecs [][]Vec3
	var scalars [][]float64
	for f := 0; f < 35; f++ {
		v, s := make([]Vec3, len(order)), make([]float64, len(order))
		for k := range v {
			v[k], s[k] = Vec3{float64(f), float64(k), 1}, float64(100*f+k)
		}
		vecs, scalars = append(vecs, v), append(scalars, s)
	}
	for f := range vecs {
		fields = append(fields, Field{Vec: &vecs[f]}, Field{Scalar: &scalars[f]})
	}
	var pm Permuter
	pm.Apply(fields, order, pools[2])
	for f := range vecs {
		for k, i := range order {
			if vecs[f][k] != (Vec3{float64(f), float64(i), 1}) || scalars[f][k] != float64(100*f+int(i)) {
				t.Fatalf("field %d of %d, entry %d: not entry %d", f, len(vecs), k, i)
			}
		}
	}
	x := []Vec3{{0}, {1}, {2}, {3}, {4}}
	pm.Apply([]Field{{Vec: &x}}, []int32{1, 3, 4}, pools[2])
	if want := []Vec3{{1}, {3}, {4}}; !slices.Equal(x[:3], want) {
		t.Fatalf("selection: %v, want %v", x[:3], want)
	}
}

// TestPermuteRowsMovesWholeRows checks PermuteRows against a copy made row by row, for one,
// two and three columns, and that the permutation is restored.
func TestPermuteRowsMovesWholeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 500
	for width := 1; width <= 3; width++ {
		order := make([]int32, n)
		for i, p := range rng.Perm(n) {
			order[i] = int32(p)
		}
		saved := slices.Clone(order)
		a := make([]float64, width*n)
		for i := range a {
			a[i] = rng.Float64()
		}
		want := make([]float64, width*n)
		for k, i := range order {
			copy(want[width*k:width*k+width], a[width*int(i):width*int(i)+width])
		}
		PermuteRows(a, width, order)
		if !slices.Equal(a, want) {
			t.Fatalf("width %d: rows not moved as order says", width)
		}
		if !slices.Equal(order, saved) {
			t.Fatalf("width %d: order not restored", width)
		}
	}
}

// BenchmarkPermuterApply permutes the nine non-empty fields of a 100k-particle fluid (four
// vectors and five scalars, as FluidSet.Fields has them between sorts) by the cell order of a
// jittered block after every point moved by up to 0.2 h, the permutation a substep's sort
// makes, in ns per particle ("fused": Apply; "per-field": one walk of the cycles per field).
func BenchmarkPermuterApply(b *testing.B) {
	const h = 0.1
	x := jitteredBlock(47, h)
	n := len(x)
	pool := par.NewPool(1)
	defer pool.Close()
	var g Grid
	if err := g.Build(x, h, pool); err != nil {
		b.Fatal(err)
	}
	var pm Permuter
	pm.Apply([]Field{{Vec: &x}}, g.Order, pool)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range x {
		for c := 0; c < 3; c++ {
			x[i][c] += 0.2 * h * (2*rng.Float64() - 1)
		}
	}
	if err := g.Build(x, h, pool); err != nil {
		b.Fatal(err)
	}
	order := g.Order
	var fields []Field
	for k := 0; k < 9; k++ {
		if k < 4 {
			v := make([]Vec3, n)
			fields = append(fields, Field{Vec: &v})
		} else {
			s := make([]float64, n)
			fields = append(fields, Field{Scalar: &s})
		}
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("fused/workers-%d", w), func(b *testing.B) {
			pool := par.NewPool(w)
			defer pool.Close()
			for i := 0; i < b.N; i++ {
				pm.Apply(fields, order, pool)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/particle")
		})
	}
	b.Run("per-field", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, fd := range fields {
				if fd.Scalar != nil {
					permuteCycles(*fd.Scalar, 1, 0, order)
				} else {
					permuteCycles(*fd.Vec, 1, 0, order)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/particle")
	})
}
