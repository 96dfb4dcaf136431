// Package micropolar is the micropolar fluid model of Bender, Koschier, Kugelstadt and Weiler
// ("Turbulent Micropolar SPH Fluids with Foam", IEEE TVCG 25(6), 2019; first as "A Micropolar
// Material Model for Turbulent SPH Fluids", SCA 2017). Every particle carries a microrotation
// ω (an angular velocity, 1/s) besides its velocity v. The paper's modified, inviscid
// micropolar model (its Eq. 9 for v and Eq. 10 for ω, the non-dissipative coupling that
// replaces the classical model's μ_t∇²v term) reads, per unit mass,
//
//	Dv/Dt = −∇p/ρ + ν_t ∇×ω + g,
//	Θ Dω/Dt = ν_t (∇×v − 2ω) + ζ ∇²ω,
//
// with ν_t the vorticity (coupling) coefficient in m²/s, Θ the microinertia (m², its inverse
// Θ⁻¹ in 1/m² is the parameter) and ζ the angular viscosity. Where the flow is a rigid
// rotation with angular velocity Ω (vorticity ∇×v = 2Ω) the ω equation relaxes ω to
// ∇×v/2 = Ω at the rate 2Θ⁻¹ν_t; the linear equation then receives ν_t∇×ω, which restores the
// vorticity that SPH's numerical diffusion removes.
//
// # Discretisation
//
// The curls are evaluated pair by pair with the symmetric pair volume V_ij = 2m_j/(ρ_i + ρ_j)
// (m_j/ρ_j where the densities match) and the pair's mean coefficient ν_t,ij:
//
//	a_i = −Σ_j ν_t,ij V_ij (ω_i + ω_j) × ∇W_ij                                  (≈ ν_t ∇×ω)
//	τ_i = −Σ_j ν_t,ij V_ij (v_i + v_j) × ∇W_ij
//	      + ½ Σ_j ν_t,ij V_ij x_ij × ((ω_i + ω_j) × ∇W_ij)                       (≈ ν_t(∇×v − 2ω))
//	ω_i ← ω_i + Δt Θ_i⁻¹ τ_i
//
// Inside the fluid Σ_j V_j ∇W_ij ≈ 0, and −Σ_j V_j (A_i + A_j) × ∇W_ij ≈ ∇×A there; with
// Σ_j V_j x_ij ⊗ ∇W_ij ≈ −I the second torque sum is ≈ −2ν_t ω_i. These "sum" forms make
// every pair's exchange exact: the linear pair forces m_i a_i are equal and opposite, the ∇×v
// torques of i and j cancel, and the micro torques ½(…) of i and j together are minus the
// moment x_ij × m_i a_i of the pair's linear force. So linear momentum Σ m v and the total
// angular momentum of the micropolar medium, Σ m_i (x_i × v_i) + Σ m_i Θ_i ω_i (the paper's
// conservation property; with one Θ per pair), are kept to rounding by these terms. (The
// reference implementation uses the difference curl Σ_j (m_j/ρ_i)(A_i − A_j) × ∇W_ij, which is
// more accurate at a free surface but does not balance there.) The price of the sum forms is
// at the free surface, where Σ_j V_j ∇W_ij ≠ 0: the zero-extended field's surface jump shows
// in the curl (as in the continuum, where ∫∇×v dV over all space vanishes), so surface
// particles of a rotating drop read less (or opposite) vorticity than inner ones.
//
// The angular viscosity ζ∇²ω is applied as the reference implementation applies it: as an XSPH
// smoothing of ω, ω_i −= ε_ω Σ_j V_ij (ω_i − ω_j) W_ij per step, with the dimensionless
// ε_ω = Θ⁻¹ζ (the reference's viscosityOmega times inertiaInverse); a diffusion whose
// coefficient is of order ε_ω h²/Δt. It is pairwise antisymmetric, so it keeps Σ m Θ ω.
//
// Every term is explicit (v, ω of the start of the step); the new ω is written to a second
// buffer, so the result does not depend on the order or number of workers.
package micropolar

