package flip

import "math"

// Body is a moving solid in the liquid for the next Step (a rigid body of a world): an
// obstacle blurred with the filter of Eq. 3.13 like the static ones, but re-blurred every step
// at the body's pose at the end of the step, and one that receives the pressure's reaction.
//
// Coupling (two-way, one step): the liquid's capacity ρ_max = ρ·v_c (Eq. 3.13) is reduced by
// the body's solid fraction where it will be, so the solve of Eq. 3.3-3.7 pushes the liquid
// out of the space the body moves into; faces the body closes completely take its velocity
// (the particles next to it move with it, as the box walls' faces do with wallVelocities);
// particles are clipped against it (§3.2.4). The reaction is the pressure impulse the body's
// fraction of each face blocks: on face f (axis d) between cells lo and hi the liquid is
// pushed by −h²·v_f·(P_hi − P_lo) (Eq. 3.8 times the face's mass ρ_f·h³, P the pressure
// impulse p·Δt), and of the open face's −h²·(P_hi − P_lo) the part h²·s_f·(P_hi − P_lo) that
// the body's solid fraction s_f = 1 − v_f removes is the force the body takes instead:
// Impulse_d = −Σ_f h²·s_f·(P_hi − P_lo), AngularImpulse = Σ_f (x_f − Center) × (that face's
// impulse). Summed by parts it is −Σ_cells P_c·h²·(s_upper − s_lower) along each axis, the
// discrete −∮ p·n dA over the body's blurred surface, so a body at rest in hydrostatic
// pressure takes the weight of the liquid it displaces (Archimedes).
type Body struct {
	// SDF returns the signed distance of x to the body's surface at its end-of-step pose
	// (negative inside) and the outward unit normal there.
	SDF func(x Vec3) (float64, Vec3)
	// Min and Max bound the body at its end-of-step pose (m).
	Min, Max Vec3
	// Center is the torque reference (the centre of mass, m); V and W are the velocity of the
	// centre (m/s) and the angular velocity (rad/s): faces the body closes move with
	// V + W × (x − Center).
	Center, V, W Vec3

	// Impulse and AngularImpulse are set by Step: the pressure's impulse on the body over the
	// step (N·s) and its angular impulse about Center (N·m·s).
	Impulse, AngularImpulse Vec3
}

// bodyFace is one sample (cell or face) a body's filter support reaches, with the body's
// solid fraction there.
type bodyFace struct {
	idx int32
	s   float64
}

// bodyState is the per-step scratch of one Body: its solid fractions on the cell lattice and
// the three face lattices.
type bodyState struct {
	cells []bodyFace
	faces [3][]bodyFace
}

// SetBodies gives the moving solids of the next steps (nil: none). The slice is kept (not
// copied); Step reads the poses and writes the impulses of its elements, so a caller updates
// them in place between steps.
func (s *Sim) SetBodies(b []Body) {
	s.bodies = b
	for len(s.bstate) < len(b) {
		s.bstate = append(s.bstate, bodyState{})
	}
}

// staticFractions saves the static obstacles' volume fractions the first time bodies are
// used, so every step can start from them.
func (s *Sim) staticFractions() {
	if s.vcS != nil {
		return
	}
	s.vcS = append([]float64(nil), s.vc...)
	for d := 0; d < 3; d++ {
		s.vfS[d] = append([]float64(nil), s.vf[d]...)
	}
}

// placeBodies restores the static fractions where the bodies of the last step were, blurs
// every body at its pose (Eq. 3.13: the trilinear-weighted solid fraction of the filter's
// support, by the same sampling as the static obstacles) and lowers the fractions and the
// capacity ρ_max by it: v = max(0, v_static − Σ_bodies s).
func (s *Sim) placeBodies() {
	if len(s.bodies) == 0 && len(s.bstate) == 0 {
		return
	}
	s.staticFractions()
	for k := range s.bstate {
		st := &s.bstate[k]
		for _, e := range st.cells {
			s.vc[e.idx] = s.vcS[e.idx]
			s.rhoMax[e.idx] = s.p.Density * s.vcS[e.idx]
		}
		st.cells = st.cells[:0]
		for d := 0; d < 3; d++ {
			for _, e := range st.faces[d] {
				s.vf[d][e.idx] = s.vfS[d][e.idx]
			}
			st.faces[d] = st.faces[d][:0]
		}
	}
	for k := range s.bodies {
		b := &s.bodies[k]
		st := &s.bstate[k]
		st.cells = s.g.solidFractions(&s.cl, b, st.cells)
		for _, e := range st.cells {
			s.vc[e.idx] = max(0, s.vc[e.idx]-e.s)
			s.rhoMax[e.idx] = s.p.Density * s.vc[e.idx]
		}
		for d := 0; d < 3; d++ {
			st.faces[d] = s.g.solidFractions(&s.fl[d], b, st.faces[d])
			for _, e := range st.faces[d] {
				s.vf[d][e.idx] = max(0, s.vf[d][e.idx]-e.s)
			}
		}
	}
}

// supportReach is the distance from a sample to the farthest point of its filter support,
// in cells: the corners of [−h, h]³ are √3·h away.
var supportReach = math.Sqrt(3)

