package game

import (
	"math"
	"testing"
)

// lattice returns the positions (stride 3) of the particles of radius r on a cubic lattice of
// spacing 2r, nx × ny × nz of them, the first at the origin.
func lattice(nx, ny, nz int, r float64) []float32 {
	var p []float32
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				p = append(p, float32(2*r*float64(i)), float32(2*r*float64(j)), float32(2*r*float64(k)))
			}
		}
	}
	return p
}

// axisLengths returns the lengths of particle i's three semi-axes and the unit direction of
// its shortest one.
func axisLengths(axes []float32, i int) (l [3]float64, short [3]float64) {
	for k := 0; k < 3; k++ {
		a := axes[9*i+3*k : 9*i+3*k+3]
		l[k] = math.Sqrt(float64(a[0])*float64(a[0]) + float64(a[1])*float64(a[1]) + float64(a[2])*float64(a[2]))
	}
	a := axes[9*i+6 : 9*i+9]
	for c := 0; c < 3; c++ {
		short[c] = float64(a[c]) / l[2]
	}
	return l, short
}

// TestAnisotropyFlattensLayers checks Yu and Turk's ellipsoids (aniso.go) on lattices of
// particles: a particle in the middle of a flat layer one particle thick is a disc in the
// layer's plane, its shortest axis along the layer's normal and k_r times shorter than the
// others (the clamp of Eq. 15: the layer has no spread across it at all); a particle in the
// top layer of a block is flattened along the vertical; a particle deep inside the block, with
// neighbours all round, stays the sphere of radius r; and every ellipsoid keeps the sphere's
// volume. The same holds for one and for four workers, bit for bit.
func TestAnisotropyFlattensLayers(t *testing.T) {
	const (
		r = 0.01
		// The computation is in float64 and the axes are stored as float32: relative errors
		// of a few float32 roundings (6e-8 each).
		tol = 1e-6
		// Direction of the shortest axis: within this of the layer's normal (cosine).
		cosTol = 1 - 1e-6
		// A block's top layer: its shortest axis at most this fraction of its longest. The
		// layer has neighbours below and beside it, none above, so its spread along the
		// vertical is well below the spread along the layer (an isotropic particle has 1).
		maxTopRatio = 0.75
	)
	// One layer, 21 × 21 particles in the x–z plane; the middle one is 10 spacings from every
	// edge, farther than the support (4 spacings).
	layer := lattice(21, 1, 21, r)
	for _, workers := range []int{1, 4} {
		a := newAnisotropy(workers)
		a.Compute(layer, 3, len(layer)/3, r)
		mid := 10*21 + 10
		l, short := axisLengths(a.Axes, mid)
		if math.Abs(l[0]/l[1]-1) > tol || math.Abs(l[0]/l[2]-anisoMaxRatio) > anisoMaxRatio*tol {
			t.Errorf("workers %d: layer: semi-axes %.6g, %.6g, %.6g m, want two equal and the third 1/%g of them", workers, l[0], l[1], l[2], anisoMaxRatio)
		}
		if math.Abs(short[1]) < cosTol {
			t.Errorf("workers %d: layer: shortest axis along %.6f, want along y (the layer's normal)", workers, short)
		}
		if v := l[0] * l[1] * l[2]; math.Abs(v/(r*r*r)-1) > 3*tol {
			t.Errorf("workers %d: layer: product of semi-axes %.6g m³, want r³ = %.6g (the sphere's volume)", workers, v, r*r*r)
		}
		a.Close()
	}

	// A block of 13 × 9 × 13 particles: the top layer's middle particle is flattened along y,
	// the middle particle (4 spacings below the top, 6 from the sides) a sphere.
	block := lattice(13, 9, 13, r)
	var results [2][]float32
	for wi, workers := range []int{1, 4} {
		a := newAnisotropy(workers)
		a.Compute(block, 3, len(block)/3, r)
		results[wi] = append([]float32(nil), a.Axes...)
		a.Close()
	}
	for i := range results[0] {
		if results[0][i] != results[1][i] {
			t.Fatalf("axes float %d: %g with 1 worker, %g with 4", i, results[0][i], results[1][i])
		}
	}
	axes := results[0]
	top := (6*9+8)*13 + 6
	l, short := axisLengths(axes, top)
	if l[2]/l[0] > maxTopRatio || math.Abs(short[1]) < cosTol {
		t.Errorf("top layer: semi-axes %.6g, %.6g, %.6g m, shortest along %.6f: want it along y and ≤ %g of the longest", l[0], l[1], l[2], short, maxTopRatio)
	}
	t.Logf("top layer: semi-axes %.4f, %.4f, %.4f r", l[0]/r, l[1]/r, l[2]/r)
	mid := (6*9+4)*13 + 6
	l, _ = axisLengths(axes, mid)
	for k := 0; k < 3; k++ {
		if math.Abs(l[k]/r-1) > tol {
			t.Errorf("interior: semi-axis %d is %.8g r, want 1 (a sphere)", k, l[k]/r)
		}
	}
	// A lone particle (no neighbours): the sphere.
	a := newAnisotropy(1)
	defer a.Close()
	a.Compute([]float32{0, 0, 0}, 3, 1, r)
	if l, _ := axisLengths(a.Axes, 0); l != [3]float64{r32(r), r32(r), r32(r)} {
		t.Errorf("lone particle: semi-axes %v, want r = %g each", l, r)
	}
}

// r32 is x rounded to float32, as the axes are stored.
func r32(x float64) float64 { return float64(float32(x)) }

// BenchmarkAnisotropy times the ellipsoids' computation (aniso.go) per frame for cubic
// lattice blocks of about 10k and 100k liquid particles (those of BenchmarkSurfacePasses), on
// GOMAXPROCS workers, and checks that it allocates nothing after the first call.
//
//	go test -run '^$' -bench Anisotropy ./game/
func BenchmarkAnisotropy(b *testing.B) {
	for _, c := range []struct {
		name string
		n    [3]int
	}{{"10k", [3]int{23, 23, 22}}, {"100k", [3]int{48, 48, 47}}} {
		b.Run(c.name, func(b *testing.B) {
			const r = 0.01
			pos := lattice(c.n[0], c.n[1], c.n[2], r)
			n := len(pos) / 3
			a := newAnisotropy(0)
			defer a.Close()
			a.Compute(pos, 3, n, r)
			allocs := testing.AllocsPerRun(5, func() { a.Compute(pos, 3, n, r) })
			if allocs != 0 {
				b.Fatalf("%g allocations per call after the first, want 0", allocs)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a.Compute(pos, 3, n, r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e6/float64(b.N), "ms/frame")
			b.ReportMetric(float64(n), "particles")
		})
	}
}
