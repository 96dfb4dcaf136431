package physics

import (
	"math"

	"github.com/sluicephysics/sluice/physics/par"
)

// FluidSet is the packed state of all dynamic SPH particles of one step (DESIGN §3): the
// systems gather every fluid body's particles into these contiguous slices, the stages run on
// them, and the results are scattered back to the bodies. All slices have the same length,
// except VDiff and Omega: they are empty until a stage that keeps them first asks for them
// (EnsureVDiff, EnsureOmega), so a world without implicit viscosity or micropolar vorticity
// does not carry 48 bytes a particle it never reads.
type FluidSet struct {
	X     []Vec3    // position (m)
	V     []Vec3    // velocity (m/s)
	VStar []Vec3    // predicted velocity v* after non-pressure forces (m/s)
	AP    []Vec3    // pressure acceleration of the last solve (m/s²)
	M     []float64 // mass (kg)
	Rho0  []float64 // rest density (kg/m³)
	Visc  []float64 // kinematic viscosity ν (m²/s)
	Rho   []float64 // SPH density (kg/m³)
	P     []float64 // pressure (Pa), kept between steps to warm-start the solver
	VDiff []Vec3    // velocity change of the last implicit viscosity solve (m/s), its warm start (physics/viscosity)
	Omega []Vec3    // microrotation ω, the micropolar angular velocity (1/s; physics/micropolar), zero where the material has none

	// NotFluid marks the packed particles that are not fluid (cloth vertices, which take part
	// in no density constraint): Density leaves them out of every other particle's density and
	// gives them their rest density, and CompressionError leaves them out. nil: all are fluid.
	// The caller sets it for the current packed order (length Len()); it is not a stored field.
	NotFluid []bool

	reg  []Field
	pass passArgs
}

// passArgs are the arguments of the block loop in flight; the loops are method values made
// once, so a substep's passes allocate nothing. A FluidSet must not be copied.
type passArgs struct {
	b                                        *BoundarySet
	ff, fb                                   *Neighbors
	kr                                       *Kernel
	gravity                                  Vec3
	xsph, dt                                 float64
	inviscid                                 bool
	uniform, noVisc                          bool // Advect: one mass and viscosity; every ν zero
	partial, partial2                        []float64
	fnDensity, fnAdvect, fnIntegrate, fnVmax func(lo, hi, block int)
	fnDrag, fnCompression                    func(lo, hi, block int)
}

func (f *FluidSet) init() {
	if f.pass.fnDensity == nil {
		f.pass.fnDensity, f.pass.fnAdvect = f.densityBlock, f.advectBlock
		f.pass.fnIntegrate, f.pass.fnVmax = f.integrateBlock, f.vmaxBlock
		f.pass.fnDrag, f.pass.fnCompression = f.dragBlock, f.compressionBlock
	}
}

// UniformMass reports whether every particle has the first one's mass: the single-phase
// case, in which the pair loops skip the gather of m_j and the test for a mass ratio.
func (f *FluidSet) UniformMass() bool {
	for _, m := range f.M {
		if m != f.M[0] {
			return false
		}
	}
	return true
}

// uniformVisc reports whether every particle has the first one's viscosity.
func (f *FluidSet) uniformVisc() bool {
	for _, nu := range f.Visc {
		if nu != f.Visc[0] {
			return false
		}
	}
	return true
}

// Len returns the number of particles.
func (f *FluidSet) Len() int { return len(f.X) }

// Resize sets every field's length to n, keeping existing values.
func (f *FluidSet) Resize(n int) {
	f.X, f.V, f.VStar, f.AP = resize(f.X, n), resize(f.V, n), resize(f.VStar, n), resize(f.AP, n)
	f.M, f.Rho0, f.Visc = resize(f.M, n), resize(f.Rho0, n), resize(f.Visc, n)
	f.Rho, f.P = resize(f.Rho, n), resize(f.P, n)
	if f.VDiff != nil {
		f.VDiff = resize(f.VDiff, n)
	}
	if f.Omega != nil {
		f.Omega = resize(f.Omega, n)
	}
}

// EnsureVDiff gives VDiff the set's length (zeros) if it is still empty.
func (f *FluidSet) EnsureVDiff() {
	if k := len(f.VDiff); k != f.Len() {
		f.VDiff = resize(f.VDiff, f.Len())
		clear(f.VDiff[min(k, f.Len()):])
	}
}

