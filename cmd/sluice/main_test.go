package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	good := filepath.Join(dir, "tiny.json")
	os.WriteFile(good, []byte(tiny), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--duration", "1e9"}, "--duration 1e+09 s must be in [0, 1e+06]"},
		{[]string{"--duration", "NaN"}, "--duration NaN s must be in"},
		{[]string{"--fps", "1e9"}, "--fps 1e+09 must be in [0, 10000]"},
		{[]string{"--fps", "+Inf"}, "--fps +Inf must be in"},
		{[]string{"--export-fps", "1e9", "--out", dir}, "--export-fps 1e+09 must be at most 10000"},
		{[]string{"--workers", "-3"}, "--workers -3 must be in [0, 4096]"},
		{[]string{"--duration", "1e6", "--fps", "1e4"}, "more than 1e+07: lower --duration or --fps"},
		{[]string{"--save", "/proc/nope.snap"}, "--save: open /proc/nope.snap"},
	} {
		err := run(append([]string{"run", good}, c.args...), &out, &errb)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.args, err, c.want)
		}
	}
	// A snapshot path that cannot be written fails before the run: no frame is exported.
	frames := filepath.Join(dir, "frames")
	if err := run([]string{"run", good, "--out", frames, "--save", "/proc/nope.snap"}, &out, &errb); err == nil {
		t.Fatal("an unwritable --save path was accepted")
	}
	if _, err := os.Stat(frames); err == nil {
		t.Error("frames were exported before the unwritable --save path was reported")
	}
}

func TestRunSaysWhenItCreatesADirectory(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tiny.json")
	os.WriteFile(good, []byte(tiny), 0o644)
	stats := filepath.Join(dir, "new", "deeper", "stats.jsonl")
	var out, errb bytes.Buffer
	if err := run([]string{"run", good, "--duration", "0.02", "--stats", stats}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "created directory "+filepath.Dir(stats)) {
		t.Errorf("stderr does not say the directory was created:\n%s", errb.String())
	}
	if _, err := os.Stat(stats); err != nil {
		t.Error(err)
	}
}

