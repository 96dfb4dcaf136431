package elastic

import (
	"math"

	"github.com/sluicephysics/sluice/physics/internal/vec"
	"github.com/sluicephysics/sluice/physics/par"
)

// rotationIterations caps the rotation extraction per particle and step; warm-started with
// the last step's rotation, its Newton steps need one or two (extractRotation).
const rotationIterations = 10

// rotationTol is |ω| (radians) below which the extracted rotation counts as converged.
const rotationTol = 1e-10

// Len returns the number of particles.
func (bd *Body) Len() int { return bd.n }

// Pairs returns the number of stored (directed) rest pairs.
func (bd *Body) Pairs() int { return len(bd.nbr) }

// Rotation returns R_i of the last solve as a row-major 3x3 matrix.
func (bd *Body) Rotation(i int) [9]float64 { return quatToMat(&bd.q[i]) }

// Quaternions returns the rotations (w, x, y, z) of every particle: the warm start a snapshot
// must keep for a restored run to continue bit-identically.
func (bd *Body) Quaternions() [][4]float64 { return bd.q }

// SetQuaternions overwrites the rotations (a restored snapshot's warm start, or the rotations
// carried over when a body is rebuilt after losing particles); q must hold Len entries.
func (bd *Body) SetQuaternions(q [][4]float64) { copy(bd.q, q) }

// Pinned reports whether particle i is held in place.
func (bd *Body) Pinned(i int) bool { return bd.pinned[i] }

// Solve advances the velocities of the body by the implicit elastic update of Algorithm 3:
// with x the positions x^f and v the intermediate velocities v^f + Δt_c a* on entry, it
// extracts the rotations from x, forms the right-hand side of Eq. 24 and solves
//
//	v − Δt/m f(Δt v, 0) = v^f + Δt a* + Δt/m f(x^f, x⁰)
//
// by conjugate gradients warm-started with the entry v (§4.3), leaving the solution v_elast in
// v. Pinned particles end with zero velocity. The CG stops when the average residual
// Σ|r_i|/n is at most mat.MaxError (the paper's criterion) and the relative residual
// ‖r‖₂/‖b‖₂ is at most mat.RelError, or after mat.MaxIterations.
func (bd *Body) Solve(x, v []Vec3, mat Material, dt float64, pool *par.Pool) Result {
	n := bd.n
	bd.x, bd.v, bd.mat, bd.dt = x, v, mat, dt
	defer func() { bd.x, bd.v, bd.src = nil, nil, nil }()
	pool.For(n, bd.fnRot)
	pool.For(n, bd.fnRev)
	if mat.G == 0 && mat.K == 0 && mat.Alpha == 0 {
		// A melted body (§5.5): no elastic force, v stays v*. The rotations above still track
		// the body so it resumes from a good warm start when the moduli rise again.
		for i := range v {
			if bd.pinned[i] {
				v[i] = Vec3{}
			}
		}
		return Result{Converged: true}
	}
	// Right-hand side: stress from the current positions (Eq. 13), force (Eq. 10), b.
	pool.For(n, bd.fnStressX)
	pool.For(n, bd.fnForce)
	// r = b − A v for the warm start v, pinned rows (Dirichlet, v = 0) excluded first.
	for i := range v {
		if bd.pinned[i] {
			v[i] = Vec3{}
		}
	}
	bd.src = v
	pool.For(n, bd.fnStressP)
	pool.For(n, bd.fnAp)
	pool.For(n, bd.fnInit)
	nb := par.Blocks(n)
	rr := par.Sum(bd.partA[:nb])
	res := Result{Residual: par.Sum(bd.partB[:nb]) / float64(n)}
	// ‖r‖₂ ≤ RelError·‖b‖₂, compared squared: rr ≤ RelError²·bb.
	bb := par.Sum(bd.partC[:nb])
	relLim := mat.RelError * mat.RelError * bb
	done := func() bool { return res.Residual <= mat.MaxError && (mat.RelError == 0 || rr <= relLim) }
	bd.src = bd.p
	for res.Iterations < mat.MaxIterations {
		if done() {
			res.Converged = true
			break
		}
		pool.For(n, bd.fnStressP)
		pool.For(n, bd.fnAp)
		pap := par.Sum(bd.partA[:nb])
		if !(pap > 0) {
			break // p = 0 (exact solution) or a breakdown; v is the best iterate
		}
		bd.step = rr / pap
		pool.For(n, bd.fnUpd)
		rrNew := par.Sum(bd.partA[:nb])
		res.Residual = par.Sum(bd.partB[:nb]) / float64(n)
		res.Iterations++
		bd.beta = rrNew / rr
		rr = rrNew
		pool.For(n, bd.fnDir)
	}
	if !res.Converged && done() {
		res.Converged = true
	}
	if bb > 0 {
		res.Relative = math.Sqrt(rr / bb)
	}
	return res
}