import (
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Coeffs are one material's micropolar coefficients.
type Coeffs struct {
	NuT      float64 // vorticity coupling coefficient ν_t (m²/s); 0: no micropolar forces
	InvTheta float64 // inverse microinertia Θ⁻¹ (1/m²)
	Smooth   float64 // ε_ω, the per-step XSPH fraction smoothing ω (1), Θ⁻¹ζ
}

// Model holds the scratch buffer of the micropolar step. The zero value is ready to use; a
// Model must not be copied.
type Model struct {
	next []physics.Vec3

	f     *physics.FluidSet
	ff    *physics.Neighbors
	coef  []Coeffs
	owner []int32
	dt    float64
	fn    func(lo, hi, block int)
}

// Step adds Δt·a_i (the paper's ν_t∇×ω) to f.VStar and advances f.Omega by the torque
// equation, from f.V and f.Omega of the start of the step. coef holds the coefficients per
// body slot and owner the slot of every packed particle.
func (m *Model) Step(f *physics.FluidSet, ff *physics.Neighbors, coef []Coeffs, owner []int32, dt float64, pool *par.Pool) {
	if m.fn == nil {
		m.fn = m.block
	}
	n := f.Len()
	f.EnsureOmega()
	m.next = par.Grow(m.next, n)
	m.f, m.ff, m.coef, m.owner, m.dt = f, ff, coef, owner, dt
	pool.For(n, m.fn)
	copy(f.Omega, m.next[:n])
	m.f, m.ff, m.coef, m.owner = nil, nil, nil, nil
}

func (m *Model) block(lo, hi, blk int) {
	f, dt := m.f, m.dt
	fblk := &m.ff.Blocks[blk]
	for i := lo; i < hi; i++ {
		ci := &m.coef[m.owner[i]]
		xi, vi, wi := f.X[i], f.V[i], f.Omega[i]
		var ax, ay, az, tx, ty, tz, sx, sy, sz float64
		js, ws, gws := fblk.RowW(i - lo)
		for k, j := range js {
			cj := &m.coef[m.owner[j]]
			nu := 0.5 * (ci.NuT + cj.NuT)
			eps := 0.5 * (ci.Smooth + cj.Smooth)
			if nu == 0 && eps == 0 {
				continue
			}
			pv := 2 * f.M[j] / (f.Rho[i] + f.Rho[j])
			wj := &f.Omega[j]
			if eps != 0 {
				c := eps * pv * float64(ws[k])
				sx -= c * (wi[0] - wj[0])
				sy -= c * (wi[1] - wj[1])
				sz -= c * (wi[2] - wj[2])
			}
			if nu == 0 {
				continue
			}
			xj := &f.X[j]
			rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			gk := float64(gws[k]) // ∇W_ij = G_ij x_ij
			gx, gy, gz := gk*rx, gk*ry, gk*rz
			c := nu * pv
			// (ω_i + ω_j) × ∇W_ij
			ox, oy, oz := wi[0]+wj[0], wi[1]+wj[1], wi[2]+wj[2]
			qx, qy, qz := oy*gz-oz*gy, oz*gx-ox*gz, ox*gy-oy*gx
			ax -= c * qx
			ay -= c * qy
			az -= c * qz
			// ½ x_ij × ((ω_i + ω_j) × ∇W_ij): minus half the moment of the pair's force
			h := 0.5 * c
			tx += h * (ry*qz - rz*qy)
			ty += h * (rz*qx - rx*qz)
			tz += h * (rx*qy - ry*qx)
			// −(v_i + v_j) × ∇W_ij
			vj := &f.V[j]
			ux, uy, uz := vi[0]+vj[0], vi[1]+vj[1], vi[2]+vj[2]
			tx -= c * (uy*gz - uz*gy)
			ty -= c * (uz*gx - ux*gz)
			tz -= c * (ux*gy - uy*gx)
		}
		v := &f.VStar[i]
		v[0] += dt * ax
		v[1] += dt * ay
		v[2] += dt * az
		it := dt * ci.InvTheta
		m.next[i] = physics.Vec3{wi[0] + it*tx + sx, wi[1] + it*ty + sy, wi[2] + it*tz + sz}
	}
}
