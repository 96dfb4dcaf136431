// Command sluice runs sluice scenes headless and, in the g3n build (-tags g3n, cgo), shows
// them in a window.
//
// SCENE may be a native sluice scene or a SPlisHSPlasH scene (docs/splishsplash.md).
//
//	sluice run SCENE.json [--duration S] [--out DIR] [--stats FILE.jsonl] [--export vtk|ply|csv|bgeo] [--fields a,b,…] [--every N | --export-fps F] [--workers N] [--poses FILE.csv] [--map-cache DIR] [--cpuprofile FILE] [--solver KEY=VALUE …]
//	sluice resume SNAPSHOT --duration S [flags]
//	sluice validate SCENE.json
//	sluice view SCENE.json [--screenshot FILE.png --frames N] (g3n build: go build -tags g3n)
//	sluice params
//	sluice presets [NAME]
//	sluice schema > sluice.schema.json
//
// run simulates the scene, shows a progress bar on stderr, writes one JSON object per frame to
// the stats file, particle frames to --out (the initial state, every N-th frame and the final
// state) and, with --poses, the rigid bodies' pose track (one CSV row per body per frame).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/presets"
	"github.com/sluicephysics/sluice/scene"
	"github.com/sluicephysics/sluice/systems"
)

const usage = `usage:
  sluice run SCENE.json [--duration S] [--out DIR] [--stats FILE.jsonl] [--export vtk|ply|csv|bgeo] [--fields a,b,…]
             [--every N | --export-fps F] [--workers N] [--fps F] [--save SNAP] [--poses FILE.csv] [--map-cache DIR]
             [--cpuprofile FILE] [--solver KEY=VALUE …]   (sets the scene's solver settings, e.g. --solver pfTolerance=1e-3)
  sluice resume SNAP --duration S [same flags]   (continues a snapshot bit-identically)
  sluice validate SCENE.json
  sluice view SCENE.json [--screenshot FILE.png --frames N] [--width W] [--height H] [--rate HZ] [--color MODE] [--workers N]
                         (opens a window; needs the g3n build: CGO_ENABLED=1 go build -tags g3n)
  sluice plot STATS.jsonl [--out FILE.svg] [--keys a,b,…]   (charts of a run's statistics over time, SVG)
  sluice params          (prints the parameter reference as Markdown, from the declarations)
  sluice presets [NAME]  (lists the material presets, or prints one to copy and edit)
  sluice schema          (prints the JSON Schema of native scene files)
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "sluice:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr, false)
	case "resume":
		return cmdRun(args[1:], stdout, stderr, true)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "view":
		return cmdView(args[1:], stdout, stderr)
	case "plot":
		return cmdPlot(args[1:], stdout, stderr)
	case "params":
		return cmdParams(stdout)
	case "schema":
		return cmdSchema(stdout)
	case "presets":
		return cmdPresets(args[1:], stdout)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// splitArgs separates the scene path from flags so flags may come before or after it.
func splitArgs(args []string) (pos, flags []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
			if !strings.Contains(a, "=") && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return
}

// cmdValidate checks a scene file as run does before simulating: decoding, ranges, and
// building the world (meshes, particle files, sampling).
func cmdValidate(args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 {
		return errors.New("validate takes one scene file")
	}
	s, warns, err := scene.LoadAny(args[0])
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %s\n", w) // stderr, as run writes them
	}
	if err != nil {
		return err
	}
	for _, w := range s.Advice() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	// Build the world as run would, reading the meshes and particle files and sampling every
	// body, so that validate fails wherever run would fail before its first step.
	w, err := s.Build(1)
	if err != nil {
		return err
	}
	w.Close()
	goo := 0
	for _, f := range s.Fluids {
		if f.Material.Viscoelastic.Enabled {
			goo++
		}
	}
	for _, f := range s.Spheres {
		if f.Material.Viscoelastic.Enabled {
			goo++
		}
	}
	for _, f := range s.Models {
		if f.Material.Viscoelastic.Enabled {
			goo++
		}
	}
	for _, f := range s.Emitters {
		if f.Material.Viscoelastic.Enabled {
			goo++
		}
	}
	for _, f := range s.FluidMeshes {
		if f.Material.Viscoelastic.Enabled {
			goo++
		}
	}
	fmt.Fprintf(stdout, "%s: valid (%d fluid blocks, %d fluid spheres, %d fluid models, %d fluid meshes, %d emitters, %d of them goo; %d elastic bodies, %d elastoplastic bodies; %d boundary boxes, %d boundary meshes, %d rigid bodies; r = %g m, %g s)\n",
		args[0], len(s.Fluids), len(s.Spheres), len(s.Models), len(s.FluidMeshes), len(s.Emitters), goo, len(s.Elastic), len(s.Elastoplastic), len(s.Boundaries), len(s.Meshes), len(s.Rigid), s.Solver.ParticleRadius, s.Duration)
	return nil
}

// Limits of the run flags: beyond them a run would print nothing for hours or exhaust memory
// before its first frame, which is a typing mistake rather than a plan.
const (
	maxDuration = 1e6  // s of simulated time
	maxFPS      = 1e4  // frames per simulated second
	maxFrames   = 1e7  // frames in one run
	maxWorkers  = 4096 // worker threads
)

// makeParent creates the directory a file will be written to when it is missing, and says so.
func makeParent(path string, stderr io.Writer) error {
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "created directory %s for %s\n", dir, path)
	return nil
}

// cmdRun runs a scene (or, with resume, continues a snapshot written by --save).
func cmdRun(args []string, stdout, stderr io.Writer, resume bool) error {
	pos, flagArgs := splitArgs(args)
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	duration := fs.Float64("duration", 0, "simulated time in s (overrides the scene's duration)")
	out := fs.String("out", "", "directory for exported frames")
	statsPath := fs.String("stats", "", "file for per-frame statistics (JSON lines)")
	export := fs.String("export", "", "export format: vtk, ply, csv or bgeo (default vtk when --out is given)")
	fieldList := fs.String("fields", "", "exported per-particle fields, comma-separated (available: "+strings.Join(scene.FieldNames(), ", ")+"; default "+strings.Join(scene.DefaultFields, ",")+"; position and body are always written)")
	every := fs.Int("every", 10, "export every N-th frame (the first and last are always written)")
	exportFPS := fs.Float64("export-fps", 0, "export frames at this rate per simulated second instead of every N-th frame (the first and last are always written)")
	workers := fs.Int("workers", 0, "worker threads (0: all cores); results do not depend on it")
	save := fs.String("save", "", "write a snapshot of the final state to this file (continue it with sluice resume)")
	fps := fs.Float64("fps", 0, "frames per simulated second (0: the scene's; when resuming, the saved run's)")
	posesPath := fs.String("poses", "", "file for the rigid bodies' pose track (CSV: one row per body at t = 0 and after every frame)")
	surfaceFmt := fs.String("export-surface", "", "also write each fluid body's surface as a triangle mesh on the exported frames: obj or ply (needs --out)")
	surfaceCell := fs.Float64("surface-cell", 0, "grid cell of the surface meshes in m (0: the particle radius r)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the stepping (not of loading the scene) to this file, for go tool pprof")
	mapCache := fs.String("map-cache", "", "folder for the walls' volume maps (solver.wallModel volumeMaps): read there, or built and stored there (made if missing); the results are the same")
	var solverSet solverSettings
	fs.Var(&solverSet, "solver", "KEY=VALUE: set a setting of the scene's solver block (its name in a native scene, e.g. pfTolerance=1e-3; JSON value); repeatable, imported scenes included")
	if err := fs.Parse(flagArgs); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // the flag set printed the usage: asking for it is not a failure
		}
		return err
	}
	if len(pos) != 1 {
		return errors.New("run takes one scene file")
	}
	if !(*duration >= 0 && *duration <= maxDuration) {
		return fmt.Errorf("--duration %g s must be in [0, %g] (0: the scene's)", *duration, float64(maxDuration))
	}
	if *workers < 0 || *workers > maxWorkers {
		return fmt.Errorf("--workers %d must be in [0, %d] (0: all cores)", *workers, maxWorkers)
	}
	if *every < 1 {
		return fmt.Errorf("--every %d must be ≥ 1", *every)
	}
	everySet := false
	fs.Visit(func(f *flag.Flag) { everySet = everySet || f.Name == "every" })
	if *exportFPS < 0 || math.IsNaN(*exportFPS) || math.IsInf(*exportFPS, 0) {
		return fmt.Errorf("--export-fps %g must be a rate > 0", *exportFPS)
	}
	if *exportFPS > 0 && everySet {
		return errors.New("--every and --export-fps both choose the exported frames: give one")
	}
	var format scene.Format
	if *export != "" || *out != "" {
		f := *export
		if f == "" {
			f = "vtk"
		}
		var err error
		if format, err = scene.ParseFormat(f); err != nil {
			return fmt.Errorf("--export: %w", err)
		}
		if *out == "" {
			return errors.New("--export needs --out DIR")
		}
	}
	var fields []string
	if *fieldList != "" {
		var err error
		if fields, err = scene.ParseFields(*fieldList); err != nil {
			return fmt.Errorf("--fields: %w", err)
		}
		if *out == "" {
			return errors.New("--fields needs --out DIR")
		}
	}
	var surf scene.SurfaceFormat
	if *surfaceFmt != "" {
		var err error
		if surf, err = scene.ParseSurfaceFormat(*surfaceFmt); err != nil {
			return fmt.Errorf("--export-surface: %w", err)
		}
		if *out == "" {
			return errors.New("--export-surface needs --out DIR")
		}
	}
	if !(*surfaceCell >= 0 && *surfaceCell <= 1e3) {
		return fmt.Errorf("--surface-cell %g m must be in [0, 1000] (0: the particle radius)", *surfaceCell)
	}
	if !(*fps >= 0 && *fps <= maxFPS) {
		return fmt.Errorf("--fps %g must be in [0, %g] frames per simulated second (0: the scene's)", *fps, float64(maxFPS))
	}
	if *exportFPS > maxFPS {
		return fmt.Errorf("--export-fps %g must be at most %g", *exportFPS, float64(maxFPS))
	}
	// Every file the run will write is opened before it starts, so a path that cannot be
	// written fails now, not after the simulation.
	for _, o := range []struct{ flag, path string }{{"--stats", *statsPath}, {"--poses", *posesPath}, {"--save", *save}} {
		if o.path == "" {
			continue
		}
		if err := makeParent(o.path, stderr); err != nil {
			return fmt.Errorf("%s: %w", o.flag, err)
		}
	}
	var saveFile *os.File
	if *save != "" {
		f, err := os.Create(*save)
		if err != nil {
			return fmt.Errorf("--save: %w", err)
		}
		saveFile = f
		defer func() {
			if saveFile != nil { // the run failed before writing it: no empty snapshot left behind
				saveFile.Close()
				os.Remove(*save)
			}
		}()
	}
	var w *sluice.World
	simDuration, frameRate := *duration, *fps
	prefix := strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0]))
	var cont runNote // where a resumed run goes on from
	if resume && len(solverSet) > 0 {
		return errors.New("--solver: a resumed run keeps the saved run's solver settings")
	}
	if resume {
		if simDuration == 0 {
			return errors.New("resume needs --duration S (the simulated time to add)")
		}
		f, err := os.Open(pos[0])
		if err != nil {
			return err
		}
		w, err = sluice.Restore(f, *workers)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		if note := w.Note(); len(note) > 0 {
			if err := json.Unmarshal(note, &cont); err != nil || !(cont.FrameDt > 0) || cont.Frame < 0 {
				return fmt.Errorf("%s: the snapshot's run note %q is not this tool's", pos[0], note)
			}
			prefix = cont.Prefix
		}
		if frameRate == 0 {
			frameRate = 60
			if cont.FrameDt > 0 {
				frameRate = 1 / cont.FrameDt
			}
		}
	} else {
		sc, warns, err := scene.LoadAny(pos[0])
		for _, w := range warns {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		if err != nil {
			return err
		}
		if err := applySolverSettings(&sc.Solver, solverSet); err != nil {
			return err
		}
		for _, w := range sc.Advice() {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		if simDuration == 0 {
			simDuration = sc.Duration
		}
		if frameRate == 0 {
			frameRate = sc.FPS
		}
		if w, err = sc.Build(*workers); err != nil {
			return err
		}
	}
	defer w.Close()
	w.SetVolumeMapCache(*mapCache)

	var stats *bufio.Writer
	if *statsPath != "" {
		f, err := os.Create(*statsPath)
		if err != nil {
			return err
		}
		defer f.Close()
		stats = bufio.NewWriter(f)
		defer stats.Flush()
	}
	var poses *scene.PoseWriter
	if *posesPath != "" {
		f, err := os.Create(*posesPath)
		if err != nil {
			return err
		}
		defer f.Close()
		if poses, err = scene.NewPoseWriter(f, w); err != nil {
			return fmt.Errorf("--poses: %w", err)
		}
		if poses.Bodies() == 0 {
			fmt.Fprintf(stderr, "warning: --poses: the scene has no rigid bodies; %s holds the header only\n", *posesPath)
		}
		defer poses.Flush()
		if err := poses.Write(w); err != nil {
			return fmt.Errorf("--poses: %w", err)
		}
	}
	exportFrame := func(i int) error {
		if surf != "" {
			if _, err := scene.WriteSurfaceFiles(*out, prefix, cont.Frame+i, surf, w, *surfaceCell); err != nil {
				return fmt.Errorf("--export-surface: %w", err)
			}
		}
		if format == "" {
			return nil
		}
		fr := scene.FrameOf(w)
		fr.Fields = fields
		_, err := scene.WriteFile(*out, prefix, cont.Frame+i, format, fr)
		return err
	}
	if err := exportFrame(0); err != nil {
		return err
	}
	if n := simDuration * frameRate; n > maxFrames {
		return fmt.Errorf("%g s at %g frames per second is %.3g frames, more than %g: lower --duration or --fps", simDuration, frameRate, n, float64(maxFrames))
	}
	frames := max(1, int(math.Ceil(simDuration*frameRate-1e-9)))
	frameDt := simDuration / float64(frames)
	if resume && *fps == 0 && cont.FrameDt > 0 {
		// the saved run's own frame length, so the resumed frames are its frames
		frameDt = cont.FrameDt
		frames = max(1, int(math.Round(simDuration/frameDt)))
		if math.Abs(float64(frames)*frameDt-simDuration) > 1e-9*simDuration {
			fmt.Fprintf(stderr, "warning: --duration %g s is not a whole number of the saved run's %g s frames: running %d frames (%g s)\n", simDuration, frameDt, frames, float64(frames)*frameDt)
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	lastExport := 0
	bar := newProgress(stderr, frames)
	start := time.Now()
	var iters, errSum, measSum float64
	measured := 0
	var substeps, particles, removed, held, cg, cgSolves int
	var diff *systems.DiffuseStats // the last step's diffuse particles, if on
	diffGenerated, diffPeak := 0, 0
	gone := map[string]bool{} // rigid bodies reported outside the domain
	for i := 1; i <= frames; i++ {
		st, err := w.Step(frameDt)
		if err != nil {
			bar.done()
			return fmt.Errorf("frame %d (t = %.4g s): %w", i, w.Time(), err)
		}
		iters += st.PressureIterations * float64(st.Substeps)
		errSum += st.DensityErrorAvg * float64(st.Substeps)
		measSum += st.DensityErrorMeasuredAvg * float64(st.DensityErrorMeasured)
		measured += st.DensityErrorMeasured
		substeps += st.Substeps
		particles = st.Particles // the SPH particles, plus the FLIP liquids' own
		for _, f := range st.Flip {
			particles += f.Particles
		}
		cg += st.ElasticIterationsTotal
		cgSolves += st.ElasticSolves
		if st.Diffuse != nil {
			diff = st.Diffuse
			diffGenerated += diff.Generated
			diffPeak = max(diffPeak, diff.Spray+diff.Foam+diff.Bubbles)
		}
		if st.EmitterHeld > 0 && held == 0 {
			bar.note(fmt.Sprintf("t = %.4g s: emitter layers wait: particles stand where they would flow (each leaves from its nozzle when there is room; emitterHeld in --stats)", st.T))
		}
		held += st.EmitterHeld
		for _, r := range st.Removed {
			removed += r.Count
			bar.note(fmt.Sprintf("t = %.4g s: %d particles of %q left the domain and were removed", r.Time, r.Count, r.Body))
		}
		for _, name := range st.RigidOutside {
			if !gone[name] {
				gone[name] = true
				bar.note(fmt.Sprintf("t = %.4g s: rigid body %q left the domain (its centre of mass is outside it)", st.T, name))
			}
		}
		if stats != nil {
			line, err := json.Marshal(st)
			if err != nil {
				return err
			}
			stats.Write(line)
			stats.WriteByte('\n')
		}
		if poses != nil {
			if err := poses.Write(w); err != nil {
				return fmt.Errorf("--poses: %w", err)
			}
		}
		if due := exportDue(i, *every, *exportFPS, frameDt, &lastExport); due || i == frames {
			if err := exportFrame(i); err != nil {
				return err
			}
		}
		bar.update(i, st.T, particles, st.PressureIterations, st.DensityErrorAvg)
	}
	bar.done()
	if poses != nil {
		if err := poses.Flush(); err != nil {
			return fmt.Errorf("--poses: %w", err)
		}
	}
	if saveFile != nil {
		f := saveFile
		saveFile = nil
		note, err := json.Marshal(runNote{FrameDt: frameDt, Frame: cont.Frame + frames, Prefix: prefix})
		if err != nil {
			return err
		}
		w.SetNote(note)
		if err := writeSnapshot(w, f); err != nil {
			os.Remove(*save)
			return fmt.Errorf("--save: %w", err)
		}
		fmt.Fprintf(stdout, "snapshot at t = %.6g s written to %s\n", w.Time(), *save)
	}
	wall := time.Since(start).Seconds()
	fmt.Fprintf(stdout, "%s: %d particles, %.3g s simulated in %d frames / %d substeps, wall %.2f s (%.1f ms/substep, %.3f µs/particle/substep)\n",
		pos[0], particles, w.Time(), frames, substeps, wall, 1e3*wall/float64(max(substeps, 1)), 1e6*wall/float64(max(substeps, 1))/float64(max(particles, 1)))
	fmt.Fprintf(stdout, "pressure iterations %.2f per substep, average density error %.4f %% (solver's estimate), %.4f %% (measured after the substep), %d particles removed\n",
		iters/float64(max(substeps, 1)), 100*errSum/float64(max(substeps, 1)), 100*measSum/float64(max(measured, 1)), removed)
	if held > 0 {
		fmt.Fprintf(stdout, "emitter layers waited %d times for room at their nozzles\n", held)
	}
	if cgSolves > 0 {
		fmt.Fprintf(stdout, "elastic CG iterations %.2f per solve\n", float64(cg)/float64(cgSolves))
	}
	if diff != nil {
		fmt.Fprintf(stdout, "diffuse particles: %d generated, at most %d at once; at the end %d spray, %d foam, %d bubbles\n",
			diffGenerated, diffPeak, diff.Spray, diff.Foam, diff.Bubbles)
	}
	return nil
}

// exportDue reports whether frame i (i·frameDt after the run's start) is exported: every N-th
// frame, or with a rate, the first frame at or after each multiple of 1/rate (lastExport holds
// the last multiple written). The multiples are counted from frame numbers, so the choice does
// not drift with round-off.
func exportDue(i, every int, rate, frameDt float64, lastExport *int) bool {
	if rate <= 0 {
		return i%every == 0
	}
	k := int(math.Floor(float64(i)*frameDt*rate + 1e-9))
	if k > *lastExport {
		*lastExport = k
		return true
	}
	return false
}

// progress draws a bar on a terminal, or prints a line every 10 % when stderr is a file/pipe.
type progress struct {
	w        io.Writer
	total    int
	tty      bool
	lastTen  int
	start    time.Time
	lastDraw time.Time
}

func newProgress(w io.Writer, total int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progress{w: w, total: total, tty: tty, start: time.Now()}
}

func (p *progress) line(i int, t float64, n int, it, e float64) string {
	frac := float64(i) / float64(p.total)
	const width = 30
	filled := int(frac * width)
	el := time.Since(p.start).Seconds()
	eta := 0.0
	if frac > 0 {
		eta = el * (1 - frac) / frac
	}
	return fmt.Sprintf("[%s%s] %3.0f%% t=%.3fs frame %d/%d %d particles, %.1f it/substep, err %.3f%%, %.0fs left",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), 100*frac, t, i, p.total, n, it, 100*e, eta)
}

func (p *progress) update(i int, t float64, n int, it, e float64) {
	if p.tty {
		if time.Since(p.lastDraw) > 100*time.Millisecond || i == p.total {
			fmt.Fprintf(p.w, "\r%s", p.line(i, t, n, it, e))
			p.lastDraw = time.Now()
		}
		return
	}
	if ten := 10 * i / p.total; ten > p.lastTen || i == p.total {
		p.lastTen = ten
		fmt.Fprintln(p.w, p.line(i, t, n, it, e))
	}
}

func (p *progress) note(msg string) {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, msg)
}

func (p *progress) done() {
	if p.tty {
		fmt.Fprintln(p.w)
	}
}

// cmdParams prints every declared scene parameter as Markdown tables: the declarations in
// components and scene are the single source of names, units, defaults, ranges and docs.
func cmdParams(stdout io.Writer) error {
	for _, sec := range []struct {
		title string
		v     any
	}{
		{"scene (top level)", scene.Scene{}},
		{"solver", components.Solver{}},
		{"solver.diffuse (spray, foam and bubbles, Ihmsen et al. 2012)", components.Diffuse{}},
		{"fluids[i]", scene.FluidBlock{}},
		{"fluidSpheres[i]", scene.FluidSphere{}},
		{"fluidModels[i]", scene.FluidModel{}},
		{"emitters[i]", scene.Emitter{}},
		{"fluidMeshes[i]", scene.FluidMesh{}},
		{"elasticBodies[i]", scene.ElasticBody{}},
		{"elastoplasticBodies[i]", scene.ElastoplasticBody{}},
		{"flipBodies[i]", scene.FlipBody{}},
		{"flipBodies[i].flip (FLIP liquids, Gerszewski 2014 ch. 3)", components.FlipLiquid{}},
		{"fluids[i].material, fluidSpheres[i].material, fluidModels[i].material, emitters[i].material, fluidMeshes[i].material, elasticBodies[i].material, elastoplasticBodies[i].material, flipBodies[i].material", components.Material{}},
		{"….material.viscoelastic (goo, Takahashi et al. 2015)", components.Viscoelastic{}},
		{"….material.micropolar (micropolar vorticity, Bender et al. 2019)", components.Micropolar{}},
		{"….material.elastic (elastic solids, Peer et al. 2018)", components.ElasticSolid{}},
		{"….material.elastoplastic (elastoplastic solids, Gerszewski et al. 2009)", components.ElastoplasticSolid{}},
		{"boundaries[i]", scene.BoundaryBox{}},
		{"boundaries[i].motion[k]", components.MotionKey{}},
		{"boundaryMeshes[i]", scene.BoundaryMesh{}},
		{"rigidBodies[i]", scene.RigidBody{}},
		{"rigidBodies[i].motion[k]", components.MotionKey{}},
		{"joints[i]", scene.Joint{}},
		{"joints[i].motorSchedule[k]", components.MotorKey{}},
		{"reducedDomains[i] (model-reduced air, Gerszewski 2014 ch. 5)", scene.ReducedDomain{}},
		{"windBoxes[i] (model-reduced 3D wind)", scene.WindBox{}},
		{"animationFields[i] (math expressions set the fluid's velocity, microrotation or position in a shape)", scene.AnimationField{}},
	} {
		fmt.Fprintf(stdout, "\n`%s`\n\n| key | unit | default | range | meaning |\n| --- | --- | --- | --- | --- |\n", sec.title)
		for _, p := range params.Describe(sec.v) {
			def := p.Default
			if p.Required {
				def = "required"
			}
			fmt.Fprintf(stdout, "| `%s` | %s | %s | %s | %s |\n", p.Name, p.Unit, def, p.Range, p.Doc)
		}
	}
	return nil
}

// cmdPresets lists the embedded material presets with their main values, or prints the JSON
// of one (to redirect into a scene's presets/ folder and edit).
func cmdPresets(args []string, stdout io.Writer) error {
	if len(args) > 1 {
		return errors.New("presets takes at most one preset name")
	}
	if len(args) == 1 {
		if _, err := scene.Preset(args[0], ""); err != nil {
			return err
		}
		data, _ := presets.Read(args[0])
		_, err := stdout.Write(data)
		return err
	}
	fmt.Fprintln(stdout, "material presets (use \"preset\": \"NAME\" in a material; sluice presets NAME prints one):")
	for _, n := range scene.PresetNames() {
		m, err := scene.Preset(n, "")
		if err != nil {
			return err
		}
		kind := "fluid"
		if m.Viscoelastic.Enabled {
			kind = fmt.Sprintf("goo (c = %g, α = %g, w = %g 1/s)", m.Viscoelastic.C, m.Viscoelastic.Alpha, m.Viscoelastic.W)
		}
		// A preset that sets the elastic group is meant for elasticBodies (the group does
		// nothing in a fluid), so it is listed as a solid with its moduli.
		raw, _ := presets.Read(n)
		var keys map[string]json.RawMessage
		if json.Unmarshal(raw, &keys) == nil && keys["elastic"] != nil {
			g, k := m.Elastic.Moduli()
			kind = fmt.Sprintf("elastic solid for elasticBodies (G = %g Pa, K = %g Pa)", g, k)
		}
		if json.Unmarshal(raw, &keys) == nil && keys["elastoplastic"] != nil {
			ep := &m.Elastoplastic
			kind = fmt.Sprintf("elastoplastic solid for elastoplasticBodies (E = %g Pa, yield stress %g Pa, flow rate %g 1/s)", ep.YoungsModulus, ep.YieldStress, ep.FlowRate)
		}
		fmt.Fprintf(stdout, "  %-8s ρ0 = %g kg/m^3, ν = %g m^2/s, %s\n", n, m.RestDensity, m.Viscosity, kind)
	}
	return nil
}

// cmdSchema prints the JSON Schema of native scene files, generated from the declarations.
func cmdSchema(stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(params.Schema(scene.Scene{}, "sluice scene"))
}

// writeSnapshot writes the world's snapshot to f and closes it.
// runNote is what a saved run tells the run that resumes it (World.SetNote): its frame length,
// how many frames were run (exported frames continue from there) and the exported files' name.
type runNote struct {
	FrameDt float64 `json:"frameDt"`
	Frame   int     `json:"frame"`
	Prefix  string  `json:"prefix"`
}

func writeSnapshot(w *sluice.World, f *os.File) error {
	bw := bufio.NewWriter(f)
	err := w.Save(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