// rotBlock computes F_i of Eq. 3 with the corrected gradients of Eq. 2, extracts R_i from it
// (warm start: the last R_i) and stores the rotated corrected gradients ∇*W_i(x⁰_ij) of Eq. 4.
func (bd *Body) rotBlock(lo, hi, _ int) {
	x, vol := bd.x, bd.vol
	for i := lo; i < hi; i++ {
		r0, r1 := bd.start[i], bd.start[i+1]
		m := vec.OuterSums(bd.nbr[r0:r1], bd.corr[r0:r1+1], x, &x[i]) // Σ_j x_ji ⊗ L_i ∇W
		f := mat3{vol * m[0], vol * m[1], vol * m[2], vol * m[4], vol * m[5], vol * m[6], vol * m[8], vol * m[9], vol * m[10]}
		bd.fg[i] = f
		extractRotation(&f, &bd.q[i], rotationIterations, rotationTol)
		r := quatToMat(&bd.q[i])
		bd.rc[i] = [12]float64{r[0], r[3], r[6], 0, r[1], r[4], r[7], 0, r[2], r[5], r[8], 0}
	}
	vec.RotateGradsRows(bd.start, bd.rc, bd.corr, bd.gs, lo, hi, bd.gsum)
}

// revBlock stores each pair's reverse rotated gradient ∇*W_j(x⁰_ji) = R_j L_j ∇W(x⁰_ji)
// (Eq. 4) next to it: the very value rotBlock stored for the pair (j, i), formed again from
// the constant corrRev and R_j, which reads the pairs in order where copying it from j's list
// would read one scattered gradient per pair (that copy was 9 % of the solve's time in a
// profile of the 100k-particle jelly, docs/elastic.md).
func (bd *Body) revBlock(lo, hi, _ int) {
	a, b := bd.start[lo], bd.start[hi]
	vec.RotateEach(bd.nbr[a:b], bd.rc, bd.corrRev[a:b], bd.gsRev[a:b])
}

// stressFromGrad sets P of Eq. 8 (with the strain of Eq. 12/23) from the displacement
// gradient du = F̂ − I.
func stressFromGrad(du *mat3, g, k float64, p *vec.StressRow) {
	tr := du[0] + du[4] + du[8]
	lam := (k - 2*g/3) * tr
	vec.SetStress(p, 2*g*du[0]+lam, 2*g*du[4]+lam, 2*g*du[8]+lam, g*(du[1]+du[3]), g*(du[2]+du[6]), g*(du[5]+du[7]))
}

