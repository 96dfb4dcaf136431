package scene

import (
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