// EnsureOmega gives Omega the set's length (zeros) if it is still empty.
func (f *FluidSet) EnsureOmega() {
	if k := len(f.Omega); k != f.Len() {
		f.Omega = resize(f.Omega, f.Len())
		clear(f.Omega[min(k, f.Len()):])
	}
}

// Fields lists every per-particle field with its name and unit, in a fixed order. Sorting,
// exporting and snapshots iterate this list, so a field added here is permuted, written and
// saved everywhere without further code.
func (f *FluidSet) Fields() []Field {
	if f.reg == nil {
		f.reg = f.fields()
	}
	return f.reg
}

func (f *FluidSet) fields() []Field {
	return []Field{
		{Name: "position", Unit: "m", Vec: &f.X},
		{Name: "velocity", Unit: "m/s", Vec: &f.V},
		{Name: "vstar", Unit: "m/s", Vec: &f.VStar},
		{Name: "pressureAcceleration", Unit: "m/s^2", Vec: &f.AP},
		{Name: "mass", Unit: "kg", Scalar: &f.M},
		{Name: "restDensity", Unit: "kg/m^3", Scalar: &f.Rho0},
		{Name: "viscosity", Unit: "m^2/s", Scalar: &f.Visc},
		{Name: "density", Unit: "kg/m^3", Scalar: &f.Rho},
		{Name: "pressure", Unit: "Pa", Scalar: &f.P},
		{Name: "viscosityChange", Unit: "m/s", Vec: &f.VDiff},
		{Name: "angularVelocity", Unit: "1/s", Vec: &f.Omega},
	}
}

// Field is one entry of a field registry: a named per-particle scalar or vector slice.
// Exactly one of Scalar and Vec is set.
type Field struct {
	Name   string
	Unit   string
	Scalar *[]float64
	Vec    *[]Vec3
}

// Permuter reorders registered fields by a permutation. It permutes in place, following the
// permutation's cycles, so it keeps no copy of a field: a scratch field (the largest a Vec3 of
// 24 bytes a particle, plus a scalar one) would stay resident between the sorts. What it keeps
// is the moved entries' indices in cycle order (4 bytes a moved particle) and a few entries of
// each field per block of them, grown on the first calls.
//
// The sort every substep makes the permutation a serial stage unless its moves are shared:
// the cycles are walked once on the calling goroutine, reading and marking only the
// permutation (seq), and the moves of every field then run in parallel over fixed blocks of
// that walk (move). A block's last move reads the next block's first entry and a cycle that
// began in an earlier block ends by reading the cycle's first entry, both of which another
// block overwrites: they are copied aside first (save), in a parallel loop of their own.
// Each entry is written by one block only, so the result is the same for any number of
// workers, and equal to the gather x′[k] = x[order[k]].
type Permuter struct {
	vecs    [][]Vec3
	scalars [][]float64
	// seq lists the moved entries cycle by cycle, each cycle in the order that entry k takes
	// the value of entry order[k], which is the next one in seq; a cycle's last entry k is
	// stored as ^k and takes the value of the cycle's first.
	seq []int32
	// open[b] is the position in seq of the first entry of the cycle block b of seq begins
	// inside, or -1 when the block begins with a cycle.
	open []int32
	// per block b of seq and field, three entries: slot 0 the field's value at the block's
	// first entry, slot 1 at the first entry of the cycle open[b] names (both copied before any
	// move), slot 2 the block's own copy of the first entry of a cycle it begins.
	sv             []Vec3
	ss             []float64
	fnSave, fnMove func(lo, hi, block int)
}

// Apply sets every field to field[order[k]] at position k. order is a permutation of the
// fields' indices, or, for fields longer than it, an increasing selection of them (the
// particles kept after a removal; the caller then truncates the fields to len(order)). An
// empty field (FluidSet.VDiff or Omega before their first use) stays empty. order is modified
// while the cycles are walked and restored before the moves. The moves of a permutation run
// on pool's workers (nil: on the calling goroutine); a selection runs on the calling goroutine.
//
// The fields of a permutation move together: each step of a cycle moves one entry of every
// field. Walking the cycles once per field read and marked order once per field and took
// about twice as long (BenchmarkPermuterApply: 64–65 against 32–38 ns per particle for nine
// fields).
func (pm *Permuter) Apply(fields []Field, order []int32, pool *par.Pool) {
	m := pm.prepare(fields, order)
	if m == 0 {
		return
	}
	if pool == nil {
		nb := par.Blocks(m)
		for b := 0; b < nb; b++ {
			pm.save(b*par.BlockSize, min((b+1)*par.BlockSize, m), b)
		}
		for b := 0; b < nb; b++ {
			pm.move(b*par.BlockSize, min((b+1)*par.BlockSize, m), b)
		}
		return
	}
	pool.For(m, pm.fnSave)
	pool.For(m, pm.fnMove)
}