// stressXBlock is the first pass of Algorithm 2 for f(x^f, x⁰): F̂_i − I of Eq. 13,
// Σ_j V_j (x_ji − R_i x⁰_ji) ⊗ ∇*W_i(x⁰_ij), and its stress. The sum is formed as
// V (Σ_j x_ji ⊗ ∇*W_i − R_i Σ_j x⁰_ji ⊗ ∇*W_i), each part one pass of the vector loop
// vec.OuterSums over the stored gradients, so the rotation is applied once per particle
// instead of per pair. The two parts are near R_i and their difference is the strain: exact
// to the round-off of their entries (≈ 10⁻¹⁶), as the per-pair differences x_ji − R_i x⁰_ji
// were. At rest (x = x⁰) the two sums are the same numbers, so the strain is that of R_i's
// round-off alone.
func (bd *Body) stressXBlock(lo, hi, _ int) {
	x, vol := bd.x, bd.vol
	for i := lo; i < hi; i++ {
		r0, r1 := bd.start[i], bd.start[i+1]
		if r0 == r1 {
			vec.SetStress(&bd.stress[i], 0, 0, 0, 0, 0, 0)
			continue
		}
		mx := vec.OuterSums(bd.nbr[r0:r1], bd.gs[r0:r1+1], x, &x[i])
		m0 := vec.OuterSums(bd.nbr[r0:r1], bd.gs[r0:r1+1], bd.rest, &bd.rest[i])
		r := quatToMat(&bd.q[i])
		var du mat3
		for s := 0; s < 3; s++ {
			for t := 0; t < 3; t++ {
				du[3*s+t] = vol * (mx[4*s+t] - (r[3*s]*m0[t] + r[3*s+1]*m0[4+t] + r[3*s+2]*m0[8+t]))
			}
		}
		stressFromGrad(&du, bd.mat.G, bd.mat.K, &bd.stress[i])
	}
}

// divergence returns Σ_j V_i V_j (P_i ∇*W_i(x⁰_ij) − P_j ∇*W_j(x⁰_ji)), the force of Eq. 9/10.
func (bd *Body) divergence(i int) (fx, fy, fz float64) {
	// Σ_j P_i ∇*W_i(x⁰_ij) = P_i Σ_j ∇*W_i(x⁰_ij): the first term needs only the per-particle
	// sum of the rotated gradients, the loop only the neighbours' stresses.
	lo, hi := bd.start[i], bd.start[i+1]
	f := vec.StressDiv(bd.nbr[lo:hi], bd.gsRev[lo:hi+1], bd.stress)
	return bd.ownForce(i, &[4]float64{f[0], f[1], f[2]}, bd.vol*bd.vol)
}

// ownForce completes the force of Eq. 9/10 from the neighbours' sum f = Σ_j P_j ∇*W_j(x⁰_ji):
// V_i V_j (P_i Σ_j ∇*W_i(x⁰_ij) − f), with v2 = V².
func (bd *Body) ownForce(i int, f *[4]float64, v2 float64) (fx, fy, fz float64) {
	// P_i in the StressRow layout: xx, xy, xz at 0–2, yz 3, zz 4, yy 6
	p, a := &bd.stress[i], &bd.gsum[i]
	return v2 * (p[0]*a[0] + p[1]*a[1] + p[2]*a[2] - f[0]), v2 * (p[1]*a[0] + p[6]*a[1] + p[3]*a[2] - f[1]), v2 * (p[2]*a[0] + p[3]*a[1] + p[4]*a[2] - f[2])
}

// forceBlock is the second pass for the right-hand side of Eq. 24: b = v* + Δt/m f(x^f, x⁰),
// plus the zero-energy-mode suppression force when α > 0.
func (bd *Body) forceBlock(lo, hi, _ int) {
	c := bd.dt / bd.mat.Mass
	for i := lo; i < hi; i++ {
		if bd.pinned[i] {
			bd.b[i] = Vec3{}
			continue
		}
		fx, fy, fz := bd.divergence(i)
		if bd.mat.Alpha > 0 {
			hx, hy, hz := bd.hourglass(i)
			fx, fy, fz = fx+hx, fy+hy, fz+hz
		}
		v := bd.v[i]
		bd.b[i] = Vec3{v[0] + c*fx, v[1] + c*fy, v[2] + c*fz}
	}
}

