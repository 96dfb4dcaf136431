package sluice_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// plasticMaterial is an elastoplastic material of density rho, Young's modulus e, Poisson's
// ratio 0.3 and the given yield stress (flow rate 100 /s, no hardening).
func plasticMaterial(rho, e, yield float64) components.Material {
	m := components.DefaultMaterial()
	m.RestDensity = rho
	m.Elastoplastic.YoungsModulus = e
	m.Elastoplastic.PoissonsRatio = 0.3
	m.Elastoplastic.YieldStress = yield
	m.Elastoplastic.FlowRate = 100
	return m
}

// boxDrop drops a 0.4 m elastoplastic cube (8³ particles at r = 0.025 m) from 0.5 m onto the
// floor of a tank and returns its height (height, between the 10th and 90th percentile of
// the particle heights) at rest, after every frame of 1/60 s, for frames frames.
func boxDrop(t *testing.T, mat components.Material, frames int) (h0 float64, h []float64) {
	w, err := sluice.NewWorld(components.DefaultSolver(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.5, 0, -0.5}, mgl64.Vec3{0.9, 1.5, 0.9}, true); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddElastoplasticBlock("box", mat, mgl64.Vec3{0, 0.5, 0}, mgl64.Vec3{0.4, 0.9, 0.4}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	h0 = height(w, e)
	for f := 0; f < frames; f++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
		h = append(h, height(w, e))
	}
	return h0, h
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

const (
	// elasticSagTol: a block that never yields comes back to its elastic rest shape under
	// gravity, h0(1 − ρgh0/(2E')) with E' = 3μ the Young's modulus of the incompressible body
	// the pressure solve keeps (the mean strain of a column loaded by its own weight); it
	// still wobbles after 2 s, so its height is averaged over the third second. 3 %: the
	// wobble's residue and the drift of the fitted F (no rest shape is stored).
	elasticSagTol = 0.03
	// plasticKeepMax: a block that yields on impact keeps a squash of more than 10 % of its
	// height; an elastic one recovers to within elasticSagTol.
	plasticKeepMax = 0.9
	// plasticHoldTol: once it has yielded, the squashed block neither springs back nor creeps
	// (its weight is below the yield stress): its height changes by less than 2 % of h0
	// between 1 s and 3 s.
	plasticHoldTol = 0.02
)

// TestElastoplasticBoxDropKeepsOrRecoversItsShape is the chapter's Fig. 4.7 experiment in
// the world: the same box (E = 2·10⁵ Pa) dropped with a yield stress that is never reached
// comes back to its elastic shape, and with a yield stress of 5 kPa (above the 2.4 kPa of its
// own weight at its base, below the impact's stresses) stays squashed.
func TestElastoplasticBoxDropKeepsOrRecoversItsShape(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("two 3 s drops")
	}
	const rho, e = 1000.0, 2e5
	h0, h := boxDrop(t, plasticMaterial(rho, e, 1e12), 180)
	mu := e / (2 * 1.3)
	want := h0 * (1 - rho*9.81*h0/(2*3*mu))
	got := mean(h[120:])
	t.Logf("elastic: rest %.4f m, mean height in the third second %.4f m, elastic expectation %.4f m (%+.2f %%)", h0, got, want, 100*(got/want-1))
	if math.Abs(got/want-1) > elasticSagTol {
		t.Errorf("elastic box: height %.4f m, want within %.0f %% of %.4f m", got, 100*elasticSagTol, want)
	}
	h0, h = boxDrop(t, plasticMaterial(rho, e, 5000), 180)
	t.Logf("plastic: rest %.4f m, at 1 s %.4f m (%.1f %%), at 3 s %.4f m (%.1f %%)", h0, h[59], 100*h[59]/h0, h[179], 100*h[179]/h0)
	if h[179] > plasticKeepMax*h0 {
		t.Errorf("plastic box: height %.4f m after 3 s, want below %.0f %% of %.4f m", h[179], 100*plasticKeepMax, h0)
	}
	if math.Abs(h[179]-h[59]) > plasticHoldTol*h0 {
		t.Errorf("plastic box: height went from %.4f m at 1 s to %.4f m at 3 s, want within %.0f %% of h0", h[59], h[179], 100*plasticHoldTol)
	}
}

