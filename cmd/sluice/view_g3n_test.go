//go:build g3n && cgo

package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestViewScreenshot(t *testing.T) {
	// sluice view --screenshot --frames renders the scene and writes a PNG of the window size.
	if os.Getenv("DISPLAY") == "" {
		t.Skip("no DISPLAY: sluice view needs an X server; run under xvfb-run (see .ci/g3n.sh)")
	}
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(scenePath, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	png1 := filepath.Join(dir, "shots", "tiny.png")
	var out, errb bytes.Buffer
	err := run([]string{"view", scenePath, "--screenshot", png1, "--frames", "6", "--width", "320", "--height", "240"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "6 frames, 6 physics steps, t = 0.1 s") {
		t.Errorf("output %q, want 6 frames and 6 steps to t = 0.1 s", out.String())
	}
	f, err := os.Open(png1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 240 {
		t.Fatalf("screenshot %v, want 320×240", b)
	}
}
