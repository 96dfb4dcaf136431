package sluice_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// The wide Poiseuille channel: the plates, fluid and drive of TestImplicitPoiseuilleFlow
// (pfGap, pfNu, pfG, r = pfR) in a block 30 spacings long and wide instead of 16, measured
// over a central column 10 spacings square. The block's sides at x and z are free surfaces,
// where a particle misses part of its neighbours and so part of its viscous resistance; the
// layers next to them run faster and drag the fluid within about a gap's width along. In the
// 16-spacing block that reaches the central column.
const (
	pwL  = 0.30 // block length and width (m)
	pwHW = 0.05 // half-width of the measured column in x and z (m)
)

// packedLatticeTol bounds the relative difference between the wide lattice channel's fitted
// ν_eff/ν and the operator's response to a lattice-aligned plane shear on the same particles
// (operatorShearResponse, 0.698): the two describe the same interior if the implicit solve's
// steady state is the operator's, and the profile's excess over the closed form is the
// lattice's. What remains is the free sides' drag on the column, which in the 16-spacing block
// of TestPoiseuilleRotatedChannel (θ = 0°: ν_eff 0.640) is −8 %; halving ν moves the ratio by
// half.
const packedLatticeTol = 0.03

// packedGain is the least factor by which the disordered packing must bring the worst height
// bin closer to the closed form than the lattice does in the same channel: the excess over the
// closed form is, for its larger part, the lattice's direction-dependent response, which an
// isotropic packing averages out. The fraction that remains on the disordered packing is
// logged (docs/viscosity.md); it is not the 5 %.
const packedGain = 2.0

// disorderedChannelPacking returns n particles between the plates, x and z in
// [r, r + P) with P = (pwL/2r − 1)·2r, y in [r, pfGap − r] (the lattice's slab: the same number
// density 1/(2r)³ as AddFluidBlock's), without the lattice's order:
//
//   - random sequential addition: uniform random positions, each kept if it is at least 0.8
//     spacings from every kept one (isotropic, no close pairs; 0.8 is well below the jamming
//     limit of random sequential addition at this number density, about 0.9);
//   - then 600 steps of gradient descent on E = Σ_{i<j} W(|x_i − x_j|) with the world's kernel
//     (cubic spline, support 4r), periodic in x and z with period P and with two fixed sample
//     layers of each plate on the lattice (y = 0, −2r; H, H + 2r): every particle moves along
//     −∇_i E, which evens out the kernel sum (the SPH density) without a preferred direction.
//     The first step moves the most pushed particle by 0.05 spacings, the later ones keep that
//     factor (at most 0.1 spacings per step).
//
// The world's own pressure solve does not do this: with the block's free surfaces its pressure
// is clamped at zero where the density is low, and a close pair in an evenly dense
// neighbourhood feels no pressure gradient (the cubic spline's gradient vanishes at r → 0).
func disorderedChannelPacking(seed uint64) []mgl64.Vec3 {
	sp := 2 * pfR
	h := 4 * pfR
	nL := int(math.Round(pwL/sp)) - 1
	ny := int(math.Round(pfGap/sp)) - 1
	P := float64(nL) * sp
	o := sp / 2
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]mgl64.Vec3, 0, nL*ny*nL)
	for len(x) < nL*ny*nL {
		p := mgl64.Vec3{o + P*rng.Float64(), o + float64(ny)*sp*rng.Float64(), o + P*rng.Float64()}
		ok := true
		for _, q := range x {
			if d := p.Sub(q); d.Dot(d) < 0.64*sp*sp {
				ok = false
				break
			}
		}
		if ok {
			x = append(x, p)
		}
	}
	var wall []mgl64.Vec3
	for i := 0; i < nL; i++ {
		for k := 0; k < nL; k++ {
			for _, y := range []float64{0, -sp, pfGap, pfGap + sp} {
				wall = append(wall, mgl64.Vec3{o + float64(i)*sp, y, o + float64(k)*sp})
			}
		}
	}
	kr := physics.NewKernel(physics.CubicSpline, h)
	img := func(d float64) float64 { return d - P*math.Round(d/P) }
	nc := int(P / h) // cells per periodic axis, each at least one support wide
	cw := P / float64(nc)
	nyc := int((pfGap+4*sp)/h) + 1
	cell := func(p mgl64.Vec3) (int, int, int) {
		a := (int(math.Floor((p[0]-o)/cw))%nc + nc) % nc
		c := (int(math.Floor((p[2]-o)/cw))%nc + nc) % nc
		return a, min(max(int(math.Floor((p[1]+2*sp)/h)), 0), nyc-1), c
	}
	f := make([]mgl64.Vec3, len(x))
	all := make([]mgl64.Vec3, 0, len(x)+len(wall))
	cells := make([][]int32, nc*nyc*nc)
	coef := 0.0
	for it := 0; it < 600; it++ {
		all = append(append(all[:0], x...), wall...)
		for k := range cells {
			cells[k] = cells[k][:0]
		}
		for j, p := range all {
			a, b, c := cell(p)
			cells[(a*nyc+b)*nc+c] = append(cells[(a*nyc+b)*nc+c], int32(j))
		}
		fmax := 0.0
		for i := range x {
			var fi mgl64.Vec3
			a, b, c := cell(x[i])
			for da := -1; da <= 1; da++ {
				for db := max(b-1, 0); db <= min(b+1, nyc-1); db++ {
					for dc := -1; dc <= 1; dc++ {
						for _, j := range cells[((((a+da)%nc+nc)%nc)*nyc+db)*nc+((c+dc)%nc+nc)%nc] {
							q := all[j]
							d := mgl64.Vec3{img(x[i][0] - q[0]), x[i][1] - q[1], img(x[i][2] - q[2])}
							if l := d.Len(); l > 0 && l < h {
								fi = fi.Sub(d.Mul(kernelDW(kr, l) / l))
							}
						}
					}
				}
			}
			f[i] = fi
			fmax = max(fmax, fi.Len())
		}
		if it == 0 {
			coef = 0.05 * sp / fmax
		}
		for i := range x {
			d := f[i].Mul(coef)
			if l := d.Len(); l > 0.1*sp {
				d = d.Mul(0.1 * sp / l)
			}
			p := x[i].Add(d)
			p[0] = o + math.Mod(math.Mod(p[0]-o, P)+P, P)
			p[2] = o + math.Mod(math.Mod(p[2]-o, P)+P, P)
			p[1] = min(max(p[1], o), pfGap-o)
			x[i] = p
		}
	}
	return x
}