const (
	// epLinMomentumTol: the elastoplastic pair forces are equal and opposite (f_ij and f_ji
	// averaged, Eq. 4.10), the zero-mode damping antisymmetric, the pressure and viscosity
	// forces between equal masses symmetric: the total momentum of a body with none outside
	// force stays zero up to round-off of Σ m|v| (the 1e-9).
	epLinMomentumTol = 1e-9
	// epAngMomentumTol: every force is evaluated at the substep's start positions and is
	// torque-free there (central pressure and viscosity forces, the Bonet–Lok corrected
	// elastic forces, the zero-mode damping along each pair), and symplectic Euler then keeps
	// Σ m x × v exactly; what is left is round-off (the 1e-9 relative).
	epAngMomentumTol = 1e-9
)

// TestElastoplasticBodyConservesMomentumInWorld: a 0.4 m block, stretched 15 % along x,
// spinning at 3 rad/s and yielding (yield stress 50 Pa), alone in a world without gravity or
// walls, for 0.3 s: linear and angular momentum are kept.
func TestElastoplasticBodyConservesMomentumInWorld(t *testing.T) {
	s := components.DefaultSolver()
	s.Gravity = mgl64.Vec3{}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	x, err := physicsBlock(0.4, s.Spacing())
	if err != nil {
		t.Fatal(err)
	}
	omega := mgl64.Vec3{0.3, 1, 0.5}.Normalize().Mul(3)
	v := make([]mgl64.Vec3, len(x))
	for i := range x {
		x[i][0] *= 1.15
		v[i] = omega.Cross(x[i])
	}
	e, err := w.AddElastoplasticParticles("block", plasticMaterial(1000, 5e4, 50), x, v)
	if err != nil {
		t.Fatal(err)
	}
	p0, l0, scale := momenta(w, e)
	yielded := 0
	for f := 0; f < 18; f++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		yielded += st.ElastoplasticYielded
	}
	p1, l1, _ := momenta(w, e)
	dp := p1.Sub(p0).Len() / scale
	dl := l1.Sub(l0).Len() / l0.Len()
	t.Logf("%d particles, %d particle updates yielded; |Δp| / Σm|v| = %.2g, |ΔL| / |L| = %.2g", len(x), yielded, dp, dl)
	if yielded == 0 {
		t.Error("the block never yielded: the test does not cover plastic flow")
	}
	if dp > epLinMomentumTol {
		t.Errorf("linear momentum changed by %.3g of Σm|v|, want below %g", dp, epLinMomentumTol)
	}
	if dl > epAngMomentumTol {
		t.Errorf("angular momentum changed by %.3g relative, want below %g", dl, epAngMomentumTol)
	}
}

// physicsBlock returns the lattice of the given spacing filling a cube of side a centred at
// the origin (the fluid block's sampling).
func physicsBlock(a, spacing float64) ([]mgl64.Vec3, error) {
	w, err := sluice.NewWorld(components.DefaultSolver(), 1)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	h := a / 2
	e, err := w.AddFluidBlock("tmp", components.DefaultMaterial(), mgl64.Vec3{-h, -h, -h}, mgl64.Vec3{h, h, h}, mgl64.Vec3{})
	if err != nil {
		return nil, err
	}
	return append([]mgl64.Vec3(nil), w.Particles(e).X...), nil
}

// epTankDrop drops a 0.2 m elastoplastic cube (E = 3·10⁴ Pa, never yielding, so it keeps
// its shape; its sag on the floor at ρ = 2000 kg/m³, ρga/(2·3μ) ≈ 6 % of its 0.2 m, lowers the
// centroid by 0.6 cm, within sinkTol) of density rho into the 0.3 m pool of tankDrop and returns its centroid height
// after 2 s and the water's top particle.
func epTankDrop(t *testing.T, rho float64) (centroid, waterTop float64) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.02
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.8, 0.8, 0.8}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.8, 0.3, 0.8}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	e, err := w.AddElastoplasticBlock("cube", plasticMaterial(rho, 3e4, 1e12), mgl64.Vec3{0.28, 0.34, 0.28}, mgl64.Vec3{0.52, 0.58, 0.52}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	for frame := 0; frame < 120; frame++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	for _, x := range w.Particles(e).X {
		centroid += x[1]
	}
	centroid /= float64(w.Particles(e).Len())
	for _, x := range w.Particles(entityOf(t, w, "water")).X {
		waterTop = max(waterTop, x[1])
	}
	return centroid, waterTop
}

