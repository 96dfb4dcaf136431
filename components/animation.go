package components

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/params"
)

// AnimationField overwrites a per-particle quantity of the fluid inside a shape with math
// expressions of time and the particle's state, every substep from StartTime to EndTime (the
// animation fields of SPlisHSPlasH's scenes; docs/animation.md). The shape is placed like
// SPlisHSPlasH's: scaled by Size, rotated by RotationAngle about RotationAxis, centred at
// Center. An empty expression leaves that component alone. The expressions' variables,
// constants and functions are those of systems.CompileExpr.
type AnimationField struct {
	Field         string     `json:"field" default:"velocity" doc:"the quantity overwritten: velocity (m/s), angularVelocity (the micropolar microrotation ω, 1/s) or position (m)"`
	Shape         string     `json:"shape" default:"box" doc:"box (edge lengths size), sphere (radius size[0]) or cylinder (height size[0] along the local x axis, radius size[1])"`
	Center        mgl64.Vec3 `json:"center" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"centre of the shape"`
	RotationAxis  mgl64.Vec3 `json:"rotationAxis" default:"[1,0,0]" range:"[-1e6,1e6]" doc:"axis the shape is turned about"`
	RotationAngle float64    `json:"rotationAngle" unit:"rad" default:"0" range:"[-100,100]" doc:"angle the shape is turned by about rotationAxis"`
	Size          mgl64.Vec3 `json:"size" unit:"m" default:"[1,1,1]" range:"[0,1e6]" doc:"box: edge lengths along the local axes; sphere: radius in x; cylinder: height in x, radius in y"`
	X             string     `json:"x" default:"" doc:"expression of the x component (empty: left alone)"`
	Y             string     `json:"y" default:"" doc:"expression of the y component (empty: left alone)"`
	Z             string     `json:"z" default:"" doc:"expression of the z component (empty: left alone)"`
	StartTime     float64    `json:"startTime" unit:"s" default:"0" range:"[0,inf)" doc:"the field acts in the substeps that start at a time t with startTime ≤ t ≤ endTime"`
	EndTime       float64    `json:"endTime" unit:"s" default:"1e9" range:"[0,inf)" doc:"last start time of a substep the field acts in"`
}

// The quantities and shapes of an animation field.
var (
	AnimationQuantities = []string{"velocity", "angularVelocity", "position"}
	AnimationShapes     = []string{"box", "sphere", "cylinder"}
)

// DefaultAnimationField returns the declared defaults: a 1 m box at the origin that
// overwrites no component.
func DefaultAnimationField() AnimationField {
	var a AnimationField
	params.Defaults(&a)
	return a
}

// Validate checks the declared ranges, the quantity and shape names and the relations:
// endTime not below startTime, a non-zero axis, the sizes the shape uses above zero and, in a
// 2D world (dims 2), no expression for a component the plane does not have (velocity and
// position z, angular velocity x and y). The expressions themselves are compiled by the world.
func (a *AnimationField) Validate(path string, dims int) error {
	if err := params.Validate(a, path); err != nil {
		return err
	}
	if !slices.Contains(AnimationQuantities, a.Field) {
		return &params.Error{Path: pathJoin(path, "field"), Msg: fmt.Sprintf("%q is not one of %v", a.Field, AnimationQuantities)}
	}
	if !slices.Contains(AnimationShapes, a.Shape) {
		return &params.Error{Path: pathJoin(path, "shape"), Msg: fmt.Sprintf("%q is not one of %v", a.Shape, AnimationShapes)}
	}
	if a.EndTime < a.StartTime {
		return &params.Error{Path: pathJoin(path, "endTime"), Msg: fmt.Sprintf("%g s is below startTime %g s", a.EndTime, a.StartTime)}
	}
	if a.RotationAxis.Len() == 0 {
		return &params.Error{Path: pathJoin(path, "rotationAxis"), Msg: "must not be zero"}
	}
	used := map[string]int{"box": 3, "sphere": 1, "cylinder": 2}[a.Shape]
	for d := 0; d < used; d++ {
		if !(a.Size[d] > 0) {
			return &params.Error{Path: pathJoin(path, "size"), Msg: fmt.Sprintf("%v: component %d must be above 0 for a %s", a.Size, d, a.Shape)}
		}
	}
	if dims == 2 {
		off := []string{"z"}
		if a.Field == "angularVelocity" {
			off = []string{"x", "y"}
		}
		for _, k := range off {
			if a.Expr(map[string]int{"x": 0, "y": 1, "z": 2}[k]) != "" {
				return &params.Error{Path: pathJoin(path, k), Msg: fmt.Sprintf("a 2D world has no %s component of %s; leave the expression empty", k, a.Field)}
			}
		}
	}
	return nil
}

// Expr returns the expression of component d (0 x, 1 y, 2 z).
func (a *AnimationField) Expr(d int) string {
	return [3]string{a.X, a.Y, a.Z}[d]
}
