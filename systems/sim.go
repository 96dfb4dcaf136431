// Package systems holds one system per stage of the substep (DESIGN §4) and the packed solver
// state they share. Each system gathers what it needs from the Sim resource and calls physics/;
// systems hold no numerics of their own.
//
// Between steps the ECS is the single source of truth: Gather copies every body's particles
// into the packed physics.FluidSet and physics.BoundarySet at the start of World.Step, the
// stages run on the packed arrays for every substep, and Scatter writes positions, velocities,
// densities and pressures back to the bodies at the end. Bodies keep their particle indices
// stable; the packed copy is z-ordered for memory locality and carries, for each packed
// particle, its body and index there.
package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/mlange-42/arche/generic"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/iisph"
	"github.com/sluicephysics/sluice/physics/par"
)

// Sim is the packed solver state of a world (an ECS resource).
type Sim struct {
	Settings components.Solver
	Kernel   physics.Kernel
	Fluid    physics.FluidSet
	Bound    physics.BoundarySet
	FF       physics.Neighbors // fluid → fluid neighbours of the current substep
	FB       physics.Neighbors // fluid → boundary neighbours of the current substep
	Pressure *iisph.Solver
	Volume0  float64 // particle volume at rest (m³), from physics.Kernel.LatticeVolume

	DomainMin, DomainMax physics.Vec3

	pool      *par.Pool
	fluidGrid physics.Grid
	boundGrid physics.Grid
	volGrid   physics.Grid
	volNb     physics.Neighbors
	adj       []int32
	perm      physics.Permuter
	permI     []int32
	owner     []int32 // packed fluid particle → slot in bodies
	origin    []int32 // packed fluid particle → index in its body
	bodies    []bodySlot
	layout    []layoutEntry
	bLayout   []layoutEntry
	domainSet bool
	sinceSort int
	partial   []float64
	removed   []removal
	checked   []checkedMaterial
	numax     float64 // largest kinematic viscosity of the fluid bodies (m²/s)
	acc       StepStats
}

type bodySlot struct {
	body *components.Body
	mat  *components.Material
	p    *components.Particles
}

type layoutEntry struct {
	id    uint32
	phase components.Phase
	n     int
}

type removal struct {
	slot, local int32
}

// NewSim creates the packed state for the given (validated) settings.
func NewSim(s components.Solver, pool *par.Pool) (*Sim, error) {
	if err := s.Validate("solver"); err != nil {
		return nil, err
	}
	kind, _ := physics.ParseKernel(s.Kernel)
	kr := physics.NewKernel(kind, s.SupportRadius())
	sim := &Sim{Settings: s, Kernel: kr, Pressure: iisph.NewSolver(s.IISPH()), pool: pool}
	sim.Volume0 = kr.LatticeVolume(s.Spacing())
	if s.DomainMin != s.DomainMax {
		sim.DomainMin, sim.DomainMax, sim.domainSet = s.DomainMin, s.DomainMax, true
	}
	return sim, nil
}

var bodyFilter = generic.NewFilter3[components.Body, components.Material, components.Particles]()

// Gather copies the bodies' particles into the packed sets, repacking when bodies or particle
// counts changed since the last step.
func (s *Sim) Gather(w *ecs.World) error {
	s.bodies = s.bodies[:0]
	q := bodyFilter.Query(w.ECS)
	for q.Next() {
		b, m, p := q.Get()
		s.bodies = append(s.bodies, bodySlot{b, m, p})
	}
	slices.SortFunc(s.bodies, func(a, b bodySlot) int { return int(a.body.ID) - int(b.body.ID) })
	var fl, bl []layoutEntry
	for _, b := range s.bodies {
		n := b.p.Len()
		if b.body.Phase == components.Fluid {
			if len(b.p.V) != n && len(b.p.V) != 0 {
				return fmt.Errorf("body %q: %d velocities for %d positions", b.body.Name, len(b.p.V), n)
			}
			b.p.V = fit(b.p.V, n)
			b.p.Density = fit(b.p.Density, n)
			b.p.Pressure = fit(b.p.Pressure, n)
			fl = append(fl, layoutEntry{b.body.ID, b.body.Phase, n})
		} else {
			bl = append(bl, layoutEntry{b.body.ID, b.body.Phase, n})
		}
	}
	if err := s.validateMaterials(); err != nil {
		return err
	}
	if !slices.Equal(bl, s.bLayout) {
		if err := s.packBoundary(); err != nil {
			return err
		}
		s.bLayout = bl
	}
	if !slices.Equal(fl, s.layout) {
		s.packFluid()
		s.layout = fl
	}
	if !s.domainSet {
		s.autoDomain()
	}
	s.numax = 0
	for _, b := range s.bodies {
		if b.body.Phase == components.Fluid {
			s.numax = max(s.numax, b.mat.Viscosity)
		}
	}
	f := &s.Fluid
	for k := range f.X {
		b := s.bodies[s.owner[k]]
		i := s.origin[k]
		f.X[k], f.V[k], f.P[k] = b.p.X[i], b.p.V[i], b.p.Pressure[i]
		f.Rho0[k] = b.mat.RestDensity
		f.M[k] = b.mat.RestDensity * s.Volume0
		f.Visc[k] = b.mat.Viscosity
	}
	for k := range f.X {
		if !physics.Finite(f.X[k]) || !physics.Finite(f.V[k]) || math.IsNaN(f.P[k]) {
			b := s.bodies[s.owner[k]]
			return fmt.Errorf("body %q particle %d has a non-finite position, velocity or pressure", b.body.Name, s.origin[k])
		}
	}
	return nil
}

