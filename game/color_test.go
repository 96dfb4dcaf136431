package game

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/scene"
)

// colorTol is the float32 rounding allowed in an interpolated colour channel.
const colorTol = 1e-6

func TestColorMapEndsAndStops(t *testing.T) {
	m := Heat
	n := len(m.Stops)
	for _, c := range []struct {
		t    float32
		want Color
	}{
		{0, m.Stops[0]}, {-3, m.Stops[0]}, {float32(math.NaN()), m.Stops[0]},
		{1, m.Stops[n-1]}, {7, m.Stops[n-1]},
		{0.25, m.Stops[1]}, {0.5, m.Stops[2]},
	} {
		got := m.At(c.t)
		if math.Abs(float64(got.R-c.want.R)) > colorTol || math.Abs(float64(got.G-c.want.G)) > colorTol || math.Abs(float64(got.B-c.want.B)) > colorTol {
			t.Errorf("At(%g) = %v, want %v", c.t, got, c.want)
		}
	}
	// Halfway between the first two stops is their average.
	got, a, b := m.At(0.125), m.Stops[0], m.Stops[1]
	if math.Abs(float64(got.B-(a.B+b.B)/2)) > colorTol {
		t.Errorf("At(0.125).B = %g, want %g", got.B, (a.B+b.B)/2)
	}
}

func TestPhaseStylesCoverThePhasesAndFlagUnknownOnes(t *testing.T) {
	for _, p := range []components.Phase{components.Fluid, components.Boundary} {
		if _, ok := PhaseStyles[p]; !ok {
			t.Errorf("phase %v has no style", p)
		}
	}
	if s := StyleOf(components.Phase(200)); s != Unstyled {
		t.Errorf("unknown phase drawn as %v, want the Unstyled %v", s, Unstyled)
	}
	if f, b := StyleOf(components.Fluid).Color, StyleOf(components.Boundary).Color; f == b {
		t.Errorf("fluid and boundary share the colour %v", f)
	}
}

// TestClothHasItsOwnColour checks that cloth bodies get a style of their own, in a hue apart
// from every other phase's, the rigid bodies' and Unstyled's (a cloth drawn magenta would read
// as "missing style").
func TestClothHasItsOwnColour(t *testing.T) {
	st, ok := PhaseStyles[components.Cloth]
	if !ok || st == Unstyled {
		t.Fatalf("cloth drawn as %+v (style given: %v), want a style of its own", st, ok)
	}
	hc, sc := hue(st.Color)
	if sc < minClothSaturation {
		t.Errorf("cloth colour %v has saturation %.2f, want ≥ %g (a colour, not a grey)", st.Color, sc, minClothSaturation)
	}
	others := map[string]Color{"unstyled": Unstyled.Color}
	for p, o := range PhaseStyles {
		if p != components.Cloth {
			others[p.String()] = o.Color
		}
	}
	for m, c := range RigidColors {
		others[fmt.Sprintf("rigid %v", m)] = c
	}
	for name, c := range others {
		h, s := hue(c)
		if s < minClothSaturation {
			continue // a grey or near-grey (walls, steel, stone): any hue reads apart from it
		}
		if g := hueGap(hc, h); g < minHueGap {
			t.Errorf("cloth hue %.0f° only %.0f° from %s's %.0f°", hc, g, name, h)
		}
	}
}

// minClothSaturation is the saturation above which a colour reads as a hue rather than a grey
// (the walls' sand grey is about 0.18).
const minClothSaturation = 0.4

func TestBuiltinFields(t *testing.T) {
	p := components.Particles{
		X:        []mgl64.Vec3{{}, {}},
		V:        []mgl64.Vec3{{3, 4, 0}, {0, 0, -2}},
		Density:  []float64{1010, 990},
		Pressure: []float64{250, 0},
	}
	mat := components.DefaultMaterial() // ρ0 = 1000
	want := map[string][]float32{"speed": {5, 2}, "density-error": {1, -1}, "pressure": {250, 0}}
	for name, w := range want {
		f, ok := FieldByName(name)
		if !ok {
			t.Fatalf("field %q not registered", name)
		}
		dst := make([]float32, 2)
		if !f.Eval(&p, &mat, dst) {
			t.Fatalf("field %q: no values for a fluid body", name)
		}
		for i := range w {
			if math.Abs(float64(dst[i]-w[i])) > colorTol*100 {
				t.Errorf("field %q particle %d = %g, want %g", name, i, dst[i], w[i])
			}
		}
	}
	wall := components.Particles{X: []mgl64.Vec3{{}}}
	if f, _ := FieldByName("pressure"); f.Eval(&wall, &mat, make([]float32, 1)) {
		t.Error("pressure of a boundary body (positions only) reported values")
	}
}

func TestRegisterFieldRejectsBadFields(t *testing.T) {
	eval := func(*components.Particles, *components.Material, []float32) bool { return true }
	for _, c := range []struct {
		f    Field
		want string
	}{
		{Field{Name: "", Eval: eval}, "name must not be empty"},
		{Field{Name: "vorticity"}, `field "vorticity": Eval must not be nil`},
		{Field{Name: "speed", Eval: eval}, `field "speed": a field of that name is registered already`},
		{Field{Name: "x", Eval: eval, Min: math.NaN()}, `field "x": range`},
	} {
		if err := RegisterField(c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RegisterField(%q): error %v, want %q", c.f.Name, err, c.want)
		}
	}
}

