// Package runner is what the example commands share: picking scenes from the files they embed,
// building a world from one, and recording a headless run (per-frame statistics as JSON lines
// and VTK frames that open in ParaView).
package runner

import (
	"bufio"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/scene"
	"github.com/sluicephysics/sluice/systems"
)

// Select returns the scenes the -scene flag asks for: all of order, or the one named. An
// unknown name ends the program with a message listing the scenes (exit status 2).
func Select(prog string, scenes embed.FS, order []string, which string) []string {
	if which == "all" {
		return order
	}
	if _, err := scenes.ReadFile("scenes/" + which + ".json"); err != nil {
		fmt.Fprintf(os.Stderr, "%s: -scene %q: no such scene (have all, %s)\n", prog, which, strings.Join(order, ", "))
		os.Exit(2)
	}
	return []string{which}
}

// Build parses the embedded scenes/NAME.json and builds its world on the given number of
// workers; duration > 0 replaces the scene's duration.
func Build(scenes embed.FS, name string, workers int, duration float64) (*scene.Scene, *sluice.World, error) {
	data, err := scenes.ReadFile("scenes/" + name + ".json")
	if err != nil {
		return nil, nil, err
	}
	sc, err := scene.Parse(data)
	if err != nil {
		return nil, nil, err
	}
	if duration > 0 {
		sc.Duration = duration
	}
	w, err := sc.Build(workers)
	if err != nil {
		return nil, nil, err
	}
	return sc, w, nil
}

// Recorder writes a headless run's statistics (out/stats.jsonl, one line per step) and VTK
// frames (out/NAME_NNNNN.vtk).
type Recorder struct {
	out, name string
	w         *sluice.World
	f         *os.File
	buf       *bufio.Writer
	enc       *json.Encoder
}

// Open creates the output folder and the statistics file and writes frame 0.
func Open(out, name string, w *sluice.World) (*Recorder, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(out, "stats.jsonl"))
	if err != nil {
		return nil, err
	}
	r := &Recorder{out: out, name: name, w: w, f: f, buf: bufio.NewWriter(f)}
	r.enc = json.NewEncoder(r.buf)
	if err := r.Frame(0); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

// Stats appends one step's statistics.
func (r *Recorder) Stats(st systems.StepStats) error { return r.enc.Encode(st) }

// Frame writes the world's particles as VTK frame i.
func (r *Recorder) Frame(i int) error {
	_, err := scene.WriteFile(r.out, r.name, i, scene.VTK, scene.FrameOf(r.w))
	return err
}

// Close flushes and closes the statistics file.
func (r *Recorder) Close() error {
	err := r.buf.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Every returns how often to report and export so that about frames frames of the n steps are
// written, the last always.
func Every(n, frames int) int { return max(1, n/max(1, frames)) }
