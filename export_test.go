package sluice

import "github.com/sluicephysics/sluice/components"

// SetWallField exposes setWallField to the tests of package sluice_test.
func SetWallField(w *World, e Entity, f components.WallField) error { return w.setWallField(e, f) }

// PackedWallSamples is the number of wall samples the world packed for its step (Sim.Bound).
func PackedWallSamples(w *World) int { return w.sim.Bound.Len() }
