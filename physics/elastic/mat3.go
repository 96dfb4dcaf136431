package elastic

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// mat3 is a 3x3 matrix stored row-major: m[3*r+c]. The solver's inner loops use these plain
// arrays and the functions below instead of mathgl's array-valued method chains.
type mat3 = [9]float64

// quat is a unit quaternion (w, x, y, z) representing a rotation.
type quat = [4]float64

// identity returns I.
func identity() mat3 { return mat3{1, 0, 0, 0, 1, 0, 0, 0, 1} }

// mul returns a·b.
func mul(a, b *mat3) mat3 {
	var c mat3
	for r := 0; r < 3; r++ {
		for k := 0; k < 3; k++ {
			c[3*r+k] = a[3*r]*b[k] + a[3*r+1]*b[3+k] + a[3*r+2]*b[6+k]
		}
	}
	return c
}

// transpose returns aᵀ.
func transpose(a *mat3) mat3 {
	return mat3{a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]}
}

// quatToMat returns the rotation matrix of the unit quaternion q.
func quatToMat(q *quat) mat3 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

// extractRotation finds the rotation R closest to a in the sense of Müller, Bender, Chentanez
// and Macklin, "A robust method to extract the rotational part of deformations" (MIG 2016):
// starting from the quaternion q (last step's rotation, the warm start), it rotates R by a
// vector ω formed from o = Σ_c r_c × a_c (columns r_c of R and a_c of a) until |ω| is below
// tol, at most maxIter times; it returns the iterations used and leaves the result in q.
//
// The paper's step takes d = |Σ_c r_c·a_c| = |tr B|, B = a Rᵀ. Its fixed point is the R with
// Rᵀa symmetric (the polar rotation where a's stretch is positive definite), which it
// approaches only linearly: near a = s·R it goes two thirds of the way per step, so a warm
// start 10⁻⁴ rad off, as a substep's turn leaves it, needs 11 or more steps to reach 10⁻¹⁰,
// more than the cap of 10 per substep allows. For R' = (I + [ω]×)R the skew part
// of a R'ᵀ = B (I − [ω]×) vanishes to first order when (tr B·I − B_sym) ω = o: Newton's step,
// which converges quadratically. This step solves that system where its matrix is positive
// definite and the step at most three times the paper's (always so near an isotropic
// stretch), and takes the paper's ω = o/(|tr B| + 10⁻⁹) otherwise (flat, inverted or
// degenerate a, where the paper's robustness is what counts). The fixed point is the same;
// TestExtractRotationConvergesInFewSteps counts the steps of both (one against 11 or more).
func extractRotation(a *mat3, q *quat, maxIter int, tol float64) int {
	return extractRotationSteps(a, q, maxIter, tol, true)
}