// kernelW and kernelDW are Monaghan's cubic spline with support h (the world's CubicSpline)
// and its derivative dW/dr, in float64.
func kernelW(kr physics.Kernel, r float64) float64 {
	h := kr.H
	q := r / h
	k := 8 / (math.Pi * h * h * h)
	switch {
	case q <= 0.5:
		return k * (6*(q*q*q-q*q) + 1)
	case q < 1:
		return k * 2 * (1 - q) * (1 - q) * (1 - q)
	}
	return 0
}

func kernelDW(kr physics.Kernel, r float64) float64 {
	h := kr.H
	q := r / h
	k := 48 / (math.Pi * h * h * h * h)
	switch {
	case q <= 0.5:
		return k * (3*q*q - 2*q)
	case q < 1:
		return -k * (1 - q) * (1 - q)
	}
	return 0
}

// operatorShearResponse evaluates the viscosity operator's pair formula (docs/viscosity.md:
// 2(d+2) Σ_j V_ij ((v_i − v_j)·x_ij)/(|x_ij|² + 0.01h²) ∇W_ij, V_ij = 2m/(ρ_i + ρ_j), ρ the
// kernel sum at rest density 1000 kg/m³ and mass ρ0(2r)³) on the plane shear
// v = x̂ (y − y_i)²/2, whose exact Laplacian is x̂, and returns its mean x-component over the
// particles at least 2.5 spacings from both plates within 0.04 m of the block's centre in x
// and z: the channel's interior response ν_eff/ν if the flow field were the smooth parabola.
func operatorShearResponse(x []mgl64.Vec3) float64 {
	sp := 2 * pfR
	kr := physics.NewKernel(physics.CubicSpline, 4*pfR)
	h := kr.H
	m := 1000 * sp * sp * sp
	c := mgl64.Vec3{}
	for _, p := range x {
		c = c.Add(p)
	}
	c = c.Mul(1 / float64(len(x)))
	near := func(p mgl64.Vec3, w float64) bool {
		return math.Abs(p[0]-c[0]) <= w && math.Abs(p[2]-c[2]) <= w
	}
	rho := make([]float64, len(x))
	for i := range x {
		if !near(x[i], 0.04+h) {
			continue
		}
		for j := range x {
			rho[i] += m * kernelW(kr, x[i].Sub(x[j]).Len())
		}
	}
	sum, n := 0.0, 0
	for i := range x {
		if !near(x[i], 0.04) || x[i][1] < 2.5*sp || x[i][1] > pfGap-2.5*sp {
			continue
		}
		r := 0.0
		for j := range x {
			d := x[i].Sub(x[j])
			l := d.Len()
			if l == 0 || l >= h {
				continue
			}
			// v_i = 0, v_j = x̂ d_y²/2
			r += 10 * 2 * m / (rho[i] + rho[j]) * (-d[1] * d[1] / 2 * d[0]) / (l*l + 0.01*h*h) * kernelDW(kr, l) / l * d[0]
		}
		sum += r
		n++
	}
	return sum / float64(n)
}

