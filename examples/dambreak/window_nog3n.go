//go:build !(g3n && cgo)

package main

import (
	"errors"
	"flag"
)

// window is accepted in every build so the flag is documented, but only the g3n build has one.
var window = flag.Bool("window", false, "open a window (needs the g3n build: CGO_ENABLED=1 go run -tags g3n ./examples/dambreak -window)")

// windowed fails in this build and says how to get a window.
func windowed(r float64, workers int, maxErr float64, obstacle bool, duration float64, screenshot string) error {
	return errors.New("-window needs the g3n build (cgo and the g3n tag): CGO_ENABLED=1 go run -tags g3n ./examples/dambreak -window")
}
