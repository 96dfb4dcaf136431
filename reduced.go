package sluice

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/reduced"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/systems"
)

// Reduced air domains in the world (docs/reduced.md). A domain is a rectangle in a plane of the
// world holding a model-reduced 2D fluid (physics/reduced, Gerszewski 2014 ch. 5). The world's
// rigid bodies that are planar in that plane (planeNormal along the plane's normal, the plane
// through the body) and have reducedPanels set are coupled both ways, each World.Step, before
// the substeps (the time splitting of §5.3):
//   - body → air: the bodies' poses and velocities at the start of the step set their vortex
//     panels' motion (Eq. 5.14), so moving bodies stir the air and the air flows around them;
//   - air → body: the fluid forces of Eq. 5.20–5.22 (dynamic pressure on the windward panels
//     and buoyancy), per unit depth times the body's depth along the normal, are one-step
//     loads of the world's rigid step (as World.ApplyForce's), held for all its substeps.
// A box is coupled when its outline (the cross-section through its centre, a rectangle when
// the plane normal lies along one of its axes) is inside the domain; a coupled body that leaves
// it stops being coupled until it returns and is listed in the step's stats meanwhile.

// reducedDomain is one domain of the world.
type reducedDomain struct {
	e       Entity
	name    string
	def     components.ReducedDomain
	d       *reduced.Domain
	n       mgl64.Vec3 // the plane's normal axisU × axisV
	coupled []reducedBody
	outside []string
	stats   systems.ReducedStats
}

// reducedBody is a world rigid body coupled with a domain.
type reducedBody struct {
	e       Entity
	id      uint32
	b       *reduced.Body
	depth   float64 // the box's extent along the plane normal (m)
	axis    int     // the body axis along the outline's x
	dynamic bool
	pos     reduced.BodyState
	he      [2]float64 // the outline's half extents
	name    string
}

// AddReducedDomain adds a reduced air domain (see components.ReducedDomain) and returns its
// entity, which World.Remove takes out again. Errors name the domain and the key: mode counts,
// grid, viscosity, axes, and a coupled body larger than the domain.
func (w *World) AddReducedDomain(name string, def components.ReducedDomain) (Entity, error) {
	path := fmt.Sprintf("reducedDomains[%q]", name)
	if w.sim.Settings.Dimensions == 2 {
		return Entity{}, fmt.Errorf("%s: a reduced-fluid domain is not available in a 2D world (solver.dimensions 2); see docs/2d.md", path)
	}
	if name == "" {
		return Entity{}, fmt.Errorf("reduced domain name must not be empty")
	}
	for _, r := range w.red {
		if r.name == name {
			return Entity{}, fmt.Errorf("%s: a reduced domain of that name exists already", path)
		}
	}
	cfg, err := def.Config(path, w.sim.Settings.Gravity, w.ecs.Pool.Workers())
	if err != nil {
		return Entity{}, err
	}
	d, err := reduced.New(cfg)
	if err != nil {
		return Entity{}, fmt.Errorf("%s: %w", path, err)
	}
	r := &reducedDomain{name: name, def: def, d: d, n: def.AxisU.Normalize().Cross(def.AxisV.Normalize()).Normalize()}
	if _, err := r.gather(w); err != nil {
		d.Close()
		return Entity{}, err
	}
	r.e = w.ecs.ECS.NewEntity()
	w.red = append(w.red, r)
	return r.e, nil
}

// ReducedDomain returns the domain of entity e (its coefficients, VelocityAt in the domain's
// coordinates, timing), or nil when e is not a reduced domain of this world.
func (w *World) ReducedDomain(e Entity) *reduced.Domain {
	if r := w.reducedOf(e); r != nil {
		return r.d
	}
	return nil
}

// ReducedVelocityAt returns the air velocity (m/s, world axes) of domain e at the world point
// p, projected onto the domain's plane: the reduced field plus the bodies' panels (u_r + u_p,
// §5.3.4) as the last step solved them.
func (w *World) ReducedVelocityAt(e Entity, p mgl64.Vec3) (mgl64.Vec3, error) {
	r := w.reducedOf(e)
	if r == nil {
		return mgl64.Vec3{}, fmt.Errorf("reduced velocity: entity %v is not a reduced domain of this world", e)
	}
	x, y := r.local(p)
	if !(x >= 0 && x <= r.def.Width && y >= 0 && y <= r.def.Height) {
		return mgl64.Vec3{}, fmt.Errorf("reduced velocity: %v is outside domain %q", p, r.name)
	}
	u, v := r.d.VelocityAt(x, y)
	return r.def.AxisU.Normalize().Mul(u).Add(r.def.AxisV.Normalize().Mul(v)), nil
}

