package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tiny = `{
  "solver": {"particleRadius": 0.05},
  "duration": 0.1, "fps": 50,
  "boundaries": [{"name": "tank", "min": [0,0,0], "max": [1,1,0.5]}],
  "fluids": [{"name": "water", "min": [0,0,0], "max": [0.4,0.5,0.5]}]
}`

func TestRunWritesStatsAndFrames(t *testing.T) {
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(scenePath, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	statsPath := filepath.Join(dir, "s", "stats.jsonl")
	err := run([]string{"run", scenePath, "--out", filepath.Join(dir, "frames"), "--export", "csv", "--every", "2", "--stats", statsPath, "--workers", "2"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	// 5 frames of 0.02 s: exports at frames 0, 2, 4 and the final 5.
	for _, f := range []string{"tiny_000000.csv", "tiny_000002.csv", "tiny_000004.csv", "tiny_000005.csv"} {
		if _, err := os.Stat(filepath.Join(dir, "frames", f)); err != nil {
			t.Errorf("missing export %s", f)
		}
	}
	if !strings.Contains(errb.String(), "100%") {
		t.Errorf("no progress output on stderr: %q", errb.String())
	}
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"t", "dt", "substeps", "particles", "densityErrorAvg", "densityErrorMax", "pressureIterations", "maxSpeed", "kineticEnergy", "bodies", "stageMs"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("stats line %d lacks %q: %s", lines, k, sc.Text())
			}
		}
		lines++
	}
	if lines != 5 {
		t.Fatalf("%d stats lines, want one per frame (5)", lines)
	}
}

func TestRunExportsAtAFrameRate(t *testing.T) {
	// 5 frames of 0.02 s exported at 20 per second: the frames at or after each 0.05 s,
	// i.e. 0, 3 (0.06 s) and the final 5 (0.1 s); frames 1, 2 and 4 are skipped.
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(scenePath, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := run([]string{"run", scenePath, "--out", dir, "--export", "csv", "--export-fps", "20"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for i := 0; i <= 5; i++ {
		_, err := os.Stat(filepath.Join(dir, fmt.Sprintf("tiny_%06d.csv", i)))
		if want := i == 0 || i == 3 || i == 5; want != (err == nil) {
			t.Errorf("frame %d exported: %v, want %v", i, err == nil, want)
		}
	}
	for _, args := range [][]string{{"--export-fps", "-1"}, {"--export-fps", "20", "--every", "2"}} {
		err := run(append([]string{"run", scenePath, "--out", dir}, args...), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), "--export-fps") {
			t.Errorf("%v: error %v, want one naming --export-fps", args, err)
		}
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(strings.Replace(tiny, `"particleRadius": 0.05`, `"particleRadius": -1`, 1)), 0o644)
	var out, errb bytes.Buffer
	err := run([]string{"run", bad}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "solver.particleRadius: -1 m must be greater than 0") {
		t.Fatalf("error %v", err)
	}
	if err := run([]string{"run", bad, "--export", "obj", "--out", dir}, &out, &errb); err == nil || !strings.Contains(err.Error(), "vtk, ply, csv") {
		t.Fatalf("bad format error %v", err)
	}
	if err := run([]string{"frobnicate"}, &out, &errb); err == nil {
		t.Fatal("unknown command accepted")
	}
}

func TestReadmeParameterTableIsGenerated(t *testing.T) {
	// The README's parameter reference must be the output of `sluice params`, so the docs
	// cannot drift from the declarations.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Skip("README not found")
	}
	var out bytes.Buffer
	if err := cmdParams(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, bytes.TrimSpace(out.Bytes())) {
		t.Fatal("README parameter tables differ from `go run ./cmd/sluice params`; regenerate them")
	}
}

func TestCommittedSchemaIsCurrent(t *testing.T) {
	// sluice.schema.json in the repository is `sluice schema`'s output, so editors pointed at it
	// see the current declarations.
	committed, err := os.ReadFile("../../sluice.schema.json")
	if err != nil {
		t.Skip("sluice.schema.json not found")
	}
	var out bytes.Buffer
	if err := cmdSchema(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(committed, out.Bytes()) {
		t.Fatal("sluice.schema.json is stale: go run ./cmd/sluice schema > sluice.schema.json")
	}
}

func TestSaveAndResumeMatchAnUninterruptedRun(t *testing.T) {
	// run 0.1 s + --save, then resume 0.1 s, ends in the same state (CSV frame, exact digits)
	// as one 0.2 s run.
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	os.WriteFile(scenePath, []byte(tiny), 0o644)
	var out, errb bytes.Buffer
	full := filepath.Join(dir, "full")
	if err := run([]string{"run", scenePath, "--duration", "0.2", "--out", full, "--export", "csv", "--every", "100"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "s.snap")
	if err := run([]string{"run", scenePath, "--duration", "0.1", "--save", snap}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	half := filepath.Join(dir, "half")
	if err := run([]string{"resume", snap, "--duration", "0.1", "--fps", "50", "--out", half, "--export", "csv", "--every", "100"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	a, _ := os.ReadFile(filepath.Join(full, "tiny_000010.csv"))
	b, _ := os.ReadFile(filepath.Join(half, "s_000005.csv"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("resumed final frame differs from the uninterrupted run (%d vs %d bytes)", len(a), len(b))
	}
	if err := run([]string{"resume", snap}, &out, &errb); err == nil {
		t.Fatal("resume without --duration accepted")
	}
}

func TestRunExportsChosenFields(t *testing.T) {
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	os.WriteFile(scenePath, []byte(tiny), 0o644)
	var out, errb bytes.Buffer
	frames := filepath.Join(dir, "frames")
	err := run([]string{"run", scenePath, "--duration", "0.02", "--out", frames, "--export", "csv", "--fields", "viscosity, density"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	data, err := os.ReadFile(filepath.Join(frames, "tiny_000001.csv"))
	if err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(string(data), "\n")
	if header != "body,phase,x,y,z,density,viscosity" {
		t.Errorf("header %q, want the chosen fields in registry order after the position", header)
	}
	if !strings.Contains(rest, "water,fluid,") || !strings.Contains(rest, ",0.01\n") {
		t.Errorf("rows do not carry water's viscosity 0.01:\n%.200s", rest)
	}
	err = run([]string{"run", scenePath, "--out", frames, "--fields", "velocity,temperature"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), `--fields: unknown export field "temperature" (available: position, velocity, density, pressure, restDensity, viscosity, body`) {
		t.Errorf("unknown field error %v, want one listing the available fields", err)
	}
}

func TestPresetsCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"presets"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"water", "honey", "slime"} {
		if !strings.Contains(out.String(), "\n  "+n+" ") {
			t.Errorf("presets list lacks %s:\n%s", n, out.String())
		}
	}
	out.Reset()
	if err := run([]string{"presets", "honey"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m["viscosity"] == nil {
		t.Errorf("presets honey printed %q (%v), want the preset's JSON", out.String(), err)
	}
	if err := run([]string{"presets", "hony"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "known: honey") {
		t.Errorf("unknown preset error %v, want one listing the presets", err)
	}
}
