//go:build g3n && cgo

package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/g3n/engine/window"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/game"
)

var (
	windowFlag = flag.Bool("window", false, "play in a window (W/A/S/D kick, Tab selects, Space lifts)")
	screenshot = flag.String("screenshot", "", "with -window: play 2 s by script, save the last frame as this PNG and exit")
)

// GLFW and the GL context want the process's main thread: keep main on it.
func init() { runtime.LockOSThread() }

// windowed opens the pool in a window: keys kick the selected crate between steps (OnFrame),
// a label counts the splashes the world reports after each step (OnStep).
func windowed() error {
	p, err := newPool()
	if err != nil {
		return err
	}
	defer p.w.Close()
	var label *game.Caption
	var dx, dz float64
	lift := false
	o := game.Options{Title: "sluice pool",
		Setup: func(c *game.Context) error {
			label = game.NewCaption("splashes: 0   crate 0 selected", 20, 10, 90) // below the HUD
			c.Scene.Add(label)
			c.Window.SubscribeID(window.OnKeyDown, p, func(_ string, ev interface{}) {
				switch ev.(*window.KeyEvent).Key {
				case window.KeyW:
					dz = -1
				case window.KeyS:
					dz = 1
				case window.KeyA:
					dx = -1
				case window.KeyD:
					dx = 1
				case window.KeySpace:
					lift = true
				case window.KeyTab:
					p.selected = (p.selected + 1) % len(p.crates)
				}
			})
			return nil
		},
		OnFrame: func(c *game.Context, dt float64) error {
			if *screenshot != "" && c.Frame%40 == 20 { // the scripted player of the screenshot run
				lift = true
			}
			if dx != 0 || dz != 0 || lift {
				if err := p.kick(dx, dz, lift); err != nil {
					return err
				}
				dx, dz, lift = 0, 0, false
			}
			label.Show(c, fmt.Sprintf("splashes: %d   crate %d selected", p.splashes, p.selected))
			return nil
		},
		OnStep: func(c *game.Context, st sluice.StepStats) error {
			p.count()
			return nil
		},
	}
	if *screenshot != "" {
		o.Frames, o.Screenshot = 120, *screenshot
	}
	_, err = game.Run(p.w, o)
	return err
}
