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
//     go run ./examples/wind [-scene all|draft|jet|game]
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"

	"github.com/sluicephysics/sluice/physics/reduced"
)

func main() {
	scene := flag.String("scene", "all", "scene to run: all, draft, jet or game")
	flag.Parse()
	run := map[string]func() error{"draft": draft, "jet": jet, "game": game}
	names := []string{"draft", "jet", "game"}
	if *scene != "all" {
		if run[*scene] == nil {
			fmt.Fprintf(os.Stderr, "wind: unknown -scene %q (all, draft, jet, game)\n", *scene)
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
