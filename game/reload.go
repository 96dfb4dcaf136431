package game

import (
	"fmt"
	"os"
	"time"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/scene"
)

// Reload says what ReloadMaterials did.
type Reload struct {
	Updated   []string // bodies whose material changed
	Unchanged []string // bodies whose material was already the file's
	Missing   []string // fluid bodies of the file with no body of that name in the world
}

// String summarises a reload for the HUD and the log.
func (r Reload) String() string {
	s := fmt.Sprintf("%d material(s) updated %v", len(r.Updated), r.Updated)
	if len(r.Missing) > 0 {
		s += fmt.Sprintf(", not in the world: %v", r.Missing)
	}
	return s
}

// ReloadMaterials reads the scene file at path (native or SPlisHSPlasH) and copies the
// material of each of its fluid blocks, spheres, models, emitters, meshes and elastic bodies
// onto the running world's body of the same name, presets resolved anew (an edited preset file
// counts too; a game melts an elastic body by setting its moduli to 0); the change takes
// effect at the next Step. Geometry and solver settings in the
// file are ignored: only materials can change in a running world. A file that does not load
// or validate changes nothing and returns the loader's error (which names the file and the
// offending field); so does a name that belongs to a body of another phase.
func ReloadMaterials(w *sluice.World, path string) (Reload, error) {
	sc, _, err := scene.LoadAny(path)
	if err != nil {
		return Reload{}, err
	}
	type change struct {
		name string
		e    sluice.Entity
		mat  components.Material
	}
	var changes []change
	var r Reload
	add := func(key string, name string, mat components.Material, want components.Phase) error {
		e, ok := w.BodyByName(name)
		if !ok {
			r.Missing = append(r.Missing, name)
			return nil
		}
		if ph := w.Body(e).Phase; ph != want {
			return fmt.Errorf("%s: %s %q is a %s body in the running world, not %s", path, key, name, ph, want)
		}
		changes = append(changes, change{name, e, mat})
		return nil
	}
	for i, f := range sc.Fluids {
		if err := add(fmt.Sprintf("fluids[%d]", i), f.Name, f.Material, components.Fluid); err != nil {
			return Reload{}, err
		}
	}
	for i, m := range sc.Models {
		if err := add(fmt.Sprintf("fluidModels[%d]", i), m.Name, m.Material, components.Fluid); err != nil {
			return Reload{}, err
		}
	}
	for i, b := range sc.Elastic {
		if err := add(fmt.Sprintf("elasticBodies[%d]", i), b.Name, b.Material, components.Elastic); err != nil {
			return Reload{}, err
		}
	}
	for i, b := range sc.Elastoplastic {
		if err := add(fmt.Sprintf("elastoplasticBodies[%d]", i), b.Name, b.Material, components.Elastoplastic); err != nil {
			return Reload{}, err
		}
	}
	for i, f := range sc.Spheres {
		if err := add(fmt.Sprintf("fluidSpheres[%d]", i), f.Name, f.Material, components.Fluid); err != nil {
			return Reload{}, err
		}
	}
	for i, e := range sc.Emitters {
		if err := add(fmt.Sprintf("emitters[%d]", i), e.Name, e.Material, components.Fluid); err != nil {
			return Reload{}, err
		}
	}
	for i, f := range sc.FluidMeshes {
		if err := add(fmt.Sprintf("fluidMeshes[%d]", i), f.Name, f.Material, components.Fluid); err != nil {
			return Reload{}, err
		}
	}
	for _, c := range changes {
		p := w.Material(c.e)
		if *p == c.mat {
			r.Unchanged = append(r.Unchanged, c.name)
			continue
		}
		*p = c.mat
		r.Updated = append(r.Updated, c.name)
	}
	return r, nil
}

// FileWatch notices when a file is rewritten (its modification time or size changes), for
// hot reloading by polling from a game loop.
type FileWatch struct {
	Path string
	mod  time.Time
	size int64
}

// NewFileWatch starts watching path from its current state.
func NewFileWatch(path string) (*FileWatch, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return &FileWatch{Path: path, mod: fi.ModTime(), size: fi.Size()}, nil
}

// Changed reports whether the file changed since the last call that reported a change (or
// since NewFileWatch). A file that cannot be read right now (an editor replacing it) reports
// no change and the error.
func (fw *FileWatch) Changed() (bool, error) {
	fi, err := os.Stat(fw.Path)
	if err != nil {
		return false, err
	}
	if fi.ModTime().Equal(fw.mod) && fi.Size() == fw.size {
		return false, nil
	}
	fw.mod, fw.size = fi.ModTime(), fi.Size()
	return true, nil
}
