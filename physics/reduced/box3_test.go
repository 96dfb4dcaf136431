package reduced

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

func boxTestConfig() BoxConfig {
	c := DefaultBoxConfig()
	c.Size = [3]float64{1, 0.8, 0.6}
	c.MaxWave, c.Modes = 4, 40
	return c
}

func mustBox(t *testing.T, c BoxConfig) *Box {
	t.Helper()
	b, err := NewBox(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// midpointGrid is the midpoint rule with n points per axis on the box: exact for every
// product of two modes with wave numbers below n per axis (Σ_i cos(mπ(i+½)/n) = 0 for
// 0 < m < 2n), so the Gram matrix it gives is the exact one up to rounding.
func midpointGrid(size [3]float64, n int, f func(p [3]float64, w float64)) {
	w := size[0] * size[1] * size[2] / float64(n*n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				f([3]float64{(float64(i) + 0.5) * size[0] / float64(n), (float64(j) + 0.5) * size[1] / float64(n), (float64(k) + 0.5) * size[2] / float64(n)}, w)
			}
		}
	}
}

// TestBoxBasisOrthonormalDivergenceFreeTangent: the 3D modes are orthonormal on an exact
// quadrature (1e-12: rounding only), divergence-free by central differences at random points
// (1e-6 of |k|·|b|: the difference's O(h²k³) error at h = 1e-5) and have no normal velocity on
// the walls (1e-12).
func TestBoxBasisOrthonormalDivergenceFreeTangent(t *testing.T) {
	const gramTol, divTol, wallTol = 1e-12, 1e-6, 1e-12
	c := boxTestConfig()
	b := mustBox(t, c)
	n := b.Modes()
	gram := make([]float64, n*n)
	vel := make([][3]float64, n)
	midpointGrid(c.Size, 2*c.MaxWave+2, func(p [3]float64, w float64) {
		for k := range n {
			vel[k] = b.ModeVelocityAt(k, p)
		}
		for k := range n {
			for l := range n {
				gram[k*n+l] += w * (vel[k][0]*vel[l][0] + vel[k][1]*vel[l][1] + vel[k][2]*vel[l][2])
			}
		}
	})
	worst := 0.0
	for k := range n {
		for l := range n {
			want := 0.0
			if k == l {
				want = 1
			}
			worst = max(worst, math.Abs(gram[k*n+l]-want))
		}
	}
	t.Logf("%d modes (wave numbers up to %d); |BᵀB − I| = %.2e", n, c.MaxWave, worst)
	if worst > gramTol {
		t.Errorf("|BᵀB − I| = %.3g", worst)
	}
	rng := rand.New(rand.NewSource(3))
	const h = 1e-5
	for k := range n {
		lam := math.Sqrt(b.Eigenvalue(k))
		scale := lam * math.Sqrt(8/(c.Size[0]*c.Size[1]*c.Size[2]))
		for range 20 {
			p := [3]float64{rng.Float64() * c.Size[0], rng.Float64() * c.Size[1], rng.Float64() * c.Size[2]}
			div := 0.0
			for e := range 3 {
				q, r := p, p
				q[e] += h
				r[e] -= h
				div += (b.ModeVelocityAt(k, q)[e] - b.ModeVelocityAt(k, r)[e]) / (2 * h)
			}
			if math.Abs(div) > divTol*scale {
				t.Fatalf("mode %d (waves %v): divergence %.3g at %v, scale %.3g", k, b.Waves(k), div, p, scale)
			}
			for e := range 3 {
				for _, wall := range []float64{0, c.Size[e]} {
					q := p
					q[e] = wall
					if u := b.ModeVelocityAt(k, q)[e]; math.Abs(u) > wallTol*scale {
						t.Fatalf("mode %d: normal velocity %.3g on the wall %d = %g", k, u, e, wall)
					}
				}
			}
		}
	}
}

