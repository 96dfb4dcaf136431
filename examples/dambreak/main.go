// Command dambreak runs a dam break headless: a 1.2 m cube of water collapses in a
// 3.2 m × 2 m × 1.2 m tank. It prints a summary and writes per-frame statistics and a few
// exported frames to -out. -obstacle adds a static box in the flow's path. -window (g3n build
// only) shows it in a window instead: the keys are listed in the window's HUD.
//
//	go run ./examples/dambreak [-r 0.025] [-duration 1] [-workers 0] [-out out/dambreak] [-format vtk] [-obstacle] [-cpuprofile FILE]
//	CGO_ENABLED=1 go run -tags g3n ./examples/dambreak -window [-obstacle] [-duration 1 -screenshot FILE.png]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/internal/cputime"
	"github.com/sluicephysics/sluice/physics/volumemap"
	"github.com/sluicephysics/sluice/scene"
)

func main() {
	r := flag.Float64("r", 0.025, "particle radius in m (0.025: 12167 particles, 0.0125: 103823)")
	duration := flag.Float64("duration", 1, "simulated time in s")
	workers := flag.Int("workers", 0, "worker threads (0: all cores)")
	maxErr := flag.Float64("maxerror", 0.001, "IISPH average density error η (fraction)")
	out := flag.String("out", "out/dambreak", "output directory (stats.jsonl and frames)")
	format := flag.String("format", "vtk", "frame format: vtk, ply, csv or bgeo")
	frames := flag.Int("frames", 5, "number of exported frames besides the first")
	obstacle := flag.Bool("obstacle", false, "add a static box obstacle in the flow's path")
	shot := flag.String("screenshot", "", "with -window: render -duration s of frames at 60 Hz, save the last as this PNG and exit")
	flag.Float64Var(&cfl, "cfl", components.DefaultSolver().CFL, "CFL factor λ of the substep dt = λ·2r/v_max (solver.cfl, range (0, 1])")
	flag.Float64Var(&warmStart, "warmstart", components.DefaultSolver().WarmStart, "IISPH warm start: fraction of the last substep's pressures the solve starts from (solver.warmStart)")
	flag.Float64Var(&maxErrPeak, "maxerrorpeak", components.DefaultSolver().MaxErrorPeak, "IISPH bound on every particle's predicted density error, 0 = off (solver.maxErrorPeak)")
	flag.Float64Var(&chebyshev, "chebyshev", components.DefaultSolver().Chebyshev, "IISPH Chebyshev acceleration: spectral radius ρ, 0 = plain relaxed Jacobi (solver.chebyshev, range [0, 1))")
	flag.IntVar(&chebyshevDelay, "chebyshevdelay", components.DefaultSolver().ChebyshevDelay, "IISPH: plain sweeps before the Chebyshev extrapolation starts (solver.chebyshevDelay, range [1, 1000])")
	flag.Float64Var(&dtMax, "dtmax", components.DefaultSolver().DtMax, "largest substep in s (solver.dtMax)")
	flag.StringVar(&wallModel, "wallmodel", components.DefaultSolver().WallModel, "how the water meets the walls: particles or volumeMaps (solver.wallModel); with volumeMaps the block stands volumemap.RestDistance − r off the walls, where its first layer rests")
	flag.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the frames' loop (steps and exports) to this file")
	flag.Parse()
	var err error
	if *shot != "" && !*window {
		err = fmt.Errorf("-screenshot %s needs -window", *shot)
	} else if *window {
		err = windowed(*r, *workers, *maxErr, *obstacle, *duration, *shot)
	} else {
		err = run(*r, *duration, *workers, *maxErr, *out, *format, *frames, *obstacle)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dambreak:", err)
		os.Exit(1)
	}
}

// cfl and dtMax are the -cfl and -dtmax flags: the solver's CFL factor and largest substep;
// warmStart, maxErrPeak, chebyshev and chebyshevDelay the -warmstart, -maxerrorpeak,
// -chebyshev and -chebyshevdelay flags of the IISPH solve.
var cfl, dtMax, warmStart, maxErrPeak, chebyshev float64
var chebyshevDelay int

// wallModel is the -wallmodel flag: solver.wallModel.
var wallModel string

// cpuProfile is the -cpuprofile flag: where run writes a CPU profile of its frames' loop.
var cpuProfile string

