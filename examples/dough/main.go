// Command dough runs the point-based elastoplastic solids of Gerszewski et al. 2009
// (dissertation ch. 4) in the world, headless: the chapter's Fig. 4.7 experiment, one box
// dropped on the floor with different plastic parameters, and the shipped presets (dough,
// clay, snow) dropped the same way. For each run it prints the box's height at rest, the
// lowest height during the impact, the height and footprint at the end (as fractions of the
// rest size), how many particle updates flowed plastically, the substeps per frame (the
// explicit limit elastoplastic.Material.StableDt sets them) and the wall time per frame.
//
//	go run ./examples/dough [-workers 0] [-duration 3] [-size 0.4]
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/scene"
)

// variant is one box of the experiment: a material and what it shows.
type variant struct {
	name string
	mat  components.Material
}

func main() {
	workers := flag.Int("workers", 0, "worker threads (0: all cores)")
	duration := flag.Float64("duration", 3, "simulated seconds per drop")
	size := flag.Float64("size", 0.4, "edge of the dropped box (m)")
	flag.Parse()
	var vs []variant
	// Fig. 4.7: the same box (E = 2·10⁵ Pa, ν = 0.3, ρ = 1000 kg/m³) with different plastic
	// parameters; the chapter does not give its values, these span elastic to very plastic.
	fig := func(name string, yield, flow, hardening float64) {
		m := components.DefaultMaterial()
		m.Elastoplastic.YoungsModulus, m.Elastoplastic.PoissonsRatio = 2e5, 0.3
		m.Elastoplastic.YieldStress, m.Elastoplastic.FlowRate, m.Elastoplastic.Hardening = yield, flow, hardening
		vs = append(vs, variant{name, m})
	}
	fig("elastic (never yields)", 1e12, 0, 0)
	fig("yield 10 kPa, flow 100/s", 1e4, 100, 0)
	fig("yield 5 kPa, flow 100/s", 5e3, 100, 0)
	fig("yield 5 kPa, flow 10/s", 5e3, 10, 0)
	fig("yield 2 kPa, flow 100/s", 2e3, 100, 0)
	fig("yield 2 kPa, flow 100/s, hardening 1 MPa", 2e3, 100, 1e6)
	for _, p := range []string{"dough", "clay", "snow"} {
		m, err := scene.Preset(p, "")
		if err != nil {
			fmt.Fprintln(os.Stderr, "dough:", err)
			os.Exit(1)
		}
		vs = append(vs, variant{"preset " + p, m})
	}
	fmt.Printf("box %.2f m dropped from 0.5 m, r = 0.025 m, %g s each\n", *size, *duration)
	fmt.Printf("%-42s %6s %6s %7s %7s %8s %8s %9s %8s\n", "material", "rest m", "min %", "end %", "width %", "yielded", "sub/fr", "guards", "s/frame")
	for _, v := range vs {
		if err := drop(v, *workers, *duration, *size); err != nil {
			fmt.Fprintf(os.Stderr, "dough: %s: %v\n", v.name, err)
			os.Exit(1)
		}
	}
}

// drop runs one box and prints its line.
func drop(v variant, workers int, duration, size float64) error {
	w, err := sluice.NewWorld(components.DefaultSolver(), workers)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-1, 0, -1}, mgl64.Vec3{1 + size, 2 + size, 1 + size}, true); err != nil {
		return err
	}
	e, err := w.AddElastoplasticBlock("box", v.mat, mgl64.Vec3{0, 0.5, 0}, mgl64.Vec3{size, 0.5 + size, size}, mgl64.Vec3{})
	if err != nil {
		return err
	}
	h0, w0 := extent(w.Particles(e).X, 1), extent(w.Particles(e).X, 0)
	hmin := math.Inf(1)
	landed := false
	frames := int(duration*60 + 0.5)
	yielded, substeps, guards := 0, 0, 0
	start := time.Now()
	for f := 0; f < frames; f++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			return err
		}
		yielded += st.ElastoplasticYielded
		substeps += st.Substeps
		guards += st.ElastoplasticFewNeighbors + st.ElastoplasticIllConditioned + st.ElastoplasticInverted
		lo := math.Inf(1)
		for _, x := range w.Particles(e).X {
			lo = min(lo, x[1])
		}
		landed = landed || lo < 0.1
		if landed {
			hmin = min(hmin, extent(w.Particles(e).X, 1))
		}
	}
	wall := time.Since(start).Seconds()
	h, wd := extent(w.Particles(e).X, 1), extent(w.Particles(e).X, 0)
	fmt.Printf("%-42s %6.3f %6.1f %7.1f %7.1f %8d %8.1f %9d %8.3f\n", v.name, h0, 100*hmin/h0, 100*h/h0, 100*wd/w0,
		yielded, float64(substeps)/float64(frames), guards, wall/float64(frames))
	return nil
}

// extent is the spread of the particles' coordinate d between the 10th and 90th percentile:
// the body's size along d between its outer layers, insensitive to single stray particles.
func extent(x []mgl64.Vec3, d int) float64 {
	c := make([]float64, len(x))
	for i, p := range x {
		c[i] = p[d]
	}
	slices.Sort(c)
	return c[9*len(c)/10] - c[len(c)/10]
}
