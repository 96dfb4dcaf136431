package elastoplastic

import (
	"math"
	"math/rand/v2"
	"testing"
)

// svdTol bounds the reconstruction and orthogonality errors of Decompose relative to |F|:
// a few hundred ulps, the round-off of a handful of 3x3 products and Jacobi sweeps.
const svdTol = 1e-12

// cubicTol bounds the disagreement of σ² with the closed-form eigenvalues of FᵀF relative to
// |F|². The trigonometric formula takes acos of a value that approaches ±1 as two eigenvalues
// merge, where it loses half the digits (√ε ≈ 1.5e-8), so the reference itself is only that
// good for nearly repeated values; 1e-7 leaves a factor of a few.
const cubicTol = 1e-7

func randRotation(rng *rand.Rand) mat3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/l, q[1]/l, q[2]/l, q[3]/l
	return mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

func fnorm(a *mat3) float64 {
	s := 0.0
	for _, v := range a {
		s += v * v
	}
	return math.Sqrt(s)
}

func maxAbsDiff(a, b *mat3) float64 {
	d := 0.0
	for k := range a {
		d = max(d, math.Abs(a[k]-b[k]))
	}
	return d
}

// cubicEigen returns the eigenvalues of the symmetric matrix a in decreasing order from the
// closed-form trigonometric solution of its characteristic cubic (Smith 1961): an independent
// method, no Jacobi rotation involved.
func cubicEigen(a *mat3) [3]float64 {
	p1 := a[1]*a[1] + a[2]*a[2] + a[5]*a[5]
	q := (a[0] + a[4] + a[8]) / 3
	p2 := (a[0]-q)*(a[0]-q) + (a[4]-q)*(a[4]-q) + (a[8]-q)*(a[8]-q) + 2*p1
	p := math.Sqrt(p2 / 6)
	if p == 0 {
		return [3]float64{q, q, q}
	}
	bm := mat3{(a[0] - q) / p, a[1] / p, a[2] / p, a[3] / p, (a[4] - q) / p, a[5] / p, a[6] / p, a[7] / p, (a[8] - q) / p}
	r := det(&bm) / 2
	r = max(-1, min(1, r))
	phi := math.Acos(r) / 3
	e1 := q + 2*p*math.Cos(phi)
	e3 := q + 2*p*math.Cos(phi+2*math.Pi/3)
	return [3]float64{e1, 3*q - e1 - e3, e3}
}

// checkSVD asserts the properties of an Irving-convention SVD of f.
func checkSVD(t *testing.T, name string, f *mat3) SVD3 {
	t.Helper()
	s := Decompose(f)
	scale := max(fnorm(f), 1e-300)
	rec := udvt(&s.U, s.S, &s.V)
	if e := maxAbsDiff(&rec, f) / scale; e > svdTol {
		t.Fatalf("%s: |UΣVᵀ − F|/|F| = %g", name, e)
	}
	id := identity()
	for _, m := range []*mat3{&s.U, &s.V} {
		mt := transpose(m)
		mtm := mul(&mt, m)
		if e := maxAbsDiff(&mtm, &id); e > svdTol {
			t.Fatalf("%s: |MᵀM − I| = %g", name, e)
		}
		if d := det(m); math.Abs(d-1) > svdTol {
			t.Fatalf("%s: det = %g, want a rotation", name, d)
		}
	}
	if !(s.S[0] >= s.S[1] && s.S[1] >= math.Abs(s.S[2])) || s.S[1] < 0 {
		t.Fatalf("%s: singular values %v not ordered σ₁ ≥ σ₂ ≥ |σ₃|", name, s.S)
	}
	// σ² against the eigenvalues of FᵀF from the closed-form cubic (see cubicTol).
	ft := transpose(f)
	ftf := mul(&ft, f)
	ev := cubicEigen(&ftf)
	for k := 0; k < 3; k++ {
		if e := math.Abs(s.S[k]*s.S[k]-ev[k]) / (scale * scale); e > cubicTol {
			t.Fatalf("%s: σ%d² = %g, eigenvalue of FᵀF %g (rel. err %g)", name, k+1, s.S[k]*s.S[k], ev[k], e)
		}
	}
	// The sign of det F is carried by σ₃ alone (Irving et al. 2004).
	if d := det(f); math.Abs(d) > 1e-9*scale*scale*scale && math.Signbit(d) != math.Signbit(s.S[2]) {
		t.Fatalf("%s: det F = %g but σ₃ = %g", name, d, s.S[2])
	}
	return s
}

