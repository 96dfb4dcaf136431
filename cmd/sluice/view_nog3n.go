//go:build !(g3n && cgo)

package main

import (
	"errors"
	"io"
)

// cmdView fails in this build: the window needs g3n, which needs cgo.
func cmdView(args []string, stdout, stderr io.Writer) error { return errors.New(viewNeedsG3N) }
