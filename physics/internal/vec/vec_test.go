package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func randomPairs(rng *rand.Rand, n, rows int) ([]int32, []float32, [][4]float64) {
	js, gs := make([]int32, n), make([]float32, n)
	v := make([][4]float64, rows)
	for i := range v {
		for c := range v[i] {
			v[i][c] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
		}
	}
	for k := range js {
		js[k] = int32(rng.IntN(rows))
		gs[k] = float32(rng.NormFloat64() * 1e3)
	}
	return js, gs, v
}

// randomStates returns random positions and velocities of rows particles.
func randomStates(rng *rand.Rand, rows int) (x, v []mgl64.Vec3) {
	x, v = make([]mgl64.Vec3, rows), make([]mgl64.Vec3, rows)
	for i := range x {
		for d := 0; d < 3; d++ {
			x[i][d], v[i][d] = rng.NormFloat64(), rng.NormFloat64()*5
		}
	}
	return x, v
}

// TestGatherSum4: on a hand-worked list the sums are the formula's, and on random lists of
// every length up to 70 the assembly equals the Go loop bit for bit (where the processor has
// AVX2).
func TestGatherSum4(t *testing.T) {
	v := [][4]float64{{1, 2, 3, 4}, {0, 0, 0, 0}, {-1, 0.5, 2, 8}}
	got := GatherSum4([]int32{2, 0}, []float32{0.5, -2}, v)
	want := [4]float64{0.5*-1 - 2*1, 0.5*0.5 - 2*2, 0.5*2 - 2*3, 0.5*8 - 2*4}
	if got != want {
		t.Fatalf("GatherSum4 = %v, want %v", got, want)
	}
	// every pair counted once, whatever partial sum it goes to: against the plain sum in list
	// order, to round-off (10⁻¹³ of Σ|g v|)
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 70; n++ {
		js, gs, v := randomPairs(rng, n, 50)
		got := GatherSum4(js, gs, v)
		for c := range got {
			var plain, mag float64
			for k, j := range js {
				plain += float64(gs[k]) * v[j][c]
				mag += math.Abs(float64(gs[k]) * v[j][c])
			}
			if math.Abs(got[c]-plain) > 1e-13*mag {
				t.Fatalf("%d pairs, component %d: %v, plain sum %v", n, c, got[c], plain)
			}
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng = rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 70; n++ {
		js, gs, v := randomPairs(rng, n, 50)
		a := GatherSum4(js, gs, v)
		b := gatherSum4Go(js, gs, v)
		for c := range a {
			if math.Float64bits(a[c]) != math.Float64bits(b[c]) {
				t.Fatalf("%d pairs, component %d: assembly %v, Go %v", n, c, a[c], b[c])
			}
		}
	}
}

// TestKGradSum: likewise for the stiffness-weighted gradient sum.
func TestKGradSum(t *testing.T) {
	v := [][4]float64{{1, 2, 3, 4}, {0, 0, 0, 0}, {-1, 0.5, 2, 8}}
	y := [4]float64{0.25, -1, 2, 3}
	m := 1.5
	got := KGradSum([]int32{2, 0}, []float32{0.5, -2}, v, &y, m)
	f2, f0 := m*(3+8)*0.5, m*(3+4)*-2
	want := [3]float64{f2*(0.25+1) + f0*(0.25-1), f2*(-1-0.5) + f0*(-1-2), f2*(2-2) + f0*(2-3)}
	for c := range want {
		if math.Abs(got[c]-want[c]) > 1e-12*math.Abs(want[c])+1e-15 {
			t.Fatalf("KGradSum = %v, want %v", got, want)
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 70; n++ {
		js, gs, v := randomPairs(rng, n, 50)
		y := v[rng.IntN(50)]
		m := rng.Float64() + 0.5
		a := KGradSum(js, gs, v, &y, m)
		b := kGradSumGo(js, gs, v, &y, m)
		for c := range a {
			if math.Float64bits(a[c]) != math.Float64bits(b[c]) {
				t.Fatalf("%d pairs, component %d: assembly %v, Go %v", n, c, a[c], b[c])
			}
		}
	}
}

// TestPredictSums: on a two-pair list the sums are the formula's, on random lists of every
// length up to 70 the plain sums in list order to round-off, and the assembly equals the Go
// loop bit for bit (where the processor has AVX2).
func TestPredictSums(t *testing.T) {
	x := []mgl64.Vec3{{0, 0, 0}, {1, 2, 3}, {0.5, -1, 0}}
	v := []mgl64.Vec3{{1, 1, 1}, {0, 2, 0}, {-1, 0, 4}}
	q := [][4]float64{{0, 0, 0, 2}, {0, 0, 0, 3}, {0, 0, 0, -1}}
	xi, vi := x[0], v[0]
	s, gg, div, qs := PredictSums([]int32{1, 2}, []float32{0.5, 2}, x, v, q, &xi, &vi)
	g1 := mgl64.Vec3{-0.5, -1, -1.5} // 0.5 (x_0 − x_1)
	g2 := mgl64.Vec3{-1, 2, 0}       // 2 (x_0 − x_2)
	want := [8]float64{g1[0] + g2[0], g1[1] + g2[1], g1[2] + g2[2], g1.Dot(g1) + g2.Dot(g2),
		v[0].Sub(v[1]).Dot(g1) + v[0].Sub(v[2]).Dot(g2), 3*g1[0] - g2[0], 3*g1[1] - g2[1], 3*g1[2] - g2[2]}
	got := [8]float64{s[0], s[1], s[2], gg, div, qs[0], qs[1], qs[2]}
	for c := range want {
		if math.Abs(got[c]-want[c]) > 1e-12 {
			t.Fatalf("PredictSums = %v, want %v", got, want)
		}
	}
	rng := rand.New(rand.NewPCG(7, 9))
	for n := 1; n <= 70; n++ {
		js, gs, q := randomPairs(rng, n, 50)
		x, v := randomStates(rng, 50)
		xi, vi := x[rng.IntN(50)], v[rng.IntN(50)]
		s, gg, div, qs := PredictSums(js, gs, x, v, q, &xi, &vi)
		got := [8]float64{s[0], s[1], s[2], gg, div, qs[0], qs[1], qs[2]}
		var want, mag [8]float64
		for k, j := range js {
			g := xi.Sub(x[j]).Mul(float64(gs[k]))
			terms := [8]float64{g[0], g[1], g[2], g.Dot(g), vi.Sub(v[j]).Dot(g), q[j][3] * g[0], q[j][3] * g[1], q[j][3] * g[2]}
			for c, t := range terms {
				want[c] += t
				mag[c] += math.Abs(t)
			}
		}
		for c := range want {
			if math.Abs(got[c]-want[c]) > 1e-13*mag[c] {
				t.Fatalf("%d pairs, sum %d: %v, plain sum %v", n, c, got[c], want[c])
			}
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng = rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 70; n++ {
		js, gs, q := randomPairs(rng, n, 50)
		x, v := randomStates(rng, 50)
		xi, vi := x[rng.IntN(50)], v[rng.IntN(50)]
		var a, b [4][4]float64
		if n > 0 {
			predictSumsAVX(&js[0], &gs[0], n, &x[0], &v[0], &q[0], &xi, &vi, &a)
		}
		predictSumsGo(js, gs, x, v, q, &xi, &vi, &b)
		for r := range a {
			for c := 0; c < 3; c++ {
				if math.Float64bits(a[r][c]) != math.Float64bits(b[r][c]) {
					t.Fatalf("%d pairs, sum %d, component %d: assembly %v, Go %v", n, r, c, a[r][c], b[r][c])
				}
			}
		}
	}
}

// TestFactorSums: two pairs worked by hand (∇W = 0.5 (x_0 − x_1) and 2 (x_0 − x_2)), then
// random lists of 0–70 pairs, the assembly against the Go loop bit for bit.
func TestFactorSums(t *testing.T) {
	x := []mgl64.Vec3{{0, 0, 0}, {1, 2, 3}, {0.5, -1, 0}}
	v := []mgl64.Vec3{{1, 1, 1}, {0, 2, 0}, {-1, 0, 4}}
	c := mgl64.Vec3{0.25, 0.5, -1}
	g1 := mgl64.Vec3{-0.5, -1, -1.5}
	g2 := mgl64.Vec3{-1, 2, 0}
	y1, y2 := x[1].Sub(c).Mul(0.5), x[2].Sub(c).Mul(2)
	want := [9]float64{y1[0] + y2[0], y1[1] + y2[1], y1[2] + y2[2], 2.5,
		g1[0] + g2[0], g1[1] + g2[1], g1[2] + g2[2], g1.Dot(g1) + g2.Dot(g2),
		v[0].Sub(v[1]).Dot(g1) + v[0].Sub(v[2]).Dot(g2)}
	eachLoop(func(avx bool) {
		gy, s, sq, div := FactorSums([]int32{1, 2}, []float32{0.5, 2}, x, v, &x[0], &v[0], &c)
		got := [9]float64{gy[0], gy[1], gy[2], gy[3], s[0], s[1], s[2], sq, div}
		for k := range want {
			if math.Abs(got[k]-want[k]) > 1e-12 {
				t.Fatalf("avx %v: FactorSums = %v, want %v", avx, got, want)
			}
		}
	})
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 70; n++ {
		js, gs, _ := randomPairs(rng, n, 50)
		x, v := randomStates(rng, 50)
		xi, vi, c := x[rng.IntN(50)], v[rng.IntN(50)], x[rng.IntN(50)]
		var a, b [3][4]float64
		if n > 0 {
			c4 := [4]float64{c[0], c[1], c[2], -1}
			factorSumsAVX(&js[0], &gs[0], n, &x[0], &v[0], &xi, &vi, &c4, &a)
		}
		factorSumsGo(js, gs, x, v, &xi, &vi, &c, &b)
		for r := range a {
			for k := range a[r] {
				if r == 1 && k == 3 {
					continue // lane 3 of Σ ∇W is not a result
				}
				if math.Float64bits(a[r][k]) != math.Float64bits(b[r][k]) {
					t.Fatalf("%d pairs, sum %d, component %d: assembly %v, Go %v", n, r, k, a[r][k], b[r][k])
				}
			}
		}
	}
}

// localPairs is a neighbour-list workload like a z-sorted fluid's: rows particles with per
// neighbours each, drawn from within ±spread of the particle's own index.
func localPairs(rows, per, spread int) ([]int32, []float32, [][4]float64) {
	rng := rand.New(rand.NewPCG(5, 6))
	js, gs := make([]int32, rows*per), make([]float32, rows*per)
	v := make([][4]float64, rows)
	for i := range v {
		for c := range v[i] {
			v[i][c] = rng.NormFloat64()
		}
		for k := 0; k < per; k++ {
			j := min(max(i+rng.IntN(2*spread+1)-spread, 0), rows-1)
			js[i*per+k], gs[i*per+k] = int32(j), float32(rng.NormFloat64())
		}
	}
	return js, gs, v
}

// BenchmarkGatherSum4 and BenchmarkKGradSum: ns per particle of 34 neighbours over 100k rows,
// one call per particle (go test -run XXX -bench 'GatherSum4|KGradSum' ./physics/internal/vec).
func BenchmarkGatherSum4(b *testing.B) {
	benchPerParticle(b, func(js []int32, gs []float32, v [][4]float64, i int) float64 {
		return GatherSum4(js, gs, v)[0]
	})
}

func BenchmarkKGradSum(b *testing.B) {
	benchPerParticle(b, func(js []int32, gs []float32, v [][4]float64, i int) float64 {
		return KGradSum(js, gs, v, &v[i], 1.5)[0]
	})
}

// BenchmarkPredictSums: ns per particle of 34 neighbours over 100k rows, one call per particle
// (go test -run XXX -bench PredictSums ./physics/internal/vec).
func BenchmarkPredictSums(b *testing.B) {
	const rows = 100000
	x, v := make([]mgl64.Vec3, rows), make([]mgl64.Vec3, rows)
	for i := range x {
		x[i] = mgl64.Vec3{float64(i), 0.5 * float64(i), 1}
		v[i] = mgl64.Vec3{1, 2, float64(i % 7)}
	}
	benchPerParticle(b, func(js []int32, gs []float32, q [][4]float64, i int) float64 {
		s, gg, div, qs := PredictSums(js, gs, x, v, q, &x[i], &v[i])
		return s[0] + gg + div + qs[1]
	})
}

func benchPerParticle(b *testing.B, sum func(js []int32, gs []float32, v [][4]float64, i int) float64) {
	const rows, per = 100000, 34
	js, gs, v := localPairs(rows, per, 300)
	var s float64
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for i := 0; i < rows; i++ {
			s += sum(js[i*per:(i+1)*per], gs[i*per:(i+1)*per], v, i)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/particle")
	if math.IsNaN(s) {
		b.Fatal("NaN")
	}
}

// randomRows is a block of neighbour lists, one of every length up to 70 (an empty one among
// them), laid out as a NeighborBlock's rows, with targets below rows.
func randomRows(rng *rand.Rand, rows int) (start, js []int32, gs []float32) {
	start = []int32{0}
	for n := 0; n <= 70; n++ {
		j, g, _ := randomPairs(rng, n, rows)
		js, gs = append(js, j...), append(gs, g...)
		start = append(start, int32(len(js)))
	}
	return start, js, gs
}

// TestGatherSum4Rows: a block of rows of every length up to 70 gives, row by row, the Go loop's
// sums of the row bit for bit, with the assembly and with the Go loop.
func TestGatherSum4Rows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows = 50
	_, _, v := randomPairs(rng, 0, rows)
	start, js, gs := randomRows(rng, rows)
	checkRows(t, start, func(out [][4]float64) { GatherSum4Rows(start, js, gs, v, len(out), out) },
		func(k int) []float64 {
			a := gatherSum4Go(js[start[k]:start[k+1]], gs[start[k]:start[k+1]], v)
			return a[:]
		})
}

// checkRows runs rows (the block loop under test) with the assembly, where the processor has
// it, and with the Go loops, and compares every row's sums bit for bit with want(row).
func checkRows(t *testing.T, start []int32, rows func(out [][4]float64), want func(k int) []float64) {
	t.Helper()
	nr := len(start) - 1
	for _, asm := range []bool{true, false} {
		if asm && !HasAVX2 {
			continue
		}
		old := HasAVX2
		HasAVX2 = asm
		out := make([][4]float64, nr)
		rows(out)
		HasAVX2 = old
		for k := 0; k < nr; k++ {
			for c, w := range want(k) {
				if math.Float64bits(out[k][c]) != math.Float64bits(w) {
					t.Fatalf("assembly %v, row %d (%d pairs), component %d: %v, want %v", asm, k, start[k+1]-start[k], c, out[k][c], w)
				}
			}
		}
	}
}

func BenchmarkGatherSum4Rows(b *testing.B) {
	const rows, per = 100000, 34
	js, gs, v := localPairs(rows, per, 300)
	start := make([]int32, 257)
	var out [256][4]float64
	for k := range start {
		start[k] = int32(k * per)
	}
	var s float64
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for lo := 0; lo+256 <= rows; lo += 256 {
			GatherSum4Rows(start, js[lo*per:(lo+256)*per], gs[lo*per:(lo+256)*per], v, 256, out[:])
			s += out[0][0]
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows/256*256), "ns/particle")
	if math.IsNaN(s) {
		b.Fatal("NaN")
	}
}

// TestKGradSumRows: likewise for the stiffness-weighted gradient sums, each row with its own y.
func TestKGradSumRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const rows = 50
	_, _, v := randomPairs(rng, 0, rows)
	start, js, gs := randomRows(rng, rows)
	nr := len(start) - 1
	ys := make([][4]float64, nr)
	for k := range ys {
		ys[k] = v[rng.IntN(rows)]
	}
	m := rng.Float64() + 0.5
	checkRows(t, start, func(out [][4]float64) { KGradSumRows(start, js, gs, v, ys, m, len(out), out) },
		func(k int) []float64 {
			a := kGradSumGo(js[start[k]:start[k+1]], gs[start[k]:start[k+1]], v, &ys[k], m)
			return a[:]
		})
}
