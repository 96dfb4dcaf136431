package game

import (
	"fmt"
	"strings"

	"github.com/sluicephysics/sluice/params"
)

// SurfaceStyle sets the look of the screen-space fluid surface (docs/view.md, "The fluid
// surface"). Lengths in particle radii scale with the scene's resolution; DefaultSurfaceStyle
// gives the declared defaults.
type SurfaceStyle struct {
	FilterRadius     float64 `json:"filterRadius" unit:"r" default:"4" range:"[0,12]" doc:"radius of the bilateral depth filter in particle radii, projected at each pixel's depth (capped at 24 pixels); 0 turns the filter off"`
	FilterIterations int     `json:"filterIterations" unit:"" default:"3" range:"[0,8]" doc:"passes of the separable filter (each a horizontal and a vertical sweep)"`
	FilterScale      int     `json:"filterScale" unit:"" default:"2" range:"[1,2]" doc:"the depth filter runs at 1/filterScale of the window's resolution in each direction, then is upsampled guided by the full-resolution depth: 2 filters a quarter of the pixels with half the taps; 1 filters at full resolution"`
	DepthFalloff     float64 `json:"depthFalloff" unit:"r" default:"4" range:"(0,20]" doc:"depth difference in particle radii at which a neighbour's filter weight drops to e^(-1/2): smaller keeps more edges and more bumps"`
	AbsorptionDepth  float64 `json:"absorptionDepth" unit:"m" default:"0.05" range:"(0,100]" doc:"thickness over which light through the fluid keeps the fraction c of each colour channel, c the fluid's colour (Beer–Lambert)"`
	Refraction       float64 `json:"refraction" unit:"1/m" default:"0.08" range:"[0,1]" doc:"offset of the refracted lookup, as a fraction of the image per metre of fluid thickness, along the surface normal"`
	PlanarDepth      float64 `json:"planarDepth" unit:"m" default:"0.1" range:"(0,100]" doc:"in a 2D world (solver.dimensions 2): the depth of fluid one sheet of particles is drawn as, for the absorption and refraction (its particles' chords alone would make a layer 2r thin, nearly transparent)"`
}

// DefaultSurfaceStyle is the surface look with every field at its declared default.
func DefaultSurfaceStyle() SurfaceStyle {
	var s SurfaceStyle
	params.Defaults(&s)
	return s
}

// Validate checks every field against its declared range, naming the field.
func (s *SurfaceStyle) Validate() error {
	return params.Validate(s, "surface")
}

// Fluid looks: how the view draws fluid bodies.
const (
	LookSurface = "surface" // the screen-space fluid surface; elastic and elastoplastic bodies opaque surfaces (default)
	LookMarbles = "marbles" // every particle a shaded sphere (the debug look)
)

// Looks lists the fluid looks.
func Looks() []string { return []string{LookSurface, LookMarbles} }

// checkLook returns an error naming the look when it is not one of Looks.
func checkLook(look string) error {
	for _, l := range Looks() {
		if l == look {
			return nil
		}
	}
	return fmt.Errorf("fluid look %q: not one of %s", look, strings.Join(Looks(), ", "))
}