func TestRigidShades(t *testing.T) {
	// Neighbouring rigid bodies of one kind differ in lightness, the first has the kind's
	// colour, and every kind's colour differs from the phases' (a mesh never looks like water
	// or a wall).
	for m := range RigidColors {
		if RigidShade(m, 0) != RigidColor(m) {
			t.Errorf("%s: the first body's shade %v is not the kind's colour %v", m, RigidShade(m, 0), RigidColor(m))
		}
		for i := 0; i < 8; i++ {
			if RigidShade(m, i) == RigidShade(m, i+1) {
				t.Errorf("%s: bodies %d and %d have the same shade", m, i, i+1)
			}
		}
		for ph, st := range PhaseStyles {
			if c := RigidColor(m); c == st.Color {
				t.Errorf("%s bodies have the colour of phase %s", m, ph)
			}
		}
	}
	if RigidColor(rigid.Motion(99)) != Unstyled.Color {
		t.Error("an unknown kind of motion is not drawn in the unstyled colour")
	}
}

// hue returns the hue of c in degrees [0, 360) and its saturation (max − min)/max.
func hue(c Color) (h, sat float64) {
	r, g, b := float64(c.R), float64(c.G), float64(c.B)
	mx, mn := max(r, g, b), min(r, g, b)
	if mx == 0 || mx == mn {
		return 0, 0
	}
	d := mx - mn
	switch mx {
	case r:
		h = math.Mod((g-b)/d, 6)
	case g:
		h = (b-r)/d + 2
	default:
		h = (r-g)/d + 4
	}
	h *= 60
	if h < 0 {
		h += 360
	}
	return h, d / mx
}

// hueGap is the angle between two hues (degrees, 0–180).
func hueGap(a, b float64) float64 {
	d := math.Abs(a - b)
	return math.Min(d, 360-d)
}

// minHueGap: water, honey and slime must read as three different colours, not shades of one:
// 30° apart on the colour wheel at least (blue, orange and green are ~100° apart).
const minHueGap = 30

func TestMaterialColorsAndLegend(t *testing.T) {
	// A material's colour replaces its phase's colour (opacity and size stay the phase's);
	// the presets water, honey and slime get three distinct hues, and the legend lists each
	// body colour once, labelled by its preset.
	w, err := sluice.NewWorld(components.DefaultSolver(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1.2, 0.5, 0.3}, true)
	var want []LegendKey
	for i, name := range []string{"water", "honey", "slime"} {
		m, err := scene.Preset(name, "")
		if err != nil {
			t.Fatal(err)
		}
		x0 := 0.4 * float64(i)
		if _, err := w.AddFluidBlock(name, m, mgl64.Vec3{x0, 0, 0}, mgl64.Vec3{x0 + 0.3, 0.2, 0.3}, mgl64.Vec3{}); err != nil {
			t.Fatal(err)
		}
		st := BodyStyle(components.Fluid, m.Color)
		if fl := StyleOf(components.Fluid); st.RadiusScale != fl.RadiusScale || st.Color.A != fl.Color.A {
			t.Errorf("%s: style %+v keeps neither the fluid's size nor opacity %+v", name, st, fl)
		}
		want = append(want, LegendKey{Color: st.Color, Label: name})
	}
	wall := BodyStyle(components.Boundary, mgl64.Vec3{})
	if wall != StyleOf(components.Boundary) {
		t.Errorf("a material without a colour: %+v, want the phase's %+v", wall, StyleOf(components.Boundary))
	}
	keys := LegendKeys(w)
	want = append([]LegendKey{{Color: wall.Color, Label: "boundary"}}, want...)
	if !slices.Equal(keys, want) {
		t.Fatalf("legend %+v, want %+v", keys, want)
	}
	for i := 1; i < len(want); i++ {
		for j := i + 1; j < len(want); j++ {
			hi, _ := hue(want[i].Color)
			hj, _ := hue(want[j].Color)
			if g := hueGap(hi, hj); g < minHueGap {
				t.Errorf("%s and %s: hues %.0f° and %.0f° only %.0f° apart", want[i].Label, want[j].Label, hi, hj, g)
			}
		}
	}
}

func TestRobustRangeIgnoresOutliers(t *testing.T) {
	// 10 000 values evenly over [0, 1] and 50 outliers at 100 (0.5 %): the colour range is the
	// 1st–99th percentile, [0.01, 0.99] within the histogram's resolution (100/4096 here), not
	// [0, 100]; the full range is reported too. NaN and ±Inf are skipped.
	var vals []float32
	for i := 0; i < 10000; i++ {
		vals = append(vals, float32(i)/9999)
	}
	for i := 0; i < 50; i++ {
		vals = append(vals, 100)
	}
	vals = append(vals, float32(math.NaN()), float32(math.Inf(1)))
	hist := make([]int32, rangeBins)
	plo, phi, lo, hi := RobustRange(vals, hist)
	res := (hi - lo) / rangeBins
	t.Logf("colour range [%.4f, %.4f], full [%g, %g]", plo, phi, lo, hi)
	if lo != 0 || hi != 100 {
		t.Errorf("full range [%g, %g], want [0, 100]", lo, hi)
	}
	// the 1 % cut of 10 050 values is 100: the 101st value, 0.01, starts the range; at the
	// top the 50 outliers and the 51 largest regular values are cut, ending it near 0.995.
	// Both ends are bin edges at most res outward of these.
	if plo > 0.01 || plo < 0.01-res || phi < 0.995 || phi > 0.995+res {
		t.Errorf("colour range [%g, %g], want [0.01, 0.995] within %g outward", plo, phi, res)
	}
	if p1, p2, l, h := RobustRange([]float32{3, 3, 3}, hist); p1 != 3 || p2 != 3 || l != 3 || h != 3 {
		t.Errorf("constant values: %g %g %g %g", p1, p2, l, h)
	}
	if p1, _, _, _ := RobustRange([]float32{float32(math.NaN())}, hist); !math.IsNaN(p1) {
		t.Errorf("no finite value: %g, want NaN", p1)
	}
}
