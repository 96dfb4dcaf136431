package flip

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

// dense is a dense SPD operator with a Jacobi-in-face preconditioner (or none).
type dense struct {
	n      int
	a      []float64
	jacobi bool
}

func (d *dense) Len() int { return d.n }
func (d *dense) Mul(x, y []float64) {
	for i := 0; i < d.n; i++ {
		s := 0.0
		for j := 0; j < d.n; j++ {
			s += d.a[i*d.n+j] * x[j]
		}
		y[i] = s
	}
}
func (d *dense) Precond(free []bool, _ bool, r, z []float64) {
	for i := range z {
		switch {
		case !free[i]:
			z[i] = 0
		case d.jacobi:
			z[i] = r[i] / d.a[i*d.n+i]
		default:
			z[i] = r[i]
		}
	}
}

// randomSPD returns MᵀM + δI with M uniform in [−1, 1]: condition numbers of 10²-10⁴ at
// these sizes, and b uniform in [−1, 1], so about half the unknowns end up at the bound.
func randomSPD(rng *rand.Rand, n int) (*dense, []float64) {
	m := make([]float64, n*n)
	for i := range m {
		m[i] = 2*rng.Float64() - 1
	}
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += m[k*n+i] * m[k*n+j]
			}
			a[i*n+j] = s
		}
		a[i*n+i] += 0.05 * float64(n)
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = 2*rng.Float64() - 1
	}
	return &dense{n: n, a: a}, b
}

// enumerateLCP solves the LCP by trying every free set F: x_F = −A_FF⁻¹ b_F (Gaussian
// elimination), x = 0 off F, accepted when x_F ≥ 0 and (A x + b) ≥ 0 off F. For SPD A exactly
// one free set qualifies (up to degenerate ties).
func enumerateLCP(d *dense, b []float64) []float64 {
	n := d.n
	best := []float64(nil)
	for mask := 0; mask < 1<<n; mask++ {
		var idx []int
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				idx = append(idx, i)
			}
		}
		m := len(idx)
		aug := make([]float64, m*(m+1))
		for r, i := range idx {
			for c, j := range idx {
				aug[r*(m+1)+c] = d.a[i*n+j]
			}
			aug[r*(m+1)+m] = -b[i]
		}
		for c := 0; c < m; c++ {
			p := c
			for r := c + 1; r < m; r++ {
				if math.Abs(aug[r*(m+1)+c]) > math.Abs(aug[p*(m+1)+c]) {
					p = r
				}
			}
			for k := 0; k <= m; k++ {
				aug[c*(m+1)+k], aug[p*(m+1)+k] = aug[p*(m+1)+k], aug[c*(m+1)+k]
			}
			for r := 0; r < m; r++ {
				if r == c {
					continue
				}
				f := aug[r*(m+1)+c] / aug[c*(m+1)+c]
				for k := c; k <= m; k++ {
					aug[r*(m+1)+k] -= f * aug[c*(m+1)+k]
				}
			}
		}
		x := make([]float64, n)
		ok := true
		for r, i := range idx {
			x[i] = aug[r*(m+1)+m] / aug[r*(m+1)+r]
			if x[i] < 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		y := make([]float64, n)
		d.Mul(x, y)
		for i := 0; i < n; i++ {
			if mask&(1<<i) == 0 && y[i]+b[i] < -1e-12 {
				ok = false
			}
		}
		if ok {
			best = x
			break
		}
	}
	return best
}

// projectedGaussSeidel solves the LCP by projected Gauss-Seidel (coordinate descent on the
// convex quadratic, which converges for SPD A) until a sweep changes no unknown by more than
// 1e-15 relative.
func projectedGaussSeidel(op Operator, diagOf func(i int) float64, rowDot func(i int, x []float64) float64, b []float64) []float64 {
	n := op.Len()
	x := make([]float64, n)
	for sweep := 0; sweep < 1_000_000; sweep++ {
		change, size := 0.0, 0.0
		for i := 0; i < n; i++ {
			r := rowDot(i, x) + b[i] // (A x + b)_i
			xi := max(x[i]-r/diagOf(i), 0)
			change = max(change, math.Abs(xi-x[i]))
			size = max(size, math.Abs(xi))
			x[i] = xi
		}
		if change <= 1e-15*max(size, 1e-300) {
			break
		}
	}
	return x
}

