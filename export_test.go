package sluice

import "github.com/sluicephysics/sluice/components"

// SetWallField exposes setWallField to the tests of package sluice_test.
func SetWallField(w *World, e Entity, f components.WallField) error { return w.setWallField(e, f) }
