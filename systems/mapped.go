package systems

import (
	"fmt"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
	"github.com/sluicephysics/sluice/physics/volumemap"
)

// Walls with a volume map (components.WallMap; Bender, Kugelstadt, Weiler, Koschier 2019,
// "Implicit Frictional Boundary Handling for SPH"). A fluid particle i within the kernel
// support of such a wall (0 < φ(x_i) < h) sees one boundary particle of it, of the wall's
// volume V(x_i) within the support around x_i, at x_b = x_i − d n(x_i) with
// d = volumemap.Offset(φ, r) = max(φ + r/2, 2r). Every fluid stage then treats it as one of
// Akinci's boundary particles: its volume weighs the density sum (ρ0 V_b W_ib) and the mirrored
// pressure force, its velocity is the wall's (zero), its drag the wall's. A particle found
// inside the wall (φ ≤ 0, which the pressure prevents at stable steps) is put back on the
// fluid's side, half a radius from the surface, with its velocity into the wall removed.

// mappedWall is one wall with a volume map, in ID order.
type mappedWall struct {
	owner int32 // the wall's index among the boundary bodies (bSlots)
	field components.WallField
	far   farField // the field's cheap test for particles it has no virtual particle for, or nil
	nu    float64  // its drag, the boundary viscosity ν_b (m²/s)
}

// farField is a WallField that can tell cheaply where it has no virtual particle within the
// support (physics/volumemap.Map.Far), so placeVirtual skips At there.
type farField interface {
	Far(x physics.Vec3) bool
}

// orderBoundary sets bOrder, the boundary bodies in the order their samples are packed:
// the bodies the fluid sees through their samples first, in ID order, then the static walls
// with a volume map, in ID order, which it lists in mapped. A world with goo is refused.
//
// The mapped walls' samples are packed only where something still meets them
// (mappedSamplesNeeded); otherwise they are left out of bOrder and listed in unpacked, and the
// world keeps neither their packed copies nor their grid. On SPlisHSPlasH's DamBreakModel that
// is 78,312 samples the fluid never reads.
func (s *Sim) orderBoundary() error {
	s.bOrder = s.bOrder[:0]
	s.mapped = s.mapped[:0]
	s.unpacked = s.unpacked[:0]
	for i := range s.bodies {
		// a map describes a static wall: a rigid body or a wall on a motion path meets the
		// fluid through its samples
		if b := &s.bodies[i]; s.Settings.WallModel != "volumeMaps" || b.rigid != nil || b.motion != nil {
			b.field = nil
		}
	}
	for i, b := range s.bodies {
		if b.body.Phase == components.Boundary && b.field == nil {
			s.bOrder = append(s.bOrder, i)
		}
	}
	o := int32(0)
	for i, b := range s.bodies {
		if b.body.Phase != components.Boundary {
			continue
		}
		if b.field != nil {
			s.bOrder = append(s.bOrder, i)
			far, _ := b.field.(farField)
			s.mapped = append(s.mapped, mappedWall{owner: o, field: b.field, far: far, nu: b.mat.Drag})
		}
		o++
	}
	if len(s.mapped) > 0 {
		for _, b := range s.bodies {
			if b.body.Phase == components.Fluid && b.mat.Viscoelastic.Enabled {
				return fmt.Errorf("body %q: goo (material.viscoelastic) does not meet walls with a volume map yet; use solver.wallModel \"particles\" in a world with goo", b.body.Name)
			}
		}
		if !s.mappedSamplesNeeded() {
			k := len(s.bOrder) - len(s.mapped)
			s.unpacked = append(s.unpacked, s.bOrder[k:]...)
			s.bOrder = s.bOrder[:k]
		}
	}
	return nil
}

// mappedSamplesNeeded reports whether anything in the world meets the mapped walls through
// their samples: rigid bodies (their contacts with the walls), elastic, elastoplastic, FLIP and
// cloth bodies (their wall contacts and obstacles) and the diffuse particles (their wall
// collisions). The fluid alone meets a mapped wall through its map.
func (s *Sim) mappedSamplesNeeded() bool {
	if s.Settings.Diffuse.Enabled {
		return true
	}
	for _, b := range s.bodies {
		if b.rigid != nil || (b.body.Phase != components.Fluid && b.body.Phase != components.Boundary) {
			return true
		}
	}
	return false
}

// buildVisGrid counts the samples the fluid sees and builds their grid when the mapped walls'
// samples follow them (otherwise the fluid searches boundGrid).
func (s *Sim) buildVisGrid() error {
	s.nVis = s.Bound.Len()
	for _, i := range s.bOrder {
		if s.bodies[i].field != nil {
			s.nVis -= s.bodies[i].p.Len()
		}
	}
	s.visGrid = physics.Grid{NoSelf: true}
	if len(s.mapped) > 0 && s.nVis > 0 {
		if err := s.visGrid.Build(s.Bound.X[:s.nVis], s.Kernel.H, s.pool); err != nil {
			return err
		}
	}
	return nil
}

