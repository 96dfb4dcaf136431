// Package viscosity is the implicit viscosity solver of Weiler, Koschier, Brand and Bender
// 2018 ("A Physically Consistent Implicit Viscosity Solver for SPH Fluids", Computer Graphics
// Forum 37(2)). Their viscosity Laplacian is the 2(d+2) formulation that projects the full
// velocity difference on the particle offset,
//
//	∇²v_i = 2(d+2) Σ_j V_j ((v_i − v_j)·x_ij)/(|x_ij|² + 0.01h²) ∇W_ij,   d = 3 (2 in a planar world),
//
// the same operator as sluice's explicit viscosity (physics.Advect), and they integrate it
// backward in time: the velocity after viscosity solves
//
//	(I − Δt ν ∇²) v = v*,
//
// a sparse, symmetric positive definite 3n×3n system (with sluice's symmetric pair volume
// V_ij = 2m_j/(ρ_i + ρ_j) it is symmetric after multiplying row i by m_i), solved matrix-free
// by conjugate gradients with a block-Jacobi (3×3 per particle) preconditioner, warm-started
// with the last solve's velocity change, and stopped on the relative residual
// |M(v* − A v)|/|M v*|. The wall friction of Akinci et al. 2012 (sluice's boundary viscosity,
// physics.BoundaryDrag) is in the same system: each sample with ν_b > 0 adds its pair to the
// particle's diagonal block and its own (known) velocity to the right-hand side, as Weiler et
// al. treat boundary neighbours.
//
// Nothing bounds the step: ν Δt/h² may be far beyond the explicit limit
// (physics.Kernel.ViscousDtLimit). Backward Euler multiplies each eigenmode of the operator
// (eigenvalue λ ≥ 0 of −ν∇²) by 1/(1 + Δt λ), which lies in (0, 1] for every Δt, where the
// explicit step's factor 1 − Δt λ falls below −1 past the limit.
//
// After the solve the velocity is set to v* + Δt·a(v), with a(v) the viscous acceleration of
// the solved field evaluated pair by pair. That differs from the CG's iterate by its residual
// (below the tolerance) and makes every pair's momentum exchange exactly equal and opposite,
// so the fluid's linear momentum is kept to rounding whatever the tolerance, and the walls'
// reaction (the drag on rigid bodies) balances what the fluid lost.
//
// Every loop runs over par blocks, and all dot products are reduced in block order, so the
// result does not depend on the number of workers.
package viscosity

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Vec3 is physics.Vec3.
type Vec3 = physics.Vec3

// Params are the solver's settings.
type Params struct {
	MaxError      float64 // stop when |r|/|b| ≤ MaxError (relative residual of the mass-weighted system)
	MaxIterations int     // most CG iterations per solve
}

// Result reports one solve.
type Result struct {
	Iterations int
	Residual   float64 // relative residual |r|/|b| at the last iteration
	Converged  bool
}

// Solver holds the per-pair coefficients, the CG vectors and the warm start. A Solver must not
// be copied; its block loops are method values made once.
type Solver struct {
	Params

	f      *physics.FluidSet
	b      *physics.BoundarySet
	ff, fb *physics.Neighbors
	dt     float64
	eps    float64
	visc   float64 // 2(d+2) of the Laplacian viscosity (physics.Kernel.ViscFactor)
	alpha  float64
	beta   float64

	sf, sb     [][]float64 // per block: s_ij G_ij (fluid pairs) and s_ib G_ib (boundary pairs), kg/(s m²)
	pinv       [][9]float64
	rhs        []Vec3 // M v* minus the walls' known velocities' part
	x, r, z, p []Vec3
	q          []Vec3
	part       []float64
	part2      []float64
	part3      []float64
	anyB       bool

	fnSetup, fnMul, fnUpdate, fnDir, fnFinal, fnInit, fnRes func(lo, hi, block int)
}

// NewSolver returns a solver with the given settings.
func NewSolver(p Params) *Solver {
	s := &Solver{Params: p}
	s.fnSetup, s.fnMul, s.fnUpdate = s.setupBlock, s.mulBlock, s.updateBlock
	s.fnDir, s.fnFinal, s.fnInit, s.fnRes = s.dirBlock, s.finalBlock, s.initBlock, s.residualBlock
	return s
}

