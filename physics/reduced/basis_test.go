package reduced

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// quadratureTol: the grid quadrature integrates products of two modes exactly (see grid), so
// the Gram matrix differs from the identity by rounding only: ~1e-14 for a few thousand terms.
const quadratureTol = 1e-10

// divergenceTol: the cell-mean divergence from 8-point Gauss–Legendre fluxes is exact to
// rounding for these wave numbers; relative to the mode's velocity scale over a cell.
const divergenceTol = 1e-10

func testConfig() Config {
	c := DefaultConfig()
	// a 2:1 rectangle with unequal cell counts, so swapped axes or wave numbers show
	c.Width, c.Height = 2, 1
	c.CellsX, c.CellsY = 40, 24
	c.Modes = 32
	c.Workers = 1
	return c
}

func mustNew(t testing.TB, c Config) *Domain {
	t.Helper()
	d, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// gridGram computes ⟨b_k, b_l⟩ with the test's own staggered-grid quadrature (trapezoid across
// the faces, midpoint along them) from GridVelocity's samples.
func gridGram(t *testing.T, d *Domain) []float64 {
	n := d.Modes()
	c := d.Config()
	hx, hy := c.Width/float64(c.CellsX), c.Height/float64(c.CellsY)
	us, vs := make([][]float64, n), make([][]float64, n)
	r := make([]float64, n)
	for k := 0; k < n; k++ {
		for i := range r {
			r[i] = 0
		}
		r[k] = 1
		if err := d.SetCoefficients(r); err != nil {
			t.Fatal(err)
		}
		us[k], vs[k] = d.GridVelocity(nil, nil)
	}
	nx, ny := c.CellsX, c.CellsY
	g := make([]float64, n*n)
	for k := 0; k < n; k++ {
		for l := 0; l < n; l++ {
			s := 0.0
			for i := 0; i <= nx; i++ {
				w := hx * hy
				if i == 0 || i == nx {
					w /= 2
				}
				for j := 0; j < ny; j++ {
					s += w * us[k][i*ny+j] * us[l][i*ny+j]
				}
			}
			for i := 0; i < nx; i++ {
				for j := 0; j <= ny; j++ {
					w := hx * hy
					if j == 0 || j == ny {
						w /= 2
					}
					s += w * vs[k][i*(ny+1)+j] * vs[l][i*(ny+1)+j]
				}
			}
			g[k*n+l] = s
		}
	}
	return g
}

func checkOrthonormal(t *testing.T, d *Domain) {
	t.Helper()
	n := d.Modes()
	g := gridGram(t, d)
	worst := 0.0
	for k := 0; k < n; k++ {
		for l := 0; l < n; l++ {
			want := 0.0
			if k == l {
				want = 1
			}
			worst = math.Max(worst, math.Abs(g[k*n+l]-want))
		}
	}
	t.Logf("%d modes: max |BᵀB − I| on the grid quadrature = %.2e", n, worst)
	if worst > quadratureTol {
		t.Errorf("basis is not orthonormal on the grid quadrature: max |BᵀB − I| = %.3e > %g", worst, quadratureTol)
	}
}

func TestBasisOrthonormalOnGridQuadrature(t *testing.T) {
	checkOrthonormal(t, mustNew(t, testConfig()))
}

var gl8x = [8]float64{-0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498, 0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363}
var gl8w = [8]float64{0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620, 0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763}

// cellDivergence returns the largest |cell-mean divergence| over the grid's cells of the
// velocity field f, from its outward flux through the four edges (divergence theorem), each
// edge integrated with 8-point Gauss–Legendre, and the largest |f| seen.
func cellDivergence(c Config, f func(x, y float64) (float64, float64)) (worst, vmax float64) {
	hx, hy := c.Width/float64(c.CellsX), c.Height/float64(c.CellsY)
	for i := 0; i < c.CellsX; i++ {
		for j := 0; j < c.CellsY; j++ {
			x0, y0 := float64(i)*hx, float64(j)*hy
			flux := 0.0
			for q := range gl8x {
				s := (gl8x[q] + 1) / 2
				ul, _ := f(x0, y0+s*hy)
				ur, _ := f(x0+hx, y0+s*hy)
				_, vb := f(x0+s*hx, y0)
				_, vt := f(x0+s*hx, y0+hy)
				flux += gl8w[q] / 2 * ((ur-ul)*hy + (vt-vb)*hx)
				vmax = math.Max(vmax, math.Max(math.Abs(ul), math.Abs(vb)))
			}
			worst = math.Max(worst, math.Abs(flux)/(hx*hy))
		}
	}
	return worst, vmax
}

func checkDivergenceFree(t *testing.T, d *Domain) {
	t.Helper()
	c := d.Config()
	h := math.Min(c.Width/float64(c.CellsX), c.Height/float64(c.CellsY))
	for k := 0; k < d.Modes(); k++ {
		worst, vmax := cellDivergence(c, func(x, y float64) (float64, float64) { return d.ModeVelocityAt(k, x, y) })
		if rel := worst * h / vmax; rel > divergenceTol {
			t.Errorf("mode %d: cell-mean divergence %.3e, relative to |b|/h %.3e > %g", k, worst, rel, divergenceTol)
		}
	}
}

func TestBasisDivergenceFree(t *testing.T) {
	d := mustNew(t, testConfig())
	checkDivergenceFree(t, d)
	// the walls: no normal velocity anywhere on them
	c := d.Config()
	for k := 0; k < d.Modes(); k++ {
		for s := 0.0; s <= 1; s += 0.0625 {
			u0, _ := d.ModeVelocityAt(k, 0, s*c.Height)
			u1, _ := d.ModeVelocityAt(k, c.Width, s*c.Height)
			_, v0 := d.ModeVelocityAt(k, s*c.Width, 0)
			_, v1 := d.ModeVelocityAt(k, s*c.Width, c.Height)
			if m := math.Max(math.Max(math.Abs(u0), math.Abs(u1)), math.Max(math.Abs(v0), math.Abs(v1))); m > 1e-12 {
				t.Errorf("mode %d has normal velocity %.3e on a wall", k, m)
			}
		}
	}
}

// closedFormEigenvalues: the r smallest (a1π/Lx)² + (a2π/Ly)², a1, a2 ≥ 1.
func closedFormEigenvalues(c Config) []float64 {
	var l []float64
	for a1 := 1; a1 <= c.CellsX/2; a1++ {
		for a2 := 1; a2 <= c.CellsY/2; a2++ {
			k1, k2 := float64(a1)*math.Pi/c.Width, float64(a2)*math.Pi/c.Height
			l = append(l, k1*k1+k2*k2)
		}
	}
	sort.Float64s(l)
	return l[:c.Modes]
}

// decayTol: the 1e-6 relative over 100 steps; the 4th-order Taylor step's error per
// step is (νλΔt)⁵/120 ≤ 0.04⁵/120 ≈ 1e-9, ~2e-7 in energy over 100 steps.
const decayTol = 1e-6

func TestViscousDecayPerModeAnalyticRate(t *testing.T) {
	c := testConfig()
	c.Viscosity = 1e-3
	d := mustNew(t, c)
	lam := closedFormEigenvalues(c)
	dt := 0.04 / (c.Viscosity * lam[len(lam)-1])
	r := make([]float64, d.Modes())
	for k := range lam {
		for i := range r {
			r[i] = 0
		}
		r[k] = 0.7
		_ = d.SetCoefficients(r)
		e0 := d.Energy()
		for s := 0; s < 100; s++ {
			if err := d.AdvanceFluid(dt); err != nil {
				t.Fatal(err)
			}
		}
		want := e0 * math.Exp(-2*c.Viscosity*lam[k]*100*dt)
		if rel := math.Abs(d.Energy()-want) / want; rel > decayTol {
			t.Errorf("mode %d (λ = %.4g): energy %.10g after 100 steps, analytic %.10g, relative error %.2e > %g", k, lam[k], d.Energy(), want, rel, decayTol)
		}
	}
}

// tensorTol: central differences with step 1e-6 (error ~δ²|∂³b| ≈ 1e-12·k³) and a 16-point
// composite Gauss–Legendre rule per cell; relative to the largest entry.
const tensorTol = 1e-6

// TestAdvectionTensorMatchesBruteForce checks entries of Eq. 5.7, C(k,i,j) = −⟨b_k,(b_i·∇)b_j⟩,
// against a brute-force integral of the mode velocities with numerical derivatives, and the
// antisymmetry C(k,i,j) = −C(j,i,k) that makes the exact step energy-conserving.
func TestAdvectionTensorMatchesBruteForce(t *testing.T) {
	c := testConfig()
	c.Modes = 12
	c.CellsX, c.CellsY = 16, 8
	d := mustNew(t, c)
	n := d.Modes()
	dense := make([]float64, n*n*n) // [i][k][j]
	b := d.b
	for i := 0; i < n; i++ {
		for e := b.tstart[i]; e < b.tstart[i+1]; e++ {
			dense[(i*n+int(b.tk[e]))*n+int(b.tj[e])] = b.tv[e]
		}
	}
	C := func(k, i, j int) float64 { return dense[(i*n+k)*n+j] }
	big, nnz := 0.0, 0
	for _, v := range dense {
		big = math.Max(big, math.Abs(v))
		if v != 0 {
			nnz++
		}
	}
	t.Logf("%d modes: %d of %d tensor entries nonzero", n, nnz, n*n*n)
	if nnz == 0 || nnz > n*n*n/2 {
		t.Errorf("tensor has %d nonzeros of %d: expected sparse but not empty", nnz, n*n*n)
	}
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if a := math.Abs(C(k, i, j) + C(j, i, k)); a > 1e-12*big {
					t.Fatalf("C(%d,%d,%d) = %g but C(%d,%d,%d) = %g: not antisymmetric", k, i, j, C(k, i, j), j, i, k, C(j, i, k))
				}
			}
		}
	}
	const delta = 1e-6
	hx, hy := c.Width/4, c.Height/4
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 12; trial++ {
		k, i, j := rng.Intn(n), rng.Intn(n), rng.Intn(n)
		if trial < 4 { // make sure some nonzero entries are checked
			for C(k, i, j) == 0 {
				k, i, j = rng.Intn(n), rng.Intn(n), rng.Intn(n)
			}
		}
		s := 0.0
		for ci := 0; ci < 4; ci++ {
			for cj := 0; cj < 4; cj++ {
				for p := range gl8x {
					for q := range gl8x {
						for sub := 0; sub < 4; sub++ {
							x := hx * (float64(ci) + (float64(sub%2)+(gl8x[p]+1)/2)/2)
							y := hy * (float64(cj) + (float64(sub/2)+(gl8x[q]+1)/2)/2)
							w := gl8w[p] * gl8w[q] / 16 * hx * hy
							uk, vk := d.ModeVelocityAt(k, x, y)
							ui, vi := d.ModeVelocityAt(i, x, y)
							uxp, vxp := d.ModeVelocityAt(j, x+delta, y)
							uxm, vxm := d.ModeVelocityAt(j, x-delta, y)
							uyp, vyp := d.ModeVelocityAt(j, x, y+delta)
							uym, vym := d.ModeVelocityAt(j, x, y-delta)
							dux, dvx := (uxp-uxm)/(2*delta), (vxp-vxm)/(2*delta)
							duy, dvy := (uyp-uym)/(2*delta), (vyp-vym)/(2*delta)
							s -= w * (uk*(ui*dux+vi*duy) + vk*(ui*dvx+vi*dvy))
						}
					}
				}
			}
		}
		if math.Abs(s-C(k, i, j)) > tensorTol*big {
			t.Errorf("C(%d,%d,%d) = %.9g, brute force %.9g", k, i, j, C(k, i, j), s)
		}
	}
}