// TestElastoplasticFloatsOrSinksByDensity: in the same pool as the elastic cubes
// (TestLightCubeFloatsHeavyCubeSinks, with its tolerances floatTol and sinkTol and the floor
// height 0.12 m of a sunk 0.2 m cube), a cube of half the water's density floats half
// submerged and one of twice its density rests on the floor.
func TestElastoplasticFloatsOrSinksByDensity(t *testing.T) {
	t.Parallel() // a long validation: it runs beside the others (see docs/tests.md)
	if testing.Short() || raceEnabled {
		t.Skip("two 2 s tank scenes")
	}
	c, top := epTankDrop(t, 500)
	surface := top + 0.02
	t.Logf("ρ = 500: cube centroid %.3f m, water surface %.3f m", c, surface)
	if math.Abs(c-surface) > floatTol {
		t.Errorf("light cube: centroid %.3f m, want within %.2f m of the surface %.3f m", c, floatTol, surface)
	}
	c, _ = epTankDrop(t, 2000)
	t.Logf("ρ = 2000: cube centroid %.3f m, on the floor at 0.12 m", c)
	if math.Abs(c-0.12) > sinkTol {
		t.Errorf("heavy cube: centroid %.3f m, want within %.2f m of 0.12 m (on the floor)", c, sinkTol)
	}
}

