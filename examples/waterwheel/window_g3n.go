//go:build g3n && cgo

package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/game"
)

var (
	windowFlag = flag.Bool("window", false, "watch in a window")
	screenshot = flag.String("screenshot", "", "with -window: run 2 s, save the last frame as this PNG and exit")
)

// GLFW and the GL context want the process's main thread: keep main on it.
func init() { runtime.LockOSThread() }

// windowed shows the wheel in a window: the drain runs after each step (OnStep) and a label
// shows the wheel's speed.
func windowed() error {
	wh, err := newWheel()
	if err != nil {
		return err
	}
	defer wh.w.Close()
	var label *game.Caption
	o := game.Options{Title: "sluice water wheel",
		Setup: func(c *game.Context) error {
			label = game.NewCaption("ω = 0 rad/s", 20, 10, 90) // below the HUD
			c.Scene.Add(label)
			return nil
		},
		OnStep: func(c *game.Context, st sluice.StepStats) error {
			if _, err := wh.w.RemoveParticlesInBox(wh.water, drainLo, drainHi); err != nil {
				return err
			}
			w, _ := wh.spin()
			label.Show(c, fmt.Sprintf("ω = %+.2f rad/s", w))
			return nil
		},
	}
	if *screenshot != "" {
		o.Frames, o.Screenshot = 120, *screenshot
	}
	_, err = game.Run(wh.w, o)
	return err
}
