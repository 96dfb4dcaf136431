package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// randomElasticPairs returns a list of n pairs into rows rows: indices, single-precision
// gradients (one more than pairs, as both loops read), three-vectors and stress rows (one row
// more, as StressDiv needs), with magnitudes spread over six decades so that the rounding of
// each sum depends on its order.
func randomElasticPairs(rng *rand.Rand, n, rows int) ([]int32, [][3]float32, []mgl64.Vec3, []StressRow) {
	js, gs := make([]int32, n), make([][3]float32, n+1)
	src, st := make([]mgl64.Vec3, rows), make([]StressRow, rows+1)
	val := func() float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)) }
	for i := range src {
		src[i] = mgl64.Vec3{val(), val(), val()}
		SetStress(&st[i], val(), val(), val(), val(), val(), val())
	}
	for k := range gs {
		if k < n {
			js[k] = int32(rng.IntN(rows))
		}
		gs[k] = [3]float32{float32(rng.NormFloat64() * 1e3), float32(rng.NormFloat64() * 1e3), float32(rng.NormFloat64() * 1e3)}
	}
	return js, gs, src, st
}

// TestStressLayout: SetStress and Stress are inverse, and the three columns of a row are the
// symmetric matrix's columns.
func TestStressLayout(t *testing.T) {
	var p StressRow
	SetStress(&p, 1, 2, 3, 4, 5, 6) // xx yy zz xy xz yz
	if got := Stress(&p); got != [6]float64{1, 2, 3, 4, 5, 6} {
		t.Fatalf("Stress(SetStress(1..6)) = %v", got)
	}
	cols := [3][3]float64{{1, 4, 5}, {4, 2, 6}, {5, 6, 3}}
	for c, at := range []int{0, 5, 2} {
		if got := [3]float64{p[at], p[at+1], p[at+2]}; got != cols[c] {
			t.Fatalf("column %d at %d = %v, want %v", c, at, got, cols[c])
		}
	}
}