// doughDrop is a dough block (the preset's values) sliding and spinning onto a floor.
func doughDrop(t *testing.T, workers int) *sluice.World {
	w, err := sluice.NewWorld(components.DefaultSolver(), workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.3, 0, -0.3}, mgl64.Vec3{0.6, 0.8, 0.6}, true); err != nil {
		t.Fatal(err)
	}
	m := plasticMaterial(1150, 3e4, 1000)
	m.Elastoplastic.FlowRate = 20
	e, err := w.AddElastoplasticBlock("dough", m, mgl64.Vec3{0, 0.1, 0}, mgl64.Vec3{0.3, 0.4, 0.3}, mgl64.Vec3{0.3, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	p := w.Particles(e)
	for i, x := range p.X {
		p.V[i] = p.V[i].Add(mgl64.Vec3{0, 0, 2}.Cross(x.Sub(mgl64.Vec3{0.15, 0.25, 0.15})))
	}
	return w
}

// TestElastoplasticDeterministicAndSnapshot: the dough drop gives bit-identical states on
// 1, 2 and 3 workers after 30 frames, and a world saved after 15 frames and restored (on 1 and
// 2 workers) continues bit-identically to the uninterrupted one: F, α and the previous
// positions are saved with the bodies. (Under the race detector: 10 and 5 frames.)
func TestElastoplasticDeterministicAndSnapshot(t *testing.T) {
	run := func(w *sluice.World, steps int) {
		for i := 0; i < steps; i++ {
			if _, err := w.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
	}
	half := 15 // frames before and after the snapshot
	if raceEnabled {
		half = 5 // the race detector slows the solver tenfold; the same code paths run
	}
	var want [32]byte
	for k, workers := range []int{1, 2, 3} {
		w := doughDrop(t, workers)
		run(w, 2*half)
		got := stateHash(w, entityOf(t, w, "dough"))
		w.Close()
		if k == 0 {
			want = got
		} else if got != want {
			t.Fatalf("%d workers: hash %x, 1 worker %x", workers, got[:8], want[:8])
		}
	}
	w := doughDrop(t, 2)
	run(w, half)
	var buf bytes.Buffer
	if err := w.Save(&buf); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, workers := range []int{2, 1} {
		r, err := sluice.Restore(bytes.NewReader(buf.Bytes()), workers)
		if err != nil {
			t.Fatal(err)
		}
		e := entityOf(t, r, "dough")
		if r.ElastoplasticState(e) == nil {
			t.Fatal("restored dough has no elastoplastic state")
		}
		run(r, half)
		if got := stateHash(r, e); got != want {
			t.Fatalf("restored on %d workers: hash %x, uninterrupted %x", workers, got[:8], want[:8])
		}
		r.Close()
	}
}

func TestBadElastoplasticInputNamesBodyAndField(t *testing.T) {
	w, err := sluice.NewWorld(components.DefaultSolver(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	lo, hi := mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.2, 0.2, 0.2}
	for _, c := range []struct {
		name string
		edit func(m *components.ElastoplasticSolid)
		want string
	}{
		{"yield", func(m *components.ElastoplasticSolid) { m.YieldStress = -1 }, `bodies["b"].material.elastoplastic.yieldStress: -1 Pa is below the minimum 0 (allowed range [0,1e12])`},
		{"flow", func(m *components.ElastoplasticSolid) { m.FlowRate = 2e6 }, `bodies["b"].material.elastoplastic.flowRate: 2e+06 1/s is above the maximum 1e+06 (allowed range [0,1e6])`},
		{"hardening", func(m *components.ElastoplasticSolid) { m.Hardening = -2e12 }, `bodies["b"].material.elastoplastic.hardening: -2e+12 Pa is below the minimum -1e+12 (allowed range [-1e12,1e12])`},
		{"stiffness", func(m *components.ElastoplasticSolid) { m.YoungsModulus = 0 }, `bodies["b"].material.elastoplastic.youngsModulus: 0 Pa must be greater than 0 (allowed range (0,1e12])`},
		{"too stiff", func(m *components.ElastoplasticSolid) { m.YoungsModulus = 1e12; m.PoissonsRatio = 0.49 }, `bodies["b"].material.elastoplastic.youngsModulus: 1e+12 Pa with poissonsRatio 0.49: elastoplastic: Lamé λ = 1.644`},
		{"poisson", func(m *components.ElastoplasticSolid) { m.PoissonsRatio = 0.5 }, `bodies["b"].material.elastoplastic.poissonsRatio: 0.5 must be less than 0.5 (allowed range [0,0.5))`},
		{"damping", func(m *components.ElastoplasticSolid) { m.ZeroModeDamping = 2 }, `bodies["b"].material.elastoplastic.zeroModeDamping: 2 is above the maximum 1 (allowed range [0,1])`},
	} {
		m := components.DefaultMaterial()
		c.edit(&m.Elastoplastic)
		_, err := w.AddElastoplasticBlock("b", m, lo, hi, mgl64.Vec3{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	few := []mgl64.Vec3{{0, 0, 0}, {0.05, 0, 0}, {0, 0.05, 0}, {0, 0, 0.05}, {0.05, 0.05, 0}, {0.05, 0, 0.05}}
	_, err = w.AddElastoplasticParticles("tiny", components.DefaultMaterial(), few, nil)
	if want := `body "tiny": an elastoplastic body of 6 particles cannot fit an affine motion: it needs at least 7`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("six particles: error %v, want %q", err, want)
	}
	if _, ok := w.BodyByName("tiny"); ok {
		t.Error("the refused body was added")
	}
}

// TestElastoplasticParticlesLeavingTheDomainAreDropped: a block sliding out through the
// domain's side loses the particles that cross it (counted in the stats); the rest keep their
// F and plastic strain, and the body goes on with them. A snapshot taken in the step of a
// removal (the state is rebuilt at the next step) continues bit-identically.
func TestElastoplasticParticlesLeavingTheDomainAreDropped(t *testing.T) {
	s := components.DefaultSolver()
	s.Gravity = mgl64.Vec3{}
	s.DomainMin, s.DomainMax = mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{0.45, 1, 1}
	mk := func() (*sluice.World, sluice.Entity) {
		w, err := sluice.NewWorld(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		e, err := w.AddElastoplasticBlock("dough", plasticMaterial(1000, 5e4, 500), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.4, 0.4}, mgl64.Vec3{1, 0, 0})
		if err != nil {
			t.Fatal(err)
		}
		// a spin, so that F differs between particles
		p := w.Particles(e)
		for i, x := range p.X {
			p.V[i] = p.V[i].Add(mgl64.Vec3{0, 0, 3}.Cross(x.Sub(mgl64.Vec3{0.2, 0.2, 0.2})))
		}
		return w, e
	}
	w, e := mk()
	defer w.Close()
	n0 := w.Particles(e).Len()
	removed, frame := 0, 0
	var snap bytes.Buffer
	for ; frame < 30 && removed == 0; frame++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Removed {
			removed += r.Count
		}
	}
	if removed == 0 {
		t.Fatal("no particle left the domain")
	}
	if err := w.Save(&snap); err != nil {
		t.Fatal(err)
	}
	saved := frame
	for ; frame < 30; frame++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Removed {
			removed += r.Count
		}
	}
	n := w.Particles(e).Len()
	st := w.ElastoplasticState(e)
	held := 0 // the particles the state holds: a body that lost some in the last step holds them until the next
	if st.Stale() {
		held = len(st.Kept().F)
	} else if st.Body != nil {
		held = st.Body.Len()
	}
	if n+removed != n0 || held != n {
		t.Fatalf("%d particles, %d removed of %d, the elastoplastic state holds %d", n, removed, n0, held)
	}
	want := stateHash(w, e)
	r, err := sluice.Restore(bytes.NewReader(snap.Bytes()), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for f := saved; f < 30; f++ {
		if _, err := r.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	if got := stateHash(r, entityOf(t, r, "dough")); got != want {
		t.Fatalf("restored after the removal at frame %d: hash %x, uninterrupted %x", saved, got[:8], want[:8])
	}
	t.Logf("%d of %d particles removed (the first at frame %d), the remaining %d still elastoplastic", removed, n0, saved, n)
}

// doughKeepTogether: a dough block that lands without blowing apart has no particle with
// fewer than six neighbours of its own body and no particle faster than its fall speed
// √(2gh) ≈ 3.2 m/s by more than half again; when the explicit step is too long it bursts on
// impact: particles fly off at tens of m/s, most of them alone.
const doughMaxSpeed = 5.0 // m/s

// TestDoughDropStaysStable: the dough preset's values (E = 3·10⁴ Pa, ρ = 1150 kg/m³, yield
// stress 1 kPa, flow rate 20 /s) dropped as a 0.4 m box from 0.5 m, at the default solver
// settings, for 1 s: at the substep control's elastoplastic limit (Material.StableDt, which
// the substeps of this drop reach) it keeps together. It guards the guards of the fit: with the
// conditioning guard at 1e-4 instead of elastoplastic.MinMomentRatio = 1e-2 the drop ends with
// particles at 7.3 m/s and 440 detached particle updates, and when particles whose fit is
// rejected as ill-conditioned still exert their stress it bursts (1047 m/s).
func TestDoughDropStaysStable(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1 s drop")
	}
	checkDoughDrop(t, components.DefaultSolver())
}

// checkDoughDrop drops the dough box of TestDoughDropStaysStable for 1 s with the solver
// settings s and fails the test if a particle goes faster than doughMaxSpeed or detaches.
func checkDoughDrop(t *testing.T, s components.Solver) {
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-1, 0, -1}, mgl64.Vec3{1.4, 2.4, 1.4}, true); err != nil {
		t.Fatal(err)
	}
	m := plasticMaterial(1150, 3e4, 1000)
	m.Elastoplastic.FlowRate = 20
	if _, err := w.AddElastoplasticBlock("dough", m, mgl64.Vec3{0, 0.5, 0}, mgl64.Vec3{0.4, 0.9, 0.4}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	vmax, few, sub := 0.0, 0, 0
	for f := 0; f < 60; f++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		vmax, few, sub = max(vmax, st.MaxSpeed), few+st.ElastoplasticFewNeighbors, sub+st.Substeps
	}
	t.Logf("fastest particle %.2f m/s, %d detached particle updates, %d substeps in 1 s", vmax, few, sub)
	if vmax > doughMaxSpeed || few > 0 {
		t.Errorf("the dough burst: %.1f m/s (want below %g), %d detached particle updates (want none)", vmax, doughMaxSpeed, few)
	}
}

// TestRemovedElastoplasticParticlesLeaveBeforeTheStep: particles a game removes
// (RemoveParticles) leave an elastoplastic body and its state before the next step packs it,
// as an elastic body's do, so the body's forces run in every substep of that step (none is
// paused) and the state holds exactly the kept particles.
func TestRemovedElastoplasticParticlesLeaveBeforeTheStep(t *testing.T) {
	w := doughDrop(t, 1)
	defer w.Close()
	e := entityOf(t, w, "dough")
	for i := 0; i < 10; i++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	n0 := w.Particles(e).Len()
	if err := w.RemoveParticles(e, []int{0, 1, 2, n0 - 1}); err != nil {
		t.Fatal(err)
	}
	st, err := w.Step(1.0 / 60)
	if err != nil {
		t.Fatal(err)
	}
	n := w.Particles(e).Len()
	es := w.ElastoplasticState(e)
	if n != n0-4 || es.Body == nil || es.Body.Len() != n || es.Stale() {
		t.Fatalf("%d particles after removing 4 of %d; state %v holds %d", n, n0, es.Body != nil, es.Body.Len())
	}
	if st.ElastoplasticPaused != 0 || st.ElastoplasticSteps != st.Substeps {
		t.Errorf("%d of %d substeps paused, %d body updates", st.ElastoplasticPaused, st.Substeps, st.ElastoplasticSteps)
	}
}
