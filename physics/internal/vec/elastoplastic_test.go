package vec

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
)

// TestFitSums: on a hand-worked neighbourhood the sums are the formula's; on random ones of
// every length up to 70, with neighbours inside and outside the support, coincident ones and
// non-finite positions, the assembly equals the Go loop bit for bit and counts the same.
func TestFitSums(t *testing.T) {
	x := []mgl64.Vec3{{0, 0, 0}, {0.5, 0, 0}, {0, -0.25, 0.5}, {3, 0, 0}}
	y := []mgl64.Vec3{{1, 1, 1}, {1.5, 1, 2}, {1, 0.5, 1.5}, {0, 0, 0}}
	s, cnt := FitSums([]int32{1, 2, 3}, x, y, &x[0], &y[0], 1)
	if cnt != 2 {
		t.Fatalf("counted %d neighbours, want 2 (the third is outside)", cnt)
	}
	w1 := math.Pow(1-0.25, 6)   // r² = 0.25
	w2 := math.Pow(1-0.3125, 6) // r² = 0.0625 + 0.25
	d1, e1 := [3]float64{0.5, 0, 0}, [3]float64{0.5, 0, 1}
	d2, e2 := [3]float64{0, -0.25, 0.5}, [3]float64{0, -0.5, 0.5}
	var want [15]float64
	tri := [6][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}}
	for k, ab := range tri {
		want[k] = w1*d1[ab[0]]*d1[ab[1]] + w2*d2[ab[0]]*d2[ab[1]]
	}
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			want[6+3*a+b] = w1*e1[a]*d1[b] + w2*e2[a]*d2[b]
		}
	}
	for k := range want {
		if math.Abs(s[k]-want[k]) > 1e-15 {
			t.Fatalf("sum %d = %v, want %v", k, s[k], want[k])
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 70; n++ {
		for trial := 0; trial < 20; trial++ {
			rows := 60
			x, y := make([]mgl64.Vec3, rows), make([]mgl64.Vec3, rows)
			for i := range x {
				for c := 0; c < 3; c++ {
					x[i][c] = rng.NormFloat64() * 0.6
					y[i][c] = x[i][c] + 0.1*rng.NormFloat64()
				}
			}
			if trial == 7 {
				x[3] = x[0] // coincident with the centre: r² = 0, counted
			}
			if trial == 9 {
				x[5][1] = math.Inf(1) // outside
				x[6][2] = math.NaN()  // not ≥ h²: counted, and poisons the sums alike
			}
			js := make([]int32, n)
			for k := range js {
				js[k] = int32(1 + rng.IntN(rows-1))
			}
			xi, yi := x[0], y[0]
			a, ca := FitSums(js, x, y, &xi, &yi, 1)
			var acc [15][4]float64
			cb := fitSumsGo(js, x, y, &xi, &yi, 1, &acc)
			if ca != cb {
				t.Fatalf("%d neighbours: assembly counts %d, Go %d", n, ca, cb)
			}
			for k := range a {
				b := (acc[k][0] + acc[k][1]) + (acc[k][2] + acc[k][3])
				if math.Float64bits(a[k]) != math.Float64bits(b) && !(math.IsNaN(a[k]) && math.IsNaN(b)) {
					t.Fatalf("%d neighbours, trial %d, sum %d: assembly %v, Go %v", n, trial, k, a[k], b)
				}
			}
		}
	}
}

func BenchmarkFitSums(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	rows := 4096
	x, y := make([]mgl64.Vec3, rows), make([]mgl64.Vec3, rows)
	for i := range x {
		for c := 0; c < 3; c++ {
			x[i][c] = rng.Float64()
			y[i][c] = x[i][c] + 0.01*rng.NormFloat64()
		}
	}
	js := make([]int32, 33)
	for k := range js {
		js[k] = int32(rng.IntN(rows))
	}
	var sink float64
	for _, asm := range []bool{false, true} {
		name := "go"
		if asm {
			name = "avx2"
		}
		b.Run(name, func(b *testing.B) {
			if asm && !HasAVX2 {
				b.Skip("no AVX2")
			}
			save := HasAVX2
			HasAVX2 = asm
			defer func() { HasAVX2 = save }()
			for n := 0; n < b.N; n++ {
				s, _ := FitSums(js, x, y, &x[n&1023], &y[n&1023], 4)
				sink += s[0]
			}
		})
	}
	_ = sink
}

// TestPairArgsLayout: the assembly reads PairArgs at fixed offsets.
func TestPairArgsLayout(t *testing.T) {
	var p PairArgs
	if o := unsafe.Offsetof(p.broadcast); o != 128 {
		t.Fatalf("broadcast at %d, the assembly reads it at 128", o)
	}
	if o := unsafe.Offsetof(p.acc); o != 640 {
		t.Fatalf("acc at %d, the assembly reads it at 640", o)
	}
}

// TestCosQuarterSq: within 1e-15 of math.Cos on [0, π/2] (the series' error is below 2e-17,
// the rest is round-off of ten terms).
func TestCosQuarterSq(t *testing.T) {
	for k := 0; k <= 1000; k++ {
		x := math.Pi / 2 * float64(k) / 1000
		if e := math.Abs(CosQuarterSq(x*x) - math.Cos(x)); e > 1e-15 {
			t.Fatalf("cos %v: off by %g", x, e)
		}
	}
}

// TestPairScalars: on a hand-worked pair the outputs are the formula's; on random
// neighbourhoods of every length up to 70, with pairs inside and outside the support,
// coincident ones and non-finite positions, the assembly equals the Go loop bit for bit.
func TestPairScalars(t *testing.T) {
	x := []mgl64.Vec3{{0, 0, 0}, {0.3, 0.1, -0.2}, {2, 0, 0}}
	p := &PairArgs{A: [9]float64{1.1, 0.1, 0, 0, 0.9, 0.05, 0.02, 0, 1}, Xi: x[0], H: 1, NegSolC: -3, PiH2: (math.Pi / 2) * (math.Pi / 2), NegVol: -0.5}
	ps, u0, u1, u2 := make([]float64, 4), make([]float64, 4), make([]float64, 4), make([]float64, 4)
	c := PairScalars([]int32{1, 2}, x, ps[:2], u0[:2], u1[:2], u2[:2], p)
	r := [3]float64{-0.3, -0.1, 0.2}
	u := [3]float64{1.1*r[0] + 0.1*r[1], 0.9*r[1] + 0.05*r[2], 0.02*r[0] + r[2]}
	rho := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
	s := -3 * math.Cos(rho*math.Pi/2) / rho
	if math.Abs(ps[0]-s) > 1e-14 || ps[1] != 0 {
		t.Fatalf("ps = %v, want [%v 0] (the second pair is outside the support)", ps[:2], s)
	}
	if math.Abs(u0[0]-u[0])+math.Abs(u1[0]-u[1])+math.Abs(u2[0]-u[2]) > 1e-15 {
		t.Fatalf("u = %v %v %v, want %v", u0[0], u1[0], u2[0], u)
	}
	w := -0.5 * s
	want := [6]float64{w * u[0] * u[0], w * u[0] * u[1], w * u[0] * u[2], w * u[1] * u[1], w * u[1] * u[2], w * u[2] * u[2]}
	for k := range want {
		if math.Abs(c[k]-want[k]) > 1e-14 {
			t.Fatalf("sum %d = %v, want %v", k, c[k], want[k])
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 70; n++ {
		for trial := 0; trial < 20; trial++ {
			rows := 60
			x := make([]mgl64.Vec3, rows)
			for i := range x {
				for c := 0; c < 3; c++ {
					x[i][c] = rng.NormFloat64() * 0.6
				}
			}
			if trial == 7 {
				x[3] = x[0]
			}
			if trial == 9 {
				x[5][1] = math.Inf(1)
				x[6][2] = math.NaN()
			}
			js := make([]int32, n)
			for k := range js {
				js[k] = int32(1 + rng.IntN(rows-1))
			}
			var a [9]float64
			for k := range a {
				a[k] = 0.2 * rng.NormFloat64()
			}
			a[0], a[4], a[8] = a[0]+1, a[4]+1, a[8]+1
			args := PairArgs{A: a, Xi: x[0], H: 1, NegSolC: -2.5, PiH2: (math.Pi / 2) * (math.Pi / 2), NegVol: -0.3}
			up := (n + 3) &^ 3
			var o [2][4][]float64
			var sums [2][6]float64
			for v := range o {
				for q := range o[v] {
					o[v][q] = make([]float64, n, up)
				}
			}
			sums[0] = PairScalars(js, x, o[0][0], o[0][1], o[0][2], o[0][3], &args)
			args.acc = [6][4]float64{}
			pairScalarsGo(js, x, o[1][0], o[1][1], o[1][2], o[1][3], &args)
			for k := range sums[1] {
				sums[1][k] = (args.acc[k][0] + args.acc[k][1]) + (args.acc[k][2] + args.acc[k][3])
			}
			same := func(a, b float64) bool {
				return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
			}
			for k := range sums[0] {
				if !same(sums[0][k], sums[1][k]) {
					t.Fatalf("%d pairs, trial %d, sum %d: assembly %v, Go %v", n, trial, k, sums[0][k], sums[1][k])
				}
			}
			for q := range o[0] {
				for k := 0; k < n; k++ {
					if !same(o[0][q][k], o[1][q][k]) {
						t.Fatalf("%d pairs, trial %d, output %d of pair %d: assembly %v, Go %v", n, trial, q, k, o[0][q][k], o[1][q][k])
					}
				}
			}
		}
	}
}

func BenchmarkPairScalars(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	rows := 4096
	x := make([]mgl64.Vec3, rows)
	for i := range x {
		for c := 0; c < 3; c++ {
			x[i][c] = rng.Float64()
		}
	}
	js := make([]int32, 33)
	for k := range js {
		js[k] = int32(rng.IntN(rows))
	}
	o := make([]float64, 4*36)
	for _, asm := range []bool{false, true} {
		name := "go"
		if asm {
			name = "avx2"
		}
		b.Run(name, func(b *testing.B) {
			if asm && !HasAVX2 {
				b.Skip("no AVX2")
			}
			save := HasAVX2
			HasAVX2 = asm
			defer func() { HasAVX2 = save }()
			p := PairArgs{A: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, H: 0.5, NegSolC: -1, PiH2: 10, NegVol: -1}
			for n := 0; n < b.N; n++ {
				p.Xi = x[n&1023]
				PairScalars(js, x, o[0:33:36], o[36:69:72], o[72:105:108], o[108:141:144], &p)
			}
		})
	}
}

// TestPairTerms: on a hand-worked pair the term is M (s u), zero where s = 0; on random rows of
// every length up to 70, with zero and non-finite scalars, the assembly equals the Go loop
// bit for bit and leaves the entries past the row alone.
func TestPairTerms(t *testing.T) {
	m := [9]float64{1, 2, 0, 0, 1, -1, 3, 0, 1}
	pa := make([]mgl64.Vec3, 2)
	PairTerms([]float64{2, 0}, []float64{1, 5}, []float64{0.5, 5}, []float64{-1, 5}, &m, pa)
	if want := (mgl64.Vec3{2 + 2, 1 + 2, 6 - 2}); pa[0] != want || pa[1] != (mgl64.Vec3{}) {
		t.Fatalf("PairTerms = %v, want [%v 0]", pa, want)
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for n := 0; n <= 70; n++ {
		s, u0, u1, u2 := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for k := range s {
			s[k], u0[k], u1[k], u2[k] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			switch rng.IntN(5) {
			case 0:
				s[k] = 0
			case 1:
				if k == 3 {
					s[k] = math.NaN()
				}
			}
		}
		for k := range m {
			m[k] = rng.NormFloat64()
		}
		a, b := make([]mgl64.Vec3, n+1), make([]mgl64.Vec3, n+1)
		a[n], b[n] = mgl64.Vec3{7, 7, 7}, mgl64.Vec3{7, 7, 7}
		PairTerms(s, u0, u1, u2, &m, a[:n])
		pairTermsGo(s, u0, u1, u2, &m, b[:n])
		for k := range a {
			for c := 0; c < 3; c++ {
				if x, y := a[k][c], b[k][c]; math.Float64bits(x) != math.Float64bits(y) && !(math.IsNaN(x) && math.IsNaN(y)) {
					t.Fatalf("%d pairs, pair %d component %d: assembly %v, Go %v", n, k, c, x, y)
				}
			}
		}
		if a[n] != (mgl64.Vec3{7, 7, 7}) {
			t.Fatalf("%d pairs: the entry past the row was overwritten", n)
		}
	}
}

// TestPairForces: on random rows of every length up to 70 (distances across both pieces of the
// spline and beyond it, a coincident pair), the assembly gives every entry it writes, the
// row's and the transposed ones, the Go loop's bits, and leaves the others alone; and one pair
// worked by hand.
func TestPairForces(t *testing.T) {
	var a ForceArgs
	if o := unsafe.Offsetof(a.broadcast); o != 152 {
		t.Fatalf("broadcast at %d, the assembly reads it at 152", o)
	}
	if o := unsafe.Offsetof(a.mask); o != 792 {
		t.Fatalf("mask at %d, the assembly uses 792", o)
	}
	// By hand: one pair, r = (0.05, 0, 0) with h = 0.1 (q = ½), s = (−0.04, 0, 0), half maps I/2.
	x := []mgl64.Vec3{{0, 0, 0}, {-0.05, 0, 0}}
	xp := []mgl64.Vec3{{0, 0, 0}, {-0.04, 0, 0}}
	hf := [][9]float64{{0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5}, {0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5}}
	pa := []mgl64.Vec3{{1, 2, 3}, {0.5, 0.5, 0.5}}
	a = ForceArgs{HFi: hf[0], Xi: x[0], XPi: xp[0], K: 2, Damp: 3, InvH: 10, W: 7}
	PairForces([]int32{1}, []int32{1}, 0, pa, x, xp, hf, &a)
	h0 := -0.05 - (1 * -0.04)                         // −r − (F_i + F_j)/2 s
	w := float64(float32(7 * (6*0.125 - 6*0.25 + 1))) // q = ½: the inner piece
	q := 3 * w * (h0 * 0.05) / (0.05 * 0.05)
	want := mgl64.Vec3{2*0.5 + q*0.05, 2 * 1.5, 2 * 2.5}
	for c := range want {
		if math.Abs(pa[0][c]-want[c]) > 1e-12 || pa[1][c] != -pa[0][c] {
			t.Fatalf("pair by hand: %v and %v, want %v and its negation", pa[0], pa[1], want)
		}
	}
	if !HasAVX2 {
		t.Skip("no AVX2: only the Go loop runs here")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 70; n++ {
		rows := n + 1
		x, xp := make([]mgl64.Vec3, rows), make([]mgl64.Vec3, rows)
		hf := make([][9]float64, rows)
		for i := range x {
			for c := 0; c < 3; c++ {
				x[i][c] = 0.06 * rng.NormFloat64()
				xp[i][c] = x[i][c] + 0.002*rng.NormFloat64()
			}
			for c := range hf[i] {
				hf[i][c] = 0.05 * rng.NormFloat64()
			}
			hf[i][0], hf[i][4], hf[i][8] = hf[i][0]+0.5, hf[i][4]+0.5, hf[i][8]+0.5
		}
		if n > 5 {
			x[5] = x[0] // coincident: rr = 0
		}
		// Room for the last group (so the assembly takes the partial one too), filled with
		// indices far out of range: a masked-off lane that read them would fault or differ.
		js := make([]int32, n, n+4)
		for k := range js {
			js[k] = int32(k + 1)
		}
		for _, l := range [][]int32{js} {
			for k := n; k < cap(l); k++ {
				l[:cap(l)][k] = 1 << 30
			}
		}
		e0 := 3
		m := e0 + 2*n + 4
		perm := rng.Perm(n + 4)
		pts := make([]int32, n, n+4)
		for k := range pts {
			pts[k] = int32(e0 + n + perm[k])
		}
		for k := n; k < cap(pts); k++ {
			pts[:cap(pts)][k] = 1 << 30
		}
		pa0 := make([]mgl64.Vec3, m)
		for k := range pa0 {
			pa0[k] = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
		args := ForceArgs{HFi: hf[0], Xi: x[0], XPi: xp[0], K: 1.7, Damp: 2.3, InvH: 10, W: 2546.5}
		pa1, pa2, pa3 := append([]mgl64.Vec3(nil), pa0...), append([]mgl64.Vec3(nil), pa0...), append([]mgl64.Vec3(nil), pa0...)
		PairForces(js, pts, e0, pa1, x, xp, hf, &args)
		pairForcesGo(js, pts, e0, pa2, x, xp, hf, &args)
		PairForces(js[:n:n], pts[:n:n], e0, pa3, x, xp, hf, &args) // no room: the Go loop takes the partial group
		for k := range pa3 {
			if pa3[k] != pa1[k] && !(pa3[k][0] != pa3[k][0]) {
				t.Fatalf("%d pairs, entry %d: %v with the partial group in assembly, %v without", n, k, pa1[k], pa3[k])
			}
		}
		for k := range pa1 {
			for c := 0; c < 3; c++ {
				if u, v := pa1[k][c], pa2[k][c]; math.Float64bits(u) != math.Float64bits(v) && !(math.IsNaN(u) && math.IsNaN(v)) {
					t.Fatalf("%d pairs, entry %d component %d: assembly %v, Go %v", n, k, c, u, v)
				}
			}
		}
	}
}
