// Command buoyancy runs the rigid-body scenes headless: crates of three densities dropped into
// a tank (pine floats high, oak low, stone sinks), a kinematic paddle that makes waves under a
// floating ball, and a stack of boxes with a bouncing ball and a tumbling capsule. Each scene is
// a scene file in scenes/ (also runnable with `sluice run`); the command prints every body's
// position, velocity and submerged fraction and writes per-frame statistics and VTK frames.
//
//	go run ./examples/buoyancy [-scene all|crates|paddle|stack] [-out out/buoyancy] [-workers 0] [-frames 4] [-duration S]
//	CGO_ENABLED=1 go run -tags g3n ./examples/buoyancy -window -scene crates [-duration 0.5 -screenshot FILE.png]
package main

import (
	"embed"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sluicephysics/sluice/examples/internal/runner"
	"github.com/sluicephysics/sluice/systems"
)

//go:embed scenes/*.json
var scenes embed.FS

var order = []string{"crates", "paddle", "stack"}

func main() {
	which := flag.String("scene", "all", "scene to run: all or one of "+strings.Join(order, ", "))
	out := flag.String("out", "out/buoyancy", "output directory (one folder per scene: stats.jsonl and VTK frames)")
	workers := flag.Int("workers", 0, "worker threads (0: all cores)")
	frames := flag.Int("frames", 4, "reported and exported frames per scene besides the first")
	duration := flag.Float64("duration", 0, "simulated seconds per scene (0: the scene file's)")
	shot := flag.String("screenshot", "", "with -window and one -scene: render -duration s (default 0.5) of frames, save the last as this PNG and exit")
	flag.Parse()
	switch {
	case *duration < 0:
		fmt.Fprintf(os.Stderr, "buoyancy: -duration %g s must be ≥ 0\n", *duration)
		os.Exit(2)
	case *shot != "" && (!*window || *which == "all"):
		fmt.Fprintf(os.Stderr, "buoyancy: -screenshot %s needs -window and one -scene\n", *shot)
		os.Exit(2)
	}
	for _, name := range runner.Select("buoyancy", scenes, order, *which) {
		if err := run(name, filepath.Join(*out, name), *workers, *frames, *duration, *shot); err != nil {
			fmt.Fprintf(os.Stderr, "buoyancy: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}

// run runs one scene headless, or in a window with -window; duration > 0 replaces the scene's.
func run(name, out string, workers, nframes int, duration float64, screenshot string) error {
	sc, w, err := runner.Build(scenes, name, workers, duration)
	if err != nil {
		return err
	}
	defer w.Close()
	if *window {
		return windowed(w, name, sc.FPS, duration, screenshot)
	}
	rec, err := runner.Open(out, name, w)
	if err != nil {
		return err
	}
	defer rec.Close()
	n := int(sc.Duration*sc.FPS + 0.5)
	every := runner.Every(n, nframes)
	fmt.Printf("%s: %.2g s at %g frames/s\n", name, sc.Duration, sc.FPS)
	for _, b := range w.Bodies() {
		if rb := w.RigidBody(b.Entity); rb != nil {
			fmt.Printf("  %-7s %-9s %-7s %5.2f kg, %d samples, displaced %d fluid particles\n", b.Body.Name, rb.Type, rb.Shape, rb.State.Mass, len(rb.State.Samples), rb.Displaced)
		}
	}
	start := time.Now()
	substeps := 0
	for i := 1; i <= n; i++ {
		st, err := w.Step(1 / sc.FPS)
		if err != nil {
			return err
		}
		substeps += st.Substeps
		if err := rec.Stats(st); err != nil {
			return err
		}
		if i%every == 0 || i == n {
			report(st)
			if err := rec.Frame(i); err != nil {
				return err
			}
		}
	}
	fmt.Printf("  %d substeps, %.1f s wall\n", substeps, time.Since(start).Seconds())
	return nil
}

// report prints each rigid body's position, speed and submerged fraction.
func report(st systems.StepStats) {
	fmt.Printf("  t = %.2f s\n", st.T)
	for _, b := range st.Bodies {
		if r := b.Rigid; r != nil {
			v := r.Velocity
			fmt.Printf("    %-7s at (%.3f, %.3f, %.3f) m, speed %.3f m/s, %3.0f %% under water, %d contacts\n",
				b.Name, r.Position[0], r.Position[1], r.Position[2], norm(v), 100*r.Submerged, r.Contacts)
		}
	}
}

func norm(v [3]float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }
