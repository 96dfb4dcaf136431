// Package tension is the surface tension of N. Akinci, G. Akinci, M. Teschner, "Versatile
// surface tension and adhesion for SPH fluids", ACM Transactions on Graphics 32(6), 2013
// (SIGGRAPH Asia): a cohesion force between every pair of neighbouring fluid particles with
// the paper's spline kernel C(r) (Eq. 1–2), which pulls particles together where neighbours
// are missing and pushes them apart when they come closer than h/2, plus a curvature force
// from the differences of the particles' surface normals (Eq. 3–4), which minimises the
// surface area directly. Both are scaled by the symmetric correction factor K_ij (Eq. 5),
// which strengthens them where neighbours are missing (at the surface the SPH density is low).
//
// The force is explicit: it is added to the predicted velocity v* before the pressure solve,
// like gravity and the viscosity, and the pressure solve keeps the volume. The paper's
// adhesion to boundary samples (Eq. 6–7) is Adhesive (adhesion.go).
//
// γ is the paper's coefficient, as SPlisHSPlasH's "surfaceTension" of its Akinci 2013 method.
// It is not the physical surface tension σ (N/m): the cohesion term's acceleration is γ m_j C
// (γ in m⁴/(kg s²)), the curvature term's γ n (γ in m/s²), and the only length the model has
// to make a σ from them is the kernel's support, so the σ a given γ produces depends on the
// particle spacing. docs/surface_tension.md gives the σ measured at one spacing.
package tension

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Cohesion returns the cohesion spline C(r) of Eq. 2 for the support radius h:
//
//	C(r) = 32/(π h⁹) · (h − r)³ r³                 for h/2 < r ≤ h,
//	C(r) = 32/(π h⁹) · (2(h − r)³ r³ − h⁶/64)      for 0 < r ≤ h/2,
//	C(r) = 0                                        otherwise.
//
// It is positive (attraction) beyond h/2 and negative (repulsion) closer, so particles settle
// at a spacing instead of clustering.
func Cohesion(r, h float64) float64 {
	if r <= 0 || r > h {
		return 0
	}
	h3 := h * h * h
	k := 32 / (math.Pi * h3 * h3 * h3)
	a := h - r
	p := a * a * a * r * r * r
	if 2*r > h {
		return k * p
	}
	return k * (2*p - h3*h3/64)
}

// Solver computes the surface tension acceleration of the packed fluid particles. Gamma is set
// by the caller (one coefficient per packed particle, 0 for particles without surface tension);
// the other slices are scratch, grown to the particle count and reused, so a step allocates
// nothing once the count is stable.
type Solver struct {
	Gamma []float64      // γ_i of Eq. 1 and 4 per packed particle; 0: the particle takes no part
	N     []physics.Vec3 // surface normal n_i of Eq. 3 of the last call (dimensionless)
	A     []physics.Vec3 // surface tension acceleration a_i of the last call (m/s²)

	f                   *physics.FluidSet
	ff                  *physics.Neighbors
	kr                  *physics.Kernel
	dt                  float64
	fnNormals, fnAccels func(lo, hi, block int)
	fnApply             func(lo, hi, block int)
}

func (s *Solver) init(f *physics.FluidSet, ff *physics.Neighbors, kr *physics.Kernel) {
	if s.fnNormals == nil {
		s.fnNormals, s.fnAccels, s.fnApply = s.normalsBlock, s.accelBlock, s.applyBlock
	}
	n := f.Len()
	s.N = par.Grow(s.N, n)
	s.A = par.Grow(s.A, n)
	s.f, s.ff, s.kr = f, ff, kr
}

// Accelerations computes the normals N (Eq. 3) and the accelerations A = F_i/m_i (Eq. 1, 4, 5)
// of every packed particle from the current positions, densities and the fluid neighbour lists
// (whose pairs and gradients are those of the simulation's kernel, support radius kr.H). len
// (Gamma) must be f.Len(). Two passes over parallel blocks; each block writes only its own
// particles, so the result does not depend on the number of workers.
func (s *Solver) Accelerations(f *physics.FluidSet, ff *physics.Neighbors, kr *physics.Kernel, pool *par.Pool) {
	s.init(f, ff, kr)
	pool.For(f.Len(), s.fnNormals)
	pool.For(f.Len(), s.fnAccels)
}