// validateMaterials checks the materials whose values changed since they were last checked
// (a game or a hot reload may edit them between steps), so steady steps skip the reflection.
func (s *Sim) validateMaterials() error {
	if len(s.checked) != len(s.bodies) {
		s.checked = make([]checkedMaterial, len(s.bodies))
	}
	for i, b := range s.bodies {
		c := &s.checked[i]
		if c.ok && c.id == b.body.ID && c.mat == *b.mat {
			continue
		}
		if err := b.mat.Validate(fmt.Sprintf("bodies[%q].material", b.body.Name)); err != nil {
			c.ok = false
			return err
		}
		*c = checkedMaterial{ok: true, id: b.body.ID, mat: *b.mat}
	}
	return nil
}

type checkedMaterial struct {
	ok  bool
	id  uint32
	mat components.Material
}

func fit[T any](s []T, n int) []T {
	if len(s) == n {
		return s
	}
	t := make([]T, n)
	copy(t, s)
	return t
}

// packFluid lays the fluid bodies out in ID order; the next NeighborSearch z-sorts them.
func (s *Sim) packFluid() {
	n := 0
	for _, b := range s.bodies {
		if b.body.Phase == components.Fluid {
			n += b.p.Len()
		}
	}
	s.Fluid.Resize(n)
	s.owner = slices.Grow(s.owner[:0], n)[:n]
	s.origin = slices.Grow(s.origin[:0], n)[:n]
	k := 0
	for slot, b := range s.bodies {
		if b.body.Phase != components.Fluid {
			continue
		}
		for i := range b.p.X {
			s.owner[k], s.origin[k] = int32(slot), int32(i)
			k++
		}
	}
	s.sinceSort = 0
}

// packBoundary collects every boundary body's samples and computes their volumes.
func (s *Sim) packBoundary() error {
	b := &s.Bound
	b.X, b.V = b.X[:0], b.V[:0]
	for _, bs := range s.bodies {
		if bs.body.Phase == components.Boundary {
			for _, x := range bs.p.X {
				if !physics.Finite(x) {
					return fmt.Errorf("boundary body %q has a non-finite sample %v", bs.body.Name, x)
				}
			}
			b.X = append(b.X, bs.p.X...)
		}
	}
	b.V = make([]physics.Vec3, len(b.X))
	if err := physics.BoundaryVolumes(b, &s.Kernel, s.Kernel.WallVolumeScale(s.Settings.Spacing(), s.Settings.BoundaryLayers), &s.volGrid, &s.volNb, s.pool); err != nil {
		return err
	}
	if b.Len() > 0 {
		return s.boundGrid.Build(b.X, s.Kernel.H, s.pool)
	}
	s.boundGrid = physics.Grid{}
	return nil
}

// autoDomain sets the domain to the bodies' bounds widened by half their size (at least ten
// support radii) on every side.
func (s *Sim) autoDomain() {
	lo := physics.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := physics.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	extend := func(x physics.Vec3) {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], x[d]), max(hi[d], x[d])
		}
	}
	for _, b := range s.bodies {
		for _, x := range b.p.X {
			extend(x)
		}
	}
	if lo[0] > hi[0] {
		return
	}
	for d := 0; d < 3; d++ {
		m := max(0.5*(hi[d]-lo[d]), 10*s.Kernel.H)
		lo[d] -= m
		hi[d] += m
	}
	s.DomainMin, s.DomainMax, s.domainSet = lo, hi, true
}

