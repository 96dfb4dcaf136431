package components

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics/reduced"
)

// WindBox is a model-reduced 3D wind (physics/reduced.Box: the closed-form Laplacian
// eigenbasis of a box, beyond the 2D chapter 5 of Gerszewski 2014) in an axis-aligned box of
// the world. A fan relaxes the air in a ball towards its velocity; the wind carries itself
// (Eq. 5.9) and pushes the dynamic rigid bodies in the box by quadratic drag and drags the
// fluid and goo particles in it towards its velocity. One-way: bodies and particles do not
// push the 3D wind back.
type WindBox struct {
	Min          mgl64.Vec3 `json:"min" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"lower corner of the box"`
	Max          mgl64.Vec3 `json:"max" unit:"m" default:"[1,1,1]" range:"[-1e6,1e6]" doc:"upper corner of the box"`
	MaxWave      int        `json:"maxWave" unit:"1" default:"6" range:"[1,32]" doc:"largest wave number per axis among which the modes are chosen"`
	Modes        int        `json:"modes" unit:"1" default:"64" range:"[1,1024]" doc:"eigenmodes in the basis, those of smallest eigenvalue"`
	Viscosity    float64    `json:"viscosity" unit:"m^2/s" default:"0.001" range:"[0,10]" doc:"kinematic viscosity ν: each mode decays as exp(−ν|k|²t)"`
	Taylor       int        `json:"taylorOrder" unit:"1" default:"4" range:"[1,16]" doc:"terms of the Taylor series of the exponential step (Eq. 5.9)"`
	Density      float64    `json:"density" unit:"kg/m^3" default:"1.2" range:"(0,1e5]" doc:"density of the air in the drag on rigid bodies"`
	BodyDrag     float64    `json:"bodyDrag" unit:"1" default:"1" range:"[0,100]" doc:"drag coefficient C_d of rigid bodies: F = ½ρ C_d A |u−v|(u−v) at the centre of mass, A the cross-section of the sphere of the body's volume"`
	ParticleDrag float64    `json:"particleDrag" unit:"1/s" default:"0" range:"[0,1000]" doc:"rate at which fluid and goo particles in the box take the wind's velocity: v ← u + (v − u)·exp(−rate·Δt) per step"`
	FanPosition  mgl64.Vec3 `json:"fanPosition" unit:"m" default:"[0.5,0.5,0.5]" range:"[-1e6,1e6]" doc:"centre of the fan's ball (world)"`
	FanRadius    float64    `json:"fanRadius" unit:"m" default:"0" range:"[0,1e6]" doc:"radius of the fan's Gaussian ball, weight exp(−d²/radius²); 0: no fan"`
	FanVelocity  mgl64.Vec3 `json:"fanVelocity" unit:"m/s" default:"[0,0,0]" range:"[-1000,1000]" doc:"velocity the fan drives the air towards in its ball"`
	FanTime      float64    `json:"fanTime" unit:"s" default:"0.1" range:"(0,1000]" doc:"relaxation time τ of the fan"`
}

// DefaultWindBox returns the declared defaults: a 1 m cube at the origin, 64 modes, no fan.
func DefaultWindBox() WindBox {
	var w WindBox
	params.Defaults(&w)
	return w
}

// Config validates the keys and relations and returns the physics/reduced configuration.
func (w *WindBox) Config(path string) (reduced.BoxConfig, error) {
	if err := params.Validate(w, path); err != nil {
		return reduced.BoxConfig{}, err
	}
	c := reduced.DefaultBoxConfig()
	for e := range 3 {
		c.Size[e] = w.Max[e] - w.Min[e]
		if !(c.Size[e] > 0) {
			return reduced.BoxConfig{}, &params.Error{Path: pathJoin(path, "max"), Msg: fmt.Sprintf("%v is not above min %v on axis %d", w.Max, w.Min, e)}
		}
	}
	c.MaxWave, c.Modes, c.Viscosity, c.TaylorOrder = w.MaxWave, w.Modes, w.Viscosity, w.Taylor
	// the number of fields with wave numbers up to K per axis: two per triple of ≥ 1, one per
	// triple with exactly one 0
	k := w.MaxWave
	fields := 2*k*k*k + 3*k*k
	if hi := min(fields, reduced.MaxModes); w.Modes > hi {
		return reduced.BoxConfig{}, &params.Error{Path: pathJoin(path, "modes"), Msg: fmt.Sprintf("%d is out of range [1, %d]: wave numbers up to maxWave = %d give %d fields", w.Modes, hi, k, fields)}
	}
	return c, nil
}