// placeVirtual sizes FBound for the nVis visible samples followed by K = len(mapped)
// virtual particles per fluid particle (slot K·i + k for particle i and wall k) and places the
// virtual particles. NeighborSearch calls it before it builds the fluid's grid, since it may
// move a particle found inside a wall, and again after a sort has permuted the fluid.
func (s *Sim) placeVirtual() {
	if len(s.mapped) == 0 {
		return
	}
	m := s.nVis + len(s.mapped)*s.Fluid.Len()
	fb := &s.FBound
	fb.X = par.Grow(fb.X, m)
	fb.V = par.Grow(fb.V, m)
	fb.Vol = par.Grow(fb.Vol, m)
	fb.Nu = par.Grow(fb.Nu, m)
	s.fbOwn = par.Grow(s.fbOwn, m)
	if s.mapFn == nil {
		s.mapFn = s.placeVirtualBlock
	}
	s.pool.For(s.Fluid.Len(), s.mapFn)
}

// permuteVirtual moves the virtual particles placeVirtual placed with their fluid particles
// when NeighborSearch permutes the fluid into the cell order (the K slots of the fluid's new index i,
// one per mapped wall, take those of order[i]), instead of placing them again: the
// volume-map queries are most of a placement's cost. Their velocity, viscosity and owner are
// the same for every slot of a wall and stay as they are.
func (s *Sim) permuteVirtual(order []int32) {
	if len(s.mapped) == 0 {
		return
	}
	fb, nv, m := &s.FBound, s.nVis, len(s.mapped)*len(order)
	physics.PermuteRows(fb.X[nv:nv+m], len(s.mapped), order)
	physics.PermuteRows(fb.Vol[nv:nv+m], len(s.mapped), order)
}

// fluidBoundary sets fb and fbOwner, the boundary the fluid's stages see this substep, and
// returns the grid of its samples: Bound and boundGrid without mapped walls; else FBound, whose
// visible samples it copies from Bound (where moving bodies were just placed), with the
// virtual particles placeVirtual placed, and visGrid.
func (s *Sim) fluidBoundary() *physics.Grid {
	if len(s.mapped) == 0 {
		s.fb, s.fbOwner, s.FB.Virtual = &s.Bound, s.bOwner, nil
		return &s.boundGrid
	}
	nv, fb := s.nVis, &s.FBound
	copy(fb.X, s.Bound.X[:nv])
	copy(fb.V, s.Bound.V[:nv])
	copy(fb.Vol, s.Bound.Vol[:nv])
	copy(fb.Nu, s.Bound.Nu[:nv])
	copy(s.fbOwn, s.bOwner[:nv])
	s.virtual = physics.VirtualTargets{K: len(s.mapped), Base: int32(nv), X: fb.X[nv:]}
	s.fb, s.fbOwner, s.FB.Virtual = fb, s.fbOwn, &s.virtual
	return &s.visGrid
}

// placeVirtualBlock places the virtual boundary particles of a block of fluid particles.
func (s *Sim) placeVirtualBlock(lo, hi, _ int) {
	f, fb := &s.Fluid, &s.FBound
	nv, K := s.nVis, len(s.mapped)
	h, r := s.Kernel.H, 0.5*s.Settings.Spacing()
	for i := lo; i < hi; i++ {
		for k := range s.mapped {
			w := &s.mapped[k]
			j := nv + K*i + k
			fb.V[j], fb.Nu[j], s.fbOwn[j] = physics.Vec3{}, w.nu, w.owner
			if w.far != nil && w.far.Far(f.X[i]) {
				fb.Vol[j], fb.X[j] = 0, f.X[i]
				continue
			}
			phi, vol, nrm, ok := w.field.At(f.X[i])
			if !ok || phi >= h || vol <= 0 {
				fb.Vol[j], fb.X[j] = 0, f.X[i]
				continue
			}
			if phi <= 0 {
				// inside the wall: back to the fluid's side, its velocity into the wall removed
				x, v := f.X[i], f.V[i]
				push := 0.5*r - phi
				f.X[i] = physics.Vec3{x[0] + push*nrm[0], x[1] + push*nrm[1], x[2] + push*nrm[2]}
				if vn := v[0]*nrm[0] + v[1]*nrm[1] + v[2]*nrm[2]; vn < 0 {
					f.V[i] = physics.Vec3{v[0] - vn*nrm[0], v[1] - vn*nrm[1], v[2] - vn*nrm[2]}
				}
				phi = 0.5 * r
			}
			d := volumemap.Offset(phi, r)
			x := f.X[i]
			fb.X[j] = physics.Vec3{x[0] - d*nrm[0], x[1] - d*nrm[1], x[2] - d*nrm[2]}
			fb.Vol[j] = vol
		}
	}
}
