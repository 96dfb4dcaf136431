package reduced

import "math"

// grid is the staggered (MAC) background grid of §5.1 ("for collecting training data and
// visualization purposes, a grid is useful ... we explicitly use the grid for solid-fluid
// coupling"): nx×ny cells of size hx×hy; u samples on the vertical faces at (i hx, (j+½) hy),
// i ∈ [0,nx], j ∈ [0,ny); v samples on the horizontal faces at ((i+½) hx, j hy).
//
// Its quadrature (trapezoid across the faces' normal direction, midpoint along it, weight
// hx·hy) integrates every product of two ambient modes exactly: each factor pair is a sum of
// cosines of frequency below 2·nx (resp. 2·ny) times π/L, which both rules integrate exactly.
// This is the inner product of Eq. 5.3/5.4 on the grid.
type grid struct {
	nx, ny int
	hx, hy float64
	// separable sine/cosine tables, indexed [wave−1][sample]: sux = sin(a1π x/Lx) at the u
	// faces' x, cuy = cos(a2π y/Ly) at their y, cvx and svy likewise for the v faces.
	sux, cuy, cvx, svy [][]float64
	wu, wv             []float64 // quadrature weight per u sample (i-major in j) and per v sample
}

func (g *grid) nu() int { return (g.nx + 1) * g.ny }
func (g *grid) nv() int { return g.nx * (g.ny + 1) }

// uPos returns the position of u sample (i, j); index i*ny + j.
func (g *grid) uPos(i, j int) (x, y float64) { return float64(i) * g.hx, (float64(j) + 0.5) * g.hy }

// vPos returns the position of v sample (i, j); index i*(ny+1) + j.
func (g *grid) vPos(i, j int) (x, y float64) { return (float64(i) + 0.5) * g.hx, float64(j) * g.hy }

func newGrid(am *ambient, nx, ny int) *grid {
	g := &grid{nx: nx, ny: ny, hx: am.lx / float64(nx), hy: am.ly / float64(ny)}
	table := func(kmax, n int, pos func(int) float64, l float64, f func(float64) float64) [][]float64 {
		t := make([][]float64, kmax)
		for a := range t {
			t[a] = make([]float64, n)
			for i := range t[a] {
				t[a][i] = f(float64(a+1) * math.Pi * pos(i) / l)
			}
		}
		return t
	}
	g.sux = table(am.kx, nx+1, func(i int) float64 { return float64(i) * g.hx }, am.lx, math.Sin)
	g.cuy = table(am.ky, ny, func(j int) float64 { return (float64(j) + 0.5) * g.hy }, am.ly, math.Cos)
	g.cvx = table(am.kx, nx, func(i int) float64 { return (float64(i) + 0.5) * g.hx }, am.lx, math.Cos)
	g.svy = table(am.ky, ny+1, func(j int) float64 { return float64(j) * g.hy }, am.ly, math.Sin)
	w := g.hx * g.hy
	g.wu = make([]float64, g.nu())
	for i := 0; i <= nx; i++ {
		for j := 0; j < ny; j++ {
			g.wu[i*ny+j] = w
			if i == 0 || i == nx {
				g.wu[i*ny+j] = w / 2
			}
		}
	}
	g.wv = make([]float64, g.nv())
	for i := 0; i < nx; i++ {
		for j := 0; j <= ny; j++ {
			g.wv[i*(ny+1)+j] = w
			if j == 0 || j == ny {
				g.wv[i*(ny+1)+j] = w / 2
			}
		}
	}
	return g
}
