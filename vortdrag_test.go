package sluice_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// micropolarWater is water with the micropolar model of the tests: ν_t = 1e-3 m²/s and
// Θ = 1e-4 m² (Θ⁻¹ = 1e4 m⁻², a microinertia of the order of (h/4)² at r = 1 cm), so ω relaxes
// towards half the vorticity at the rate 2Θ⁻¹ν_t = 20/s.
func micropolarWater() components.Material {
	m := components.DefaultMaterial()
	m.Micropolar = components.Micropolar{Vorticity: 1e-3, InertiaInverse: 1e4, OmegaSmoothing: 0.05}
	return m
}

// rotatingDrop is a free water ball of radius 0.1 m at r = 1 cm in zero gravity, rotating
// rigidly about z at omega rad/s.
func rotatingDrop(t *testing.T, mat components.Material, omega, r float64, workers int) (*sluice.World, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = r
	s.Gravity = mgl64.Vec3{}
	s.DtMax = 0.002
	s.DomainMin, s.DomainMax = mgl64.Vec3{-2, -2, -2}, mgl64.Vec3{2, 2, 2}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidSphere("drop", mat, mgl64.Vec3{}, 0.1, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	for i, x := range p.X {
		p.V[i] = mgl64.Vec3{-omega * x[1], omega * x[0], 0}
	}
	return w, e
}

// dropState measures the packed particles of a one-body world: the linear angular momentum
// Σ m (x − c) × v about the centre of mass c, the microrotation part Σ m Θ ω, the rigid
// rotation rate Ω_z = L_z/I_z of the linear motion, and the mean ω of the particles farther
// than inner from the surface (whose neighbourhoods are full).
func dropState(w *sluice.World, theta, radius, inner float64) (lLin, lMicro mgl64.Vec3, omegaZ float64, wIn mgl64.Vec3, nIn int) {
	f := &w.Sim().Fluid
	var c mgl64.Vec3
	mt := 0.0
	for k, x := range f.X {
		c = c.Add(x.Mul(f.M[k]))
		mt += f.M[k]
	}
	c = c.Mul(1 / mt)
	iz := 0.0
	for k, x := range f.X {
		r := x.Sub(c)
		lLin = lLin.Add(r.Cross(f.V[k]).Mul(f.M[k]))
		lMicro = lMicro.Add(f.Omega[k].Mul(f.M[k] * theta))
		iz += f.M[k] * (r[0]*r[0] + r[1]*r[1])
		if r.Len() < radius-inner {
			wIn = wIn.Add(f.Omega[k])
			nIn++
		}
	}
	return lLin, lMicro, lLin[2] / iz, wIn.Mul(1 / float64(nIn)), nIn
}

func TestMicropolarDropRelaxesToHalfVorticity(t *testing.T) {
	// A rigidly rotating drop (Ω = 2 rad/s about z, vorticity ∇×v = 2Ω) with ω = 0 at the
	// start. The micropolar ω equation (Bender et al. 2019, Eq. 10) drives ω towards
	// ∇×v/2 = Ω at the rate 2Θ⁻¹ν_t = 20/s; after 0.5 s (10 relaxation times) the mean ω of
	// the inner particles (more than a support radius h = 4 cm from the surface, where the
	// discrete curl is that of the continuum) must equal the drop's current rotation rate
	// Ω_z = L_z/I_z within relTol. Measured: see the log. relTol is set by the curl's
	// discretisation error on the particle lattice and the few-percent shape change of the
	// spinning drop, not by the model: halving ν_t's torque (the ∇×v term) would put ω at Ω/2.
	const relTol = 0.05
	// ω's components off the axis must stay below offTol·Ω (the flow has no x, y vorticity).
	const offTol = 0.01
	// Total angular momentum of the micropolar medium, Σ m x × v + Σ m Θ ω (the paper's
	// conserved quantity), must stay within lTol of its start: the pair terms balance exactly
	// (physics/micropolar), so only round-off and the single-precision gradients remain (the
	// plain rotating drop keeps 1e-6, TestRotatingDropKeepsAngularMomentum). The microrotation
	// holds 0.6 % of L here, so leaving out the reaction torque would break lTol by
	// orders of magnitude.
	const lTol = 1e-5
	// and the micro part must hold at least microMin of |L| (the exchange happened; it is
	// negative: the inner particles spin with the drop, the surface ones, whose curl sees the
	// free surface's jump, against it, and the latter weigh more).
	const microMin = 0.003
	if raceEnabled {
		t.Skip("micropolar drop: 0.5 s of simulation, slow under the race detector")
	}
	const theta = 1e-4
	w, _ := rotatingDrop(t, micropolarWater(), 1, 0.005, 0)
	defer w.Close()
	if _, err := w.Step(1e-9); err != nil { // pack the particles so the state can be read
		t.Fatal(err)
	}
	l0, m0, _, _, _ := dropState(w, theta, 0.1, 0.02)
	L0 := l0.Add(m0)
	worst := 0.0
	for i := 0; i < 18; i++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
		l, m, _, _, _ := dropState(w, theta, 0.1, 0.02)
		worst = max(worst, l.Add(m).Sub(L0).Len()/L0.Len())
	}
	l, m, oz, win, nIn := dropState(w, theta, 0.1, 0.02)
	t.Logf("%d particles, %d inner: Ω_z = %.5f rad/s, inner mean ω = (%.3g, %.3g, %.5f) 1/s (ω_z/Ω_z = %.4f); L_lin %.6g, L_micro %.6g (%.2f %%), worst |ΔL|/|L0| = %.3g",
		w.Sim().Fluid.Len(), nIn, oz, win[0], win[1], win[2], win[2]/oz, l[2], m[2], 100*m[2]/L0[2], worst)
	if math.Abs(win[2]/oz-1) > relTol {
		t.Errorf("inner ω_z = %.5f, Ω_z = %.5f: off by %.3g, want ≤ %g", win[2], oz, win[2]/oz-1, relTol)
	}
	if math.Hypot(win[0], win[1]) > offTol*oz {
		t.Errorf("inner ω off the axis %.3g 1/s, want ≤ %g·Ω", math.Hypot(win[0], win[1]), offTol)
	}
	if worst > lTol {
		t.Errorf("total angular momentum drifted by %.3g of |L0|, want ≤ %g", worst, lTol)
	}
	if math.Abs(m[2]) < microMin*L0[2] {
		t.Errorf("microrotation holds %.3g of L, want |·| ≥ %g", m[2]/L0[2], microMin)
	}
}

