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
// relative to the columns' lengths, or until a sweep's rotations were all by angles of at most
// jacobiDone: Jacobi sweeps converge quadratically, so the columns are then orthogonal to
// about jacobiDone² ≈ 1e-16 of their lengths, and another sweep would only turn them by
// round-off. Working on F itself, not on FᵀF, keeps the relative
// accuracy of the small singular values, and F = B Vᵀ holds to round-off at every stage.
// Then the columns are ordered by decreasing length, V is made a rotation by negating its
// last column (and B's) when det V < 0, u₁ = b₁/|b₁|, u₂ = b₂/|b₂|, u₃ = u₁ × u₂ (so U is a
// rotation by construction) and σ₃ = u₃ · b₃, which is negative exactly when F is inverted:
// Irving 2004's rule of negating the smallest singular value instead of a column of U. Where
// b₁ or b₂ vanishes (F of rank ≤ 1) the missing column is any unit vector orthogonal to the
// ones before it. Repeated singular values are harmless: every orthonormal basis of their
// subspace is a valid V, and the rotations stop once the columns are orthogonal.
func Decompose(f *[9]float64) SVD3 {
	s, _ := decompose(f)
	return s
}

// decompose is Decompose, and the number of sweeps it took.
func decompose(f *[9]float64) (SVD3, int) {
	b, v := columns(f), identity3()
	sweeps := 0
	for sweeps < maxSweeps {
		sweeps++
		t := rotatePair(&b[0], &b[1], &v[0], &v[1])
		t = max(t, rotatePair(&b[0], &b[2], &v[0], &v[2]))
		t = max(t, rotatePair(&b[1], &b[2], &v[1], &v[2]))
		if !(t > jacobiDone) {
			break
		}
	}
	return finish(&b, &v), sweeps
}

// maxSweeps bounds the Jacobi sweeps of Decompose; three to five suffice for every matrix the
// tests draw.
const maxSweeps = 30

// jacobiDone is the largest tangent of a sweep's rotation angles after which Decompose stops:
// the next sweep's angles would be of order jacobiDone², below double round-off. For a
// rotation times a stretch within 1 % of I (the body's usual F) this saves the last two of
// five sweeps (BenchmarkDecompose); for repeated singular values the angles stay large until
// the columns are orthogonal, and the sweeps stop as before, when no pair needs a rotation.
const jacobiDone = 1e-8

// cols3 is a 3x3 matrix stored by columns, the layout the Jacobi rotations work on.
type cols3 = [3][3]float64

// columns returns the columns of f.
func columns(f *mat3) cols3 {
	return cols3{{f[0], f[3], f[6]}, {f[1], f[4], f[7]}, {f[2], f[5], f[8]}}
}

