// Package elastic is implicit elastic SPH solids: A. Peer, C. Gissler, S. Band, M. Teschner,
// "An Implicit SPH Formulation for Incompressible Linearly Elastic Solids", Computer Graphics
// Forum 37(6), 2018.
//
// An elastic body keeps its initial (Lagrangian) neighbourhoods, found once at creation with
// the rest positions (§3.2, §4.1): the neighbour lists are symmetric (j lists i whenever i
// lists j), which makes the forces of Eq. 9 cancel in pairs: linear momentum is kept to
// round-off. Each step the
// deformation gradient F_i of Eq. 3 is formed with the kernel gradient corrected by L_i
// (Eq. 1-2; a pseudo-inverse where the rest neighbourhood is flat or a line), the rotation R_i
// is extracted from F_i (Müller et al. 2016, warm-started with the last step's rotation), and
// the rotated corrected gradients ∇*W of Eq. 4 are stored once per pair. The velocity system
// of Eq. 17 (with the intermediate velocity of Eq. 24 on the right-hand side) is then solved
// matrix-free by conjugate gradients: every product makes two passes over the pairs, the first
// forming the stress of Eq. 20-23 and 11, the second the force of Eq. 10 (Algorithm 2).
//
// The package knows nothing of the ECS or of the packed fluid: a Body works on its own
// particles in their own (creation) order, and the caller copies positions and velocities in
// and out. Loops run over fixed blocks of physics/par and reduce per-block partials in block
// order, so results do not depend on the number of workers.
package elastic

import (
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/vec"
	"github.com/sluicephysics/sluice/physics/par"
)

// Vec3 is physics.Vec3.
type Vec3 = physics.Vec3

// grad32 is a rotated kernel gradient stored in single precision, like the neighbour lists'
// pair data (physics.Neighbors): the CG passes stream two of them per pair per iteration, and
// halving their size halves the memory traffic that bounds those passes. Sums run in float64;
// a pair's two terms use the very same stored values, so the forces still cancel pairwise to
// float64 round-off and linear momentum is kept.
type grad32 = [3]float32

// Material holds the parameters of one solve. The moduli may change between steps (a body
// melts with G = K = 0 and pulls back to its rest shape when they rise again, §5.5).
type Material struct {
	G, K          float64 // shear and bulk modulus (Pa), Eq. 8
	Alpha         float64 // zero-energy-mode suppression factor (Ganzenmüller 2015); 0 = off
	Mass          float64 // particle mass m (kg), the same for every particle of the body (§4.3)
	MaxIterations int     // CG iteration cap
	MaxError      float64 // CG stop: average per-particle residual |r_i| (m/s), §4.3
	// RelError is the CG stop on the relative residual ‖b − A v‖₂/‖b‖₂ (dimensionless). The
	// absolute MaxError alone means little for slow bodies (a body moving at 1 mm/s meets
	// 1e-3 m/s with any v); a solve converges when both criteria hold. 0 disables it.
	RelError float64
}

// Young returns Young's modulus E = 9KG/(3K+G) (Pa) of the moduli.
func (m *Material) Young() float64 {
	if 3*m.K+m.G == 0 {
		return 0
	}
	return 9 * m.K * m.G / (3*m.K + m.G)
}

// Result describes one Solve.
type Result struct {
	Iterations int
	Residual   float64 // average |r_i| of the last iterate (m/s)
	// Relative is ‖r‖₂/‖b‖₂ of the last iterate (0 when b = 0 and r = 0), from the CG's
	// recursively updated residual.
	Relative  float64
	Converged bool
}

// Body is the elastic state of one body: its rest neighbourhoods and correction matrices
// (constant), its rotations (warm start of the next extraction) and the solver's scratch.
type Body struct {
	n      int
	vol    float64  // rest volume V⁰ of every particle (m³), §4.3
	start  []int32  // pairs of particle i: start[i] ≤ k < start[i+1]
	nbr    []int32  // neighbour j of pair k
	l      []mat3   // correction matrix L_i of Eq. 1
	q      []quat   // rotation R_i of the last step, as a quaternion
	pinned []bool   // pinned particles keep zero velocity
	corr   []grad32 // L_i ∇W(x⁰_ij) of Eq. 2 per pair, constant
	// corrRev is L_j ∇W(x⁰_ji) per pair (i, j): corr of the reverse pair, constant, so that
	// each step's reverse gradients R_j L_j ∇W(x⁰_ji) are formed in the pairs' order.
	corrRev []grad32
	rest    []Vec3 // the rest positions x⁰; a pair's rest vector x⁰_ji is restVec (not stored per pair)

	// Scratch of one solve.
	gs      []grad32        // ∇*W_i(x⁰_ij) of Eq. 4 per pair
	gsRev   []grad32        // ∇*W_j(x⁰_ji) per pair (i, j): R_j corrRev, bit for bit gs of the reverse pair, in the pairs' order for the force pass
	gsum    [][4]float64    // Σ_j ∇*W_i(x⁰_ij) per particle (of the stored float32 values; the fourth entry unused)
	rc      [][12]float64   // R_i by columns for vec.RotateGradsRows
	stress  []vec.StressRow // symmetric P_i in the layout of vec.StressRow, one row more than particles (the force pass's loop reads past the last)
	fg      []mat3          // F_i of Eq. 3 from the rotation pass (the zero-energy-mode force's prediction)
	b, r, p []Vec3
	ap      []Vec3
	partA   []float64
	partB   []float64
	partC   []float64

	// Arguments of the block loops in flight, stored so the method values below need no
	// closure (a solve allocates nothing).
	kernel       physics.Kernel
	noCorrection bool
	x, v, src    []Vec3
	dt           float64
	mat          Material
	step, beta   float64

	fnRot, fnStressX, fnForce, fnStressP, fnAp, fnInit, fnUpd, fnDir, fnRev func(lo, hi, blk int)
}

// Options are the creation settings of a Body.
type Options struct {
	// NoCorrection leaves out the kernel-gradient correction (L_i = I): the ablation of §5.1,
	// under which rotations are misread as deformation and a spinning body is pulled back.
	NoCorrection bool
	// Pinned marks particles held in place (nil: none).
	Pinned []bool
	// AllowIsolated accepts particles without rest neighbours (after others were removed):
	// they get no elastic force instead of an error.
	AllowIsolated bool
}

// NeighborError reports a particle with no rest neighbour: its deformation gradient is
// undefined (the correction matrix of Eq. 1 is zero).
type NeighborError struct {
	Particle int
}

func (e *NeighborError) Error() string {
	return fmt.Sprintf("particle %d has no neighbour within the support radius at rest, so its deformation gradient (Eq. 3) is undefined", e.Particle)
}

// New builds a body from its rest positions x0: the symmetric rest neighbourhoods within the
// kernel support, the rest vectors, and L_i of Eq. 1 (the Moore-Penrose pseudo-inverse when the
// matrix is singular, e.g. for a one-layer sheet). vol is every particle's rest volume (§4.3:
// equal masses and volumes make the system of Eq. 17 symmetric). Rotations start at identity.
func New(x0 []Vec3, vol float64, kr *physics.Kernel, opt Options) (*Body, error) {
	n := len(x0)
	if opt.Pinned != nil && len(opt.Pinned) != n {
		return nil, fmt.Errorf("elastic: %d pinned flags for %d particles", len(opt.Pinned), n)
	}
	bd := &Body{n: n, vol: vol, noCorrection: opt.NoCorrection}
	bd.fnRot, bd.fnStressX, bd.fnForce = bd.rotBlock, bd.stressXBlock, bd.forceBlock
	bd.fnStressP, bd.fnAp, bd.fnUpd, bd.fnDir, bd.fnInit = bd.stressPBlock, bd.apBlock, bd.updBlock, bd.dirBlock, bd.initBlock
	bd.fnRev = bd.revBlock
	bd.pinned = make([]bool, n)
	copy(bd.pinned, opt.Pinned)
	bd.rest = slices.Clone(x0)
	rev := bd.findNeighbors(x0, kr.H)
	bd.q = make([]quat, n)
	bd.l = make([]mat3, n)
	for i := 0; i < n; i++ {
		bd.q[i] = quat{1, 0, 0, 0}
		if bd.start[i+1] == bd.start[i] {
			if !opt.AllowIsolated {
				return nil, &NeighborError{Particle: i}
			}
			continue // L_i = 0: F_i = 0 and the force terms of its (empty) row vanish
		}
		// Eq. 1: Σ_j V_j ∇W(x⁰_ij) ⊗ x⁰_ji. ∇W(x⁰_ij) = −g x⁰_ji with g = W'(r)/r ≤ 0, so the
		// sum is Σ_j V_j |g| x⁰_ji x⁰_jiᵀ: symmetric and positive semi-definite, and its
		// pseudo-inverse follows from an eigen-decomposition.
		var a mat3
		for k := bd.start[i]; k < bd.start[i+1]; k++ {
			d := bd.restVec(i, k)
			c := -vol * kr.GradFactor(physics.Norm(d))
			for r := 0; r < 3; r++ {
				for s := 0; s < 3; s++ {
					a[3*r+s] += c * d[r] * d[s]
				}
			}
		}
		if opt.NoCorrection {
			bd.l[i] = identity()
			continue
		}
		// Eigenvalues below 1e-8 of the largest are round-off of an exactly flat or linear
		// neighbourhood (a sheet, a rod): their direction carries no information.
		bd.l[i], _ = pseudoInverseSym(&a, 1e-8)
	}
	// The corrected gradients L_i ∇W(x⁰_ij) of Eq. 2 are constant (Lagrangian SPH): stored
	// once, rotated each step into gs (Eq. 4), which the CG passes read.
	bd.corr = make([]grad32, len(bd.nbr)+1) // one more: vec.OuterSums reads four single-precision values
	for i := 0; i < n; i++ {
		for k := bd.start[i]; k < bd.start[i+1]; k++ {
			d := bd.restVec(i, k)
			l := &bd.l[i]
			// ∇W(x⁰_ij) = g·x⁰_ij = −g·x⁰_ji.
			g := -kr.GradFactor(math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2]))
			wx, wy, wz := g*d[0], g*d[1], g*d[2]
			bd.corr[k] = grad32{float32(l[0]*wx + l[1]*wy + l[2]*wz), float32(l[3]*wx + l[4]*wy + l[5]*wz), float32(l[6]*wx + l[7]*wy + l[8]*wz)}
		}
	}
	bd.corrRev = make([]grad32, len(bd.nbr))
	for k, r := range rev {
		bd.corrRev[k] = bd.corr[r]
	}
	// one entry more than pairs: the product loops read a gradient as four single-precision
	// values (vec.OuterSums, vec.StressDiv)
	bd.gs = make([]grad32, len(bd.nbr)+1)
	bd.gsRev = make([]grad32, len(bd.nbr)+1)
	bd.stress = make([]vec.StressRow, n+1)
	bd.gsum = make([][4]float64, n)
	bd.rc = make([][12]float64, n)
	bd.fg = make([]mat3, n)
	bd.b, bd.r, bd.p, bd.ap = make([]Vec3, n), make([]Vec3, n), make([]Vec3, n), make([]Vec3, n)
	nb := par.Blocks(n)
	bd.partA, bd.partB, bd.partC = make([]float64, nb), make([]float64, nb), make([]float64, nb)
	bd.kernel = *kr
	return bd, nil
}

