package game

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/diffuse"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// Color is a linear RGBA colour with components in [0, 1].
type Color struct{ R, G, B, A float32 }

// PhaseStyle is how the particles of one phase are drawn.
type PhaseStyle struct {
	Color       Color   // A < 1 draws the phase translucent, after the opaque ones
	RadiusScale float32 // drawn sphere radius as a fraction of the particle radius
}

// PhaseStyles is the drawing style of each phase. Phases added to components (elastic, goo,
// rigid) get an entry here; a phase without one is drawn in Unstyled so it is visible.
var PhaseStyles = map[components.Phase]PhaseStyle{
	// Water blue, full-size spheres.
	components.Fluid: {Color: Color{0.16, 0.45, 0.92, 1}, RadiusScale: 1},
	// Walls: small translucent sand-grey dots that show the geometry without hiding the fluid.
	components.Boundary: {Color: Color{0.80, 0.76, 0.66, 0.35}, RadiusScale: 0.45},
	// Elastic solids: jelly green, full-size spheres.
	components.Elastic: {Color: Color{0.35, 0.80, 0.30, 1}, RadiusScale: 1},
	// Elastoplastic solids (dough, clay, snow): dough beige, full-size spheres.
	components.Elastoplastic: {Color: Color{0.93, 0.80, 0.58, 1}, RadiusScale: 1},
	// Cloth sheets: a dyed-fabric crimson, full-size spheres (the sheet's vertices a spacing
	// apart read as a closed cloth); its hue is far from the water, jelly, dough, the rigid
	// bodies' wood and Unstyled's magenta.
	components.Cloth: {Color: Color{0.78, 0.18, 0.30, 1}, RadiusScale: 1},
}

// RigidColors is the colour of rigid bodies' meshes by kind of motion: dynamic bodies in a warm
// wood colour that neither the phases, the walls nor the colour maps' low end use, scripted
// (kinematic) ones in steel blue-grey, fixed ones in stone grey.
var RigidColors = map[rigid.Motion]Color{
	rigid.Dynamic:   {0.86, 0.52, 0.18, 1},
	rigid.Kinematic: {0.45, 0.50, 0.58, 1},
	rigid.Static:    {0.55, 0.55, 0.52, 1},
}

// RigidColor returns the colour of a rigid body's mesh (Unstyled's for a motion missing from
// RigidColors).
func RigidColor(m rigid.Motion) Color {
	if c, ok := RigidColors[m]; ok {
		return c
	}
	return Unstyled.Color
}

// rigidShades are the lightness factors rigid bodies of one colour take in turn, so that bodies
// touching each other (a stack of crates) stay apart on screen.
var rigidShades = [...]float32{1, 0.85, 0.93, 0.78}

// RigidShade returns the colour of the i-th rigid body of the given motion: RigidColor
// darkened by a factor cycling through four shades.
func RigidShade(m rigid.Motion, i int) Color {
	c, f := RigidColor(m), rigidShades[i%len(rigidShades)]
	return Color{c.R * f, c.G * f, c.B * f, c.A}
}

// DiffuseStyles are the drawn colours and radii (fractions of r) of the diffuse particles
// (solver.diffuse): white spray and foam, smaller and fainter blue-white bubbles, all smaller
// than the fluid's particles, which they sit among.
var DiffuseStyles = [...]PhaseStyle{
	diffuse.Spray:  {Color: Color{1, 1, 1, 0.9}, RadiusScale: 0.45},
	diffuse.Foam:   {Color: Color{0.95, 0.97, 1, 0.9}, RadiusScale: 0.5},
	diffuse.Bubble: {Color: Color{0.75, 0.88, 1, 0.6}, RadiusScale: 0.35},
}

// Unstyled is the style of a phase missing from PhaseStyles: loud magenta.
var Unstyled = PhaseStyle{Color: Color{1, 0, 1, 1}, RadiusScale: 1}