// ReducedDomainByName returns the entity of the reduced domain with the given name.
func (w *World) ReducedDomainByName(name string) (Entity, bool) {
	for _, r := range w.red {
		if r.name == name {
			return r.e, true
		}
	}
	return Entity{}, false
}

func (w *World) reducedOf(e Entity) *reducedDomain {
	for _, r := range w.red {
		if r.e == e {
			return r
		}
	}
	return nil
}

// removeReduced removes domain e and reports whether e was one.
func (w *World) removeReduced(e Entity) bool {
	for i, r := range w.red {
		if r.e == e {
			r.d.Close()
			w.ecs.ECS.RemoveEntity(e)
			w.red = slices.Delete(w.red, i, i+1)
			return true
		}
	}
	return false
}

// closeReduced stops the domains' worker goroutines.
func (w *World) closeReduced() {
	for _, r := range w.red {
		r.d.Close()
	}
}

// local returns the domain coordinates of the world point p.
func (r *reducedDomain) local(p mgl64.Vec3) (x, y float64) {
	q := p.Sub(r.def.Origin)
	return q.Dot(r.def.AxisU.Normalize()), q.Dot(r.def.AxisV.Normalize())
}

// planeTol: a body's plane normal counts as the domain's when they agree to this (cosine
// 1 − 1e-9, about 4.5e-5 rad), and a plane normal lies along a box axis within the same.
const planeTol = 1e-9

// gather finds the world's coupled bodies in the domain's plane, in body ID order, with their
// present 2D states, and reports whether the set differs from the coupled one. A coupled body
// that is not a box, whose plane normal is not along one of its axes, or that is larger than
// the domain is an error.
func (r *reducedDomain) gather(w *World) (bool, error) {
	u, v := r.def.AxisU.Normalize(), r.def.AxisV.Normalize()
	var now []reducedBody
	r.outside = r.outside[:0]
	for _, bv := range w.Bodies() {
		rb := w.RigidBody(bv.Entity)
		if rb == nil || rb.ReducedPanels == 0 {
			continue
		}
		st := &rb.State
		if math.Abs(st.PlaneNormal.Dot(r.n)) < 1-planeTol {
			continue
		}
		path := fmt.Sprintf("bodies[%q]", bv.Body.Name)
		if st.Shape.Kind != rigid.Box {
			return false, fmt.Errorf("%s.shape: a body coupled with reduced domain %q must be a box (its outline is the box's cross-section), not a %s", path, r.name, rb.Shape)
		}
		rm := st.Frame()
		k := -1
		for a := 0; a < 3; a++ {
			if math.Abs(rm[a]*r.n[0]+rm[3+a]*r.n[1]+rm[6+a]*r.n[2]) >= 1-planeTol {
				k = a
			}
		}
		if k < 0 {
			return false, fmt.Errorf("%s.planeNormal: for reduced domain %q the plane normal %v must lie along one of the box's axes (its outline is then a rectangle)", path, r.name, st.PlaneNormal)
		}
		he := st.Shape.HalfExtents
		off := st.X.Sub(r.def.Origin).Dot(r.n)
		if math.Abs(off) > he[k] {
			continue // a parallel plane that does not cut the body
		}
		a, b := (k+1)%3, (k+2)%3
		if 2*he[a] >= r.def.Width || 2*he[b] >= r.def.Width || 2*he[a] >= r.def.Height || 2*he[b] >= r.def.Height {
			return false, fmt.Errorf("%s.size: a %.4g × %.4g m outline is too large for reduced domain %q of %.4g × %.4g m: each side must be shorter than both the width and the height", path, 2*he[a], 2*he[b], r.name, r.def.Width, r.def.Height)
		}
		ax := mgl64.Vec3{rm[a], rm[3+a], rm[6+a]}
		x, y := r.local(st.X)
		c := reducedBody{e: bv.Entity, id: bv.Body.ID, depth: 2 * he[k], axis: a, dynamic: st.Motion == rigid.Dynamic,
			he: [2]float64{he[a], he[b]}, name: bv.Body.Name,
			pos: reduced.BodyState{Position: reduced.Vec2{X: x, Y: y}, Angle: math.Atan2(ax.Dot(v), ax.Dot(u)),
				Velocity: reduced.Vec2{X: st.V.Dot(u), Y: st.V.Dot(v)}, AngularVelocity: st.W.Dot(r.n)}}
		if !r.contains(&c) {
			r.outside = append(r.outside, bv.Body.Name)
			continue
		}
		now = append(now, c)
	}
	changed := len(now) != len(r.coupled)
	for i := 0; !changed && i < len(now); i++ {
		changed = now[i].id != r.coupled[i].id
	}
	if changed {
		r.d.ClearBodies()
		for i := range now {
			c := &now[i]
			area := 4 * c.he[0] * c.he[1]
			rb := w.RigidBody(c.e)
			b, err := r.d.AddBody(reduced.BodyDef{Outline: reduced.BoxOutline(2*c.he[0], 2*c.he[1]), PanelsPerSide: []int{rb.ReducedPanels},
				Density: min(1e6, rb.State.Mass/c.depth/area), Position: c.pos.Position, Angle: c.pos.Angle,
				Velocity: c.pos.Velocity, AngularVelocity: c.pos.AngularVelocity, Kinematic: !c.dynamic})
			if err != nil {
				r.coupled = nil
				r.d.ClearBodies()
				return false, fmt.Errorf("bodies[%q]: reduced domain %q: %w", c.name, r.name, err)
			}
			c.b = b
		}
		r.coupled = now
		return true, nil
	}
	for i := range now {
		now[i].b = r.coupled[i].b
		if err := r.d.SetBodyState(now[i].b, now[i].pos); err != nil {
			return false, fmt.Errorf("bodies[%q]: reduced domain %q: %w", now[i].name, r.name, err)
		}
	}
	r.coupled = now
	return false, nil
}