// solidFractions appends to out the body's solid fraction at every sample of lattice l whose
// filter support [−h, h]³ meets the body's bounds (samples with a zero fraction are left
// out): ∫T(x − x_c)·[inside](x) dV / ∫T(x − x_c) dV with the quadrature of fractions.
func (g *Grid) solidFractions(l *Lattice, b *Body, out []bodyFace) []bodyFace {
	h := g.H
	const m = 2 * fractionSamples
	var off, wt [m]float64
	den := 0.0
	for a := 0; a < m; a++ {
		t := (float64(a)+0.5)/fractionSamples - 1
		off[a] = t * h
		wt[a] = 1 - math.Abs(t)
		den += wt[a]
	}
	den = den * den * den
	var lo, hi [3]int
	for d := 0; d < 3; d++ {
		// samples whose support (centre ± h) overlaps [Min, Max]
		lo[d] = max(0, int(math.Floor((b.Min[d]-g.Origin[d])/h-l.Off[d]-1)))
		hi[d] = min(l.N[d]-1, int(math.Ceil((b.Max[d]-g.Origin[d])/h-l.Off[d]+1)))
	}
	for k := lo[2]; k <= hi[2]; k++ {
		for j := lo[1]; j <= hi[1]; j++ {
			for i := lo[0]; i <= hi[0]; i++ {
				c := Vec3{g.Origin[0] + h*(float64(i)+l.Off[0]), g.Origin[1] + h*(float64(j)+l.Off[1]), g.Origin[2] + h*(float64(k)+l.Off[2])}
				// A support (the cube c ± h, whose corners are √3·h from c) entirely inside or
				// outside the body needs no sampling: its fraction is 1 or 0.
				if dc, _ := b.SDF(c); dc < -supportReach*h {
					out = append(out, bodyFace{idx: int32(l.Index(i, j, k)), s: 1})
					continue
				} else if dc > supportReach*h {
					continue
				}
				num := 0.0
				for c2 := 0; c2 < m; c2++ {
					z := c[2] + off[c2]
					if z < b.Min[2] || z > b.Max[2] {
						continue
					}
					for bb := 0; bb < m; bb++ {
						y := c[1] + off[bb]
						if y < b.Min[1] || y > b.Max[1] {
							continue
						}
						for a := 0; a < m; a++ {
							x := c[0] + off[a]
							if x < b.Min[0] || x > b.Max[0] {
								continue
							}
							if d, _ := b.SDF(Vec3{x, y, z}); d < 0 {
								num += wt[a] * wt[bb] * wt[c2]
							}
						}
					}
				}
				if num > 0 {
					out = append(out, bodyFace{idx: int32(l.Index(i, j, k)), s: num / den})
				}
			}
		}
	}
	return out
}

// bodyVelocities gives every face a body closes completely (v_f = 0 there) the body's
// velocity, after the solve: particles next to the body then interpolate its motion.
func (s *Sim) bodyVelocities() {
	for k := range s.bodies {
		b := &s.bodies[k]
		for d := 0; d < 3; d++ {
			l := &s.fl[d]
			for _, e := range s.bstate[k].faces[d] {
				f := int(e.idx)
				if s.vf[d][f] > 0 {
					continue
				}
				x := s.sampleAt(l, f)
				r := Vec3{x[0] - b.Center[0], x[1] - b.Center[1], x[2] - b.Center[2]}
				w := b.W
				v := [3]float64{b.V[0] + w[1]*r[2] - w[2]*r[1], b.V[1] + w[2]*r[0] - w[0]*r[2], b.V[2] + w[0]*r[1] - w[1]*r[0]}
				s.uf[d][f] = v[d]
			}
		}
	}
}

// sampleAt returns the position of sample f of lattice l.
func (s *Sim) sampleAt(l *Lattice, f int) Vec3 {
	nx, ny := l.N[0], l.N[1]
	i, j, k := f%nx, (f/nx)%ny, f/(nx*ny)
	h := s.g.H
	return Vec3{s.g.Origin[0] + h*(float64(i)+l.Off[0]), s.g.Origin[1] + h*(float64(j)+l.Off[1]), s.g.Origin[2] + h*(float64(k)+l.Off[2])}
}

// bodyReactions sets every body's Impulse and AngularImpulse from the step's pressure
// impulses (see Body): per face the body's fraction reaches, −h²·s_f·(P_hi − P_lo) along the
// face's axis, applied at the face.
func (s *Sim) bodyReactions() {
	h2 := s.g.H * s.g.H
	for k := range s.bodies {
		b := &s.bodies[k]
		var j, l Vec3
		for d := 0; d < 3; d++ {
			fl := &s.fl[d]
			stride := [3]int{1, s.g.N[0], s.g.N[0] * s.g.N[1]}[d]
			for _, e := range s.bstate[k].faces[d] {
				f := int(e.idx)
				nx, ny := fl.N[0], fl.N[1]
				ijk := [3]int{f % nx, (f / nx) % ny, f / (nx * ny)}
				if ijk[d] == 0 || ijk[d] == s.g.N[d] {
					continue // a face on the box wall: no cell beyond it
				}
				hi := s.cl.Index(ijk[0], ijk[1], ijk[2])
				imp := -h2 * e.s * (s.pw[hi] - s.pw[hi-stride])
				if imp == 0 {
					continue
				}
				j[d] += imp
				x := s.sampleAt(fl, f)
				r := Vec3{x[0] - b.Center[0], x[1] - b.Center[1], x[2] - b.Center[2]}
				var fi Vec3
				fi[d] = imp
				l[0] += r[1]*fi[2] - r[2]*fi[1]
				l[1] += r[2]*fi[0] - r[0]*fi[2]
				l[2] += r[0]*fi[1] - r[1]*fi[0]
			}
		}
		b.Impulse, b.AngularImpulse = j, l
	}
}

// inBody reports whether x lies inside a body, and the index of the first such body.
func (s *Sim) inBody(x Vec3) int {
	for k := range s.bodies {
		b := &s.bodies[k]
		if x[0] < b.Min[0] || x[1] < b.Min[1] || x[2] < b.Min[2] || x[0] > b.Max[0] || x[1] > b.Max[1] || x[2] > b.Max[2] {
			continue
		}
		if d, _ := b.SDF(x); d < 0 {
			return k
		}
	}
	return -1
}