// lcpTol is the agreement required of MPRGP with the brute-force solutions (the issue's
// 1e-8): solves run to a projected-gradient norm of 1e-12, far below it.
const lcpTol = 1e-8

// checkLCP asserts feasibility (x ≥ 0, A x + b ≥ −lcpTol), complementarity
// (|x_i (A x + b)_i| ≤ lcpTol) and agreement with ref.
func checkLCP(t *testing.T, name string, op Operator, b, x, ref []float64) {
	t.Helper()
	y := make([]float64, len(x))
	op.Mul(x, y)
	for i := range x {
		w := y[i] + b[i]
		if x[i] < 0 {
			t.Fatalf("%s: x[%d] = %g < 0", name, i, x[i])
		}
		if w < -lcpTol {
			t.Fatalf("%s: (Ax+b)[%d] = %g < 0", name, i, w)
		}
		if math.Abs(x[i]*w) > lcpTol {
			t.Fatalf("%s: complementarity x·w = %g at %d", name, x[i]*w, i)
		}
		if math.Abs(x[i]-ref[i]) > lcpTol*max(1, math.Abs(ref[i])) {
			t.Fatalf("%s: x[%d] = %.12g, brute force %.12g", name, i, x[i], ref[i])
		}
	}
}

func TestMPRGPMatchesEnumerationOnRandomSPD(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 3))
	var s MPRGP
	for trial := 0; trial < 40; trial++ {
		n := 2 + trial%9
		d, b := randomSPD(rng, n)
		ref := enumerateLCP(d, b)
		if ref == nil {
			t.Fatalf("trial %d: enumeration found no solution", trial)
		}
		for k := 0; k < 4; k++ {
			jac, pprop := k%2 == 1, k >= 2
			d.jacobi = jac
			s.PreconditionedProportioning = pprop
			tmp := make([]float64, n)
			v := make([]float64, n)
			lam, _ := PowerNorm(d, v, tmp, 1e-6, 1000)
			x := make([]float64, n)
			res := s.Solve(d, b, x, 1/lam, 1e-12, 10000)
			if !res.Converged {
				t.Fatalf("trial %d (n=%d, jacobi %v, preconditioned proportioning %v): not converged: %+v", trial, n, jac, pprop, res)
			}
			checkLCP(t, "enumeration", d, b, x, ref)
		}
	}
}

func TestMPRGPMatchesProjectedGaussSeidel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var s MPRGP
	for trial := 0; trial < 6; trial++ {
		n := 40 + 10*trial
		d, b := randomSPD(rng, n)
		ref := projectedGaussSeidel(d, func(i int) float64 { return d.a[i*n+i] },
			func(i int, x []float64) float64 { return dot(d.a[i*n:i*n+n], x) }, b)
		d.jacobi = trial%2 == 1
		tmp, v := make([]float64, n), make([]float64, n)
		lam, _ := PowerNorm(d, v, tmp, 1e-6, 1000)
		// Warm start from a random feasible point: the solver must not depend on starting at 0.
		x0 := make([]float64, n)
		for i := range x0 {
			x0[i] = rng.Float64()
		}
		for _, pprop := range []bool{false, true} {
			s.PreconditionedProportioning = pprop
			x := append([]float64(nil), x0...)
			res := s.Solve(d, b, x, 1/lam, 1e-12, 100000)
			if !res.Converged {
				t.Fatalf("trial %d (preconditioned proportioning %v): not converged: %+v", trial, pprop, res)
			}
			checkLCP(t, "PGS", d, b, x, ref)
		}
	}
}