// TestBoxTensorMatchesQuadrature: entries of C(k,i,j) = −⟨b_k,(b_i·∇)b_j⟩ from the closed form
// equal an independent evaluation, the midpoint rule (exact for these trigonometric
// polynomials) of b_k·(b_i·∇)b_j with ∇ by central differences of the mode velocities (error
// O(h²k³) ≈ 1e-8 at h = 1e-5): within 1e-6 of the largest entry. C is antisymmetric in k and
// j (⟨b_k,(u·∇)b_j⟩ = −⟨b_j,(u·∇)b_k⟩ for divergence-free u tangent to the walls), to 1e-12.
func TestBoxTensorMatchesQuadrature(t *testing.T) {
	const quadTol, antiTol = 1e-6, 1e-12
	c := boxTestConfig()
	c.MaxWave, c.Modes = 3, 16
	b := mustBox(t, c)
	n := b.Modes()
	big := 0.0
	for k := range n {
		for i := range n {
			for j := range n {
				big = max(big, math.Abs(b.Tensor(k, i, j)))
				if d := math.Abs(b.Tensor(k, i, j) + b.Tensor(j, i, k)); d > antiTol*1 {
					t.Fatalf("C(%d,%d,%d) + C(%d,%d,%d) = %.3g", k, i, j, j, i, k, d)
				}
			}
		}
	}
	rng := rand.New(rand.NewSource(7))
	const h = 1e-5
	worst := 0.0
	checked, nonzero := 0, 0
	for range 24 {
		k, i, j := rng.Intn(n), rng.Intn(n), rng.Intn(n)
		if checked < 12 { // half of the checks on entries the closed form says are nonzero
			for b.Tensor(k, i, j) == 0 {
				k, i, j = rng.Intn(n), rng.Intn(n), rng.Intn(n)
			}
			nonzero++
		}
		checked++
		sum := 0.0
		midpointGrid(c.Size, 3*c.MaxWave+2, func(p [3]float64, w float64) {
			bk, bi := b.ModeVelocityAt(k, p), b.ModeVelocityAt(i, p)
			for cc := range 3 {
				q, r := p, p
				q[cc] += h
				r[cc] -= h
				dq, dr := b.ModeVelocityAt(j, q), b.ModeVelocityAt(j, r)
				for d := range 3 {
					sum += w * bk[d] * bi[cc] * (dq[d] - dr[d]) / (2 * h)
				}
			}
		})
		worst = max(worst, math.Abs(-sum-b.Tensor(k, i, j)))
	}
	t.Logf("%d modes: %d nonzero of %d entries, largest %.4g; %d entries (%d nonzero) against quadrature: worst difference %.2e", n, b.TensorNonzeros(), n*n*n, big, checked, nonzero, worst)
	if worst > quadTol*big {
		t.Errorf("closed form and quadrature differ by %.3g (largest entry %.3g)", worst, big)
	}
}

