package tension

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/internal/testlattice"
	"github.com/sluicephysics/sluice/physics/par"
)

// TestAdhesionKernel: Eq. 7 is zero up to h/2 and from h on, positive between, and largest at
// 3h/4 where −4r²/h + 6r − 2h = h/4, with the value 0.007·(h/4)^{1/4}/h^3.25 (kernelTol).
func TestAdhesionKernel(t *testing.T) {
	const h = 0.1
	peak := 0.007 * math.Pow(0.25*h, 0.25) / math.Pow(h, 3.25)
	for _, c := range []struct {
		r, want float64
		why     string
	}{
		{0.75 * h, peak, "the peak at 3h/4"},
		{0.5 * h, 0, "zero at h/2"},
		{0.3 * h, 0, "zero within h/2 (the pressure keeps particles off the wall)"},
		{h, 0, "zero at the support radius"},
		{1.2 * h, 0, "zero beyond the support"},
	} {
		if got := Adhesion(c.r, h); math.Abs(got-c.want) > kernelTol*peak {
			t.Errorf("A(%g h) = %g, want %g: %s", c.r/h, got, c.want, c.why)
		}
	}
	// the peak is the largest value: a fine scan finds nothing above it and its argmax at 3h/4
	best, arg := 0.0, 0.0
	for k := 1; k < 10000; k++ {
		r := h * (0.5 + 0.5*float64(k)/10000)
		if a := Adhesion(r, h); a > best {
			best, arg = a, r
		}
		if a := Adhesion(r, h); a <= 0 {
			t.Fatalf("A(%g h) = %g: must be positive between h/2 and h", r/h, a)
		}
	}
	if best > peak*(1+kernelTol) || math.Abs(arg-0.75*h) > 1e-4*h {
		t.Errorf("largest A = %g at %g h, want %g at 0.75 h", best, arg/h, peak)
	}
}

