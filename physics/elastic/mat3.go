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
// starting from the quaternion q (last step's rotation, the warm start), it rotates R about
// ω = Σ_c r_c × a_c / |Σ_c r_c · a_c| (columns r_c of R and a_c of a) until |ω| is below tol,
// at most maxIter times. Unlike a polar decomposition it never fails on degenerate or inverted
// a; it returns the iterations used and leaves the result in q.
func extractRotation(a *mat3, q *quat, maxIter int, tol float64) int {
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
		s := 1 / (math.Abs(den) + 1e-9)
		ox, oy, oz = ox*s, oy*s, oz*s
		w := math.Sqrt(ox*ox + oy*oy + oz*oz)
		if w < tol {
			return it
		}
		sn, cs := math.Sincos(0.5 * w)
		sn /= w
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
