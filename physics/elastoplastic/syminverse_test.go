package elastoplastic

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// symInverseTol bounds ‖a·inv − I‖ (max entry) for the accepted matrices: their condition
// number is below 1/ratio (at most 1e8 for the smallest ratio tested), so the adjugate
// inverse loses at most about that factor on double round-off (1e-16): 1e-7 leaves a margin.
const symInverseTol = 1e-7

// TestSymInverseShortcut checks the adjugate shortcut of the fit and the gradient
// correction: on random symmetric positive semi-definite matrices, from isotropic to
// rank-deficient, every matrix it accepts has all eigenvalues above ratio times the largest
// (by the Jacobi eigen-solve), so the guards it bypasses would have passed, and its inverse
// is one (a·inv = I); and it accepts the isotropic lattice's case (the common one it is for).
func TestSymInverseShortcut(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	accepted := 0
	for _, ratio := range []float64{MinMomentRatio, correctionCutoff} {
		for k := 0; k < 20000; k++ {
			// a = Σ_m w_m d_m d_mᵀ over a few random directions, with the spread of the
			// directions and their number varied, so the spectrum runs from isotropic to
			// flat and singular.
			var a mat3
			flat := math.Pow(10, -8*rng.Float64())
			for m := 0; m < 2+rng.Intn(8); m++ {
				d := [3]float64{rng.NormFloat64(), rng.NormFloat64(), flat * rng.NormFloat64()}
				w := rng.Float64()
				for r := 0; r < 3; r++ {
					for c := 0; c < 3; c++ {
						a[3*r+c] += w * d[r] * d[c]
					}
				}
			}
			inv, ok := symInverse(&a, ratio)
			if !ok {
				continue
			}
			accepted++
			lam, _ := physics.SymEigen3(&a)
			lmin, lmax := min(lam[0], lam[1], lam[2]), max(lam[0], lam[1], lam[2])
			if !(lmin > ratio*lmax) {
				t.Fatalf("ratio %g: accepted a matrix with λ = %v (λmin/λmax = %g)", ratio, lam, lmin/lmax)
			}
			p := mul(&a, &inv)
			id := identity()
			for q := range p {
				if math.Abs(p[q]-id[q]) > symInverseTol {
					t.Fatalf("ratio %g: a·inv − I has entry %g at %d", ratio, p[q]-id[q], q)
				}
			}
		}
	}
	if accepted == 0 {
		t.Fatal("no matrix accepted")
	}
	iso := mat3{2, 0, 0, 0, 2, 0, 0, 0, 2}
	if _, ok := symInverse(&iso, MinMomentRatio); !ok {
		t.Fatal("the isotropic matrix 2I is not accepted")
	}
	flat := mat3{1, 0, 0, 0, 1, 0, 0, 0, 1e-3}
	if _, ok := symInverse(&flat, MinMomentRatio); ok {
		t.Fatal("diag(1, 1, 1e-3), flatter than the guard's 1e-2, is accepted")
	}
}
