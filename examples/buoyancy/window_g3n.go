//go:build g3n && cgo

package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/game"
)

var window = flag.Bool("window", false, "open a window on the scene instead of running headless")

// GLFW and the GL context want the process's main thread: keep main on it.
func init() { runtime.LockOSThread() }

// screenshotDuration is the simulated time a screenshot shows without -duration (s): the
// bodies have fallen into the water and the paddle has made its first wave.
const screenshotDuration = 0.5

// windowed shows the scene in a window until it is closed (see game.Run for the keys) or, with
// a screenshot file, for duration seconds of frames at the scene's rate, saving the last.
func windowed(w *sluice.World, name string, fps, duration float64, screenshot string) error {
	o := game.Options{Title: "sluice buoyancy: " + name, Rate: fps}
	if screenshot != "" {
		if duration == 0 {
			duration = screenshotDuration
		}
		o.Frames = max(1, int(duration*fps+0.5))
		o.Screenshot = screenshot
	}
	shot, err := game.Run(w, o)
	if err == nil && screenshot != "" {
		fmt.Printf("buoyancy %s: %d frames to t = %.3g s, %d rigid bodies drawn as meshes, screenshot written to %s\n", name, shot.Frames, w.Time(), len(rigidBodies(w)), screenshot)
	}
	return err
}

// rigidBodies lists the world's rigid bodies.
func rigidBodies(w *sluice.World) []sluice.Entity {
	var out []sluice.Entity
	for _, b := range w.Bodies() {
		if w.RigidBody(b.Entity) != nil {
			out = append(out, b.Entity)
		}
	}
	return out
}