// containsTol (relative to the domain's size) keeps a body whose outline touches a wall to
// round-off out of the coupling, so the package's own inside test never sees it outside.
const containsTol = 1e-9

// contains reports whether the body's outline lies inside the domain.
func (r *reducedDomain) contains(c *reducedBody) bool {
	s, co := math.Sincos(c.pos.Angle)
	ex := math.Abs(co)*c.he[0] + math.Abs(s)*c.he[1]
	ey := math.Abs(s)*c.he[0] + math.Abs(co)*c.he[1]
	p := c.pos.Position
	tol := containsTol * max(r.def.Width, r.def.Height)
	return p.X-ex >= tol && p.X+ex <= r.def.Width-tol && p.Y-ey >= tol && p.Y+ey <= r.def.Height-tol
}

// stepReduced advances every domain by dt with the bodies' present motion and queues the air's
// forces on the coupled dynamic bodies as one-step loads of this Step.
func (w *World) stepReduced(dt float64) error {
	for _, r := range w.red {
		if _, err := r.gather(w); err != nil {
			return err
		}
		r.d.ResetTiming()
		if err := r.d.StepFluid(dt); err != nil {
			return fmt.Errorf("reduced domain %q: %w", r.name, err)
		}
		u, v := r.def.AxisU.Normalize(), r.def.AxisV.Normalize()
		for i := range r.coupled {
			c := &r.coupled[i]
			if !c.dynamic {
				continue
			}
			f, tq := c.b.Force()
			w.addPending(c.id, c.e, u.Mul(f.X*c.depth).Add(v.Mul(f.Y*c.depth)), r.n.Mul(tq*c.depth))
		}
		tm := r.d.Timing()
		conv, _ := r.d.CouplingConverged()
		r.stats = systems.ReducedStats{Name: r.name, Modes: r.d.Modes(), Bodies: len(r.coupled), Panels: r.d.PanelCount(),
			Outside: append([]string(nil), r.outside...), CouplingIterations: r.d.CouplingIterations(), CouplingConverged: conv,
			Energy:   r.d.Energy(),
			AdvectMs: float64(tm.Advect) / 1e6, PanelsMs: float64(tm.Panels) / 1e6, ForcesMs: float64(tm.Bodies) / 1e6, FeedbackMs: float64(tm.Feedback) / 1e6}
		if len(r.coupled) == 0 {
			r.stats.CouplingIterations, r.stats.CouplingConverged = 0, true
		}
	}
	return nil
}

// reducedStats returns the domains' statistics of the last Step, in creation order.
func (w *World) reducedStats() []systems.ReducedStats {
	if len(w.red) == 0 {
		return nil
	}
	out := make([]systems.ReducedStats, len(w.red))
	for i, r := range w.red {
		out[i] = r.stats
	}
	return out
}
