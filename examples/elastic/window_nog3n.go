//go:build !(g3n && cgo)

package main

import (
	"errors"
	"flag"

	"github.com/sluicephysics/sluice"
)

// window is accepted in every build so the flag is documented, but only the g3n build has one.
var window = flag.Bool("window", false, "open a window on the scene (needs the g3n build: CGO_ENABLED=1 go run -tags g3n ./examples/elastic -window -scene tank_drop)")

// windowed fails in this build and says how to get a window.
func windowed(w *sluice.World, name string, fps float64) error {
	return errors.New("-window needs the g3n build (cgo and the g3n tag): CGO_ENABLED=1 go run -tags g3n ./examples/elastic -window -scene " + name)
}
