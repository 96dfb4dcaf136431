package physics

import (
	"math"
	"testing"
)

// latticeSums returns Σ_j V W(x_i − x_j) and |Σ_j V ∇W(x_i − x_j)| at a lattice point i deep
// inside an infinite cubic lattice of spacing s with V = s³, optionally shifted by off.
func latticeSums(kr *Kernel, s float64, off Vec3) (float64, float64) {
	n := int(math.Ceil(kr.H/s)) + 2
	sum := 0.0
	var gx, gy, gz float64
	for i := -n; i <= n; i++ {
		for j := -n; j <= n; j++ {
			for k := -n; k <= n; k++ {
				x := Vec3{float64(i)*s + off[0], float64(j)*s + off[1], float64(k)*s + off[2]}
				r := Norm(x)
				sum += kr.W(r)
				g := kr.GradFactor(r)
				gx += g * x[0]
				gy += g * x[1]
				gz += g * x[2]
			}
		}
	}
	v := s * s * s
	return sum * v, math.Sqrt(gx*gx+gy*gy+gz*gz) * v
}

func TestKernelPartitionOfUnity(t *testing.T) {
	// The SPH interpolant of a constant, Σ V W, on a regular lattice is 1 up to the kernel's
	// discretisation error; at h = 2·spacing (sluice's default) both kernels stay within 6 %
	// (cubic spline: 1.05, Wendland C2: 0.96) and at h = 3·spacing within 1.5 %.
	const tolCoarse = 0.06
	const tolFine = 0.015
	// Σ V ∇W vanishes at a lattice point by symmetry; any residue is round-off.
	const tolGrad = 1e-12
	for _, kind := range []KernelKind{CubicSpline, WendlandC2} {
		for _, c := range []struct {
			ratio, tol float64
		}{{2, tolCoarse}, {3, tolFine}} {
			s := 0.05
			kr := NewKernel(kind, c.ratio*s)
			sum, grad := latticeSums(&kr, s, Vec3{})
			if math.Abs(sum-1) > c.tol {
				t.Errorf("%v h=%g·s: Σ V W = %.5f, want 1 ± %g", kind, c.ratio, sum, c.tol)
			}
			if grad > tolGrad/s {
				t.Errorf("%v h=%g·s: |Σ V ∇W| = %g, want < %g", kind, c.ratio, grad, tolGrad/s)
			}
		}
	}
}

func TestKernelNormalisation(t *testing.T) {
	// ∫ W dV = 1 over the support ball: midpoint rule over 20000 shells, error ≲ 1e-8.
	const tol = 1e-6
	for _, kind := range []KernelKind{CubicSpline, WendlandC2} {
		kr := NewKernel(kind, 0.1)
		n := 20000
		dr := kr.H / float64(n)
		sum := 0.0
		for i := 0; i < n; i++ {
			r := (float64(i) + 0.5) * dr
			sum += 4 * math.Pi * r * r * kr.W(r) * dr
		}
		if math.Abs(sum-1) > tol {
			t.Errorf("%v: ∫W = %.9f, want 1 ± %g", kind, sum, tol)
		}
	}
}

func TestKernelGradientMatchesDerivative(t *testing.T) {
	// GradFactor·r must equal dW/dr; central differences with step 1e-7·h agree to ~1e-6 relative.
	const tol = 1e-5
	for _, kind := range []KernelKind{CubicSpline, WendlandC2} {
		kr := NewKernel(kind, 0.1)
		for _, q := range []float64{0.1, 0.3, 0.5001, 0.7, 0.95} {
			r := q * kr.H
			e := 1e-7 * kr.H
			fd := (kr.W(r+e) - kr.W(r-e)) / (2 * e)
			an := kr.GradFactor(r) * r
			scale := kr.W0() / kr.H
			if math.Abs(fd-an) > tol*scale {
				t.Errorf("%v q=%g: dW/dr analytic %g, finite difference %g", kind, q, an, fd)
			}
		}
	}
}

func TestKernelGradientAntisymmetric(t *testing.T) {
	// ∇W(x_ij) = −∇W(x_ji) exactly: the pair forces of SPH must cancel to conserve momentum.
	kr := NewKernel(CubicSpline, 0.1)
	x := Vec3{0.013, -0.041, 0.022}
	r := Norm(x)
	g := kr.GradFactor(r)
	gm := kr.GradFactor(Norm(Vec3{-x[0], -x[1], -x[2]}))
	for d := 0; d < 3; d++ {
		if g*x[d] != -(gm * -x[d]) {
			t.Fatalf("gradient not antisymmetric on axis %d", d)
		}
	}
}

func TestLatticeVolume(t *testing.T) {
	// With V = LatticeVolume(s), Σ_j V W = 1 at an interior lattice point to round-off.
	const tol = 1e-12
	kr := NewKernel(CubicSpline, 0.1)
	v := kr.LatticeVolume(0.05)
	sum, _ := latticeSums(&kr, 0.05, Vec3{})
	sum *= v / (0.05 * 0.05 * 0.05)
	if math.Abs(sum-1) > tol {
		t.Fatalf("Σ V W = %.15f with the lattice volume", sum)
	}
}