// extractRotationSteps is extractRotation with Newton's denominator (newton) or the paper's
// throughout.
func extractRotationSteps(a *mat3, q *quat, maxIter int, tol float64, newton bool) int {
	for it := 0; it < maxIter; it++ {
		r := quatToMat(q)
		var ox, oy, oz, den float64
		for c := 0; c < 3; c++ {
			rx, ry, rz := r[c], r[3+c], r[6+c]
			ax, ay, az := a[c], a[3+c], a[6+c]
			ox += ry*az - rz*ay
			oy += rz*ax - rx*az
			oz += rx*ay - ry*ax
			den += rx*ax + ry*ay + rz*az
		}
		o2 := ox*ox + oy*oy + oz*oz
		var wx, wy, wz float64
		stepped := false
		if newton && den > 0 {
			// Newton's step: (tr B·I − B_sym) ω = o with B = a Rᵀ, B_st = a_s·r_s (rows),
			// solved by the adjugate where the matrix is positive definite (Sylvester).
			var b mat3
			for s := 0; s < 3; s++ {
				for t := 0; t < 3; t++ {
					b[3*s+t] = a[3*s]*r[3*t] + a[3*s+1]*r[3*t+1] + a[3*s+2]*r[3*t+2]
				}
			}
			m00, m11, m22 := den-b[0], den-b[4], den-b[8]
			m01, m02, m12 := -0.5*(b[1]+b[3]), -0.5*(b[2]+b[6]), -0.5*(b[5]+b[7])
			c00, c11, c22 := m11*m22-m12*m12, m00*m22-m02*m02, m00*m11-m01*m01
			c01, c02, c12 := m02*m12-m01*m22, m01*m12-m02*m11, m01*m02-m00*m12
			det := m00*c00 + m01*c01 + m02*c02
			if m00 > 0 && c22 > 0 && det > 0 {
				id := 1 / det
				wx = (c00*ox + c01*oy + c02*oz) * id
				wy = (c01*ox + c11*oy + c12*oz) * id
				wz = (c02*ox + c12*oy + c22*oz) * id
				// at most three times the paper's step
				stepped = wx*wx+wy*wy+wz*wz <= 9*o2/(den*den)
			}
		}
		if !stepped {
			s := 1 / (math.Abs(den) + 1e-9) // Müller et al.'s step
			wx, wy, wz = ox*s, oy*s, oz*s
		}
		ox, oy, oz = wx, wy, wz
		w := math.Sqrt(ox*ox + oy*oy + oz*oz)
		if w < tol {
			return it
		}
		sn, cs := halfAngle(w)
		p := quat{cs, ox * sn, oy * sn, oz * sn}
		// q ← p·q (rotate the current estimate by the small correction p).
		n := quat{
			p[0]*q[0] - p[1]*q[1] - p[2]*q[2] - p[3]*q[3],
			p[0]*q[1] + p[1]*q[0] + p[2]*q[3] - p[3]*q[2],
			p[0]*q[2] - p[1]*q[3] + p[2]*q[0] + p[3]*q[1],
			p[0]*q[3] + p[1]*q[2] - p[2]*q[1] + p[3]*q[0],
		}
		l := 1 / math.Sqrt(n[0]*n[0]+n[1]*n[1]+n[2]*n[2]+n[3]*n[3])
		*q = quat{n[0] * l, n[1] * l, n[2] * l, n[3] * l}
	}
	return maxIter
}

// halfAngle returns sin(w/2)/w and cos(w/2) for the rotation angle w > 0 of a quaternion
// about a unit axis times w. A warm-started extraction rotates by small angles, for which the
// Taylor series (x = w/2 ≤ 2⁻¹⁰: sin x/x = 1 − x²/6 + x⁴/120, cos x = 1 − x²/2 + x⁴/24; the
// first terms left out, x⁶/5040 and x⁶/720, are below 10⁻²⁰) is exact in double precision and
// several times cheaper than math.Sincos.
func halfAngle(w float64) (sinOverW, cos float64) {
	x := 0.5 * w
	if x > 0x1p-10 {
		sn, cs := math.Sincos(x)
		return sn / w, cs
	}
	x2 := x * x
	return 0.5 * (1 - x2/6*(1-x2/20)), 1 - x2/2*(1-x2/12)
}

// pseudoInverseSym returns the Moore-Penrose pseudo-inverse of the symmetric matrix a:
// V diag(1/λ_k) Vᵀ over the eigenvalues above rel·max|λ| (the others count as zero), and the
// rank, the number of eigenvalues kept. For a regular a it is the inverse.
func pseudoInverseSym(a *mat3, rel float64) (mat3, int) {
	lambda, v := physics.SymEigen3(a)
	lmax := max(math.Abs(lambda[0]), math.Abs(lambda[1]), math.Abs(lambda[2]))
	var inv [3]float64
	rank := 0
	for k := range lambda {
		if lmax > 0 && math.Abs(lambda[k]) > rel*lmax {
			inv[k] = 1 / lambda[k]
			rank++
		}
	}
	var out mat3
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			out[3*r+c] = v[3*r]*inv[0]*v[3*c] + v[3*r+1]*inv[1]*v[3*c+1] + v[3*r+2]*inv[2]*v[3*c+2]
		}
	}
	return out, rank
}
