// Command waterwheel turns a paddle wheel with a stream of water: six paddles welded to a
// light hub (fixed joints), the hub on a hinge to the world, water poured onto the paddles on
// one side by an emitter and drained where it lands, so the tank never fills. It prints the
// wheel's angular speed every half second and, at the end, the mean over the last second and
// how far the hub strayed from its axle.
//
//	go run ./examples/waterwheel [-duration 4]
//	CGO_ENABLED=1 go run -tags g3n ./examples/waterwheel -window
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// The wheel's axle (m): along z through axle, in a tank 1 m x 0.9 m x 0.3 m.
var axle = mgl64.Vec3{0.5, 0.45, 0.15}

const (
	paddles   = 6
	armRadius = 0.13 // m, centre of each paddle from the axle
	drainY    = 0.12 // m: fluid that falls below this is drained away
)

// wheel is the scene: the world, the hub and the water body the emitter feeds.
type wheel struct {
	w     *sluice.World
	hub   sluice.Entity
	water sluice.Entity
}

func newWheel() (*wheel, error) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.0125
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		return nil, err
	}
	wh := &wheel{w: w}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.9, 0.3}, true); err != nil {
		return nil, err
	}
	hub := components.DefaultRigidBody()
	hub.Shape, hub.Radius, hub.Density, hub.Position = "sphere", 0.04, 300, axle
	if wh.hub, err = w.AddRigidBody("hub", hub); err != nil {
		return nil, err
	}
	if _, err := w.AddJoint(wh.hub, sluice.Entity{}, sluice.JointDef{Kind: "hinge", Anchor: axle, Axis: mgl64.Vec3{0, 0, 1}}); err != nil {
		return nil, err
	}
	for k := 0; k < paddles; k++ {
		phi := 2 * math.Pi * float64(k) / paddles
		p := components.DefaultRigidBody()
		p.Size, p.Density = mgl64.Vec3{0.14, 0.03, 0.16}, 500
		p.Position = axle.Add(mgl64.Vec3{armRadius * math.Cos(phi), armRadius * math.Sin(phi), 0})
		p.Orientation = [4]float64{math.Cos(phi / 2), 0, 0, math.Sin(phi / 2)}
		e, err := w.AddRigidBody(fmt.Sprintf("paddle%d", k), p)
		if err != nil {
			return nil, err
		}
		if _, err := w.AddJoint(e, wh.hub, sluice.JointDef{Kind: "fixed", Anchor: axle}); err != nil {
			return nil, err
		}
	}
	// the stream: a nozzle above the right-hand paddles, pouring down at 1.5 m/s
	em := components.DefaultEmitter()
	em.Center, em.Direction, em.Up = mgl64.Vec3{axle[0] + armRadius, 0.8, axle[2]}, mgl64.Vec3{0, -1, 0}, mgl64.Vec3{1, 0, 0}
	em.Width, em.Height, em.Speed, em.Budget = 0.14, 0.1, 1.5, 1000000
	if wh.water, err = w.AddEmitter("stream", components.DefaultMaterial(), em); err != nil {
		return nil, err
	}
	return wh, nil
}

// step advances one frame and drains the water that has fallen past the wheel.
func (wh *wheel) step(dt float64) error {
	if _, err := wh.w.Step(dt); err != nil {
		return err
	}
	_, err := wh.w.RemoveParticlesInBox(wh.water, drainLo, drainHi)
	return err
}

// The drain: the water that falls below drainHi's height is removed.
var drainLo, drainHi = mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{2, drainY, 2}

// spin returns the wheel's angular speed about its axle (rad/s, positive counter-clockwise
// seen from +z) and how far the hub's centre is from the axle (m).
func (wh *wheel) spin() (float64, float64) {
	st := wh.w.RigidBody(wh.hub).State
	return st.W[2], st.X.Sub(axle).Len()
}

func main() {
	duration := flag.Float64("duration", 4, "headless: simulated seconds")
	flag.Parse()
	if *windowFlag {
		if err := windowed(); err != nil {
			fmt.Fprintln(os.Stderr, "waterwheel:", err)
			os.Exit(1)
		}
		return
	}
	wh, err := newWheel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "waterwheel:", err)
		os.Exit(1)
	}
	defer wh.w.Close()
	const fps = 60
	frames := int(*duration * fps)
	var mean float64
	drift := 0.0
	for f := 1; f <= frames; f++ {
		if err := wh.step(1.0 / fps); err != nil {
			fmt.Fprintln(os.Stderr, "waterwheel:", err)
			os.Exit(1)
		}
		w, d := wh.spin()
		drift = max(drift, d)
		if f > frames-fps {
			mean += w / fps
		}
		if f%(fps/2) == 0 {
			fmt.Printf("t = %.1f s: ω = %+.3f rad/s, %d particles in the air\n", wh.w.Time(), w, len(wh.w.Particles(wh.water).X))
		}
	}
	fmt.Printf("mean ω over the last second: %+.3f rad/s (%.1f rpm); hub within %.1e m of its axle\n", mean, mean*60/(2*math.Pi), drift)
}
