package elastoplastic

// cosQuarter returns cos x for 0 ≤ x ≤ π/2, the range the Solenthaler kernel's derivative
// needs: for 0 ≤ ρ < h, sin((ρ+h)π/(2h)) of Eq. 4.12's derivative is cos(ρπ/(2h)). It is
// cosQuarterSq(x²).
func cosQuarter(x float64) float64 { return cosQuarterSq(x * x) }

// cosQuarterSq returns cos √y for 0 ≤ y ≤ (π/2)²: the Taylor series of cos to x²⁰, a polynomial
// of degree 10 in y = x². The first term left out, x²²/22! ≤ (π/2)²²/22! ≈ 2·10⁻¹⁷, is below
// double round-off, so the result matches math.Cos to a few ulp (TestCosQuarter) at a fraction
// of the cost of math.Sin's argument reduction, which the force pass called twice per ordered
// neighbour pair. Taking y instead of x lets the caller pass ρ²(π/(2h))² without waiting for
// the square root of ρ². The polynomial is evaluated by Estrin's scheme (pairs of
// coefficients combined with y, y², y⁴, y⁸) rather than Horner's rule: the same terms, but a
// chain of 5 dependent multiply-adds instead of 10, so the pass over the pairs is not held up
// by the latency of one long chain per pair.
func cosQuarterSq(y float64) float64 {
	const (
		c1  = -1.0 / 2
		c2  = 1.0 / 24
		c3  = -1.0 / 720
		c4  = 1.0 / 40320
		c5  = -1.0 / 3628800
		c6  = 1.0 / 479001600
		c7  = -1.0 / 87178291200
		c8  = 1.0 / 20922789888000
		c9  = -1.0 / 6402373705728000
		c10 = 1.0 / 2432902008176640000
	)
	y2 := y * y
	y4 := y2 * y2
	a0 := 1 + c1*y
	a1 := c2 + c3*y
	a2 := c4 + c5*y
	a3 := c6 + c7*y
	a4 := c8 + c9*y
	b0 := a0 + a1*y2
	b1 := a2 + a3*y2
	b2 := a4 + c10*y2
	return b0 + y4*(b1+y4*b2)
}
