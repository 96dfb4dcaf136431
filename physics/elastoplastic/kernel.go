package elastoplastic

// cosQuarter returns cos x for 0 ≤ x ≤ π/2, the range the Solenthaler kernel's derivative
// needs: for 0 ≤ ρ < h, sin((ρ+h)π/(2h)) of Eq. 4.12's derivative is cos(ρπ/(2h)). It is the
// Taylor series to x²⁰ evaluated by Horner's rule in x²: the first term left out,
// x²²/22! ≤ (π/2)²²/22! ≈ 2·10⁻¹⁷, is below double round-off, so the result matches math.Cos
// to a few ulp (TestCosQuarter) at a fraction of the cost of math.Sin's argument reduction,
// which the force pass called twice per ordered neighbour pair.
func cosQuarter(x float64) float64 {
	y := x * x
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
	return 1 + y*(c1+y*(c2+y*(c3+y*(c4+y*(c5+y*(c6+y*(c7+y*(c8+y*(c9+y*c10)))))))))
}