// Solve replaces f.VStar by the velocity after an implicit viscosity step of length dt:
// fluid pairs with the mean of the two particles' f.Visc, wall samples with their b.Nu. It
// needs the fluid's densities of this substep and the neighbour lists (with gradients) ff and
// fb. The velocity of b's samples enters as the walls' known velocity.
func (s *Solver) Solve(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, kr *physics.Kernel, dt float64, pool *par.Pool) Result {
	n := f.Len()
	if n == 0 {
		return Result{Converged: true}
	}
	f.EnsureVDiff()
	s.f, s.b, s.ff, s.fb, s.dt = f, b, ff, fb, dt
	s.eps = 0.01 * kr.H * kr.H
	s.visc = kr.ViscFactor()
	s.anyB = false
	for _, nu := range b.Nu {
		if nu != 0 {
			s.anyB = true
			break
		}
	}
	nb := par.Blocks(n)
	if len(s.sf) < nb {
		s.sf = append(s.sf, make([][]float64, nb-len(s.sf))...)
		s.sb = append(s.sb, make([][]float64, nb-len(s.sb))...)
	}
	s.pinv = par.Grow(s.pinv, n)
	s.rhs, s.x, s.r = par.Grow(s.rhs, n), par.Grow(s.x, n), par.Grow(s.r, n)
	s.z, s.p, s.q = par.Grow(s.z, n), par.Grow(s.p, n), par.Grow(s.q, n)
	s.part, s.part2, s.part3 = par.Grow(s.part, nb), par.Grow(s.part2, nb), par.Grow(s.part3, nb)
	pool.For(n, s.fnSetup) // coefficients, preconditioner, right-hand side
	pool.For(n, s.fnInit)  // warm start x0 = v* + Δv
	pool.For(n, s.fnRes)   // r0, z0, p0 and |b|², r·z, |r|²
	bnorm := math.Sqrt(par.Sum(s.part2[:nb]))
	rz := par.Sum(s.part[:nb])
	rr := par.Sum(s.part3[:nb])
	res := Result{}
	if bnorm == 0 {
		bnorm = 1
	}
	res.Residual = math.Sqrt(rr) / bnorm
	for res.Residual > s.MaxError && res.Iterations < s.MaxIterations {
		pool.For(n, s.fnMul) // q = K p, part = p·q
		pq := par.Sum(s.part[:nb])
		if !(pq > 0) {
			break
		}
		s.alpha = rz / pq
		pool.For(n, s.fnUpdate) // x += αp, r −= αq, z = P r, part = r·z, part2 = r·r
		rzNew := par.Sum(s.part[:nb])
		rr = par.Sum(s.part2[:nb])
		res.Iterations++
		res.Residual = math.Sqrt(rr) / bnorm
		s.beta = rzNew / rz
		rz = rzNew
		if res.Residual <= s.MaxError {
			break
		}
		pool.For(n, s.fnDir) // p = z + βp
	}
	res.Converged = res.Residual <= s.MaxError
	pool.For(n, s.fnFinal) // v = v* + Δt a(x), Δv = v − v*
	return res
}

// setupBlock computes the pair coefficients s_ij = Δt·10·ν_ij·2 m_i m_j/(ρ_i + ρ_j)/(|x_ij|² +
// 0.01h²) (symmetric in i and j bit for bit: products and sums of the same two numbers), the
// walls' s_ib = Δt·10·ν_b·m_i ρ0_i V_b/ρ_i/(|x_ib|² + 0.01h²), the inverse of each
// particle's 3×3 diagonal block m_i I − Σ s (∇W xᵀ), and the right-hand side
// M v* − Σ_b s_ib (v_b·x_ib) ∇W_ib. It stores each s times the pair's gradient factor G
// (∇W = G x, physics.Grad; G_ij = G_ji bit for bit, both from the same |x_ij|), so the
// matrix products read one number per pair and form ∇W from x_ij, which they need anyway.
func (s *Solver) setupBlock(lo, hi, blk int) {
	f, b := s.f, s.b
	fblk := &s.ff.Blocks[blk]
	np := len(fblk.J)
	s.sf[blk] = par.Grow(s.sf[blk], np)
	sf := s.sf[blk]
	var sb []float64
	var bblk *physics.NeighborBlock
	if s.anyB {
		bblk = &s.fb.Blocks[blk]
		s.sb[blk] = par.Grow(s.sb[blk], len(bblk.J))
		sb = s.sb[blk]
	}
	c10 := s.visc * s.dt
	for i := lo; i < hi; i++ {
		xi, mi, rhoi, nui := f.X[i], f.M[i], f.Rho[i], f.Visc[i]
		var d [9]float64
		d[0], d[4], d[8] = mi, mi, mi
		st := fblk.Start[i-lo]
		js, gs := fblk.Row(i - lo)
		for k, j := range js {
			nu := 0.5 * (nui + f.Visc[j])
			xj := &f.X[j]
			rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			c := c10 * nu * 2 * (mi * f.M[j]) / (rhoi + f.Rho[j]) / (rx*rx + ry*ry + rz*rz + s.eps) * float64(gs[k])
			sf[int(st)+k] = c
			if c != 0 {
				addOuter(&d, -c, rx, ry, rz)
			}
		}
		vs := f.VStar[i]
		rh := Vec3{mi * vs[0], mi * vs[1], mi * vs[2]}
		if s.anyB {
			bst := bblk.Start[i-lo]
			bs, gbs := bblk.Row(i - lo)
			c0 := c10 * mi * f.Rho0[i] / rhoi
			for k, j := range bs {
				c := 0.0
				if nu := b.Nu[j]; nu != 0 {
					xb := &b.X[j]
					rx, ry, rz := xi[0]-xb[0], xi[1]-xb[1], xi[2]-xb[2]
					c = c0 * nu * b.Vol[j] / (rx*rx + ry*ry + rz*rz + s.eps) * float64(gbs[k])
					addOuter(&d, -c, rx, ry, rz)
					vb := &b.V[j]
					w := c * (vb[0]*rx + vb[1]*ry + vb[2]*rz)
					rh[0] -= w * rx
					rh[1] -= w * ry
					rh[2] -= w * rz
				}
				sb[int(bst)+k] = c
			}
		}
		s.rhs[i] = rh
		s.pinv[i] = inv3(&d)
	}
}