// prepare lists the fields to permute (moving the selections' at once), walks the cycles of
// order and sizes the blocks' slots; it returns the number of moved entries, len(seq).
func (pm *Permuter) prepare(fields []Field, order []int32) int {
	pm.vecs, pm.scalars = pm.vecs[:0], pm.scalars[:0]
	for _, fd := range fields {
		if fd.Scalar != nil {
			pm.scalars = addField(pm.scalars, *fd.Scalar, order)
		} else {
			pm.vecs = addField(pm.vecs, *fd.Vec, order)
		}
	}
	if len(pm.vecs)+len(pm.scalars) == 0 {
		return 0
	}
	pm.walk(order)
	nb := par.Blocks(len(pm.seq))
	pm.sv = par.Grow(pm.sv, 3*nb*len(pm.vecs))
	pm.ss = par.Grow(pm.ss, 3*nb*len(pm.scalars))
	if pm.fnSave == nil {
		pm.fnSave, pm.fnMove = pm.save, pm.move
	}
	return len(pm.seq)
}

// addField appends field a to the fields that move with the permutation order, or, when a is
// empty or longer than order (a selection), moves it on its own (selectRows).
func addField[T any](list [][]T, a []T, order []int32) [][]T {
	if len(a) == 0 {
		return list
	}
	if len(a) > len(order) {
		selectRows(a, order)
		return list
	}
	return append(list, a[:len(order)])
}

// walk lists the cycles of the permutation order in seq and open (see Permuter), marking the
// visited entries of order by complementing them (^i < 0) and restoring them at the end. A
// fixed point is not listed.
func (pm *Permuter) walk(order []int32) {
	if cap(pm.seq) < len(order) {
		pm.seq = make([]int32, 0, len(order)) // every entry at most once: no append regrows it
	}
	seq := pm.seq[:0]
	pm.open = par.Grow(pm.open, par.Blocks(len(order)))
	open := pm.open
	for k0 := range order {
		first := order[k0]
		if first < 0 {
			continue
		}
		if int(first) == k0 {
			order[k0] = ^first
			continue
		}
		start := int32(len(seq))
		k := k0
		for {
			next := order[k]
			order[k] = ^next
			if t := len(seq); t%par.BlockSize == 0 {
				open[t/par.BlockSize] = -1
				if int32(t) != start {
					open[t/par.BlockSize] = start
				}
			}
			if int(next) == k0 {
				seq = append(seq, ^int32(k))
				break
			}
			seq = append(seq, int32(k))
			k = int(next)
		}
	}
	for k := range order {
		order[k] = ^order[k]
	}
	pm.seq = seq
}

// entry is the field index of position t of seq and whether it ends its cycle.
func (pm *Permuter) entry(t int) (k int, last bool) {
	e := pm.seq[t]
	if e < 0 {
		return int(^e), true
	}
	return int(e), false
}

// save copies, for block b of seq that begins inside a cycle, every field's value at the
// block's first entry (read by the previous block's last move) and at its cycle's first entry
// (read by the cycle's last move) into the block's slots 0 and 1.
func (pm *Permuter) save(lo, _, b int) {
	o := pm.open[b]
	if o < 0 {
		return
	}
	k, _ := pm.entry(lo)
	c, _ := pm.entry(int(o))
	nv, ns := len(pm.vecs), len(pm.scalars)
	sv, ss := pm.sv[3*b*nv:3*(b+1)*nv], pm.ss[3*b*ns:3*(b+1)*ns]
	for f, a := range pm.vecs {
		sv[f], sv[nv+f] = a[k], a[c]
	}
	for f, a := range pm.scalars {
		ss[f], ss[ns+f] = a[k], a[c]
	}
}

