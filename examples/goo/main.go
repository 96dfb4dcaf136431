// Command goo runs the viscoelastic scenes of Takahashi et al. 2015 in small, headless: a goo
// ball dropped on the floor with elastic and with plastic settings (Fig. 2), two balls merging
// and a ball thrown at a pillar splitting into lumps (Fig. 4), and a ball squeezed by a moving
// board (Fig. 7/8). Each scene is a scene file in scenes/ (also runnable with `sluice run`);
// the command prints what each scene shows and writes per-frame statistics and VTK frames.
//
//	go run ./examples/goo [-scene all|drop_elastic|drop_plastic|merge|split|squeeze] [-out out/goo] [-workers 0] [-frames 4]
//	CGO_ENABLED=1 go run -tags g3n ./examples/goo -window -scene split
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

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/examples/internal/runner"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/systems"
)

//go:embed scenes/*.json
var scenes embed.FS

var order = []string{"drop_elastic", "drop_plastic", "merge", "split", "squeeze"}

func main() {
	which := flag.String("scene", "all", "scene to run: all or one of "+strings.Join(order, ", "))
	out := flag.String("out", "out/goo", "output directory (one folder per scene: stats.jsonl and VTK frames)")
	workers := flag.Int("workers", 0, "worker threads (0: all cores)")
	frames := flag.Int("frames", 4, "exported frames per scene besides the first")
	flag.Parse()
	for _, name := range runner.Select("goo", scenes, order, *which) {
		if err := run(name, filepath.Join(*out, name), *workers, *frames); err != nil {
			fmt.Fprintf(os.Stderr, "goo: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}

// measure is what a scene prints each reported frame and at its end.
type measure struct {
	aspect     float64 // height/width of the goo's bounding box (the drops)
	lumps      []int   // lump sizes (merge, split)
	volume     float64 // volume inside the goo's surface (physics.ColorVolume), relative to the first frame
	height     float64 // goo height (squeeze)
	compressed float64 // largest compression ρ/ρ0 − 1 of a goo particle (0: none)
	connection int
}

func run(name, out string, workers, nframes int) error {
	sc, w, err := runner.Build(scenes, name, workers, 0)
	if err != nil {
		return err
	}
	defer w.Close()
	if *window {
		return windowed(w, name, sc.FPS)
	}
	rec, err := runner.Open(out, name, w)
	if err != nil {
		return err
	}
	defer rec.Close()
	n := int(sc.Duration*sc.FPS + 0.5)
	every := runner.Every(n, nframes)
	np := 0
	for _, b := range w.Bodies() {
		if b.Material.Viscoelastic.Enabled {
			np += b.Particles.Len()
		}
	}
	fmt.Printf("%s: %d goo particles, %.2g s at %g frames/s\n", name, np, sc.Duration, sc.FPS)
	start := time.Now()
	var v0, comp float64
	vmin, vmax := math.Inf(1), math.Inf(-1)
	var substeps, iters int
	var gooMs, stepMs float64
	for i := 1; i <= n; i++ {
		st, err := w.Step(1 / sc.FPS)
		if err != nil {
			return err
		}
		substeps += st.Substeps
		iters += st.PressureIterationsTotal
		gooMs += st.StageMs[systems.StageViscoelastic]
		for _, ms := range st.StageMs {
			stepMs += ms
		}
		if err := rec.Stats(st); err != nil {
			return err
		}
		m := measureGoo(w, st)
		if i == 1 {
			v0 = m.volume
		}
		vmin, vmax = math.Min(vmin, m.volume/v0), math.Max(vmax, m.volume/v0)
		comp = math.Max(comp, m.compressed)
		if i%every == 0 || i == n {
			fmt.Printf("  t = %.2f s  aspect %.2f  height %.3f m  V/V0 %.4f  compressed %.2f %%  lumps %v  connections %d\n",
				st.T, m.aspect, m.height, m.volume/v0, 100*m.compressed, m.lumps, m.connection)
			if err := rec.Frame(i); err != nil {
				return err
			}
		}
	}
	wall := time.Since(start).Seconds()
	fmt.Printf("  over all frames: V/V0 from %.4f to %.4f, largest compression %.2f %%\n", vmin, vmax, 100*comp)
	fmt.Printf("  %d substeps, %.2f pressure iterations per substep, goo stage %.1f %% of the step, %.2f µs per particle per substep, %.1f s wall\n",
		substeps, float64(iters)/float64(max(1, substeps)), 100*gooMs/max(stepMs, 1e-9), 1e6*wall/float64(max(1, substeps*np)), wall)
	return nil
}

// measureGoo measures the goo bodies together: bounding box, volume inside the surface
// (the colour field's ½ level set on cells of side r, physics.ColorVolume — not Σ m/ρ, which
// counts free-surface particles' missing neighbours as volume), lumps.
func measureGoo(w *sluice.World, st systems.StepStats) measure {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	var m measure
	var xs []physics.Vec3
	for _, b := range w.Bodies() {
		if !b.Material.Viscoelastic.Enabled {
			continue
		}
		for i, x := range b.Particles.X {
			for d := 0; d < 3; d++ {
				lo[d], hi[d] = math.Min(lo[d], x[d]), math.Max(hi[d], x[d])
			}
			m.compressed = math.Max(m.compressed, b.Particles.Density[i]/b.Material.RestDensity-1)
		}
		xs = append(xs, b.Particles.X...)
	}
	sim := w.Sim()
	m.volume = physics.ColorVolume(xs, sim.Volume0, &sim.Kernel, w.Settings().ParticleRadius)
	m.height = hi[1] - lo[1]
	m.aspect = m.height / (hi[0] - lo[0])
	m.lumps = w.Sim().Goo.Lumps(20)
	m.connection = st.GooConnections
	return m
}