// findNeighbors fills the symmetric rest neighbourhoods: all pairs closer than h, found through
// a sorted cell list, each particle's list in increasing j. It returns, per pair (i, j), the
// index of the pair (j, i) in j's list.
func (bd *Body) findNeighbors(x0 []Vec3, h float64) []int32 {
	n := len(x0)
	type cellIdx struct {
		c [3]int64
		i int32
	}
	cells := make([]cellIdx, n)
	for i, x := range x0 {
		cells[i] = cellIdx{[3]int64{int64(math.Floor(x[0] / h)), int64(math.Floor(x[1] / h)), int64(math.Floor(x[2] / h))}, int32(i)}
	}
	cmpCell := func(a, b [3]int64) int {
		for d := 0; d < 3; d++ {
			if a[d] != b[d] {
				if a[d] < b[d] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	slices.SortFunc(cells, func(a, b cellIdx) int {
		if c := cmpCell(a.c, b.c); c != 0 {
			return c
		}
		return int(a.i - b.i)
	})
	h2 := h * h
	bd.start = make([]int32, n+1)
	var row []int32
	for i := 0; i < n; i++ {
		row = row[:0]
		xi := x0[i]
		ci := [3]int64{int64(math.Floor(xi[0] / h)), int64(math.Floor(xi[1] / h)), int64(math.Floor(xi[2] / h))}
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					c := [3]int64{ci[0] + dx, ci[1] + dy, ci[2] + dz}
					lo, _ := slices.BinarySearchFunc(cells, c, func(e cellIdx, t [3]int64) int { return cmpCell(e.c, t) })
					for k := lo; k < n && cells[k].c == c; k++ {
						j := cells[k].i
						if int(j) == i {
							continue
						}
						if physics.Dist2(xi, x0[j]) < h2 {
							row = append(row, j)
						}
					}
				}
			}
		}
		slices.Sort(row)
		bd.nbr = append(bd.nbr, row...)
		bd.start[i+1] = int32(len(bd.nbr))
	}
	// Dist2 is symmetric bit for bit, so j lists i whenever i lists j; rev links the two.
	rev := make([]int32, len(bd.nbr))
	for i := 0; i < n; i++ {
		for k := bd.start[i]; k < bd.start[i+1]; k++ {
			j := bd.nbr[k]
			row := bd.nbr[bd.start[j]:bd.start[j+1]]
			m, ok := slices.BinarySearch(row, int32(i))
			if !ok {
				panic("elastic: rest neighbourhoods are not symmetric")
			}
			rev[k] = bd.start[j] + int32(m)
		}
	}
	return rev
}

// restVec returns the rest vector x⁰_ji = x⁰_j − x⁰_i of pair k of particle i (j = nbr[k]),
// formed from the rest positions: 24 bytes per particle instead of per pair.
func (bd *Body) restVec(i int, k int32) Vec3 {
	xi, xj := &bd.rest[i], &bd.rest[bd.nbr[k]]
	return Vec3{xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]}
}
