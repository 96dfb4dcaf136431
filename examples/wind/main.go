// Command wind runs the model-reduced fluid of physics/reduced (Gerszewski 2014, chapter 5)
// headless and prints what it measures:
//
//   - draft: Fig. 5.5's drafting example. Two 10 cm boxes fall in air, one 25 cm above the
//     other; the upper one falls in the wake the lower one drags along and catches up. Printed:
//     the gap between them over time, and how far the upper box fell next to the same box
//     falling alone, with the default (exact Galerkin) feedback and without feedback.
//
//   - jet: Fig. 5.4's jet with and without a data-driven mode. A narrow horizontal jet is
//     authored as a Go function, projected to be divergence-free and (in the enriched run)
//     added to 63 eigenmodes as one more mode (Eq. 5.10). The jet is excited at 2 m/s and run
//     for 0.25 s. Printed: the fraction of the jet's energy the basis captures, and the speed
//     on the jet's axis right after the excitation and at the end.
//
//   - game: the dissertation's game scene (73 modes, 65×65 grid, 15 bodies, 147 panels) on
//     one worker, gravity off (bodies drift in the wind; they have no contacts with each other,
//     so the scene is restored every 30 steps before they overlap), with the wall-clock time
//     per step of each stage for each feedback mode.
//
//   - world: the same drafting through sluice.World: the boxes are the world's rigid bodies,
//     planar in z = 0 (planeNormal) and coupled with the reduced air domain (reducedPanels);
//     then a kinematic paddle driven across still air (gravity off) pushes a box ahead of it
//     through the air alone before they touch. Printed: the gap, the per-step stats the world
//     reports for the domain, and the box's speed as the paddle approaches.
//
//   - stir: a small playable scene: five light boxes ("feathers") on the floor of a walled
//     1 × 1 m domain, the air stirred by a circling stirrer (headless) or by the mouse (with
//     -window in the g3n build). Printed: the air's energy and how far the feathers moved.
//
//     go run ./examples/wind [-scene all|draft|jet|game|world|stir]
//     CGO_ENABLED=1 go run -tags g3n ./examples/wind -window
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/reduced"
)

func main() {
	scene := flag.String("scene", "all", "scene to run: all, draft, jet, game, world or stir")
	flag.Parse()
	if *windowFlag {
		if err := windowed(); err != nil {
			fmt.Fprintln(os.Stderr, "wind:", err)
			os.Exit(1)
		}
		return
	}
	run := map[string]func() error{"draft": draft, "jet": jet, "game": game, "world": world, "stir": stirHeadless}
	names := []string{"draft", "jet", "game", "world", "stir"}
	if *scene != "all" {
		if run[*scene] == nil {
			fmt.Fprintf(os.Stderr, "wind: unknown -scene %q (all, draft, jet, game, world, stir)\n", *scene)
			os.Exit(2)
		}
		names = []string{*scene}
	}
	for _, n := range names {
		if err := run[n](); err != nil {
			fmt.Fprintln(os.Stderr, "wind:", err)
			os.Exit(1)
		}
	}
}

func draftConfig() reduced.Config {
	c := reduced.DefaultConfig()
	c.Width, c.Height = 1, 2
	c.CellsX, c.CellsY = 32, 64
	c.Modes = 67
	c.Viscosity = 1e-4
	return c
}

func box(y float64) reduced.BodyDef {
	return reduced.BodyDef{Outline: reduced.BoxOutline(0.1, 0.1), PanelsPerSide: []int{3}, Density: 1.5, Position: reduced.Vec2{X: 0.5, Y: y}}
}

func draft() error {
	const dt = 1.0 / 120
	for _, fb := range []reduced.FeedbackMode{reduced.FeedbackGalerkin, reduced.FeedbackOff} {
		c := draftConfig()
		c.Feedback = fb
		d, err := reduced.New(c)
		if err != nil {
			return err
		}
		lo, err := d.AddBody(box(1.5))
		if err != nil {
			return err
		}
		up, err := d.AddBody(box(1.75))
		if err != nil {
			return err
		}
		gap := func() float64 { return up.State().Position.Y - lo.State().Position.Y - 0.1 }
		gap0 := gap()
		fmt.Printf("draft (feedback %v): 1 × 2 m, %d modes, two 10 cm boxes of 1.5 kg/m² in air of %.1f kg/m³, gap %.3f m\n", fb, d.Modes(), c.Density, gap0)
		steps := 0
		for lo.State().Position.Y > 0.3 && steps < 2000 {
			if err := d.Step(dt); err != nil {
				return err
			}
			steps++
			if steps%24 == 0 {
				fmt.Printf("  t %.2f s  lower y %.3f m v %.3f m/s  upper y %.3f m v %.3f m/s  gap %.4f m\n", d.Time(), lo.State().Position.Y, lo.State().Velocity.Y, up.State().Position.Y, up.State().Velocity.Y, gap())
			}
		}
		iso, err := reduced.New(c)
		if err != nil {
			return err
		}
		one, err := iso.AddBody(box(1.75))
		if err != nil {
			return err
		}
		for range steps {
			if err := iso.Step(dt); err != nil {
				return err
			}
		}
		fmt.Printf("  end t %.3f s: gap %.4f m (shrank %.0f %%); upper box fell %.3f m, the same box alone %.3f m\n", d.Time(), gap(), 100*(1-gap()/gap0), 1.75-up.State().Position.Y, 1.75-one.State().Position.Y)
		d.Close()
		iso.Close()
	}
	return nil
}