// wideChannelWorld builds the wide channel: oil of viscosity nu between a floor at y = 0 and
// a ceiling at y = pfGap, both with plate drag nuB, gravity gx along x, the ceiling sliding
// along x at ceilU (a kinematic wall; 0: at rest), the fluid from the given particles (nil:
// AddFluidBlock's lattice), the implicit viscosity at substeps of at most 5 ms. It returns the
// world, the fluid and its initial positions.
func wideChannelWorld(t *testing.T, x []mgl64.Vec3, nu, gx, ceilU, nuB float64) (*sluice.World, sluice.Entity, []mgl64.Vec3) {
	s := components.DefaultSolver()
	s.ParticleRadius = pfR
	s.Gravity = mgl64.Vec3{gx, 0, 0}
	s.ViscositySolver = "implicit"
	s.ViscosityMaxError = 1e-4
	s.DtMax = 0.005
	s.DomainMin, s.DomainMax = mgl64.Vec3{-0.5, -0.1, -0.5}, mgl64.Vec3{1.2, 0.3, 0.9}
	w, err := sluice.NewWorld(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	floor, err := w.AddBoundaryRect("floor", mgl64.Vec3{-0.1, 0, -0.1}, mgl64.Vec3{0, 0, pwL + 0.2}, mgl64.Vec3{pwL + 0.3, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	ceil, err := w.AddBoundaryRect("ceiling", mgl64.Vec3{-0.1, pfGap, -0.1}, mgl64.Vec3{pwL + 0.3, 0, 0}, mgl64.Vec3{0, 0, pwL + 0.2})
	if err != nil {
		t.Fatal(err)
	}
	w.Material(floor).Drag, w.Material(ceil).Drag = nuB, nuB
	if ceilU != 0 {
		if err := w.SetMotion(ceil, components.Motion{Path: []components.MotionKey{{Until: 1e3, Velocity: mgl64.Vec3{ceilU, 0, 0}}}}); err != nil {
			t.Fatal(err)
		}
	}
	m := components.DefaultMaterial()
	m.Viscosity = nu
	var e sluice.Entity
	if x == nil {
		e, err = w.AddFluidBlock("oil", m, mgl64.Vec3{}, mgl64.Vec3{pwL, pfGap, pwL}, mgl64.Vec3{})
	} else {
		e, err = w.AddFluidParticles("oil", m, x, make([]mgl64.Vec3, len(x)))
	}
	if err != nil {
		t.Fatal(err)
	}
	return w, e, append([]mgl64.Vec3(nil), w.Particles(e).X...)
}

// runChannel steps the channel for 50 ms and returns its substeps and the last step's stats.
func runChannel(t *testing.T, w *sluice.World) (substeps int, st sluice.StepStats) {
	for w.Time() < 3*frame-1e-9 {
		var err error
		if st, err = w.Step(frame); err != nil {
			t.Fatal(err)
		}
		substeps += st.Substeps
	}
	return substeps, st
}

// centralColumn returns the distances from the floor and the speeds along x of the fluid's
// particles within pwHW of the column through its mean x and the channel's middle in z.
func centralColumn(w *sluice.World, e sluice.Entity) (y, u []float64) {
	p := w.Particles(e)
	cx := 0.0
	for _, q := range p.X {
		cx += q[0]
	}
	cx /= float64(p.Len())
	for i, q := range p.X {
		if math.Abs(q[0]-cx) <= pwHW && math.Abs(q[2]-pwL/2) <= pwHW {
			y = append(y, q[1])
			u = append(u, p.V[i][0])
		}
	}
	return y, u
}

// wideChannel runs the wide channel with the implicit viscosity for 50 ms from the given
// particles (nil: AddFluidBlock's lattice), driven by gravity between plates at rest, and
// returns the central column's distances from the floor and speeds along x, the substeps,
// the last step's stats and the initial positions.
func wideChannel(t *testing.T, x []mgl64.Vec3, nu float64) (y, u []float64, substeps int, st sluice.StepStats, x0 []mgl64.Vec3) {
	w, e, x0 := wideChannelWorld(t, x, nu, pfG, 0, pfNu)
	defer w.Close()
	substeps, st = runChannel(t, w)
	y, u = centralColumn(w, e)
	return y, u, substeps, st, x0
}

// TestPoiseuillePacking: plane Poiseuille flow with the implicit viscosity at over 100 times
// the explicit limit in a channel wide enough that its free sides leave the central column
// alone, once from the world's lattice and once from a disordered, isotropic packing
// (disorderedChannelPacking) of the same number density. It asserts that
//   - on the lattice the fitted interior viscosity ν_eff = g/(2B) (fit u = A + B y(H − y),
//     poiseuilleFit) is the operator's response to a lattice-aligned plane shear on the same
//     particles (0.698 ν) within packedLatticeTol: the solve's steady state is the discrete
//     operator's, and the excess over the closed form g y(H − y)/(2ν) is the lattice's;
//   - the disordered packing brings the worst height bin at least packedGain times closer to
//     the closed form.
//
// The disordered packing does not meet the closed form within 5 % (issue 17): its profile,
// slip, ν_eff and the operator's mean response on it are logged (docs/viscosity.md).
func TestPoiseuillePacking(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("wide Poiseuille channel on two packings: long (skipped under -short and the race detector)")
	}
	t.Parallel()
	kr := physics.NewKernel(physics.CubicSpline, 4*pfR)
	lim := kr.ViscousDtLimit(2*pfR, components.DefaultSolver().BoundaryLayers, pfNu, pfNu)
	umax := pfG * pfGap * pfGap / (8 * pfNu)
	disordered := disorderedChannelPacking(17)
	var worst, nuEff [2]float64
	for k, c := range []struct {
		name string
		x    []mgl64.Vec3
	}{{"lattice", nil}, {"disordered", disordered}} {
		y, u, n, st, x := wideChannel(t, c.x, pfNu)
		resp := operatorShearResponse(x)
		if st.Dt/lim < 100 {
			t.Fatalf("%s: the substep %.3g s is %.0f× the explicit limit, want ≥ 100", c.name, st.Dt, st.Dt/lim)
		}
		t.Logf("%s packing (%d particles), %d in the column:", c.name, len(x), len(y))
		a, b, w := poiseuilleFit(t, y, u)
		worst[k], nuEff[k] = w, pfG/(2*pfNu)/b
		t.Logf("  %d substeps (last %.3g s, %.0f× the explicit limit), %.1f CG iterations; worst bin %+.1f %% of u_max; slip A = %+.1f %% of u_max; ν_eff/ν = %.3f; the operator's plane-shear response on the packing %.3f",
			n, st.Dt, st.Dt/lim, st.ViscosityIterations, 100*w, 100*a/umax, nuEff[k], resp)
		if k == 0 {
			if d := nuEff[0]/resp - 1; math.Abs(d) > packedLatticeTol {
				t.Errorf("lattice: ν_eff/ν = %.3f differs from the operator's response %.3f by %+.1f %%, want within %g %%", nuEff[0], resp, 100*d, 100*packedLatticeTol)
			}
		}
	}
	if worst[1]*packedGain > worst[0] {
		t.Errorf("the disordered packing's worst bin is %.1f %% of u_max, the lattice's %.1f %%: want at least %g times closer", 100*worst[1], 100*worst[0], packedGain)
	}
}