// move makes the moves of block b of seq, [lo, hi): each entry takes the value of the next one
// in its cycle, the block's last (unless it ends its cycle) the next block's first from that
// block's slot 0, and a cycle's last entry the cycle's first, from slot 2 when the cycle
// began in this block (copied there before its first move) and from slot 1 otherwise.
func (pm *Permuter) move(lo, hi, b int) {
	nv, ns := len(pm.vecs), len(pm.scalars)
	sv, ss := pm.sv[3*b*nv:3*(b+1)*nv], pm.ss[3*b*ns:3*(b+1)*ns]
	began := pm.open[b] < 0 // the current cycle began in this block
	for t := lo; t < hi; t++ {
		k, last := pm.entry(t)
		if t > lo && pm.seq[t-1] < 0 {
			began = true
		}
		if began && (t == lo || pm.seq[t-1] < 0) {
			for f, a := range pm.vecs {
				sv[2*nv+f] = a[k]
			}
			for f, a := range pm.scalars {
				ss[2*ns+f] = a[k]
			}
		}
		switch {
		case last:
			slot := 1
			if began {
				slot = 2
			}
			for f, a := range pm.vecs {
				a[k] = sv[slot*nv+f]
			}
			for f, a := range pm.scalars {
				a[k] = ss[slot*ns+f]
			}
		case t+1 == hi:
			nvs, nss := pm.sv[3*(b+1)*nv:], pm.ss[3*(b+1)*ns:]
			for f, a := range pm.vecs {
				a[k] = nvs[f]
			}
			for f, a := range pm.scalars {
				a[k] = nss[f]
			}
		default:
			j, _ := pm.entry(t + 1)
			for _, a := range pm.vecs {
				a[k] = a[j]
			}
			for _, a := range pm.scalars {
				a[k] = a[j]
			}
		}
	}
}

// PermuteRows sets row k of a to row order[k] in place, for a laid out as len(order) rows of
// width entries (a[width·k + c] is column c of row k), such as the K virtual particles of
// each fluid particle (one per volume-mapped wall). order must be a permutation; it is
// modified while a column is permuted and restored before PermuteRows returns. Each column
// follows the permutation's cycles on its own, so no row is copied aside.
func PermuteRows[T any](a []T, width int, order []int32) {
	if len(a) != width*len(order) {
		panic("physics: PermuteRows with a slice that is not len(order) rows of width entries")
	}
	for c := 0; c < width; c++ {
		permuteCycles(a, width, c, order)
	}
}

// selectRows sets a[k] = a[order[k]] for k < len(order) in place, for an increasing selection
// order (see Permuter.Apply).
func selectRows[T any](a []T, order []int32) {
	for k, i := range order { // increasing: a[i] with i ≥ k is not yet overwritten
		a[k] = a[i]
	}
}

// permuteCycles sets column c of row k of a (a[width·k + c]) to that of row order[k] for the
// permutation order, walking each cycle once and marking the visited entries of order by
// complementing them (^i < 0); it restores them at the end.
func permuteCycles[T any](a []T, width, c int, order []int32) {
	for k0 := range order {
		if order[k0] < 0 {
			continue
		}
		tmp := a[width*k0+c]
		k := k0
		for {
			next := order[k]
			order[k] = ^next
			if int(next) == k0 {
				a[width*k+c] = tmp
				break
			}
			a[width*k+c] = a[width*int(next)+c]
			k = int(next)
		}
	}
	for k := range order {
		order[k] = ^order[k]
	}
}

// BoundarySet is the packed state of all boundary particles (Akinci et al. 2012): samples on
// the surfaces of static walls and, later, rigid bodies.
type BoundarySet struct {
	X   []Vec3    // position (m)
	V   []Vec3    // velocity (m/s), zero for static walls
	Vol []float64 // volume V_b = γ/Σ_k W_bk (m³); Ψ_b(ρ0) = ρ0·V_b (Akinci 2012, Eq. 4-5)
	Nu  []float64 // boundary viscosity ν_b (m²/s); nil or 0: free slip
}

// Len returns the number of boundary particles.
func (b *BoundarySet) Len() int { return len(b.X) }

func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	t := make([]T, n, n+n/8)
	copy(t, s)
	return t
}