func TestSVDRandomInvertedNearSingular(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 2000; trial++ {
		var f mat3
		switch trial % 4 {
		case 0: // random entries, about half of them inverted
			for k := range f {
				f[k] = rng.NormFloat64()
			}
		case 1: // near-singular: one or two singular values down to 1e-13
			u, v := randRotation(rng), randRotation(rng)
			d := [3]float64{1 + rng.Float64(), math.Pow(10, -13*rng.Float64()), math.Pow(10, -13*rng.Float64())}
			f = udvt(&u, d, &v)
		case 2: // inverted: a reflection composed with a stretch
			u, v := randRotation(rng), randRotation(rng)
			d := [3]float64{0.5 + rng.Float64(), 0.5 + rng.Float64(), -(0.5 + rng.Float64())}
			f = udvt(&u, d, &v)
		case 3: // repeated singular values, positive or inverted
			u, v := randRotation(rng), randRotation(rng)
			a, c := 0.5+rng.Float64(), 0.5+rng.Float64()
			d := [3]float64{a, a, a}
			if trial%8 == 3 {
				d = [3]float64{a, c, c}
			}
			if trial%16 == 7 {
				d[2] = -d[2]
			}
			f = udvt(&u, d, &v)
		}
		s := checkSVD(t, "random", &f)
		if trial%4 == 2 && !(s.S[2] < 0) {
			t.Fatalf("inverted F: σ₃ = %g, want < 0", s.S[2])
		}
	}
}

func TestSVDSpecialMatrices(t *testing.T) {
	cases := map[string]mat3{
		"identity":      identity(),
		"zero":          {},
		"reflection":    {1, 0, 0, 0, 1, 0, 0, 0, -1},
		"point inverse": {-1, 0, 0, 0, -1, 0, 0, 0, -1},
		"rank one":      {1, 2, 3, 2, 4, 6, -1, -2, -3},
		"rank two":      {1, 0, 0, 0, 2, 0, 0, 0, 0},
		"flat inverted": {2, 0, 0, 0, -1e-14, 0, 0, 0, 3},
		"permutation":   {0, 1, 0, 0, 0, 1, 1, 0, 0},
	}
	for name, f := range cases {
		s := checkSVD(t, name, &f)
		if name == "point inverse" && !(s.S[0] == 1 && s.S[1] == 1 && s.S[2] == -1) {
			t.Fatalf("−I: Σ = %v, want (1, 1, −1)", s.S)
		}
	}
}

// svdSample returns matrices of every kind TestSVDRandomInvertedNearSingular draws, a
// rotation times a stretch within a few percent of I along random axes (kind 4), and the kind
// a body's step decomposes most (kind 5): a rotation times a symmetric stretch within 1 % of I.
func svdSample(rng *rand.Rand, kind int) mat3 {
	u, v := randRotation(rng), randRotation(rng)
	switch kind % 6 {
	case 0:
		var f mat3
		for k := range f {
			f[k] = rng.NormFloat64()
		}
		return f
	case 1:
		return udvt(&u, [3]float64{1 + rng.Float64(), math.Pow(10, -13*rng.Float64()), math.Pow(10, -13*rng.Float64())}, &v)
	case 2:
		return udvt(&u, [3]float64{0.5 + rng.Float64(), 0.5 + rng.Float64(), -(0.5 + rng.Float64())}, &v)
	case 3:
		a := 0.5 + rng.Float64()
		return udvt(&u, [3]float64{a, a, a}, &v)
	case 5:
		var e mat3
		for r := 0; r < 3; r++ {
			for c := r; c < 3; c++ {
				e[3*r+c] = 0.01 * rng.NormFloat64()
				e[3*c+r] = e[3*r+c]
			}
		}
		id := identity()
		for k := range e {
			e[k] += id[k]
		}
		return mul(&u, &e)
	}
	d := [3]float64{1 + 0.05*rng.NormFloat64(), 1 + 0.05*rng.NormFloat64(), 1 + 0.05*rng.NormFloat64()}
	return udvt(&u, d, &v)
}

