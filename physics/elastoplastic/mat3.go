package elastoplastic

// mat3 is a 3x3 matrix stored row-major: m[3*r+c]. The inner loops use these plain arrays and
// the functions below instead of mathgl's array-valued method chains (DESIGN §10).
type mat3 = [9]float64

// identity returns I.
func identity() mat3 { return mat3{1, 0, 0, 0, 1, 0, 0, 0, 1} }

// halfIdentity is I/2.
var halfIdentity = mat3{0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5}

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