// BoundaryVolumes sets b.Vol from the boundary particles' own number density,
// V_b = γ/Σ_k W(x_b − x_k) over boundary neighbours k, self included (Akinci et al. 2012,
// Eq. 4, with the wall calibration γ of Kernel.WallVolumeScale). Sparse samples get larger
// volumes, so a single layer of boundary particles contributes to a fluid particle's density
// as much as the missing fluid would.
func BoundaryVolumes(b *BoundarySet, kr *Kernel, gamma float64, g *Grid, pool *par.Pool) error {
	n := b.Len()
	b.Vol = resize(b.Vol, n)
	if n == 0 {
		return nil
	}
	if err := g.Build(b.X, kr.H, pool); err != nil {
		return err
	}
	// The sums are taken over the grid directly, without storing pairs: the walls' pair lists
	// would be used once and then dropped, and on a fine tank they are the largest allocation
	// of a world (100 MB for the 78k samples of the reference's dam-break box). The terms are
	// those a neighbour search stores (single-precision W, the same pair order), so the
	// volumes do not depend on how they are summed.
	h2 := kr.H * kr.H
	w0 := kr.W0()
	cubic := kr.Kind == CubicSpline
	pool.For(n, func(lo, hi, _ int) {
		for i := lo; i < hi; i++ {
			xi := b.X[i]
			c := int(g.cellOf[i])
			s := w0
			for _, cell := range g.self[27*c : 27*c+27] {
				if cell < 0 {
					continue
				}
				for k := g.cellStart[cell]; k < g.cellStart[cell+1]; k++ {
					if int(g.Order[k]) == i {
						continue
					}
					xj := &g.Sorted[k]
					dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
					if d2 := dx*dx + dy*dy + dz*dz; d2 < h2 {
						var w float64
						if cubic {
							w, _ = kr.cubic(sqrt(d2))
						} else {
							w, _ = kr.Eval(sqrt(d2))
						}
						s += float64(float32(w))
					}
				}
			}
			b.Vol[i] = gamma / s
		}
	})
	return nil
}

// Density computes ρ_i = m_i W(0) + Σ_j m_i W_ij + Σ_b ρ0_i V_b W_ib: the number-density
// estimate of Solenthaler & Pajarola 2008 (ρ_i = m_i δ_i with δ_i = Σ_j W_ij, all particles
// having the same rest volume) with the boundary contribution of Akinci et al. 2012 (Eq. 14 of
// Ihmsen et al. 2014, first line). Where neighbours have equal masses it is the usual
// Σ_j m_j W_ij; at an interface between bodies of different rest densities (a light elastic
// body in water) it does not smear the density contrast, so neither side sees a spurious
// compression or expansion. physics/iisph uses the matching continuity and pressure force.
//
// The two sums are the ones the searches formed (Neighbors.Sum): ff's with unit weights, fb's
// with Weights = b.Vol, so this pass reads no pair. It panics if fb was searched with other
// weights. Particles marked NotFluid add nothing: their kernel values, which the sum holds,
// are evaluated again from the positions and taken out.
func Density(f *FluidSet, b *BoundarySet, ff, fb *Neighbors, kr *Kernel, pool *par.Pool) {
	f.init()
	if !ff.SummedWith(nil) || len(ff.Sum) < f.Len() {
		panic("physics.Density: the fluid lists were not searched with unit weights")
	}
	if (b.Len() > 0 && !fb.SummedWith(b.Vol)) || len(fb.Sum) < f.Len() {
		panic("physics.Density: the boundary lists were not searched with Weights = the boundary volumes")
	}
	f.pass.b, f.pass.ff, f.pass.fb, f.pass.kr = b, ff, fb, kr
	pool.For(f.Len(), f.pass.fnDensity)
}

func (f *FluidSet) densityBlock(lo, hi, blk int) {
	nf, kr := f.NotFluid, f.pass.kr
	w0 := kr.W0()
	sff, sfb := f.pass.ff.Sum, f.pass.fb.Sum
	fblk := &f.pass.ff.Blocks[blk]
	for i := lo; i < hi; i++ {
		if nf != nil && nf[i] {
			f.Rho[i] = f.Rho0[i] // not fluid (NotFluid): in no density constraint
			continue
		}
		d := w0 + sff[i]
		if nf != nil {
			xi := &f.X[i]
			js, _ := fblk.Row(i - lo)
			for _, j := range js {
				if !nf[j] {
					continue
				}
				xj := &f.X[j]
				dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
				// kr.W rounds to the float32 the search summed (TestSearchMatchesBruteForce)
				d -= float64(float32(kr.W(sqrt(dx*dx + dy*dy + dz*dz))))
			}
		}
		f.Rho[i] = f.M[i]*d + f.Rho0[i]*sfb[i]
	}
}

