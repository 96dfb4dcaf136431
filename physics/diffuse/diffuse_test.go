package diffuse

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

const r = 0.025 // particle radius of the tests (m); spacing 2r, support h = 4r

func testKernel() physics.Kernel { return physics.NewKernel(physics.CubicSpline, 4*r) }

// testParams: generation off (rates 0), the paper's neighbour classes, a domain far away.
func testParams() Params {
	return Params{
		TAMin: 1, TAMax: 2, WCMin: 0.1, WCMax: 1, KEMin: 0.1, KEMax: 1,
		LifeMin: 1, LifeMax: 1, Buoyancy: 2, Drag: 0.8, SprayBelow: 6, BubbleAbove: 20,
		Max: 1 << 20, Seed: 1, Gravity: Vec3{0, -9.81, 0},
		DomainMin: Vec3{-100, -100, -100}, DomainMax: Vec3{100, 100, 100},
	}
}

// lattice returns the points of an nx × ny × nz lattice of spacing 2r from lo.
func lattice(lo Vec3, nx, ny, nz int) []Vec3 {
	var x []Vec3
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				x = append(x, Vec3{lo[0] + 2*r*float64(i), lo[1] + 2*r*float64(j), lo[2] + 2*r*float64(k)})
			}
		}
	}
	return x
}

// volume0 is the lattice's particle volume as the engine sets it: 1/Σ_j W over the lattice.
func volume0(kr *physics.Kernel) float64 { return kr.LatticeVolume(2 * r) }

func TestPhi(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{{-1, 0}, {2, 0}, {3, 0.25}, {4, 0.5}, {6, 1}, {60, 1}} {
		if got := Phi(c.x, 2, 6); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Φ(%g, 2, 6) = %g, want %g", c.x, got, c.want)
		}
	}
}

// TestSurfaceNormals: in a resting block, the particles of the top layer (away from the side
// faces) are surface particles with the normal +y, the second layer and the interior are not;
// the colour gradient |∇c|·h there is measured against surfaceGrad, which must separate them
// with a margin (gradMargin).
func TestSurfaceNormals(t *testing.T) {
	const gradMargin = 0.2 // surfaceGrad must lie this far inside the gap between the layers
	const normalTol = 1e-6
	kr := testKernel()
	const n = 12
	x := lattice(Vec3{}, n, n, n)
	v := make([]Vec3, len(x))
	p := testParams()
	p.TrappedAir = 1 // generation on (the normals are computed), nothing moves: none generated
	var s Set
	pool := par.NewPool(2)
	defer pool.Close()
	if _, err := s.Update(&p, &Input{X: x, V: v, Emit: nil, Kernel: &kr, R: r, Vol: volume0(&kr)}, 0.01, pool); err != nil {
		t.Fatal(err)
	}
	top := 2 * r * (n - 1)
	topMin, secondMax, innerMax := math.Inf(1), 0.0, 0.0
	for i, xi := range x {
		inner := true
		for _, d := range []int{0, 2} {
			inner = inner && xi[d] > 3*2*r && xi[d] < top-3*2*r
		}
		if !inner || xi[1] < 3*2*r {
			continue
		}
		js, _, gw := s.ff.Of(i)
		var g Vec3
		for k, j := range js {
			g = g.Add(physics.Grad(gw[k], &x[i], &x[j]))
		}
		gh := g.Len() * volume0(&kr) * kr.H
		switch {
		case xi[1] > top-r:
			topMin = min(topMin, gh)
			if nn := s.normal[i]; math.Abs(nn[1]-1) > normalTol {
				t.Errorf("top particle %v: normal %v, want +y", xi, nn)
			}
		case xi[1] > top-3*r:
			secondMax = max(secondMax, gh)
			if s.normal[i] != (Vec3{}) {
				t.Errorf("second-layer particle %v is a surface particle (|∇c|h = %.3f)", xi, gh)
			}
		default:
			innerMax = max(innerMax, gh)
			if s.normal[i] != (Vec3{}) {
				t.Errorf("interior particle %v is a surface particle (|∇c|h = %.3f)", xi, gh)
			}
		}
	}
	t.Logf("|∇c|·h: top layer ≥ %.3f, second layer ≤ %.3f, interior ≤ %.3g (threshold %g)", topMin, secondMax, innerMax, surfaceGrad)
	if topMin < surfaceGrad+gradMargin || secondMax > surfaceGrad-gradMargin {
		t.Errorf("surfaceGrad %g is not inside the gap (%.3f, %.3f) with margin %g", surfaceGrad, secondMax, topMin, gradMargin)
	}
}

