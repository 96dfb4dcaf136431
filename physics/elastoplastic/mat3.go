package elastoplastic

import "math"

// mat3 is a 3x3 matrix stored row-major: m[3*r+c]. The inner loops use these plain arrays and
// the functions below instead of mathgl's array-valued method chains (DESIGN §10).
type mat3 = [9]float64

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

// det returns the determinant of a.
func det(a *mat3) float64 {
	return a[0]*(a[4]*a[8]-a[5]*a[7]) - a[1]*(a[3]*a[8]-a[5]*a[6]) + a[2]*(a[3]*a[7]-a[4]*a[6])
}

// udvt returns U diag(d) Vᵀ.
func udvt(u *mat3, d [3]float64, v *mat3) mat3 {
	var m mat3
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			m[3*r+c] = u[3*r]*d[0]*v[3*c] + u[3*r+1]*d[1]*v[3*c+1] + u[3*r+2]*d[2]*v[3*c+2]
		}
	}
	return m
}

// symEigen diagonalises the symmetric matrix a by cyclic Jacobi rotations: a = V diag(λ) Vᵀ
// with the eigenvectors in the columns of V (a proper or improper orthogonal matrix). Each
// sweep roughly squares the off-diagonal error, so the loop ends on the convergence test long
// before the sweep cap; the rotations are orthogonal to round-off whatever the spectrum, which
// is what makes repeated eigenvalues harmless.
func symEigen(a *mat3) (lambda [3]float64, v mat3) {
	m := *a
	v = identity()
	for sweep := 0; sweep < 50; sweep++ {
		off := m[1]*m[1] + m[2]*m[2] + m[5]*m[5]
		scale := m[0]*m[0] + m[4]*m[4] + m[8]*m[8]
		if off <= 1e-34*scale || off == 0 {
			break
		}
		for pq := 0; pq < 3; pq++ {
			p, q := 0, 1
			switch pq {
			case 1:
				p, q = 0, 2
			case 2:
				p, q = 1, 2
			}
			apq := m[3*p+q]
			if apq == 0 {
				continue
			}
			theta := (m[3*q+q] - m[3*p+p]) / (2 * apq)
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			// m ← Jᵀ m J with the Givens rotation J in the (p, q) plane.
			for k := 0; k < 3; k++ {
				mkp, mkq := m[3*k+p], m[3*k+q]
				m[3*k+p] = c*mkp - s*mkq
				m[3*k+q] = s*mkp + c*mkq
			}
			for k := 0; k < 3; k++ {
				mpk, mqk := m[3*p+k], m[3*q+k]
				m[3*p+k] = c*mpk - s*mqk
				m[3*q+k] = s*mpk + c*mqk
			}
			for k := 0; k < 3; k++ {
				vkp, vkq := v[3*k+p], v[3*k+q]
				v[3*k+p] = c*vkp - s*vkq
				v[3*k+q] = s*vkp + c*vkq
			}
		}
	}
	return [3]float64{m[0], m[4], m[8]}, v
}