// newWorld builds the dam break: the tank, the water block and, with obstacle, a static
// 0.3 m × 0.6 m × 0.3 m box standing in the middle of the flow 0.8 m from the block.
func newWorld(r float64, workers int, maxErr float64, obstacle bool) (*sluice.World, error) {
	settings := components.DefaultSolver()
	settings.ParticleRadius = r
	settings.MaxError = maxErr
	settings.CFL, settings.DtMax = cfl, dtMax
	settings.WarmStart, settings.MaxErrorPeak = warmStart, maxErrPeak
	settings.Chebyshev, settings.ChebyshevDelay = chebyshev, chebyshevDelay
	settings.WallModel = wallModel
	w, err := sluice.NewWorld(settings, workers)
	if err != nil {
		return nil, err
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{3.2, 2, 1.2}, true); err != nil {
		w.Close()
		return nil, err
	}
	if obstacle {
		if _, err := w.AddBoundaryBox("obstacle", mgl64.Vec3{2.0, 0, 0.45}, mgl64.Vec3{2.3, 0.6, 0.75}, false); err != nil {
			w.Close()
			return nil, err
		}
	}
	water := components.DefaultMaterial()
	// Walls of samples hold the water's first layer one radius off, where the block's
	// sampling puts it; volume-mapped walls hold it RestDistance off their surface, so there
	// the block stands the difference off the floor and the three walls it touches.
	g := 0.0
	if wallModel == "volumeMaps" {
		o := volumemap.DefaultOptions(settings.SupportRadius(), r)
		o.VolumeFactor, o.Kernel = settings.WallMapVolume, settings.SmoothingKernel().Kind
		g = volumemap.RestDistance(o) - r
	}
	if _, err := w.AddFluidBlock("water", water, mgl64.Vec3{g, g, g}, mgl64.Vec3{1.2, 1.2, 1.2 - g}, mgl64.Vec3{}); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

func run(r, duration float64, workers int, maxErr float64, out, format string, nframes int, obstacle bool) error {
	f, err := scene.ParseFormat(format)
	if err != nil {
		return err
	}
	w, err := newWorld(r, workers, maxErr, obstacle)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	sf, err := os.Create(filepath.Join(out, "stats.jsonl"))
	if err != nil {
		return err
	}
	defer sf.Close()
	stats := bufio.NewWriter(sf)
	defer stats.Flush()
	if _, err := scene.WriteFile(out, "dambreak", 0, f, scene.FrameOf(w)); err != nil {
		return err
	}
	const fps = 60
	n := int(duration*fps + 0.5)
	every := max(1, n/max(1, nframes))
	if cpuProfile != "" {
		pf, err := os.Create(cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	cpu0 := float64(cputime.Nanos()) * 1e-9
	var substeps, iters, particles int
	var front float64
	var errSum, measSum, measMax, maxSpeed float64
	var frameMax []float64 // each frame's largest measured compression of a particle
	measured, removed := 0, 0
	stageMs := map[string]float64{}
	var stages []string // in the order they first ran
	for i := 1; i <= n; i++ {
		st, err := w.Step(1.0 / fps)
		if err != nil {
			return err
		}
		substeps += st.Substeps
		iters += st.PressureIterationsTotal
		errSum += st.DensityErrorAvg * float64(st.Substeps)
		measSum += st.DensityErrorMeasuredAvg * float64(st.DensityErrorMeasured)
		measured += st.DensityErrorMeasured
		measMax = max(measMax, st.DensityErrorMeasuredMax)
		frameMax = append(frameMax, st.DensityErrorMeasuredMax)
		maxSpeed = max(maxSpeed, st.MaxSpeed)
		for _, r := range st.Removed {
			removed += r.Count
		}
		particles = st.Particles
		front = st.Bodies[len(st.Bodies)-1].Max[0]
		for _, name := range w.ECS().Schedule.Names() {
			if ms, ok := st.StageMs[name]; ok {
				if _, seen := stageMs[name]; !seen {
					stages = append(stages, name)
				}
				stageMs[name] += ms
			}
		}
		line, _ := json.Marshal(st)
		stats.Write(append(line, '\n'))
		if i%every == 0 || i == n {
			if _, err := scene.WriteFile(out, "dambreak", i, f, scene.FrameOf(w)); err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "t = %.2f s  front x = %.3f m  %d substeps, %.1f iterations/substep\n", st.T, st.Bodies[len(st.Bodies)-1].Max[0], st.Substeps, st.PressureIterations)
		}
	}
	wall := time.Since(start).Seconds()
	cpu := float64(cputime.Nanos())*1e-9 - cpu0
	fmt.Printf("dam break: %d particles, %.2f s simulated, wall %.2f s\n", particles, w.Time(), wall)
	fmt.Printf("  %d substeps, %.2f pressure iterations per substep, average density error %.4f %% (solver's estimate), %.4f %% (measured after the substep)\n",
		substeps, float64(iters)/float64(substeps), 100*errSum/float64(substeps), 100*measSum/float64(max(measured, 1)))
	fmt.Printf("  largest compression of a particle %.3f %% (measured), %d particles left the domain\n", 100*measMax, removed)
	sort.Float64s(frameMax)
	fmt.Printf("  a frame's largest compression of a particle: median %.3f %%, 90th percentile %.3f %%; top speed %.2f m/s; front x = %.3f m\n",
		100*frameMax[len(frameMax)/2], 100*frameMax[len(frameMax)*9/10], maxSpeed, front)
	fmt.Printf("  %.3f µs per particle per substep (%d workers)\n", 1e6*wall/float64(substeps)/float64(particles), w.ECS().Pool.Workers())
	if cpu > 0 {
		// the process's CPU time over the steps (all workers, the frame export included)
		fmt.Printf("  %.3f µs of CPU per particle per substep, %.2f CPU s\n", 1e6*cpu/float64(substeps)/float64(particles), cpu)
	}
	// The split of the wall time: each stage's, and the rest of the steps (packing and
	// unpacking the bodies, the step size, the statistics) as "outside stages".
	perPS := func(ms float64) float64 { return 1e6 * ms / float64(substeps) / float64(particles) }
	inStages := 0.0
	for _, name := range stages {
		if ms := stageMs[name]; ms > 0.0005*1e3*wall {
			fmt.Printf("  %-24s %7.0f ns per particle per substep (%4.1f %%)\n", name, perPS(ms), ms/(10*wall))
		}
		inStages += stageMs[name]
	}
	rest := 1e3*wall - inStages
	fmt.Printf("  %-24s %7.0f ns per particle per substep (%4.1f %%)\n", "outside stages", perPS(rest), rest/(10*wall))
	fmt.Printf("  stats: %s, frames: %s/dambreak_*%s\n", filepath.Join(out, "stats.jsonl"), out, f.Ext())
	return nil
}
