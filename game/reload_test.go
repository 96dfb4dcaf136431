package game

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/scene"
)

const reloadScene = `{
  "solver": {"particleRadius": 0.05},
  "boundaries": [{"name": "tank", "min": [0, 0, 0], "max": [1, 1, 0.5]}],
  "fluids": [{"name": "water", "min": [0, 0, 0], "max": [0.3, 0.3, 0.3], "material": {"viscosity": VISC}}]
}`

func writeScene(t *testing.T, path, visc string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Replace(reloadScene, "VISC", visc, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReloadMaterialsUpdatesTheRunningWorld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	writeScene(t, path, "0.01")
	sc, err := scene.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	water, _ := w.BodyByName("water")
	if _, err := w.Step(1.0 / 60); err != nil {
		t.Fatal(err)
	}

	writeScene(t, path, "0.2")
	r, err := ReloadMaterials(w, path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Updated) != 1 || r.Updated[0] != "water" || w.Material(water).Viscosity != 0.2 {
		t.Fatalf("reload %+v, viscosity %g; want water updated to 0.2", r, w.Material(water).Viscosity)
	}
	if _, err := w.Step(1.0 / 60); err != nil {
		t.Fatalf("step after reload: %v", err)
	}
	if r, _ := ReloadMaterials(w, path); len(r.Unchanged) != 1 || len(r.Updated) != 0 {
		t.Fatalf("second reload of the same file %+v, want water unchanged", r)
	}

	// A bad value changes nothing and names the file and the field.
	writeScene(t, path, "-1")
	_, err = ReloadMaterials(w, path)
	if err == nil || !strings.Contains(err.Error(), "fluids[0].material.viscosity") || !strings.Contains(err.Error(), path) {
		t.Fatalf("error %v, want one naming %s and fluids[0].material.viscosity", err, path)
	}
	if w.Material(water).Viscosity != 0.2 {
		t.Fatalf("a rejected reload changed the viscosity to %g", w.Material(water).Viscosity)
	}

	// A fluid the world does not have is reported, one naming a wall is an error.
	other := filepath.Join(t.TempDir(), "o.json")
	os.WriteFile(other, []byte(`{"fluids": [{"name": "oil", "min": [0,0,0], "max": [1,1,1]}, {"name": "tank", "min": [0,0,0], "max": [1,1,1]}]}`), 0o644)
	if _, err := ReloadMaterials(w, other); err == nil || !strings.Contains(err.Error(), `fluids[1] "tank" is a boundary body`) {
		t.Fatalf("error %v, want fluids[1] \"tank\" named as a boundary body", err)
	}
	os.WriteFile(other, []byte(`{"fluids": [{"name": "oil", "min": [0,0,0], "max": [1,1,1]}]}`), 0o644)
	if r, err := ReloadMaterials(w, other); err != nil || len(r.Missing) != 1 || r.Missing[0] != "oil" {
		t.Fatalf("reload %+v, %v; want oil reported missing", r, err)
	}
}

func TestFileWatchSeesRewrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	writeScene(t, path, "0.01")
	fw, err := NewFileWatch(path)
	if err != nil {
		t.Fatal(err)
	}
	if ch, _ := fw.Changed(); ch {
		t.Fatal("unchanged file reported as changed")
	}
	writeScene(t, path, "0.125") // a different size, whatever the clock's resolution
	if ch, err := fw.Changed(); !ch || err != nil {
		t.Fatalf("rewritten file: changed=%v, %v", ch, err)
	}
	if ch, _ := fw.Changed(); ch {
		t.Fatal("a change was reported twice")
	}
	os.Remove(path)
	if ch, err := fw.Changed(); ch || err == nil {
		t.Fatalf("removed file: changed=%v, err=%v; want no change and an error", ch, err)
	}
}

func TestReloadMaterialsFollowsPresets(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.json")
	writeMat := func(mat string) {
		t.Helper()
		sc := strings.Replace(reloadScene, `{"viscosity": VISC}`, mat, 1)
		if err := os.WriteFile(path, []byte(sc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeMat(`{"preset": "water"}`)
	sc, err := scene.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	water, _ := w.BodyByName("water")

	// Switching the preset in the scene file reloads the preset's values.
	writeMat(`{"preset": "honey"}`)
	if _, err := ReloadMaterials(w, path); err != nil {
		t.Fatal(err)
	}
	honey, _ := scene.Preset("honey", "")
	if m := w.Material(water); m.Viscosity != honey.Viscosity || m.RestDensity != honey.RestDensity || m.Preset != "honey" {
		t.Fatalf("after reload %+v, want honey's values", *m)
	}

	// Editing a scene-local preset file is picked up by the next reload of the scene.
	os.MkdirAll(filepath.Join(dir, "presets"), 0o755)
	writeMat(`{"preset": "mine"}`)
	for _, visc := range []float64{0.03, 0.04} {
		os.WriteFile(filepath.Join(dir, "presets", "mine.json"), []byte(fmt.Sprintf(`{"viscosity": %g}`, visc)), 0o644)
		if _, err := ReloadMaterials(w, path); err != nil {
			t.Fatal(err)
		}
		if got := w.Material(water).Viscosity; got != visc {
			t.Fatalf("viscosity %g after editing the local preset, want %g", got, visc)
		}
	}
}

func TestReloadMeltsAnElasticBody(t *testing.T) {
	// Setting an elastic body's moduli to 0 in the scene file turns it liquid at the next
	// Step (the paper's phase change); the reload names the body.
	const sc0 = `{
  "solver": {"particleRadius": 0.05},
  "boundaries": [{"name": "tank", "min": [0, 0, 0], "max": [1, 1, 0.5]}],
  "elasticBodies": [{"name": "jelly", "min": [0, 0, 0], "max": [0.3, 0.3, 0.3], "material": {"elastic": {"shearModulus": MOD, "bulkModulus": MOD}}}]
}`
	path := filepath.Join(t.TempDir(), "s.json")
	write := func(mod string) {
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(sc0, "MOD", mod)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("1e5")
	sc, err := scene.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	jelly, _ := w.BodyByName("jelly")
	write("0")
	r, err := ReloadMaterials(w, path)
	if err != nil {
		t.Fatal(err)
	}
	if g, k := w.Material(jelly).Elastic.Moduli(); len(r.Updated) != 1 || g != 0 || k != 0 {
		t.Fatalf("reload %+v, moduli %g, %g; want jelly melted", r, g, k)
	}
	if _, err := w.Step(1.0 / 60); err != nil {
		t.Fatalf("step after melting: %v", err)
	}
}