// enstrophy returns Σ m_i |∇×v|_i² of the packed particles, the curl by the SPH difference
// formula ∇×v_i = Σ_j (m_j/ρ_j)(v_i − v_j) × ∇W_ij over all pairs (brute force, so it does not
// depend on the solver's neighbour lists).
func enstrophy(w *sluice.World) float64 {
	f := &w.Sim().Fluid
	kr := &w.Sim().Kernel
	h2 := kr.H * kr.H
	e := 0.0
	for i, xi := range f.X {
		var c mgl64.Vec3
		for j, xj := range f.X {
			r := xi.Sub(xj)
			if j == i || r.Dot(r) >= h2 {
				continue
			}
			g := r.Mul(kr.GradFactor(r.Len()) * f.M[j] / f.Rho[j])
			c = c.Add(f.V[i].Sub(f.V[j]).Cross(g))
		}
		e += f.M[i] * c.Dot(c)
	}
	return e
}

// stirredTank is a 0.3 m square tank with 0.15 m of water at r = 7.5 mm, stirred at the
// start into a rigid rotation at 3 rad/s about the tank's vertical axis.
func stirredTank(t *testing.T, mat components.Material, workers int) (*sluice.World, sluice.Entity) {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius = 0.0075
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1}
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.15, 0, -0.15}, mgl64.Vec3{0.15, 0.3, 0.15}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddFluidBlock("water", mat, mgl64.Vec3{-0.15, 0, -0.15}, mgl64.Vec3{0.15, 0.15, 0.15}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	for i, x := range p.X {
		p.V[i] = mgl64.Vec3{3 * x[2], 0, -3 * x[0]}
	}
	return w, e
}