// Apply computes the accelerations (Accelerations) and adds Δt·a_i to the predicted velocity
// f.VStar of every particle.
func (s *Solver) Apply(f *physics.FluidSet, ff *physics.Neighbors, kr *physics.Kernel, dt float64, pool *par.Pool) {
	s.Accelerations(f, ff, kr, pool)
	s.dt = dt
	pool.For(f.Len(), s.fnApply)
}

// StepLimit returns the largest step (s) the force condition of SPH time stepping allows,
// Δt ≤ 0.25·(h_s/a)^{1/2} with the smoothing length h_s = h/2 (J. J. Monaghan, "Smoothed
// particle hydrodynamics", Annu. Rev. Astron. Astrophys. 30, 1992), for the acceleration a
// (m/s²) the surface tension gives a particle: the explicit cohesion and curvature forces are
// stiff springs between neighbours, and a step that lets a particle move a sizeable part of h
// under them alone overshoots. +Inf for a ≤ 0.
func StepLimit(h, a float64) float64 {
	if !(a > 0) {
		return math.Inf(1)
	}
	return 0.25 * math.Sqrt(0.5*h/a)
}

// CornerAcceleration returns the magnitudes of the cohesion and curvature accelerations of the
// corner particle of a cube of particles on a lattice of the given spacing, each of volume vol
// (the largest the force gives a particle of a freshly sampled block), for γ = 1 and, for the
// cohesion, per unit rest density (kg/m³): a particle of a material (γ, ρ0) at such a corner
// gets |a| ≤ γ(ρ0·cohesion + curvature), since the cohesion term scales with the masses and the
// curvature term (normals from volumes) does not. The cube is 2⌈h/spacing⌉ + 1 particles a
// side, so every neighbour of the corner has all of its own; densities are the particles' own
// sums. It is computed once per world (a few thousand kernel evaluations).
func CornerAcceleration(kr *physics.Kernel, spacing, vol float64) (cohesion, curvature float64) {
	n := 2*int(math.Ceil(kr.H/spacing)) + 1
	var x []physics.Vec3
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < n; l++ {
				x = append(x, physics.Vec3{spacing * float64(i), spacing * float64(j), spacing * float64(l)})
			}
		}
	}
	h := kr.H
	rho := make([]float64, len(x)) // ρ0 = 1: m = vol
	nrm := make([]physics.Vec3, len(x))
	for i := range x {
		for j := range x {
			d := x[i].Sub(x[j])
			rho[i] += vol * kr.W(physics.Norm(d))
		}
	}
	for i := range x {
		for j := range x {
			d := x[i].Sub(x[j])
			nrm[i] = nrm[i].Add(d.Mul(h * vol / rho[j] * kr.GradFactor(physics.Norm(d))))
		}
	}
	var coh, cur physics.Vec3 // the corner is particle 0
	for j := 1; j < len(x); j++ {
		d := x[0].Sub(x[j])
		r := physics.Norm(d)
		if r >= h {
			continue
		}
		k := 2 / (rho[0] + rho[j])
		coh = coh.Add(d.Mul(-k * vol * Cohesion(r, h) / r))
		cur = cur.Add(nrm[0].Sub(nrm[j]).Mul(-k))
	}
	return physics.Norm(coh), physics.Norm(cur)
}