// jetField is a narrow horizontal jet along y = 0.5 m between x = 0.15 and 0.85 m.
func jetField(x, y float64) (float64, float64) {
	dy := (y - 0.5) / 0.03
	w := 0.0
	if x > 0.15 && x < 0.85 {
		s := math.Sin(math.Pi * (x - 0.15) / 0.7)
		w = s * s
	}
	return w * math.Exp(-dy*dy), 0
}

func jet() error {
	const U, dt, T = 2.0, 1.0 / 120, 0.25
	c := reduced.DefaultConfig()
	c.Modes = 63
	c.Viscosity = 1e-4
	pj, err := reduced.ProjectField(c, reduced.Field{Func: jetField})
	if err != nil {
		return err
	}
	ax, _ := pj.VelocityAt(0.5, 0.5)
	fmt.Printf("jet: 1 × 1 m, 64×64 grid; the divergence-free jet has speed %.3f on its axis per unit intensity, norm %.4f\n", ax, pj.Norm())
	for _, enrich := range []bool{false, true} {
		cc := c
		label := "63 eigenmodes"
		if enrich {
			cc.Enrich = []reduced.Field{{Func: jetField}}
			label = "63 eigenmodes + 1 jet mode"
		}
		d, err := reduced.New(cc)
		if err != nil {
			return err
		}
		f, err := d.Project(reduced.Field{Func: jetField})
		if err != nil {
			return err
		}
		captured := 0.0
		for _, x := range f {
			captured += x * x
		}
		captured /= pj.Norm() * pj.Norm()
		if err := d.AddScaled(f, U/ax); err != nil {
			return err
		}
		u0, _ := d.ReducedVelocityAt(0.5, 0.5)
		for d.Time() < T-1e-12 {
			if err := d.AdvanceFluid(dt); err != nil {
				return err
			}
		}
		u1, _ := d.ReducedVelocityAt(0.5, 0.5)
		fmt.Printf("  %-27s (%d modes): captures %.1f %% of the jet's energy; axis speed %.3f m/s after exciting at %.1f m/s, %.3f m/s at t = %.2f s\n", label, d.Modes(), 100*captured, u0, U, u1, d.Time())
		d.Close()
	}
	return nil
}

func game() error {
	const dt, steps = 1.0 / 120, 120
	for _, fb := range []reduced.FeedbackMode{reduced.FeedbackGalerkin, reduced.FeedbackQuadtree, reduced.FeedbackNaive} {
		c := reduced.DefaultConfig()
		c.CellsX, c.CellsY, c.Modes, c.Viscosity, c.Workers, c.Feedback = 65, 65, 73, 1e-4, 1, fb
		c.Gravity = 0
		d, err := reduced.New(c)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewSource(15))
		r := make([]float64, d.Modes())
		for i := range r {
			r[i] = 0.05 * rng.NormFloat64()
		}
		if err := d.SetCoefficients(r); err != nil {
			return err
		}
		tri := []reduced.Vec2{{X: 0, Y: 0}, {X: 0.05, Y: 0}, {X: 0.025, Y: 0.05 * math.Sqrt(3) / 2}}
		for k := 0; k < 15; k++ {
			def := reduced.BodyDef{Density: 200, Position: reduced.Vec2{X: 0.15 + 0.175*float64(k%5), Y: 0.3 + 0.2*float64(k/5)},
				Angle: rng.Float64() * math.Pi, Velocity: reduced.Vec2{X: 0.2 * rng.NormFloat64(), Y: 0.2 * rng.NormFloat64()},
				AngularVelocity: rng.NormFloat64()}
			switch {
			case k < 9:
				def.Outline, def.PanelsPerSide = reduced.BoxOutline(0.05, 0.05), []int{3}
			case k < 12:
				def.Outline, def.PanelsPerSide = tri, []int{3}
			default:
				def.Outline, def.PanelsPerSide = reduced.BoxOutline(0.015, 0.015), []int{1}
			}
			if _, err := d.AddBody(def); err != nil {
				return err
			}
		}
		n := steps
		if fb == reduced.FeedbackNaive {
			n = 12 // the naive feedback is slow; fewer steps give the same per-step time
		}
		start := d.Save()
		if err := d.Step(dt); err != nil { // builds the quadtree's error table
			return err
		}
		d.ResetTiming()
		for i := range n {
			if i%30 == 0 {
				if err := d.Restore(start); err != nil {
					return err
				}
			}
			if err := d.Step(dt); err != nil {
				return err
			}
		}
		tm := d.Timing()
		ms := func(ns int64) float64 { return float64(ns) / float64(tm.Steps) / 1e6 }
		fmt.Printf("game (feedback %-8v): %d modes, %d bodies, %d panels; per step on one worker: advect %.3f ms, panel solve %.3f ms, bodies %.3f ms, feedback %.3f ms, total %.3f ms\n",
			fb, d.Modes(), len(d.Bodies()), d.PanelCount(), ms(tm.Advect), ms(tm.Panels), ms(tm.Bodies), ms(tm.Feedback), ms(tm.Advect+tm.Panels+tm.Bodies+tm.Feedback))
		d.Close()
	}
	return nil
}

