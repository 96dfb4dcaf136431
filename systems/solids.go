package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// Solid walls. A wall's boundary samples (Akinci et al. 2012) lie in a few layers at its
// surface: they repel fluid only through the pressure of the fluid compressed against them,
// and the pressure is clamped at zero. A particle that gets past the layers into a thick wall
// (a slab, a floor) has only the samples of the layers around it as neighbours, its density
// stays below the rest density, and nothing pushes it back out: it coasts through the wall,
// or, squeezed between layers together with others, builds pressures of tens of MPa and is
// shot out at tens of m/s (the reference's SurfaceTension_Crown_ZR2020 scene, whose 10 cm wall
// slabs stand on a floor, did so at its drop's impact on the pool). The inside of a solid wall
// is known from its signed distance (the reference's volume and density maps, Koschier and
// Bender 2017 and Bender et al. 2019, describe walls the same way): after every substep, a
// particle whose centre is inside a solid wall is moved along the distance's gradient to one
// particle radius outside the wall's surface (where a fluid block's outer particles start next
// to a wall; put on the surface itself, among the wall's samples, it would be compressed
// several-fold and shot out by the next pressure solve), and the part of its velocity relative
// to the wall that points into the wall is removed (an inelastic, frictionless contact). Every
// particle so moved is counted in StepStats.WallCorrections, never silently. In a flow the
// boundary samples hold, no particle reaches a wall's inside and this does nothing.

// Solid is the inside of a wall body: its shape at time 0, in world axes, with the shape's
// origin at Center (a wall with a motion path carries it along the path's displacement).
type Solid struct {
	ID     uint32
	Shape  *rigid.Shape
	Center physics.Vec3
	lo, hi physics.Vec3 // world bounds at time 0
}

// solidBand is how far (in particle spacings) a mesh wall's distance grid resolves the
// distance on either side of the surface; deeper inside, the grid holds −band and points the
// way out up (see rigid.Shape.Prepare), which still moves a particle outwards each substep.
const solidBand = 4

// AddSolid declares the inside of wall body id: a box (exact distance) or a closed mesh (a
// distance grid of one particle spacing). The wall's samples are its own business: AddSolid
// only makes its inside known.
func (s *Sim) AddSolid(id uint32, sh *rigid.Shape, center physics.Vec3) error {
	sp := s.Settings.Spacing()
	if sh.Kind == rigid.Mesh {
		// Prepare grids at half its argument: a grid of one spacing
		if err := sh.Prepare(2*sp, solidBand*sp); err != nil {
			return err
		}
	}
	lo, hi := sh.Bounds()
	so := Solid{ID: id, Shape: sh, Center: center, lo: lo.Add(center), hi: hi.Add(center)}
	i, found := slices.BinarySearchFunc(s.Solids, id, func(a Solid, id uint32) int { return int(a.ID) - int(id) })
	if found {
		return fmt.Errorf("body %d has a solid already", id)
	}
	s.Solids = slices.Insert(s.Solids, i, so)
	return nil
}

// confineSolids moves the particles that ended the substep inside a solid wall back to its
// surface (see the comment above) at time t, the end of the substep.
func (s *Sim) confineSolids(t float64) {
	if len(s.Solids) == 0 || s.Fluid.Len() == 0 {
		return
	}
	s.confined = par.Grow(s.confined, par.Blocks(s.Fluid.Len()))
	clear(s.confined)
	for k := range s.Solids {
		so := &s.Solids[k]
		var disp, vw physics.Vec3
		for i := range s.bodies {
			b := &s.bodies[i]
			if b.body.ID == so.ID && b.motion != nil {
				disp = b.motion.Displacement(t)
				vw = velocityAt(b.motion, t)
			}
		}
		s.solid, s.solidDisp, s.solidV = so, so.Center.Add(disp), vw
		s.pool.For(s.Fluid.Len(), s.confineFn)
	}
	for _, n := range s.confined {
		s.acc.WallCorrections += int(n)
	}
}

// confineBlock is one block of confineSolids for the solid s.solid.
func (s *Sim) confineBlock(lo, hi, block int) {
	so := s.solid
	f := &s.Fluid
	c, vw := s.solidDisp, s.solidV
	blo, bhi := so.lo.Sub(so.Center).Add(c), so.hi.Sub(so.Center).Add(c)
	n := 0
	for i := lo; i < hi; i++ {
		x := f.X[i]
		if x[0] < blo[0] || x[1] < blo[1] || x[2] < blo[2] || x[0] > bhi[0] || x[1] > bhi[1] || x[2] > bhi[2] {
			continue
		}
		d, nrm := so.Shape.Distance(physics.Vec3{x[0] - c[0], x[1] - c[1], x[2] - c[2]})
		if !(d < 0) {
			continue
		}
		m := s.Settings.ParticleRadius - d
		f.X[i] = physics.Vec3{x[0] + m*nrm[0], x[1] + m*nrm[1], x[2] + m*nrm[2]}
		v := f.V[i]
		if vn := (v[0]-vw[0])*nrm[0] + (v[1]-vw[1])*nrm[1] + (v[2]-vw[2])*nrm[2]; vn < 0 {
			f.V[i] = physics.Vec3{v[0] - vn*nrm[0], v[1] - vn*nrm[1], v[2] - vn*nrm[2]}
		}
		n++
	}
	s.confined[block] += int32(n)
}

// velocityAt is the velocity of a motion path at time t (the key in force then; zero after
// the last key).
func velocityAt(m *components.Motion, t float64) physics.Vec3 {
	t0 := 0.0
	for _, k := range m.Path {
		if t > t0 && t <= k.Until {
			return k.Velocity
		}
		t0 = k.Until
	}
	return physics.Vec3{}
}

// SolidDistance returns the signed distance from the surface of the solid wall of body id to
// p at time t (negative inside), and whether the body has a solid. For tests and tools.
func (s *Sim) SolidDistance(id uint32, p physics.Vec3, t float64) (float64, bool) {
	for k := range s.Solids {
		so := &s.Solids[k]
		if so.ID != id {
			continue
		}
		c := so.Center
		for i := range s.bodies {
			if b := &s.bodies[i]; b.body.ID == id && b.motion != nil {
				c = c.Add(b.motion.Displacement(t))
			}
		}
		d, _ := so.Shape.Distance(p.Sub(c))
		return d, true
	}
	return math.Inf(1), false
}
