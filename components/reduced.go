package components

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics/reduced"
)

// ReducedDomain is a model-reduced air domain (Gerszewski 2014, ch. 5; physics/reduced): a
// rectangle in a plane of the world, its velocity a few dozen coefficients of the closed-form
// Laplacian eigenmodes of the rectangle, two-way coupled through vortex panels with the
// world's planar rigid bodies that lie in that plane and have reducedPanels set. The domain's
// x axis is axisU, its y axis axisV ("up" for the buoyancy of Eq. 5.22), its corner origin.
type ReducedDomain struct {
	Origin    mgl64.Vec3 `json:"origin" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"world position of the domain's corner (0, 0)"`
	AxisU     mgl64.Vec3 `json:"axisU" unit:"1" default:"[1,0,0]" range:"[-1,1]" doc:"unit vector of the domain's width (its x axis) in the world"`
	AxisV     mgl64.Vec3 `json:"axisV" unit:"1" default:"[0,1,0]" range:"[-1,1]" doc:"unit vector of the domain's height (its y axis, up for buoyancy), orthogonal to axisU; the plane's normal is axisU × axisV"`
	Width     float64    `json:"width" unit:"m" default:"1" range:"(0,1e6]" doc:"extent along axisU"`
	Height    float64    `json:"height" unit:"m" default:"1" range:"(0,1e6]" doc:"extent along axisV"`
	CellsX    int        `json:"cellsX" unit:"1" default:"64" range:"[4,1024]" doc:"cells of the background grid along axisU (reconstruction, projection, quadtree feedback)"`
	CellsY    int        `json:"cellsY" unit:"1" default:"64" range:"[4,1024]" doc:"cells of the background grid along axisV"`
	Modes     int        `json:"modes" unit:"1" default:"64" range:"[1,1024]" doc:"Laplacian eigenmodes in the basis, those of smallest eigenvalue; at most (cellsX/2)·(cellsY/2)"`
	Viscosity float64    `json:"viscosity" unit:"m^2/s" default:"0" range:"[0,10]" doc:"kinematic viscosity ν: each eigenmode decays as exp(−νλt) (Eq. 5.6)"`
	Taylor    int        `json:"taylorOrder" unit:"1" default:"4" range:"[1,16]" doc:"terms of the Taylor series of the exponential step (Eq. 5.9)"`
	Density   float64    `json:"density" unit:"kg/m^3" default:"1.2" range:"(0,1e5]" doc:"density of the air in the dynamic pressure and buoyancy on the bodies (Eq. 5.20, 5.22)"`
	Feedback  string     `json:"feedback" default:"galerkin" doc:"how the panels' velocity is fed back into the modes (§5.3.4): galerkin (exact projection), quadtree (Eq. 5.19), naive or off"`
	FbError   float64    `json:"feedbackError" unit:"m/s" default:"0.001" range:"[0,1000]" doc:"quadtree feedback: error threshold of Eq. 5.19"`
	LeafCells int        `json:"leafCells" unit:"1" default:"4" range:"[1,64]" doc:"quadtree feedback: largest leaf, cells per side"`
	Sweeps    int        `json:"couplingIterations" unit:"1" default:"50" range:"[1,10000]" doc:"most sweeps of the multi-body panel iteration (Eq. 5.17)"`
	SweepTol  float64    `json:"couplingTolerance" unit:"1" default:"1e-10" range:"(0,1)" doc:"the sweeps stop when the largest panel-strength change is this fraction of the largest strength"`
	Images    bool       `json:"images" default:"true" doc:"mirror bodies near the domain's walls (method of images, §5.3.3)"`
	WallError float64    `json:"wallError" unit:"1" default:"0.01" range:"[0,1]" doc:"a body is mirrored across a wall when (R/d)² exceeds this (R its radius, d its distance to the wall)"`

	// Enrich are user-authored or data-driven velocity fields added to the basis (§5.2,
	// Eq. 5.10), in the domain's 2D coordinates; Go API only.
	Enrich []reduced.Field `json:"-"`
}

// DefaultReducedDomain returns the declared defaults: a 1 × 1 m domain in the world's xy plane
// at the origin, 64 eigenmodes of a 64 × 64 grid, inviscid air.
func DefaultReducedDomain() ReducedDomain {
	var r ReducedDomain
	params.Defaults(&r)
	return r
}

// axisTolerance is how far the axes may be from unit length and from orthogonal: vectors
// written with six decimals are unit to about 1e-6.
const axisTolerance = 1e-5

// Config validates the declared ranges and relations (unit orthogonal axes, the mode count
// against the grid) and returns the physics/reduced configuration, errors naming the key.
func (r *ReducedDomain) Config(path string, gravity mgl64.Vec3, workers int) (reduced.Config, error) {
	if err := params.Validate(r, path); err != nil {
		return reduced.Config{}, err
	}
	for _, a := range []struct {
		key string
		v   mgl64.Vec3
	}{{"axisU", r.AxisU}, {"axisV", r.AxisV}} {
		if math.Abs(a.v.Len()-1) > axisTolerance {
			return reduced.Config{}, &params.Error{Path: pathJoin(path, a.key), Msg: fmt.Sprintf("%v has length %.6g, not 1", a.v, a.v.Len())}
		}
	}
	if d := r.AxisU.Dot(r.AxisV); math.Abs(d) > axisTolerance {
		return reduced.Config{}, &params.Error{Path: pathJoin(path, "axisV"), Msg: fmt.Sprintf("%v is not orthogonal to axisU %v (dot product %.3g)", r.AxisV, r.AxisU, d)}
	}
	if hi := min((r.CellsX/2)*(r.CellsY/2), reduced.MaxModes); r.Modes > hi {
		return reduced.Config{}, &params.Error{Path: pathJoin(path, "modes"), Msg: fmt.Sprintf("%d is out of range [1, %d]: a %d × %d grid resolves (cellsX/2)·(cellsY/2) = %d eigenmodes", r.Modes, hi, r.CellsX, r.CellsY, (r.CellsX/2)*(r.CellsY/2))}
	}
	fb := map[string]reduced.FeedbackMode{"galerkin": reduced.FeedbackGalerkin, "quadtree": reduced.FeedbackQuadtree, "naive": reduced.FeedbackNaive, "off": reduced.FeedbackOff}
	mode, ok := fb[r.Feedback]
	if !ok {
		return reduced.Config{}, &params.Error{Path: pathJoin(path, "feedback"), Msg: fmt.Sprintf("%q is not galerkin, quadtree, naive or off", r.Feedback)}
	}
	c := reduced.DefaultConfig()
	c.Width, c.Height, c.CellsX, c.CellsY, c.Modes = r.Width, r.Height, r.CellsX, r.CellsY, r.Modes
	c.Viscosity, c.TaylorOrder, c.Density = r.Viscosity, r.Taylor, r.Density
	c.Feedback, c.FeedbackError, c.LeafCells = mode, r.FbError, r.LeafCells
	c.CouplingIterations, c.CouplingTolerance, c.Images, c.WallError = r.Sweeps, r.SweepTol, r.Images, r.WallError
	// Eq. 5.22's buoyancy acts along the domain's −y: the world gravity's component along −axisV.
	c.Gravity = max(0, -gravity.Dot(r.AxisV.Normalize()))
	c.Workers = workers
	c.Enrich = r.Enrich
	if err := c.Validate(); err != nil {
		return reduced.Config{}, &params.Error{Path: path, Msg: err.Error()}
	}
	return c, nil
}