// Advect sets the predicted velocity v*_i = v_i + Δt·a_i from the non-pressure accelerations:
// gravity and the Laplacian viscosity of Monaghan (2005),
// a_i = 2(d+2) ν Σ_j V_ij (v_ij·x_ij)/(|x_ij|² + 0.01h²) ∇W_ij with d = 3 (2 in a planar world, Kernel.Dim), where ν is the
// kinematic viscosity in m²/s (the pair's mean), plus XSPH velocity smoothing
// v*_i += ε Σ_j (m_j/ρ_j)(v_j − v_i) W_ij with the dimensionless ε = xsph.
//
// The pair volume V_ij = 2m_j/(ρ_i + ρ_j) is the usual m_j/ρ_j wherever the densities match,
// and m_i V_ij is symmetric: m_i a_i of the pair is equal and opposite to m_j a_j and along
// x_ij, so the viscosity keeps linear and angular momentum exactly. With m_j/ρ_j alone, a
// particle at a free surface (whose SPH density is below ρ0) and its neighbour pushed
// unequally on each other, and a free rotating drop drifted by 3 % of its angular momentum
// in 1 s. XSPH, a velocity filter, keeps
// linear momentum only where the densities match and angular momentum not at all: each pair
// changes L by a multiple of (x_i − x_j) × (v_j − v_i), not zero in a rigid rotation.
func Advect(f *FluidSet, ff *Neighbors, kr *Kernel, gravity Vec3, xsph, dt float64, pool *par.Pool) {
	f.init()
	f.pass.ff, f.pass.kr, f.pass.gravity, f.pass.xsph, f.pass.dt = ff, kr, gravity, xsph, dt
	f.pass.inviscid = false
	f.pass.uniform = f.UniformMass() && f.uniformVisc()
	f.pass.noVisc = f.pass.uniform && f.Len() > 0 && f.Visc[0] == 0
	pool.For(f.Len(), f.pass.fnAdvect)
}

// AdvectInviscid is Advect without the viscosity term: gravity and XSPH only, for substeps
// whose viscosity an implicit solve (physics/viscosity) integrates afterwards.
func AdvectInviscid(f *FluidSet, ff *Neighbors, kr *Kernel, gravity Vec3, xsph, dt float64, pool *par.Pool) {
	f.init()
	f.pass.ff, f.pass.kr, f.pass.gravity, f.pass.xsph, f.pass.dt = ff, kr, gravity, xsph, dt
	f.pass.inviscid = true
	f.pass.uniform, f.pass.noVisc = false, false
	pool.For(f.Len(), f.pass.fnAdvect)
}

func (f *FluidSet) advectBlock(lo, hi, blk int) {
	kr, gravity, xsph, dt := f.pass.kr, f.pass.gravity, f.pass.xsph, f.pass.dt
	eps := 0.01 * kr.H * kr.H
	visc := kr.ViscFactor()
	fblk := &f.pass.ff.Blocks[blk]
	if xsph == 0 && (f.pass.inviscid || f.pass.noVisc) {
		for i := lo; i < hi; i++ {
			vi := &f.V[i]
			f.VStar[i] = Vec3{vi[0] + dt*gravity[0], vi[1] + dt*gravity[1], vi[2] + dt*gravity[2]}
		}
		return
	}
	if xsph == 0 && f.pass.uniform {
		f.advectSingle(lo, hi, fblk)
		return
	}
	for i := lo; i < hi; i++ {
		xi, vi := f.X[i], f.V[i]
		ax, ay, az := gravity[0], gravity[1], gravity[2]
		var sx, sy, sz float64
		var js []int32
		var ws, gws []float32
		if xsph != 0 {
			js, ws, gws = fblk.RowW(i - lo)
			ws = ws[:len(js)]
		} else {
			js, gws = fblk.Row(i - lo)
		}
		gws = gws[:len(js)]
		nui, rhoi := f.Visc[i], f.Rho[i]
		inviscid := f.pass.inviscid
		for k, j := range js {
			xj, vj := &f.X[j], &f.V[j]
			vx, vy, vz := vi[0]-vj[0], vi[1]-vj[1], vi[2]-vj[2]
			nu := 0.5 * (nui + f.Visc[j])
			if nu != 0 && !inviscid {
				rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
				// The pair's volume with the pair's mean density, 2m_j/(ρ_i + ρ_j): m_j/ρ_j
				// where the densities match, and m_i·(this) is symmetric in i and j, so the
				// pair forces m_i a_i are equal and opposite. Its denominator joins the
				// kernel term's in one division.
				c := visc * nu * 2 * f.M[j] * (vx*rx + vy*ry + vz*rz) * float64(gws[k]) / ((rhoi + f.Rho[j]) * (rx*rx + ry*ry + rz*rz + eps))
				ax += c * rx // ∇W_ij = G_ij x_ij
				ay += c * ry
				az += c * rz
			}
			if xsph != 0 {
				c := f.M[j] / f.Rho[j] * float64(ws[k])
				sx -= c * vx
				sy -= c * vy
				sz -= c * vz
			}
		}
		f.VStar[i] = Vec3{vi[0] + dt*ax + xsph*sx, vi[1] + dt*ay + xsph*sy, vi[2] + dt*az + xsph*sz}
	}
}

