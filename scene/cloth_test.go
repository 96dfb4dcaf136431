package scene

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const clothScene = `{
  "solver": {"particleRadius": 0.025, "pressureSolver": "pf"},
  "duration": 0.1,
  "clothBodies": [{"name": "sheet", "rows": 4, "cols": 5, "origin": [0, 1, 0], "pin": "corners", "pinned": [2]}],
  "fluids": [{"name": "water", "min": [0, 1.1, 0], "max": [0.1, 1.2, 0.1]}]
}`

func TestClothSceneBuildsTheSheet(t *testing.T) {
	// A 4 × 5 rectangle at the spacing 2r = 5 cm: 20 vertices, 2·3·4 = 24 triangles, the four
	// corners and vertex 2 pinned; the free vertices fall, the pinned stay.
	s, err := Parse([]byte(clothScene))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e, ok := w.BodyByName("sheet")
	if !ok {
		t.Fatal("no sheet")
	}
	c := w.ClothState(e)
	if len(c.Rest) != 20 || len(c.Tris) != 24 {
		t.Fatalf("%d vertices, %d triangles; want 20, 24", len(c.Rest), len(c.Tris))
	}
	want := []int32{0, 2, 4, 15, 19}
	if len(c.Pinned) != len(want) {
		t.Fatalf("pinned %v, want %v", c.Pinned, want)
	}
	for k := range want {
		if c.Pinned[k] != want[k] {
			t.Fatalf("pinned %v, want %v", c.Pinned, want)
		}
	}
	if d := c.Rest[1].Sub(c.Rest[0]).Len(); d != 0.05 {
		t.Fatalf("vertex spacing %g m, want 2r = 0.05 m", d)
	}
	for i := 0; i < 6; i++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	p := w.Particles(e)
	if p.X[2] != c.Rest[2] || !(p.X[7][1] < 1) {
		t.Fatalf("pinned vertex at %v (rest %v), free vertex 7 at %v", p.X[2], c.Rest[2], p.X[7])
	}
}

func TestClothSceneFromOBJ(t *testing.T) {
	// A mesh cloth: the OBJ's two triangles, scaled by 2, vertex 0 pinned.
	dir := t.TempDir()
	obj := "v 0 0 0\nv 0.05 0 0\nv 0.05 0 0.05\nv 0 0 0.05\nf 1 2 3\nf 1 3 4\n"
	if err := os.WriteFile(filepath.Join(dir, "sq.obj"), []byte(obj), 0o644); err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(clothScene, `"rows": 4, "cols": 5, "origin": [0, 1, 0], "pin": "corners", "pinned": [2]`,
		`"shape": "mesh", "file": "sq.obj", "scale": [2, 2, 2], "translation": [0, 1, 0], "pinned": [0]`, 1)
	if err := os.WriteFile(filepath.Join(dir, "s.json"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(filepath.Join(dir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e, _ := w.BodyByName("sheet")
	c := w.ClothState(e)
	if len(c.Rest) != 4 || len(c.Tris) != 2 || len(c.Stretch) != 5 || len(c.Bend) != 1 {
		t.Fatalf("%d vertices, %d triangles, %d edges, %d bending pairs; want 4, 2, 5, 1", len(c.Rest), len(c.Tris), len(c.Stretch), len(c.Bend))
	}
	if d := c.Rest[1].Sub(c.Rest[0]).Len(); d < 0.0999 || d > 0.1001 {
		t.Fatalf("scaled edge %g m, want 0.1 m", d)
	}
}

func TestClothSceneBadInput(t *testing.T) {
	for _, c := range []struct{ find, replace, want string }{
		{`"pressureSolver": "pf"`, `"pressureSolver": "iisph"`, `clothBodies[0]: a cloth body needs solver.pressureSolver "pf" (is "iisph"; allowed: pf)`},
		{`"pin": "corners"`, `"pin": "edges"`, `clothBodies[0].pin: "edges" is not a pin pattern (allowed: none, corners, border)`},
		{`"rows": 4`, `"rows": 1`, `clothBodies[0].rows: 1 is below the minimum 2`},
		{`"pinned": [2]`, `"pinned": [20]`, `pinned: vertex 20 is outside [0, 20)`},
		{`"pin": "corners"`, `"pin": "corners", "material": {"cloth": {"stretchStiffness": 0}}`, `clothBodies[0].material.cloth.stretchStiffness: 0 N/m must be greater than 0`},
		{`"pin": "corners"`, `"shape": "cone"`, `clothBodies[0].shape: "cone" is not a cloth shape (allowed: rectangle, mesh)`},
	} {
		src := strings.Replace(clothScene, c.find, c.replace, 1)
		s, err := Parse([]byte(src))
		if err == nil {
			var w interface{ Close() }
			w, err = s.Build(1)
			if err == nil {
				w.Close()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s → %s: error %v, want it to contain %q", c.find, c.replace, err, c.want)
		}
	}
}
