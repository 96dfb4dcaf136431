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

// Wind boxes in the world (docs/reduced.md): a model-reduced 3D wind (physics/reduced.Box) in
// an axis-aligned box, stepped once per World.Step before the substeps. Its fan relaxes the
// air in a ball towards the fan's velocity (Box.Relax); the wind then advects itself (Eq. 5.9)
// and acts on what is inside the box, one way:
//   - dynamic rigid bodies whose centre of mass is inside get the quadratic drag
//     F = ½ρ C_d A |u−v|(u−v), u the wind and v the body's velocity at its centre of mass, A the
//     cross-section πR² of the sphere of the body's volume, as a one-step load of the Step;
//   - fluid and goo particles inside take the wind's velocity at the rate particleDrag:
//     v ← u + (v − u)·exp(−rate·Δt), exact for dv/dt = rate·(u − v) with u frozen over the step.

// windBox is one wind box of the world.
type windBox struct {
	e     Entity
	name  string
	def   components.WindBox
	b     *reduced.Box
	fan   []float64 // Bᵀ(g u_fan)
	gram  []float64 // ∫ g b_k·b_l
	area  map[uint32]float64
	stats systems.WindStats
}

// AddWindBox adds a 3D wind box (see components.WindBox) and returns its entity, which
// World.Remove takes out again. Errors name the box and the key.
func (w *World) AddWindBox(name string, def components.WindBox) (Entity, error) {
	path := fmt.Sprintf("windBoxes[%q]", name)
	if w.sim.Settings.Dimensions == 2 {
		return Entity{}, fmt.Errorf("%s: a wind box is not available in a 2D world (solver.dimensions 2); see docs/2d.md", path)
	}
	if name == "" {
		return Entity{}, fmt.Errorf("wind box name must not be empty")
	}
	for _, x := range w.wind {
		if x.name == name {
			return Entity{}, fmt.Errorf("%s: a wind box of that name exists already", path)
		}
	}
	cfg, err := def.Config(path)
	if err != nil {
		return Entity{}, err
	}
	b, err := reduced.NewBox(cfg)
	if err != nil {
		return Entity{}, fmt.Errorf("%s: %w", path, err)
	}
	wb := &windBox{name: name, def: def, b: b, area: map[uint32]float64{}}
	if def.FanRadius > 0 {
		c := def.FanPosition.Sub(def.Min)
		r2 := def.FanRadius * def.FanRadius
		g := func(p [3]float64) float64 {
			dx, dy, dz := p[0]-c[0], p[1]-c[1], p[2]-c[2]
			return math.Exp(-(dx*dx + dy*dy + dz*dz) / r2)
		}
		u := def.FanVelocity
		wb.fan = b.Project(func(p [3]float64) [3]float64 {
			s := g(p)
			return [3]float64{s * u[0], s * u[1], s * u[2]}
		})
		wb.gram = b.WeightedGram(g)
	}
	wb.e = w.ecs.ECS.NewEntity()
	w.wind = append(w.wind, wb)
	return wb.e, nil
}

// WindBox returns the wind of entity e (coefficients, VelocityAt in the box's coordinates from
// its min corner, AddScaled to force it), or nil when e is not a wind box of this world.
func (w *World) WindBox(e Entity) *reduced.Box {
	for _, x := range w.wind {
		if x.e == e {
			return x.b
		}
	}
	return nil
}

// WindBoxByName returns the entity of the wind box with the given name.
func (w *World) WindBoxByName(name string) (Entity, bool) {
	for _, x := range w.wind {
		if x.name == name {
			return x.e, true
		}
	}
	return Entity{}, false
}

// WindAt returns the wind of box e at the world point p (m/s), zero outside the box.
func (w *World) WindAt(e Entity, p mgl64.Vec3) (mgl64.Vec3, error) {
	for _, x := range w.wind {
		if x.e == e {
			u, _ := x.at(p)
			return u, nil
		}
	}
	return mgl64.Vec3{}, fmt.Errorf("wind: entity %v is not a wind box of this world", e)
}

// at returns the wind at world point p and whether p is inside the box.
func (x *windBox) at(p mgl64.Vec3) (mgl64.Vec3, bool) {
	q := p.Sub(x.def.Min)
	s := x.b.Config().Size
	if !(q[0] >= 0 && q[0] <= s[0] && q[1] >= 0 && q[1] <= s[1] && q[2] >= 0 && q[2] <= s[2]) {
		return mgl64.Vec3{}, false
	}
	u := x.b.VelocityAt([3]float64{q[0], q[1], q[2]})
	return mgl64.Vec3{u[0], u[1], u[2]}, true
}

// removeWind removes wind box e and reports whether e was one.
func (w *World) removeWind(e Entity) bool {
	for i, x := range w.wind {
		if x.e == e {
			w.ecs.ECS.RemoveEntity(e)
			w.wind = slices.Delete(w.wind, i, i+1)
			return true
		}
	}
	return false
}

// stepWind advances every wind box by dt and applies it to the rigid bodies (one-step loads)
// and the fluid and goo particles inside it.
func (w *World) stepWind(dt float64) error {
	if len(w.wind) == 0 {
		return nil
	}
	bodies := w.Bodies()
	for _, x := range w.wind {
		if x.fan != nil {
			if err := x.b.Relax(x.fan, x.gram, x.def.FanTime, dt); err != nil {
				return fmt.Errorf("wind box %q: %w", x.name, err)
			}
		}
		if err := x.b.Step(dt); err != nil {
			return fmt.Errorf("wind box %q: %w", x.name, err)
		}
		x.stats = systems.WindStats{Name: x.name, Modes: x.b.Modes(), Energy: x.b.Energy()}
		decay := math.Exp(-x.def.ParticleDrag * dt)
		for _, bv := range bodies {
			if rb := w.RigidBody(bv.Entity); rb != nil {
				st := &rb.State
				if st.Motion != rigid.Dynamic || x.def.BodyDrag == 0 {
					continue
				}
				u, in := x.at(st.X)
				if !in {
					continue
				}
				a, ok := x.area[bv.Body.ID]
				if !ok {
					vol := st.Mass / rb.Density
					if sh, err := rb.Geometry(); err == nil {
						if mp, err := sh.Properties(1); err == nil {
							vol = mp.Mass
						}
					}
					r := math.Cbrt(3 * vol / (4 * math.Pi))
					a = math.Pi * r * r
					x.area[bv.Body.ID] = a
				}
				rel := u.Sub(st.V)
				f := rel.Mul(0.5 * x.def.Density * x.def.BodyDrag * a * rel.Len())
				w.addPending(bv.Body.ID, bv.Entity, f, mgl64.Vec3{})
				x.stats.Bodies++
				continue
			}
			if bv.Body.Phase != components.Fluid || x.def.ParticleDrag == 0 {
				continue
			}
			p := bv.Particles
			for i, xp := range p.X {
				if i >= len(p.V) {
					break
				}
				u, in := x.at(xp)
				if !in {
					continue
				}
				p.V[i] = u.Add(p.V[i].Sub(u).Mul(decay))
				x.stats.Particles++
			}
		}
	}
	return nil
}

// windStats returns the wind boxes' statistics of the last Step, in creation order.
func (w *World) windStats() []systems.WindStats {
	if len(w.wind) == 0 {
		return nil
	}
	out := make([]systems.WindStats, len(w.wind))
	for i, x := range w.wind {
		out[i] = x.stats
	}
	return out
}
