package scene

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/presets"
)

// presetScene is a small dam break whose block takes its material from a preset.
const presetScene = `{
  "solver": {"particleRadius": 0.025},
  "duration": 0.33,
  "boundaries": [{"name": "tank", "min": [0,0,0], "max": [1.2,1,0.25]}],
  "fluids": [{"name": "block", "min": [0,0,0], "max": [0.4,0.4,0.25], "material": {"preset": "PRESET"}}]
}`

func TestEveryPresetValidatesAndTheSchemaAcceptsIt(t *testing.T) {
	names := PresetNames()
	for _, want := range []string{"water", "honey", "slime"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("no %s preset among %v", want, names)
		}
	}
	raw, _ := json.Marshal(params.Schema(components.Material{}, "material"))
	var schema map[string]any
	json.Unmarshal(raw, &schema)
	for _, n := range names {
		m, err := Preset(n, "")
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if m.Preset != "" {
			t.Errorf("%s: a preset names preset %q itself", n, m.Preset)
		}
		data, _ := presets.Read(n)
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if err := validate(schema, v, n); err != nil {
			t.Errorf("%s: schema rejects the preset: %v", n, err)
		}
		// Every fluid-phase key is spelt out, so a modder copying the file sees every knob.
		// (Keys of phases added later, such as elastic moduli, belong in their own presets.)
		for _, k := range []string{"density", "viscosity", "viscoelastic", "adhesion"} {
			if _, ok := v.(map[string]any)[k]; !ok {
				t.Errorf("%s: key %s is missing from the preset file", n, k)
			}
		}
	}
}

func TestPresetSceneRuns(t *testing.T) {
	for _, n := range PresetNames() {
		s, err := Parse([]byte(strings.Replace(presetScene, "PRESET", n, 1)))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		want, _ := Preset(n, "")
		want.Preset = n
		if got := s.Fluids[0].Material; got != want {
			t.Errorf("%s: material %+v, want the preset's %+v", n, got, want)
		}
		w, err := s.Build(1)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for i := 0; i < 3; i++ {
			if _, err := w.Step(1.0 / 60); err != nil {
				t.Fatalf("%s: step %d: %v", n, i, err)
			}
		}
		w.Close()
	}
}

func TestExplicitKeysOverrideThePreset(t *testing.T) {
	sc := strings.Replace(presetScene, `{"preset": "PRESET"}`,
		`{"preset": "slime", "density": 1111, "viscoelastic": {"c": 0.05}}`, 1)
	s, err := Parse([]byte(sc))
	if err != nil {
		t.Fatal(err)
	}
	slime, _ := Preset("slime", "")
	m := s.Fluids[0].Material
	if m.RestDensity != 1111 || m.Viscoelastic.C != 0.05 {
		t.Errorf("explicit keys lost: density %g, c %g", m.RestDensity, m.Viscoelastic.C)
	}
	// Keys not given come from the preset, also inside the merged viscoelastic group.
	if m.Viscosity != slime.Viscosity || !m.Viscoelastic.Enabled || m.Viscoelastic.Alpha != slime.Viscoelastic.Alpha {
		t.Errorf("preset keys lost: %+v (slime %+v)", m, slime)
	}
}

func TestScenePresetFolderAndPathOverrideTheShippedPreset(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "presets"), 0o755)
	os.WriteFile(filepath.Join(dir, "presets", "honey.json"), []byte(`{"density": 1400, "viscosity": 0.04}`), 0o644)
	os.WriteFile(filepath.Join(dir, "mine.json"), []byte(`{"density": 1300}`), 0o644)
	os.WriteFile(filepath.Join(dir, "chain.json"), []byte(`{"preset": "water"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"viscosity": 2000}`), 0o644)
	for _, c := range []struct {
		preset  string
		density float64
		err     string
	}{
		{"honey", 1400, ""},
		{"mine.json", 1300, ""},
		{"water", 1000, ""},
		{"chain.json", 0, "presets do not chain"},
		{"bad.json", 0, "viscosity: 2000 m^2/s is above the maximum 1000"},
	} {
		path := filepath.Join(dir, "scene.json")
		os.WriteFile(path, []byte(strings.Replace(presetScene, "PRESET", c.preset, 1)), 0o644)
		s, err := Load(path)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), "fluids[0].material.preset") || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one naming the key and %q", c.preset, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.preset, err)
		}
		if got := s.Fluids[0].Material.RestDensity; got != c.density {
			t.Errorf("%s: density %g, want %g", c.preset, got, c.density)
		}
	}
}

// honeyLag is how much farther, at least, the water front runs than the honey front in the
// first 0.33 s of the small dam break. Measured: water reaches x = 0.99 m, honey (ν = 0.05)
// 0.90 m; 0.05 m asserts a difference a viewer sees, with a margin for solver changes.
const honeyLag = 0.05

