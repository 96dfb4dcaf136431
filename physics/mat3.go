package physics

import "math"

// SymEigen3 diagonalises the symmetric 3x3 matrix a (row-major) by cyclic Jacobi rotations
// (Golub & Van Loan, Matrix Computations, §8.5): a = V diag(λ) Vᵀ with the eigenvectors in the
// columns of V, an orthogonal matrix (proper or improper). Each sweep roughly squares the
// off-diagonal error, so the loop ends on the convergence test long before the sweep cap; the
// rotations are orthogonal to round-off whatever the spectrum, which makes repeated eigenvalues
// harmless. The elastic, elastoplastic and rigid-body packages share it.
func SymEigen3(a *[9]float64) (lambda [3]float64, v [9]float64) {
	m := *a
	v = [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	for sweep := 0; sweep < 50; sweep++ {
		off := m[1]*m[1] + m[2]*m[2] + m[5]*m[5]
		scale := m[0]*m[0] + m[4]*m[4] + m[8]*m[8]
		if off <= 1e-34*scale || off == 0 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			apq := m[3*p+q]
			if apq == 0 {
				continue
			}
			// The angle that zeroes m_pq (Golub & Van Loan, Alg. 8.5.1).
			theta := (m[3*q+q] - m[3*p+p]) / (2 * apq)
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			// m ← Jᵀ m J and v ← v J with the Givens rotation J in the (p, q) plane.
			for k := 0; k < 3; k++ {
				mkp, mkq := m[3*k+p], m[3*k+q]
				m[3*k+p], m[3*k+q] = c*mkp-s*mkq, s*mkp+c*mkq
			}
			for k := 0; k < 3; k++ {
				mpk, mqk := m[3*p+k], m[3*q+k]
				m[3*p+k], m[3*q+k] = c*mpk-s*mqk, s*mpk+c*mqk
			}
			for k := 0; k < 3; k++ {
				vkp, vkq := v[3*k+p], v[3*k+q]
				v[3*k+p], v[3*k+q] = c*vkp-s*vkq, s*vkp+c*vkq
			}
		}
	}
	return [3]float64{m[0], m[4], m[8]}, v
}
