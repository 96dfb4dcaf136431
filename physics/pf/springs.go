package pf

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// Springs are the Projective Dynamics distance constraints of cloth (S. Bouaziz, S. Martin,
// T. Liu, L. Kavan, M. Pauly, "Projective Dynamics: Fusing Constraint Projections for Fast
// Simulation", SIGGRAPH 2014, Sec. 5 "Springs"), solved in the same global system as the
// density constraints (the Projective Fluids paper's Fig. 1 right, Sec. 3.1: any constraint of
// the form of Eq. 3 can join the sum of Eq. 5).
//
// A spring between particles i and j with rest length L and weight w is the potential
// Z = w/2 ‖(x_i − x_j) − p‖², p = L (x_i − x_j)/‖x_i − x_j‖ the projection of the edge vector
// onto the sphere of radius L (Bouaziz et al. 2014, Eq. 9 with A_i = B_i = I and S_i the
// difference x_i − x_j). Its block of the global matrix of Eq. 5 is the constant
// w (e_i − e_j)(e_i − e_j)ᵀ ⊗ I₃, constant (Bouaziz et al.'s prefactorisation argument); its
// residual in row i is w (p − (x_i − x_j)), in row j the negative.
//
// The matrix. With the constant block, the local/global iteration is PD's fixed-point
// iteration, which converges linearly and slowly for stiff springs: a chain of 40 links with
// w = 10⁶ N/m (TestHangingChainMatchesCatenary) never met the tolerance in 30 iterations per
// substep and came to rest 11 % short of the catenary's sag. As for the density constraints
// (pf.go: D_i = n_i n_iᵀ instead of the paper's I), sluice keeps the potential and its
// residual and changes the matrix: the block is the Hessian of w/2 (l − L)², l = ‖x_i − x_j‖,
// K = w (n nᵀ + c (I − n nᵀ)) with n the unit edge direction and c = 1 − L/l clamped at 0
// (a compressed spring's transverse term is negative; leaving it out keeps the matrix
// positive definite), taken at the local step's iterate. The global step is then a Newton step
// of Eq. 4's energy, checked by the same line search; the chain converges in about 13 global
// steps and lands within 0.02 % of the catenary. Stretch springs run along the mesh edges;
// bending springs join the two vertices opposite an edge shared by two triangles (a distance
// constraint across the edge, as PBD cloth does: Müller et al. 2007, Sec. 4.2 lists it as the
// simple alternative to the dihedral constraint). A flat sheet resists bending through them
// only to second order in the fold angle.
//
// Fixed particles (pinned cloth vertices) are not unknowns of Eq. 5: their rows are left out
// of the system and their iterate stays at x⁽ⁿ⁾, so the solver's a_p = (x − s)/Δt² brings
// their velocity to zero.
//
// The springs are stored per particle in compressed rows over the packed particle order (each
// spring in both of its end points' rows), so every sum of the solver stays a gather in a
// fixed order.
type Springs struct {
	Start []int32   // springs of particle i: Start[i] … Start[i+1]−1 (len n+1)
	J     []int32   // the other end point
	L     []float64 // rest length (m)
	W     []float64 // weight w (N/m)
	Fixed []bool    // per particle: pinned (not an unknown); nil: none
	Sheet []bool    // per particle: a cloth vertex (contacts with the other particles); nil: none

	count []int32
	n     []physics.Vec3 // per row entry: unit edge direction at the local step's iterate
	c     []float64      // per row entry: transverse factor max(0, 1 − L/l) of the matrix block
}

// Edge is one spring given by its end points.
type Edge struct {
	I, J int32
	L, W float64
}

