// Command dough runs the point-based elastoplastic solids of Gerszewski et al. 2009
// (dissertation ch. 4) in the world, headless:
//
//   - the chapter's Fig. 4.7 experiment, one box dropped on the floor with different plastic
//     parameters, and the shipped presets (dough, clay, snow) dropped the same way. For each
//     run it prints the box's height at rest, the lowest height during the impact, the height
//     and footprint at the end (as fractions of the rest size), how many particle updates
//     flowed plastically, the substeps per frame (the explicit limit
//     elastoplastic.Material.StableDt sets them) and the wall time per frame;
//
//   - the §4.4 / Fig. 4.8 comparison: an elastic and a very plastic block, without gravity,
//     squeezed by the analytic field a = −k (y − y_c) ŷ for 0.5 s (a stage inserted after
//     AdvectionForces) and released: how much of the squeeze each keeps;
//
//   - a dough star (Fig. 4.6) settling on the floor: its height and radius over time.
//
//     go run ./examples/dough [-part all|drop|squeeze|star] [-workers 0] [-duration 3] [-size 0.4]
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
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/scene"
	"github.com/sluicephysics/sluice/systems"
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
	part := flag.String("part", "all", "what to run: all, drop, squeeze or star")
	flag.Parse()
	all := *part == "all"
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
	if all || *part == "drop" {
		fmt.Printf("box %.2f m dropped from 0.5 m, r = 0.025 m, %g s each\n", *size, *duration)
		fmt.Printf("%-42s %6s %6s %7s %7s %8s %8s %9s %8s\n", "material", "rest m", "min %", "end %", "width %", "yielded", "sub/fr", "guards", "s/frame")
	}
	for _, v := range vs {
		if !all && *part != "drop" {
			break
		}
		if err := drop(v, *workers, *duration, *size); err != nil {
			fmt.Fprintf(os.Stderr, "dough: %s: %v\n", v.name, err)
			os.Exit(1)
		}
	}
	if all || *part == "squeeze" {
		fmt.Printf("\nsqueeze (Fig. 4.8): %.2f m block, no gravity, a = −k (y − y_c) ŷ for 0.5 s, then released; E = 5·10⁴ Pa, ν = 0.3, ρ = 1000 kg/m³; 2 s\n", *size)
		fmt.Printf("%-36s %8s %8s %8s %10s\n", "material", "rest m", "loaded %", "end %", "squash kept %")
	}
	for _, c := range []struct {
		name        string
		yield, flow float64
		k           float64
	}{
		{"elastic (never yields), k = 500/s²", 1e12, 0, 500},
		{"yield 1 kPa, flow 100/s, k = 250/s²", 1000, 100, 250},
	} {
		if !all && *part != "squeeze" {
			break
		}
		if err := squeeze(c.name, c.yield, c.flow, c.k, *workers, *size); err != nil {
			fmt.Fprintf(os.Stderr, "dough: %s: %v\n", c.name, err)
			os.Exit(1)
		}
	}
	if !all && *part != "star" {
		return
	}
	if err := star(*workers, *duration); err != nil {
		fmt.Fprintf(os.Stderr, "dough: star: %v\n", err)
		os.Exit(1)
	}
}

// squeezeField is the stage that adds the analytic squeezing field of Fig. 4.8 to the
// predicted velocities of every dynamic particle until time until: a = −k (y − yc) ŷ, pulling
// each particle towards the plane y = yc in proportion to its distance from it.
type squeezeField struct {
	sim          *systems.Sim
	k, yc, until float64
}

func (q squeezeField) Run(ctx *ecs.Context) error {
	if ctx.Time >= q.until {
		return nil
	}
	f := &q.sim.Fluid
	for i := range f.VStar {
		f.VStar[i][1] -= ctx.Dt * q.k * (f.X[i][1] - q.yc)
	}
	return nil
}

