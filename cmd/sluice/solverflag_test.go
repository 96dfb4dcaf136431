package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSolverSettings runs the tiny scene with --solver switching it to Projective Fluids
// capped at one local/global iteration, and checks in the statistics that the settings took
// effect: every frame ran pf, with at most one global step per substep. Bad keys, bad values
// and --solver on a resumed run are refused.
func TestRunSolverSettings(t *testing.T) {
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(scenePath, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	statsPath := filepath.Join(dir, "stats.jsonl")
	var out, errb bytes.Buffer
	err := run([]string{"run", scenePath, "--duration", "0.04", "--workers", "1", "--stats", statsPath,
		"--solver", "pressureSolver=pf", "--solver", "pfMaxIterations=1", "--save", filepath.Join(dir, "s.snap")}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	f, err := os.Open(statsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	frames := 0
	for sc.Scan() {
		var st struct {
			Solver     string `json:"pressureSolver"`
			Substeps   int    `json:"substeps"`
			Iterations int    `json:"pressureIterationsTotal"`
		}
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			t.Fatal(err)
		}
		if st.Solver != "pf" {
			t.Errorf("frame %d ran %q, want pf", frames, st.Solver)
		}
		// pfMaxIterations 1: one global step per substep at most (exact counts, no tolerance).
		if st.Iterations > st.Substeps {
			t.Errorf("frame %d: %d global steps in %d substeps, want at most one per substep", frames, st.Iterations, st.Substeps)
		}
		frames++
	}
	if frames != 2 {
		t.Fatalf("%d stats lines, want 2 (0.04 s at 50 frames per second)", frames)
	}

	for _, c := range []struct{ setting, want string }{
		{"pfTol=1e-3", `no setting "pfTol"`},
		{"PFTOLERANCE=1e-3", `no setting "PFTOLERANCE"`}, // exact names only
		{"pfMaxIterations=many", "pfMaxIterations"},
		{"pfTolerance=5", "pfTolerance"}, // out of range, refused where the world is built
		{"pfTolerance", "KEY=VALUE"},
	} {
		errb.Reset()
		err := run([]string{"run", scenePath, "--duration", "0.02", "--workers", "1", "--solver", c.setting}, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--solver %s: error %v, want one containing %q", c.setting, err, c.want)
		}
	}
	err = run([]string{"resume", filepath.Join(dir, "s.snap"), "--duration", "0.02", "--solver", "pfMaxIterations=2"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "resumed") {
		t.Errorf("resume with --solver: error %v, want a refusal", err)
	}
}
