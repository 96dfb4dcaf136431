package reduced

// advanceFluid advances the reduced coefficients by dt with Eq. 5.9,
//
//	r(t+Δt) = exp(Δt (ν D̃ + Ã(r(t)))) r(t),
//
// where Ã = Σ_i r_i Ã_{b_i} (Eq. 5.8) is frozen at the start of the step. The matrix
// exponential times r is the truncated Taylor series Σ_{m=0}^{p} (Δt M)^m r / m! evaluated by
// the iteration term ← Δt M term / m ("iterative Taylor approximation", Wicke et al. 2009),
// p = Config.TaylorOrder.
//
// Energy: Ã is antisymmetric (⟨b_k,(u·∇)b_j⟩ = −⟨b_j,(u·∇)b_k⟩ for divergence-free u tangent
// to the walls), so the exact exponential of ΔtÃ is orthogonal and keeps ½|r|² exactly. The
// truncated series does not: with T_p the degree-p Taylor polynomial and A = ΔtÃ,
// T_pᵀT_p − I starts at degree 2⌊p/2⌋+2 (for p = 4 it is A⁶/72, i.e. the energy falls by
// Δt⁶|Ã³r|²/144 per step), so inviscid energy drifts at global order 2⌊p/2⌋+1 in Δt (measured
// by TestInviscidEnergyDriftOrder). Nothing renormalises it.
func (d *Domain) advanceFluid(dt float64) {
	b := d.b
	n := b.n
	m := d.mat
	nu := d.cfg.Viscosity
	for i, v := range b.dtil {
		m[i] = nu * v
	}
	r := d.r
	for i := 0; i < n; i++ {
		ri := r[i]
		if ri == 0 {
			continue
		}
		for e := b.tstart[i]; e < b.tstart[i+1]; e++ {
			m[int(b.tk[e])*n+int(b.tj[e])] += ri * b.tv[e]
		}
	}
	term, next, acc := d.term, d.next, d.acc
	copy(term, r)
	copy(acc, r)
	for k := 1; k <= d.cfg.TaylorOrder; k++ {
		s := dt / float64(k)
		for i := 0; i < n; i++ {
			row := m[i*n : (i+1)*n]
			v := 0.0
			for j, x := range row {
				v += x * term[j]
			}
			next[i] = s * v
		}
		term, next = next, term
		for i, x := range term {
			acc[i] += x
		}
	}
	copy(r, acc)
}

// Energy returns ½Σ r_k², the kinetic energy per unit density ½∫|u|² dA (m⁴/s²) of the reduced
// field: the basis is orthonormal, so this is exact (Eq. 5.3).
func (d *Domain) Energy() float64 {
	e := 0.0
	for _, x := range d.r {
		e += x * x
	}
	return e / 2
}
