package elastoplastic

import "github.com/sluicephysics/sluice/physics/internal/vec"

// cosQuarter returns cos x for 0 ≤ x ≤ π/2, the range the Solenthaler kernel's derivative
// needs: for 0 ≤ ρ < h, sin((ρ+h)π/(2h)) of Eq. 4.12's derivative is cos(ρπ/(2h)). It is
// vec.CosQuarterSq(x²), the truncated Taylor series the force pass evaluates.
func cosQuarter(x float64) float64 { return vec.CosQuarterSq(x * x) }