func identity3() cols3 { return cols3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

// Decompose4 is Decompose of four matrices at once, with the same result for each, bit for
// bit: the four run their Jacobi rotations in one loop, so that the processor overlaps their
// chains of square roots and divisions (each rotation waits on the last one of its own matrix,
// but not on the other three's). A matrix whose sweeps have stopped rotates no more while the
// others go on.
func Decompose4(f *[4]mat3, out *[4]SVD3) {
	var b, v [4]cols3
	for l := range b {
		b[l], v[l] = columns(&f[l]), identity3()
	}
	var done [4]bool
	for sweep := 0; sweep < maxSweeps; sweep++ {
		var t [4]float64
		for l := range b {
			if !done[l] {
				t[l] = rotatePair(&b[l][0], &b[l][1], &v[l][0], &v[l][1])
			}
		}
		for l := range b {
			if !done[l] {
				t[l] = max(t[l], rotatePair(&b[l][0], &b[l][2], &v[l][0], &v[l][2]))
			}
		}
		for l := range b {
			if !done[l] {
				t[l] = max(t[l], rotatePair(&b[l][1], &b[l][2], &v[l][1], &v[l][2]))
			}
		}
		all := true
		for l := range b {
			done[l] = done[l] || !(t[l] > jacobiDone)
			all = all && done[l]
		}
		if all {
			break
		}
	}
	for l := range b {
		out[l] = finish(&b[l], &v[l])
	}
}

// rotatePair makes the columns bp and bq of B orthogonal by one Jacobi rotation, applied to
// the same columns vp, vq of V, and returns |tan| of the rotation's angle: 0 when the columns
// are already orthogonal to round-off relative to their lengths and it did not rotate.
func rotatePair(bp, bq, vp, vq *[3]float64) float64 {
	al := bp[0]*bp[0] + bp[1]*bp[1] + bp[2]*bp[2]
	be := bq[0]*bq[0] + bq[1]*bq[1] + bq[2]*bq[2]
	ga := bp[0]*bq[0] + bp[1]*bq[1] + bp[2]*bq[2]
	var t float64
	if s := al + be; s > 1e-140 && s < 1e140 {
		// The squares below neither overflow nor underflow: the test without its square root,
		// and t = sign(d)·g/(|d| + √(d² + g²)) with d = β − α, g = 2γ, one division and one
		// square root fewer than through ζ = d/g below (the same t in exact arithmetic: the
		// latter's numerator and denominator times |g|). The square roots and divisions share
		// one unit of the processor, so their count sets the decomposition's speed.
		if !(ga*ga > 1e-32*(al*be)) {
			return 0
		}
		d, g := be-al, 2*ga
		t = math.Copysign(1, d) * g / (math.Abs(d) + math.Sqrt(d*d+g*g))
	} else {
		// Far from 1 (|F| beyond about 1e±35): the test with the lengths' square roots apart,
		// whose product would overflow or underflow.
		if ga == 0 || math.Abs(ga) <= 1e-16*math.Sqrt(al)*math.Sqrt(be) {
			return 0
		}
		zeta := (be - al) / (2 * ga)
		t = math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
	}
	c := 1 / math.Sqrt(1+t*t)
	sn := c * t
	bp[0], bq[0] = c*bp[0]-sn*bq[0], sn*bp[0]+c*bq[0]
	bp[1], bq[1] = c*bp[1]-sn*bq[1], sn*bp[1]+c*bq[1]
	bp[2], bq[2] = c*bp[2]-sn*bq[2], sn*bp[2]+c*bq[2]
	vp[0], vq[0] = c*vp[0]-sn*vq[0], sn*vp[0]+c*vq[0]
	vp[1], vq[1] = c*vp[1]-sn*vq[1], sn*vp[1]+c*vq[1]
	vp[2], vq[2] = c*vp[2]-sn*vq[2], sn*vp[2]+c*vq[2]
	return math.Abs(t)
}

// finish turns the converged columns b of B = F V and v of V (Decompose) into the SVD. The
// columns are ordered by their squared lengths (the same order as by their lengths, without
// the square roots), and u₁, u₂ are scaled by the reciprocal of their lengths.
func finish(b, v *cols3) SVD3 {
	var out SVD3
	col := *b
	var n2 [3]float64
	for c := 0; c < 3; c++ {
		n2[c] = dot3(col[c], col[c])
	}
	// Order by decreasing column length (a fixed sorting network of three).
	order := [3]int{0, 1, 2}
	if n2[order[0]] < n2[order[1]] {
		order[0], order[1] = order[1], order[0]
	}
	if n2[order[1]] < n2[order[2]] {
		order[1], order[2] = order[2], order[1]
	}
	if n2[order[0]] < n2[order[1]] {
		order[0], order[1] = order[1], order[0]
	}
	var bs [3][3]float64
	for c := 0; c < 3; c++ {
		bs[c] = col[order[c]]
		for r := 0; r < 3; r++ {
			out.V[3*r+c] = v[order[c]][r]
		}
	}
	if det(&out.V) < 0 {
		out.V[2], out.V[5], out.V[8] = -out.V[2], -out.V[5], -out.V[8]
		bs[2] = [3]float64{-bs[2][0], -bs[2][1], -bs[2][2]}
	}
	scale := math.Sqrt(n2[0] + n2[1] + n2[2]) // |F|_F
	tiny := 1e-300 + 1e-15*scale
	u1 := bs[0]
	if l := math.Sqrt(n2[order[0]]); l > tiny {
		r := 1 / l
		u1 = [3]float64{u1[0] * r, u1[1] * r, u1[2] * r}
	} else {
		u1 = [3]float64{1, 0, 0}
	}
	u2 := bs[1]
	pr := dot3(u1, u2)
	u2 = [3]float64{u2[0] - pr*u1[0], u2[1] - pr*u1[1], u2[2] - pr*u1[2]}
	if l := norm3(u2); l > tiny {
		r := 1 / l
		u2 = [3]float64{u2[0] * r, u2[1] * r, u2[2] * r}
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