func TestMicropolarKeepsVorticityInStirredTank(t *testing.T) {
	// A stirred tank spins down under the viscosity (ν = 0.01 m²/s, the default) and the
	// walls' corners. The micropolar model returns vorticity to the flow: at equilibrium ω ≈
	// ∇×v/2 and ν_t∇×ω = −(ν_t/2)∇²v for a divergence-free flow, a negative viscosity ν_t/2
	// against SPH's numerical and the physical viscosity. With ν_t = 0.01 m²/s (net
	// ν − ν_t/2 = 0.005 m²/s, still dissipative) the enstrophy Σ m|∇×v|² after 1 s must exceed
	// that of the same tank without the model by minGain, and the kinetic energy must not
	// have grown; at ν = 0.001 the same ν_t is a net negative viscosity and the kinetic energy
	// must grow. Measured: see the log.
	// Measured 7.2; minGain asks for a clear gain, not the exact figure (it depends on how fast
	// the tank spins down, i.e. on the resolution).
	const minGain = 2.0
	if testing.Short() || raceEnabled {
		t.Skip("stirred tank: three runs of 1 s")
	}
	t.Parallel()
	ke := func(w *sluice.World) float64 {
		f := &w.Sim().Fluid
		k := 0.0
		for i, v := range f.V {
			k += 0.5 * f.M[i] * v.Dot(v)
		}
		return k
	}
	run := func(mat components.Material) (float64, float64, float64, float64) {
		w, _ := stirredTank(t, mat, 0)
		defer w.Close()
		if _, err := w.Step(1e-9); err != nil {
			t.Fatal(err)
		}
		e0, k0 := enstrophy(w), ke(w)
		for i := 0; i < 60; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		return e0, enstrophy(w), k0, ke(w)
	}
	water := components.DefaultMaterial()
	mp := water
	mp.Micropolar = components.Micropolar{Vorticity: 0.01, InertiaInverse: 1e3, OmegaSmoothing: 0.05}
	a0, a1, ak0, ak1 := run(water)
	b0, b1, bk0, bk1 := run(mp)
	t.Logf("enstrophy (kg/s²): without %.4g → %.4g after 1 s (%.3f), with ν_t = 0.01 %.4g → %.4g (%.3f); ratio %.3f; kinetic energy (J) without %.4g → %.4g, with %.4g → %.4g",
		a0, a1, a1/a0, b0, b1, b1/b0, b1/a1, ak0, ak1, bk0, bk1)
	// The same ν_t over ν = 0.001 m²/s: net negative viscosity, the kinetic energy must rise
	// (what the docs' stability note says; a model whose feedback were dropped would not).
	thin := mp
	thin.Viscosity = 0.001
	_, c1, ck0, ck1 := run(thin)
	t.Logf("ν = 0.001 m²/s with ν_t = 0.01: enstrophy → %.4g, kinetic energy %.4g → %.4g J", c1, ck0, ck1)
	if ck1 <= ck0 {
		t.Errorf("ν = 0.001, ν_t = 0.01: kinetic energy %.4g → %.4g J, want a rise (net negative viscosity)", ck0, ck1)
	}
	if bk1 > bk0 {
		t.Errorf("kinetic energy rose from %.4g to %.4g J with the micropolar model: it created energy (ν_t/2 above ν is a net negative viscosity)", bk0, bk1)
	}
	if b1 < minGain*a1 {
		t.Errorf("enstrophy with the micropolar model %.4g, without %.4g: ratio %.3f, want ≥ %g", b1, a1, b1/a1, minGain)
	}
}

