package sluice

import (
	"fmt"

	"github.com/sluicephysics/sluice/components"
)

// setWallField gives the static wall e the field through which the fluid meets it when
// solver.wallModel is "volumeMaps" (components.WallMap); nil removes it.
func (w *World) setWallField(e Entity, f components.WallField) error {
	b := w.Body(e)
	if b == nil || b.Phase != components.Boundary {
		return fmt.Errorf("a wall field needs a wall (a boundary body)")
	}
	if m := w.wallMaps.Get(e); m != nil {
		m.Field = f
		return nil
	}
	w.wallMaps.Assign(e, &components.WallMap{Field: f})
	return nil
}