// TestDecompose4MatchesDecompose: Decompose is accurate (checkSVD) on every kind of svdSample,
// which includes the body's usual F, a rotation times a stretch near I, on which its early stop
// (jacobiDone) saves sweeps; and the four-at-once decomposition gives each matrix exactly
// Decompose's result (every bit of U, V and Σ), also when the four need different numbers of
// sweeps (mixed kinds, and groups with the identity and the zero matrix, which need none).
func TestDecompose4MatchesDecompose(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 3000; trial++ {
		var f [4]mat3
		for l := range f {
			f[l] = svdSample(rng, rng.IntN(6))
		}
		switch trial % 7 {
		case 3:
			f[1] = identity()
		case 5:
			f[2] = mat3{}
		}
		var got [4]SVD3
		Decompose4(&f, &got)
		for l := range f {
			want := checkSVD(t, "sample", &f[l])
			if got[l] != want {
				t.Fatalf("trial %d, matrix %d: Decompose4 gives %v, Decompose %v", trial, l, got[l], want)
			}
		}
	}
}

// BenchmarkDecompose times one SVD of a rotation times a symmetric stretch near I (the body's
// usual case), one at a time and four at once.
func BenchmarkDecompose(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	fs := make([][4]mat3, 256)
	for k := range fs {
		for l := range fs[k] {
			fs[k][l] = svdSample(rng, 5)
		}
	}
	var sink float64
	b.Run("one", func(b *testing.B) {
		for n := 0; n < b.N; n++ {
			f := &fs[n%len(fs)]
			for l := range f {
				s := Decompose(&f[l])
				sink += s.S[0]
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(4*b.N), "ns/svd")
	})
	b.Run("four", func(b *testing.B) {
		var out [4]SVD3
		for n := 0; n < b.N; n++ {
			Decompose4(&fs[n%len(fs)], &out)
			sink += out[0].S[0]
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(4*b.N), "ns/svd")
	})
	_ = sink
}

// TestSVDScaled: matrices scaled far from 1 (entries near 1e±100, where the rotations' squares
// would overflow or underflow, so they take the other formula of the rotation) decompose
// accurately: U Σ Vᵀ = F and UᵀU = VᵀV = I to svdTol, and Σ is the unscaled matrix's times
// the scale to 1e-12 relative.
func TestSVDScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 500; trial++ {
		f := svdSample(rng, trial)
		ref := Decompose(&f)
		for _, scale := range []float64{1e-100, 1e100, 1e-75, 1e75} {
			var g mat3
			for k := range f {
				g[k] = f[k] * scale
			}
			s := Decompose(&g)
			rec := udvt(&s.U, s.S, &s.V)
			if e := maxAbsDiff(&rec, &g) / fnorm(&g); e > svdTol {
				t.Fatalf("trial %d, scale %g: |UΣVᵀ − F|/|F| = %g", trial, scale, e)
			}
			id := identity()
			for _, m := range []*mat3{&s.U, &s.V} {
				mt := transpose(m)
				mtm := mul(&mt, m)
				if e := maxAbsDiff(&mtm, &id); e > svdTol {
					t.Fatalf("trial %d, scale %g: |MᵀM − I| = %g", trial, scale, e)
				}
			}
			for k := range s.S {
				if e := math.Abs(s.S[k]/scale-ref.S[k]) / fnorm(&f); e > 1e-12 {
					t.Fatalf("trial %d, scale %g: σ%d = %g, unscaled %g", trial, scale, k+1, s.S[k]/scale, ref.S[k])
				}
			}
		}
	}
}

// TestSVDSweeps: on the body's usual F (a rotation times a symmetric stretch within 1 % of I)
// Decompose converges as cyclic Jacobi does, quadratically: 3.96 sweeps on average over these
// 10 000 samples, the last one's rotations all below jacobiDone; at most 4.5 on average and
// 6 for any one. A rotation by the wrong root or a stop that waits for round-off takes more.
func TestSVDSweeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	total, worst := 0, 0
	const n = 10000
	for k := 0; k < n; k++ {
		f := svdSample(rng, 5)
		_, sw := decompose(&f)
		total += sw
		worst = max(worst, sw)
	}
	t.Logf("%.2f sweeps on average, %d at most", float64(total)/n, worst)
	if float64(total)/n > 4.5 || worst > 6 {
		t.Fatalf("%.2f sweeps on average and %d at most, want ≤ 4.5 and ≤ 6", float64(total)/n, worst)
	}
}
