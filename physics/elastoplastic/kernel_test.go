package elastoplastic

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/vec"
)

// cosQuarterTol: the truncated series' error is below 2e-17 on [0, π/2] and Estrin's scheme
// adds a few ulp of round-off; 1e-15 absolute (cos is at most 1 there) leaves room for both
// and would catch a wrong coefficient (the smallest, 1/20!, changes the value at π/2 by 3e-15).
const cosQuarterTol = 1e-15

func TestCosQuarter(t *testing.T) {
	for k := 0; k <= 10000; k++ {
		x := math.Pi / 2 * float64(k) / 10000
		if e := math.Abs(cosQuarter(x) - math.Cos(x)); e > cosQuarterTol {
			t.Fatalf("cosQuarter(%g) = %.17g, math.Cos %.17g (error %g)", x, cosQuarter(x), math.Cos(x), e)
		}
	}
	// The kernel's derivative as Eq. 4.12 writes it, sin((ρ+h)π/(2h)), is this cosine.
	h := 0.1
	for k := 0; k < 1000; k++ {
		rho := h * float64(k) / 1000
		if e := math.Abs(cosQuarter(rho*math.Pi/(2*h)) - math.Sin((rho+h)*math.Pi/(2*h))); e > cosQuarterTol {
			t.Fatalf("ρ = %g: cos form differs from Eq. 4.12's sine by %g", rho, e)
		}
	}
}

// TestCubicWMatchesKernel: vec.CubicW, which the pair pass evaluates (vec cannot import
// physics), gives physics.Kernel.W's bits for the cubic spline across both pieces, at the
// seams q = ½ and q = 1, beyond the support and at 0.
func TestCubicWMatchesKernel(t *testing.T) {
	kr := physics.NewKernel(physics.CubicSpline, 0.1)
	invH, k := kr.Consts()
	rs := []float64{0, 0.05, math.Nextafter(0.05, 1), math.Nextafter(0.05, 0), 0.1, math.Nextafter(0.1, 0), 0.2}
	for n := 0; n <= 100000; n++ {
		rs = append(rs, 0.12*float64(n)/100000)
	}
	for _, r := range rs {
		if a, b := vec.CubicW(r, invH, k), kr.W(r); math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("r = %v: vec.CubicW %v, Kernel.W %v", r, a, b)
		}
	}
}
