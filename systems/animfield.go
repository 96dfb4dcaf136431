package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/ecs"
	"github.com/sluicephysics/sluice/physics"
)

// StageAnimationFields is the name of the animation-field stage: right after Integration, as
// in SPlisHSPlasH, whose time steps animate the particles after integrating them and before
// advancing the time, so the expressions see the substep's start time t and the integrated
// positions and velocities, and what they write is what the next substep starts from.
const StageAnimationFields = "AnimationFields"

// AnimField is one compiled animation field (components.AnimationField).
type AnimField struct {
	Name string
	Def  components.AnimationField

	quantity int           // index in components.AnimationQuantities
	shape    int           // index in components.AnimationShapes
	rot      [3][3]float64 // world → shape coordinates: the transpose of the shape's rotation
	half     physics.Vec3  // box: half edge lengths
	r2       float64       // sphere: radius²; cylinder: radius²
	halfH    float64       // cylinder: half height along the local x axis
	expr     [3]*Expr      // nil: the component is left alone
}

// NewAnimField validates def (path names it in errors; dims is the world's dimension) and
// compiles its expressions.
func NewAnimField(name, path string, def components.AnimationField, dims int) (*AnimField, error) {
	if err := def.Validate(path, dims); err != nil {
		return nil, err
	}
	a := &AnimField{Name: name, Def: def}
	a.quantity = slices.Index(components.AnimationQuantities, def.Field)
	a.shape = slices.Index(components.AnimationShapes, def.Shape)
	for d, k := range []string{"x", "y", "z"} {
		src := def.Expr(d)
		if src == "" {
			continue
		}
		e, err := CompileExpr(src)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", path, k, err)
		}
		a.expr[d] = e
	}
	// Rodrigues' formula R = cos θ·I + sin θ·[n]× + (1 − cos θ)·n nᵀ for the unit axis n; the
	// shape's coordinates of a world point x are Rᵀ(x − center).
	n := def.RotationAxis.Normalize()
	sn, c := math.Sincos(def.RotationAngle)
	k := [3][3]float64{{0, -n[2], n[1]}, {n[2], 0, -n[0]}, {-n[1], n[0], 0}}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r := (1-c)*n[i]*n[j] + sn*k[i][j]
			if i == j {
				r += c
			}
			a.rot[j][i] = r
		}
	}
	a.half = def.Size.Mul(0.5)
	switch def.Shape {
	case "sphere":
		a.r2 = def.Size[0] * def.Size[0]
	case "cylinder":
		a.halfH, a.r2 = 0.5*def.Size[0], def.Size[1]*def.Size[1]
	}
	return a, nil
}

// Inside reports whether the point x is strictly inside the field's shape.
func (a *AnimField) Inside(x physics.Vec3) bool {
	d0, d1, d2 := x[0]-a.Def.Center[0], x[1]-a.Def.Center[1], x[2]-a.Def.Center[2]
	l0 := a.rot[0][0]*d0 + a.rot[0][1]*d1 + a.rot[0][2]*d2
	l1 := a.rot[1][0]*d0 + a.rot[1][1]*d1 + a.rot[1][2]*d2
	l2 := a.rot[2][0]*d0 + a.rot[2][1]*d1 + a.rot[2][2]*d2
	switch a.shape {
	case 1:
		return l0*l0+l1*l1+l2*l2 < a.r2
	case 2:
		return l0 > -a.halfH && l0 < a.halfH && l1*l1+l2*l2 < a.r2
	}
	return math.Abs(l0) < a.half[0] && math.Abs(l1) < a.half[1] && math.Abs(l2) < a.half[2]
}

// animState is the stage's state in the Sim: the fields in the order they were added, and
// the arguments of the block loop in flight (a method value made once, so a substep
// allocates nothing).
type animState struct {
	Fields []*AnimField
	cur    *AnimField
	t, dt  float64
	fn     func(lo, hi, block int)
}

// AnimationFields reads the packed positions and velocities after Integration and overwrites,
// for every fluid particle inside an active field's shape, the field's quantity (velocity,
// microrotation or position) with its expressions' values (components.AnimationField). The
// fields act one after another in the order they were added, each in parallel over fixed
// blocks of particles; every particle's new value depends on that particle alone, so the
// result does not depend on the worker count. A no-op without fields.
type AnimationFields struct{ S *Sim }

// Run implements ecs.System.
func (af AnimationFields) Run(ctx *ecs.Context) error {
	s := af.S
	st := &s.Anim
	if len(st.Fields) == 0 || s.Fluid.Len() == 0 {
		return nil
	}
	if st.fn == nil {
		st.fn = s.animBlock
	}
	st.t, st.dt = ctx.Time, ctx.Dt
	for _, a := range st.Fields {
		if ctx.Time < a.Def.StartTime || ctx.Time > a.Def.EndTime {
			continue
		}
		if n := s.Fluid.Len(); a.quantity == 1 && len(s.Fluid.Omega) != n {
			// the microrotation may be left empty until a stage first uses it: give it the
			// set's length, zeros beyond what it held (once, not per substep)
			old := s.Fluid.Omega
			s.Fluid.Omega = make([]physics.Vec3, n)
			copy(s.Fluid.Omega, old)
		}
		st.cur = a
		s.pool.For(s.Fluid.Len(), st.fn)
	}
	st.cur = nil
	return nil
}

// animBlock applies the current field to the packed particles [lo, hi). As in the reference,
// the three expressions all see the values from before the field writes.
func (s *Sim) animBlock(lo, hi, _ int) {
	a := s.Anim.cur
	f := &s.Fluid
	var q []physics.Vec3
	switch a.quantity {
	case 0:
		q = f.V
	case 1:
		q = f.Omega
	default:
		q = f.X
	}
	var vars [NumExprVars]float64
	vars[VarT], vars[VarDt] = s.Anim.t, s.Anim.dt
	for i := lo; i < hi; i++ {
		if f.NotFluid != nil && f.NotFluid[i] {
			continue
		}
		x := f.X[i]
		if !a.Inside(x) {
			continue
		}
		v := f.V[i]
		val := q[i]
		vars[VarX], vars[VarY], vars[VarZ] = x[0], x[1], x[2]
		vars[VarVx], vars[VarVy], vars[VarVz] = v[0], v[1], v[2]
		vars[VarValueX], vars[VarValueY], vars[VarValueZ] = val[0], val[1], val[2]
		for d := 0; d < 3; d++ {
			if e := a.expr[d]; e != nil {
				val[d] = e.Eval(&vars)
			}
		}
		q[i] = val
	}
}