// gridPoisson builds the Eq. 3.6 operator on an n³ block of system cells with random face
// fractions in (0.2, 1], air around the block's top (Dirichlet) and closed walls elsewhere.
func gridPoisson(rng *rand.Rand, n int, pool *par.Pool) *poisson {
	o := newPoisson(pool)
	o.resize(n * n * n)
	o.scale = 0.01
	idx := func(i, j, k int) int { return i + n*(j+n*k) }
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				c := idx(i, j, k)
				for dir := 0; dir < 6; dir++ {
					o.nb[6*c+dir] = -1
					o.cf[6*c+dir] = 0
				}
			}
		}
	}
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				c := idx(i, j, k)
				if i+1 < n {
					f := 0.2 + 0.8*rng.Float64()
					e := idx(i+1, j, k)
					o.nb[6*c+1], o.cf[6*c+1], o.nb[6*e+0], o.cf[6*e+0] = int32(e), f, int32(c), f
					o.diag[c] += f
					o.diag[e] += f
				}
				if j+1 < n {
					f := 0.2 + 0.8*rng.Float64()
					e := idx(i, j+1, k)
					o.nb[6*c+3], o.cf[6*c+3], o.nb[6*e+2], o.cf[6*e+2] = int32(e), f, int32(c), f
					o.diag[c] += f
					o.diag[e] += f
				} else {
					o.diag[c] += 0.2 + 0.8*rng.Float64() // air above
				}
				if k+1 < n {
					f := 0.2 + 0.8*rng.Float64()
					e := idx(i, j, k+1)
					o.nb[6*c+5], o.cf[6*c+5], o.nb[6*e+4], o.cf[6*e+4] = int32(e), f, int32(c), f
					o.diag[c] += f
					o.diag[e] += f
				}
			}
		}
	}
	return o
}

func TestMPRGPWithMICOnGridOperatorMatchesProjectedGaussSeidel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	pool := par.NewPool(2)
	defer pool.Close()
	var s MPRGP
	for trial := 0; trial < 4; trial++ {
		o := gridPoisson(rng, 6, pool)
		n := o.n
		b := make([]float64, n)
		for i := range b {
			b[i] = 2*rng.Float64() - 1
		}
		row := func(i int, x []float64) float64 {
			v := o.diag[i] * x[i]
			for k := 0; k < 6; k++ {
				if j := o.nb[6*i+k]; j >= 0 {
					v -= o.cf[6*i+k] * x[j]
				}
			}
			return o.scale * v
		}
		ref := projectedGaussSeidel(o, func(i int) float64 { return o.scale * o.diag[i] }, row, b)
		for _, v := range []struct {
			name          string
			noPrec, mg    bool
			precExpansion bool
			precProp      bool
		}{
			{"MIC(0)", false, false, false, false}, {"none", true, false, false, false}, {"multigrid", false, true, false, false},
			{"MIC(0), preconditioned expansion", false, false, true, false}, {"multigrid, preconditioned expansion", false, true, true, false},
			{"MIC(0), preconditioned proportioning", false, false, false, true}, {"none, preconditioned proportioning", true, false, false, true},
			{"multigrid, preconditioned expansion and proportioning", false, true, true, true},
		} {
			o.noPrec, o.mg = v.noPrec, nil
			if v.mg {
				useMG(o, 6)
			}
			s.PreconditionedExpansion, s.PreconditionedProportioning = v.precExpansion, v.precProp
			tmp, vv := make([]float64, n), make([]float64, n)
			lam, _ := PowerNorm(o, vv, tmp, 1e-3, 1000)
			x := make([]float64, n)
			res := s.Solve(o, b, x, 1/lam, 1e-12, 100000)
			if !res.Converged {
				t.Fatalf("trial %d (%s): not converged: %+v", trial, v.name, res)
			}
			checkLCP(t, "grid PGS, "+v.name, o, b, x, ref)
			t.Logf("trial %d, %s: %d products (%d CG, %d expansions, %d proportioning), %d of %d free",
				trial, v.name, res.Iterations, res.CG, res.Expansions, res.Proportioning, res.Free, n)
		}
	}
}

