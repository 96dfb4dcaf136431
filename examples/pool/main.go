// Command pool is a small game on sluice's public API: three crates float in a pool; the
// player kicks the selected one with impulses, and every crate that falls into the water
// counts as a splash (World.Events). Headless, a scripted player kicks each crate in turn and
// the command prints the splashes and the crates' speeds; with the g3n build and -window it is
// played with the keyboard (W/A/S/D kick, Tab selects, Space lifts the crate for a splash).
//
//	go run ./examples/pool [-duration 4]
//	CGO_ENABLED=1 go run -tags g3n ./examples/pool -window
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/systems"
)

// pool is the game's state: the world, its crates and the splashes counted so far.
type pool struct {
	w        *sluice.World
	crates   []sluice.Entity
	selected int
	splashes int
}

func newPool() (*pool, error) {
	w, err := sluice.NewWorld(components.DefaultSolver(), 0)
	if err != nil {
		return nil, err
	}
	p := &pool{w: w}
	if _, err := w.AddBoundaryBox("pool", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.6, 1, 0.8}, true); err != nil {
		return nil, err
	}
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.6, 0.3, 0.8}, mgl64.Vec3{}); err != nil {
		return nil, err
	}
	for i, x := range []float64{0.35, 0.8, 1.25} {
		def := components.DefaultRigidBody()
		def.Size, def.Density = mgl64.Vec3{0.2, 0.2, 0.2}, 400
		def.Position = mgl64.Vec3{x, 0.6 + 0.1*float64(i), 0.4}
		e, err := w.AddRigidBody(fmt.Sprintf("crate%d", i), def)
		if err != nil {
			return nil, err
		}
		p.crates = append(p.crates, e)
	}
	return p, nil
}

// kick gives the selected crate an impulse of 0.8 N s along (dx, 0, dz), or lifts it with
// 6 N s so that it falls back with a splash.
func (p *pool) kick(dx, dz float64, lift bool) error {
	c := p.crates[p.selected]
	j := mgl64.Vec3{0.8 * dx, 0, 0.8 * dz}
	if lift {
		j = mgl64.Vec3{0, 6, 0}
	}
	return p.w.ApplyImpulse(c, j, p.w.RigidBody(c).State.X)
}

// count adds the last step's splashes: crates entering the water.
func (p *pool) count() {
	for _, e := range p.w.Events() {
		if e.Kind == systems.EnterFluid {
			p.splashes++
		}
	}
}

func main() {
	duration := flag.Float64("duration", 4, "headless: simulated seconds")
	flag.Parse()
	if *windowFlag {
		if err := windowed(); err != nil {
			fmt.Fprintln(os.Stderr, "pool:", err)
			os.Exit(1)
		}
		return
	}
	p, err := newPool()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pool:", err)
		os.Exit(1)
	}
	defer p.w.Close()
	for f := 0; f < int(*duration*60); f++ {
		if f%60 == 30 { // every second, a scripted player lifts the next crate
			p.selected = (f / 60) % len(p.crates)
			if err := p.kick(0, 0, true); err != nil {
				fmt.Fprintln(os.Stderr, "pool:", err)
				os.Exit(1)
			}
		}
		if _, err := p.w.Step(1.0 / 60); err != nil {
			fmt.Fprintln(os.Stderr, "pool:", err)
			os.Exit(1)
		}
		p.count()
	}
	fmt.Printf("t = %.2f s: %d splashes\n", p.w.Time(), p.splashes)
	for i, c := range p.crates {
		st := p.w.RigidBody(c).State
		fmt.Printf("crate%d at (%.2f, %.2f, %.2f) m, %.2f m/s, %.0f %% under water\n", i, st.X[0], st.X[1], st.X[2], st.V.Len(), 100*p.w.RigidBody(c).Submerged)
	}
}
