package scene

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const good = `{
  "solver": {"particleRadius": 0.05},
  "duration": 0.1,
  "boundaries": [{"name": "tank", "min": [0,0,0], "max": [1,1,1]}],
  "fluids": [{"name": "water", "min": [0,0,0], "max": [0.5,0.5,0.5], "material": {"density": 1000}}]
}`

func TestGoodSceneParsesWithDefaults(t *testing.T) {
	s, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if s.Solver.ParticleRadius != 0.05 || s.Solver.MaxError != 0.001 || s.FPS != 60 || !s.Boundaries[0].Tank || s.Fluids[0].Material.Viscosity != 0.01 {
		t.Fatalf("defaults not applied: %+v", s)
	}
	w, err := s.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// 0.5 m at spacing 0.1 m: round(5) − 1 = 4 particles per axis.
	if n := w.Bodies()[1].Particles.Len(); n != 64 {
		t.Fatalf("fluid block has %d particles, want 4³ = 64", n)
	}
}

func TestBadScenesNameTheField(t *testing.T) {
	cases := []struct {
		name, find, replace, want string
	}{
		{"negative radius", `"particleRadius": 0.05`, `"particleRadius": -0.05`, "solver.particleRadius: -0.05 m must be greater than 0"},
		{"zero radius", `"particleRadius": 0.05`, `"particleRadius": 0`, "solver.particleRadius: 0 m must be greater than 0"},
		{"zero density", `"density": 1000`, `"density": 0`, "fluids[0].material.density: 0 kg/m^3 is below the minimum 1"},
		{"NaN", `"density": 1000`, `"density": NaN`, "invalid JSON at line 5, column"},
		{"Inf", `"duration": 0.1`, `"duration": 1e999`, "duration: expected a number, got 1e999"},
		{"unknown key", `"duration": 0.1`, `"duration": 0.1, "imteStepSize": 0.1`, "imteStepSize: unknown key"},
		{"unknown nested key", `"particleRadius": 0.05`, `"particleRadius": 0.05, "timeStep": 1`, "solver.timeStep: unknown key"},
		{"missing fluids", `"fluids": [{"name": "water", "min": [0,0,0], "max": [0.5,0.5,0.5], "material": {"density": 1000}}]`, `"fps": 30`, "fluids: at least one fluid block, fluid sphere, fluid model, fluid mesh, emitter, elastic, elastoplastic, flip or cloth body is required"},
		{"missing min", `"min": [0,0,0], "max": [0.5`, `"max": [0.5`, "fluids[0].min: required key is missing"},
		{"wrong type", `"duration": 0.1`, `"duration": "long"`, "duration: expected a number"},
		{"short vector", `"max": [1,1,1]`, `"max": [1,1]`, "boundaries[0].max: expected an array of 3 numbers, got 2"},
		{"long vector", `"max": [1,1,1]`, `"max": [1,1,1,1]`, "boundaries[0].max: expected an array of 3 numbers, got 4"},
		{"null value", `"duration": 0.1`, `"duration": null`, "duration: null is not a value here: leave the key out"},
		{"null object", `"solver": {"particleRadius": 0.05}`, `"solver": null`, "solver: null is not a value here"},
		{"duplicate key", `"duration": 0.1`, `"duration": 0.1, "duration": 5`, "duration: key given twice"},
		{"duplicate nested key", `"particleRadius": 0.05`, `"particleRadius": 0.05, "particleRadius": 0.07`, "solver.particleRadius: key given twice"},
		{"number as a string", `"duration": 0.1`, `"duration": "0.1"`, `duration: expected a number, got "0.1"`},
		{"syntax error names no NaN", `"duration": 0.1,`, `"duration": 0.1,,`, "invalid JSON at line"},
		{"inverted box", `"max": [0.5,0.5,0.5]`, `"max": [0.5,-0.5,0.5]`, "fluids[0].max[1]: -0.5 m must exceed min[1] = 0 m"},
		{"negative viscosity", `"density": 1000`, `"density": 1000, "viscosity": -5`, "fluids[0].material.viscosity: -5 m^2/s is below the minimum 0"},
		{"maxError too large", `"particleRadius": 0.05`, `"particleRadius": 0.05, "maxError": 0.5`, "solver.maxError: 0.5 is above the maximum 0.1"},
		{"dtMin above dtMax", `"particleRadius": 0.05`, `"particleRadius": 0.05, "dtMin": 0.01, "dtMax": 0.001`, "solver.dtMin: 0.01 s exceeds dtMax"},
		{"bad kernel", `"particleRadius": 0.05`, `"particleRadius": 0.05, "kernel": "gauss"`, `solver.kernel: unknown kernel "gauss"`},
		{"duplicate name", `"name": "tank"`, `"name": "water"`, `"water" is used by`},
		{"empty fluids", `"fluids": [{`, `"fluids": [], "x": [{`, "x: unknown key"},
		{"zero layers", `"particleRadius": 0.05`, `"particleRadius": 0.05, "boundaryLayers": 0`, "solver.boundaryLayers: 0 is below the minimum 1"},
		{"not an object", `"solver": {"particleRadius": 0.05}`, `"solver": 3`, "solver: expected an object"},
		// goo (Takahashi et al. 2015): negative coefficients, β ≤ α, γ < 0, l > c
		{"negative c", `"density": 1000`, `"density": 1000, "viscoelastic": {"enabled": true, "c": -0.01}`, "fluids[0].material.viscoelastic.c: -0.01 is below the minimum 0"},
		{"negative w", `"density": 1000`, `"density": 1000, "viscoelastic": {"enabled": true, "w": -1}`, "fluids[0].material.viscoelastic.w: -1 1/s is below the minimum 0"},
		{"negative gamma", `"density": 1000`, `"density": 1000, "viscoelastic": {"enabled": true, "gamma": -0.5}`, "fluids[0].material.viscoelastic.gamma: -0.5 is below the minimum 0"},
		{"beta below alpha", `"density": 1000`, `"density": 1000, "viscoelastic": {"enabled": true, "alpha": 1, "beta": 0.8}`, "fluids[0].material.viscoelastic.beta: 0.8 must exceed alpha = 1"},
		{"beta equal alpha", `"density": 1000`, `"density": 1000, "viscoelastic": {"enabled": true, "alpha": 1, "beta": 1}`, "fluids[0].material.viscoelastic.beta: 1 must exceed alpha = 1"},
		{"zero alpha", `"density": 1000`, `"density": 1000, "viscoelastic": {"enabled": true, "alpha": 0}`, "fluids[0].material.viscoelastic.alpha: 0 must be above 0"},
		{"l above c", `"density": 1000`, `"density": 1000, "viscoelastic": {"enabled": true, "c": 0.01, "l": 0.02}`, "fluids[0].material.viscoelastic.l: 0.02 exceeds c = 0.01"},
		{"negative adhesion", `"max": [1,1,1]}`, `"max": [1,1,1], "adhesion": -1}`, "boundaries[0].adhesion: -1 is below the minimum 0"},
		{"motion keys out of order", `"max": [1,1,1]}`, `"max": [1,1,1], "motion": [{"until": 1}, {"until": 0.5}]}`, "boundaries[0].motion[1].until: 0.5 s must exceed the previous key's 1 s"},
		{"motion key without time", `"max": [1,1,1]}`, `"max": [1,1,1], "motion": [{"velocity": [0,1,0]}]}`, "boundaries[0].motion[0].until: required key is missing"},
		{"elastic file without a file", `"duration": 0.1`, `"duration": 0.1, "elasticBodies": [{"name": "beam", "shape": "file"}]`, `elasticBodies[0].file: shape "file" needs a particle file`},
		{"unknown elastic shape", `"duration": 0.1`, `"duration": 0.1, "elasticBodies": [{"name": "beam", "shape": "torus"}]`, `elasticBodies[0].shape: "torus" is not an elastic body shape (box, sphere or file)`},
		{"unknown preset", `"density": 1000`, `"preset": "hony"`, `fluids[0].material.preset: "hony" is not a material preset (known: clay, dough, honey, jelly, oil, putty, rubber, slime, snow, water`},
		{"preset not a string", `"density": 1000`, `"preset": 3`, "fluids[0].material.preset: expected a string, got 3"},
		{"preset file missing", `"density": 1000`, `"preset": "nothere/honey.json"`, "fluids[0].material.preset: preset file: open nothere/honey.json"},
		{"preset with bad override", `"density": 1000`, `"preset": "honey", "viscosity": -1`, "fluids[0].material.viscosity: -1 m^2/s is below the minimum 0"},
		{"fluid mesh without file", `"fluids": [{`, `"fluidMeshes": [{"name": "m"}], "fluids": [{`, "fluidMeshes[0].file: required key is missing"},
		{"fluid mesh zero scale", `"fluids": [{`, `"fluidMeshes": [{"name": "m", "file": "m.obj", "scale": [1,0,1]}], "fluids": [{`, "fluidMeshes[0].scale: [1 0 1] has a zero component"},
		{"fluid mesh bad material", `"fluids": [{`, `"fluidMeshes": [{"name": "m", "file": "m.obj", "material": {"preset": "water", "density": -1}}], "fluids": [{`, "fluidMeshes[0].material.density: -1 kg/m^3 is below the minimum 1"},
		{"fluid mesh name taken", `"fluids": [{`, `"fluidMeshes": [{"name": "water", "file": "m.obj"}], "fluids": [{`, `fluidMeshes[0].name: "water" is used by`},
		{"rigid zero density", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "density": 0}], "fluids": [{`, `rigidBodies[0].density: 0 kg/m^3 must be greater than 0`},
		{"rigid negative mass", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "mass": -2}], "fluids": [{`, `rigidBodies[0].mass: -2 kg is below the minimum 0`},
		{"rigid non-unit quaternion", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "orientation": [1, 0.2, 0, 0]}], "fluids": [{`, `rigidBodies[0].orientation: [1 0.2 0 0] has length`},
		{"rigid degenerate inertia", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "inertia": [1, 1, 0]}], "fluids": [{`, `rigidBodies[0].inertia[2]: 0 kg m² must be above 0`},
		{"rigid unknown shape", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "shape": "cone"}], "fluids": [{`, `rigidBodies[0].shape: "cone" is not a shape`},
		{"rigid unknown type", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "type": "floating"}], "fluids": [{`, `rigidBodies[0].type: "floating" is not a body type`},
		{"rigid mesh without file", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "shape": "mesh"}], "fluids": [{`, `rigidBodies[0].file: "": a file goes with shape "mesh"`},
		{"rigid motion not kinematic", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "motion": [{"until": 1, "velocity": [1, 0, 0]}]}], "fluids": [{`, `rigidBodies[0].motion: a motion path needs type "kinematic"`},
		{"rigid box below spacing", `"fluids": [{`, `"rigidBodies": [{"name": "crate", "size": [0.05, 0.2, 0.2]}], "fluids": [{`, `rigidBodies[0].size: size[0] = 0.05 m must exceed the particle spacing 0.1 m`},
		{"sphere below spacing", `"fluids": [{`, `"fluidSpheres": [{"name": "ball", "center": [0.5,0.5,0.5], "radius": 0.05}], "fluids": [{`, "fluidSpheres[0].radius: 0.05 m is below the particle spacing 2r = 0.1 m"},
	}
	for _, c := range cases {
		if !strings.Contains(good, c.find) {
			t.Fatalf("%s: %q not in the good scene", c.name, c.find)
		}
		bad := strings.Replace(good, c.find, c.replace, 1)
		_, err := Parse([]byte(bad))
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not contain %q", c.name, err, c.want)
		}
		if hint := strings.Contains(err.Error(), "NaN and Infinity"); hint != (c.name == "NaN") {
			t.Errorf("%s: error %q: the NaN hint belongs to NaN and Infinity only", c.name, err)
		}
	}
}