// adhesionSetup is the jittered test lattice (jittered) with its fluid → wall lists, the wall
// samples split into three bodies by x, and an Adhesive with unequal β; a_i = v*_i after one
// Apply with Δt = 1 from v* = 0.
func adhesionSetup(t *testing.T, pool *par.Pool) (*physics.FluidSet, *physics.BoundarySet, *Adhesive, []int32, []physics.Vec3) {
	f, b, kr, search := testlattice.Setup(t, pool, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range f.X {
		for d := 0; d < 3; d++ {
			f.X[i][d] += 0.3 * 0.05 * (2*rng.Float64() - 1)
		}
		f.M[i] *= 0.8 + 0.4*rng.Float64()
	}
	_, fb := search()
	owner := make([]int32, b.Len())
	for j, x := range b.X {
		owner[j] = int32(min(2, int(x[0]/0.25)))
	}
	centers := []physics.Vec3{{0.1, 0.2, 0.3}, {0.4, 0.1, 0.2}, {0.6, 0.6, 0.6}}
	s := &Adhesive{Beta: make([]float64, f.Len())}
	for i := range s.Beta {
		s.Beta[i] = 1 + float64(i%3)
	}
	clear(f.VStar)
	s.Apply(f, b, fb, kr, owner, centers, 1, pool)
	return f, b, s, owner, centers
}

// TestAdhesionExchangesMomentum: the bodies' forces are the exact reaction of the fluid's
// adhesion, Σ_i m_i a_i + Σ_k F_k = 0, and, the pair forces being central, so is the angular
// momentum about the origin, Σ_i x_i × m_i a_i + Σ_k (T_k + c_k × F_k) = 0, each within
// momentumTol of the sums of magnitudes; the result is bit-identical on 1 and 3 workers.
func TestAdhesionExchangesMomentum(t *testing.T) {
	pool := par.NewPool(2)
	defer pool.Close()
	f, _, s, _, centers := adhesionSetup(t, pool)
	var lin, ang, linAbs, angAbs physics.Vec3
	n := 0
	for i, a := range f.VStar {
		ma := a.Mul(f.M[i])
		if ma != (physics.Vec3{}) {
			n++
		}
		tq := f.X[i].Cross(ma)
		lin, ang = lin.Add(ma), ang.Add(tq)
		for d := 0; d < 3; d++ {
			linAbs[d] += math.Abs(ma[d])
			angAbs[d] += math.Abs(tq[d])
		}
	}
	if n < 100 {
		t.Fatalf("only %d particles feel the walls: the test does not exercise the adhesion", n)
	}
	for k := range centers {
		lin = lin.Add(s.Force[k])
		ang = ang.Add(s.Torque[k]).Add(centers[k].Cross(s.Force[k]))
	}
	for d := 0; d < 3; d++ {
		if math.Abs(lin[d]) > momentumTol*linAbs[d] || math.Abs(ang[d]) > momentumTol*angAbs[d] {
			t.Errorf("axis %d: momentum imbalance %g of %g, angular %g of %g", d, lin[d], linAbs[d], ang[d], angAbs[d])
		}
	}
	for _, workers := range []int{1, 3} {
		p := par.NewPool(workers)
		f2, _, s2, _, _ := adhesionSetup(t, p)
		p.Close()
		for i := range f.VStar {
			if f2.VStar[i] != f.VStar[i] {
				t.Fatalf("%d workers: particle %d's adhesion %v, 2 workers %v", workers, i, f2.VStar[i], f.VStar[i])
			}
		}
		for k := range centers {
			if s2.Force[k] != s.Force[k] || s2.Torque[k] != s.Torque[k] {
				t.Fatalf("%d workers: body %d's load differs", workers, k)
			}
		}
	}
}

// TestAdhesionPullsTowardsTheWall: the test lattice's layers lie h/2 and h from the walls,
// where A is zero, so the test lifts the fluid by h/4: a particle in the middle of the floor's
// first layer, 3h/4 above it, is pulled down, sideways by at most sidewaysTol of that (the
// floor's samples, 0.66/13 m apart, are not placed symmetrically about it), and by no more
// than AdhesionBound·β ρ0.
func TestAdhesionPullsTowardsTheWall(t *testing.T) {
	pool := par.NewPool(1)
	defer pool.Close()
	f, b, kr, search := testlattice.Setup(t, pool, 1)
	for i := range f.X {
		f.X[i][1] += 0.025 // the first layer 0.075 m = 3h/4 above the floor
	}
	_, fb := search()
	s := &Adhesive{Beta: make([]float64, f.Len())}
	const beta = 2.0
	for i := range s.Beta {
		s.Beta[i] = beta
	}
	clear(f.VStar)
	s.Apply(f, b, fb, kr, make([]int32, b.Len()), []physics.Vec3{{}}, 1, pool)
	// the particle nearest (0.3, 0.075, 0.3): on the floor's first layer, in its middle
	k := 0
	for i, x := range f.X {
		if physics.Norm(x.Sub(physics.Vec3{0.3, 0.075, 0.3})) < physics.Norm(f.X[k].Sub(physics.Vec3{0.3, 0.075, 0.3})) {
			k = i
		}
	}
	a := f.VStar[k]
	t.Logf("particle at %v: adhesion %v m/s², bound %g m/s²", f.X[k], a, beta*1000*AdhesionBound())
	const sidewaysTol = 0.05 // measured 0.019
	if a[1] >= 0 || math.Hypot(a[0], a[2]) > sidewaysTol*math.Abs(a[1]) {
		t.Errorf("particle at %v: adhesion %v, want it down towards the floor", f.X[k], a)
	}
	if -a[1] > beta*f.Rho0[k]*AdhesionBound() {
		t.Errorf("adhesion %g m/s² above the bound %g", -a[1], beta*f.Rho0[k]*AdhesionBound())
	}
}
