package reduced

import (
	"math"
	"math/rand"
	"testing"
)

// TestPanelVelocityMatchesPointVortexIntegral checks Eq. 5.11 against the brute-force integral
// of counter-clockwise point vortices γ ds along the panel (64-point Gauss–Legendre on 8
// sub-intervals), at points around and near the panel.
func TestPanelVelocityMatchesPointVortexIntegral(t *testing.T) {
	// kernelTol: the composite rule resolves the kernel to ~1e-12 at distances ≥ l/10.
	const kernelTol = 1e-9
	ox, oy, l := 0.3, -0.2, 0.17
	th := 0.7
	tx, ty := math.Cos(th), math.Sin(th)
	gamma := 1.3
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 50; trial++ {
		px, py := ox+rng.Float64()*0.6-0.2, oy+rng.Float64()*0.6-0.2
		// distance to the panel segment
		s := math.Max(0, math.Min(l, (px-ox)*tx+(py-oy)*ty))
		if math.Hypot(px-ox-s*tx, py-oy-s*ty) < l/10 {
			continue
		}
		var bu, bv float64
		for sub := 0; sub < 8; sub++ {
			for q := range gl8x {
				for q2 := range gl8x {
					// two-level rule: 8 sub-intervals × (8×8) points
					a := (float64(sub) + (float64(q)+(gl8x[q2]+1)/2)/8) / 8 * l
					w := gl8w[q2] / 2 / 8 / 8 * l
					_ = q
					x, y := ox+a*tx, oy+a*ty
					rx, ry := px-x, py-y
					r2 := rx*rx + ry*ry
					bu += -gamma * w * ry / (2 * math.Pi * r2)
					bv += gamma * w * rx / (2 * math.Pi * r2)
				}
			}
		}
		u, v := panelVelocity(px, py, ox, oy, tx, ty, l, gamma, 0)
		if e := math.Hypot(u-bu, v-bv); e > kernelTol*math.Hypot(bu, bv) {
			t.Errorf("at (%.3f, %.3f): Eq. 5.11 gives (%.12g, %.12g), integral (%.12g, %.12g)", px, py, u, v, bu, bv)
		}
	}
}

// normalFlowTol: the bound on the relative normal flow at every panel midpoint after
// the solve, as a fraction of the free-stream (relative) speed.
const normalFlowTol = 1e-6

// maxNormalFlow returns the largest |∫(u − u_body)·n ds| / A over the pieces of each outline
// between consecutive panel midpoints (the pieces the solve makes flux-free, see
// panelInverse): the mean relative normal flow, integrated independently of the solve with u
// from VelocityAt (reduced field plus every panel and image, Eq. 5.11) and a Gauss–Legendre
// rule graded geometrically toward the vertex inside the piece, where the panels' normal
// velocity has its integrable logarithmic singularity.
func maxNormalFlow(d *Domain) float64 {
	worst := 0.0
	for _, b := range d.Bodies() {
		st := b.State()
		rel := func(x, y, nx, ny float64) float64 {
			u, v := d.VelocityAt(x, y)
			uo := st.Velocity.X - st.AngularVelocity*(y-st.Position.Y)
			vo := st.Velocity.Y + st.AngularVelocity*(x-st.Position.X)
			return (u-uo)*nx + (v-vo)*ny
		}
		// half panel from its end point e back toward its midpoint: ∫_0^{l/2} f(e − s t) ds
		half := func(i int, fromEnd bool) float64 {
			m, n := d.PanelMidpoint(i)
			l := d.cp.ln[i]
			tx, ty := -n.Y, n.X // tangent of a counter-clockwise outline
			ex, ey, dir := m.X+tx*l/2, m.Y+ty*l/2, -1.0
			if !fromEnd {
				ex, ey, dir = m.X-tx*l/2, m.Y-ty*l/2, 1
			}
			sum := 0.0
			for lev := 1; lev <= 40; lev++ {
				a, b := l/2*math.Pow(2, -float64(lev)), l/2*math.Pow(2, -float64(lev-1))
				if lev == 40 {
					a = 0
				}
				for q := range gl8x {
					s := a + (b-a)*(gl8x[q]+1)/2
					sum += gl8w[q] * (b - a) / 2 * rel(ex+dir*s*tx, ey+dir*s*ty, n.X, n.Y)
				}
			}
			return sum
		}
		for k := 0; k < b.Panels(); k++ {
			i := b.firstPanel + k
			j := b.firstPanel + (k+1)%b.Panels()
			flux := half(i, true) + half(j, false)
			worst = math.Max(worst, math.Abs(flux)/((d.cp.ln[i]+d.cp.ln[j])/2))
		}
	}
	return worst
}