// TestBoxEnergy: with viscosity a weak single mode decays as exp(−ν|k|²t) (advection of a
// 1e-6 amplitude changes it by ~1e-12; the Taylor step's error at ν|k|²Δt ≤ 0.05 is ~1e-8
// per step): 1e-6 relative after 100 steps. Inviscid, a random flow keeps its energy within
// the integrator's order: the drift falls by at least 2⁴ when Δt halves (global order 5 for
// p = 4, see advanceFluid) and is below 1e-6 of the energy at the smaller step.
func TestBoxEnergy(t *testing.T) {
	const decayTol, driftTol = 1e-6, 1e-6
	c := boxTestConfig()
	c.Viscosity = 1e-3
	b := mustBox(t, c)
	n := b.Modes()
	for _, k := range []int{0, n / 2, n - 1} {
		r := make([]float64, n)
		r[k] = 1e-6
		if err := b.SetCoefficients(r); err != nil {
			t.Fatal(err)
		}
		dt := 0.05 / (c.Viscosity * b.Eigenvalue(n-1))
		for range 100 {
			if err := b.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		got := b.Coefficients(nil)[k] / 1e-6
		want := math.Exp(-c.Viscosity * b.Eigenvalue(k) * 100 * dt)
		if math.Abs(got-want) > decayTol*want {
			t.Errorf("mode %d: amplitude ratio %.10g after 100 steps, exp(−ν|k|²t) = %.10g", k, got, want)
		}
	}
	c.Viscosity = 0
	drift := func(dt float64) float64 {
		b := mustBox(t, c)
		rng := rand.New(rand.NewSource(11))
		r := make([]float64, b.Modes())
		for i := range r {
			r[i] = 0.05 * rng.NormFloat64()
		}
		_ = b.SetCoefficients(r)
		e0 := b.Energy()
		for b.Time() < 0.5-1e-12 {
			_ = b.Step(dt)
		}
		return (b.Energy() - e0) / e0
	}
	d1, d2 := drift(0.02), drift(0.01)
	t.Logf("inviscid energy drift over 0.5 s: %.3e at Δt = 0.02 s, %.3e at 0.01 s (ratio %.1f)", d1, d2, d1/d2)
	if math.Abs(d2) > driftTol || math.Abs(d1/d2) < 16 {
		t.Errorf("energy drift %.3g, %.3g: not below %g or not of order ≥ 4", d1, d2, driftTol)
	}
}

// TestBoxBadInput: out-of-range fields are refused with the field named.
func TestBoxBadInput(t *testing.T) {
	for _, c := range []struct {
		set  func(c *BoxConfig)
		want string
	}{
		{func(c *BoxConfig) { c.Size[1] = 0 }, "BoxConfig.Size[1] = 0 m is out of range (0, 1e6]"},
		{func(c *BoxConfig) { c.MaxWave = 0 }, "BoxConfig.MaxWave = 0 is out of range [1, 32]"},
		{func(c *BoxConfig) { c.MaxWave, c.Modes = 1, 6 }, "BoxConfig.Modes = 6 is out of range [1, 5]"},
		{func(c *BoxConfig) { c.Viscosity = -1 }, "BoxConfig.Viscosity = -1 m²/s is out of range [0, 10]"},
		{func(c *BoxConfig) { c.TaylorOrder = 0 }, "BoxConfig.TaylorOrder = 0 is out of range [1, 16]"},
	} {
		cfg := DefaultBoxConfig()
		c.set(&cfg)
		if _, err := NewBox(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestBoxProjectAndRelax: Project of 2·b_k is 2 e_k (the quadrature is exact for the modes;
// 1e-12), and Relax with g = 1 (G = I) towards it follows the explicit Euler solution
// r = F(1 − (1 − h)^m) of dr/dt = (F − r)/τ exactly (1e-12), reaching F within e^{−t/τ}.
func TestBoxProjectAndRelax(t *testing.T) {
	const exactTol = 1e-12
	b := mustBox(t, boxTestConfig())
	n := b.Modes()
	const k = 5
	f := b.Project(func(p [3]float64) [3]float64 {
		v := b.ModeVelocityAt(k, p)
		return [3]float64{2 * v[0], 2 * v[1], 2 * v[2]}
	})
	for l, x := range f {
		want := 0.0
		if l == k {
			want = 2
		}
		if math.Abs(x-want) > exactTol {
			t.Fatalf("Project(2 b_%d)[%d] = %.15g, want %g", k, l, x, want)
		}
	}
	g := b.WeightedGram(func([3]float64) float64 { return 1 })
	const tau, dt, steps = 0.1, 1.0 / 60, 60
	for range steps {
		if err := b.Relax(f, g, tau, dt); err != nil {
			t.Fatal(err)
		}
	}
	h := dt / tau // one substep per step: dt < τ
	want := 2 * (1 - math.Pow(1-h, steps))
	got := b.Coefficients(nil)
	if math.Abs(got[k]-want) > exactTol {
		t.Errorf("relaxed coefficient %.15g, explicit Euler %.15g", got[k], want)
	}
	if math.Abs(got[k]-2) > 2*math.Exp(-steps*dt/tau) {
		t.Errorf("relaxed coefficient %.6g, not within e^(−t/τ) of 2", got[k])
	}
	for l := range n {
		if l != k && math.Abs(got[l]) > exactTol {
			t.Errorf("coefficient %d = %.3g, want 0", l, got[l])
		}
	}
}
