package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluicephysics/sluice/game"
)

// viewArgs are the arguments of sluice view.
type viewArgs struct {
	scene       string
	screenshot  string
	frames      int
	width       int
	height      int
	rate        float64
	color       string
	workers     int
	samples     bool
	wallSamples bool
	look        string
	anisotropic bool
}

// viewNeedsG3N is the error of sluice view in a build without the window.
const viewNeedsG3N = "sluice view opens a window and needs the g3n build: build with cgo and the g3n tag, " +
	"e.g. CGO_ENABLED=1 go run -tags g3n ./cmd/sluice view SCENE.json " +
	"(a C compiler and the OpenGL and X11 headers are required; .ci/g3n.sh lists the Debian packages)"

// parseViewArgs parses and checks the flags of sluice view, naming the bad flag and value.
func parseViewArgs(args []string, stderr io.Writer) (viewArgs, error) {
	pos, flagArgs := splitArgs(args)
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var a viewArgs
	fs.StringVar(&a.screenshot, "screenshot", "", "render --frames N frames, save the last as this PNG file and exit")
	fs.IntVar(&a.frames, "frames", 0, "render N frames and exit (0: run until the window is closed); physics advances 1/rate s per frame")
	fs.IntVar(&a.width, "width", 1280, "window width in pixels")
	fs.IntVar(&a.height, "height", 720, "window height in pixels")
	fs.Float64Var(&a.rate, "rate", 60, "physics steps per simulated second")
	fs.StringVar(&a.color, "color", "phase", "initial colouring: "+strings.Join(game.ColorModes(), ", "))
	fs.IntVar(&a.workers, "workers", 0, "worker threads (0: all cores)")
	fs.BoolVar(&a.samples, "rigid-samples", false, "draw rigid bodies as their boundary samples instead of meshes (key B)")
	fs.BoolVar(&a.wallSamples, "wall-samples", false, "draw static walls as their boundary samples instead of box faces (key W)")
	fs.BoolVar(&a.anisotropic, "anisotropic", false, "draw liquids in the surface look as anisotropic ellipsoids (Yu & Turk 2013) instead of spheres (key A)")
	fs.StringVar(&a.look, "look", game.LookSurface, "liquid bodies as a fluid surface or as shaded spheres (key F): "+strings.Join(game.Looks(), ", "))
	// splitArgs pairs every flag with the next argument; after a bool flag that may be the
	// scene, where Parse stops: take it and parse on.
	for rest := flagArgs; ; {
		if err := fs.Parse(rest); err != nil {
			return a, err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return a, errors.New("view takes one scene file")
	}
	a.scene = pos[0]
	switch {
	case a.frames < 0:
		return a, fmt.Errorf("--frames %d must be ≥ 0", a.frames)
	case a.screenshot != "" && a.frames == 0:
		return a, fmt.Errorf("--screenshot %s needs --frames N ≥ 1 (the frame to capture)", a.screenshot)
	case a.screenshot != "" && !strings.EqualFold(filepath.Ext(a.screenshot), ".png"):
		return a, fmt.Errorf("--screenshot %s: the file must end in .png", a.screenshot)
	case a.width < 16 || a.height < 16:
		return a, fmt.Errorf("--width %d --height %d: the window needs at least 16×16 pixels", a.width, a.height)
	case !(a.rate > 0) || math.IsInf(a.rate, 0):
		return a, fmt.Errorf("--rate %g must be a positive number of steps per second", a.rate)
	case !slices.Contains(game.ColorModes(), a.color):
		return a, fmt.Errorf("--color %q: not one of %s", a.color, strings.Join(game.ColorModes(), ", "))
	case !slices.Contains(game.Looks(), a.look):
		return a, fmt.Errorf("--look %q: not one of %s", a.look, strings.Join(game.Looks(), ", "))
	}
	return a, nil
}
