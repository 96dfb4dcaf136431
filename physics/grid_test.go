package physics

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

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
			if ws[k] != float32(kr.W(r)) || gws[k][0] != float32(kr.GradFactor(r)*x[0]) {
				t.Fatalf("%s: pair (%d,%d) has wrong kernel values", name, i, j)
			}
		}
	}
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
	// After permuting the points into the grid's z-order the search still matches brute force.
	pool := par.NewPool(2)
	defer pool.Close()
	var g Grid
	if err := g.Build(random, h, pool); err != nil {
		t.Fatal(err)
	}
	sorted := slices.Clone(g.Sorted)
	checkSearch(t, "sorted", sorted, sorted, h, true, 2)
	// The z-order is a permutation of all points.
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
