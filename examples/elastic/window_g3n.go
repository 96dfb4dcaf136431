//go:build g3n && cgo

package main

import (
	"flag"
	"runtime"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/game"
)

var window = flag.Bool("window", false, "open a window on the scene instead of running headless")

// GLFW and the GL context want the process's main thread: keep main on it.
func init() { runtime.LockOSThread() }

// windowed shows the scene in a window until it is closed (see game.Run for the keys).
func windowed(w *sluice.World, name string, fps float64) error {
	_, err := game.Run(w, game.Options{Title: "sluice elastic: " + name, Rate: fps})
	return err
}
