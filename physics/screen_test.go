package physics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

// TestScreenVectorEqualsLoop: the vector screen (AVX2, eight candidates a step) accepts exactly
// the candidates of the Go loop, in the same order, for every candidate count up to 72
// (padded to a multiple of 8 as the search pads them) and for candidates placed on, just
// inside and just outside the squared radius. It skips where the processor has no AVX2.
func TestScreenVectorEqualsLoop(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 screen on this processor or build: the search uses the Go loop only")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	const h2 = float32(0.01)
	r := float32(math.Sqrt(float64(h2)))
	for n := 0; n <= 72; n++ {
		for trial := 0; trial < 20; trial++ {
			padded := (n + 7) &^ 7
			near := make([]int32, padded)
			nx, ny, nz := make([]float32, padded), make([]float32, padded), make([]float32, padded)
			for k := range padded {
				if k >= n {
					nx[k], ny[k], nz[k] = math.MaxFloat32, math.MaxFloat32, math.MaxFloat32
					continue
				}
				near[k] = int32(rng.IntN(1 << 20))
				if k%3 == 0 {
					// on the sphere of radius r around the query point at (0.01, 0, 0), or a
					// float32 step inside or outside it
					nx[k] = 0.01 + math.Nextafter32(r, float32(k%2)*r*2)
				} else {
					nx[k] = float32(rng.Float64()*0.4 - 0.2)
					ny[k] = float32(rng.Float64()*0.4 - 0.2)
					nz[k] = float32(rng.Float64()*0.4 - 0.2)
				}
			}
			a, b := make([]int32, padded), make([]int32, padded)
			na := screen(a, near, nx, ny, nz, 0.01, 0, 0, h2)
			nb := screenVec(b, near, nx, ny, nz, 0.01, 0, 0, h2)
			if na != nb || !slices.Equal(a[:na], b[:nb]) {
				t.Fatalf("%d candidates: the loop accepts %d %v, the vector screen %d %v", n, na, a[:na], nb, b[:nb])
			}
		}
	}
}

// TestKeepExactVectorEqualsLoop: keepExact with the AVX2 loop gives the Go loop's points and
// squared distances bit for bit, for 0–41 candidates of which a third lie on the sphere of
// radius h around the query point or one float64 step inside or outside it, and with the query
// point itself among them (kept when self is −1, dropped when it is the point's index).
func TestKeepExactVectorEqualsLoop(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this processor or build: the search uses the Go loop only")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	const h = 0.1
	xi := Vec3{1.3, -0.7, 2.1}
	const nt = 300
	for n := 0; n <= 41; n++ {
		for trial := 0; trial < 20; trial++ {
			sorted := make([]Vec3, nt)
			order := make([]int32, nt)
			for k := range sorted {
				order[k] = int32(rng.IntN(1 << 20))
				if k%3 == 0 {
					d := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
					r := math.Nextafter(h, float64(k%2)*2*h)
					if k%9 == 0 {
						r = h
					}
					sorted[k] = xi.Add(d.Mul(r))
				} else {
					sorted[k] = xi.Add(Vec3{rng.Float64()*0.24 - 0.12, rng.Float64()*0.24 - 0.12, rng.Float64()*0.24 - 0.12})
				}
			}
			sorted[7] = xi
			cand := make([]int32, n)
			for q := range cand {
				cand[q] = int32(rng.IntN(nt))
			}
			if n > 2 {
				cand[n/2] = 7
			}
			for _, self := range []int32{-1, order[7]} {
				var got [2][]int32
				var gr2 [2][]float64
				for v, vector := range []bool{false, true} {
					useAVX2 = vector
					js, r2s := make([]int32, n), make([]float64, n)
					na := keepExact(cand, order, sorted, &xi, h*h, self, js, r2s)
					got[v], gr2[v] = js[:na], r2s[:na]
				}
				useAVX2 = true
				if !slices.Equal(got[0], got[1]) || !slices.EqualFunc(gr2[0], gr2[1], func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
					t.Fatalf("%d candidates, self %d: the loop keeps %v %v, the vector loop %v %v", n, self, got[0], gr2[0], got[1], gr2[1])
				}
				if n > 2 && (self < 0) != slices.Contains(got[0], order[7]) {
					t.Fatalf("%d candidates, self %d: the query point's own entry kept %v", n, self, slices.Contains(got[0], order[7]))
				}
			}
		}
	}
}

