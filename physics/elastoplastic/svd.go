package elastoplastic

import "math"

// SVD3 is a singular value decomposition F = U diag(S) Vᵀ of a 3x3 matrix in the sign
// convention of Irving, Teran and Fedkiw, "Invertible finite elements for robust simulation of
// large deformation" (SCA 2004, §3): U and V are rotations (det = +1), S[0] ≥ S[1] ≥ |S[2]|,
// and an inverted F (det F < 0) shows as a negative S[2], the smallest singular value, instead
// of a reflection hidden in U or V. Inversion thus stays visible to the guards of the
// dissertation's §4.4 and a rotation never picks up a reflection.
type SVD3 struct {
	U, V [9]float64 // row-major rotations
	S    [3]float64
}

// Decompose computes the SVD of f (row-major) by one-sided Jacobi rotations (Hestenes 1958):
// V starts at I and B = F V; each rotation of a column pair of V makes the same pair of
// columns of B orthogonal, and sweeps repeat until every pair is orthogonal to round-off
// relative to the columns' lengths. Working on F itself, not on FᵀF, keeps the relative
// accuracy of the small singular values, and F = B Vᵀ holds to round-off at every stage.
// Then the columns are ordered by decreasing length, V is made a rotation by negating its
// last column (and B's) when det V < 0, u₁ = b₁/|b₁|, u₂ = b₂/|b₂|, u₃ = u₁ × u₂ (so U is a
// rotation by construction) and σ₃ = u₃ · b₃, which is negative exactly when F is inverted:
// Irving 2004's rule of negating the smallest singular value instead of a column of U. Where
// b₁ or b₂ vanishes (F of rank ≤ 1) the missing column is any unit vector orthogonal to the
// ones before it. Repeated singular values are harmless: every orthonormal basis of their
// subspace is a valid V, and the rotations stop once the columns are orthogonal.
func Decompose(f *[9]float64) SVD3 {
	var out SVD3
	b := *f
	v := identity()
	for sweep := 0; sweep < 30; sweep++ {
		rotated := false
		for pq := 0; pq < 3; pq++ {
			p, q := 0, 1
			switch pq {
			case 1:
				p, q = 0, 2
			case 2:
				p, q = 1, 2
			}
			var al, be, ga float64
			for r := 0; r < 3; r++ {
				bp, bq := b[3*r+p], b[3*r+q]
				al += bp * bp
				be += bq * bq
				ga += bp * bq
			}
			if ga == 0 || math.Abs(ga) <= 1e-16*math.Sqrt(al*be) {
				continue
			}
			rotated = true
			zeta := (be - al) / (2 * ga)
			t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
			c := 1 / math.Sqrt(1+t*t)
			sn := c * t
			for r := 0; r < 3; r++ {
				bp, bq := b[3*r+p], b[3*r+q]
				b[3*r+p], b[3*r+q] = c*bp-sn*bq, sn*bp+c*bq
				vp, vq := v[3*r+p], v[3*r+q]
				v[3*r+p], v[3*r+q] = c*vp-sn*vq, sn*vp+c*vq
			}
		}
		if !rotated {
			break
		}
	}
	var col [3][3]float64 // columns of B
	var n [3]float64
	for c := 0; c < 3; c++ {
		col[c] = [3]float64{b[c], b[3+c], b[6+c]}
		n[c] = norm3(col[c])
	}
	// Order by decreasing column length (a fixed sorting network of three).
	order := [3]int{0, 1, 2}
	if n[order[0]] < n[order[1]] {
		order[0], order[1] = order[1], order[0]
	}
	if n[order[1]] < n[order[2]] {
		order[1], order[2] = order[2], order[1]
	}
	if n[order[0]] < n[order[1]] {
		order[0], order[1] = order[1], order[0]
	}
	var bs [3][3]float64
	for c := 0; c < 3; c++ {
		bs[c] = col[order[c]]
		for r := 0; r < 3; r++ {
			out.V[3*r+c] = v[3*r+order[c]]
		}
	}
	if det(&out.V) < 0 {
		out.V[2], out.V[5], out.V[8] = -out.V[2], -out.V[5], -out.V[8]
		bs[2] = [3]float64{-bs[2][0], -bs[2][1], -bs[2][2]}
	}
	scale := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]) // |F|_F
	tiny := 1e-300 + 1e-15*scale
	u1 := bs[0]
	if l := norm3(u1); l > tiny {
		u1 = [3]float64{u1[0] / l, u1[1] / l, u1[2] / l}
	} else {
		u1 = [3]float64{1, 0, 0}
	}
	u2 := bs[1]
	pr := dot3(u1, u2)
	u2 = [3]float64{u2[0] - pr*u1[0], u2[1] - pr*u1[1], u2[2] - pr*u1[2]}
	if l := norm3(u2); l > tiny {
		u2 = [3]float64{u2[0] / l, u2[1] / l, u2[2] / l}
	} else {
		u2 = anyOrthogonal(u1)
	}
	u3 := cross3(u1, u2)
	for r := 0; r < 3; r++ {
		out.U[3*r], out.U[3*r+1], out.U[3*r+2] = u1[r], u2[r], u3[r]
	}
	out.S = [3]float64{dot3(u1, bs[0]), dot3(u2, bs[1]), dot3(u3, bs[2])}
	// The column order makes σ₁ ≥ σ₂ ≥ |σ₃| up to round-off; where singular values are
	// repeated the dot products can break the order by an ulp, which the clamps restore (a
	// change far below the reconstruction error).
	out.S[1] = min(out.S[1], out.S[0])
	if math.Abs(out.S[2]) > out.S[1] {
		out.S[2] = math.Copysign(out.S[1], out.S[2])
	}
	return out
}

func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func norm3(a [3]float64) float64 { return math.Sqrt(dot3(a, a)) }

func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// anyOrthogonal returns a unit vector orthogonal to the unit vector a: a × e along the axis e
// least aligned with a.
func anyOrthogonal(a [3]float64) [3]float64 {
	e := [3]float64{1, 0, 0}
	if math.Abs(a[1]) < math.Abs(a[0]) && math.Abs(a[1]) <= math.Abs(a[2]) {
		e = [3]float64{0, 1, 0}
	} else if math.Abs(a[2]) < math.Abs(a[0]) {
		e = [3]float64{0, 0, 1}
	}
	c := cross3(a, e)
	n := norm3(c)
	return [3]float64{c[0] / n, c[1] / n, c[2] / n}
}
