package sluice_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

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

// planarDamBreak is a small 2D dam break: a 0.4 m × 0.6 m column in a 1.2 m × 0.8 m tank at
// r = 1 cm (about 600 particles).
func planarDamBreak(t *testing.T, workers int) (*sluice.World, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.Dimensions = 2
	s.ParticleRadius = 0.01
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.2, 0.8, 0}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.6, 0}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

func TestPlanarStaysInThePlaneDeterministicAndRestores(t *testing.T) {
	// A 2D dam break keeps every particle at z = 0 with v_z = 0 exactly (the pair forces have
	// no z component); 1, 2 and 3 workers give bit-identical particles, and a snapshot taken
	// mid-run continues bit-identically (the dimensions travel with the solver settings).
	frames := 30
	if raceEnabled {
		frames = 6
	}
	run := func(workers int) *components.Particles {
		w, e := planarDamBreak(t, workers)
		defer w.Close()
		for i := 0; i < frames; i++ {
			if i == frames/2 {
				r := saveRestore(t, w, workers)
				w.Close()
				w = r
				e = w.Bodies()[1].Entity
			}
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		p := *w.Particles(e)
		return &components.Particles{X: slices.Clone(p.X), V: slices.Clone(p.V)}
	}
	ref := run(1)
	if ref.Len() != 19*29 {
		t.Fatalf("%d particles, want the block rule's 19 × 29", ref.Len())
	}
	moved := 0.0
	for i, x := range ref.X {
		if x[2] != 0 || ref.V[i][2] != 0 {
			t.Fatalf("particle %d at %v with velocity %v left the plane", i, x, ref.V[i])
		}
		moved = max(moved, x[0])
	}
	if moved < 0.45 {
		t.Fatalf("front at x = %.3f m after %d frames: the column did not collapse", moved, frames)
	}
	for _, workers := range []int{2, 3} {
		got := run(workers)
		if !slices.Equal(got.X, ref.X) || !slices.Equal(got.V, ref.V) {
			t.Errorf("%d workers (with a snapshot halfway) differ from one worker", workers)
		}
	}
}

func TestPlanarRefusesWhatItDoesNotTake(t *testing.T) {
	// Each refusal names what was refused.
	s := components.DefaultSolver()
	s.Dimensions = 2
	bad := s
	bad.Gravity = mgl64.Vec3{0, -9.81, 1}
	if _, err := sluice.NewWorld(bad, 0); err == nil || !strings.Contains(err.Error(), "gravity[2]") {
		t.Errorf("gravity off the plane: %v", err)
	}
	bad = s
	bad.PressureSolver = "pf"
	if _, err := sluice.NewWorld(bad, 0); err == nil || !strings.Contains(err.Error(), "pressureSolver") {
		t.Errorf("Projective Fluids in 2D: %v", err)
	}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, c := range []struct {
		what string
		err  func() error
		want string
	}{
		{"a particle off the plane", func() error {
			_, err := w.AddFluidParticles("off", components.DefaultMaterial(), []mgl64.Vec3{{0, 0, 0}, {0.1, 0, 0.02}}, nil)
			return err
		}, "particle 1"},
		{"surface tension", func() error {
			m := components.DefaultMaterial()
			m.SurfaceTension = 1
			_, err := w.AddFluidBlock("st", m, mgl64.Vec3{}, mgl64.Vec3{0.2, 0.2, 0}, mgl64.Vec3{})
			return err
		}, "surfaceTension"},
		{"wall adhesion", func() error {
			m := components.DefaultMaterial()
			m.WallAdhesion = 1
			_, err := w.AddFluidBlock("ad", m, mgl64.Vec3{}, mgl64.Vec3{0.2, 0.2, 0}, mgl64.Vec3{})
			return err
		}, "wallAdhesion"},
		{"an elastoplastic body", func() error {
			_, err := w.AddElastoplasticBlock("ep", components.DefaultMaterial(), mgl64.Vec3{}, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{})
			return err
		}, "elastoplastic"},
		{"a mesh that does not cross the plane", func() error {
			v := []mgl64.Vec3{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {0, 0, 2}}
			_, err := w.AddBoundaryMesh("tet", v, [][3]int32{{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}}, false)
			return err
		}, "does not cross the plane"},
	} {
		if err := c.err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.what, err, c.want)
		}
	}
}
