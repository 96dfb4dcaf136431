//go:build g3n && cgo

package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/sluicephysics/sluice/game"
)

var window = flag.Bool("window", false, "open a window on the dam break instead of running headless")

// GLFW and the GL context want the process's main thread: keep main on it.
func init() { runtime.LockOSThread() }

// windowed shows the dam break in a window until it is closed (see game.Run for the keys) or,
// with a screenshot file, for duration seconds of 60 Hz frames, saving the last.
func windowed(r float64, workers int, maxErr float64, obstacle bool, duration float64, screenshot string) error {
	w, err := newWorld(r, workers, maxErr, obstacle)
	if err != nil {
		return err
	}
	defer w.Close()
	o := game.Options{Title: "sluice dam break"}
	if screenshot != "" {
		o.Frames = max(1, int(duration*60+0.5))
		o.Screenshot = screenshot
	}
	shot, err := game.Run(w, o)
	if err == nil && screenshot != "" {
		fmt.Printf("dam break: %d frames to t = %.3g s, screenshot written to %s\n", shot.Frames, w.Time(), screenshot)
	}
	return err
}
