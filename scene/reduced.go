package scene

import (
	"fmt"

	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// ReducedDomain is a reduced air domain (components.ReducedDomain; docs/reduced.md): a
// rectangle in a plane of the world whose model-reduced 2D air pushes the planar rigid
// bodies in that plane that have reducedPanels set, and is pushed by them.
type ReducedDomain struct {
	Name string `json:"name" required:"true" doc:"unique domain name"`
	components.ReducedDomain
}

// WindBox is a 3D wind box (components.WindBox; docs/reduced.md).
type WindBox struct {
	Name string `json:"name" required:"true" doc:"unique wind box name"`
	components.WindBox
}

// validateReduced checks every domain's keys and relations and that names are unique among
// the domains.
func (s *Scene) validateReduced() error {
	seen := map[string]bool{}
	for i := range s.Reduced {
		r := &s.Reduced[i]
		path := fmt.Sprintf("reducedDomains[%d]", i)
		if seen[r.Name] {
			return fmt.Errorf("%s.name: %q is used by another reduced domain", path, r.Name)
		}
		seen[r.Name] = true
		if _, err := r.Config(path, s.Solver.Gravity, 1); err != nil {
			return err
		}
	}
	seen = map[string]bool{}
	for i := range s.Wind {
		x := &s.Wind[i]
		path := fmt.Sprintf("windBoxes[%d]", i)
		if seen[x.Name] {
			return fmt.Errorf("%s.name: %q is used by another wind box", path, x.Name)
		}
		seen[x.Name] = true
		if _, err := x.Config(path); err != nil {
			return err
		}
	}
	return nil
}

// addReduced adds the scene's domains and wind boxes to w, after its rigid bodies.
func (s *Scene) addReduced(w *sluice.World) error {
	for i := range s.Reduced {
		if _, err := w.AddReducedDomain(s.Reduced[i].Name, s.Reduced[i].ReducedDomain); err != nil {
			return fmt.Errorf("reducedDomains[%d]: %w", i, err)
		}
	}
	for i := range s.Wind {
		if _, err := w.AddWindBox(s.Wind[i].Name, s.Wind[i].WindBox); err != nil {
			return fmt.Errorf("windBoxes[%d]: %w", i, err)
		}
	}
	return nil
}