// addOuter adds c·x xᵀ (c·G times ∇W xᵀ with ∇W = G x) to the row-major 3×3 d.
func addOuter(d *[9]float64, c float64, rx, ry, rz float64) {
	gx, gy, gz := c*rx, c*ry, c*rz
	d[0] += gx * rx
	d[1] += gx * ry
	d[2] += gx * rz
	d[3] += gy * rx
	d[4] += gy * ry
	d[5] += gy * rz
	d[6] += gz * rx
	d[7] += gz * ry
	d[8] += gz * rz
}

// inv3 inverts a 3×3 matrix (the diagonal block is m_i I plus a positive semidefinite part,
// never singular).
func inv3(a *[9]float64) [9]float64 {
	c0 := a[4]*a[8] - a[5]*a[7]
	c1 := a[5]*a[6] - a[3]*a[8]
	c2 := a[3]*a[7] - a[4]*a[6]
	det := a[0]*c0 + a[1]*c1 + a[2]*c2
	id := 1 / det
	return [9]float64{
		c0 * id, (a[2]*a[7] - a[1]*a[8]) * id, (a[1]*a[5] - a[2]*a[4]) * id,
		c1 * id, (a[0]*a[8] - a[2]*a[6]) * id, (a[2]*a[3] - a[0]*a[5]) * id,
		c2 * id, (a[1]*a[6] - a[0]*a[7]) * id, (a[0]*a[4] - a[1]*a[3]) * id,
	}
}

// apply returns (K v)_i = m_i v_i − impulse(v, i, walls at rest) for particle i of block blk
// (its first particle is lo).
func (s *Solver) apply(v []Vec3, i, lo, blk int) Vec3 {
	vi, mi := v[i], s.f.M[i]
	im := s.impulse(v, i, lo, blk, false)
	return Vec3{mi*vi[0] - im[0], mi*vi[1] - im[1], mi*vi[2] - im[2]}
}

// impulse returns the viscous impulse Δt·m_i·a_i of the velocity field v on particle i,
// Σ_j s_ij ((v_i − v_j)·x_ij) ∇W_ij + Σ_b s_ib ((v_i − v_b)·x_ib) ∇W_ib, with the walls' velocities
// v_b when wallV is set and walls at rest otherwise (their part is then on the right-hand side).
func (s *Solver) impulse(v []Vec3, i, lo, blk int, wallV bool) Vec3 {
	f := s.f
	xi, vi := f.X[i], v[i]
	var ax, ay, az float64
	fblk := &s.ff.Blocks[blk]
	st := int(fblk.Start[i-lo])
	js, _ := fblk.Row(i - lo)
	sf := s.sf[blk][st : st+len(js)]
	for k, j := range js {
		c := sf[k]
		if c == 0 {
			continue
		}
		xj, vj := &f.X[j], &v[j]
		rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
		w := c * ((vi[0]-vj[0])*rx + (vi[1]-vj[1])*ry + (vi[2]-vj[2])*rz)
		ax += w * rx
		ay += w * ry
		az += w * rz
	}
	if s.anyB {
		bblk := &s.fb.Blocks[blk]
		bst := int(bblk.Start[i-lo])
		bs, _ := bblk.Row(i - lo)
		sb := s.sb[blk][bst : bst+len(bs)]
		b := s.b
		for k, j := range bs {
			c := sb[k]
			if c == 0 {
				continue
			}
			xb := &b.X[j]
			rx, ry, rz := xi[0]-xb[0], xi[1]-xb[1], xi[2]-xb[2]
			vx, vy, vz := vi[0], vi[1], vi[2]
			if wallV {
				vb := &b.V[j]
				vx, vy, vz = vx-vb[0], vy-vb[1], vz-vb[2]
			}
			w := c * (vx*rx + vy*ry + vz*rz)
			ax += w * rx
			ay += w * ry
			az += w * rz
		}
	}
	return Vec3{ax, ay, az}
}

