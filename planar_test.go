package sluice_test

import "testing"

// The 2D world (solver.dimensions 2) against the same validations as the 3D one, with the same
// tolerances: a 2D hydrostatic column and a 2D dam break (docs/2d.md).

func TestPlanarRestingColumnIsHydrostatic(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if raceEnabled {
		t.Skip("5 s of a 1 m column at η = 0.01 %: slow under the race detector (runs without -race)")
	}
	for _, solver := range []string{"iisph", "dfsph"} {
		t.Run(solver, func(t *testing.T) {
			w := checkRestingColumn(t, solver, 2)
			w.Close()
		})
	}
}

func TestPlanarDamBreakFrontMatchesMartinMoyce(t *testing.T) {
	// Martin & Moyce's collapse is a 2D flow (their column spans the tank's width); the 3D
	// test runs it in a slab eight particles thick, this one in the plane, r = a/40.
	if testing.Short() || raceEnabled {
		t.Skip("dam-break validation: long (skipped under -short and the race detector)")
	}
	t.Parallel()
	martinMoyceCollapse(t, 40, 2)
}