// advectSingle is advectBlock for a single material without XSPH: every particle has the same
// mass m and viscosity ν, so the pair volume's mass and the pair's mean viscosity come out of
// the sum, a_i = g + 2(d+2) ν 2m Σ_j (v_ij·x_ij) G_ij x_ij/((ρ_i + ρ_j)(|x_ij|² + 0.01h²)),
// and the loop gathers only x_j, v_j and ρ_j. It is the same sum as the general loop's, in
// another order of the floating-point operations (TestViscosityShearResponseOnTheLattice
// compares the two); on the dam breaks it took half the general loop's time.
func (f *FluidSet) advectSingle(lo, hi int, fblk *NeighborBlock) {
	kr, gravity, dt := f.pass.kr, f.pass.gravity, f.pass.dt
	eps := 0.01 * kr.H * kr.H
	kc := kr.ViscFactor() * f.Visc[lo] * 2 * f.M[lo]
	for i := lo; i < hi; i++ {
		xi, vi := f.X[i], f.V[i]
		rhoi := f.Rho[i]
		js, gws := fblk.Row(i - lo)
		gws = gws[:len(js)]
		var ax, ay, az float64
		for k, j := range js {
			xj, vj := &f.X[j], &f.V[j]
			rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			c := (vi[0]-vj[0])*rx + (vi[1]-vj[1])*ry + (vi[2]-vj[2])*rz
			c *= float64(gws[k]) / ((rhoi + f.Rho[j]) * (rx*rx + ry*ry + rz*rz + eps))
			ax += c * rx
			ay += c * ry
			az += c * rz
		}
		f.VStar[i] = Vec3{vi[0] + dt*(gravity[0]+kc*ax), vi[1] + dt*(gravity[1]+kc*ay), vi[2] + dt*(gravity[2]+kc*az)}
	}
}

// Integrate applies the pressure acceleration and moves the particles with semi-implicit Euler
// (Ihmsen et al. 2014, Algorithm 1, procedure INTEGRATION): v = v* + Δt a_p, x += Δt v.
func Integrate(f *FluidSet, dt float64, pool *par.Pool) {
	f.init()
	f.pass.dt = dt
	pool.For(f.Len(), f.pass.fnIntegrate)
}

func (f *FluidSet) integrateBlock(lo, hi, _ int) {
	dt := f.pass.dt
	for i := lo; i < hi; i++ {
		vs, ap := f.VStar[i], f.AP[i]
		v := Vec3{vs[0] + dt*ap[0], vs[1] + dt*ap[1], vs[2] + dt*ap[2]}
		f.V[i] = v
		f.X[i] = Vec3{f.X[i][0] + dt*v[0], f.X[i][1] + dt*v[1], f.X[i][2] + dt*v[2]}
	}
}

// MaxSpeed returns the largest particle speed (m/s), from per-block partials (one slot per
// block in partial) so the result does not depend on the worker count.
func (f *FluidSet) MaxSpeed(partial []float64, pool *par.Pool) float64 {
	f.init()
	f.pass.partial = partial
	pool.For(f.Len(), f.pass.fnVmax)
	return math.Sqrt(par.Max(partial[:par.Blocks(f.Len())]))
}

