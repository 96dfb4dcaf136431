package scene

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/params"
)

// ElastoplasticBody is a point-based elastoplastic solid (Gerszewski et al. 2009): a box or a
// ball filled with particles at spacing 2r, whose sampled shape is its shape at rest, with an
// initial velocity and spin. Its material's elastoplastic group holds the moduli and the
// plastic parameters (presets dough, clay, snow).
type ElastoplasticBody struct {
	Name            string              `json:"name" required:"true" doc:"unique body name"`
	Shape           string              `json:"shape" default:"box" doc:"box (min, max) or sphere (center, radius)"`
	Min             mgl64.Vec3          `json:"min" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"box: lower corner"`
	Max             mgl64.Vec3          `json:"max" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"box: upper corner"`
	Center          mgl64.Vec3          `json:"center" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"sphere: centre"`
	Radius          float64             `json:"radius" unit:"m" default:"0" range:"[0,1e6]" doc:"sphere: radius (at least the spacing 2r)"`
	Velocity        mgl64.Vec3          `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial velocity"`
	AngularVelocity mgl64.Vec3          `json:"angularVelocity" unit:"rad/s" default:"[0,0,0]" range:"[-1e4,1e4]" doc:"initial spin about the body's centroid"`
	Material        components.Material `json:"material" doc:"material; the elastoplastic group holds the moduli and the plastic parameters"`
}

// validate checks the shape, the name (through unique, the scene's name registry) and the
// material, naming the key at path.
func (b *ElastoplasticBody) validate(path string, spacing float64, unique func(path, name string) error) error {
	if err := unique(path, b.Name); err != nil {
		return err
	}
	switch b.Shape {
	case "box":
		for d := 0; d < 3; d++ {
			if !(b.Max[d] > b.Min[d]) {
				return &params.Error{Path: fmt.Sprintf("%s.max[%d]", path, d), Msg: fmt.Sprintf("%g m must exceed min[%d] = %g m", b.Max[d], d, b.Min[d])}
			}
		}
	case "sphere":
		if b.Radius < spacing {
			return &params.Error{Path: path + ".radius", Msg: fmt.Sprintf("%g m is below the particle spacing 2r = %g m", b.Radius, spacing)}
		}
	default:
		return &params.Error{Path: path + ".shape", Msg: fmt.Sprintf("%q is not an elastoplastic body shape (box or sphere)", b.Shape)}
	}
	return b.Material.Validate(path + ".material")
}

// add creates the elastoplastic body in w and gives it its velocity and spin.
func (b *ElastoplasticBody) add(w *sluice.World) error {
	var e sluice.Entity
	var err error
	if b.Shape == "sphere" {
		e, err = w.AddElastoplasticSphere(b.Name, b.Material, b.Center, b.Radius, b.Velocity)
	} else {
		e, err = w.AddElastoplasticBlock(b.Name, b.Material, b.Min, b.Max, b.Velocity)
	}
	if err != nil || b.AngularVelocity == (mgl64.Vec3{}) {
		return err
	}
	spin(w.Particles(e).X, w.Particles(e).V, b.AngularVelocity)
	return nil
}

// spin adds ω × (x − c) to every velocity, c the centroid of the positions.
func spin(x, v []mgl64.Vec3, omega mgl64.Vec3) {
	var c mgl64.Vec3
	for _, p := range x {
		c = c.Add(p)
	}
	c = c.Mul(1 / float64(len(x)))
	for i, p := range x {
		v[i] = v[i].Add(omega.Cross(p.Sub(c)))
	}
}