// TestSprayIsBallistic: a diffuse particle far from any fluid is spray and follows the
// parabola x0 + v0 t + ½ g t² exactly (ballisticTol, round-off over 100 updates).
func TestSprayIsBallistic(t *testing.T) {
	const ballisticTol = 1e-9 // m
	p := testParams()
	kr := testKernel()
	s := Set{X: []Vec3{{0, 1, 0}}, V: []Vec3{{2, 3, -1}}, Life: []float64{1}, Kind: []Kind{Foam}}
	pool := par.NewPool(1)
	defer pool.Close()
	const dt = 1.0 / 60
	for k := 1; k <= 100; k++ {
		st, err := s.Update(&p, &Input{X: nil, V: nil, Emit: nil, Kernel: &kr, R: r, Vol: volume0(&kr)}, dt, pool)
		if err != nil {
			t.Fatal(err)
		}
		if st.Spray != 1 || s.Kind[0] != Spray {
			t.Fatalf("update %d: %+v, kind %v: want one spray particle", k, st, s.Kind[0])
		}
		tt := dt * float64(k)
		for d := 0; d < 3; d++ {
			want := Vec3{0, 1, 0}[d] + Vec3{2, 3, -1}[d]*tt + 0.5*p.Gravity[d]*tt*tt
			if math.Abs(s.X[0][d]-want) > ballisticTol {
				t.Fatalf("t = %.4f s: x[%d] = %.12f, parabola %.12f", tt, d, s.X[0][d], want)
			}
		}
	}
}

// TestBubbleRisesFoamDissolves: a bubble deep in resting water accelerates by −k_b·g and is
// dragged towards the water's velocity (zero), so its speed follows the recursion
// v ← (1 − k_d) v + k_b |g| Δt exactly (bubbleTol) until it nears the surface; there it turns
// to foam, stays with the resting water and dissolves when its lifetime ends.
func TestBubbleRisesFoamDissolves(t *testing.T) {
	const bubbleTol = 1e-12 // m/s
	p := testParams()
	p.LifeMin, p.LifeMax = 0.5, 0.5
	kr := testKernel()
	const n = 12
	x := lattice(Vec3{}, n, n, n)
	v := make([]Vec3, len(x))
	mid := 2 * r * (n - 1) / 2
	s := Set{X: []Vec3{{mid + r, 2 * r, mid + r}}, V: []Vec3{{}}, Life: []float64{p.LifeMin}, Kind: []Kind{Foam}}
	pool := par.NewPool(2)
	defer pool.Close()
	const dt = 0.01
	want := 0.0
	sawBubble, sawFoam := 0, 0
	for k := 0; k < 600 && s.Len() > 0; k++ {
		st, err := s.Update(&p, &Input{X: x, V: v, Emit: nil, Kernel: &kr, R: r, Vol: volume0(&kr)}, dt, pool)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case st.Bubbles == 1:
			sawBubble++
			want = (1-p.Drag)*want + p.Buoyancy*9.81*dt
			if math.Abs(s.V[0][1]-want) > bubbleTol || s.V[0][0] != 0 || s.V[0][2] != 0 {
				t.Fatalf("update %d: bubble velocity %v, recursion gives (0, %.15f, 0)", k, s.V[0], want)
			}
		case st.Foam == 1:
			sawFoam++
			if s.V[0] != (Vec3{}) {
				t.Fatalf("update %d: foam velocity %v on resting water", k, s.V[0])
			}
		case st.Dissolved == 1:
			if got, wantN := sawFoam, int(math.Round(p.LifeMin/dt)); got < wantN-1 || got > wantN {
				t.Errorf("foam lived %d updates, lifetime %g s is %d updates", got, p.LifeMin, wantN)
			}
		default:
			t.Fatalf("update %d: %+v", k, st)
		}
	}
	t.Logf("%d updates as a bubble, %d as foam", sawBubble, sawFoam)
	if sawBubble < 10 || sawFoam == 0 || s.Len() != 0 {
		t.Errorf("bubble %d updates, foam %d, left %d: want a rise, a foam phase and dissolution", sawBubble, sawFoam, s.Len())
	}
}

