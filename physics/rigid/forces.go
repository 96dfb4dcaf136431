package rigid

import (
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Loads sums the fluid's pressure forces on boundary samples per body. The force of fluid
// particle i on sample b is the reaction of the boundary term of the pressure acceleration
// (Ihmsen et al. 2014, Eq. 15; Akinci et al. 2012, Eq. 10), with the mirrored pressure
//
//	F_b = m_i Ψ_b p_i/ρ_i² ∇W_ib,  Ψ_b = ρ0_i V_b,
//
// or, with extrapolated boundary pressures (iisph.Params.Extrapolate), the symmetric
//
//	F_b = m_i Ψ_b (p_i/ρ_i² + p_b/ρ0_i²) ∇W_ib,  p_b = physics.BoundaryPressure(p_i, ρ0_i, g, x_i, x_b),
//
// so the fluid and the body exchange equal and opposite momentum. Each body's force and its
// torque about a given centre are summed per work block and the blocks are added in order, so
// the totals do not depend on the number of workers.
type Loads struct {
	Force, Torque []Vec3 // per body, after Sum or Drag

	f           *physics.FluidSet
	b           *physics.BoundarySet
	fb          *physics.Neighbors
	owner       []int32
	centers     []Vec3
	nb          int
	partial     []float64 // per block: 6 numbers per body
	fn          func(lo, hi, block int)
	fnDrag      func(lo, hi, block int)
	dt          float64
	eps         float64
	visc        float64 // 2(d+2) of the Laplacian viscosity (physics.Kernel.ViscFactor)
	g           Vec3    // gravity of the boundary-pressure extrapolation
	extrapolate bool    // the samples' pressure is extrapolated (iisph.Params.Extrapolate)
}

// Sum computes the loads: owner maps each boundary sample to its body (−1: not summed) and
// centers holds each body's torque centre; extrapolate and g are the pressure solve's
// boundary-pressure mode and gravity (iisph.Params.Extrapolate, Gravity).
func (l *Loads) Sum(f *physics.FluidSet, b *physics.BoundarySet, fb *physics.Neighbors, owner []int32, centers []Vec3, extrapolate bool, g Vec3, pool *par.Pool) {
	if l.fn == nil {
		l.fn, l.fnDrag = l.block, l.dragBlock
	}
	l.extrapolate, l.g = extrapolate, g
	l.run(f, b, fb, owner, centers, l.fn, pool)
}

// Drag sums the reaction of the boundary viscosity (physics.BoundaryDrag) per body: sample b
// feels −m_i a_ib of every fluid particle i, with a_ib the drag term of the pair, computed
// from the same velocities, so fluid and bodies exchange equal and opposite momentum.
func (l *Loads) Drag(f *physics.FluidSet, b *physics.BoundarySet, fb *physics.Neighbors, kr *physics.Kernel, owner []int32, centers []Vec3, pool *par.Pool) {
	if l.fn == nil {
		l.fn, l.fnDrag = l.block, l.dragBlock
	}
	l.eps = 0.01 * kr.H * kr.H
	l.visc = kr.ViscFactor()
	l.run(f, b, fb, owner, centers, l.fnDrag, pool)
}

func (l *Loads) run(f *physics.FluidSet, b *physics.BoundarySet, fb *physics.Neighbors, owner []int32, centers []Vec3, fn func(lo, hi, block int), pool *par.Pool) {
	nb := len(centers)
	l.f, l.b, l.fb, l.owner, l.centers, l.nb = f, b, fb, owner, centers, nb
	blocks := par.Blocks(f.Len())
	l.partial = par.Grow(l.partial, 6*nb*blocks)
	l.Force, l.Torque = par.Grow(l.Force, nb), par.Grow(l.Torque, nb)
	pool.For(f.Len(), fn)
	physics.ReduceLoads(l.partial, nb, blocks, l.Force, l.Torque)
	l.f, l.b, l.fb = nil, nil, nil
}

func (l *Loads) block(lo, hi, blk int) {
	q := l.partial[6*blk*l.nb : 6*(blk+1)*l.nb]
	clear(q)
	f, b := l.f, l.b
	nb := &l.fb.Blocks[blk]
	for i := lo; i < hi; i++ {
		js, gs := nb.Row(i - lo)
		if len(js) == 0 {
			continue
		}
		rho, rho0, p := f.Rho[i], f.Rho0[i], f.P[i]
		c := rho0 * p / (rho * rho)
		xi := &f.X[i]
		for k, j := range js {
			o := l.owner[j]
			if o < 0 {
				continue
			}
			// m_i V_b ρ0 p_i/ρ_i², plus m_i V_b p_b/ρ0 when extrapolated
			cb := c
			if l.extrapolate {
				cb += physics.BoundaryPressure(p, rho0, &l.g, xi, &b.X[j]) / rho0
			}
			if cb == 0 {
				continue
			}
			w := f.M[i] * b.Vol[j] * cb
			x := &b.X[j]
			g := physics.Grad(gs[k], xi, x)
			fx, fy, fz := w*g[0], w*g[1], w*g[2]
			cc := &l.centers[o]
			physics.AddLoad(q[6*o:], x[0]-cc[0], x[1]-cc[1], x[2]-cc[2], fx, fy, fz)
		}
	}
}

func (l *Loads) dragBlock(lo, hi, blk int) {
	q := l.partial[6*blk*l.nb : 6*(blk+1)*l.nb]
	clear(q)
	f, b := l.f, l.b
	nb := &l.fb.Blocks[blk]
	for i := lo; i < hi; i++ {
		js, gs := nb.Row(i - lo)
		xi, vi := f.X[i], f.V[i]
		c0 := -l.visc * f.M[i] * f.Rho0[i] / f.Rho[i]
		for k, j := range js {
			o := l.owner[j]
			if o < 0 || b.Nu[j] == 0 {
				continue
			}
			xb, vb := &b.X[j], &b.V[j]
			rx, ry, rz := xi[0]-xb[0], xi[1]-xb[1], xi[2]-xb[2]
			vx, vy, vz := vi[0]-vb[0], vi[1]-vb[1], vi[2]-vb[2]
			c := c0 * b.Nu[j] * b.Vol[j] * (vx*rx + vy*ry + vz*rz) / (rx*rx + ry*ry + rz*rz + l.eps)
			g := float64(gs[k]) // ∇W_ib = G_ib x_ib
			fx, fy, fz := c*g*rx, c*g*ry, c*g*rz
			cc := &l.centers[o]
			physics.AddLoad(q[6*o:], xb[0]-cc[0], xb[1]-cc[1], xb[2]-cc[2], fx, fy, fz)
		}
	}
}
