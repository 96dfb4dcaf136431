package flip

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/physics/par"
)

// roundoff is the relative agreement of sums of O(10⁴) positive terms computed in two
// orders: a few hundred ulps.
const roundoff = 1e-12

func newTestSim(t *testing.T, p Params, obs []Obstacle, workers int) *Sim {
	t.Helper()
	pool := par.NewPool(workers)
	t.Cleanup(pool.Close)
	s, err := New(p, obs, pool)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTrilinearWeightsArePartitionOfUnity(t *testing.T) {
	// Σ_samples T(x − x_s) = 1 on every lattice for points at least a cell from the walls, and
	// the weighted mean of the sample positions is x itself (linear precision).
	p := DefaultParams()
	p.Dims = [3]int{6, 5, 7}
	p.CellSize = 0.1
	p.Origin = Vec3{-0.3, 0.2, 1}
	s := newTestSim(t, p, nil, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	lats := []Lattice{s.cl, s.fl[0], s.fl[1], s.fl[2]}
	for trial := 0; trial < 200; trial++ {
		var x Vec3
		for d := 0; d < 3; d++ {
			x[d] = p.Origin[d] + p.CellSize*(1+rng.Float64()*float64(p.Dims[d]-2))
		}
		for li := range lats {
			l := &lats[li]
			w := make([]float64, l.Len())
			s.scatter(l, w, nil, x, 1, 0)
			sum := 0.0
			var mean Vec3
			for k := 0; k < l.N[2]; k++ {
				for j := 0; j < l.N[1]; j++ {
					for i := 0; i < l.N[0]; i++ {
						wi := w[l.Index(i, j, k)]
						sum += wi
						mean[0] += wi * (p.Origin[0] + p.CellSize*(float64(i)+l.Off[0]))
						mean[1] += wi * (p.Origin[1] + p.CellSize*(float64(j)+l.Off[1]))
						mean[2] += wi * (p.Origin[2] + p.CellSize*(float64(k)+l.Off[2]))
					}
				}
			}
			if math.Abs(sum-1) > roundoff {
				t.Fatalf("lattice %d at %v: weights sum to %.17g", li, x, sum)
			}
			for d := 0; d < 3; d++ {
				if math.Abs(mean[d]-x[d]) > roundoff {
					t.Fatalf("lattice %d: weighted sample mean %v, point %v", li, mean, x)
				}
			}
		}
	}
}

func TestRasterisationConservesMassAndMomentum(t *testing.T) {
	// Eq. 3.10-3.12 on random particles a cell or more inside the box: cell mass, each face
	// component's mass, and each component's momentum Σ m_f u_f equal the particle sums.
	p := DefaultParams()
	p.Dims = [3]int{10, 12, 9}
	p.CellSize = 0.1
	s := newTestSim(t, p, nil, 1)
	rng := rand.New(rand.NewPCG(2, 3))
	for i := 0; i < 20000; i++ {
		var x, v Vec3
		for d := 0; d < 3; d++ {
			x[d] = p.CellSize * (1 + rng.Float64()*float64(p.Dims[d]-2))
			v[d] = 4*rng.Float64() - 2
		}
		s.X = append(s.X, x)
		s.V = append(s.V, v)
	}
	s.rasterise()
	var pm Vec3
	for _, v := range s.V {
		pm = pm.Add(v.Mul(s.mp))
	}
	total := float64(len(s.X)) * s.mp
	sumC := 0.0
	for _, m := range s.mc {
		sumC += m
	}
	if math.Abs(sumC/total-1) > roundoff {
		t.Fatalf("cell mass %.15g, particles %.15g", sumC, total)
	}
	h3 := p.CellSize * p.CellSize * p.CellSize
	for d := 0; d < 3; d++ {
		mf, mom := 0.0, 0.0
		for f, m := range s.mf[d] {
			mf += m
			mom += m * s.uf[d][f]
			if math.Abs(s.rf[d][f]-m/h3) > roundoff*m/h3 {
				t.Fatalf("face density %g ≠ m/h³ = %g (Eq. 3.12)", s.rf[d][f], m/h3)
			}
		}
		if math.Abs(mf/total-1) > roundoff {
			t.Fatalf("component %d: face mass %.15g, particles %.15g", d, mf, total)
		}
		if math.Abs(mom-pm[d]) > roundoff*total*2 {
			t.Fatalf("component %d: face momentum %.15g, particles %.15g", d, mom, pm[d])
		}
	}
}

func TestFullCellsReachTheirCapacity(t *testing.T) {
	// A box filled with the seeding lattice rasterises to exactly ρ_max = ρ0·v_c (Eq. 3.13) in
	// every cell, the walls included: the filter drops the same weight beyond the walls that
	// the capacity integral leaves out (the blurred walls of §3.3). 7/8 per wall, 0.875 at a
	// face, 0.766 along an edge, 0.67 in a corner.
	p := DefaultParams()
	p.Dims = [3]int{5, 6, 4}
	p.CellSize = 0.1
	s := newTestSim(t, p, nil, 1)
	if _, err := s.AddBlock(Vec3{}, s.g.Max(), Vec3{}); err != nil {
		t.Fatal(err)
	}
	s.rasterise()
	for c := range s.rc {
		if math.Abs(s.rc[c]-s.rhoMax[c]) > roundoff*p.Density {
			t.Fatalf("cell %d: density %.12g, capacity %.12g", c, s.rc[c], s.rhoMax[c])
		}
	}
	if got, want := s.vc[0], 0.875*0.875*0.875; math.Abs(got-want) > roundoff {
		t.Fatalf("corner cell fraction %g, want (7/8)³ = %g", got, want)
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	cases := []struct {
		name string
		mod  func(p *Params, obs *[]Obstacle)
		want string
	}{
		{"cell size", func(p *Params, _ *[]Obstacle) { p.CellSize = 0 }, "CellSize"},
		{"memory", func(p *Params, _ *[]Obstacle) { p.Dims = [3]int{4000, 4000, 4000} }, "MaxGridBytes"},
		{"particles per cell", func(p *Params, _ *[]Obstacle) { p.ParticlesPerAxis = 9 }, "ParticlesPerAxis"},
		{"flip ratio", func(p *Params, _ *[]Obstacle) { p.FLIPRatio = 1.5 }, "FLIPRatio"},
		{"no room", func(p *Params, obs *[]Obstacle) {
			*obs = []Obstacle{{Kind: ObstacleBox, Min: Vec3{-1, -1, -1}, Max: Vec3{10, 10, 10}}}
		}, "no cell"},
		{"bad sphere", func(_ *Params, obs *[]Obstacle) { *obs = []Obstacle{{Kind: ObstacleSphere, Radius: -1}} }, "Radius"},
	}
	for _, c := range cases {
		p := DefaultParams()
		p.Dims = [3]int{4, 4, 4}
		var obs []Obstacle
		c.mod(&p, &obs)
		pool := par.NewPool(1)
		_, err := New(p, obs, pool)
		pool.Close()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.want)
		}
	}
}

func TestAddParticlesRefusesBadInput(t *testing.T) {
	p := DefaultParams()
	p.Dims = [3]int{4, 4, 4}
	p.CellSize = 0.1
	obs := []Obstacle{{Kind: ObstacleSphere, Center: Vec3{0.2, 0.2, 0.2}, Radius: 0.05}}
	s := newTestSim(t, p, obs, 1)
	for _, c := range []struct {
		x, v Vec3
		want string
	}{
		{Vec3{0.5, 0.1, 0.1}, Vec3{}, "outside the box"},
		{Vec3{0.2, 0.21, 0.2}, Vec3{}, "inside an obstacle"},
		{Vec3{0.1, 0.1, 0.1}, Vec3{math.NaN(), 0, 0}, "finite"},
	} {
		err := s.AddParticles([]Vec3{{0.05, 0.05, 0.05}, c.x}, []Vec3{{}, c.v})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one saying %q", c.x, err, c.want)
		}
		if len(s.X) != 0 {
			t.Fatalf("%d particles added by a refused call", len(s.X))
		}
	}
	if err := s.AddParticles([]Vec3{{0.05, 0.05, 0.05}}, []Vec3{{1, 0, 0}}); err != nil || len(s.X) != 1 {
		t.Fatalf("valid particle: %v, %d particles", err, len(s.X))
	}
}
