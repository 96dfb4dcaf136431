//go:build g3n && cgo

package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/sluicephysics/sluice/game"
	"github.com/sluicephysics/sluice/scene"
)

// GLFW and the GL context want the process's main thread: keep main on it.
func init() { runtime.LockOSThread() }

// cmdView opens SCENE in a window (see game.Run) or, with --screenshot, renders --frames
// frames and saves the last.
func cmdView(args []string, stdout, stderr io.Writer) error {
	a, err := parseViewArgs(args, stderr)
	if err != nil {
		return err
	}
	sc, warns, err := scene.LoadAny(a.scene)
	for _, w := range warns {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	w, err := sc.Build(a.workers)
	if err != nil {
		return err
	}
	defer w.Close()
	shot, err := game.Run(w, game.Options{
		Title: "sluice — " + a.scene, Width: a.width, Height: a.height, Rate: a.rate,
		Color: a.color, ScenePath: a.scene, Frames: a.frames, Screenshot: a.screenshot, Log: stderr,
		RigidSamples: a.samples, WallSamples: a.wallSamples, Look: a.look, Anisotropic: a.anisotropic,
	})
	if err != nil {
		return err
	}
	if a.screenshot != "" {
		fmt.Fprintf(stdout, "%s: %d frames, %d physics steps, t = %.4g s, screenshot %dx%d written to %s\n",
			a.scene, shot.Frames, shot.Steps, w.Time(), shot.Image.Bounds().Dx(), shot.Image.Bounds().Dy(), a.screenshot)
	}
	return nil
}
