package scene

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/components"
)

func TestVorticityAndDragImport(t *testing.T) {
	// The corpus scenes that select the micropolar model (vorticityMethod 1) or Gissler's drag
	// (dragMethod 2) carry their coefficients onto the fluid material, exactly (no unit
	// conversion: both sides use the same ν_t in m²/s, Θ⁻¹ in 1/m² and drag factor; ε_ω is the
	// reference's viscosityOmega·inertiaInverse), and nothing about them is warned.
	corpusFiles(t)
	for _, c := range []struct {
		file string
		mp   components.Micropolar
		drag float64
	}{
		{"Obstacle.json", components.Micropolar{Vorticity: 0.15, InertiaInverse: 0.5, OmegaSmoothing: 0.2 * 0.5}, 0},
		{"DragTest.json", components.Micropolar{}, 10},
	} {
		sc, warns, err := ImportSPlisHSPlasH(filepath.Join(corpus, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		mats := []components.Material{}
		for _, f := range sc.Fluids {
			mats = append(mats, f.Material)
		}
		for _, e := range sc.Emitters {
			mats = append(mats, e.Material)
		}
		if len(mats) == 0 {
			t.Fatalf("%s: no fluid", c.file)
		}
		for _, m := range mats {
			if m.Micropolar != c.mp || m.AirDrag != c.drag {
				t.Errorf("%s: micropolar %+v, airDrag %g; want %+v, %g", c.file, m.Micropolar, m.AirDrag, c.mp, c.drag)
			}
		}
		for _, w := range warns {
			if strings.Contains(w.Path, "vorticity") || strings.Contains(w.Path, "drag") || strings.Contains(w.Path, "Bender") || strings.Contains(w.Path, "Gissler") {
				t.Errorf("%s: warning %v", c.file, w)
			}
		}
	}
}

func TestVorticityAndDragMethodsRefusedOrMapped(t *testing.T) {
	// Vorticity confinement (method 2) and unknown drag methods fail naming the key; Macklin's
	// drag (method 1) becomes Gissler's physical drag (factor 1) with a warning.
	dir := t.TempDir()
	scene := func(mat string) string {
		p := filepath.Join(dir, "s.json")
		src := `{"Configuration": {"particleRadius": 0.025}, "Materials": [{"id": "Fluid", ` + mat + `}],
			"FluidBlocks": [{"start": [0, 0, 0], "end": [0.2, 0.2, 0.2]}]}`
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ mat, errPath string }{
		{`"vorticityMethod": 2`, `Materials[id="Fluid"].vorticityMethod`},
		{`"dragMethod": 3`, `Materials[id="Fluid"].dragMethod`},
		{`"vorticityMethod": 1, "Bender et al. 2017": {"viscosityOmega": 4, "inertiaInverse": 0.5}`, `Materials[id="Fluid"].Bender et al. 2017`},
	} {
		_, _, err := ImportSPlisHSPlasH(scene(c.mat))
		if err == nil || !strings.Contains(err.Error(), c.errPath) {
			t.Errorf("%s: error %v, want one naming %s", c.mat, err, c.errPath)
		}
	}
	sc, warns, err := ImportSPlisHSPlasH(scene(`"dragMethod": 1, "Macklin et al. 2014": {"drag": 0.5}`))
	if err != nil {
		t.Fatal(err)
	}
	if d := sc.Fluids[0].Material.AirDrag; d != 1 {
		t.Errorf("Macklin drag mapped to airDrag %g, want 1", d)
	}
	found := false
	for _, w := range warns {
		found = found || (strings.HasSuffix(w.Path, ".dragMethod") && strings.Contains(w.Msg, "Gissler"))
	}
	if !found {
		t.Errorf("no warning about dragMethod 1 in %v", warns)
	}
}
