package elastoplastic

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// block returns the positions of an nx×ny×nz lattice of spacing s centred at the origin.
func block(nx, ny, nz int, s float64) []Vec3 {
	x := make([]Vec3, 0, nx*ny*nz)
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			for k := 0; k < nz; k++ {
				x = append(x, Vec3{(float64(i) - float64(nx-1)/2) * s, (float64(j) - float64(ny-1)/2) * s, (float64(k) - float64(nz-1)/2) * s})
			}
		}
	}
	return x
}

// sim is a test world: one body, symplectic Euler, an optional external acceleration field and
// a uniform velocity damping (a stand-in for the dissipation the world's pressure solve and
// viscosity provide; it changes how fast a body comes to rest, never its rest shape).
type sim struct {
	b       *Body
	x, v    []Vec3
	dt      float64
	damping float64 // 1/s
	pool    *par.Pool
	accel   func(x Vec3, t float64) Vec3
	t       float64
	// lists, when set, gives the neighbour lists of the positions, and the step runs
	// StepWith on them instead of Step (the body's own search).
	lists func(x []Vec3) *physics.Neighbors
}

const (
	testSpacing = 0.05   // m
	testRho     = 1000.0 // kg/m³
)

func newSim(t testing.TB, x []Vec3, mat Material, workers int) *sim {
	t.Helper()
	vol := testSpacing * testSpacing * testSpacing
	b, err := New(len(x), testRho*vol, vol, 2*testSpacing, mat)
	if err != nil {
		t.Fatal(err)
	}
	p := par.NewPool(workers)
	t.Cleanup(p.Close)
	return &sim{b: b, x: x, v: make([]Vec3, len(x)), dt: 0.25 * testSpacing / mat.WaveSpeed(testRho), pool: p}
}

func (s *sim) step(t testing.TB) Stats {
	var st Stats
	var err error
	if s.lists != nil {
		st, err = s.b.StepWith(s.x, s.v, s.dt, s.lists(s.x), s.pool)
	} else {
		st, err = s.b.Step(s.x, s.v, s.dt, s.pool)
	}
	if err != nil {
		t.Fatal(err)
	}
	decay := 1 / (1 + s.damping*s.dt)
	for i := range s.x {
		if s.accel != nil {
			a := s.accel(s.x[i], s.t)
			s.v[i][0] += s.dt * a[0]
			s.v[i][1] += s.dt * a[1]
			s.v[i][2] += s.dt * a[2]
		}
		if s.damping > 0 {
			s.v[i][0] *= decay
			s.v[i][1] *= decay
			s.v[i][2] *= decay
		}
		s.x[i][0] += s.dt * s.v[i][0]
		s.x[i][1] += s.dt * s.v[i][1]
		s.x[i][2] += s.dt * s.v[i][2]
	}
	s.t += s.dt
	return st
}

// extents returns the axis-aligned size of the particle cloud.
func extents(x []Vec3) Vec3 {
	lo, hi := Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range x {
		for d := 0; d < 3; d++ {
			lo[d] = min(lo[d], p[d])
			hi[d] = max(hi[d], p[d])
		}
	}
	return Vec3{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}
}

func momenta(x, v []Vec3, m float64) (p, l Vec3) {
	for i := range x {
		p[0] += m * v[i][0]
		p[1] += m * v[i][1]
		p[2] += m * v[i][2]
		l[0] += m * (x[i][1]*v[i][2] - x[i][2]*v[i][1])
		l[1] += m * (x[i][2]*v[i][0] - x[i][0]*v[i][2])
		l[2] += m * (x[i][0]*v[i][1] - x[i][1]*v[i][0])
	}
	return
}

func finiteAll(x []Vec3) bool {
	for _, p := range x {
		if math.IsNaN(p[0]+p[1]+p[2]) || math.IsInf(p[0]+p[1]+p[2], 0) {
			return false
		}
	}
	return true
}