// BodyStyle is the style a body is drawn in when colouring by phase: its phase's style in the
// colour of its material (components.Material.Color), keeping the phase's opacity and size;
// a material without a colour ([0, 0, 0]) takes the phase's.
func BodyStyle(p components.Phase, c mgl64.Vec3) PhaseStyle {
	st := StyleOf(p)
	if c != (mgl64.Vec3{}) {
		st.Color = Color{float32(c[0]), float32(c[1]), float32(c[2]), st.Color.A}
	}
	return st
}

// LegendKey is one entry of the view's colour key.
type LegendKey struct {
	Color Color
	Label string
}

// LegendKeys lists the colours the world's particle bodies are drawn in when colouring by
// phase, one key per distinct colour, in body order. A body in its phase's colour is labelled
// by the phase; one in its material's colour by the material's preset where it names one,
// else by the body's name (the first such body of the colour).
func LegendKeys(w *sluice.World) []LegendKey {
	var keys []LegendKey
	for _, b := range w.Bodies() {
		if IsRigid(w, b) {
			continue
		}
		k := LegendKey{Color: BodyStyle(b.Body.Phase, b.Material.Color).Color, Label: b.Body.Phase.String()}
		switch {
		case b.Material.Color == (mgl64.Vec3{}):
		case b.Material.Preset != "":
			k.Label = b.Material.Preset
		default:
			k.Label = b.Body.Name
		}
		if !slices.ContainsFunc(keys, func(o LegendKey) bool { return o.Color == k.Color }) {
			keys = append(keys, k)
		}
	}
	return keys
}

// StyleOf returns the phase's style.
func StyleOf(p components.Phase) PhaseStyle {
	if s, ok := PhaseStyles[p]; ok {
		return s
	}
	return Unstyled
}

// ColorMap maps [0, 1] to colours by linear interpolation between equally spaced stops.
type ColorMap struct {
	Name  string
	Stops []Color
}

// Heat is the default field colour map: dark blue (low) through blue, cyan and yellow to red
// (high); its lightness rises through the first three quarters so low and high stay apart in
// grey too.
var Heat = ColorMap{Name: "heat", Stops: []Color{
	{0.05, 0.05, 0.30, 1},
	{0.10, 0.35, 0.90, 1},
	{0.10, 0.80, 0.80, 1},
	{0.95, 0.90, 0.20, 1},
	{0.85, 0.15, 0.10, 1},
}}

// At returns the colour at t (clamped to [0, 1]; NaN maps to 0).
func (m *ColorMap) At(t float32) Color {
	n := len(m.Stops)
	if !(t > 0) {
		return m.Stops[0]
	}
	if t >= 1 {
		return m.Stops[n-1]
	}
	x := t * float32(n-1)
	i := int(x)
	f := x - float32(i)
	a, b := m.Stops[i], m.Stops[i+1]
	return Color{a.R + f*(b.R-a.R), a.G + f*(b.G-a.G), a.B + f*(b.B-a.B), a.A + f*(b.A-a.A)}
}

// Field is a per-particle scalar the view can colour moving bodies by, through a ColorMap
// with a legend.
type Field struct {
	Name string // shown in the legend and selected by name, e.g. "speed"
	Unit string // shown in the legend, e.g. "m/s"
	// Eval writes the value of each particle of a body into dst (len(dst) == p.Len()) and
	// reports false when the body has no such values (e.g. a phase without pressure).
	Eval func(p *components.Particles, m *components.Material, dst []float32) bool
	// Min and Max fix the colour-map range; with Min ≥ Max the range follows the values of
	// each frame.
	Min, Max float64
}

var fields []Field