// TestStressDiv: on a two-pair list the sum is P_j b summed by hand, and on random lists of
// every length up to 70 the assembly equals the Go loop bit for bit (where the processor has
// AVX2).
func TestStressDiv(t *testing.T) {
	st := make([]StressRow, 3)
	SetStress(&st[0], 1, 2, 3, 0.5, -1, 0.25)
	SetStress(&st[1], -2, 0, 4, 1, 2, -3)
	got := StressDiv([]int32{1, 0}, [][3]float32{{1, 2, 3}, {0.5, -1, 2}, {}}, st)
	mul := func(xx, yy, zz, xy, xz, yz float64, b [3]float64) [3]float64 {
		return [3]float64{xx*b[0] + xy*b[1] + xz*b[2], xy*b[0] + yy*b[1] + yz*b[2], xz*b[0] + yz*b[1] + zz*b[2]}
	}
	a, b := mul(-2, 0, 4, 1, 2, -3, [3]float64{1, 2, 3}), mul(1, 2, 3, 0.5, -1, 0.25, [3]float64{0.5, -1, 2})
	want := [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]}
	for c := range want {
		if math.Abs(got[c]-want[c]) > 1e-14*math.Abs(want[c]) {
			t.Fatalf("StressDiv = %v, want %v", got, want)
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 70; n++ {
		js, bs, _, st := randomElasticPairs(rng, n, 50)
		a := StressDiv(js, bs, st)
		HasAVX2 = false
		b := StressDiv(js, bs, st)
		HasAVX2 = true
		for c := range a {
			if math.Float64bits(a[c]) != math.Float64bits(b[c]) {
				t.Fatalf("%d pairs, component %d: assembly %v, Go %v", n, c, a[c], b[c])
			}
		}
	}
}

// TestOuterSums: on a two-pair list the sums are Σ (a − o) ⊗ g worked by hand, and on random
// lists of every length up to 70 the assembly equals the Go loop bit for bit (where the
// processor has AVX2).
func TestOuterSums(t *testing.T) {
	src := []mgl64.Vec3{{1, 2, 3}, {-1, 0.5, 4}}
	o := mgl64.Vec3{0.5, -1, 2}
	got := OuterSums([]int32{0, 1}, [][3]float32{{2, -1, 0.5}, {1, 3, -2}, {}}, src, &o)
	var want [12]float64
	for _, p := range [][2][3]float64{{{1, 2, 3}, {2, -1, 0.5}}, {{-1, 0.5, 4}, {1, 3, -2}}} {
		a, g := p[0], p[1]
		for s := range 3 {
			for c := range 3 {
				want[4*s+c] += (a[s] - o[s]) * g[c]
			}
		}
	}
	for c := range want {
		if c%4 != 3 && math.Abs(got[c]-want[c]) > 1e-14*math.Abs(want[c]) {
			t.Fatalf("OuterSums = %v, want %v (the fourth entry of a row unused)", got, want)
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 70; n++ {
		js, gs, src, _ := randomElasticPairs(rng, n, 50)
		o := src[rng.IntN(len(src))]
		a := OuterSums(js, gs, src, &o)
		HasAVX2 = false
		b := OuterSums(js, gs, src, &o)
		HasAVX2 = true
		for c := range 3 {
			for d := range 3 {
				if x, y := a[4*c+d], b[4*c+d]; math.Float64bits(x) != math.Float64bits(y) {
					t.Fatalf("%d pairs, entry %d%d: assembly %v, Go %v", n, c, d, x, y)
				}
			}
		}
	}
}

// randomBody returns the rows of a random body of n particles, 0–40 pairs each and none for
// particles 5–8, with the pairs of randomElasticPairs.
func randomBody(rng *rand.Rand, n int) (start, js []int32, gs [][3]float32, src []mgl64.Vec3, st []StressRow) {
	start = make([]int32, n+1)
	for i := 0; i < n; i++ {
		start[i+1] = start[i] + int32(rng.IntN(41))
	}
	js, gs, src, st = randomElasticPairs(rng, int(start[n]), n)
	for i := 5; i < 9; i++ { // particles without pairs
		start[i+1] = start[i]
	}
	return start, js, gs, src, st
}

// TestRowsEqualPerParticle: over a random body (0–40 pairs per particle, blocks starting
// anywhere), StrainStressRows gives, bit for bit, the stress of Eq. 8 of what OuterSums gives
// per particle, with the assembly and with the Go loops (where the processor has AVX2).
func TestRowsEqualPerParticle(t *testing.T) {
	const n = 60
	start, js, gs, src, _ := randomBody(rand.New(rand.NewPCG(11, 12)), n)
	check := func(lo, hi int) {
		ps := make([]StressRow, n)
		law := StrainLaw{C: 0.37, G: 2.5e5, Lambda: 1.3e6}
		StrainStressRows(start, js, gs, src, lo, hi, &law, ps)
		for i := lo; i < hi; i++ {
			k0, k1 := start[i], start[i+1]
			m := OuterSums(js[k0:k1], gs[k0:k1+1], src, &src[i])
			// Eq. 8 of the symmetric strain: e_ss = C M_ss, e_st = C (M_st + M_ts).
			exx, eyy, ezz := law.C*m[0], law.C*m[5], law.C*m[10]
			lam := law.Lambda * (exx + eyy + ezz)
			var want StressRow
			SetStress(&want, 2*law.G*exx+lam, 2*law.G*eyy+lam, 2*law.G*ezz+lam, law.G*(law.C*(m[1]+m[4])), law.G*(law.C*(m[2]+m[8])), law.G*(law.C*(m[6]+m[9])))
			for c := range want {
				if math.Float64bits(ps[i][c]) != math.Float64bits(want[c]) {
					t.Fatalf("AVX2 %v, particle %d (%d pairs), stress entry %d: rows %v, per particle %v", HasAVX2, i, k1-k0, c, ps[i][c], want[c])
				}
			}
		}
	}
	for _, avx := range []bool{true, false} {
		if avx && !HasAVX2 {
			continue
		}
		saved := HasAVX2
		HasAVX2 = avx
		check(0, n)
		check(3, 17)
		check(6, 8)
		check(n-1, n)
		HasAVX2 = saved
	}
}

// TestRotateGradsRows: a quarter turn about z maps (1, 2, 3) to (−2, 1, 3) exactly, and on a
// random body with random rotations the assembly stores the same single-precision gradients
// and sums as the Go loop bit for bit (where the processor has AVX2).
func TestRotateGradsRows(t *testing.T) {
	cols := func(r [9]float64) [12]float64 { // row-major R → columns
		return [12]float64{r[0], r[3], r[6], 0, r[1], r[4], r[7], 0, r[2], r[5], r[8], 0}
	}
	start := []int32{0, 2}
	rc := [][12]float64{cols([9]float64{0, -1, 0, 1, 0, 0, 0, 0, 1})}
	cs := [][3]float32{{1, 2, 3}, {0, 0, 1}}
	gs := make([][3]float32, 2)
	sum := make([][4]float64, 1)
	RotateGradsRows(start, rc, cs, gs, 0, 1, sum)
	if gs[0] != [3]float32{-2, 1, 3} || gs[1] != [3]float32{0, 0, 1} || [3]float64(sum[0][:3]) != [3]float64{-2, 1, 4} {
		t.Fatalf("quarter turn: gradients %v, sum %v", gs, sum[0])
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 50
	start = make([]int32, n+1)
	for i := 0; i < n; i++ {
		start[i+1] = start[i] + int32(rng.IntN(35))
	}
	_, cs, _, _ = randomElasticPairs(rng, int(start[n]), 1)
	rc = make([][12]float64, n)
	for i := range rc {
		for _, c := range []int{0, 1, 2, 4, 5, 6, 8, 9, 10} {
			rc[i][c] = rng.Float64()*2 - 1
		}
	}
	a, b := make([][3]float32, len(cs)), make([][3]float32, len(cs))
	sa, sb := make([][4]float64, n), make([][4]float64, n)
	RotateGradsRows(start, rc, cs, a, 0, n, sa)
	HasAVX2 = false
	RotateGradsRows(start, rc, cs, b, 0, n, sb)
	HasAVX2 = true
	for k := range a {
		if a[k] != b[k] {
			t.Fatalf("pair %d: assembly %v, Go %v", k, a[k], b[k])
		}
	}
	for i := range sa {
		for c := range 3 {
			if math.Float64bits(sa[i][c]) != math.Float64bits(sb[i][c]) {
				t.Fatalf("particle %d, sum %d: assembly %v, Go %v", i, c, sa[i][c], sb[i][c])
			}
		}
	}
}

// TestRotateEach: a gradient turned by RotateEach with particle j's rotation equals bit for
// bit the one RotateGradsRows stores in j's own row for the same corrected gradient (the
// elastic solve's reverse pairs rely on it for forces that cancel pairwise), in the assembly
// and in the Go loop, and a slice of pairs leaves the gradients outside it untouched (the
// 12-byte stores of parallel blocks).
func TestRotateEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 40
	start := make([]int32, n+1)
	for i := 0; i < n; i++ {
		start[i+1] = start[i] + int32(rng.IntN(30))
	}
	pairs := int(start[n])
	_, cs, _, _ := randomElasticPairs(rng, pairs, 1)
	rc := make([][12]float64, n)
	for i := range rc {
		for _, c := range []int{0, 1, 2, 4, 5, 6, 8, 9, 10} {
			rc[i][c] = rng.Float64()*2 - 1
		}
	}
	own := make([][3]float32, pairs+1)
	RotateGradsRows(start, rc, cs, own, 0, n, make([][4]float64, n))
	// Pair k of row i turned by row i's rotation: js[k] = i.
	js := make([]int32, pairs)
	for i := 0; i < n; i++ {
		for k := start[i]; k < start[i+1]; k++ {
			js[k] = int32(i)
		}
	}
	eachLoop(func(avx bool) {
		got := make([][3]float32, pairs+1)
		sentinel := [3]float32{7, 8, 9}
		for k := range got {
			got[k] = sentinel
		}
		lo, hi := 5, pairs-5
		RotateEach(js[lo:hi], rc, cs[lo:hi], got[lo:hi])
		for k := range got {
			want := own[k]
			if k < lo || k >= hi {
				want = sentinel
			}
			if got[k] != want {
				t.Fatalf("assembly %v, pair %d: %v, want %v", avx, k, got[k], want)
			}
		}
	})
}

// eachLoop runs f with the Go loops (HasAVX2 false) and then, where the processor has AVX2,
// with the assembly, and restores HasAVX2.
func eachLoop(f func(avx bool)) {
	saved := HasAVX2
	defer func() { HasAVX2 = saved }()
	for _, avx := range []bool{false, true} {
		if avx && !saved {
			continue
		}
		HasAVX2 = avx
		f(avx)
	}
}

// TestStrainStressRowsByHand: one particle with two pairs, src differences (1, 0, 0) and
// (0, 2, 0) against gradients (1, 0, 0) and (3, 0, 0), so M00 = 1, M10 = 6 and nothing else;
// with C = 0.5, G = 10 and Lambda = 4: e_xx = 0.5, e_xy = 3, λ = 2, and the stress
// xx = 2·10·0.5 + 2 = 12, yy = zz = 2, xy = 30, xz = yz = 0 (assembly and Go loop).
func TestStrainStressRowsByHand(t *testing.T) {
	start := []int32{0, 2}
	js := []int32{1, 2}
	gs := [][3]float32{{1, 0, 0}, {3, 0, 0}, {0, 0, 0}}
	src := []mgl64.Vec3{{1, 1, 1}, {2, 1, 1}, {1, 3, 1}}
	law := StrainLaw{C: 0.5, G: 10, Lambda: 4}
	var want StressRow
	SetStress(&want, 12, 2, 2, 30, 0, 0)
	eachLoop(func(avx bool) {
		st := make([]StressRow, 3)
		StrainStressRows(start, js, gs, src, 0, 1, &law, st)
		if st[0] != want {
			t.Fatalf("assembly %v: stress %v, want %v", avx, st[0], want)
		}
	})
}

// TestProductRows: over a random body (0–40 pairs per particle, some pinned, blocks starting
// anywhere), ProductRows gives bit for bit the product of Eq. 10/19 formed per particle from
// StressDiv, with the assembly and with the Go loop, pinned rows zero and left out of the dot
// product; and on one particle by hand: P = diag(1, 2, 3) + xy 4, own (1, 1, 1), one neighbour
// with the stress 2·I and gradient (1, 0, 0): f = v2·((5, 6, 3) − (2, 0, 0)) = (6, 12, 6) at
// v2 = 2, and with c = 0.5 and src (1, 2, 3), ap = (−2, −4, 0), src·ap = −10.
func TestProductRows(t *testing.T) {
	var st1 [3]StressRow
	SetStress(&st1[0], 1, 2, 3, 4, 0, 0)
	SetStress(&st1[1], 2, 2, 2, 0, 0, 0)
	ap1 := make([]mgl64.Vec3, 1)
	eachLoop(func(avx bool) {
		dot := ProductRows([]int32{0, 1}, []int32{1}, [][3]float32{{1, 0, 0}, {0, 0, 0}}, st1[:], [][4]float64{{1, 1, 1}},
			[]mgl64.Vec3{{1, 2, 3}}, []bool{false}, 0.5, 2, 0, 1, ap1)
		if ap1[0] != (mgl64.Vec3{-2, -4, 0}) || dot != -10 {
			t.Fatalf("assembly %v, by hand: ap %v, dot %v; want (-2, -4, 0), -10", avx, ap1[0], dot)
		}
	})
	rng := rand.New(rand.NewPCG(17, 18))
	const n = 60
	start, js, bs, src, st := randomBody(rng, n)
	own := make([][4]float64, n)
	pinned := make([]bool, n)
	for i := range own {
		own[i] = [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		pinned[i] = rng.IntN(5) == 0
	}
	const c, v2 = 0.3, 1.7
	check := func(lo, hi int) {
		ap := make([]mgl64.Vec3, n)
		for i := range ap {
			ap[i] = mgl64.Vec3{9, 9, 9}
		}
		dot := ProductRows(start, js, bs, st, own, src, pinned, c, v2, lo, hi, ap)
		want := 0.0
		for i := lo; i < hi; i++ {
			if pinned[i] {
				if ap[i] != (mgl64.Vec3{}) {
					t.Fatalf("AVX2 %v, pinned particle %d: ap %v", HasAVX2, i, ap[i])
				}
				continue
			}
			k0, k1 := start[i], start[i+1]
			f := StressDiv(js[k0:k1], bs[k0:k1+1], st)
			p, a, s := Stress(&st[i]), &own[i], &src[i] // xx yy zz xy xz yz
			fx := v2 * (p[0]*a[0] + p[3]*a[1] + p[4]*a[2] - f[0])
			fy := v2 * (p[3]*a[0] + p[1]*a[1] + p[5]*a[2] - f[1])
			fz := v2 * (p[4]*a[0] + p[5]*a[1] + p[2]*a[2] - f[2])
			q := mgl64.Vec3{s[0] - c*fx, s[1] - c*fy, s[2] - c*fz}
			for d := range 3 {
				if math.Float64bits(ap[i][d]) != math.Float64bits(q[d]) {
					t.Fatalf("AVX2 %v, particle %d (%d pairs), component %d: rows %v, per particle %v", HasAVX2, i, k1-k0, d, ap[i][d], q[d])
				}
			}
			want += s[0]*q[0] + s[1]*q[1] + s[2]*q[2]
		}
		if math.Float64bits(dot) != math.Float64bits(want) {
			t.Fatalf("AVX2 %v, [%d, %d): dot %v, per particle %v", HasAVX2, lo, hi, dot, want)
		}
	}
	eachLoop(func(bool) {
		check(0, n)
		check(3, 17)
		check(6, 8)
		check(n-1, n)
	})
}