// worldBox is a 10 cm box, 10 cm deep, planar in z = 0 and coupled with 3 panels per side.
func worldBox(kind string, density float64, x, y float64) components.RigidBody {
	b := components.DefaultRigidBody()
	b.Type, b.Size, b.Density = kind, mgl64.Vec3{0.1, 0.1, 0.1}, density
	b.Position = mgl64.Vec3{x, y, 0}
	b.PlaneNormal, b.ReducedPanels = mgl64.Vec3{0, 0, 1}, 3
	return b
}

func world() error {
	const dt = 1.0 / 120
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		return err
	}
	defer w.Close()
	lo, err := w.AddRigidBody("lower", worldBox("dynamic", 1.5, 0.5, 1.5))
	if err != nil {
		return err
	}
	up, err := w.AddRigidBody("upper", worldBox("dynamic", 1.5, 0.5, 1.75))
	if err != nil {
		return err
	}
	d := components.DefaultReducedDomain()
	d.Width, d.Height, d.CellsX, d.CellsY, d.Modes, d.Viscosity = 1, 2, 32, 64, 67, 1e-4
	if _, err := w.AddReducedDomain("air", d); err != nil {
		return err
	}
	gap := func() float64 { return w.RigidBody(up).State.X[1] - w.RigidBody(lo).State.X[1] - 0.1 }
	gap0 := gap()
	fmt.Printf("world draft: two planar world boxes of 1.5 kg/m³ in a reduced air domain (1 × 2 m, 67 modes), gap %.3f m\n", gap0)
	var st sluice.StepStats
	for n := 1; w.RigidBody(lo).State.X[1] > 0.3 && n < 2000; n++ {
		if st, err = w.Step(dt); err != nil {
			return err
		}
		if n%24 == 0 {
			fmt.Printf("  t %.2f s  lower y %.3f m  upper y %.3f m  gap %.4f m\n", w.Time(), w.RigidBody(lo).State.X[1], w.RigidBody(up).State.X[1], gap())
		}
	}
	r := st.Reduced[0]
	fmt.Printf("  end t %.3f s: gap %.4f m (shrank %.0f %%); last step: %d modes, %d bodies, %d panels, %d coupling sweeps, advect %.3f ms, panel solve %.3f ms, feedback %.3f ms\n",
		w.Time(), gap(), 100*(1-gap()/gap0), r.Modes, r.Bodies, r.Panels, r.CouplingIterations, r.AdvectMs, r.PanelsMs, r.FeedbackMs)

	// A kinematic paddle sweeps still air at 1 m/s towards a box 0.3 m ahead (gravity off):
	// the air it pushes reaches the box first.
	s.Gravity = mgl64.Vec3{}
	w2, err := sluice.NewWorld(s, 0)
	if err != nil {
		return err
	}
	defer w2.Close()
	pb := worldBox("kinematic", 1000, 0.15, 0.5)
	pb.Size = mgl64.Vec3{0.04, 0.3, 0.1}
	pb.Velocity = mgl64.Vec3{1, 0, 0}
	if _, err := w2.AddRigidBody("paddle", pb); err != nil {
		return err
	}
	box, err := w2.AddRigidBody("box", worldBox("dynamic", 1.5, 0.52, 0.5))
	if err != nil {
		return err
	}
	d2 := components.DefaultReducedDomain()
	d2.Modes, d2.Viscosity = 64, 1e-4
	if _, err := w2.AddReducedDomain("air", d2); err != nil {
		return err
	}
	fmt.Printf("world paddle: a kinematic 4 × 30 cm paddle at 1 m/s, a 10 cm box of 1.5 kg/m³ 0.3 m ahead, 1 × 1 m of still air\n")
	for n := 1; n <= 24; n++ {
		if _, err := w2.Step(dt); err != nil {
			return err
		}
		if n%4 == 0 {
			b := w2.RigidBody(box).State
			fmt.Printf("  t %.3f s  paddle front x %.3f m  box left x %.3f m  box v (%.3f, %.3f) m/s\n", w2.Time(), 0.17+w2.Time(), b.X[0]-0.05, b.V[0], b.V[1])
		}
	}
	return nil
}