func TestHoneyIsVisiblyMoreViscousThanWater(t *testing.T) {
	front := map[string]float64{}
	for _, n := range []string{"water", "honey"} {
		s, err := Parse([]byte(strings.Replace(presetScene, "PRESET", n, 1)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Build(1)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if _, err := w.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range w.Bodies() {
			if b.Body.Name == "block" {
				for _, x := range b.Particles.X {
					front[n] = max(front[n], x[0])
				}
			}
		}
		w.Close()
	}
	t.Logf("front after 0.33 s: water %.3f m, honey %.3f m", front["water"], front["honey"])
	if front["water"]-front["honey"] < honeyLag {
		t.Errorf("honey front %.3f m is not %g m behind water's %.3f m", front["honey"], honeyLag, front["water"])
	}
}

func TestAdviceNamesAViscosityTooHighForTheStep(t *testing.T) {
	thick := strings.Replace(presetScene, `{"preset": "PRESET"}`, `{"preset": "honey", "viscosity": 0.3}`, 1)
	s, err := Parse([]byte(thick))
	if err != nil {
		t.Fatal(err)
	}
	adv := s.Advice()
	// ν = 0.3 m²/s at r = 2.5 cm: 0.8·2/(ν λ_max) with λ_max H² = 56.99 for the cubic spline
	// (TestViscosityEigenIsTheOperatorsSpectralRadius), H = 0.1 m: 9.4e-4 s.
	if len(adv) != 1 || adv[0].Path != "fluids[0].material.viscosity" || !strings.Contains(adv[0].Msg, "substeps up to 0.00094 s") {
		t.Fatalf("advice %v, want one naming fluids[0].material.viscosity and the stable substep", adv)
	}
	// With that dtMax (and for every preset at the defaults) there is nothing to say.
	s, _ = Parse([]byte(strings.Replace(thick, `"particleRadius": 0.025`, `"particleRadius": 0.025, "dtMax": 0.0009`, 1)))
	if adv := s.Advice(); len(adv) != 0 {
		t.Errorf("advice %v at a stable dtMax", adv)
	}
	for _, n := range PresetNames() {
		s, _ := Parse([]byte(strings.Replace(presetScene, "PRESET", n, 1)))
		if adv := s.Advice(); len(adv) != 0 {
			t.Errorf("%s at r = 0.025 m and the default dtMax: advice %v", n, adv)
		}
	}
}

func TestPresetExpansionKeepsJSONErrors(t *testing.T) {
	// Invalid JSON around a preset is still reported by the decoder, with its position.
	bad := strings.Replace(presetScene, "PRESET", "honey", 1) + " trailing"
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "invalid JSON at line") {
		t.Errorf("error %v, want the decoder's invalid-JSON message", err)
	}
}

// TestElasticPresetsMakeElasticBodies: the jelly and rubber presets give an elastic body
// their moduli and density, rubber is the stiffer, and a ball of each dropped on the floor
// runs half a second without its CG solve running out of iterations.
func TestElasticPresetsMakeElasticBodies(t *testing.T) {
	const sc = `{
  "solver": {"particleRadius": 0.02},
  "boundaries": [{"name": "tank", "min": [0, 0, 0], "max": [0.6, 0.6, 0.6]}],
  "elasticBodies": [{"name": "ball", "shape": "sphere", "center": [0.3, 0.25, 0.3], "radius": 0.12, "material": {"preset": "PRESET"}}]
}`
	var shear []float64
	for _, n := range []string{"jelly", "rubber"} {
		s, err := Parse([]byte(strings.Replace(sc, "PRESET", n, 1)))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		want, _ := Preset(n, "")
		m := s.Elastic[0].Material
		g, k := m.Elastic.Moduli()
		if m.RestDensity != want.RestDensity || !(g > 0) || !(k > 0) {
			t.Fatalf("%s: density %g, G %g, K %g; want the preset's density and moduli", n, m.RestDensity, g, k)
		}
		shear = append(shear, g)
		w, err := s.Build(1)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for i := 0; i < 30; i++ {
			st, err := w.Step(1.0 / 60)
			if err != nil {
				t.Fatalf("%s: step %d: %v", n, i, err)
			}
			if st.ElasticUnconverged > 0 {
				t.Fatalf("%s: %d elastic solves ran out of iterations at t = %.2f s", n, st.ElasticUnconverged, st.T)
			}
		}
		w.Close()
	}
	if !(shear[1] > shear[0]) {
		t.Errorf("rubber's shear modulus %g is not above jelly's %g", shear[1], shear[0])
	}
}
