package main

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/reduced"
)

// The stirring scene: a 1 × 1 m box of reduced air in the world's xy plane, walled, with five
// feathers (6 cm boxes of 1.5 kg/m³, planar in z = 0, coupled with 3 panels per side) on its
// floor under a weak gravity of 1 m/s². A stirrer (the mouse in the window, a scripted circle
// headless) pushes the air along with it; the feathers are blown about by the air, collide
// with the walls and each other through the world's rigid solver, and push the air back.

// stirSize (m) is the side of the domain.
const stirSize = 1.0

// Stirring: the stirrer adds the divergence-free part of a Gaussian blob of radius stirRadius
// moving with its velocity (capped at stirMaxSpeed), at the rate 1/stirTime (Eq. 5.4–5.5: the
// force is projected onto the basis and added as Δt·f̃).
const (
	stirRadius   = 0.08 // m
	stirMaxSpeed = 3.0  // m/s
	stirTime     = 0.05 // s
)

type stir struct {
	w        *sluice.World
	dom      sluice.Entity
	feathers []sluice.Entity
}

func newStir() (*stir, error) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.Gravity = mgl64.Vec3{0, -1, 0}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		return nil, err
	}
	st := &stir{w: w}
	const t, z = 0.05, 0.06
	walls := []struct {
		name   string
		lo, hi mgl64.Vec3
	}{
		{"floor", mgl64.Vec3{-t, -t, -z}, mgl64.Vec3{stirSize + t, 0, z}},
		{"ceiling", mgl64.Vec3{-t, stirSize, -z}, mgl64.Vec3{stirSize + t, stirSize + t, z}},
		{"left", mgl64.Vec3{-t, 0, -z}, mgl64.Vec3{0, stirSize, z}},
		{"right", mgl64.Vec3{stirSize, 0, -z}, mgl64.Vec3{stirSize + t, stirSize, z}},
	}
	for _, wl := range walls {
		if _, err := w.AddBoundaryBox(wl.name, wl.lo, wl.hi, false); err != nil {
			w.Close()
			return nil, err
		}
	}
	for i := 0; i < 5; i++ {
		b := components.DefaultRigidBody()
		b.Size, b.Density = mgl64.Vec3{0.06, 0.06, 0.06}, 1.5
		b.Position = mgl64.Vec3{0.2 + 0.15*float64(i), 0.031, 0}
		b.PlaneNormal, b.ReducedPanels = mgl64.Vec3{0, 0, 1}, 3
		e, err := w.AddRigidBody(fmt.Sprintf("feather%d", i), b)
		if err != nil {
			w.Close()
			return nil, err
		}
		st.feathers = append(st.feathers, e)
	}
	d := components.DefaultReducedDomain()
	d.Width, d.Height, d.Viscosity = stirSize, stirSize, 1e-4
	if st.dom, err = w.AddReducedDomain("air", d); err != nil {
		w.Close()
		return nil, err
	}
	return st, nil
}

// push moves the air along with a stirrer that went from `from` to `to` (world points in the
// domain's plane) in dt seconds.
func (s *stir) push(from, to mgl64.Vec3, dt float64) error {
	v := to.Sub(from).Mul(1 / dt)
	if l := v.Len(); l > stirMaxSpeed {
		v = v.Mul(stirMaxSpeed / l)
	}
	if v.Len() == 0 || to[0] < 0 || to[0] > stirSize || to[1] < 0 || to[1] > stirSize {
		return nil
	}
	d := s.w.ReducedDomain(s.dom)
	blob := func(x, y float64) (float64, float64) {
		g := math.Exp(-((x-to[0])*(x-to[0]) + (y-to[1])*(y-to[1])) / (stirRadius * stirRadius))
		return g * v[0], g * v[1]
	}
	f, err := d.Project(reduced.Field{Func: blob})
	if err != nil {
		return err
	}
	return d.AddScaled(f, dt/stirTime)
}

func (s *stir) energy() float64 { return s.w.ReducedDomain(s.dom).Energy() }

// stirHeadless runs the scripted stirrer of the window's screenshot run for 2 s at 60 steps
// per second and prints the air's energy and how far the feathers were blown.
func stirHeadless() error {
	s, err := newStir()
	if err != nil {
		return err
	}
	defer s.w.Close()
	const dt = 1.0 / 60
	fmt.Printf("stir: 1 × 1 m of reduced air, five 6 cm feathers of 1.5 kg/m³ on the floor (g = 1 m/s²), a stirrer circling at about 1.5 m/s through the lower half\n")
	start := make([]mgl64.Vec3, len(s.feathers))
	for i, e := range s.feathers {
		start[i] = s.w.RigidBody(e).State.X
	}
	for frame := 1; frame <= 120; frame++ {
		th := 2 * math.Pi * float64(frame) / 60
		th0 := th - 2*math.Pi/60
		from := mgl64.Vec3{0.5 + 0.25*math.Cos(th0), 0.3 + 0.22*math.Sin(th0), 0}
		to := mgl64.Vec3{0.5 + 0.25*math.Cos(th), 0.3 + 0.22*math.Sin(th), 0}
		if err := s.push(from, to, dt); err != nil {
			return err
		}
		st, err := s.w.Step(dt)
		if err != nil {
			return err
		}
		if frame%30 == 0 {
			r := st.Reduced[0]
			fmt.Printf("  t %.2f s  air energy %.4g m⁴/s²  %d feathers coupled, %d panels, %d sweeps\n", s.w.Time(), r.Energy, r.Bodies, r.Panels, r.CouplingIterations)
		}
	}
	for i, e := range s.feathers {
		st := s.w.RigidBody(e).State
		fmt.Printf("  feather%d: moved %.3f m, now at (%.3f, %.3f) m, speed %.3f m/s\n", i, st.X.Sub(start[i]).Len(), st.X[0], st.X[1], st.V.Len())
	}
	return nil
}
