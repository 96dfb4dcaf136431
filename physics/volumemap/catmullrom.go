package volumemap

import "math"

// The Catmull-Rom cardinal spline (Keys 1981, a = −½) interpolates node values f_k on a unit
// grid as f(s) = Σ_k f_k B(s − k) with
//
//	B(u) = 3/2|u|³ − 5/2|u|² + 1           for |u| ≤ 1,
//	B(u) = −1/2|u|³ + 5/2|u|² − 4|u| + 2   for 1 < |u| ≤ 2,  0 beyond.
//
// The interpolant is C¹, reproduces polynomials up to degree 2 and converges as O(h³) (Keys
// 1981, Sec. III). Its tensor product in 3D keeps a continuous gradient across cell faces,
// which a trilinear interpolant (piecewise-constant gradient) does not.

// crWeights returns the four weights of nodes i−1, i, i+1, i+2 at the fraction t ∈ [0, 1] of
// cell [i, i+1], and their derivatives with respect to t.
func crWeights(t float64) (w, dw [4]float64) {
	t2 := t * t
	t3 := t2 * t
	w[0] = 0.5 * (-t3 + 2*t2 - t)
	w[1] = 0.5 * (3*t3 - 5*t2 + 2)
	w[2] = 0.5 * (-3*t3 + 4*t2 + t)
	w[3] = 0.5 * (t3 - t2)
	dw[0] = 0.5 * (-3*t2 + 4*t - 1)
	dw[1] = 0.5 * (9*t2 - 10*t)
	dw[2] = 0.5 * (-9*t2 + 8*t + 1)
	dw[3] = 0.5 * (3*t2 - 2*t)
	return
}

// crBasis is B(u).
func crBasis(u float64) float64 {
	a := math.Abs(u)
	switch {
	case a <= 1:
		return (1.5*a-2.5)*a*a + 1
	case a < 2:
		return ((-0.5*a+2.5)*a-4)*a + 2
	}
	return 0
}

// crIntegral is ∫₀ᵘ B(s) ds, an odd function that reaches ±½ at |u| = 2.
func crIntegral(u float64) float64 {
	a := math.Abs(u)
	var r float64
	switch {
	case a <= 1:
		r = a - 5.0/6*a*a*a + 3.0/8*a*a*a*a
	case a < 2:
		f := func(s float64) float64 { return ((-s/8+5.0/6)*s-2)*s*s + 2*s }
		r = 13.0/24 + f(a) - f(1)
	default:
		r = 0.5
	}
	if u < 0 {
		return -r
	}
	return r
}

// gauss4 holds the 4-point Gauss–Legendre rule on [−1, 1].
var gauss4 = [4][2]float64{
	{-0.8611363115940526, 0.3478548451374538},
	{-0.3399810435848563, 0.6521451548625461},
	{0.3399810435848563, 0.6521451548625461},
	{0.8611363115940526, 0.3478548451374538},
}

// ballPanels is the number of 4-point Gauss panels per angle in ballWeights. The integrand
// is only C¹ (B's kinks), so the rule converges as panels⁻³; at 64 panels every weight is
// within 1e-5 (of a largest weight ≈ 1) of the 256-panel value (TestBallWeights), and the
// weights' sum and second moment are exact to round-off.
const ballPanels = 64

// ballWeights returns, for the node offsets k ∈ [−K, K]³ (index (k1+K) + n(k2+K) + n²(k3+K),
// n = 2K+1), the integral over the ball |u| < rc of the Catmull-Rom basis of node k, in grid
// units: w_k = ∫_{|u|<rc} B(u1 − k1) B(u2 − k2) B(u3 − k3) du. Then for node values g_k,
// Σ_k w_k g_k is the exact ball integral of their Catmull-Rom interpolant. The u3 integral
// is done in closed form (crIntegral); u1 = rc sin φ and u2 = s sin θ (s = rc cos φ) remove
// the square-root edge of the disc, and φ, θ are integrated by composite Gauss rules. The sum
// of the weights is rescaled to the ball's volume 4π rc³/3 exactly (B is a partition of
// unity), so a node deep inside a solid gets exactly the full volume. K = ⌈rc⌉ + 1.
func ballWeights(rc float64) (w []float64, K int) { return ballWeightsN(rc, ballPanels) }

// ballWeightsN is ballWeights with the given number of Gauss panels per angle.
func ballWeightsN(rc float64, panels int) (w []float64, K int) {
	K = int(math.Ceil(rc-1e-9)) + 1
	n := 2*K + 1
	w = make([]float64, n*n*n)
	t := make([]float64, n*n) // inner sum over u2 for one u1: t[k2 + n k3]
	b2 := make([]float64, n)
	z3 := make([]float64, n)
	hp := math.Pi / float64(panels)
	for pi := 0; pi < panels; pi++ {
		for _, g := range gauss4 {
			phi := -math.Pi/2 + hp*(float64(pi)+0.5+0.5*g[0])
			wphi := 0.5 * hp * g[1]
			u1 := rc * math.Sin(phi)
			s := rc * math.Cos(phi)
			jac1 := s // du1 = rc cos φ dφ
			clear(t)
			for pj := 0; pj < panels; pj++ {
				for _, h := range gauss4 {
					th := -math.Pi/2 + hp*(float64(pj)+0.5+0.5*h[0])
					wth := 0.5 * hp * h[1]
					u2 := s * math.Sin(th)
					z := s * math.Cos(th)
					ww := wth * z // du2 = s cos θ dθ = z dθ
					for k := -K; k <= K; k++ {
						b2[k+K] = crBasis(u2 - float64(k))
						z3[k+K] = crIntegral(z-float64(k)) - crIntegral(-z-float64(k))
					}
					for k3 := 0; k3 < n; k3++ {
						if z3[k3] == 0 {
							continue
						}
						zz := ww * z3[k3]
						for k2 := 0; k2 < n; k2++ {
							t[k2+n*k3] += zz * b2[k2]
						}
					}
				}
			}
			for k1 := -K; k1 <= K; k1++ {
				b1 := wphi * jac1 * crBasis(u1-float64(k1))
				if b1 == 0 {
					continue
				}
				for j, v := range t {
					w[k1+K+n*j] += b1 * v
				}
			}
		}
	}
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	scale := 4 * math.Pi * rc * rc * rc / 3 / sum
	for i := range w {
		w[i] *= scale
	}
	return w, K
}
