// Command cloth drops water on a pinned cloth sheet (examples/scenes/cloth.json): a 0.6 m
// square sheet of 13 × 13 vertices pinned along its border, its springs and contacts solved
// with the water in one Projective Fluids system (docs/projective_fluids.md, "Cloth"). It runs
// headless and prints, every 0.1 s, the height of the sheet's centre, the largest stretch of
// its edges, how many water particles are over the sheet and how many of those are below it
// (through it: none should be), and the solves that stopped at pfMaxIterations.
//
//	go run ./examples/cloth [-scene examples/scenes/cloth.json] [-duration 1.5] [-workers 0]
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/scene"
)

func main() {
	path := flag.String("scene", "examples/scenes/cloth.json", "scene file with a cloth body named sheet and a fluid named water")
	duration := flag.Float64("duration", 1.5, "simulated seconds")
	workers := flag.Int("workers", 0, "worker threads (0: all cores)")
	flag.Parse()
	if err := run(*path, *duration, *workers); err != nil {
		fmt.Fprintln(os.Stderr, "cloth:", err)
		os.Exit(1)
	}
}

func run(path string, duration float64, workers int) error {
	sc, err := scene.Load(path)
	if err != nil {
		return err
	}
	w, err := sc.Build(workers)
	if err != nil {
		return err
	}
	defer w.Close()
	sheet, ok := w.BodyByName("sheet")
	if !ok {
		return fmt.Errorf("%s: no body named sheet", path)
	}
	water, ok := w.BodyByName("water")
	if !ok {
		return fmt.Errorf("%s: no body named water", path)
	}
	c := w.ClothState(sheet)
	lo, hi := bounds(w.Particles(sheet).X)
	s := sc.Solver.Spacing()
	fmt.Printf("%6s %10s %9s %6s %6s %12s\n", "t s", "centre m", "stretch", "over", "below", "unconverged")
	frame := 1 / sc.FPS
	frames := int(math.Round(duration / frame))
	unconv, substeps := 0, 0
	for i := 1; i <= frames; i++ {
		st, err := w.Step(frame)
		if err != nil {
			return err
		}
		unconv += st.UnconvergedSolves
		substeps += st.Substeps
		if i%int(math.Round(0.1/frame)) != 0 && i != frames {
			continue
		}
		x := w.Particles(sheet).X
		stretch := 0.0
		for _, e := range c.Stretch {
			stretch = max(stretch, (x[e.I].Sub(x[e.J]).Len()-e.L)/e.L)
		}
		over, below := 0, 0
		for _, p := range w.Particles(water).X {
			// over the free part of the sheet: inside its border row
			if p[0] < lo[0]+s || p[0] > hi[0]-s || p[2] < lo[2]+s || p[2] > hi[2]-s {
				continue
			}
			over++
			best, h := math.Inf(1), 0.0
			for _, v := range x {
				if d := (v[0]-p[0])*(v[0]-p[0]) + (v[2]-p[2])*(v[2]-p[2]); d < best {
					best, h = d, v[1]
				}
			}
			if p[1] < h-s/2 {
				below++
			}
		}
		centre := x[len(x)/2][1]
		fmt.Printf("%6.2f %10.4f %8.2f%% %6d %6d %5d of %4d\n", st.T, centre, 100*stretch, over, below, unconv, substeps)
	}
	return nil
}

// bounds returns the corners of the box around the points.
func bounds(x []mgl64.Vec3) (lo, hi mgl64.Vec3) {
	lo, hi = x[0], x[0]
	for _, p := range x {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], p[d]), max(hi[d], p[d])
		}
	}
	return lo, hi
}
