package flip

import "github.com/sluicephysics/sluice/physics/par"

// Solid particles are the particles of other simulations in the liquid (a world's SPH fluid,
// goo and solids): each takes its volume V_p out of the liquid's room and receives the
// pressure's reaction — the particle-sampled obstacles of §3.3 with the trilinear filter of
// Eq. 3.13. A particle at x_p fills the fraction V_p·T(x_s − x_p)/h³ of sample s (cells and
// the three face lattices), so it lowers the capacity ρ_max and the face fractions v_f as a
// blurred obstacle does (v = max(0, v_static − bodies − particles)). Its reaction is the part
// of the pressure impulse its fraction of each face blocks (as for Body): on face f (axis d)
// −h²·s_pf·(P_hi − P_lo) = −V_p·T(x_f − x_p)·(P_hi − P_lo)/h, summed over the faces of its
// stencil, the impulse −V_p·∇P(x_p) of a body of volume V_p in the pressure field (buoyancy in
// hydrostatic pressure).

// SetSolidParticles gives the solid particles of the next steps: positions x (m), volumes vol
// (m³), and imp, which Step sets to each particle's impulse (N·s). The slices are kept (not
// copied) and must have equal lengths; nil x means none.
func (s *Sim) SetSolidParticles(x []Vec3, vol []float64, imp []Vec3) {
	s.spX, s.spVol, s.spImp = x, vol, imp
}

// undoSolidParticles gives every sample the last step's solid particles touched its static
// fraction back (placeBodies then restores the bodies' samples the same way and lowers them
// by this step's bodies, and applySolidParticles lowers them by this step's particles: each
// step starts from the static fractions wherever anything was).
func (s *Sim) undoSolidParticles() {
	if !s.spOn {
		return
	}
	s.spApply = false
	s.pool.For(4*par.BlockSize, s.fnSolid)
}

// applySolidParticles rasterises the solid particles' volume fractions onto the four lattices
// (one task each, sequential in particle order: the sums do not depend on the worker count)
// and lowers the fractions and capacities by them.
func (s *Sim) applySolidParticles() {
	if len(s.spX) == 0 {
		s.spOn = false
		return
	}
	s.staticFractions()
	if s.spC == nil {
		s.spC = make([]float64, len(s.vc))
		for d := 0; d < 3; d++ {
			s.spF[d] = make([]float64, len(s.vf[d]))
		}
	}
	s.spApply = true
	s.pool.For(4*par.BlockSize, s.fnSolid)
	s.spOn = true
}

// solidBlock is one task of undoSolidParticles or applySolidParticles: block 0 the cells,
// blocks 1-3 the faces of component block−1.
func (s *Sim) solidBlock(_, _, b int) {
	inv := 1 / (s.g.H * s.g.H * s.g.H)
	frac, static, sp := s.vc, s.vcS, s.spC
	var l *Lattice = &s.cl
	if b > 0 {
		frac, static, sp, l = s.vf[b-1], s.vfS[b-1], s.spF[b-1], &s.fl[b-1]
	}
	if !s.spApply {
		for i, v := range sp {
			if v != 0 {
				frac[i] = static[i]
				if b == 0 {
					s.rhoMax[i] = s.p.Density * static[i]
				}
			}
		}
		return
	}
	clear(sp)
	for i, x := range s.spX {
		s.scatter(l, sp, nil, x, s.spVol[i]*inv, 0)
	}
	for i, v := range sp {
		if v != 0 {
			frac[i] = max(0, frac[i]-v)
			if b == 0 {
				s.rhoMax[i] = s.p.Density * frac[i]
			}
		}
	}
}

// solidReactions sets every solid particle's impulse: per face of its stencil on each face
// lattice, −V_p·T(x_f − x_p)·(P_hi − P_lo)/h along the face's axis (faces on the box walls have
// no cell beyond and give none).
func (s *Sim) solidReactions() {
	if len(s.spX) == 0 {
		return
	}
	s.pool.For(len(s.spX), s.fnSolidReact)
}

func (s *Sim) solidReactBlock(lo, hi, _ int) {
	h := s.g.H
	for i := lo; i < hi; i++ {
		x := s.spX[i]
		var j Vec3
		for d := 0; d < 3; d++ {
			l := &s.fl[d]
			st := s.g.makeStencil(l, x)
			stride := [3]int{1, s.g.N[0], s.g.N[0] * s.g.N[1]}[d]
			for c := 0; c < 2; c++ {
				for b := 0; b < 2; b++ {
					for a := 0; a < 2; a++ {
						ijk := [3]int{st.i0[0] + a, st.i0[1] + b, st.i0[2] + c}
						if ijk[0] < 0 || ijk[1] < 0 || ijk[2] < 0 || ijk[0] >= l.N[0] || ijk[1] >= l.N[1] || ijk[2] >= l.N[2] {
							continue
						}
						if ijk[d] == 0 || ijk[d] == s.g.N[d] {
							continue
						}
						w := st.w[0][a] * st.w[1][b] * st.w[2][c]
						hiC := s.cl.Index(ijk[0], ijk[1], ijk[2])
						j[d] -= w * (s.pw[hiC] - s.pw[hiC-stride])
					}
				}
			}
		}
		v := s.spVol[i] / h
		s.spImp[i] = Vec3{j[0] * v, j[1] * v, j[2] * v}
	}
}