// TestInviscidEnergyDriftOrder measures the order of the energy drift of the Taylor step by
// halving Δt: for Taylor order p the drift over a fixed time is O(Δt^(2⌊p/2⌋+1)) (see
// advanceFluid), with the sign of the leading term of T_pᵀT_p − I: +A⁴/4 for p = 2 (a gain),
// −A⁴/12 for p = 3 and +A⁶/72 = −(A³)ᵀA³/72 for p = 4 (losses).
func TestInviscidEnergyDriftOrder(t *testing.T) {
	// orderTol: the measured log2 ratio approaches the asymptotic order as Δt halves; 0.35
	// separates neighbouring orders.
	const orderTol = 0.35
	gain := map[int]bool{2: true, 3: false, 4: false}
	for _, p := range []int{2, 3, 4} {
		want := float64(2*(p/2) + 1)
		c := testConfig()
		c.TaylorOrder = p
		d := mustNew(t, c)
		rng := rand.New(rand.NewSource(7))
		r0 := make([]float64, d.Modes())
		for i := range r0 {
			r0[i] = rng.NormFloat64() * 0.2
		}
		const T = 0.2
		var drift []float64
		for _, steps := range []int{20, 40, 80} {
			_ = d.SetCoefficients(r0)
			e0 := d.Energy()
			for s := 0; s < steps; s++ {
				_ = d.AdvanceFluid(T / float64(steps))
			}
			drift = append(drift, (d.Energy()-e0)/e0)
		}
		o1, o2 := math.Log2(drift[0]/drift[1]), math.Log2(drift[1]/drift[2])
		t.Logf("Taylor order %d: relative energy drift %.3e %.3e %.3e, measured orders %.2f %.2f (expected %g)", p, drift[0], drift[1], drift[2], o1, o2, want)
		for _, dr := range drift {
			if (dr > 0) != gain[p] {
				t.Errorf("Taylor order %d: energy drift %.3e has the wrong sign (gain expected: %v)", p, dr, gain[p])
			}
		}
		if math.Abs(o2-want) > orderTol {
			t.Errorf("Taylor order %d: measured drift order %.2f, expected %g ± %g", p, o2, want, orderTol)
		}
	}
}