func TestPCGSolvesGridSystem(t *testing.T) {
	// The bilateral solve: A x = −b to a residual of 1e-12, checked by an independent product.
	rng := rand.New(rand.NewPCG(9, 1))
	pool := par.NewPool(1)
	defer pool.Close()
	o := gridPoisson(rng, 7, pool)
	b := make([]float64, o.n)
	for i := range b {
		b[i] = 2*rng.Float64() - 1
	}
	var s MPRGP
	x := make([]float64, o.n)
	res := s.PCG(o, b, x, 1e-12, 10000)
	if !res.Converged {
		t.Fatalf("PCG not converged: %+v", res)
	}
	y := make([]float64, o.n)
	o.Mul(x, y)
	for i := range y {
		if r := math.Abs(y[i] + b[i]); r > lcpTol {
			t.Fatalf("residual %g at %d", r, i)
		}
	}
	t.Logf("PCG with MIC(0): %d products for %d unknowns", res.Iterations, o.n)
}

func TestPowerNormWarmStartSavesProducts(t *testing.T) {
	// §3.1: warm-starting the power iteration with the previous matrix's eigenvector cuts the
	// products needed. Two grid operators from the same seed differ only in their
	// diagonals' last digits (a step later in a slowly changing flow). The warm start must
	// need at most half the cold start's products and land within 1 % of a reference run
	// 2000 products further. Every estimate ‖A v‖/‖v‖ is at most ‖A‖₂ (so at most the reference and the
	// Gershgorin bound max_i Σ_j |A_ij|), and MPRGP's step ᾱ = 1/λ is valid (≤ 2/‖A‖₂) as long
	// as λ ≥ ‖A‖₂/2, which the cold start's loose stop must still give.
	const relTol = 1e-2
	pool := par.NewPool(1)
	defer pool.Close()
	a1 := gridPoisson(rand.New(rand.NewPCG(3, 4)), 8, pool)
	a2 := gridPoisson(rand.New(rand.NewPCG(3, 4)), 8, pool)
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range a2.diag {
		a2.diag[i] *= 1 + 1e-3*rng.Float64() // stays symmetric and diagonally dominant
	}
	n := a1.n
	tmp := make([]float64, n)
	v := make([]float64, n)
	PowerNorm(a1, v, tmp, 1e-12, 2000)
	warm, itWarm := PowerNorm(a2, v, tmp, relTol, 1000)
	cold := make([]float64, n)
	lamCold, itCold := PowerNorm(a2, cold, tmp, relTol, 1000)
	// The reference continues from the warm vector (from a cold start 2000 products are not
	// enough: the top eigenvalues of this operator lie close together).
	ref := append([]float64(nil), v...)
	lamRef, _ := PowerNorm(a2, ref, tmp, 0, 2000)
	gersh := 0.0
	for i := 0; i < n; i++ {
		row := a2.diag[i]
		for k := 0; k < 6; k++ {
			if a2.nb[6*i+k] >= 0 {
				row += a2.cf[6*i+k]
			}
		}
		gersh = max(gersh, a2.scale*row)
	}
	t.Logf("warm: %.6g in %d products; cold: %.6g in %d; reference %.6g; Gershgorin bound %.6g", warm, itWarm, lamCold, itCold, lamRef, gersh)
	if 2*itWarm > itCold {
		t.Errorf("warm start took %d products, cold %d: want at most half", itWarm, itCold)
	}
	if math.Abs(warm/lamRef-1) > relTol {
		t.Errorf("warm estimate %.6g, reference %.6g", warm, lamRef)
	}
	for _, l := range []float64{warm, lamCold} {
		if l > lamRef*(1+1e-9) || l > gersh*(1+1e-12) || l < lamRef/2 {
			t.Errorf("estimate %.6g: reference %.6g, bound %.6g", l, lamRef, gersh)
		}
	}
}