// TestSearchKeepsPairsAtTheRadius: the screen compares in single precision against a widened
// h², and the kernel loop keeps exactly the pairs with r² < h² in double precision. Targets
// at h·(1 ± δ) from query points far from the origin (|x| ≈ 37 m, where a float32 coordinate
// is off by up to 2·10⁻⁶ m) are found exactly when the double-precision distance is inside:
// without the margin the screen drops the pairs at h(1 − 10⁻⁸), without the exact test the
// lists gain those at h(1 + 10⁻⁸).
func TestSearchKeepsPairsAtTheRadius(t *testing.T) {
	const h = 0.05
	kr := NewKernel(CubicSpline, h)
	origin := Vec3{37.3, -12.1, 5.7}
	rng := rand.New(rand.NewPCG(13, 14))
	var xq, xt []Vec3
	for q := 0; q < 40; q++ {
		c := Vec3{origin[0] + rng.Float64()*0.3, origin[1] + rng.Float64()*0.3, origin[2] + rng.Float64()*0.3}
		xq = append(xq, c)
		for _, d := range []float64{-1e-6, -1e-7, -1e-8, 1e-8, 1e-7, 1e-6} {
			u := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			l := math.Sqrt(u[0]*u[0] + u[1]*u[1] + u[2]*u[2])
			s := h * (1 + d) / l
			xt = append(xt, Vec3{c[0] + s*u[0], c[1] + s*u[1], c[2] + s*u[2]})
		}
	}
	for _, vec := range []bool{false, true} {
		if vec && !useAVX2 {
			continue
		}
		saved := useAVX2
		useAVX2 = vec
		pool := par.NewPool(1)
		var qg, tg Grid
		if err := qg.Build(xq, h, pool); err != nil {
			t.Fatal(err)
		}
		if err := tg.Build(xt, h, pool); err != nil {
			t.Fatal(err)
		}
		adj := make([]int32, 27*qg.NumCells())
		qg.Adjacent(&tg, adj, pool)
		var nb Neighbors
		Search(&qg, xq, &tg, adj, &kr, false, &nb, pool)
		js, _, _ := referenceLists(&qg, xq, &tg, adj, &kr, false)
		inside := 0
		for i := range xq {
			j, _, _ := nb.Of(i)
			if !slices.Equal(j, js[i]) {
				t.Fatalf("vector %v: point %d: lists %v, the double-precision search %v", vec, i, j, js[i])
			}
			for _, k := range j {
				x := xt[k]
				dx, dy, dz := xq[i][0]-x[0], xq[i][1]-x[1], xq[i][2]-x[2]
				if dx*dx+dy*dy+dz*dz >= h*h {
					t.Fatalf("vector %v: point %d keeps target %d at or beyond h", vec, i, k)
				}
			}
			inside += len(j)
		}
		// three of each query point's six targets lie inside (and no other query point's
		// targets reach it, except by chance, which the equality above also covers)
		if inside < 3*len(xq) {
			t.Fatalf("vector %v: %d pairs inside, want at least %d", vec, inside, 3*len(xq))
		}
		pool.Close()
		useAVX2 = saved
	}
}

// TestGatherRunVectorEqualsLoop: the assembly gather of a run's candidates writes the same
// indices and the same single-precision relative positions as the Go loop, bit for bit, for
// the 27 cells of every cell of a jittered block (cells at its border have absent neighbours).
func TestGatherRunVectorEqualsLoop(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 gather on this processor or build: the search uses the Go loop only")
	}
	const h = 0.05
	block := jitteredBlock(9, h)
	pool := par.NewPool(1)
	defer pool.Close()
	var g Grid
	if err := g.Build(block, h, pool); err != nil {
		t.Fatal(err)
	}
	adj := g.SelfAdjacent()
	n := len(block)
	for c := 0; c < g.NumCells(); c++ {
		o := block[c%n]
		cells := adj[27*c : 27*c+27]
		a := [4][]float32{}
		var na, nb []int32
		na, nb = make([]int32, n), make([]int32, n)
		for q := range a {
			a[q] = make([]float32, 2*n)
		}
		ta := gatherRunGo(cells, g.cellStart, g.Sorted, na, a[0][:n], a[1][:n], a[2][:n], o[0]+1e-3, o[1], o[2]-2e-3)
		tb := gatherRun(cells, g.cellStart, g.Sorted, nb, a[0][n:], a[1][n:], a[2][n:], o[0]+1e-3, o[1], o[2]-2e-3)
		if ta != tb || ta == 0 || !slices.Equal(na[:ta], nb[:tb]) {
			t.Fatalf("cell %d: %d and %d candidates, indices differ", c, ta, tb)
		}
		for q := 0; q < 3; q++ {
			for k := 0; k < ta; k++ {
				if math.Float32bits(a[q][k]) != math.Float32bits(a[q][n+k]) {
					t.Fatalf("cell %d, axis %d, candidate %d: %g against %g", c, q, k, a[q][k], a[q][n+k])
				}
			}
		}
	}
}

// TestCubicSquaredEqualsCubic: the cubic spline evaluated four at a time from squared distances
// gives Kernel.cubic's value and gradient factor bit for bit (both rounded to float32), for
// random distances in (0, h), at q = ½ and one float64 step to either side of it, and near 0
// and h, with the vector loop and the Go loop, for every length up to 11 (the tail the vector
// loop leaves to the Go loop).
func TestCubicSquaredEqualsCubic(t *testing.T) {
	const h = 0.1
	kr := NewKernel(CubicSpline, h)
	rng := rand.New(rand.NewPCG(15, 16))
	special := []float64{h / 2, math.Nextafter(h/2, 0), math.Nextafter(h/2, h), 1e-9 * h, math.Nextafter(h, 0), 0.3 * h}
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, vec := range []bool{false, true} {
		useAVX2 = vec && saved
		for n := 1; n <= 11; n++ {
			for trial := 0; trial < 50; trial++ {
				r := make([]float64, n)
				r2 := make([]float64, n)
				for q := range r {
					if trial < len(special) && q == n-1-trial%n {
						r[q] = special[trial]
					} else {
						r[q] = rng.Float64() * h
					}
					r2[q] = r[q] * r[q]
				}
				w, g := make([]float32, n), make([]float32, n)
				kr.cubicSquared(r2, w, g)
				for q := range r {
					ww, gg := kr.cubic(sqrt(r2[q]))
					if math.Float32bits(w[q]) != math.Float32bits(float32(ww)) || math.Float32bits(g[q]) != math.Float32bits(float32(gg)) {
						t.Fatalf("vector %v, r = %v: (%g, %g), Kernel.cubic (%g, %g)", useAVX2, r[q], w[q], g[q], float32(ww), float32(gg))
					}
				}
			}
		}
	}
}