func TestReadmeParameterTableIsGenerated(t *testing.T) {
	// The parameter reference in docs/scenes.md must be the output of `sluice params`, so the
	// docs cannot drift from the declarations.
	readme, err := os.ReadFile("../../docs/scenes.md")
	if err != nil {
		t.Skip("docs/scenes.md not found")
	}
	var out bytes.Buffer
	if err := cmdParams(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, bytes.TrimSpace(out.Bytes())) {
		t.Fatal("docs/scenes.md parameter tables differ from `go run ./cmd/sluice params`; regenerate them")
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
	// run 0.1 s + --save, then resume 0.1 s without repeating --fps, ends in the same state
	// (CSV frame, exact digits) as one 0.2 s run, in the file of the same name: the snapshot
	// carries the frame length, the frame index and the run's name.
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
	if err := run([]string{"resume", snap, "--duration", "0.1", "--out", half, "--export", "csv", "--every", "100"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	a, _ := os.ReadFile(filepath.Join(full, "tiny_000010.csv"))
	b, _ := os.ReadFile(filepath.Join(half, "tiny_000010.csv"))
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
	// jelly and rubber are elastic-body presets, not fluids
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		elastic := strings.Contains(line, "elastic solid")
		if want := f[0] == "jelly" || f[0] == "rubber"; elastic != want {
			t.Errorf("presets line %q: labelled elastic = %v, want %v", line, elastic, want)
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
	if err := run([]string{"presets", "hony"}, &out, &errb); err == nil || !strings.Contains(err.Error(), "known: clay, dough, honey") {
		t.Errorf("unknown preset error %v, want one listing the presets", err)
	}
}

// poseScene has a calm water layer and, well above it, a 20 cm cube mesh whose OBJ origin is a
// corner (its centre of mass is 10 cm from the origin along each axis) and a box spinning about
// y. Both fall freely for the 0.2 s run (0.196 m): their bottoms stay above 0.5 m, while the
// water's top and kernel support end at 0.3 m, and they stay 0.2 m from the side walls.
const poseScene = `{
  "solver": {"particleRadius": 0.025, "dtMax": 0.005},
  "duration": 0.2, "fps": 50,
  "boundaries": [{"name": "tank", "min": [0,0,0], "max": [1.5,1.5,0.8]}],
  "fluids": [{"name": "water", "min": [0,0,0], "max": [1.5,0.2,0.8]}],
  "rigidBodies": [
    {"name": "crate", "shape": "mesh", "file": "cube.obj", "scale": [0.2,0.2,0.2], "density": 500, "position": [0.3,0.7,0.3]},
    {"name": "top, spinning", "size": [0.2,0.2,0.2], "position": [0.9,0.8,0.4], "angularVelocity": [0,3,0]}
  ]
}`

// unitCubeOBJ is the cube [0,1]³, triangles counter-clockwise seen from outside.
const unitCubeOBJ = `v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3
f 1 3 2
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 4 8 7
f 4 7 3
f 1 5 8
f 1 8 4
f 2 3 7
f 2 7 6
`

// Tolerances of the pose-track test.
const (
	// poseRoundOff bounds quantities the integrator computes exactly up to round-off: v = g t
	// (semi-implicit Euler is exact for constant acceleration), a free cube's constant ω and
	// its orientation (exact exp(ω Δt) rotations), the origin–centre offset.
	poseRoundOff = 1e-9
	// poseG is the default gravity's magnitude (m/s²).
	poseG = 9.81
	// poseDtMax is the scene's solver.dtMax: semi-implicit Euler's position lags the exact
	// parabola by at most g·t·dtMax/2.
	poseDtMax = 0.005
)

// readPoses parses a pose track with plain string splitting (independently of the writer's
// encoding/csv): the header, then rows keyed by body name with their numeric columns by name.
func readPoses(t *testing.T, path string) (header []string, rows map[string][]map[string]float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	header = strings.Split(lines[0], ",")
	rows = map[string][]map[string]float64{}
	for _, ln := range lines[1:] {
		// the time, then the name (quoted when it holds a comma), then numbers
		name := ""
		{
			i := strings.IndexByte(ln, ',')
			rest := ln[i+1:]
			if strings.HasPrefix(rest, `"`) {
				j := strings.Index(rest[1:], `"`)
				name, rest = rest[1:j+1], rest[j+2:]
			} else {
				j := strings.IndexByte(rest, ',')
				name, rest = rest[:j], rest[j:]
			}
			fields := append([]string{ln[:i], ""}, strings.Split(strings.TrimPrefix(rest, ","), ",")...)
			if len(fields) != len(header) {
				t.Fatalf("row %q has %d fields, the header %d", ln, len(fields), len(header))
			}
			row := map[string]float64{}
			for k, f := range fields {
				if k == 1 {
					continue
				}
				v, err := strconv.ParseFloat(f, 64)
				if err != nil {
					t.Fatalf("row %q column %s: %v", ln, header[k], err)
				}
				row[header[k]] = v
			}
			rows[name] = append(rows[name], row)
		}
	}
	return header, rows
}

func TestPoseTrackOfFreelyFallingBodies(t *testing.T) {
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "poses.json")
	os.WriteFile(scenePath, []byte(poseScene), 0o644)
	os.WriteFile(filepath.Join(dir, "cube.obj"), []byte(unitCubeOBJ), 0o644)
	posePath := filepath.Join(dir, "track", "poses.csv")
	var out, errb bytes.Buffer
	if err := run([]string{"run", scenePath, "--poses", posePath}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	header, rows := readPoses(t, posePath)
	want := "t[s],body,x[m],y[m],z[m],qw,qx,qy,qz,vx[m/s],vy[m/s],vz[m/s],wx[rad/s],wy[rad/s],wz[rad/s],submerged[1],originx[m],originy[m],originz[m]"
	if strings.Join(header, ",") != want {
		t.Fatalf("header %v, want %s", header, want)
	}
	// t = 0 and 10 frames of 0.02 s, for each body
	for _, name := range []string{"crate", "top, spinning"} {
		if len(rows[name]) != 11 {
			t.Fatalf("%q: %d rows, want 11", name, len(rows[name]))
		}
	}
	start := map[string][3]float64{"crate": {0.4, 0.8, 0.4}, "top, spinning": {0.9, 0.8, 0.4}}
	for name, track := range rows {
		x0 := start[name]
		for k, r := range track {
			tm := r["t[s]"]
			if math.Abs(tm-0.02*float64(k)) > poseRoundOff {
				t.Fatalf("%q row %d at t = %g s, want %g", name, k, tm, 0.02*float64(k))
			}
			if math.Abs(r["vy[m/s]"]+poseG*tm) > poseRoundOff || math.Abs(r["vx[m/s]"]) > poseRoundOff || math.Abs(r["vz[m/s]"]) > poseRoundOff {
				t.Errorf("%q t = %g: v = (%g, %g, %g), want (0, −g t = %g, 0)", name, tm, r["vx[m/s]"], r["vy[m/s]"], r["vz[m/s]"], -poseG*tm)
			}
			exact := x0[1] - poseG*tm*tm/2
			if d := r["y[m]"] - exact; d > poseRoundOff || d < -(poseG*tm*poseDtMax/2+poseRoundOff) {
				t.Errorf("%q t = %g: y = %g, exact %g (Euler may lag by g t dtMax/2 = %g)", name, tm, r["y[m]"], exact, poseG*tm*poseDtMax/2)
			}
			if math.Abs(r["x[m]"]-x0[0]) > poseRoundOff || math.Abs(r["z[m]"]-x0[2]) > poseRoundOff || r["submerged[1]"] != 0 {
				t.Errorf("%q t = %g: x = %g, z = %g, submerged %g; want %g, %g, 0", name, tm, r["x[m]"], r["z[m]"], r["submerged[1]"], x0[0], x0[2])
			}
		}
	}
	for _, r := range rows["crate"] {
		// the OBJ origin is the cube's corner: 10 cm below the centre of mass on each axis
		for _, a := range []string{"x", "y", "z"} {
			if d := r[a+"[m]"] - r["origin"+a+"[m]"]; math.Abs(d-0.1) > poseRoundOff {
				t.Errorf("crate t = %g: centre − origin along %s = %g, want 0.1", r["t[s]"], a, d)
			}
		}
		if r["qw"] != 1 || r["qx"] != 0 || r["qy"] != 0 || r["qz"] != 0 {
			t.Errorf("crate t = %g turned: q = (%g, %g, %g, %g)", r["t[s]"], r["qw"], r["qx"], r["qy"], r["qz"])
		}
	}
	for _, r := range rows["top, spinning"] {
		// a cube's inertia is isotropic: ω stays (0, 3, 0) and q(t) = (cos 1.5t, 0, sin 1.5t, 0)
		tm := r["t[s]"]
		q := [4]float64{math.Cos(1.5 * tm), 0, math.Sin(1.5 * tm), 0}
		for i, c := range []string{"qw", "qx", "qy", "qz"} {
			if math.Abs(r[c]-q[i]) > poseRoundOff {
				t.Errorf("top t = %g: %s = %g, want %g", tm, c, r[c], q[i])
			}
		}
		if math.Abs(r["wy[rad/s]"]-3) > poseRoundOff || r["originx[m]"] != r["x[m]"] {
			t.Errorf("top t = %g: ω_y = %g, origin x %g vs centre %g", tm, r["wy[rad/s]"], r["originx[m]"], r["x[m]"])
		}
	}
}

func TestPosesWithoutRigidBodiesWarns(t *testing.T) {
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	os.WriteFile(scenePath, []byte(tiny), 0o644)
	posePath := filepath.Join(dir, "poses.csv")
	var out, errb bytes.Buffer
	if err := run([]string{"run", scenePath, "--poses", posePath, "--duration", "0.02"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(posePath)
	if strings.Count(string(data), "\n") != 1 || !strings.Contains(errb.String(), "no rigid bodies") {
		t.Errorf("track %q, stderr %q; want the header alone and a warning", data, errb.String())
	}
}

// TestHelpAndWarningsGoWhereTheyBelong: "run --help" is not an error (exit 0 with the usage),
// and validate writes its warnings to stderr as run does, keeping stdout for the verdict.
func TestHelpAndWarningsGoWhereTheyBelong(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run([]string{"run", "--help"}, &out, &errb); err != nil {
		t.Errorf("run --help: %v, want no error", err)
	}
	if !strings.Contains(errb.String()+out.String(), "-duration") {
		t.Errorf("run --help printed %q / %q, want the flags", out.String(), errb.String())
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "thick.json")
	scn := `{"solver": {"particleRadius": 0.025},
  "boundaries": [{"name": "tank", "min": [0,0,0], "max": [1,1,1]}],
  "fluids": [{"name": "honey", "min": [0,0,0], "max": [0.5,0.5,0.5], "material": {"viscosity": 0.3}}]}`
	if err := os.WriteFile(path, []byte(scn), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if err := run([]string{"validate", path}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errb.String(), "warning: fluids[0].material.viscosity") || strings.Contains(out.String(), "warning") {
		t.Errorf("validate: stdout %q, stderr %q; want the viscosity warning on stderr only", out.String(), errb.String())
	}
}

func TestValidateFailsWhereRunFails(t *testing.T) {
	// Scenes that decode but cannot be built: validate rejects each as run does, naming the
	// body.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.obj"), []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "garbage.bgeo"), []byte("this is not a bgeo file at all"), 0o644)
	mesh := `"boundaryMeshes": [{"name": "m", "file": "bad.obj"}],`
	model := `"fluidModels": [{"name": "g", "file": "garbage.bgeo"}],`
	for _, c := range []struct {
		name, find, replace, want string
	}{
		{"face index out of range", `"boundaries"`, mesh + `"boundaries"`, "boundaryMeshes[0]"},
		{"garbage particle file", `"boundaries"`, model + `"boundaries"`, "fluidModels[0]"},
		{"radius larger than the scene", `"particleRadius": 0.05`, `"particleRadius": 5`, "fluids[0]"},
	} {
		scene := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
		os.WriteFile(scene, []byte(strings.Replace(tiny, c.find, c.replace, 1)), 0o644)
		var out, errb bytes.Buffer
		verr := run([]string{"validate", scene}, &out, &errb)
		rerr := run([]string{"run", scene, "--duration", "0.02"}, &out, &errb)
		if verr == nil || rerr == nil || !strings.Contains(verr.Error(), c.want) {
			t.Errorf("%s: validate: %v; run: %v (want both to fail naming %s)", c.name, verr, rerr, c.want)
		}
	}
}

func TestRunExportsSurfaces(t *testing.T) {
	// --export-surface obj writes one mesh per fluid body on the exported frames (the first
	// and the last here), next to the particle files; a bad format or no --out is an error.
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	os.WriteFile(scenePath, []byte(tiny), 0o644)
	var out, errb bytes.Buffer
	frames := filepath.Join(dir, "frames")
	if err := run([]string{"run", scenePath, "--duration", "0.04", "--out", frames, "--export-surface", "obj"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	for _, f := range []string{"tiny_water_000000.obj", "tiny_water_000002.obj", "tiny_000002.vtk"} {
		if fi, err := os.Stat(filepath.Join(frames, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", scenePath, "--out", frames, "--export-surface", "stl"}, "surface format"},
		{[]string{"run", scenePath, "--export-surface", "obj"}, "--out"},
		{[]string{"run", scenePath, "--out", frames, "--export-surface", "obj", "--surface-cell", "-1"}, "--surface-cell"},
	} {
		if err := run(c.args, &out, &errb); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.args, err, c.want)
		}
	}
}

func TestPlotDrawsTheStatistics(t *testing.T) {
	// Three steps with known values: the chart of densityErrorAvg spans its min 1 and max 3,
	// its polyline puts t = 0.1 s at the left edge and the maximum at the top, the minimum at
	// the bottom (to the SVG's 0.01 units); stageMs draws one line per stage, sorted. Unknown
	// and non-numeric keys, an empty file and a file of other JSON are errors.
	dir := t.TempDir()
	stats := filepath.Join(dir, "s.jsonl")
	os.WriteFile(stats, []byte(`{"t":0.1,"densityErrorAvg":1,"stageMs":{"b":2,"a":1},"pressureSolver":"iisph"}
{"t":0.2,"densityErrorAvg":3,"stageMs":{"b":2,"a":4}}
{"t":0.3,"densityErrorAvg":2,"stageMs":{"b":2,"a":1}}
`), 0o644)
	var out, errb bytes.Buffer
	svg := filepath.Join(dir, "s.svg")
	if err := run([]string{"plot", stats, "--keys", "densityErrorAvg,stageMs", "--out", svg}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(svg)
	s := string(data)
	if !strings.Contains(s, `data-key="densityErrorAvg" data-min="1" data-max="3"`) {
		t.Errorf("the densityErrorAvg chart does not span [1, 3]:\n%.600s", s)
	}
	// chart 0: top = plotTop + 20 = 60, bottom 220; x from 90 to 810
	if !strings.Contains(s, `data-name="densityErrorAvg" points="90.00,220.00 450.00,60.00 810.00,140.00 "`) {
		t.Errorf("the polyline's points are not the values' places:\n%.900s", s)
	}
	if i, j := strings.Index(s, `data-name="a"`), strings.Index(s, `data-name="b"`); i < 0 || j < i {
		t.Errorf("stageMs does not draw stages a then b")
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(other, []byte(`{"x": 1}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plot", stats, "--keys", "speedOfLight"}, "no statistic"},
		{[]string{"plot", stats, "--keys", "pressureSolver"}, "not a number"},
		{[]string{"plot", empty}, "no statistics"},
		{[]string{"plot", other}, "no time t"},
	} {
		if err := run(c.args, &out, &errb); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}

func TestSummaryCountsFlipParticles(t *testing.T) {
	// A FLIP-only scene's summary counts the liquid's particles (34,560 in the example scene),
	// not the SPH set's zero.
	var out, errb bytes.Buffer
	if err := run([]string{"run", "../../examples/scenes/flip_dambreak.json", "--duration", "0.04"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), ": 34560 particles,") {
		t.Errorf("summary: %s", out.String())
	}
}

func TestRunExportsDiffuseParticles(t *testing.T) {
	// examples/scenes/foam.json turns on spray, foam and bubbles: after 0.6 s the dam break's
	// wave has made some, and the CSV frame carries them as bodies diffuse.spray,
	// diffuse.foam and diffuse.bubble of phase diffuse, as many rows as the stats count.
	dir := t.TempDir()
	var out, errb bytes.Buffer
	frames := filepath.Join(dir, "frames")
	stats := filepath.Join(dir, "stats.jsonl")
	err := run([]string{"run", "../../examples/scenes/foam.json", "--duration", "0.6", "--out", frames, "--export", "csv", "--every", "36", "--stats", stats}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	data, err := os.ReadFile(filepath.Join(frames, "foam_000036.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Count(string(data), ",diffuse,")
	js, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(js)), "\n")
	var last struct {
		Diffuse struct{ Spray, Foam, Bubbles int }
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	n := last.Diffuse.Spray + last.Diffuse.Foam + last.Diffuse.Bubbles
	t.Logf("%d diffuse rows, stats %+v", rows, last.Diffuse)
	if n == 0 || rows != n {
		t.Errorf("%d diffuse rows in the frame, the stats count %d (want equal and > 0)", rows, n)
	}
}

// TestRunWritesACPUProfile: --cpuprofile writes a profile of the stepping (a gzip-compressed
// protocol buffer, as go tool pprof reads it), and a path that cannot be created is an error
// naming the flag.
func TestRunWritesACPUProfile(t *testing.T) {
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "tiny.json")
	if err := os.WriteFile(scenePath, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(dir, "cpu.prof")
	var out, errb bytes.Buffer
	if err := run([]string{"run", scenePath, "--cpuprofile", prof}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	b, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("the profile (%d bytes) does not start with gzip's magic number", len(b))
	}
	err = run([]string{"run", scenePath, "--cpuprofile", filepath.Join(dir, "missing", "cpu.prof")}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "--cpuprofile") {
		t.Fatalf("a profile in a missing directory: error %v, want one naming --cpuprofile", err)
	}
}

// TestRunReportsWaitingEmitters: a nozzle 10 cm above the floor of a box, shooting down at
// 0.5 m/s in zero gravity, soon finds water where its layers would flow to (the world's
// TestEmitterWaitsForRoom): the run notes the first wait on stderr and prints the total, and
// the statistics carry emitterHeld.
func TestRunReportsWaitingEmitters(t *testing.T) {
	const scene = `{
  "solver": {"particleRadius": 0.01, "viscositySolver": "implicit", "gravity": [0, 0, 0]},
  "duration": 1,
  "boundaries": [{"name": "box", "min": [-0.2, 0, -0.2], "max": [0.2, 0.3, 0.2], "tank": true, "drag": 0.1}],
  "emitters": [{"name": "jet", "center": [0, 0.1, 0], "direction": [0, -1, 0], "up": [1, 0, 0],
    "width": 0.06, "speed": 0.5, "material": {"viscosity": 0.1}}]
}`
	dir := t.TempDir()
	scenePath := filepath.Join(dir, "blocked.json")
	if err := os.WriteFile(scenePath, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	stats := filepath.Join(dir, "stats.jsonl")
	var out, errb bytes.Buffer
	if err := run([]string{"run", scenePath, "--stats", stats}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(errb.String(), "emitter layers wait") {
		t.Errorf("no note of the first wait on stderr:\n%s", errb.String())
	}
	m := regexp.MustCompile(`emitter layers waited (\d+) times`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no total of the waits in the summary:\n%s", out.String())
	}
	b, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var st struct {
			EmitterHeld int `json:"emitterHeld"`
		}
		if err := json.Unmarshal([]byte(line), &st); err != nil {
			t.Fatal(err)
		}
		sum += st.EmitterHeld
	}
	if want := strconv.Itoa(sum); m[1] != want || sum == 0 {
		t.Errorf("the summary counts %s waits, the statistics %d; want equal and above 0", m[1], sum)
	}
}