// hourglass is the zero-energy-mode suppression force of Ganzenmüller (2015), which the paper
// applies to its one-layer cloth (§5.6): each pair's error between the position predicted by
// the particle's deformation gradient, F_i x⁰_ji with F_i of Eq. 3, and the actual x_ji, projected on x_ji, pushes the pair apart or together,
// f_i = ½ α E Σ_j V_i V_j W(x⁰_ij)/|x⁰_ij|² (δ_ij + δ_ji) x̂_ij. It is explicit (part of the
// right-hand side only) and antisymmetric per pair, so it conserves linear momentum.
func (bd *Body) hourglass(i int) (fx, fy, fz float64) {
	x, kr := bd.x, &bd.kernel
	e := bd.mat.Young()
	xi := x[i]
	for k := bd.start[i]; k < bd.start[i+1]; k++ {
		j := int(bd.nbr[k])
		xj := x[j]
		dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
		r := math.Sqrt(dx*dx + dy*dy + dz*dz)
		if r == 0 {
			continue
		}
		d0 := bd.restVec(i, k)
		r0sq := d0[0]*d0[0] + d0[1]*d0[1] + d0[2]*d0[2]
		// δ_ij: i's prediction of x_ji against the actual x_ji, along x̂_ji = −x̂_ij.
		pi := bd.predict(i, &d0)
		dij := -((pi[0]+dx)*dx + (pi[1]+dy)*dy + (pi[2]+dz)*dz) / r
		// δ_ji: j's prediction of x_ij (rest vector −x⁰_ji) against x_ij.
		pj := bd.predict(j, &Vec3{-d0[0], -d0[1], -d0[2]})
		dji := ((pj[0]-dx)*dx + (pj[1]-dy)*dy + (pj[2]-dz)*dz) / r
		c := 0.5 * bd.mat.Alpha * e * bd.vol * bd.vol * kr.W(math.Sqrt(r0sq)) / r0sq * (dij + dji) / r
		fx += c * dx
		fy += c * dy
		fz += c * dz
	}
	return fx, fy, fz
}

// predict returns F_i d with F_i the deformation gradient of Eq. 3 from the rotation pass.
func (bd *Body) predict(i int, d *Vec3) Vec3 {
	f := &bd.fg[i]
	return Vec3{f[0]*d[0] + f[1]*d[1] + f[2]*d[2], f[3]*d[0] + f[4]*d[1] + f[5]*d[2], f[6]*d[0] + f[7]*d[1] + f[8]*d[2]}
}

// stressPBlock is the first pass of the product A p (Algorithm 2 with Eq. 22/23): the
// displacement gradient Δt Σ_j V_j p_ji ⊗ ∇*W_i of the direction src, and its stress. Only
// the symmetric part enters the strain (Eq. 23), so six sums are kept per particle: the
// diagonal and the symmetric off-diagonal pairs du_rq + du_qr, scaled by Δt V once, and the
// stress of Eq. 8 with ε_rr = e_rr and ε_rq = e_rq/2, formed for the block at once
// (vec.StrainStressRows).
func (bd *Body) stressPBlock(lo, hi, _ int) {
	law := vec.StrainLaw{C: bd.dt * bd.vol, G: bd.mat.G, Lambda: bd.mat.K - 2*bd.mat.G/3}
	vec.StrainStressRows(bd.start, bd.nbr, bd.gs, bd.src, lo, hi, &law, bd.stress)
}

// apBlock is the second pass of the product: (A p)_i = p_i − Δt/m f_i(Δt p, 0) (Eq. 19), zero
// on pinned rows, with the force of Eq. 10 (the neighbours' part and the particle's own, as in
// divergence) formed for the block at once (vec.ProductRows); it also stores the block's
// partial of p·Ap.
func (bd *Body) apBlock(lo, hi, blk int) {
	bd.partA[blk] = vec.ProductRows(bd.start, bd.nbr, bd.gsRev, bd.stress, bd.gsum, bd.src, bd.pinned, bd.dt/bd.mat.Mass, bd.vol*bd.vol, lo, hi, bd.ap)
}