// TestPanelSolveCancelsNormalFlow: a translating and rotating box and triangle in fluid at
// rest (the free stream is the body's own motion, relative speed U): after the solve of
// Eq. 5.13–5.15 no fluid crosses any panel.
func TestPanelSolveCancelsNormalFlow(t *testing.T) {
	for _, outline := range [][]Vec2{BoxOutline(0.1, 0.06), {{0, 0}, {0.08, 0.01}, {0.02, 0.07}}} {
		for _, pps := range []int{1, 3, 5} {
			c := testConfig()
			c.Images = false
			d := mustNew(t, c)
			b, err := d.AddBody(BodyDef{Outline: outline, PanelsPerSide: []int{pps}, Density: 100,
				Position: Vec2{1, 0.5}, Angle: 0.4, Velocity: Vec2{0.8, -0.3}, AngularVelocity: 2, Kinematic: true})
			if err != nil {
				t.Fatal(err)
			}
			d.SolvePanels()
			speed := math.Hypot(0.8, -0.3) + 2*b.radius
			if e := maxNormalFlow(d) / speed; e > normalFlowTol {
				t.Errorf("%d vertices, %d panels per side: normal flow %.3e of the speed > %g", len(outline), pps, e, normalFlowTol)
			}
		}
	}
}

// TestMultiBodySolve: three bodies close together and near walls with images, in a nonzero
// reduced flow. The fixed-point sweeps (Eq. 5.17) converge and no fluid crosses any panel of
// any body.
func TestMultiBodySolve(t *testing.T) {
	// multiBodyTol: the sweeps stop at a relative strength change of 1e-10; the 1e-6
	// of the relative speed.
	const multiBodyTol = normalFlowTol
	c := testConfig()
	d := mustNew(t, c)
	r := make([]float64, d.Modes())
	r[0], r[3] = 0.3, -0.2
	_ = d.SetCoefficients(r)
	quad := []Vec2{{0, 0}, {0.1, 0.01}, {0.09, 0.08}, {-0.01, 0.06}}
	tri := []Vec2{{0, 0}, {0.08, 0.01}, {0.02, 0.07}}
	defs := []BodyDef{
		{Outline: quad, Position: Vec2{0.3, 0.12}, Velocity: Vec2{0, -0.5}},
		{Outline: quad, Position: Vec2{0.3, 0.3}, Angle: 0.3, Velocity: Vec2{0, -0.5}},
		{Outline: tri, Position: Vec2{0.1, 0.2}, AngularVelocity: 3},
	}
	for _, def := range defs {
		def.PanelsPerSide, def.Density, def.Kinematic = []int{5}, 100, true
		if _, err := d.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	d.SolvePanels()
	e := maxNormalFlow(d) / 0.5
	t.Logf("3 bodies, %d panels: %d sweeps, max normal flow %.3e of the relative speed", d.PanelCount(), d.CouplingIterations(), e)
	if ok, ch := d.CouplingConverged(); !ok || d.CouplingIterations() >= c.CouplingIterations {
		t.Errorf("the multi-body iteration did not converge in %d sweeps (last change %.3e)", c.CouplingIterations, ch)
	}
	if e > multiBodyTol {
		t.Errorf("normal flow %.3e of the relative speed > %g", e, multiBodyTol)
	}
}

// TestImagesRemoveWallFlow: a box moving near the bottom-left corner; along the bottom and
// left walls the total normal velocity vanishes with images (§5.3.3) and does not without.
func TestImagesRemoveWallFlow(t *testing.T) {
	// wallTol: with the body mirrored across both walls and the corner the normal components
	// cancel pairwise, to rounding.
	const wallTol = 1e-12
	for _, images := range []bool{false, true} {
		c := testConfig()
		c.Images = images
		d := mustNew(t, c)
		if _, err := d.AddBody(BodyDef{Outline: BoxOutline(0.1, 0.08), PanelsPerSide: []int{5}, Density: 100,
			Position: Vec2{0.12, 0.1}, Angle: 0.2, Velocity: Vec2{0.5, -0.4}, AngularVelocity: 1, Kinematic: true}); err != nil {
			t.Fatal(err)
		}
		d.SolvePanels()
		worst := 0.0
		for s := 0.0; s <= 1; s += 1.0 / 256 {
			_, v := d.VelocityAt(s*c.Width, 0)
			u, _ := d.VelocityAt(0, s*c.Height)
			worst = math.Max(worst, math.Max(math.Abs(u), math.Abs(v)))
		}
		rel := worst / math.Hypot(0.5, -0.4)
		t.Logf("images %v: max normal velocity on the bottom and left walls %.3e of the body speed", images, rel)
		if images && rel > wallTol {
			t.Errorf("with images the walls carry normal flow %.3e > %g", rel, wallTol)
		}
		if !images && rel < 1e-3 {
			t.Errorf("without images the wall normal flow is only %.3e: the test scene does not exercise the walls", rel)
		}
	}
}

// TestForcesDynamicPressureAndBuoyancy: a box falling at speed V through still fluid, far from
// walls: the dynamic pressure on its windward (bottom) side is ½ρV² over its width
// (Eq. 5.20–5.21) and buoyancy is ρ g × area (Eq. 5.22 summed over a closed outline).
func TestForcesDynamicPressureAndBuoyancy(t *testing.T) {
	// forceTol: both sums are exact for a box (q is uniform on the bottom side, h is linear).
	const forceTol = 1e-10
	c := testConfig()
	c.Images = false
	c.Density = 1.3
	d := mustNew(t, c)
	w, h, V := 0.1, 0.06, 0.7
	b, err := d.AddBody(BodyDef{Outline: BoxOutline(w, h), PanelsPerSide: []int{3}, Density: 50, Position: Vec2{1, 0.5}, Velocity: Vec2{0, -V}})
	if err != nil {
		t.Fatal(err)
	}
	d.SolvePanels()
	d.applyForces()
	f, tq := b.Force()
	want := 0.5*c.Density*V*V*w + c.Density*c.Gravity*w*h
	if math.Abs(f.Y-want) > forceTol*want || math.Abs(f.X) > forceTol*want || math.Abs(tq) > forceTol*want {
		t.Errorf("force (%.12g, %.12g), torque %.3g; want (0, %.12g), 0", f.X, f.Y, tq, want)
	}
}

// TestPanelMatrixNullity: P has exactly one null vector (the circulation, removed by the row
// of Eq. 5.15) for a square, a rectangle, a triangle and an irregular quadrilateral at 1, 3 and
// 5 panels per side, and is well conditioned on the rest (a second null vector would leave
// flux the panels cannot cancel; differencing ψ at the panel end points has one on every box).
func TestPanelMatrixNullity(t *testing.T) {
	// condTol: the smallest nonzero eigenvalue of PᵀP relative to the largest must stay above
	// this (measured ≥ 0.17 for these shapes); an extra null vector would be ~1e-20.
	const condTol = 1e-3
	c := testConfig()
	for _, o := range [][]Vec2{BoxOutline(0.1, 0.1), BoxOutline(0.1, 0.06), {{0, 0}, {0.08, 0.01}, {0.02, 0.07}}, {{0, 0}, {0.1, 0.01}, {0.09, 0.08}, {-0.01, 0.06}}} {
		for _, pps := range []int{1, 3, 5} {
			b, err := newBody(BodyDef{Outline: o, PanelsPerSide: []int{pps}, Density: 1, Position: Vec2{1, 0.5}}, &c)
			if err != nil {
				t.Fatal(err)
			}
			m := len(b.ln)
			p := make([]float64, m*m)
			for j := 0; j < m; j++ {
				k := (j + 1) % m
				for i := 0; i < m; i++ {
					p[j*m+i] = panelStream(b.mx[k], b.my[k], b.ox[i], b.oy[i], b.tx[i], b.ty[i], b.ln[i], 1) -
						panelStream(b.mx[j], b.my[j], b.ox[i], b.oy[i], b.tx[i], b.ty[i], b.ln[i], 1)
				}
			}
			g := make([]float64, m*m)
			for i := 0; i < m; i++ {
				for k := 0; k < m; k++ {
					for r := 0; r < m; r++ {
						g[i*m+k] += p[r*m+i] * p[r*m+k]
					}
				}
			}
			vals, _ := jacobiEigen(g, m)
			big, small, null := 0.0, math.Inf(1), 0
			for _, v := range vals {
				big = math.Max(big, v)
			}
			for _, v := range vals {
				if v < 1e-12*big {
					null++
				} else {
					small = math.Min(small, v)
				}
			}
			if null != 1 || small < condTol*big {
				t.Errorf("%d vertices, %d panels per side: nullity %d (want 1), smallest other eigenvalue %.3e of the largest", len(o), pps, null, small/big)
			}
		}
	}
	// and squares in each other's flow: no flux left
	d := mustNew(t, c)
	for _, def := range []BodyDef{
		{Outline: BoxOutline(0.1, 0.1), Position: Vec2{0.3, 0.12}, Velocity: Vec2{0, -0.5}},
		{Outline: BoxOutline(0.1, 0.1), Position: Vec2{0.3, 0.3}, Angle: 0.3, Velocity: Vec2{0, -0.5}},
	} {
		def.PanelsPerSide, def.Density, def.Kinematic = []int{5}, 100, true
		if _, err := d.AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	d.SolvePanels()
	if e := maxNormalFlow(d) / 0.5; e > normalFlowTol {
		t.Errorf("two squares 0.08 m apart falling at 0.5 m/s: flux %.3e of the speed through a piece > %g", e, normalFlowTol)
	}
}

// TestPanelFarFieldExpansion: beyond farRatio panel lengths the expansion matches Eq. 5.11 and
// the closed-form stream function.
func TestPanelFarFieldExpansion(t *testing.T) {
	// farTol: the truncation error (1/(2·farRatio))⁸ ≈ 6e-8 at the nearest allowed distance,
	// relative to the point-vortex scale γl/(2πd); 1e-6 leaves room for the ψ's log scale.
	const farTol = 1e-6
	ox, oy, l, th, g := 0.2, 0.1, 0.03, 1.1, 0.8
	tx, ty := math.Cos(th), math.Sin(th)
	cx, cy := ox+tx*l/2, oy+ty*l/2
	for k := 0; k < 64; k++ {
		for _, dist := range []float64{farRatio * l, 2 * farRatio * l, 10} {
			a := 2 * math.Pi * float64(k) / 64
			px, py := cx+dist*math.Cos(a), cy+dist*math.Sin(a)
			u, v := panelVelocity(px, py, ox, oy, tx, ty, l, g, 0)
			psi := panelStream(px, py, ox, oy, tx, ty, l, g)
			fu, fv, fpsi := panelFar(px, py, cx, cy, tx, ty, l, g)
			if vu, vv := panelFarVelocity(px, py, cx, cy, tx, ty, l, g); math.Abs(vu-fu) > 1e-15*scaleOf(fu) || math.Abs(vv-fv) > 1e-15*scaleOf(fv) {
				t.Errorf("panelFarVelocity (%.17g, %.17g) differs from panelFar (%.17g, %.17g)", vu, vv, fu, fv)
			}
			scale := g * l / (2 * math.Pi * dist)
			if math.Hypot(u-fu, v-fv) > farTol*scale || math.Abs(psi-fpsi) > farTol*g*l {
				t.Errorf("at distance %.3f, angle %.2f: exact (%.9g, %.9g, ψ %.9g), expansion (%.9g, %.9g, ψ %.9g)", dist, a, u, v, psi, fu, fv, fpsi)
			}
		}
	}
}

// TestOtherBodyVelocitiesMatchDirectSum: the velocity the forces use at each midpoint (other
// bodies' panels and every image, from near-field closed forms, panel expansions and cluster
// multipoles) equals the direct sum of Eq. 5.11 over those sources, on the game scene.
func TestOtherBodyVelocitiesMatchDirectSum(t *testing.T) {
	// multipoleTol: the expansions' truncation (< 1e-7 relative) against the velocity scale.
	const multipoleTol = 1e-6
	d := gameScene(t, gameConfig())
	d.SolvePanels()
	cp := &d.cp
	worst, scale := 0.0, 0.0
	for tgt := 0; tgt < cp.np; tgt++ {
		var u, v float64
		for s := 0; s < cp.np; s++ {
			if cp.owner[s] != cp.owner[tgt] {
				pu, pv := panelVelocity(cp.mx[tgt], cp.my[tgt], cp.ox[s], cp.oy[s], cp.tx[s], cp.ty[s], cp.ln[s], cp.gamma[s], 0)
				u += pu
				v += pv
			}
			for _, rf := range cp.refl[cp.owner[s]] {
				pu, pv := panelVelocity(cp.mx[tgt], cp.my[tgt], rf.fx*cp.ox[s]+rf.offx, rf.fy*cp.oy[s]+rf.offy, rf.fx*cp.tx[s], rf.fy*cp.ty[s], cp.ln[s], rf.fx*rf.fy*cp.gamma[s], 0)
				u += pu
				v += pv
			}
		}
		worst = math.Max(worst, math.Hypot(u-cp.uox[tgt], v-cp.uoy[tgt]))
		scale = math.Max(scale, math.Hypot(u, v))
	}
	t.Logf("max difference %.3e m/s of the largest induced speed %.3e m/s", worst, scale)
	if worst > multipoleTol*scale {
		t.Errorf("induced velocities differ from the direct sum by %.3e > %g × %.3e", worst, multipoleTol, scale)
	}
}

func scaleOf(x float64) float64 { return math.Max(math.Abs(x), 1e-300) * 4 }
