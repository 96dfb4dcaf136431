//go:build !(g3n && cgo)

package main

import (
	"errors"
	"flag"
)

// windowFlag is accepted in every build so the flag is documented, but only the g3n build has one.
var windowFlag = flag.Bool("window", false, "stir the air with the mouse in a window (needs the g3n build: CGO_ENABLED=1 go run -tags g3n ./examples/wind -window)")

// windowed fails in this build and says how to get a window.
func windowed() error {
	return errors.New("-window needs the g3n build (cgo and the g3n tag): CGO_ENABLED=1 go run -tags g3n ./examples/wind -window")
}