// Scatter writes the packed state back to the bodies and drops the particles removed during
// the step from them.
func (s *Sim) Scatter() {
	f := &s.Fluid
	for k := range f.X {
		b := s.bodies[s.owner[k]]
		i := s.origin[k]
		b.p.X[i], b.p.V[i], b.p.Density[i], b.p.Pressure[i] = f.X[k], f.V[k], f.Rho[k], f.P[k]
	}
	if len(s.removed) == 0 {
		return
	}
	slices.SortFunc(s.removed, func(a, b removal) int {
		if a.slot != b.slot {
			return int(a.slot - b.slot)
		}
		return int(a.local - b.local)
	})
	for lo := 0; lo < len(s.removed); {
		hi := lo
		for hi < len(s.removed) && s.removed[hi].slot == s.removed[lo].slot {
			hi++
		}
		p := s.bodies[s.removed[lo].slot].p
		drop := s.removed[lo:hi]
		keep := 0
		d := 0
		for i := range p.X {
			if d < len(drop) && int(drop[d].local) == i {
				d++
				continue
			}
			p.X[keep], p.V[keep], p.Density[keep], p.Pressure[keep] = p.X[i], p.V[i], p.Density[i], p.Pressure[i]
			keep++
		}
		p.X, p.V, p.Density, p.Pressure = p.X[:keep], p.V[:keep], p.Density[:keep], p.Pressure[:keep]
		lo = hi
	}
	s.removed = s.removed[:0]
	s.layout = nil // counts changed: repack on the next Gather
}

// NextDt is the CFL substep, dt = λ·2r/v_max clamped to [dtMin, dtMax] (DESIGN §4), and
// never above the explicit viscosity's stability limit 0.125·h²/ν_max (Monaghan 2005's
// viscous diffusion number), below which the Laplacian viscosity cannot blow up.
func (s *Sim) NextDt() float64 {
	s.partial = par.Grow(s.partial, par.Blocks(s.Fluid.Len()))
	vmax := s.Fluid.MaxSpeed(s.partial, s.pool)
	dt := s.Settings.DtMax
	if vmax > 0 {
		dt = s.Settings.CFL * s.Settings.Spacing() / vmax
	}
	dt = min(max(dt, s.Settings.DtMin), s.Settings.DtMax)
	if s.numax > 0 {
		dt = min(dt, 0.125*s.Kernel.H*s.Kernel.H/s.numax)
	}
	return dt
}

// BodyName returns the name of the body owning packed fluid particle k.
func (s *Sim) BodyName(k int) string { return s.bodies[s.owner[k]].body.Name }

// PackState is the part of the packed solver state that is not recomputed from the bodies:
// the packed order (which body and index each packed particle is), the z-sort cadence and the
// domain. A snapshot saves it so a restored world sums neighbours in the same order and so
// continues bit-identically.
type PackState struct {
	Owner, Origin        []int32
	SinceSort            int
	DomainMin, DomainMax physics.Vec3
	DomainSet            bool
	// Repack: the last step removed particles, so the next Gather repacks from the bodies
	// (Owner and Origin are then empty) — a restored world must do the same.
	Repack bool
}

// PackState returns a copy of the packed order, cadence and domain.
func (s *Sim) PackState() PackState {
	if s.layout == nil {
		return PackState{Repack: true, DomainMin: s.DomainMin, DomainMax: s.DomainMax, DomainSet: s.domainSet}
	}
	return PackState{Owner: slices.Clone(s.owner), Origin: slices.Clone(s.origin), SinceSort: s.sinceSort,
		DomainMin: s.DomainMin, DomainMax: s.DomainMax, DomainSet: s.domainSet}
}

// RestorePack gathers the world's bodies and then imposes a saved packed order, cadence and
// domain. It fails if the saved order does not match the bodies (a corrupt or foreign
// snapshot), leaving the world to be discarded by the caller.
func (s *Sim) RestorePack(w *ecs.World, ps PackState) error {
	s.DomainMin, s.DomainMax, s.domainSet = ps.DomainMin, ps.DomainMax, ps.DomainSet
	if err := s.Gather(w); err != nil {
		return err
	}
	if ps.Repack {
		s.layout = nil // the saved world would have repacked on its next step
		return nil
	}
	n := s.Fluid.Len()
	if len(ps.Owner) != n || len(ps.Origin) != n {
		return fmt.Errorf("snapshot packs %d fluid particles, the bodies hold %d", len(ps.Owner), n)
	}
	seen := make([][]bool, len(s.bodies))
	for i, b := range s.bodies {
		seen[i] = make([]bool, b.p.Len())
	}
	for k := range ps.Owner {
		o, i := ps.Owner[k], ps.Origin[k]
		if o < 0 || int(o) >= len(s.bodies) || s.bodies[o].body.Phase != components.Fluid || i < 0 || int(i) >= len(seen[o]) || seen[o][i] {
			return fmt.Errorf("snapshot packed order is inconsistent at particle %d", k)
		}
		seen[o][i] = true
	}
	copy(s.owner, ps.Owner)
	copy(s.origin, ps.Origin)
	s.sinceSort = ps.SinceSort
	s.DomainMin, s.DomainMax, s.domainSet = ps.DomainMin, ps.DomainMax, ps.DomainSet
	return s.Gather(w) // re-copy the bodies through the restored order
}
