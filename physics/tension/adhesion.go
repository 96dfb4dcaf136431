package tension

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Adhesion returns the adhesion spline A(r) of Akinci et al. 2013, Eq. 7, for the support
// radius h:
//
//	A(r) = 0.007/h^3.25 · (−4r²/h + 6r − 2h)^{1/4}   for h/2 < r ≤ h,
//	A(r) = 0                                          otherwise.
//
// It is zero at h/2 and at h and largest at 3h/4 (0.007·0.25^{1/4}/h³), so a fluid particle is
// pulled towards boundary samples between half and the whole support away and not pressed
// into the wall by the samples closest to it (the pressure keeps it off the wall).
func Adhesion(r, h float64) float64 {
	return adhesion(r, h, 0.007/math.Pow(h, 3.25))
}

// adhesion is Adhesion with its factor k = 0.007/h^3.25 taken once by the caller (the pair
// loop evaluates no power).
func adhesion(r, h, k float64) float64 {
	if 2*r <= h || r > h {
		return 0
	}
	q := -4*r*r/h + 6*r - 2*h
	if q <= 0 {
		return 0
	}
	return k * math.Sqrt(math.Sqrt(q))
}

// AdhesionBound returns a bound on the adhesion acceleration a fluid particle can get from a
// wall, as a multiple of β ρ0 (β of Eq. 6 in m⁴/(kg s²), ρ0 in kg/m³; the bound is
// dimensionless): the largest A(r), 0.007·0.25^{1/4}/h³ at r = 3h/4, times the volume of the
// half ball of radius h beside a flat wall, 2πh³/3, as if that half ball were all boundary
// volume and every sample pulled the same way. It does not depend on h (A scales as 1/h³).
func AdhesionBound() float64 {
	return 0.007 * math.Sqrt(math.Sqrt(0.25)) * 2 * math.Pi / 3
}

// Adhesive applies the adhesion of fluid particles to boundary samples (walls and rigid
// bodies) of Akinci et al. 2013, Eq. 6, the force on fluid particle i from sample b
//
//	F_i←b = −β m_i Ψ_b A(|x_ib|) x_ib/|x_ib|,   Ψ_b = ρ0_i V_b,   x_ib = x_i − x_b,
//
// with A of Eq. 7 (Adhesion) and Ψ_b the sample's rest mass for the particle's fluid (Akinci et
// al. 2012, Eq. 5). Beta is set by the caller, one β per packed fluid particle (0: the particle
// does not adhere); the sample's body feels −F_i←b, summed per body (Force, Torque) per work
// block and the blocks added in order, so the fluid and the bodies exchange equal and opposite
// momentum and the totals do not depend on the number of workers.
type Adhesive struct {
	Beta          []float64      // β of Eq. 6 per packed fluid particle (m⁴/(kg s²)); 0: none
	Force, Torque []physics.Vec3 // per body: the reaction of the last Apply (N, N·m)

	f       *physics.FluidSet
	b       *physics.BoundarySet
	fb      *physics.Neighbors
	owner   []int32
	centers []physics.Vec3
	h, k    float64 // support radius and Eq. 7's factor 0.007/h^3.25
	dt      float64
	nb      int
	partial []float64 // per block: 6 numbers per body
	fn      func(lo, hi, block int)
}

// Apply adds Δt·a_i of the adhesion to the predicted velocity f.VStar of every packed fluid
// particle with β > 0 and sums the reaction per body: owner maps each boundary sample to its
// body (−1: not summed), centers holds each body's torque centre. fb are the fluid → boundary
// neighbour lists of the current positions (kr.H their support radius). len(Beta) must be
// f.Len().
func (s *Adhesive) Apply(f *physics.FluidSet, b *physics.BoundarySet, fb *physics.Neighbors, kr *physics.Kernel, owner []int32, centers []physics.Vec3, dt float64, pool *par.Pool) {
	if s.fn == nil {
		s.fn = s.block
	}
	nb := len(centers)
	s.f, s.b, s.fb, s.owner, s.centers, s.nb = f, b, fb, owner, centers, nb
	s.h, s.k, s.dt = kr.H, 0.007/math.Pow(kr.H, 3.25), dt
	blocks := par.Blocks(f.Len())
	s.partial = par.Grow(s.partial, 6*nb*blocks)
	s.Force, s.Torque = par.Grow(s.Force, nb), par.Grow(s.Torque, nb)
	pool.For(f.Len(), s.fn)
	physics.ReduceLoads(s.partial, nb, blocks, s.Force, s.Torque)
	s.f, s.b, s.fb = nil, nil, nil
}

func (s *Adhesive) block(lo, hi, blk int) {
	q := s.partial[6*blk*s.nb : 6*(blk+1)*s.nb]
	clear(q)
	f, b, h, kh, dt := s.f, s.b, s.h, s.k, s.dt
	nbk := &s.fb.Blocks[blk]
	for i := lo; i < hi; i++ {
		beta := s.Beta[i]
		if beta == 0 {
			continue
		}
		js, _ := nbk.Row(i - lo)
		xi := f.X[i]
		c0 := -beta * f.Rho0[i]
		mi := f.M[i]
		var ax, ay, az float64
		for _, j := range js {
			xb := &b.X[j]
			rx, ry, rz := xi[0]-xb[0], xi[1]-xb[1], xi[2]-xb[2]
			r := math.Sqrt(rx*rx + ry*ry + rz*rz)
			a := adhesion(r, h, kh)
			if a == 0 {
				continue
			}
			// acceleration of i from b per unit of x_ib: −β ρ0_i V_b A(r)/r
			c := c0 * b.Vol[j] * a / r
			px, py, pz := c*rx, c*ry, c*rz
			ax += px
			ay += py
			az += pz
			if o := s.owner[j]; o >= 0 {
				cc := &s.centers[o]
				physics.AddLoad(q[6*o:], xb[0]-cc[0], xb[1]-cc[1], xb[2]-cc[2], -mi*px, -mi*py, -mi*pz)
			}
		}
		v := &f.VStar[i]
		v[0] += dt * ax
		v[1] += dt * ay
		v[2] += dt * az
	}
}
