package scene

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCorpusAnimatedBody(t *testing.T) {
	corpusFiles(t)
	// AnimatedBody_2D.json: the reference moves RigidBodies[1] (a dragon) by a Python script;
	// sluice imports it as a static wall where placed, says so, and runs the scene.
	sc, warns, err := ImportSPlisHSPlasH(filepath.Join(corpus, "AnimatedBody_2D.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(warns), "RigidBodies[1].isAnimated") {
		t.Errorf("no warning names RigidBodies[1].isAnimated: %v", warns)
	}
	if len(sc.Meshes) != 2 || len(sc.Rigid) != 0 {
		t.Fatalf("%d walls and %d rigid bodies, want the tank and the dragon as 2 walls", len(sc.Meshes), len(sc.Rigid))
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 0; i < 3; i++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
}

// corpusAnimTol bounds |v_x − cos(2t)·0.1| of the fluid inside AnimationFields_2D.json's first
// field after a frame: the field wrote the value at the start time t of the frame's last
// substep after that substep's integration, so only round-off of t and the cosine remains.
const corpusAnimTol = 1e-12

func TestCorpusAnimationFields(t *testing.T) {
	corpusFiles(t)
	// AnimationFields_2D.json: a 2 m square of water at rest without gravity in a tank, with
	// three fields: v_x = cos(2t)·0.1 in a 0.5 × 0.25 box at (−0.5, −0.5), ω_z = 0.125 in a box
	// turned 0.7 rad, v_x = sin(2t)·0.2 in a ball of radius 0.25 at (−0.5, 0.5).
	sc, _, err := ImportSPlisHSPlasH(filepath.Join(corpus, "AnimationFields_2D.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Anim) != 3 {
		t.Fatalf("%d animation fields, want 3", len(sc.Anim))
	}
	want := []struct{ field, shape, expr string }{{"velocity", "box", "cos(2*t)*0.1"}, {"angularVelocity", "box", "0.125"}, {"velocity", "sphere", "sin(2*t)*0.2"}}
	for k, a := range sc.Anim {
		e := a.X + a.Y + a.Z
		if a.Field != want[k].field || a.Shape != want[k].shape || e != want[k].expr {
			t.Errorf("field %d: %s %s %q, want %v", k, a.Field, a.Shape, e, want[k])
		}
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const frames = 30 // 0.5 s: cos(2t)·0.1 falls from 0.1 to 0.054
	for f := 0; f < frames; f++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
		tLast := w.Time() - st.Dt // start of the frame's last substep
		vx := math.Cos(2*tLast) * 0.1
		in := 0
		for _, b := range w.Bodies() {
			if b.Body.Phase.String() != "fluid" {
				continue
			}
			for i, x := range b.Particles.X {
				v := b.Particles.V[i]
				if v[2] != 0 {
					t.Fatalf("frame %d: particle %d has v_z = %g in a 2D scene", f, i, v[2])
				}
				if math.Abs(x[0]+0.5) < 0.25 && math.Abs(x[1]+0.5) < 0.125 {
					in++
					if math.Abs(v[0]-vx) > corpusAnimTol {
						t.Fatalf("frame %d (t = %g s): particle %d at %v has v_x %.15g, want cos(2t)·0.1 = %.15g", f, tLast, i, x, v[0], vx)
					}
				}
			}
		}
		if in == 0 {
			t.Fatalf("frame %d: no fluid inside the first field", f)
		}
		// the second field: ω_z = 0.125 exactly in the box of half sizes 0.125 turned 0.7 rad
		// about z at (0.3, 0.2), read on the packed state the field wrote
		fl := &w.Sim().Fluid
		c, s := math.Cos(0.7), math.Sin(0.7)
		inW := 0
		for i, x := range fl.X {
			dx, dy := x[0]-0.3, x[1]-0.2
			if u, v := c*dx+s*dy, -s*dx+c*dy; math.Abs(u) < 0.125 && math.Abs(v) < 0.125 {
				inW++
				if fl.Omega[i][2] != 0.125 {
					t.Fatalf("frame %d: particle at %v has ω %v, want ω_z = 0.125", f, x, fl.Omega[i])
				}
			}
		}
		if inW == 0 {
			t.Fatalf("frame %d: no fluid inside the second field", f)
		}
	}
}

func TestAnimationFieldImportErrors(t *testing.T) {
	// Bad AnimationFields entries fail naming the reference's key.
	dir := t.TempDir()
	const scene = `{
  "Configuration": {"particleRadius": 0.025},
  "FluidBlocks": [{"start": [0, 0, 0], "end": [0.5, 0.5, 0.5]}],
  "AnimationFields": [{"particleField": "velocity", "expression_x": "1"FIELD}]
}`
	cases := []struct{ field, want string }{
		{`, "particleField": "density"`, "AnimationFields[0].particleField"},
		{`, "shapeType": 3`, "AnimationFields[0].shapeType"},
		{`, "expression_y": "2*(t"`, "AnimationFields[0].expression_y"},
		{`, "expression_z": 5`, "AnimationFields[0].expression_z"},
		{`, "scale": [1, 0, 1]`, "AnimationFields[0].scale"},
		{`, "startTime": 2, "endTime": 1`, "AnimationFields[0].endTime"},
		{`, "colour": 1`, ""},
	}
	path := filepath.Join(dir, "s.json")
	for _, c := range cases {
		os.WriteFile(path, []byte(strings.Replace(scene, "FIELD", c.field, 1)), 0o644)
		sc, warns, err := ImportSPlisHSPlasH(path)
		if c.want == "" { // an unknown key is warned about, as everywhere in the importer
			if err != nil || !strings.Contains(fmt.Sprint(warns), "AnimationFields[0].colour") || len(sc.Anim) != 1 {
				t.Errorf("%s: error %v, warnings %v", c.field, err, warns)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s", c.field, err, c.want)
		}
	}
	if _, _, err := ImportSPlisHSPlasH(path); err != nil {
		t.Fatal(err)
	}
}
