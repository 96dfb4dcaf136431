package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// floorField is the volume map of the half-space y < 0 (a floor under the whole world), in
// closed form up to a 1-D quadrature: φ = y, n = (0, 1, 0), and the volume of Bender et al.
// 2019, V(φ) = f·∫_{|u|<h} γ(φ + u_y) du = f·∫_{−h}^{h} γ(φ + t) π(h² − t²) dt with γ = 1
// inside the wall, W(s)/W(0) for 0 < s < h outside and 0 beyond (f = 0.8), tabulated at
// 1/512 of h and interpolated linearly.
type floorField struct {
	h   float64
	tab []float64
}

func newFloorField(h, factor float64) *floorField {
	kr := physics.NewKernel(physics.CubicSpline, h)
	gamma := func(s float64) float64 {
		switch {
		case s <= 0:
			return 1
		case s < h:
			return kr.W(s) / kr.W(0)
		}
		return 0
	}
	const n, q = 1024, 4000
	f := &floorField{h: h, tab: make([]float64, n+1)}
	for k := range f.tab {
		phi := 2 * h * float64(k) / n
		// midpoint rule over t in (−h, h); γ is continuous and the integrand smooth between its
		// kinks, so q = 4000 points leave an error far below the test's tolerances
		sum := 0.0
		for m := 0; m < q; m++ {
			t := -h + (float64(m)+0.5)*2*h/q
			sum += gamma(phi+t) * math.Pi * (h*h - t*t)
		}
		f.tab[k] = factor * sum * 2 * h / q
	}
	return f
}

func (f *floorField) At(x physics.Vec3) (phi, vol float64, n physics.Vec3, ok bool) {
	phi = x[1]
	n = physics.Vec3{0, 1, 0}
	s := phi / (2 * f.h) * float64(len(f.tab)-1)
	switch {
	case s <= 0:
		vol = f.tab[0]
	case s >= float64(len(f.tab)-1):
		vol = 0
	default:
		k := int(s)
		a := s - float64(k)
		vol = (1-a)*f.tab[k] + a*f.tab[k+1]
	}
	return phi, vol, n, true
}

// mappedFloorColumn is a water column 0.2 m square and 0.3 m deep at r = 1 cm standing on the
// floor y = 0, a volume-mapped floor (floorField), between side walls of samples (a tank whose
// own floor lies 0.5 m lower); mapped sets solver.wallModel "volumeMaps".
func mappedFloorColumn(t testing.TB, mapped bool) (*sluice.World, sluice.Entity) {
	const width, depth = 0.2, 0.3
	s := components.DefaultSolver()
	s.ParticleRadius = 0.01
	s.MaxError = 0.0003
	s.MaxIterations = 300
	if mapped {
		s.WallModel = "volumeMaps"
	}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, -0.5, 0}, mgl64.Vec3{width, depth + 0.2, width}, true); err != nil {
		t.Fatal(err)
	}
	// a wall body whose one sample lies far below (it serves contacts and queries only)
	fl, err := w.AddBoundaryParticles("floor", []mgl64.Vec3{{0.1, -1, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sluice.SetWallField(w, fl, newFloorField(4*s.ParticleRadius, 0.8)); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{width, depth, width}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return w, e
}

// TestVolumeMapFloorHoldsTheColumn: a water column standing on a volume-mapped floor (one
// virtual boundary particle per fluid particle near it, no floor samples) rests on it: no
// particle comes closer to the floor than its radius, and the floor carries the water's weight
// (the load the world reports for the floor body, averaged over the second second, is M·g
// within 1 %: at rest the floor is the water's only vertical support, and the column's
// residual settling moves the average by far less). The same field on a world whose
// solver.wallModel is "particles" is ignored: the water falls through to the samples' floor
// half a metre below.
func TestVolumeMapFloorHoldsTheColumn(t *testing.T) {
	if raceEnabled {
		t.Skip("2 s of a 1500-particle column: skipped under -race")
	}
	const r, g = 0.01, 9.81
	const loadTol = 0.01
	for _, mapped := range []bool{true, false} {
		w, e := mappedFloorColumn(t, mapped)
		var load float64
		n := 0
		for k := 0; k < 120; k++ {
			st, err := w.Step(frame)
			if err != nil {
				t.Fatal(err)
			}
			if k >= 60 {
				for _, b := range st.Bodies {
					if b.Name == "floor" && b.Load != nil {
						load += -b.Load[1]
						n++
					}
				}
			}
		}
		p := w.Particles(e)
		weight := 0.0
		for _, m := range p.M {
			weight += m * g
		}
		lowest := math.Inf(1)
		for _, x := range p.X {
			lowest = min(lowest, x[1])
		}
		load /= float64(max(n, 1))
		t.Logf("wallModel volumeMaps %v: lowest particle at y = %.5f m, floor load %.2f N, weight %.2f N", mapped, lowest, load, weight)
		if mapped && (lowest < r || math.Abs(load-weight) > loadTol*weight) {
			t.Errorf("mapped floor: lowest particle at %.4f m (want ≥ r = %g m), load %.3f N against the weight %.3f N (tolerance %g)", lowest, r, load, weight, loadTol)
		}
		if !mapped && lowest > 0 {
			t.Errorf("solver.wallModel particles: the floor's field was used (lowest particle at %.4f m, above the mapped floor)", lowest)
		}
		w.Close()
	}
}
