package elastic

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHalfAngleMatchesSincos: the series branch of halfAngle (w/2 ≤ 2⁻¹⁰) and the math.Sincos
// branch above it agree with math.Sincos to 4e-16 relative from w = 1e-12 to 3 rad, the
// rounding of a few operations; a wrong series coefficient would be off by x²/6 ≈ 1e-7 at the
// branch point.
func TestHalfAngleMatchesSincos(t *testing.T) {
	const tol = 4e-16
	for w := 1e-12; w < 3; w *= 1.07 {
		sn, cs := math.Sincos(0.5 * w)
		s, c := halfAngle(w)
		if d := math.Abs(s-sn/w) / (sn / w); d > tol {
			t.Fatalf("w = %g: sin(w/2)/w = %.17g, want %.17g (relative %.2g)", w, s, sn/w, d)
		}
		if d := math.Abs(c - cs); d > tol {
			t.Fatalf("w = %g: cos(w/2) = %.17g, want %.17g (difference %.2g)", w, c, cs, d)
		}
	}
}

// TestExtractRotationConvergesInFewSteps: for stretched rotations (principal stretches 0.7–1.3
// about random axes) warm-started 10⁻⁴ rad off the answer, as a substep's rotation moves, the
// extraction reaches |ω| < 10⁻¹⁰ in at most newtonSteps steps with Newton's step, where
// the paper's step needs at least paperStepsMin (its linear rate is about 1/3), and both end
// within rotTol of the true rotation.
func TestExtractRotationConvergesInFewSteps(t *testing.T) {
	const newtonSteps, paperStepsMin = 2, 8
	rng := rand.New(rand.NewPCG(9, 10))
	worstNewton, bestPaper := 0, 1000
	for trial := 0; trial < 200; trial++ {
		r, a := stretchedRotation(rng)
		// the warm start: the true rotation turned by 1e-4 rad about a random axis
		truth := quat{1, 0, 0, 0}
		extractRotationSteps(&a, &truth, 500, 1e-13, false)
		ax := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		l := math.Sqrt(ax[0]*ax[0] + ax[1]*ax[1] + ax[2]*ax[2])
		sn, cs := math.Sincos(0.5e-4)
		p := quat{cs, sn * ax[0] / l, sn * ax[1] / l, sn * ax[2] / l}
		start := quat{
			p[0]*truth[0] - p[1]*truth[1] - p[2]*truth[2] - p[3]*truth[3],
			p[0]*truth[1] + p[1]*truth[0] + p[2]*truth[3] - p[3]*truth[2],
			p[0]*truth[2] - p[1]*truth[3] + p[2]*truth[0] + p[3]*truth[1],
			p[0]*truth[3] + p[1]*truth[2] - p[2]*truth[1] + p[3]*truth[0],
		}
		for _, newton := range []bool{true, false} {
			g := start
			n := extractRotationSteps(&a, &g, 100, 1e-10, newton)
			got := quatToMat(&g)
			if e := maxDiff(&got, &r); e > rotTol {
				t.Fatalf("trial %d (Newton %v): |R − R_true| = %g after %d steps", trial, newton, e, n)
			}
			if newton {
				worstNewton = max(worstNewton, n)
			} else {
				bestPaper = min(bestPaper, n)
			}
		}
	}
	t.Logf("steps to 1e-10 from 1e-4 rad: Newton's at most %d, the paper's at least %d", worstNewton, bestPaper)
	if worstNewton > newtonSteps || bestPaper < paperStepsMin {
		t.Fatalf("Newton's step took up to %d steps (want ≤ %d), the paper's at least %d (want ≥ %d)", worstNewton, newtonSteps, bestPaper, paperStepsMin)
	}
}
