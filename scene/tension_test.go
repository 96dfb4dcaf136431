package scene

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// stillSpeed is the speed (m/s) below which a scene counts as not moving: a particle that
// covers less than a millimetre a second. The zero-gravity scenes start at rest, so without a
// force nothing reaches it.
const stillSpeed = 1e-3

// TestZeroGravityTensionScenesMove: the corpus's three zero-gravity surface tension scenes
// import with sluice's surface tension (γ = the scene's surfaceTension) and move within
// 0.1 s; the same scenes with γ set to 0 stay still.
func TestZeroGravityTensionScenesMove(t *testing.T) {
	corpusFiles(t)
	if testing.Short() {
		t.Skip("steps three corpus scenes twice (about 10 s)")
	}
	for _, c := range []struct {
		file  string
		gamma float64
	}{
		{"SurfaceTension_DoubleDroplet_ZR2020.json", 0.1},
		{"SurfaceTension_NoGravCube_ZR2020.json", 0.1},
		{"SurfaceTension_SnakeTestZR2020.json", 0.05},
	} {
		for _, on := range []bool{true, false} {
			sc, _, err := ImportSPlisHSPlasH(filepath.Join(corpus, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(sc.Fluids) == 0 {
				t.Fatalf("%s: no fluid block", c.file)
			}
			for i := range sc.Fluids {
				if g := sc.Fluids[i].Material.SurfaceTension; g != c.gamma {
					t.Fatalf("%s fluid %d: surfaceTension %g, want the scene's %g", c.file, i, g, c.gamma)
				}
				if !on {
					sc.Fluids[i].Material.SurfaceTension = 0
				}
			}
			w, err := sc.Build(1)
			if err != nil {
				t.Fatal(err)
			}
			var vmax float64
			for w.Time() < 0.1-1e-9 {
				st, err := w.Step(1.0 / 60)
				if err != nil {
					t.Fatal(err)
				}
				vmax = st.MaxSpeed
			}
			w.Close()
			t.Logf("%s, surface tension %v: max speed %.4g m/s at t = 0.1 s", c.file, on, vmax)
			if on && vmax < stillSpeed {
				t.Errorf("%s: max speed %.3g m/s with surface tension, want ≥ %g", c.file, vmax, stillSpeed)
			}
			if !on && vmax >= stillSpeed {
				t.Errorf("%s: max speed %.3g m/s without any force, want < %g", c.file, vmax, stillSpeed)
			}
		}
	}
}

// TestSurfaceTensionMethodsMap: each surfaceTensionMethod maps as docs/splishsplash.md says:
// 2 (Akinci 2013) and 5 (Zorilla, Ritter 2020) give γ = the block's surfaceTension (the
// reference's default 0.05 when absent, old files' keys in the material itself), 4 (Jeske
// 2023) and 1 leave the force out with a warning naming the key; the block's
// surfaceTensionBoundary becomes the wall adhesion β (for method 2 the reference's default 0.01
// when absent, with a warning).
func TestSurfaceTensionMethodsMap(t *testing.T) {
	dir := t.TempDir()
	base := `{"Configuration": {"particleRadius": 0.025}, "FluidBlocks": [{"start": [0,0,0], "end": [0.2,0.2,0.2]}],
		"Materials": [{"id": "Fluid", %s}]}`
	for _, c := range []struct {
		mat         string
		gamma, beta float64
		warn        string // a warning path that must appear ("" none required)
	}{
		{`"surfaceTensionMethod": 2, "Akinci et al. 2013": {"surfaceTension": 0.2, "surfaceTensionBoundary": 0.5}`, 0.2, 0.5, ""},
		{`"surfaceTensionMethod": 2, "surfaceTension": 0.3, "surfaceTensionBoundary": 0.7`, 0.3, 0.7, ""},
		{`"surfaceTensionMethod": 2`, 0.05, 0.01, `Materials[id="Fluid"]`},
		{`"surfaceTensionMethod": 5, "Zorilla, Ritter, et al. 2020": {"surfaceTension": 0.15, "surfTZRtau": 0.5}`, 0.15, 0, `Materials[id="Fluid"].surfaceTensionMethod`},
		{`"surfaceTensionMethod": 4, "Jeske et al. 2023": {"surfaceTension": 12000, "surfaceTensionBoundary": 1500}`, 0, 0, `Materials[id="Fluid"].surfaceTensionMethod`},
		{`"surfaceTensionMethod": 1`, 0, 0, `Materials[id="Fluid"].surfaceTensionMethod`},
		{`"surfaceTensionMethod": 0`, 0, 0, ""},
	} {
		path := filepath.Join(dir, "s.json")
		if err := os.WriteFile(path, []byte(fmt.Sprintf(base, c.mat)), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, warns, err := ImportSPlisHSPlasH(path)
		if err != nil {
			t.Fatalf("%s: %v", c.mat, err)
		}
		if g := sc.Fluids[0].Material.SurfaceTension; g != c.gamma {
			t.Errorf("%s: γ = %g, want %g", c.mat, g, c.gamma)
		}
		if b := sc.Fluids[0].Material.WallAdhesion; b != c.beta {
			t.Errorf("%s: β = %g, want %g", c.mat, b, c.beta)
		}
		found := c.warn == ""
		for _, w := range warns {
			found = found || w.Path == c.warn
		}
		if !found {
			t.Errorf("%s: no warning at %s: %v", c.mat, c.warn, warns)
		}
	}
}