// RegisterField adds a field to the ones the view can colour by (the C key cycles through
// them in registration order, after colouring by phase).
func RegisterField(f Field) error {
	if f.Name == "" {
		return fmt.Errorf("field: name must not be empty")
	}
	if f.Eval == nil {
		return fmt.Errorf("field %q: Eval must not be nil", f.Name)
	}
	if math.IsNaN(f.Min) || math.IsNaN(f.Max) {
		return fmt.Errorf("field %q: range [%g, %g] is not a number", f.Name, f.Min, f.Max)
	}
	if _, ok := FieldByName(f.Name); ok {
		return fmt.Errorf("field %q: a field of that name is registered already", f.Name)
	}
	fields = append(fields, f)
	return nil
}

// Fields returns the registered fields in registration order.
func Fields() []Field { return fields }

// FieldByName finds a registered field.
func FieldByName(name string) (Field, bool) {
	for _, f := range fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// ColorModes lists the colourings in the order CycleColor visits them: "phase", then the
// registered fields.
func ColorModes() []string {
	out := []string{"phase"}
	for _, f := range fields {
		out = append(out, f.Name)
	}
	return out
}

func init() {
	for _, f := range []Field{
		{Name: "speed", Unit: "m/s", Eval: func(p *components.Particles, _ *components.Material, dst []float32) bool {
			if len(p.V) != len(p.X) {
				return false
			}
			for i, v := range p.V {
				dst[i] = float32(math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]))
			}
			return true
		}},
		{Name: "density-error", Unit: "%", Eval: func(p *components.Particles, m *components.Material, dst []float32) bool {
			if len(p.Density) != len(p.X) {
				return false
			}
			for i, rho := range p.Density {
				dst[i] = float32(100 * (rho - m.RestDensity) / m.RestDensity)
			}
			return true
		}},
		{Name: "pressure", Unit: "Pa", Eval: func(p *components.Particles, _ *components.Material, dst []float32) bool {
			if len(p.Pressure) != len(p.X) {
				return false
			}
			for i, v := range p.Pressure {
				dst[i] = float32(v)
			}
			return true
		}},
	} {
		if err := RegisterField(f); err != nil {
			panic(err)
		}
	}
}

// RangeQuantile is the share of values a field's colour range leaves out at each end: the
// colour map spans the 1st to the 99th percentile, so a few spray particles at 11 m/s do not
// push every other particle into the map's first colour; the legend also shows the full range.
const RangeQuantile = 0.01

// rangeBins is the resolution of the percentile histogram: the range's ends are bin edges,
// within (max − min)/rangeBins of the exact percentiles.
const rangeBins = 4096

// RobustRange returns the RangeQuantile and 1 − RangeQuantile percentiles (plo, phi) of the
// finite values of vals, to within (hi − lo)/rangeBins outward, and their full range (lo, hi).
// hist is scratch of at least rangeBins entries, so a caller can reuse it frame after frame;
// with no finite value all four are NaN.
func RobustRange(vals []float32, hist []int32) (plo, phi, lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	n := 0
	for _, x := range vals {
		if f := float64(x); !math.IsNaN(f) && !math.IsInf(f, 0) {
			lo, hi = min(lo, f), max(hi, f)
			n++
		}
	}
	if n == 0 {
		nan := math.NaN()
		return nan, nan, nan, nan
	}
	if !(hi > lo) {
		return lo, hi, lo, hi
	}
	hist = hist[:rangeBins]
	clear(hist)
	scale := rangeBins / (hi - lo)
	for _, x := range vals {
		if f := float64(x); !math.IsNaN(f) && !math.IsInf(f, 0) {
			hist[min(int((f-lo)*scale), rangeBins-1)]++
		}
	}
	cut := int(RangeQuantile * float64(n))
	below, k := 0, 0
	for ; k < rangeBins && below+int(hist[k]) <= cut; k++ {
		below += int(hist[k])
	}
	plo = lo + float64(k)/scale
	above, m := 0, rangeBins-1
	for ; m > 0 && above+int(hist[m]) <= cut; m-- {
		above += int(hist[m])
	}
	phi = lo + float64(m+1)/scale
	if m == rangeBins-1 {
		phi = hi
	}
	if k == 0 {
		plo = lo
	}
	return plo, phi, lo, hi
}