func TestAirDragTerminalSpeed(t *testing.T) {
	// A lone particle (a droplet of radius L = (3/4π)^{1/3}·2r, r = 1 cm) falls from rest with
	// the air drag of Gissler et al. 2017 at factor 100. It has no neighbours, so it feels the
	// full drag of a deforming droplet; its speed tends to the terminal speed v_t where the
	// drag balances gravity, m g = c ½ ρ_a v_t² C_D(v_t) A(v_t), solved here by bisection on the
	// closed form dragForce (written out from the paper, not with package airdrag). Explicit
	// Euler's fixed point is exactly that balance; after 3 s (about 14 relaxation times
	// v_t/g) the speed must be within termTol of it.
	const termTol = 1e-4
	if raceEnabled {
		t.Skip("3 s of a lone particle: slow under the race detector")
	}
	run := func(c float64) float64 {
		s := components.DefaultSolver()
		s.ParticleRadius = 0.01
		s.DtMax = 0.005
		s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -100, -1}, mgl64.Vec3{1, 1, 1}
		w, err := sluice.NewWorld(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		mat := components.DefaultMaterial()
		mat.AirDrag = c
		e, err := w.AddFluidParticles("drop", mat, []mgl64.Vec3{{}}, []mgl64.Vec3{{}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 180; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		return -w.Particles(e).V[0][1]
	}
	free, v := run(0), run(100)
	m := 1000 * (0.02 * 0.02 * 0.02) // ρ0 times the lattice volume (2r)³ of the cubic kernel
	lo, hi := 0.0, 100.0
	for k := 0; k < 200; k++ {
		mid := 0.5 * (lo + hi)
		if 100*dragForce(mid, 0.01, 1000) < m*9.81 {
			lo = mid
		} else {
			hi = mid
		}
	}
	vt := 0.5 * (lo + hi)
	t.Logf("after 3 s: %.6f m/s with drag (closed-form terminal speed %.6f m/s, off by %.2g), %.4f m/s without", v, vt, v/vt-1, free)
	if math.Abs(v/vt-1) > termTol {
		t.Errorf("speed %.6f m/s, terminal %.6f m/s: off by %.3g, want ≤ %g", v, vt, v/vt-1, termTol)
	}
	if free < 10*v {
		t.Errorf("without drag %.4f m/s, with %.4f m/s: want free fall (g·t ≈ 29 m/s) far above the terminal speed", free, v)
	}
}

// dragForce is the drag (N) of Gissler et al. 2017 on an unoccluded droplet of a particle of
// radius r of a liquid of rest density rho at speed u in still air, written out from the
// paper's Eqs. 6–9 and 12 with its constants, independently of package airdrag.
func dragForce(u, r, rho float64) float64 {
	const rhoA, muA, sigma, muL = 1.2041, 1.845e-5, 0.0724, 1.02e-3
	const cF, cK, cD, cB = 1.0 / 3, 8.0, 5.0, 0.5
	L := math.Pow(3/(4*math.Pi), 1.0/3) * 2 * r
	td := 2 * rho * L * L / (cD * muL)
	om := math.Sqrt(cK*sigma/(rho*L*L*L) - 1/(td*td))
	tmax := 2 * (math.Pi - math.Atan(math.Sqrt(td*td*om*om+1)+td*om)) / om
	cdef := 1 - math.Exp(-tmax/td)*(math.Cos(om*tmax)+math.Sin(om*tmax)/(om*td))
	we := rhoA * u * u * L / sigma
	y := math.Min(1, cF*we*cdef/(cK*cB))
	re := 2 * math.Max(0.1, rhoA*u*L/muA)
	cs := 0.424
	if re <= 1000 {
		cs = 24 / re * (1 + math.Pow(re, 2.0/3)/6)
	}
	a := math.Pi * math.Pow(L+cB*L*y, 2)
	return 0.5 * rhoA * u * u * cs * (1 + 2.632*y) * a
}

// vortDragScene is a small splashing drop with micropolar vorticity and air drag both on.
func vortDragScene(t *testing.T, workers int) *sluice.World {
	t.Helper()
	mat := micropolarWater()
	mat.AirDrag = 50
	w, e := rotatingDrop(t, mat, 3, 0.01, workers)
	p := w.Particles(e)
	for i := range p.V {
		p.V[i][1] -= 1 // falling as it spins
	}
	return w
}

func TestVorticityDragDeterministicAcrossWorkers(t *testing.T) {
	// The micropolar and drag passes run in fixed blocks (physics/par) and write ω to a second
	// buffer, so 1, 2 and 5 workers must give bit-identical particles and microrotations.
	var ref [32]byte
	var refOmega []mgl64.Vec3
	for _, workers := range []int{1, 2, 5} {
		w := vortDragScene(t, workers)
		for i := 0; i < 8; i++ {
			if _, err := w.Step(frame); err != nil {
				t.Fatal(err)
			}
		}
		h := stateHash(w, entityOf(t, w, "drop"))
		om := append([]mgl64.Vec3(nil), w.Sim().Fluid.Omega...)
		w.Close()
		if workers == 1 {
			ref, refOmega = h, om
			nz := 0
			for _, o := range om {
				if o != (mgl64.Vec3{}) {
					nz++
				}
			}
			if nz == 0 {
				t.Fatal("no particle has a microrotation: the model did not run")
			}
			continue
		}
		if h != ref {
			t.Errorf("%d workers: state hash %x, 1 worker %x", workers, h[:8], ref[:8])
		}
		for k := range om {
			if om[k] != refOmega[k] {
				t.Errorf("%d workers: ω of packed particle %d is %v, 1 worker %v", workers, k, om[k], refOmega[k])
				break
			}
		}
	}
}

func TestVorticityDragRestoreContinues(t *testing.T) {
	// ω is state: a snapshot must carry it, or the restored run's velocities (which ν_t∇×ω
	// feeds) differ from the uninterrupted run's in the first substep.
	const a, b = 5, 5
	w := vortDragScene(t, 1)
	for i := 0; i < a+b; i++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	want := stateHash(w, entityOf(t, w, "drop"))
	w.Close()
	w = vortDragScene(t, 1)
	for i := 0; i < a; i++ {
		if _, err := w.Step(frame); err != nil {
			t.Fatal(err)
		}
	}
	checkRestoreContinues(t, w, b, "drop", want)
}
