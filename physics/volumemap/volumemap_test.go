package volumemap

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// kinkErr is the largest error of the 1-D Catmull-Rom interpolant of |s| on a unit grid:
// with nodes at −1, 0, 1, 2 it is 2t² − t³ on [0, 1], off t by t(1 − t)², at most 4/27 at
// t = 1/3. A distance field is linear except across kinks (slope jump at most 2, where two
// walls are equally near) and near convex edges and corners, so 4/27 of a cell bounds the
// error of its interpolant where the stencil sees a kink.
const kinkErr = 4.0 / 27

func mustBuild(t testing.TB, vs []physics.Vec3, ts [][3]int32, o Options, pool *par.Pool) *Map {
	t.Helper()
	m, err := Build(vs, ts, o, pool)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBallWeights(t *testing.T) {
	// The weights integrate the Catmull-Rom interpolant over the ball exactly; the interpolant
	// reproduces quadratics (Keys 1981), so Σ w_k k_z² must equal ∫_ball u_z² du = 4π rc⁵/15
	// and Σ w_k k_x must vanish. The final rescaling fixes only Σ w_k, so this checks the
	// quadrature itself; the rule is exact to round-off for these moments, 1e-12 allows for
	// the sums' rounding.
	const tolMoment = 1e-12
	// Each weight converges as panels⁻³ (the integrand is C¹): the default rule must agree with
	// one four times finer to 1e-5 (weights are ≲ 1), two orders below the accuracy of V
	// (1e-3 of the full volume).
	const tolWeight = 1e-5
	for _, rc := range []float64{2, 3, 2.5} {
		w, K := ballWeights(rc)
		n := 2*K + 1
		m2, m1 := 0.0, 0.0
		for k3 := -K; k3 <= K; k3++ {
			for k2 := -K; k2 <= K; k2++ {
				for k1 := -K; k1 <= K; k1++ {
					v := w[k1+K+n*(k2+K+n*(k3+K))]
					m2 += v * float64(k3*k3)
					m1 += v * float64(k1)
				}
			}
		}
		want := 4 * math.Pi * math.Pow(rc, 5) / 15
		if math.Abs(m2/want-1) > tolMoment || math.Abs(m1) > tolMoment*want {
			t.Errorf("rc = %g: Σw k_z² = %.15g, want %.15g; Σw k_x = %g, want 0", rc, m2, want, m1)
		}
		fine, _ := ballWeightsN(rc, 4*ballPanels)
		for i := range w {
			if math.Abs(w[i]-fine[i]) > tolWeight {
				t.Errorf("rc = %g: weight %d = %.9g with %d panels, %.9g with %d", rc, i, w[i], ballPanels, fine[i], 4*ballPanels)
				break
			}
		}
	}
}

// TestTankPhi checks φ of the DamBreakModel tank (inverted) and of the same box as an
// obstacle against the closed-form box distance at 2000 random points within 2H of the walls
// and 2000 anywhere in the map (tolerance kinkErr·dx, see there) and, on the floor's middle
// where φ is linear and the interpolant reproduces it, to round-off (1e-12 m).
func TestTankPhi(t *testing.T) {
	vs, ts, o := tank(t)
	half := physics.Vec3{2, 1.5, 0.75}
	for _, inv := range []bool{true, false} {
		o.Invert = inv
		m := mustBuild(t, vs, ts, o, nil)
		_, dx, _ := m.Grid()
		ephi, _, _ := tankErrors(m, half, 2)
		if ephi*o.H > kinkErr*dx {
			t.Errorf("invert=%v: max |φ − φ_box| = %.4g m, want ≤ %.4g m (4/27 of a cell)", inv, ephi*o.H, kinkErr*dx)
		}
		// Everywhere in the map, not only near the walls, φ is the signed distance.
		rng := rand.New(rand.NewSource(5))
		blo, bhi := m.Bounds()
		for i := 0; i < 2000; i++ {
			var p physics.Vec3
			for d := 0; d < 3; d++ {
				p[d] = blo[d] + rng.Float64()*(bhi[d]-blo[d])
			}
			exact := boxSDF(p, half)
			if inv {
				exact = -exact
			}
			if phi, _, _, ok := m.At(p); !ok || math.Abs(phi-exact) > kinkErr*dx {
				t.Fatalf("invert=%v: φ(%v) = %.5g (ok=%v), want %.5g ± %.3g", inv, p, phi, ok, exact, kinkErr*dx)
			}
		}
		sign := 1.0
		if !inv {
			sign = -1
		}
		for _, d := range []float64{-0.2, -0.07, 0, 0.013, 0.05, 0.19} {
			p := physics.Vec3{0.0123, -0.0217, -half[2] + d}
			phi, _, _, ok := m.At(p)
			if !ok || math.Abs(phi-sign*d) > 1e-12 {
				t.Errorf("invert=%v: φ %.3g m above the floor = %.15g (ok=%v), want %g", inv, d, phi, ok, sign*d)
			}
		}
	}
}

// TestPlaneVolume checks V at the middle of the tank's floor, far from its edges, for
// d ∈ [0, 2H] above it, two ways.
//
// Against the same discretisation redone in 1-D: the floor lies on a grid plane, so the map's V
// there is the Catmull-Rom interpolant (in d) of node values V_k = factor·∫_{−H}^{H} Iγ(k·dx +
// t)·π(H² − t²) dt, with Iγ the 1-D Catmull-Rom interpolant of γ's node values (exact values
// 0 for k·dx ≥ 2H, full for k·dx ≤ −H, as Build takes them). The integrand is a polynomial on
// each of the 8·2H/dx panels used here, so 4-point Gauss is exact and the 3-D ball weights
// are the only approximation: tolerance 1e-6 of the full volume (TestBallWeights' accuracy).
//
// Against the exact V(d) = factor·∫_{−H}^{H} γ(d + t)·π(H² − t²) dt: the discretisation error
// at the default cell size, measured 0.75 % of the full volume with the cubic spline and
// 0.91 % with Wendland C2 (the interpolant of γ misses its curvature jump at φ = 0); tolerance
// 1 % of the full volume, the accuracy the package doc states.
func TestPlaneVolume(t *testing.T) {
	for _, k := range []physics.KernelKind{physics.CubicSpline, physics.WendlandC2} {
		t.Run(k.String(), func(t *testing.T) { testPlaneVolume(t, k) })
	}
}

func testPlaneVolume(t *testing.T, kind physics.KernelKind) {
	vs, ts, o := tank(t)
	o.Kernel = kind
	m := mustBuild(t, vs, ts, o, nil)
	_, dx, _ := m.Grid()
	kr := physics.NewKernel(o.Kernel, o.H)
	full := m.FullVolume()
	iGamma := func(s float64) float64 {
		i := math.Floor(s/dx + 1e-9)
		w, _ := crWeights(s/dx - i)
		v := 0.0
		for q := 0; q < 4; q++ {
			v += w[q] * gammaRef(&kr, (i+float64(q)-1)*dx)
		}
		return v
	}
	node := func(k int) float64 {
		d := float64(k) * dx
		switch {
		case d >= 2*o.H-1e-12:
			return 0
		case d <= -o.H+1e-12:
			return full
		}
		panels := int(math.Round(8 * 2 * o.H / dx))
		hp := 2 * o.H / float64(panels)
		s := 0.0
		for p := 0; p < panels; p++ {
			for _, g := range gauss4 {
				u := -o.H + hp*(float64(p)+0.5+0.5*g[0])
				s += 0.5 * hp * g[1] * iGamma(d+u) * math.Pi * (o.H*o.H - u*u)
			}
		}
		return o.VolumeFactor * s
	}
	model := func(d float64) float64 {
		i := math.Floor(d/dx + 1e-9)
		w, _ := crWeights(d/dx - i)
		v := 0.0
		for q := 0; q < 4; q++ {
			v += w[q] * node(int(i)+q-1)
		}
		return min(max(v, 0), full)
	}
	worst, worstModel := 0.0, 0.0
	for i := 0; i <= 40; i++ {
		d := 2 * o.H * float64(i) / 40
		_, v, _, _ := m.At(physics.Vec3{0.0123, -0.0217, -0.75 + d})
		if e := math.Abs(v - model(d)); e > 1e-6*full {
			t.Errorf("d = %.4f m: V = %.9g m³, the 1-D model of the discretisation gives %.9g", d, v, model(d))
		}
		worstModel = max(worstModel, math.Abs(v-model(d)))
		want := planeVolume(&kr, o.VolumeFactor, d)
		worst = max(worst, math.Abs(v-want))
		if math.Abs(v-want) > 0.01*full {
			t.Errorf("d = %.4f m: V = %.6g m³, want %.6g ± 1 %% of %.4g", d, v, want, full)
		}
	}
	t.Logf("max |V − V_plane| = %.3g of the full volume; max |V − 1-D model| = %.3g of it", worst/full, worstModel/full)
	// Deep in the solid V is the full factor·4πH³/3 (to round-off); at φ ≥ 2H + 2√3·dx every
	// stencil node holds the exact V = 0.
	ball := o.VolumeFactor * 4 * math.Pi * math.Pow(o.H, 3) / 3
	if _, v, _, _ := m.At(physics.Vec3{0.3, 0.2, -0.75 - 2*o.H}); math.Abs(v-ball) > 1e-12*ball {
		t.Errorf("V deep in the wall = %.15g m³, want %.15g", v, ball)
	}
	for _, d := range []float64{2*o.H + 2*math.Sqrt(3)*dx, 0.5, 0.7} {
		if _, v, _, _ := m.At(physics.Vec3{0.3, 0.2, -0.75 + d}); v != 0 {
			t.Errorf("V at φ = %.3g m = %g m³, want 0", d, v)
		}
	}
}

// TestNormal checks n on the floor (the face normal to 1e-12 rad: φ is linear there) and its
// continuity: n at points a small step on either side of a cell face differs by O(step), so
// halving the step must at least halve the jump (a trilinear gradient jumps by O(1)).
func TestNormal(t *testing.T) {
	vs, ts, o := tank(t)
	m := mustBuild(t, vs, ts, o, nil)
	for _, d := range []float64{0.01, 0.05, 0.15} {
		_, _, n, _ := m.At(physics.Vec3{0.31, -0.2, -0.75 + d})
		if a := math.Acos(min(1, n[2])); a > 1e-12 {
			t.Errorf("n at %g m above the floor = %v, %.3g rad from +z", d, n, a)
		}
	}
	// Outside the same box as an obstacle, next to its edge x = 2, z = 0.75, φ is the distance
	// to the edge, curved with radius ≈ 0.08 m; probe across the cell face x = lo + i·dx
	// nearest x = 2.05.
	o.Invert = false
	m = mustBuild(t, vs, ts, o, nil)
	lo, dx, _ := m.Grid()
	xf := lo[0] + math.Round((2.05-lo[0])/dx)*dx
	jump := func(step float64) float64 {
		_, _, na, _ := m.At(physics.Vec3{xf - step, 0.11, 0.81})
		_, _, nb, _ := m.At(physics.Vec3{xf + step, 0.11, 0.81})
		return physics.Norm(na.Sub(nb))
	}
	j1, j2 := jump(1e-4*dx), jump(0.5e-4*dx)
	if !(j2 <= 0.55*j1) || j1 > 1e-2 {
		t.Errorf("normal jump across a cell face: %.3g at step 1e-4·dx, %.3g at half the step; want O(step)", j1, j2)
	}
	// The probe must see a curved φ, or the check is void: n there points between +x and +z.
	_, _, n, _ := m.At(physics.Vec3{xf, 0.11, 0.81})
	if n[0] < 0.3 || n[2] < 0.3 {
		t.Errorf("probe point sees n = %v, not the edge's curved φ", n)
	}
	t.Logf("normal jump across a cell face: %.3g at step 1e-4·dx, %.3g at half; n = %v", j1, j2, n)
}

// TestSphere checks φ of the reference's sphere.obj (radius 1, 760 triangles) against
// |x| − 1: the mesh lies inside the sphere by at most the largest gap between a triangle and
// the sphere (computed here from the vertices), and the interpolant adds at most kinkErr·dx
// (inside, φ of the facetted sphere has kinks where two facets are equally near). The normal
// of a facetted sphere's distance field deviates from the radial direction by up to the
// largest angle between a facet's normal and its corners' directions (computed here); 10 %
// more allows for the interpolant's gradient error.
func TestSphere(t *testing.T) {
	vs, ts := readOBJ(t, modelsDir+"/sphere.obj")
	sag := 0.0
	for _, tr := range ts {
		a, b, c := vs[tr[0]], vs[tr[1]], vs[tr[2]]
		n := b.Sub(a).Cross(c.Sub(a)).Normalize()
		sag = max(sag, 1-math.Abs(a.Dot(n)), math.Abs(physics.Norm(a)-1))
	}
	o := DefaultOptions(0.1, 0.025)
	m := mustBuild(t, vs, ts, o, nil)
	_, dx, _ := m.Grid()
	tol := sag + kinkErr*dx
	rng := rand.New(rand.NewSource(3))
	worst, minDot, facet := 0.0, 1.0, 0.0 // facet: the largest facet-to-corner angle (rad)
	for _, tr := range ts {
		n := vs[tr[1]].Sub(vs[tr[0]]).Cross(vs[tr[2]].Sub(vs[tr[0]])).Normalize()
		for _, v := range tr {
			facet = max(facet, math.Acos(min(1, n.Dot(vs[v].Normalize()))))
		}
	}
	for i := 0; i < 2000; i++ {
		dir := physics.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		r := 1 + (2*rng.Float64()-1)*2*o.H
		phi, _, n, ok := m.At(dir.Mul(r))
		if !ok {
			t.Fatalf("point at radius %g outside the map", r)
		}
		worst = max(worst, math.Abs(phi-(r-1)))
		minDot = min(minDot, n.Dot(dir))
		if math.Abs(phi-(r-1)) > tol || math.Acos(min(1, n.Dot(dir))) > 1.1*facet {
			t.Fatalf("radius %.4f: φ = %.5f, want %.5f ± %.4f; n·r̂ = %.4f, want ≥ cos(1.1·%.4f)", r, phi, r-1, tol, n.Dot(dir), facet)
		}
	}
	t.Logf("sphere: max |φ − (|x| − 1)| = %.3g m (tessellation gap %.3g m, bound %.3g m), min n·r̂ %.5f, facet angle %.4f", worst, sag, tol, minDot, facet)
}

func TestBadInput(t *testing.T) {
	vs, ts := boxMesh(physics.Vec3{1, 1, 1})
	o := DefaultOptions(0.1, 0.025)
	flip := func(ts [][3]int32) [][3]int32 {
		out := make([][3]int32, len(ts))
		for i, tr := range ts {
			out[i] = [3]int32{tr[0], tr[2], tr[1]}
		}
		return out
	}
	oneFlipped := append([][3]int32{}, ts...)
	oneFlipped[3] = [3]int32{ts[3][0], ts[3][2], ts[3][1]}
	nanV := append([]physics.Vec3{}, vs...)
	nanV[2][1] = math.NaN()
	degen := append([][3]int32{}, ts...)
	degen[0] = [3]int32{0, 0, 1}
	bad := func(f func(*Options)) Options { c := o; f(&c); return c }
	for _, c := range []struct {
		name string
		vs   []physics.Vec3
		ts   [][3]int32
		o    Options
		want string
	}{
		{"open", vs, ts[:11], o, "not closed"},
		{"inside out", vs, flip(ts), o, "counter-clockwise"},
		{"one triangle flipped", vs, oneFlipped, o, "same direction"},
		{"NaN vertex", nanV, ts, o, "not finite"},
		{"index out of range", vs, append(append([][3]int32{}, ts[:11]...), [3]int32{0, 1, 8}), o, "outside [0, 8)"},
		{"degenerate triangle", vs, degen, o, "degenerate"},
		{"empty", nil, nil, o, "at least 4"},
		{"H ≤ 0", vs, ts, bad(func(o *Options) { o.H = 0 }), "support radius"},
		{"R > H", vs, ts, bad(func(o *Options) { o.R = 0.2 }), "particle radius"},
		{"cell too small", vs, ts, bad(func(o *Options) { o.Cell = 0.01 }), "cell size"},
		{"factor 0", vs, ts, bad(func(o *Options) { o.VolumeFactor = 0 }), "volume factor"},
		{"kernel", vs, ts, bad(func(o *Options) { o.Kernel = 7 }), "kernel"},
		{"too many nodes", scaled(vs, physics.Vec3{1e4, 1e4, 1e4}), ts, o, "grid nodes"},
		{"absurd scale", scaled(vs, physics.Vec3{1e100, 1e100, 1e100}), ts, o, "grid nodes"},
	} {
		_, err := Build(c.vs, c.ts, c.o, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

func TestWorkersDeterministic(t *testing.T) {
	vs, ts := readOBJ(t, modelsDir+"/torus.obj")
	o := DefaultOptions(0.1, 0.025)
	m1 := mustBuild(t, vs, ts, o, nil)
	pool := par.NewPool(2)
	defer pool.Close()
	m2 := mustBuild(t, vs, ts, o, pool)
	if len(m1.nodes) != len(m2.nodes) {
		t.Fatal("grids differ")
	}
	for i := range m1.nodes {
		if math.Float64bits(m1.nodes[i]) != math.Float64bits(m2.nodes[i]) {
			t.Fatalf("node %d, field %d: 1 worker %v, 2 workers %v", i/2, i%2, m1.nodes[i], m2.nodes[i])
		}
	}
}

func TestAtDoesNotAllocate(t *testing.T) {
	vs, ts := boxMesh(physics.Vec3{0.5, 0.5, 0.5})
	m := mustBuild(t, vs, ts, DefaultOptions(0.1, 0.025), nil)
	x := physics.Vec3{0.52, 0.1, -0.2}
	if a := testing.AllocsPerRun(100, func() { m.At(x); m.Boundary(x) }); a != 0 {
		t.Errorf("At and Boundary allocate %v times per call", a)
	}
}

// TestAtVectorEqualsLoop: At with the AVX2 stencil gives the Go loop's φ, V and normal bit
// for bit at 5000 random points in and around a box (where the processor has AVX2).
func TestAtVectorEqualsLoop(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this processor or build: At uses the Go loop only")
	}
	vs, ts := boxMesh(physics.Vec3{0.5, 0.3, 0.4})
	m := mustBuild(t, vs, ts, DefaultOptions(0.1, 0.025), nil)
	rng := rand.New(rand.NewSource(17))
	defer func() { useAVX2 = true }()
	for q := 0; q < 5000; q++ {
		x := physics.Vec3{1.4 * (2*rng.Float64() - 1), 1.2 * (2*rng.Float64() - 1), 1.3 * (2*rng.Float64() - 1)}
		var got [2][6]float64
		var in [2]bool
		for v, vector := range []bool{false, true} {
			useAVX2 = vector
			phi, vol, n, ok := m.At(x)
			got[v], in[v] = [6]float64{phi, vol, n[0], n[1], n[2]}, ok
		}
		if in[0] != in[1] {
			t.Fatalf("At(%v): inside %v (loop) against %v (vector)", x, in[0], in[1])
		}
		for k := range got[0] {
			if math.Float64bits(got[0][k]) != math.Float64bits(got[1][k]) {
				t.Fatalf("At(%v): loop %v, vector %v", x, got[0], got[1])
			}
		}
	}
}

// TestBoundary checks the virtual particle's placement over the floor: x_b = x − max(φ + R/2,
// 2R)·n with n = +z, to round-off, and no particle at φ ≥ H.
func TestBoundary(t *testing.T) {
	vs, ts, o := tank(t)
	m := mustBuild(t, vs, ts, o, nil)
	for _, d := range []float64{0.01, 0.04, 0.09} {
		x := physics.Vec3{0.2, 0.1, -0.75 + d}
		xb, v, ok := m.Boundary(x)
		want := x[2] - max(d+o.R/2, 2*o.R)
		if !ok || v <= 0 || math.Abs(xb[2]-want) > 1e-12 || math.Abs(xb[0]-x[0]) > 1e-12 || math.Abs(xb[1]-x[1]) > 1e-12 {
			t.Errorf("d = %g: x_b = %v (ok=%v, V=%g), want z = %g", d, xb, ok, v, want)
		}
	}
	if _, _, ok := m.Boundary(physics.Vec3{0.2, 0.1, -0.75 + 0.11}); ok {
		t.Error("a particle beyond H from the wall got a boundary particle")
	}
}

// segmentDist2 is the squared distance from p to the segment [a, b].
func segmentDist2(p, a, b physics.Vec3) float64 {
	ab := b.Sub(a)
	u := min(max(p.Sub(a).Dot(ab)/ab.Dot(ab), 0), 1)
	return physics.Dist2(p, a.Add(ab.Mul(u)))
}

// triangleDist is the distance from p to triangle (a, b, c) the plain way: to the plane when
// p projects inside the triangle (all three edge tests agree with the normal), else to the
// nearest of the three edges.
func triangleDist(p, a, b, c physics.Vec3) float64 {
	n := b.Sub(a).Cross(c.Sub(a)).Normalize()
	q := p.Sub(n.Mul(p.Sub(a).Dot(n)))
	if b.Sub(a).Cross(q.Sub(a)).Dot(n) >= 0 && c.Sub(b).Cross(q.Sub(b)).Dot(n) >= 0 && a.Sub(c).Cross(q.Sub(c)).Dot(n) >= 0 {
		return math.Abs(p.Sub(a).Dot(n))
	}
	return math.Sqrt(min(segmentDist2(p, a, b), segmentDist2(p, b, c), segmentDist2(p, c, a)))
}

// dentedBox is the box [-½, ½]³ with its top face's middle pushed down to z = 0.1: a concave
// vertex and four concave edges, the features where a wrong pseudo-normal gives a wrong sign.
func dentedBox() ([]physics.Vec3, [][3]int32) {
	vs, ts := boxMesh(physics.Vec3{0.5, 0.5, 0.5})
	vs = append(vs, physics.Vec3{0, 0, 0.1})
	out := [][3]int32{}
	for _, tr := range ts {
		if vs[tr[0]][2] > 0 && vs[tr[1]][2] > 0 && vs[tr[2]][2] > 0 {
			continue // the flat top, replaced by the fan below
		}
		out = append(out, tr)
	}
	return vs, append(out, [3]int32{8, 4, 5}, [3]int32{8, 5, 7}, [3]int32{8, 7, 6}, [3]int32{8, 6, 4})
}

// TestSignedDistance checks the mesh distance query itself on the reference's torus.obj
// (saddle-shaped vertices on its inner ring) and on a dented box (sharp concave vertex and
// edges), at points scattered around the vertices, where the nearest feature is often a
// vertex or an edge, the cases the pseudo-normals decide: |d| equals the minimum over all
// triangles of a plainly computed point–triangle distance to round-off (1e-12 m), and the sign
// matches the generalized winding number, Σ of the triangles' solid angles / 4π (Van
// Oosterom & Strackee 1983), an independent inside test.
func TestSignedDistance(t *testing.T) {
	tv, tt := readOBJ(t, modelsDir+"/torus.obj")
	dv, dt := dentedBox()
	for _, c := range []struct {
		name   string
		vs     []physics.Vec3
		ts     [][3]int32
		spread float64
	}{{"torus", tv, tt, 0.03}, {"dented box", dv, dt, 0.1}} {
		ms, err := newMesh(c.vs, c.ts)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewSource(4))
		for i := 0; i < 3000; i++ {
			p := c.vs[rng.Intn(len(c.vs))].Add(physics.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(c.spread))
			d, _ := ms.signedDistance(p, -1)
			plain, wind := math.Inf(1), 0.0
			for _, tr := range c.ts {
				a, b, e := c.vs[tr[0]], c.vs[tr[1]], c.vs[tr[2]]
				plain = min(plain, triangleDist(p, a, b, e))
				a, b, e = a.Sub(p), b.Sub(p), e.Sub(p)
				la, lb, le := physics.Norm(a), physics.Norm(b), physics.Norm(e)
				wind += 2 * math.Atan2(a.Dot(b.Cross(e)), la*lb*le+a.Dot(b)*le+a.Dot(e)*lb+b.Dot(e)*la)
			}
			inside := wind/(4*math.Pi) > 0.5
			if math.Abs(math.Abs(d)-plain) > 1e-12 || (d < 0) != inside {
				t.Fatalf("%s, point %v: d = %.6g, plain |d| = %.6g, winding number %.4f", c.name, p, d, plain, wind/(4*math.Pi))
			}
		}
	}
}