// squeeze runs one block of the Fig. 4.8 comparison for 2 s and prints its line.
func squeeze(name string, yield, flow, k float64, workers int, size float64) error {
	s := components.DefaultSolver()
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		return err
	}
	defer w.Close()
	m := components.DefaultMaterial()
	m.Elastoplastic.YoungsModulus, m.Elastoplastic.PoissonsRatio = 5e4, 0.3
	m.Elastoplastic.YieldStress, m.Elastoplastic.FlowRate = yield, flow
	e, err := w.AddElastoplasticBlock("block", m, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{size, size, size}, mgl64.Vec3{})
	if err != nil {
		return err
	}
	if err := w.Schedule().InsertAfter(systems.StageAdvectionForces, "Squeeze", squeezeField{w.Sim(), k, size / 2, 0.5}); err != nil {
		return err
	}
	h0 := extent(w.Particles(e).X, 1)
	var hl float64
	for f := 1; f <= 120; f++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			return err
		}
		if f == 30 {
			hl = extent(w.Particles(e).X, 1)
		}
	}
	h := extent(w.Particles(e).X, 1)
	fmt.Printf("%-36s %8.3f %8.1f %8.1f %10.1f\n", name, h0, 100*hl/h0, 100*h/h0, 100*(h0-h)/(h0-hl))
	return nil
}

// star drops a five-pointed dough star (Fig. 4.6), 0.1 m thick and 0.6 m across, sampled at
// r = 1.25 cm, from 5 cm onto the floor and prints its height and radius (the 90th percentile
// of the particles' distances from the vertical axis through its centre) as it settles.
func star(workers int, duration float64) error {
	so := components.DefaultSolver()
	so.ParticleRadius = 0.0125
	w, err := sluice.NewWorld(so, workers)
	if err != nil {
		return err
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-1, 0, -1}, mgl64.Vec3{1, 1, 1}, true); err != nil {
		return err
	}
	m, err := scene.Preset("dough", "")
	if err != nil {
		return err
	}
	settings := w.Settings()
	sp := settings.Spacing()
	var x []mgl64.Vec3
	nr := int(math.Ceil(0.3/sp)) + 1
	for i := -nr; i <= nr; i++ {
		for k := -nr; k <= nr; k++ {
			p := mgl64.Vec2{float64(i) * sp, float64(k) * sp}
			if !inStar(p, 0.3, 0.12) {
				continue
			}
			for j := 0; j < 4; j++ {
				x = append(x, mgl64.Vec3{p[0], 0.05 + sp/2 + float64(j)*sp, p[1]})
			}
		}
	}
	e, err := w.AddElastoplasticParticles("star", m, x, nil)
	if err != nil {
		return err
	}
	fmt.Printf("\ndough star (Fig. 4.6): %d particles, preset dough, dropped from 5 cm\n", len(x))
	frames := int(duration*60 + 0.5)
	for f := 0; f <= frames; f++ {
		if f > 0 {
			if _, err := w.Step(1.0 / 60); err != nil {
				return err
			}
		}
		if f%30 == 0 {
			p := w.Particles(e).X
			r := make([]float64, len(p))
			for i, q := range p {
				r[i] = math.Hypot(q[0], q[2])
			}
			slices.Sort(r)
			fmt.Printf("  t = %.1f s  height %.3f m  radius %.3f m\n", w.Time(), extent(p, 1)+sp, r[9*len(r)/10])
		}
	}
	return nil
}

// inStar reports whether p lies inside the five-pointed star of outer radius ro and inner
// radius ri centred at the origin, one point along +x.
func inStar(p mgl64.Vec2, ro, ri float64) bool {
	var poly []mgl64.Vec2
	for k := 0; k < 10; k++ {
		r := ro
		if k%2 == 1 {
			r = ri
		}
		a := float64(k) * math.Pi / 5
		poly = append(poly, mgl64.Vec2{r * math.Cos(a), r * math.Sin(a)})
	}
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
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