// jitterVelocities gives every lattice particle a velocity from a hash, so that every
// particle has neighbours approaching it.
func jitterVelocities(n int, scale float64) []Vec3 {
	v := make([]Vec3, n)
	for i := range v {
		for d := 0; d < 3; d++ {
			v[i][d] = scale * (2*uniform(99, 0, uint64(i), uint64(d)) - 1)
		}
	}
	return v
}

// TestGenerationRate: with every potential saturated (I_ta = I_k = 1) each fluid particle
// generates k_ta·Δt particles in expectation; the total over 1728 particles is within
// rateSigmas standard deviations of the binomial count of the stochastic rounding.
func TestGenerationRate(t *testing.T) {
	const rateSigmas = 4.5
	p := testParams()
	p.TrappedAir = 30
	p.TAMin, p.TAMax = 1e-12, 2e-12 // saturated wherever neighbours approach
	p.KEMin, p.KEMax = 1e-12, 2e-12
	kr := testKernel()
	x := lattice(Vec3{}, 12, 12, 12)
	v := jitterVelocities(len(x), 1)
	const dt = 0.01
	var s Set
	pool := par.NewPool(2)
	defer pool.Close()
	st, err := s.Update(&p, &Input{X: x, V: v, Emit: nil, Kernel: &kr, R: r, Vol: volume0(&kr)}, dt, pool)
	if err != nil {
		t.Fatal(err)
	}
	nd := p.TrappedAir * dt // 0.3
	mean := float64(len(x)) * nd
	sd := math.Sqrt(float64(len(x)) * nd * (1 - nd))
	t.Logf("generated %d, expected %.1f ± %.1f", st.Generated, mean, sd)
	if math.Abs(float64(st.Generated)-mean) > rateSigmas*sd {
		t.Errorf("generated %d particles, expected %.1f ± %.1f (%g σ)", st.Generated, mean, sd, rateSigmas)
	}
	if st.Generated != s.Len() || st.Foam+st.Spray+st.Bubbles != s.Len() {
		t.Errorf("stats %+v for %d particles", st, s.Len())
	}
	// each new particle lies in its cylinder: within r of its source's path over Δt
	// (checked against the nearest source, which can only be nearer)
	for k, xd := range s.X {
		best := math.Inf(1)
		for i, xi := range x {
			best = min(best, distToSegment(xd, xi, xi.Add(v[i].Mul(dt))))
		}
		if best > r*(1+1e-9) {
			t.Fatalf("particle %d at %v is %.4g m from every source path (radius r = %g)", k, xd, best, r)
		}
	}
}

func distToSegment(p, a, b Vec3) float64 {
	ab := b.Sub(a)
	t := 0.0
	if l := ab.Dot(ab); l > 0 {
		t = math.Max(0, math.Min(1, p.Sub(a).Dot(ab)/l))
	}
	return p.Sub(a.Add(ab.Mul(t))).Len()
}

