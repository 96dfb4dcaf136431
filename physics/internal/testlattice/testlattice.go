// Package testlattice builds the small fluid-in-a-box system the pressure solvers' unit tests
// share: a 12³ lattice of fluid particles inside a one-layer box wall, with its neighbour
// search. Only tests import it.
package testlattice

import (
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/boundary"
	"github.com/sluicephysics/sluice/physics/par"
)

// Setup returns a 12³ lattice of water (ρ0 = 1000 kg/m³) at spacing 0.05 m times squeeze inside
// a one-layer box wall of side 0.66 m with its samples' volumes, the cubic-spline kernel of
// support 0.1 m, and a function that runs the fluid→fluid and fluid→wall neighbour searches.
func Setup(t testing.TB, pool *par.Pool, squeeze float64) (*physics.FluidSet, *physics.BoundarySet, *physics.Kernel, func() (*physics.Neighbors, *physics.Neighbors)) {
	t.Helper()
	const s = 0.05
	kr := physics.NewKernel(physics.CubicSpline, 2*s)
	f := &physics.FluidSet{}
	n := 12
	f.Resize(n * n * n)
	vol := kr.LatticeVolume(s)
	k := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < n; l++ {
				f.X[k] = physics.Vec3{s * (1 + squeeze*float64(i)), s * (1 + squeeze*float64(j)), s * (1 + squeeze*float64(l))}
				f.M[k], f.Rho0[k] = 1000*vol, 1000
				k++
			}
		}
	}
	bx, err := boundary.Box(physics.Vec3{0, 0, 0}, physics.Vec3{0.66, 0.66, 0.66}, s, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	b := &physics.BoundarySet{X: bx, V: make([]physics.Vec3, len(bx))}
	var vg physics.Grid
	if err := physics.BoundaryVolumes(b, &kr, kr.WallVolumeScale(s, 1), &vg, pool); err != nil {
		t.Fatal(err)
	}
	var fg, bg physics.Grid
	var ff, fb physics.Neighbors
	search := func() (*physics.Neighbors, *physics.Neighbors) {
		if err := fg.Build(f.X, kr.H, pool); err != nil {
			t.Fatal(err)
		}
		if err := bg.Build(b.X, kr.H, pool); err != nil {
			t.Fatal(err)
		}
		physics.Search(&fg, f.X, &fg, fg.SelfAdjacent(), &kr, true, &ff, pool)
		adj := make([]int32, 27*fg.NumCells())
		fg.Adjacent(&bg, adj, pool)
		fb.Weights = b.Vol
		physics.Search(&fg, f.X, &bg, adj, &kr, false, &fb, pool)
		return &ff, &fb
	}
	return f, b, &kr, search
}

// AvgCompression is the average of max(0, ρ − ρ0)/ρ0 over the fluid.
func AvgCompression(f *physics.FluidSet) float64 {
	e := 0.0
	for i := range f.Rho {
		e += max(0, f.Rho[i]-f.Rho0[i]) / f.Rho0[i]
	}
	return e / float64(len(f.Rho))
}