// initBlock starts CG from the warm start: r = b − A v, p = r (pinned: v = r = p = 0), with
// the block's partials of r·r, Σ|r_i| and b·b.
func (bd *Body) initBlock(lo, hi, blk int) {
	var rr, rs, bb float64
	for i := lo; i < hi; i++ {
		if bd.pinned[i] {
			bd.r[i], bd.p[i] = Vec3{}, Vec3{}
			continue
		}
		b, a := bd.b[i], bd.ap[i]
		r := Vec3{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
		bd.r[i], bd.p[i] = r, r
		r2 := r[0]*r[0] + r[1]*r[1] + r[2]*r[2]
		rr += r2
		rs += math.Sqrt(r2)
		bb += b[0]*b[0] + b[1]*b[1] + b[2]*b[2]
	}
	bd.partA[blk], bd.partB[blk], bd.partC[blk] = rr, rs, bb
}

// updBlock is the CG update v += α p, r −= α A p with the partials of r·r and Σ|r_i|.
func (bd *Body) updBlock(lo, hi, blk int) {
	a := bd.step
	var rr, rs float64
	for i := lo; i < hi; i++ {
		p, ap := bd.p[i], bd.ap[i]
		v := &bd.v[i]
		v[0], v[1], v[2] = v[0]+a*p[0], v[1]+a*p[1], v[2]+a*p[2]
		r := &bd.r[i]
		r[0], r[1], r[2] = r[0]-a*ap[0], r[1]-a*ap[1], r[2]-a*ap[2]
		r2 := r[0]*r[0] + r[1]*r[1] + r[2]*r[2]
		rr += r2
		rs += math.Sqrt(r2)
	}
	bd.partA[blk], bd.partB[blk] = rr, rs
}

// dirBlock is the CG direction update p = r + β p.
func (bd *Body) dirBlock(lo, hi, _ int) {
	b := bd.beta
	for i := lo; i < hi; i++ {
		r, p := bd.r[i], &bd.p[i]
		p[0], p[1], p[2] = r[0]+b*p[0], r[1]+b*p[1], r[2]+b*p[2]
	}
}

// Force computes the explicit elastic force f(x, x⁰) of Eq. 9 into out, with the rotations
// extracted from x: what the explicit update of Eq. 14 integrates. It changes the stored
// rotations (as a Solve would).
func (bd *Body) Force(x []Vec3, mat Material, out []Vec3, pool *par.Pool) {
	bd.x, bd.mat = x, mat
	pool.For(bd.n, bd.fnRot)
	pool.For(bd.n, bd.fnRev)
	pool.For(bd.n, bd.fnStressX)
	for i := range out {
		fx, fy, fz := bd.divergence(i)
		if mat.Alpha > 0 {
			hx, hy, hz := bd.hourglass(i)
			fx, fy, fz = fx+hx, fy+hy, fz+hz
		}
		out[i] = Vec3{fx, fy, fz}
	}
	bd.x = nil
}

// Strain returns the largest |ε| (Frobenius norm of the strain of Eq. 6 with F̂ of Eq. 5) over
// the particles for positions x, using the rotations of the last solve or Force.
func (bd *Body) Strain(x []Vec3) float64 {
	worst := 0.0
	for i := 0; i < bd.n; i++ {
		xi := x[i]
		r := quatToMat(&bd.q[i])
		var du mat3
		for k := bd.start[i]; k < bd.start[i+1]; k++ {
			d := bd.restVec(i, k)
			xj := &x[bd.nbr[k]]
			a := [3]float64{
				bd.vol * (xj[0] - xi[0] - (r[0]*d[0] + r[1]*d[1] + r[2]*d[2])),
				bd.vol * (xj[1] - xi[1] - (r[3]*d[0] + r[4]*d[1] + r[5]*d[2])),
				bd.vol * (xj[2] - xi[2] - (r[6]*d[0] + r[7]*d[1] + r[8]*d[2])),
			}
			g := &bd.gs[k]
			for s := 0; s < 3; s++ {
				for t := 0; t < 3; t++ {
					du[3*s+t] += a[s] * float64(g[t])
				}
			}
		}
		e := 0.0
		for s := 0; s < 3; s++ {
			for t := 0; t < 3; t++ {
				v := 0.5 * (du[3*s+t] + du[3*t+s])
				e += v * v
			}
		}
		worst = max(worst, math.Sqrt(e))
	}
	return worst
}
