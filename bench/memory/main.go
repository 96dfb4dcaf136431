// Command memory builds the benchmark dam break (BenchmarkStep's scene: a 1.2 m water cube in a
// 3.2 × 2 × 1.2 m tank with two layers of wall samples, one worker) at a particle radius, runs a
// number of substeps and prints the peak resident memory (the kernel's VmHWM) per fluid
// particle, the live heap after a full collection, the part of it held by the neighbour
// lists, and how many of their blocks were searched twice for outgrowing their regions. With
// -every N it also prints, every N substeps on the way, the resident memory, its peak so far,
// the heap and what the lists hold, each per fluid particle: where in a run the memory grows.
//
//	go run ./bench/memory -r 0.0125 -substeps 20
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

func main() {
	r := flag.Float64("r", 0.0125, "particle radius in m (0.025: 12k fluid particles, 0.0125: 104k, 0.006: 970k)")
	substeps := flag.Int("substeps", 20, "run steps of the next time step until at least this many substeps are done")
	workers := flag.Int("workers", 1, "worker threads")
	heapProfile := flag.String("heapprofile", "", "also write a heap profile (go tool pprof) to this file")
	every := flag.Int("every", 0, "also print the memory every this many substeps (0: only at the end)")
	flag.Parse()
	s := components.DefaultSolver()
	s.ParticleRadius = *r
	w, err := sluice.NewWorld(s, *workers)
	check(err)
	defer w.Close()
	_, err = w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{3.2, 2, 1.2}, true)
	check(err)
	_, err = w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.2, 1.2, 1.2}, mgl64.Vec3{})
	check(err)
	if *every < 0 {
		check(fmt.Errorf("-every is %d, want ≥ 0 substeps", *every))
	}
	sim := w.Sim()
	sub, next := 0, *every
	for sub < *substeps {
		st, err := w.Step(sim.NextDt())
		check(err)
		sub += st.Substeps
		if *every > 0 && sub >= next {
			next += *every
			trace(w, sub)
		}
	}
	n := sim.Fluid.Len()
	nb := sim.Bound.Len()
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	ffU, ffH := sim.FF.Bytes()
	fbU, fbH := sim.FB.Bytes()
	hwm := vmHWM()
	mb := func(b uint64) float64 { return float64(b) / (1 << 20) }
	fmt.Printf("fluid particles %d, wall samples %d, substeps %d (%.3f s), workers %d\n", n, nb, sub, w.Time(), *workers)
	fmt.Printf("peak resident (VmHWM)   %8.1f MB  %6.0f B per fluid particle\n", mb(hwm), float64(hwm)/float64(n))
	fmt.Printf("live heap               %8.1f MB  %6.0f B per fluid particle\n", mb(m.HeapAlloc), float64(m.HeapAlloc)/float64(n))
	fmt.Printf("  fluid-fluid pairs     %8.1f MB held, %.1f MB in use (%d pairs)\n", mb(uint64(ffH)), mb(uint64(ffU)), sim.FF.Pairs())
	fmt.Printf("  fluid-wall pairs      %8.1f MB held, %.1f MB in use (%d pairs)\n", mb(uint64(fbH)), mb(uint64(fbU)), sim.FB.Pairs())
	fmt.Printf("  blocks searched twice (outgrew their region): fluid-fluid %d, fluid-wall %d, of %d a search\n", sim.FF.Spills(), sim.FB.Spills(), len(sim.FF.Blocks))
	rest := int64(m.HeapAlloc) - int64(ffH) - int64(fbH)
	fmt.Printf("  everything else       %8.1f MB\n", float64(rest)/(1<<20))
	if *heapProfile != "" {
		f, err := os.Create(*heapProfile)
		check(err)
		check(pprof.WriteHeapProfile(f))
		check(f.Close())
	}
	fmt.Printf("heap reserved by Go     %8.1f MB (HeapSys), GC goal %.1f MB\n", mb(m.HeapSys), mb(m.NextGC))
}

// trace prints one line of the memory on the way, per fluid particle: resident now and its
// peak so far, the heap's live and dead objects (no collection is forced, so this is what the
// process holds), and the neighbour lists' arrays.
func trace(w *sluice.World, sub int) {
	sim := w.Sim()
	n := float64(sim.Fluid.Len())
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	_, ffH := sim.FF.Bytes()
	_, fbH := sim.FB.Bytes()
	fmt.Printf("substep %5d  t %.3f s  resident %5.0f  peak %5.0f  heap %5.0f  fluid-fluid lists %4.0f  fluid-wall lists %4.0f  (B per fluid particle)\n",
		sub, w.Time(), float64(procStatus("VmRSS"))/n, float64(vmHWM())/n, float64(m.HeapAlloc)/n, float64(ffH)/n, float64(fbH)/n)
}

// vmHWM returns the process's peak resident set size in bytes from /proc/self/status (0 where
// that file is absent).
func vmHWM() uint64 { return procStatus("VmHWM") }

// procStatus returns the size in bytes that /proc/self/status gives for key (0 where that
// file is absent).
func procStatus(key string) uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == key+":" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}
