package systems

import (
	"math"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// Rigid bodies in the step (DESIGN §4). A rigid body is a boundary body with a RigidBody
// component: its samples sit in the packed BoundarySet like a wall's, with their own volumes.
//   - NeighborSearch places every moving body's samples at its pose and gives them the body's
//     velocity at their position, so the pressure solve sees a moving wall (v_b, Ihmsen 2014
//     Sec. 4).
//   - PressureSolve then sums the fluid's pressure force on every boundary body's samples
//     (rigid.Loads): the dynamic bodies' forces and torques drive them, the walls' loads are
//     reported.
//   - ViscoelasticConnections (before the pressure solve) sums what the goo's connections to a
//     body's samples pull on it (Takahashi 2015, Eq. 9); the pressure solve adds it to the
//     body's fluid force.
//   - Integration advances the bodies (forces, contacts, positions) after the fluid.

// RigidStats is a rigid body's state at the end of a step.
type RigidStats struct {
	Position        [3]float64 `json:"position"`        // centre of mass (m)
	Orientation     [4]float64 `json:"orientation"`     // unit quaternion [w, x, y, z]
	Velocity        [3]float64 `json:"velocity"`        // m/s
	AngularVelocity [3]float64 `json:"angularVelocity"` // rad/s
	Submerged       float64    `json:"submerged"`       // fraction of the volume below the water around it
	Contacts        int        `json:"contacts"`        // the body's contact points at the last substep
	Motion          string     `json:"motion"`          // static, kinematic or dynamic
	Asleep          bool       `json:"asleep"`          // at rest and sleeping (solver.rigidSleepTime)
}

// gatherRigid collects the rigid bodies' solver state in body ID order.
func (s *Sim) gatherRigid() {
	s.Rigid.Bodies = s.Rigid.Bodies[:0]
	s.rigidSlots = s.rigidSlots[:0]
	for i := range s.bodies {
		b := &s.bodies[i]
		if b.rigid == nil {
			continue
		}
		s.Rigid.Bodies = append(s.Rigid.Bodies, b.rigid.State)
		s.rigidSlots = append(s.rigidSlots, i)
		if b.rigid.State.Motion != rigid.Static {
			s.moving = true
		}
	}
	s.gatherJoints()
	st := &s.Settings
	s.Rigid.Params = rigid.Params{Iterations: st.RigidIterations, Relax: st.RigidRelax, Radius: st.ParticleRadius, Gravity: st.Gravity, SleepTime: st.RigidSleepTime}
	// Sleeping islands are numbered by body index: when a rigid body went, the indices after
	// it moved, so every body wakes (bodies added later take the next indices).
	gone := len(s.rigidIDs) > len(s.Rigid.Bodies)
	for k := 0; !gone && k < len(s.rigidIDs); k++ {
		gone = s.bodies[s.rigidSlots[k]].body.ID != s.rigidIDs[k]
	}
	if gone {
		s.Rigid.WakeAll()
	}
	s.rigidIDs = s.rigidIDs[:0]
	for _, slot := range s.rigidSlots {
		s.rigidIDs = append(s.rigidIDs, s.bodies[slot].body.ID)
	}
}

// packBoundaryOwners records which boundary body and which rigid body each packed sample
// belongs to and which samples are walls, after Gather has ordered the bodies.
func (s *Sim) packBoundaryOwners() {
	s.bOwner = s.bOwner[:0]
	s.rOwner = s.rOwner[:0]
	s.staticIDs = s.staticIDs[:0]
	s.bSlots = s.bSlots[:0]
	for i, b := range s.bodies {
		if b.body.Phase == components.Boundary {
			s.bSlots = append(s.bSlots, i)
		}
	}
	// owners are numbered in ID order (bSlots), samples packed in bOrder
	k := 0
	for _, i := range s.bOrder {
		b := &s.bodies[i]
		o, _ := slices.BinarySearch(s.bSlots, i)
		ro := int32(s.rigidIndex(i))
		for range b.p.X {
			s.bOwner = append(s.bOwner, int32(o))
			s.rOwner = append(s.rOwner, ro)
			if b.rigid == nil {
				s.staticIDs = append(s.staticIDs, int32(k))
			}
			k++
		}
	}
	s.Bound.Nu = par.Grow(s.Bound.Nu, len(s.bOwner))
	s.dragOn = false
	for k, o := range s.bOwner {
		nu := s.bodies[s.bSlots[o]].mat.Drag
		s.Bound.Nu[k] = nu
		s.dragOn = s.dragOn || nu > 0
	}
	s.bCenters = par.Grow(s.bCenters, len(s.bSlots))
	if len(s.loadSum) != len(s.bSlots) {
		s.loadSum = make([]physics.Vec3, len(s.bSlots))
	}
}

// placeRigid moves every moving rigid body's samples to its pose and gives them its velocity;
// a kinematic body with a motion path takes its velocity for [t, t+dt] from the path.
func (s *Sim) placeRigid(t, dt float64) {
	for k := range s.Rigid.Bodies {
		rb := &s.Rigid.Bodies[k]
		slot := &s.bodies[s.rigidSlots[k]]
		if rb.Motion == rigid.Static {
			continue
		}
		if rb.Motion == rigid.Kinematic && slot.motion != nil && len(slot.motion.Path) > 0 {
			d := slot.motion.Displacement(t + dt).Sub(slot.motion.Displacement(t))
			rb.V = d.Mul(1 / dt)
		}
		r := rb.Frame()
		lo := slot.bLo
		xs, vs := s.Bound.X[lo:lo+len(rb.Samples)], s.Bound.V[lo:lo+len(rb.Samples)]
		c, v, w := rb.X, rb.V, rb.W
		for i, p := range rb.Samples {
			x := physics.Vec3{
				c[0] + r[0]*p[0] + r[1]*p[1] + r[2]*p[2],
				c[1] + r[3]*p[0] + r[4]*p[1] + r[5]*p[2],
				c[2] + r[6]*p[0] + r[7]*p[1] + r[8]*p[2],
			}
			dx, dy, dz := x[0]-c[0], x[1]-c[1], x[2]-c[2]
			xs[i] = x
			vs[i] = physics.Vec3{v[0] + w[1]*dz - w[2]*dy, v[1] + w[2]*dx - w[0]*dz, v[2] + w[0]*dy - w[1]*dx}
		}
	}
}

// boundaryDrag adds the boundary viscosity of walls and bodies with a drag to v* and sums its
// reaction on every boundary body (AdvectionForces, after the fluid's own forces).
func (s *Sim) boundaryDrag(dt float64) {
	if !s.dragOn || s.Fluid.Len() == 0 {
		return
	}
	physics.BoundaryDrag(&s.Fluid, s.fb, &s.FB, &s.Kernel, dt, s.pool)
	s.setCenters()
	s.drag.Drag(&s.Fluid, s.fb, &s.FB, &s.Kernel, s.fbOwner, s.bCenters, s.pool)
}

// setCenters sets each boundary body's torque centre: a rigid body's centre of mass.
func (s *Sim) setCenters() {
	for i, slot := range s.bSlots {
		if rb := s.bodies[slot].rigid; rb != nil {
			s.bCenters[i] = s.Rigid.Bodies[s.rigidIndex(slot)].X
		}
	}
}

// boundaryLoads sums the fluid's pressure force on each boundary body after the pressure
// solve, hands the rigid bodies theirs and accumulates the step's time-weighted loads.
func (s *Sim) boundaryLoads(dt float64) {
	if len(s.bSlots) == 0 {
		return
	}
	s.setCenters()
	var force, torque []physics.Vec3
	if s.PF != nil {
		s.PF.Loads(&s.Fluid, s.fb, &s.FB, s.fbOwner, s.bCenters, s.pool)
		force, torque = s.PF.Force, s.PF.Torque
	} else if s.DF != nil {
		// the reaction of both DFSPH solves' boundary forces: their summed pressure in place
		// of the constant-density solve's (a swap, so f.P comes back bit for bit)
		f := &s.Fluid
		f.P, s.DF.PLoad = s.DF.PLoad, f.P
		s.loads.Sum(f, s.fb, &s.FB, s.fbOwner, s.bCenters, false, s.Pressure.Gravity, s.pool)
		f.P, s.DF.PLoad = s.DF.PLoad, f.P
		force, torque = s.loads.Force, s.loads.Torque
	} else {
		s.loads.Sum(&s.Fluid, s.fb, &s.FB, s.fbOwner, s.bCenters, s.Pressure.Extrapolate, s.Pressure.Gravity, s.pool)
		force, torque = s.loads.Force, s.loads.Torque
	}
	for i, slot := range s.bSlots {
		f := force[i]
		s.loadSum[i] = physics.Vec3{s.loadSum[i][0] + dt*f[0], s.loadSum[i][1] + dt*f[1], s.loadSum[i][2] + dt*f[2]}
		if s.bodies[slot].rigid != nil {
			k := s.rigidIndex(slot)
			rb := &s.Rigid.Bodies[k]
			rb.FluidForce, rb.FluidTorque = f, torque[i]
			if s.dragOn && i < len(s.drag.Force) {
				// the boundary viscosity's reaction, from AdvectionForces
				rb.FluidForce = rb.FluidForce.Add(s.drag.Force[i])
				rb.FluidTorque = rb.FluidTorque.Add(s.drag.Torque[i])
			}
			if s.adhOn && i < len(s.Adhesion.Force) {
				// the adhesion's reaction (Akinci et al. 2013, Eq. 6), from AdvectionForces
				rb.FluidForce = rb.FluidForce.Add(s.Adhesion.Force[i])
				rb.FluidTorque = rb.FluidTorque.Add(s.Adhesion.Torque[i])
			}
			if s.gooOn && s.Goo.Owner != nil && k < len(s.Goo.Force) {
				// the goo's connections to the body (Takahashi 2015, Eq. 9)
				rb.FluidForce = rb.FluidForce.Add(s.Goo.Force[k])
				rb.FluidTorque = rb.FluidTorque.Add(s.Goo.Torque[k])
			}
		}
	}
	s.loadTime += dt
}

// rigidIndex returns the solver index of the rigid body in slot.
func (s *Sim) rigidIndex(slot int) int {
	for k, sl := range s.rigidSlots {
		if sl == slot {
			return k
		}
	}
	return -1
}

// stepRigid advances the rigid bodies over the substep [t, t+dt].
func (s *Sim) stepRigid(t, dt float64) {
	if len(s.Rigid.Bodies) == 0 {
		return
	}
	s.scheduleMotors(t)
	s.Rigid.Step(dt)
	s.substepEvents()
}

// rigidSpeed is the fastest surface speed of a moving rigid body (m/s), for the CFL substep.
func (s *Sim) rigidSpeed() float64 {
	v := 0.0
	for k := range s.Rigid.Bodies {
		b := &s.Rigid.Bodies[k]
		if b.Motion != rigid.Static {
			v = max(v, b.V.Len()+b.W.Len()*b.Reach)
		}
	}
	return v
}

// scatterRigid writes the bodies' state back to their components, their samples' positions
// to their particles, and measures how much of each body is under water.
func (s *Sim) scatterRigid() {
	s.scatterJoints()
	if len(s.Rigid.Bodies) > 0 {
		s.cols.build(s.Fluid.X, 2*s.Kernel.H)
	}
	for k := range s.Rigid.Bodies {
		rb := &s.Rigid.Bodies[k]
		slot := &s.bodies[s.rigidSlots[k]]
		slot.rigid.State = *rb
		r := rb.Frame()
		for i, p := range rb.Samples {
			slot.p.X[i] = rb.X.Add(r.MulVec(p))
		}
		before := slot.rigid.Submerged
		slot.rigid.Submerged = s.submerged(rb, slot.rigid)
		s.fluidEvent(k, slot.body.ID, before, slot.rigid.Submerged)
		slot.rigid.Contacts = s.Rigid.ContactsOf(k)
	}
}

// sprayDensity: a particle whose SPH density is below this fraction of its rest density has
// few neighbours — a droplet or spray above the water, not its surface (gravity presses the
// surface layer of a resting tank to its rest density: measured 1000 kg/m³ in the top
// centimetre of a 25 cm tank) — and does not set the water level.
const sprayDensity = 0.4

// submerged is the fraction of a body's interior points below the local water level: the top
// of the highest fluid particle's volume (its centre plus r) within two support radii of the
// body's horizontal extent but outside the body, spray excluded. A fluid particle stands for a
// cube of side 2r about its centre, so this is where the water's volume ends. 0 when no fluid
// is near. The particles are read through the step's columns (s.cols), those under the disc
// only; the level is a maximum, so the order they come in does not change it.
func (s *Sim) submerged(rb *rigid.Body, c *components.RigidBody) float64 {
	if len(c.Interior) == 0 {
		return 0
	}
	reach := rb.Reach + 2*s.Kernel.H
	level := math.Inf(-1)
	r := rb.Frame()
	f := &s.Fluid
	g := &s.cols
	i0, i1, k0, k1 := g.span(rb.X[0], rb.X[2], reach)
	for i := i0; i <= i1; i++ {
		for kc := k0; kc <= k1; kc++ {
			col := i*g.nz + kc
			for _, k := range g.idx[g.start[col]:g.start[col+1]] {
				x := f.X[k]
				dx, dz := x[0]-rb.X[0], x[2]-rb.X[2]
				if dx*dx+dz*dz > reach*reach || x[1] < level || f.Rho[k] < sprayDensity*f.Rho0[k] {
					continue
				}
				if d, _ := rb.Shape.Distance(r.MulTVec(x.Sub(rb.X))); d <= 0 {
					continue
				}
				level = x[1]
			}
		}
	}
	if math.IsInf(level, -1) {
		return 0
	}
	level += s.Settings.ParticleRadius
	below := 0
	for _, p := range c.Interior {
		if rb.X[1]+r[3]*p[0]+r[4]*p[1]+r[5]*p[2] < level {
			below++
		}
	}
	return float64(below) / float64(len(c.Interior))
}
