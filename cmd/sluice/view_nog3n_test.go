//go:build !(g3n && cgo)

package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestViewNeedsTheG3NBuild(t *testing.T) {
	// Without the g3n tag (or without cgo) sluice view fails and says how to build it.
	var out, errb bytes.Buffer
	err := run([]string{"view", "../../examples/scenes/dambreak.json"}, &out, &errb)
	if err == nil {
		t.Fatal("sluice view succeeded in a build without g3n")
	}
	for _, want := range []string{"-tags g3n", "CGO_ENABLED=1", "cgo"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}