// TestWaveCrests: with only the wave-crest rate on, a ball of fluid expanding radially
// (v = c·x: the surface moves along its normal and is convex) generates, the same ball
// contracting (moving against its normal) generates nothing, and the flat top of an
// upward-moving slab (no curvature) generates nothing.
func TestWaveCrests(t *testing.T) {
	p := testParams()
	p.WaveCrest = 1000
	p.WCMin, p.WCMax = 0.05, 0.5
	kr := testKernel()
	pool := par.NewPool(2)
	defer pool.Close()
	// a ball of radius 6 spacings
	var ball []Vec3
	for _, xi := range lattice(Vec3{-0.3, -0.3, -0.3}, 13, 13, 13) {
		if xi.Len() <= 0.3+1e-9 {
			ball = append(ball, xi)
		}
	}
	gen := func(x, v []Vec3, emit []bool) int {
		var s Set
		st, err := s.Update(&p, &Input{X: x, V: v, Emit: emit, Kernel: &kr, R: r, Vol: volume0(&kr)}, 0.01, pool)
		if err != nil {
			t.Fatal(err)
		}
		return st.Generated
	}
	out, in := make([]Vec3, len(ball)), make([]Vec3, len(ball))
	for i, xi := range ball {
		out[i], in[i] = xi.Mul(10), xi.Mul(-10)
	}
	gOut, gIn := gen(ball, out, nil), gen(ball, in, nil)
	// a slab moving up at the expanding ball's surface speed; only its middle may generate
	slab := lattice(Vec3{}, 16, 4, 16)
	up := make([]Vec3, len(slab))
	emit := make([]bool, len(slab))
	for i, xi := range slab {
		up[i] = Vec3{0, 3, 0}
		emit[i] = xi[0] > 0.2 && xi[0] < 0.55 && xi[2] > 0.2 && xi[2] < 0.55
	}
	gSlab := gen(slab, up, emit)
	t.Logf("generated: expanding ball %d, contracting ball %d, rising slab's middle %d", gOut, gIn, gSlab)
	if gOut == 0 || gIn != 0 || gSlab != 0 {
		t.Errorf("want generation only from the expanding ball: %d, %d, %d", gOut, gIn, gSlab)
	}
}

// TestWorkerIndependent: the same fluid and diffuse state give bit-identical diffuse particles
// on 1 and 3 workers over several updates with generation, motion and removal.
func TestWorkerIndependent(t *testing.T) {
	p := testParams()
	p.TrappedAir, p.WaveCrest = 20, 50
	p.TAMin, p.TAMax, p.KEMin, p.KEMax = 0.01, 0.1, 0.01, 0.5
	p.LifeMin, p.LifeMax = 0.02, 0.05
	kr := testKernel()
	x := lattice(Vec3{}, 14, 10, 14)
	v := jitterVelocities(len(x), 1.5)
	run := func(workers int) *Set {
		pool := par.NewPool(workers)
		defer pool.Close()
		var s Set
		for k := 0; k < 8; k++ {
			if _, err := s.Update(&p, &Input{X: x, V: v, Emit: nil, Kernel: &kr, R: r, Vol: volume0(&kr)}, 0.01, pool); err != nil {
				t.Fatal(err)
			}
		}
		return &s
	}
	a, b := run(1), run(3)
	if a.Len() == 0 || a.Len() != b.Len() {
		t.Fatalf("%d and %d particles", a.Len(), b.Len())
	}
	for i := range a.X {
		if a.X[i] != b.X[i] || a.V[i] != b.V[i] || a.Life[i] != b.Life[i] || a.Kind[i] != b.Kind[i] {
			t.Fatalf("particle %d differs: %v %v vs %v %v", i, a.X[i], a.Kind[i], b.X[i], b.Kind[i])
		}
	}
	t.Logf("%d diffuse particles, identical on 1 and 3 workers", a.Len())
}

// TestCapIsCounted: generation beyond Params.Max is reported in Stats.Capped, not done.
func TestCapIsCounted(t *testing.T) {
	p := testParams()
	p.TrappedAir = 300
	p.TAMin, p.TAMax, p.KEMin, p.KEMax = 1e-12, 2e-12, 1e-12, 2e-12
	p.Max = 100
	kr := testKernel()
	x := lattice(Vec3{}, 10, 10, 10)
	v := jitterVelocities(len(x), 1)
	var s Set
	pool := par.NewPool(2)
	defer pool.Close()
	st, err := s.Update(&p, &Input{X: x, V: v, Emit: nil, Kernel: &kr, R: r, Vol: volume0(&kr)}, 0.01, pool)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != p.Max || st.Generated != p.Max || st.Capped != 3*len(x)-p.Max {
		t.Errorf("%+v with %d particles; want %d generated and %d capped", st, s.Len(), p.Max, 3*len(x)-p.Max)
	}
}