func mulP(m *[9]float64, r Vec3) Vec3 {
	return Vec3{
		m[0]*r[0] + m[1]*r[1] + m[2]*r[2],
		m[3]*r[0] + m[4]*r[1] + m[5]*r[2],
		m[6]*r[0] + m[7]*r[1] + m[8]*r[2],
	}
}

// initBlock sets the warm start x0 = v* + Δv, with Δv the velocity change of the last solve.
func (s *Solver) initBlock(lo, hi, _ int) {
	f := s.f
	for i := lo; i < hi; i++ {
		vs, d := f.VStar[i], f.VDiff[i]
		s.x[i] = Vec3{vs[0] + d[0], vs[1] + d[1], vs[2] + d[2]}
	}
}

// mulBlock sets q = K p and part = p·q per block.
func (s *Solver) mulBlock(lo, hi, blk int) {
	t := 0.0
	for i := lo; i < hi; i++ {
		q := s.apply(s.p, i, lo, blk)
		s.q[i] = q
		p := &s.p[i]
		t += p[0]*q[0] + p[1]*q[1] + p[2]*q[2]
	}
	s.part[blk] = t
}

// updateBlock: x += αp, r −= αq, z = P r; part = r·z, part2 = r·r.
func (s *Solver) updateBlock(lo, hi, blk int) {
	a := s.alpha
	rz, rr := 0.0, 0.0
	for i := lo; i < hi; i++ {
		p, q := s.p[i], s.q[i]
		x, r := &s.x[i], &s.r[i]
		x[0] += a * p[0]
		x[1] += a * p[1]
		x[2] += a * p[2]
		r[0] -= a * q[0]
		r[1] -= a * q[1]
		r[2] -= a * q[2]
		z := mulP(&s.pinv[i], *r)
		s.z[i] = z
		rz += r[0]*z[0] + r[1]*z[1] + r[2]*z[2]
		rr += r[0]*r[0] + r[1]*r[1] + r[2]*r[2]
	}
	s.part[blk], s.part2[blk] = rz, rr
}

// dirBlock: p = z + βp.
func (s *Solver) dirBlock(lo, hi, _ int) {
	bt := s.beta
	for i := lo; i < hi; i++ {
		z, p := s.z[i], &s.p[i]
		p[0] = z[0] + bt*p[0]
		p[1] = z[1] + bt*p[1]
		p[2] = z[2] + bt*p[2]
	}
}

// residualBlock: r0 = b − K x0, z0 = P r0, p0 = z0; part = r·z, part2 = |b|², part3 = |r|².
func (s *Solver) residualBlock(lo, hi, blk int) {
	rz, bb, rr := 0.0, 0.0, 0.0
	for i := lo; i < hi; i++ {
		kx := s.apply(s.x, i, lo, blk)
		bi := s.rhs[i]
		r := Vec3{bi[0] - kx[0], bi[1] - kx[1], bi[2] - kx[2]}
		s.r[i] = r
		z := mulP(&s.pinv[i], r)
		s.z[i], s.p[i] = z, z
		rz += r[0]*z[0] + r[1]*z[1] + r[2]*z[2]
		bb += bi[0]*bi[0] + bi[1]*bi[1] + bi[2]*bi[2]
		rr += r[0]*r[0] + r[1]*r[1] + r[2]*r[2]
	}
	s.part[blk], s.part2[blk], s.part3[blk] = rz, bb, rr
}

// finalBlock sets v_i = v*_i + (1/m_i)·impulse(x), the viscous velocity change of the solved
// field x evaluated pair by pair with the walls' own velocities (equal and opposite for every
// pair), and keeps the change Δv as the next solve's warm start.
func (s *Solver) finalBlock(lo, hi, blk int) {
	f := s.f
	for i := lo; i < hi; i++ {
		im := s.impulse(s.x, i, lo, blk, true)
		mi := f.M[i]
		d := Vec3{im[0] / mi, im[1] / mi, im[2] / mi}
		f.VDiff[i] = d
		vs := &f.VStar[i]
		vs[0] += d[0]
		vs[1] += d[1]
		vs[2] += d[2]
	}
}

// Solution returns the CG's solution of the last solve (before the pair-wise final update),
// by packed index; valid until the next Solve.
func (s *Solver) Solution() []Vec3 { return s.x }