func (f *FluidSet) vmaxBlock(lo, hi, b int) {
	m := 0.0
	for i := lo; i < hi; i++ {
		v := &f.V[i]
		m = max(m, v[0]*v[0]+v[1]*v[1]+v[2]*v[2])
	}
	f.pass.partial[b] = m
}

// CompressionError returns the average and the largest compression of the densities in Rho,
// max(0, ρ_i − ρ0_i)/ρ0_i (a fraction of the rest density), the measure IISPH's stopping
// criterion η bounds for its predicted densities (iisph, pass2) — here applied to densities
// computed by Density from actual positions. Only compression counts: free-surface particles
// rightly read below ρ0. Particles marked NotFluid are left out (of the average's count too).
// Per-block partials (one slot per block in sum and mx) make the result independent of the
// worker count.
func (f *FluidSet) CompressionError(sum, mx []float64, pool *par.Pool) (avg, maxErr float64) {
	n := f.Len()
	if n == 0 {
		return 0, 0
	}
	f.init()
	f.pass.partial, f.pass.partial2 = sum, mx
	pool.For(n, f.pass.fnCompression)
	nb := par.Blocks(n)
	fluid := n
	for _, not := range f.NotFluid {
		if not {
			fluid--
		}
	}
	if fluid == 0 {
		return 0, 0
	}
	return par.Sum(sum[:nb]) / float64(fluid), par.Max(mx[:nb])
}

func (f *FluidSet) compressionBlock(lo, hi, b int) {
	s, m := 0.0, 0.0
	nf := f.NotFluid
	for i := lo; i < hi; i++ {
		if nf != nil && nf[i] {
			continue
		}
		e := max(0, f.Rho[i]-f.Rho0[i]) / f.Rho0[i]
		s += e
		m = max(m, e)
	}
	f.pass.partial[b], f.pass.partial2[b] = s, m
}

// BoundaryDrag adds the boundary viscosity of samples with ν_b > 0 to v*: the fluid-fluid
// Laplacian viscosity of Advect with the sample in place of a neighbour, its volume Ψ_b/ρ_i
// and velocity v_b (Akinci et al. 2012, Sec. 4.2, boundary friction),
//
//	a_i += 10 ν_b Σ_b (Ψ_b/ρ_i) (v_ib·x_ib)/(|x_ib|² + 0.01h²) ∇W_ib,  Ψ_b = ρ0_i V_b,
//
// so fluid sticks to rough walls and a body dragged through water drags water along; the
// reaction −m_i a_i acts on the sample's body (rigid.Loads.Drag sums it).
func BoundaryDrag(f *FluidSet, b *BoundarySet, fb *Neighbors, kr *Kernel, dt float64, pool *par.Pool) {
	f.init()
	f.pass.b, f.pass.fb, f.pass.kr, f.pass.dt = b, fb, kr, dt
	pool.For(f.Len(), f.pass.fnDrag)
}

func (f *FluidSet) dragBlock(lo, hi, blk int) {
	b, dt := f.pass.b, f.pass.dt
	eps := 0.01 * f.pass.kr.H * f.pass.kr.H
	bblk := &f.pass.fb.Blocks[blk]
	for i := lo; i < hi; i++ {
		bs, gs := bblk.Row(i - lo)
		if len(bs) == 0 {
			continue
		}
		xi, vi := f.X[i], f.V[i]
		c0 := f.pass.kr.ViscFactor() * f.Rho0[i] / f.Rho[i]
		var ax, ay, az float64
		for k, j := range bs {
			nu := b.Nu[j]
			if nu == 0 {
				continue
			}
			xb, vb := &b.X[j], &b.V[j]
			rx, ry, rz := xi[0]-xb[0], xi[1]-xb[1], xi[2]-xb[2]
			vx, vy, vz := vi[0]-vb[0], vi[1]-vb[1], vi[2]-vb[2]
			c := c0 * nu * b.Vol[j] * (vx*rx + vy*ry + vz*rz) / (rx*rx + ry*ry + rz*rz + eps) * float64(gs[k])
			ax += c * rx // ∇W_ib = G_ib x_ib
			ay += c * ry
			az += c * rz
		}
		v := &f.VStar[i]
		v[0] += dt * ax
		v[1] += dt * ay
		v[2] += dt * az
	}
}
