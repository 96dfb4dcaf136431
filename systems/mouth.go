package systems

import (
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
)

// StageEmitterMouths is the name of the stage that drives the fluid in front of the emitters'
// nozzles: right after Integration, before the animation fields.
const StageEmitterMouths = "EmitterMouths"

// Mouth is the region in front of an emitting nozzle, where the nozzle drives the fluid: the
// nozzle's cross-section (a Width × Height box, or a circle of diameter Width, across Dir)
// extended Len along Dir from the nozzle plane through Center. As in SPlisHSPlasH, whose
// emitters move the particles in front of them with the emission velocity, every fluid
// particle inside leaves each substep with the velocity Speed·Dir: the nozzle pushes what
// stands in front of it on at its own speed (a pump at a set flow rate), so the fluid ahead
// makes room for the next layer instead of the next layer landing on it. A free jet's
// particles have that velocity anyway, but for what gravity adds during their short time in
// the mouth (Len/Speed), which the nozzle takes back as a pipe's walls would.
type Mouth struct {
	Center, Dir, U, V physics.Vec3 // nozzle centre; unit direction; unit axes across it
	HalfU, HalfV, Len float64      // half extents across (HalfU = HalfV = radius for a circle); length along Dir (m)
	Circle            bool
	Speed             float64 // m/s
}

// inside reports whether x lies in the mouth.
func (m *Mouth) inside(x physics.Vec3) bool {
	d0, d1, d2 := x[0]-m.Center[0], x[1]-m.Center[1], x[2]-m.Center[2]
	a := d0*m.Dir[0] + d1*m.Dir[1] + d2*m.Dir[2]
	if a < 0 || a >= m.Len {
		return false
	}
	u := d0*m.U[0] + d1*m.U[1] + d2*m.U[2]
	v := d0*m.V[0] + d1*m.V[1] + d2*m.V[2]
	if m.Circle {
		return u*u+v*v <= m.HalfU*m.HalfU
	}
	return u >= -m.HalfU && u <= m.HalfU && v >= -m.HalfV && v <= m.HalfV
}

// EmitterMouths sets the velocity of every fluid particle inside an emitting nozzle's mouth
// (Sim.Mouths, which the world sets at each step's emission) to the nozzle's velocity. Each
// particle's new value depends on that particle alone, so the result does not depend on the
// worker count. A no-op without mouths.
type EmitterMouths struct{ S *Sim }

// Run implements ecs.System.
func (em EmitterMouths) Run(*ecs.Context) error {
	s := em.S
	if len(s.Mouths) == 0 || s.Fluid.Len() == 0 {
		return nil
	}
	if s.mouthFn == nil {
		s.mouthFn = s.mouthBlock
	}
	s.pool.For(s.Fluid.Len(), s.mouthFn)
	return nil
}

// mouthBlock drives the packed fluid particles [lo, hi) inside a mouth; where mouths overlap
// the last one listed wins.
func (s *Sim) mouthBlock(lo, hi, _ int) {
	f := &s.Fluid
	for i := lo; i < hi; i++ {
		if f.NotFluid != nil && f.NotFluid[i] {
			continue
		}
		for k := range s.Mouths {
			m := &s.Mouths[k]
			if m.inside(f.X[i]) {
				f.V[i] = physics.Vec3{m.Speed * m.Dir[0], m.Speed * m.Dir[1], m.Speed * m.Dir[2]}
			}
		}
	}
}