func TestBadParams(t *testing.T) {
	kr := testKernel()
	pool := par.NewPool(1)
	defer pool.Close()
	for _, c := range []struct {
		name string
		edit func(p *Params)
	}{
		{"negative rate", func(p *Params) { p.TrappedAir = -1 }},
		{"inverted limits", func(p *Params) { p.KEMin, p.KEMax = 2, 1 }},
		{"zero lifetime", func(p *Params) { p.LifeMin = 0 }},
		{"drag above 1", func(p *Params) { p.Drag = 1.5 }},
		{"classes", func(p *Params) { p.SprayBelow, p.BubbleAbove = 10, 5 }},
	} {
		p := testParams()
		c.edit(&p)
		var s Set
		if _, err := s.Update(&p, &Input{X: nil, V: nil, Emit: nil, Kernel: &kr, R: r, Vol: 1}, 0.01, pool); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// TestGenerationKeepsExisting: particles generated into a set whose slices are full (as a
// restored snapshot leaves them) do not disturb the particles already there.
func TestGenerationKeepsExisting(t *testing.T) {
	p := testParams()
	p.TrappedAir = 300
	p.TAMin, p.TAMax, p.KEMin, p.KEMax = 1e-12, 2e-12, 1e-12, 2e-12
	kr := testKernel()
	x := lattice(Vec3{}, 6, 6, 6)
	v := jitterVelocities(len(x), 1)
	far := Vec3{50, 50, 50}
	s := Set{X: []Vec3{far}, V: []Vec3{{}}, Life: []float64{1}, Kind: []Kind{Foam}}
	pool := par.NewPool(1)
	defer pool.Close()
	const dt = 0.01
	st, err := s.Update(&p, &Input{X: x, V: v, Kernel: &kr, R: r, Vol: volume0(&kr)}, dt, pool)
	if err != nil {
		t.Fatal(err)
	}
	want := Vec3{50, 50 + 0.5*p.Gravity[1]*dt*dt, 50}
	if st.Generated == 0 || s.X[0] != want || s.Kind[0] != Spray {
		t.Errorf("%d generated; the existing particle is at %v (%v), want %v (spray)", st.Generated, s.X[0], s.Kind[0], want)
	}
}

// TestSprayHitsWalls: spray falling onto a layer of wall samples is removed (Stats.Absorbed)
// in the first update that ends within a spacing 2r of a sample, and not before.
func TestSprayHitsWalls(t *testing.T) {
	p := testParams()
	kr := testKernel()
	walls := lattice(Vec3{-0.25, 0, -0.25}, 11, 1, 11)
	var g physics.Grid
	pool := par.NewPool(1)
	defer pool.Close()
	if err := g.Build(walls, kr.H, pool); err != nil {
		t.Fatal(err)
	}
	s := Set{X: []Vec3{{0.01, 0.3, 0.01}}, V: []Vec3{{}}, Life: []float64{1}, Kind: []Kind{Spray}}
	const dt = 0.005
	y := 0.3
	vy := 0.0
	for k := 0; k < 200; k++ {
		st, err := s.Update(&p, &Input{Kernel: &kr, R: r, Vol: 1, WallX: walls, Walls: &g}, dt, pool)
		if err != nil {
			t.Fatal(err)
		}
		y += dt*vy + 0.5*dt*dt*p.Gravity[1]
		vy += dt * p.Gravity[1]
		// the nearest sample is (0, 0, 0), 0.01·√2 m aside
		d := math.Sqrt(y*y + 2*0.01*0.01)
		if hit := d < 2*r; hit != (st.Absorbed == 1) {
			t.Fatalf("update %d: distance to the wall %.4f m (spacing %g), absorbed %d", k, d, 2*r, st.Absorbed)
		}
		if st.Absorbed == 1 {
			t.Logf("absorbed at update %d, %.4f m from the nearest sample", k, d)
			return
		}
	}
	t.Fatal("the spray never reached the wall")
}
