package scene

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the native scene decoder and the SPlisHSPlasH importer's
// decoder: they must return a scene or an error, never panic; an accepted native scene must
// also pass its own validation again (decode and validate agree).
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte(strings.Replace(good, `"density": 1000`, `"density": -1`, 1)))
	f.Add([]byte(`{"solver": {"particleRadius": 1e-300}, "fluids": [{"name": "a", "min": [0,0,0], "max": [1e300,1,1]}]}`))
	f.Add([]byte(`{"Configuration": {"particleRadius": 0.025, "simulationMethod": 3}, "FluidBlocks": [{"start": [0,0,0], "end": [1,1,1]}]}`))
	f.Add([]byte(`{"fluids": [{}], "boundaryMeshes": [{"name": "m", "file": "x.obj", "scale": [0,0,0]}]}`))
	f.Add([]byte(`{"fluids": [{"name": "a", "min": [0,0,0], "max": [1,1,1], "material": {"preset": "slime", "viscoelastic": {"c": 0.05}}}]}`))
	f.Add([]byte(`{"fluidMeshes": [{"name": "m", "file": "m.obj", "material": {"preset": "honey"}}]}`))
	f.Add([]byte(`{"Configuration": {"particleRadius": 0.025}, "FluidBlocks": [{"start": [0,0,0], "end": [1,1,1]}], "Simulation": {"maxIter": 5}, "RigidBodies": [{"geometryFile": "w.obj", "isDynamic": false, "restitution": 0.6}, {"geometryFile": "b.obj", "isDynamic": 1, "density": 200, "rotationAxis": [1,1,1], "rotationAngle": 0.5, "velocity": [1,0,0], "friction": 0.2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, err := Parse(data); err == nil {
			if err := s.Validate(); err != nil {
				t.Fatalf("accepted scene fails validation: %v", err)
			}
		}
		importData(data)
	})
}