// normalsBlock: n_i = h Σ_j (m_j/ρ_j) ∇W_ij over the neighbours j that take part (Eq. 3); h
// is the support radius and ∇W_ij = ∇_i W(x_i − x_j), which points from i towards j. So n_i
// points into the fluid, and its length grows from 0 in the bulk to about 1 at the surface;
// the curvature force uses only differences of normals. With this sign Eq. 4 rounds a cube
// of zero-gravity water by itself (cohesion off); with the opposite sign it tears it apart.
func (s *Solver) normalsBlock(lo, hi, blk int) {
	f, h := s.f, s.kr.H
	fblk := &s.ff.Blocks[blk]
	for i := lo; i < hi; i++ {
		if s.Gamma[i] == 0 {
			s.N[i] = physics.Vec3{}
			continue
		}
		js, gws := fblk.Row(i - lo)
		xi := &f.X[i]
		var nx, ny, nz float64
		for k, j := range js {
			if s.Gamma[j] == 0 {
				continue
			}
			v := f.M[j] / f.Rho[j]
			g := physics.Grad(gws[k], xi, &f.X[j])
			nx += v * g[0]
			ny += v * g[1]
			nz += v * g[2]
		}
		s.N[i] = physics.Vec3{h * nx, h * ny, h * nz}
	}
}

// accelBlock sums the pair accelerations of Eq. 5, K_ij (F_cohesion + F_curvature)/m_i, with
//
//	F_cohesion  = −γ m_i m_j C(|x_ij|) x_ij/|x_ij|             (Eq. 1, C of Eq. 2),
//	F_curvature = −γ m̄_ij (n_i − n_j)                          (Eq. 4),
//	K_ij        = 2ρ0/(ρ_i + ρ_j)                              (Eq. 5).
//
// The pair's γ is the mean of the particles' coefficients and its ρ0 the mean rest density, and
// the curvature term's mass is the pair mass m̄_ij = 2m_i m_j/(m_i + m_j) in place of the
// paper's m_i: the same where the particles have equal masses (one material at one spacing,
// the paper's setting), and in every case the pair forces are equal and opposite, so the
// surface tension changes neither linear momentum nor (the cohesion being central) the
// cohesion's angular momentum.
func (s *Solver) accelBlock(lo, hi, blk int) {
	f, h := s.f, s.kr.H
	fblk := &s.ff.Blocks[blk]
	for i := lo; i < hi; i++ {
		gi := s.Gamma[i]
		if gi == 0 {
			s.A[i] = physics.Vec3{}
			continue
		}
		xi, ni := f.X[i], s.N[i]
		mi, rhoi, rho0i := f.M[i], f.Rho[i], f.Rho0[i]
		js, _ := fblk.Row(i - lo)
		var ax, ay, az float64
		for _, j := range js {
			gj := s.Gamma[j]
			if gj == 0 {
				continue
			}
			gam := 0.5 * (gi + gj)
			mj := f.M[j]
			kij := (rho0i + f.Rho0[j]) / (rhoi + f.Rho[j]) // 2·½(ρ0_i+ρ0_j)/(ρ_i+ρ_j)
			xj, nj := &f.X[j], &s.N[j]
			rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			r := math.Sqrt(rx*rx + ry*ry + rz*rz)
			// cohesion per unit mass of i: −γ m_j C(r)/r · x_ij
			c := 0.0
			if r > 1e-9*h {
				c = -gam * mj * Cohesion(r, h) / r
			}
			// curvature per unit mass of i: −γ (m̄_ij/m_i)(n_i − n_j), m̄_ij/m_i = 2m_j/(m_i+m_j)
			cv := -gam * 2 * mj / (mi + mj)
			ax += kij * (c*rx + cv*(ni[0]-nj[0]))
			ay += kij * (c*ry + cv*(ni[1]-nj[1]))
			az += kij * (c*rz + cv*(ni[2]-nj[2]))
		}
		s.A[i] = physics.Vec3{ax, ay, az}
	}
}

func (s *Solver) applyBlock(lo, hi, _ int) {
	f, dt := s.f, s.dt
	for i := lo; i < hi; i++ {
		a := &s.A[i]
		v := &f.VStar[i]
		v[0] += dt * a[0]
		v[1] += dt * a[1]
		v[2] += dt * a[2]
	}
}