// Build sets the rows of n particles from the edge list (in packed indices), the fixed flags
// and the cloth vertex flags (nil: none; copied). Each particle's springs keep the edge list's
// order. It reuses the slices' storage.
func (sp *Springs) Build(n int, edges []Edge, fixed, sheet []bool) error {
	sp.count = grow(sp.count, n+1)
	clear(sp.count)
	for k, e := range edges {
		if e.I < 0 || int(e.I) >= n || e.J < 0 || int(e.J) >= n || e.I == e.J {
			return fmt.Errorf("spring %d: end points %d, %d are not two particles of [0, %d)", k, e.I, e.J, n)
		}
		if !(e.L > 0) || !(e.W > 0) || math.IsInf(e.L, 0) || math.IsInf(e.W, 0) {
			return fmt.Errorf("spring %d: rest length %g m and weight %g N/m must be positive and finite", k, e.L, e.W)
		}
		sp.count[e.I+1]++
		sp.count[e.J+1]++
	}
	sp.Start = grow(sp.Start, n+1)
	sp.Start[0] = 0
	for i := 0; i < n; i++ {
		sp.Start[i+1] = sp.Start[i] + sp.count[i+1]
	}
	m := int(sp.Start[n])
	sp.J, sp.L, sp.W = grow(sp.J, m), grow(sp.L, m), grow(sp.W, m)
	sp.n, sp.c = grow(sp.n, m), grow(sp.c, m)
	copy(sp.count, sp.Start[:n])
	for _, e := range edges {
		for _, a := range [2][2]int32{{e.I, e.J}, {e.J, e.I}} {
			k := sp.count[a[0]]
			sp.J[k], sp.L[k], sp.W[k] = a[1], e.L, e.W
			sp.count[a[0]]++
		}
	}
	sp.Fixed = sp.Fixed[:0]
	if fixed != nil {
		if len(fixed) != n {
			return fmt.Errorf("%d fixed flags for %d particles", len(fixed), n)
		}
		sp.Fixed = append(sp.Fixed, fixed...)
	}
	sp.Sheet = sp.Sheet[:0]
	if sheet != nil {
		if len(sheet) != n {
			return fmt.Errorf("%d cloth flags for %d particles", len(sheet), n)
		}
		sp.Sheet = append(sp.Sheet, sheet...)
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// SetSprings makes the next solves include the springs (nil: none). The rows must cover the
// FluidSet of the solves in its packed order; the solver reads them, the caller keeps them.
func (s *Solver) SetSprings(sp *Springs) {
	s.springs = sp
	if sp != nil && len(sp.Start) == 0 {
		s.springs = nil
	}
}

// contactFrac is the contact distance between a cloth vertex and any other particle as a
// fraction of the spacing 2r: 0.8·2r = 1.6r exceeds the distance √2·r from the centre of a
// square cell of the sheet (spacing 2r) to its corners, so a particle cannot slip through a
// cell stretched by less than 13 %; particles resting on the sheet (about 2r above it) do not
// touch it.
const contactFrac = 0.8

// sheet reports whether particle i is a cloth vertex.
func (s *Solver) sheet(i int) bool {
	sp := s.springs
	return sp != nil && len(sp.Sheet) > 0 && sp.Sheet[i]
}

// fixed reports whether particle i is pinned.
func (s *Solver) fixed(i int) bool {
	sp := s.springs
	return sp != nil && len(sp.Fixed) > 0 && sp.Fixed[i]
}

// springResid is the local step of particle i's springs: it adds them to the residual,
// diagonal and energy, r_i += Σ w (p − (x_i − x_j)), energy += Σ w/4 ‖(x_i − x_j) − p‖² (each
// spring is in two rows), and records the edge direction n and the transverse factor c of the
// spring's matrix block w (n nᵀ + c (I − n nᵀ)) (see matrixBlock) with its diagonal.
func (s *Solver) springResid(i int, r, a *physics.Vec3) float64 {
	sp := s.springs
	xi := s.x[i]
	var en float64
	for k := sp.Start[i]; k < sp.Start[i+1]; k++ {
		xj := &s.x[sp.J[k]]
		dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
		l := math.Sqrt(dx*dx + dy*dy + dz*dz)
		w := sp.W[k]
		c := 0.0 // (p − d) = (L/l − 1) d
		var n physics.Vec3
		if l > 0 {
			c = sp.L[k]/l - 1
			n = physics.Vec3{dx / l, dy / l, dz / l}
		}
		r[0] += w * c * dx
		r[1] += w * c * dy
		r[2] += w * c * dz
		ct := max(0, -c)
		sp.n[k], sp.c[k] = n, ct
		a[0] += w * (n[0]*n[0] + ct*(1-n[0]*n[0]))
		a[1] += w * (n[1]*n[1] + ct*(1-n[1]*n[1]))
		a[2] += w * (n[2]*n[2] + ct*(1-n[2]*n[2]))
		en += 0.25 * w * c * c * l * l
	}
	return en
}

// springApply adds particle i's springs to the matrix product: q_i += Σ K (d_i − d_j) with
// the block K = w (n nᵀ + c (I − n nᵀ)) of the local step (matrixBlock).
func (s *Solver) springApply(i int, q *physics.Vec3) {
	sp := s.springs
	di := s.d[i]
	for k := sp.Start[i]; k < sp.Start[i+1]; k++ {
		dj := &s.d[sp.J[k]]
		w, n, c := sp.W[k], &sp.n[k], sp.c[k]
		ex, ey, ez := di[0]-dj[0], di[1]-dj[1], di[2]-dj[2]
		nd := (1 - c) * (n[0]*ex + n[1]*ey + n[2]*ez)
		q[0] += w * (nd*n[0] + c*ex)
		q[1] += w * (nd*n[1] + c*ey)
		q[2] += w * (nd*n[2] + c*ez)
	}
}

// SpringStretch returns the largest relative stretch (‖x_i − x_j‖ − L)/L over the springs at
// the positions x.
func (sp *Springs) SpringStretch(x []physics.Vec3) float64 {
	var m float64
	for i := 0; i+1 < len(sp.Start); i++ {
		for k := sp.Start[i]; k < sp.Start[i+1]; k++ {
			l := math.Sqrt(physics.Dist2(x[i], x[sp.J[k]]))
			m = max(m, (l-sp.L[k])/sp.L[k])
		}
	}
	return m
}

// contactResid adds the contacts of particle i to its residual, diagonal and energy. A contact
// is a unilateral distance constraint (Bouaziz et al. 2014, Sec. 5, collisions as projections
// onto the admissible set) between a cloth vertex and another particle of its neighbour row,
// closer than the contact distance d: the potential w/2 (l − d)² for l < d, zero otherwise,
// w the density constraints' stiffness. Contacts are the only coupling of cloth with water and
// walls: cloth vertices are in no density constraint (localBlock). As members of them, the
// light vertices (0.5–1 g against 125 g water particles at r = 2.5 cm) made the Gauss–Newton
// model of those constraints so poor that the solves stalled (a sheet resting on a tank floor:
// 186 of 240 solves stopped at pfMaxIterations; with wall contacts instead, 36), and their
// gradient vanishes as two particles meet (the kernel is flat at r = 0), so a water particle
// pressed onto a vertex could pass it. Its block of the global matrix is w n nᵀ on
// (e_i − e_j) (the spring block with c = 0) while active; the pair scratch cn holds n, cw the
// weight (0: inactive), per neighbour pair.
func (s *Solver) contactResid(i int, js []int32, cn []physics.Vec3, cw []float64, r, a *physics.Vec3) float64 {
	si := s.sheet(i)
	xi := s.x[i]
	dmin := s.contact
	w := s.Stiffness
	var en float64
	for e, j := range js {
		cw[e] = 0
		if s.springs.Sheet[j] == si {
			continue
		}
		xj := &s.x[j]
		dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
		l := math.Sqrt(dx*dx + dy*dy + dz*dz)
		if l >= dmin || l == 0 {
			continue
		}
		n := physics.Vec3{dx / l, dy / l, dz / l}
		c := dmin/l - 1
		r[0] += w * c * dx
		r[1] += w * c * dy
		r[2] += w * c * dz
		en += 0.25 * w * (dmin - l) * (dmin - l)
		cn[e], cw[e] = n, w
		a[0] += w * n[0] * n[0]
		a[1] += w * n[1] * n[1]
		a[2] += w * n[2] * n[2]
	}
	return en
}

// contactApply adds particle i's active contacts to the matrix product.
func (s *Solver) contactApply(i int, js []int32, cn []physics.Vec3, cw []float64, q *physics.Vec3) {
	di := s.d[i]
	for e, j := range js {
		w := cw[e]
		if w == 0 {
			continue
		}
		dj, n := &s.d[j], &cn[e]
		nd := w * (n[0]*(di[0]-dj[0]) + n[1]*(di[1]-dj[1]) + n[2]*(di[2]-dj[2]))
		q[0] += nd * n[0]
		q[1] += nd * n[1]
		q[2] += nd * n[2]
	}
}

// wallResid adds particle i's contacts with the boundary samples of its row (a cloth vertex's;
// the samples at their end-of-step positions, never moved): the same unilateral constraint as
// contactResid with the sample fixed, so only row i carries the block w n nᵀ. cbw keeps
// w (d/l − 1) l, the force per unit of n, for the loads.
func (s *Solver) wallResid(i int, bs []int32, cbn []physics.Vec3, cbw []float64, r, a *physics.Vec3) float64 {
	xi := s.x[i]
	dmin := s.contact
	w := s.Stiffness
	var en float64
	for e, j := range bs {
		cbw[e] = 0
		xb := &s.xb[j]
		dx, dy, dz := xi[0]-xb[0], xi[1]-xb[1], xi[2]-xb[2]
		l := math.Sqrt(dx*dx + dy*dy + dz*dz)
		if l >= dmin || l == 0 {
			continue
		}
		n := physics.Vec3{dx / l, dy / l, dz / l}
		f := w * (dmin - l)
		r[0] += f * n[0]
		r[1] += f * n[1]
		r[2] += f * n[2]
		cbn[e], cbw[e] = n, f
		a[0] += w * n[0] * n[0]
		a[1] += w * n[1] * n[1]
		a[2] += w * n[2] * n[2]
		en += 0.5 * w * (dmin - l) * (dmin - l)
	}
	return en
}

// wallApply adds particle i's active wall contacts to the matrix product: q_i += w n (n·d_i).
func (s *Solver) wallApply(i int, cbn []physics.Vec3, cbw []float64, q *physics.Vec3) {
	di := s.d[i]
	w := s.Stiffness
	for e, f := range cbw {
		if f == 0 {
			continue
		}
		n := &cbn[e]
		nd := w * (n[0]*di[0] + n[1]*di[1] + n[2]*di[2])
		q[0] += nd * n[0]
		q[1] += nd * n[1]
		q[2] += nd * n[2]
	}
}

// wallLoads adds the reactions of cloth vertex i's wall contacts (the last local step's, at
// the final positions) to the loads of the samples' bodies: −f n on the sample.
func (s *Solver) wallLoads(i, lo, blk int, q []float64) {
	bbk := &s.fb.Blocks[blk]
	k := i - lo
	b0, b1 := int(bbk.Start[k]), int(bbk.Start[k+1])
	ob := s.offB[blk]
	for e, j := range bbk.J[b0:b1] {
		f := s.cbw[ob+b0+e]
		o := s.owner[j]
		if f == 0 || o < 0 {
			continue
		}
		n := &s.cbn[ob+b0+e]
		x := &s.b.X[j]
		ct := &s.centers[o]
		physics.AddLoad(q[6*o:], x[0]-ct[0], x[1]-ct[1], x[2]-ct[2], -f*n[0], -f*n[1], -f*n[2])
	}
}
