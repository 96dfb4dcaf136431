package elastoplastic

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// stiffTol bounds the asymmetry yᵀ(Kz) − zᵀ(Ky), the positive part of zᵀKz, the sum of the
// forces and of their torques, each relative to the sum of the magnitudes of the terms it
// adds: K is symmetric, negative semi-definite and momentum-free by construction (the same
// products, summed in another order), so only round-off of ~1e-16 per term remains.
const stiffTol = 1e-12

// deformedImplicitBody returns a 7×7×7 block, stretched 8 % along z, spinning, with noise,
// after five implicit steps (some particles yielded), and its positions at the last step.
func deformedImplicitBody(t *testing.T) (*sim, []Vec3) {
	s := newSim(t, block(7, 7, 7, testSpacing), testMaterial(200, 20), 1)
	s.b.SetImplicit(true)
	s.step(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range s.x {
		s.x[i][2] *= 1.08
		s.v[i] = Vec3{0.02*rng.NormFloat64() - 2*s.x[i][1], 0.02*rng.NormFloat64() + 2*s.x[i][0], 0.02 * rng.NormFloat64()}
	}
	for k := 0; k < 4; k++ {
		s.step(t)
	}
	y := append([]Vec3(nil), s.x...)
	s.step(t)
	return s, y
}

// TestImplicitStiffnessSymmetricNSD: the stiffness of the semi-implicit step (implicit.go) is
// symmetric, negative semi-definite, and its forces sum to zero force and zero torque about
// the positions of the step, for random vectors on a deformed, spinning, yielding block.
func TestImplicitStiffnessSymmetricNSD(t *testing.T) {
	s, y := deformedImplicitBody(t)
	b := s.b
	n := b.Len()
	rng := rand.New(rand.NewPCG(7, 8))
	rnd := func() []Vec3 {
		z := make([]Vec3, n)
		for i := range z {
			z[i] = Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
		return z
	}
	kz, ky := make([]Vec3, n), make([]Vec3, n)
	for trial := 0; trial < 20; trial++ {
		p, z := rnd(), rnd()
		b.applyK(z, kz, 1, false, s.pool)
		b.applyK(p, ky, 1, false, s.pool)
		var a, c, mag, zkz, zmag float64
		var f, tq, fmag, tmag Vec3
		for i := range z {
			for d := 0; d < 3; d++ {
				a += p[i][d] * kz[i][d]
				c += z[i][d] * ky[i][d]
				mag += math.Abs(p[i][d]*kz[i][d]) + math.Abs(z[i][d]*ky[i][d])
				zkz += z[i][d] * kz[i][d]
				zmag += math.Abs(z[i][d] * kz[i][d])
				f[d] += kz[i][d]
				fmag[d] += math.Abs(kz[i][d])
			}
			r := Vec3{y[i][1]*kz[i][2] - y[i][2]*kz[i][1], y[i][2]*kz[i][0] - y[i][0]*kz[i][2], y[i][0]*kz[i][1] - y[i][1]*kz[i][0]}
			for d := 0; d < 3; d++ {
				tq[d] += r[d]
				tmag[d] += physics.Norm(y[i]) * physics.Norm(kz[i])
			}
		}
		if e := math.Abs(a-c) / mag; e > stiffTol {
			t.Fatalf("trial %d: pᵀKz = %g, zᵀKp = %g: asymmetric by %g relative", trial, a, c, e)
		}
		if zkz > stiffTol*zmag {
			t.Fatalf("trial %d: zᵀKz = %g > 0 (terms %g): not negative semi-definite", trial, zkz, zmag)
		}
		if zkz > -1e-3*zmag {
			t.Fatalf("trial %d: zᵀKz = %g for terms of %g: K of a random vector is ~0, the test sees no stiffness", trial, zkz, zmag)
		}
		for d := 0; d < 3; d++ {
			if math.Abs(f[d]) > stiffTol*fmag[d] {
				t.Fatalf("trial %d: the forces K z sum to %g along %d (terms %g)", trial, f[d], d, fmag[d])
			}
			if math.Abs(tq[d]) > stiffTol*tmag[d] {
				t.Fatalf("trial %d: the torques of K z sum to %g about %d (terms %g)", trial, tq[d], d, tmag[d])
			}
		}
	}
}

func TestImplicitExplore(t *testing.T) {
	for _, kap := range []float64{1} {
		for _, c := range []float64{0.5, 1, 1.5, 2, 3} {
			for _, impl := range []bool{false, true} {
				if !impl && c > 1 {
					continue
				}
				mat := testMaterial(math.Inf(1), 0)
				s := newSim(t, block(8, 8, 8, testSpacing), mat, 2)
				s.b.SetImplicit(impl)
				s.dt = c * testSpacing / mat.WaveSpeed(testRho)
				s.damping = 2
				h0 := extents(s.x)[2]
				s.accel = func(x Vec3, tt float64) Vec3 {
					if tt > 0.5 {
						return Vec3{}
					}
					return Vec3{0, 0, -kElastic * x[2]}
				}
				its, steps := 0, 0
				for s.t < 2.5 {
					its += s.step(t).Iterations
					steps++
				}
				e := extents(s.x)
				t.Logf("kappa=%g C=%g impl=%v: extents %.4f %.4f %.4f, iters/step %.1f", kap, c, impl, e[0]/h0, e[1]/h0, e[2]/h0, float64(its)/float64(steps))
			}
		}
	}
}

func TestImplicitTrace(t *testing.T) {
	for _, cc := range [][2]float64{{0.5, 0}, {1, 1}, {1.5, 1}} {
		zmd := cc[0]
		mat := testMaterial(math.Inf(1), 0)
		if os.Getenv("SLUICE_EP_ZMD1") != "" {
			mat.ZeroModeDamping = 1
		}
		s := newSim(t, block(8, 8, 8, testSpacing), mat, 2)
		s.b.SetImplicit(cc[1] == 1)
		s.dt = cc[0] * testSpacing / mat.WaveSpeed(testRho)
		s.damping = 2
		s.accel = func(x Vec3, tt float64) Vec3 {
			if tt > 0.5 {
				return Vec3{}
			}
			return Vec3{0, 0, -kElastic * x[2]}
		}
		for k := 0; s.t < 5; k++ {
			st := s.step(t)
			vm := 0.0
			for _, v := range s.v {
				vm = max(vm, physics.Norm(v))
			}
			if k%int(20/cc[0]) == 0 || vm > 5 {
				t.Logf("zmd %g t=%.3f vmax %.3g it %d sig %.3f..%.3f inv %d ill %d few %d", zmd, s.t, vm, st.Iterations, st.MinSigma, st.MaxSigma, st.Inverted, st.IllConditioned, st.FewNeighbors)
			}
			if vm > 5 {
				break
			}
		}
	}
}