func TestHugeSceneIsRefusedBeforeAllocating(t *testing.T) {
	// A unit slip (a 1000 km block) is refused by the sampler with the count, not by the
	// operating system.
	s, err := Parse([]byte(strings.Replace(good, `"max": [0.5,0.5,0.5]`, `"max": [1e6,0.5,0.5]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// The memory estimate (where the system reports its memory) or the sampler's count
	// limit refuses it.
	if _, err := s.Build(1); err == nil || !(strings.Contains(err.Error(), "more than the limit") || strings.Contains(err.Error(), "GB available")) {
		t.Fatalf("error %v", err)
	}
}

func TestExampleScenesValidate(t *testing.T) {
	files, _ := filepath.Glob("../examples/scenes/*.json")
	goo, _ := filepath.Glob("../examples/goo/scenes/*.json")
	buoy, _ := filepath.Glob("../examples/buoyancy/scenes/*.json")
	if len(files) == 0 || len(goo) == 0 || len(buoy) == 0 {
		t.Fatal("no example scenes found")
	}
	files = append(append(files, goo...), buoy...)
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
	if _, err := os.Stat("../examples/scenes"); err != nil {
		t.Fatal(err)
	}
}

func TestMeshTankHoldsWater(t *testing.T) {
	// A tank given as an OBJ cube (path relative to the scene file) keeps a collapsing block
	// inside: after 1 s no particle is outside the cube or removed.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cube.obj"), []byte(cube), 0o644); err != nil {
		t.Fatal(err)
	}
	sceneJSON := `{
  "solver": {"particleRadius": 0.025},
  "boundaryMeshes": [{"name": "tank", "file": "cube.obj", "scale": [0.8, 0.6, 0.3], "translation": [-0.1, 0, 0], "tank": true}],
  "fluids": [{"name": "water", "min": [-0.1, 0, 0], "max": [0.2, 0.4, 0.3]}]
}`
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, []byte(sceneJSON), 0o644)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 60; i++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Removed) > 0 {
			t.Fatalf("t=%.2f: removed %v", st.T, st.Removed)
		}
		b := st.Bodies[1]
		if b.Min[0] < -0.1 || b.Max[0] > 0.7 || b.Min[1] < 0 || b.Min[2] < 0 || b.Max[2] > 0.3 {
			t.Fatalf("t=%.2f: water outside the mesh tank: %+v", st.T, b)
		}
	}
	if _, err := Parse([]byte(strings.Replace(sceneJSON, `"tank": true`, `"tank": true, "scale": [0, 1, 1]`, 1))); err == nil {
		t.Fatal("zero scale accepted")
	}
	// A missing mesh file is found when the scene is loaded, named by its key.
	os.WriteFile(path, []byte(strings.Replace(sceneJSON, "cube.obj", "nope.obj", 1)), 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "boundaryMeshes[0].file") {
		t.Fatalf("missing mesh: %v", err)
	}
}

func TestSceneJoints(t *testing.T) {
	// A paddle on a hinge to the world with a repeating motor schedule, from a scene file: its
	// spin follows the schedule (0 s: 0, 0.5 s: 4 rad/s, repeated) within jointMotorTol. Joints
	// naming an unknown body, or with a bad kind, fail naming the joint's field.
	const jointMotorTol = 0.05 // rad/s: the schedule moves 8 rad/s² over a substep of ≤ 5 ms
	scene := `{"solver": {"particleRadius": 0.02, "gravity": [0,0,0]},
		"fluids": [{"name": "water", "min": [0,0,0], "max": [0.1,0.1,0.1]}],
		"rigidBodies": [{"name": "paddle", "size": [0.3,0.05,0.1], "position": [1,1,1]}],
		"joints": [%s]}`
	s, err := Parse([]byte(fmt.Sprintf(scene, `{"bodyA": "paddle", "kind": "hinge", "anchor": [1,1,1], "axis": [0,0,1], "motorMaxTorque": 100,
		"motorSchedule": [{"time": 0, "speed": 0}, {"time": 0.5, "speed": 4}], "repeatSchedule": true}`)))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e, _ := w.BodyByName("paddle")
	worst := 0.0
	for f := 1; f <= 60; f++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
		tm := math.Mod(w.Time(), 0.5)
		if tm > 0.02 && tm < 0.49 { // away from the jump back to 0 at each repeat
			worst = max(worst, math.Abs(w.RigidBody(e).State.W[2]-8*tm))
		}
	}
	if worst > jointMotorTol {
		t.Errorf("the paddle's spin departs from its schedule by %.4f rad/s", worst)
	}
	for _, c := range []struct{ joint, want string }{
		{`{"bodyA": "rock", "kind": "ball", "anchor": [1,1,1]}`, "joints[0].bodyA"},
		{`{"bodyA": "paddle", "bodyB": "water", "kind": "ball", "anchor": [1,1,1]}`, "joints[0].bodyB"},
		{`{"bodyA": "paddle", "kind": "rope", "anchor": [1,1,1]}`, "joints[0]"},
		{`{"bodyA": "paddle", "kind": "hinge", "anchor": [1,1,1], "axis": [0,0,1], "motorSchedule": [{"time": 1, "speed": 0}, {"time": 0.5, "speed": 1}], "motorMaxTorque": 1}`, "motorSchedule[1]"},
	} {
		s, err := Parse([]byte(fmt.Sprintf(scene, c.joint)))
		if err == nil {
			var w2 interface{ Close() }
			w2, err = s.Build(1)
			if err == nil {
				w2.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", c.joint, err, c.want)
		}
	}
}
