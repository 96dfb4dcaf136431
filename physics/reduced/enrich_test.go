package reduced

import (
	"math"
	"testing"
)

// jet is a horizontal jet along the domain's mid-height with a Gaussian profile (half-width
// w), the kind of user field §5.4 adds to the eigenmodes.
func jet(c Config, w float64) func(x, y float64) (float64, float64) {
	return func(x, y float64) (float64, float64) {
		dy, dx := (y-c.Height/2)/w, (x-c.Width/2)/(0.3*c.Width)
		return math.Exp(-dy*dy - dx*dx), 0
	}
}

// projectionTol: the grid quadrature is exact for these trigonometric fields, so the
// projection recovers the solenoidal part to rounding.
const projectionTol = 1e-10

// TestProjectFieldRemovesGradient: f = 0.7·e(2,3) + ∇φ with φ = 0.5 cos(2πx/Lx) cos(3πy/Ly) +
// cos(5πx/Lx) cos(πy/Ly) (written out here in closed form). The divergence-free projection
// must return 0.7·e(2,3) exactly (a gradient is orthogonal to every divergence-free field
// tangent to the walls), and the projection of a jet must be divergence-free.
func TestProjectFieldRemovesGradient(t *testing.T) {
	c := testConfig()
	lx, ly := c.Width, c.Height
	mode := func(a1, a2 float64, x, y float64) (float64, float64) {
		k1, k2 := a1*math.Pi/lx, a2*math.Pi/ly
		n := 1 / math.Sqrt((k1*k1+k2*k2)*lx*ly/4)
		return n * k2 * math.Sin(k1*x) * math.Cos(k2*y), -n * k1 * math.Cos(k1*x) * math.Sin(k2*y)
	}
	grad := func(x, y float64) (float64, float64) {
		p1, q1 := 2*math.Pi/lx, 3*math.Pi/ly
		p2, q2 := 5*math.Pi/lx, math.Pi/ly
		gx := -0.5*p1*math.Sin(p1*x)*math.Cos(q1*y) - p2*math.Sin(p2*x)*math.Cos(q2*y)
		gy := -0.5*q1*math.Cos(p1*x)*math.Sin(q1*y) - q2*math.Cos(p2*x)*math.Sin(q2*y)
		return gx, gy
	}
	f := func(x, y float64) (float64, float64) {
		u, v := mode(2, 3, x, y)
		gx, gy := grad(x, y)
		return 0.7*u + gx, 0.7*v + gy
	}
	p, err := ProjectField(c, Field{Func: f})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for x := 0.0; x <= lx; x += lx / 13 {
		for y := 0.0; y <= ly; y += ly / 11 {
			u, v := p.VelocityAt(x, y)
			wu, wv := mode(2, 3, x, y)
			worst = math.Max(worst, math.Hypot(u-0.7*wu, v-0.7*wv))
		}
	}
	if worst > projectionTol {
		t.Errorf("projection of 0.7·e(2,3) + ∇φ differs from 0.7·e(2,3) by up to %.3e > %g", worst, projectionTol)
	}
	if math.Abs(p.Norm()-0.7) > projectionTol {
		t.Errorf("projected norm %.12f, want 0.7", p.Norm())
	}
	pj, err := ProjectField(c, Field{Func: jet(c, 0.06)})
	if err != nil {
		t.Fatal(err)
	}
	h := math.Min(lx/float64(c.CellsX), ly/float64(c.CellsY))
	div, vmax := cellDivergence(c, pj.VelocityAt)
	t.Logf("projected jet: max cell-mean divergence %.2e (velocity scale %.3f m/s)", div, vmax)
	if div*h/vmax > divergenceTol {
		t.Errorf("projected jet has cell-mean divergence %.3e, relative %.3e > %g", div, div*h/vmax, divergenceTol)
	}
}

// TestEnrichedBasisOrthonormal: a jet (Func) and a grid field add one mode each; a field that
// is an eigenmode already in E adds none; the enriched basis stays orthonormal and
// divergence-free on the grid quadrature.
func TestEnrichedBasisOrthonormal(t *testing.T) {
	if raceEnabled {
		t.Skip("8 s under the race detector; no concurrency here (the tensor and the checks are serial)")
	}
	c := testConfig()
	// grid field: a vortex blob, cell-centred
	n := c.CellsX * c.CellsY
	gu, gv := make([]float64, n), make([]float64, n)
	hx, hy := c.Width/float64(c.CellsX), c.Height/float64(c.CellsY)
	for i := 0; i < c.CellsX; i++ {
		for j := 0; j < c.CellsY; j++ {
			x, y := (float64(i)+0.5)*hx-0.6, (float64(j)+0.5)*hy-0.4
			g := math.Exp(-(x*x + y*y) / 0.01)
			gu[i*c.CellsY+j], gv[i*c.CellsY+j] = -y*g, x*g
		}
	}
	base := mustNew(t, c)
	inE := func(x, y float64) (float64, float64) { return base.ModeVelocityAt(5, x, y) }
	c.Enrich = []Field{{Func: jet(c, 0.06)}, {U: gu, V: gv}, {Func: inE}}
	d := mustNew(t, c)
	got := d.EnrichedModes()
	if d.Modes() != c.Modes+2 || got[0] != 1 || got[1] != 1 || got[2] != 0 {
		t.Fatalf("enrichment added %v modes (basis %d), want [1 1 0] (basis %d)", got, d.Modes(), c.Modes+2)
	}
	checkOrthonormal(t, d)
	checkDivergenceFree(t, d)
}

// TestEnrichedBasisCapturesTheJet: Fig. 5.4's point. The divergence-free part of an authored
// jet lies in span(E ∪ R) once the jet is added as a mode, so Bᵀ of the jet keeps all its
// energy (to rounding); the eigenmodes alone keep much less.
func TestEnrichedBasisCapturesTheJet(t *testing.T) {
	// captureTol: |Bᵀj|² = |Pj|² holds to rounding when Pj ∈ span(B).
	const captureTol = 1e-10
	c := testConfig()
	f := Field{Func: jet(c, 0.03)}
	pj, err := ProjectField(c, f)
	if err != nil {
		t.Fatal(err)
	}
	capture := func(c Config) float64 {
		d := mustNew(t, c)
		r, err := d.Project(f)
		if err != nil {
			t.Fatal(err)
		}
		return norm(r) * norm(r) / (pj.Norm() * pj.Norm())
	}
	plain := capture(c)
	c.Enrich = []Field{f}
	rich := capture(c)
	t.Logf("jet energy captured: %.4f with %d eigenmodes, %.12f with the jet mode added", plain, c.Modes, rich)
	if math.Abs(rich-1) > captureTol {
		t.Errorf("enriched basis captures %.12f of the jet's energy, want 1 ± %g", rich, captureTol)
	}
	if plain > 0.9 {
		t.Errorf("eigenmodes alone capture %.4f of a 3 cm jet: the test field is too smooth to show enrichment", plain)
	}
}
