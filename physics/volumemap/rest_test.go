package volumemap

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// TestPlaneVolumeAndRestDistance: PlaneVolume agrees with the tests' own midpoint form of the
// flat wall's V (planeVolume) to 1e-6 of the full ball volume at distances from inside the wall
// to beyond the support, and RestDistance solves its balance V(φ)·W(Offset(φ, R)) = the half
// lattice's density to 1e-9 of it, at 2.33R for the cubic spline at H = 4R (the root test of
// the mapped floor finds a column's bottom layer there).
func TestPlaneVolumeAndRestDistance(t *testing.T) {
	o := DefaultOptions(0.1, 0.025)
	kr := physics.NewKernel(o.Kernel, o.H)
	full := o.VolumeFactor * 4 * math.Pi * o.H * o.H * o.H / 3
	for _, d := range []float64{-0.15, -0.05, 0, 0.013, 0.05, 0.09, 0.15, 0.21} {
		if got, want := PlaneVolume(o, d), planeVolume(&kr, o.VolumeFactor, d); math.Abs(got-want) > 1e-6*full {
			t.Errorf("PlaneVolume(%g) = %g, the midpoint form %g", d, got, want)
		}
	}
	phi := RestDistance(o)
	sp, v0 := 2*o.R, kr.LatticeVolume(2*o.R)
	missing := 0.0
	for i := -3; i <= 3; i++ {
		for j := -3; j <= 3; j++ {
			for k := 1; k <= 3; k++ {
				missing += v0 * kr.W(sp*math.Sqrt(float64(i*i+j*j+k*k)))
			}
		}
	}
	if bal := PlaneVolume(o, phi) * kr.W(Offset(phi, o.R)); math.Abs(bal-missing) > 1e-9*missing || math.Abs(phi/o.R-2.3308) > 1e-4 {
		t.Errorf("RestDistance %g R: balance %g against the missing density %g", phi/o.R, bal, missing)
	}
}
