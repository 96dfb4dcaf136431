package components

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/params"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// RigidBody makes a boundary body a rigid body: a static, kinematic (scripted) or dynamic box,
// sphere, capsule or closed triangle mesh whose surface carries boundary particles (Akinci et
// al. 2012) that move with it. The fluid pushes on dynamic bodies through its pressure (so
// they float or sink by Archimedes' principle), and bodies collide with each other and with
// the walls. The declared fields are what a scene sets; the rest is the body's state.
type RigidBody struct {
	Type            string     `json:"type" default:"dynamic" doc:"static (never moves), kinematic (moves with its velocity or motion path, is not pushed) or dynamic"`
	Shape           string     `json:"shape" default:"box" doc:"box, sphere, capsule or mesh (a closed OBJ mesh: file)"`
	Size            mgl64.Vec3 `json:"size" unit:"m" default:"[0.2,0.2,0.2]" range:"[0,10000]" doc:"box: edge lengths along the body axes"`
	Radius          float64    `json:"radius" unit:"m" default:"0.1" range:"[0,10000]" doc:"sphere and capsule: radius"`
	Length          float64    `json:"length" unit:"m" default:"0.2" range:"[0,10000]" doc:"capsule: distance between the centres of its two caps (along the body y axis)"`
	Density         float64    `json:"density" unit:"kg/m^3" default:"1000" range:"(0,1000000]" doc:"density of the body's material; mass = density × volume unless mass is given"`
	Mass            float64    `json:"mass" unit:"kg" default:"0" range:"[0,1e9]" doc:"mass (0: density × volume); the shape's inertia scales with it"`
	Inertia         mgl64.Vec3 `json:"inertia" unit:"kg m^2" default:"[0,0,0]" range:"[0,1e12]" doc:"principal moments of inertia about the centre of mass along the body axes ([0,0,0]: from the shape and mass)"`
	Position        mgl64.Vec3 `json:"position" unit:"m" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"where the shape's origin goes: a box's, sphere's or capsule's centre, a mesh's model origin"`
	Orientation     [4]float64 `json:"orientation" unit:"1" default:"[1,0,0,0]" range:"[-1,1]" doc:"rotation of the body as a unit quaternion [w, x, y, z]"`
	Velocity        mgl64.Vec3 `json:"velocity" unit:"m/s" default:"[0,0,0]" range:"[-10000,10000]" doc:"initial linear velocity (of the centre of mass)"`
	AngularVelocity mgl64.Vec3 `json:"angularVelocity" unit:"rad/s" default:"[0,0,0]" range:"[-10000,10000]" doc:"initial angular velocity (world axes)"`
	LinearDamping   float64    `json:"linearDamping" unit:"1/s" default:"0" range:"[0,1000]" doc:"linear velocity damping rate (v decays as 1/(1+Δt·d) per substep)"`
	AngularDamping  float64    `json:"angularDamping" unit:"1/s" default:"0" range:"[0,1000]" doc:"angular velocity damping rate"`
	Friction        float64    `json:"friction" unit:"1" default:"0.5" range:"[0,10]" doc:"Coulomb friction coefficient μ (a pair of bodies uses √(μ_a μ_b); against walls, the body's μ)"`
	Restitution     float64    `json:"restitution" unit:"1" default:"0" range:"[0,1]" doc:"coefficient of restitution e: impacts faster than 0.5 m/s rebound at e times their speed (a pair uses the larger e)"`
	CollisionLayers int        `json:"collisionLayers" unit:"1" default:"1" range:"[1,4294967295]" doc:"bit mask of the collision layers the body is on (bit k: layer k; at least one); walls are on layer 1 (bit 0)"`
	CollisionMask   int        `json:"collisionMask" unit:"1" default:"4294967295" range:"[0,4294967295]" doc:"bit mask of the layers the body collides with: two rigid bodies collide when each is on a layer of the other's mask, a body and the walls when its mask has bit 0; the fluid pushes every body whatever its layers"`

	// Mesh is the body's triangle mesh in model coordinates when Shape is "mesh" (a scene
	// reads it from its file).
	Mesh *rigid.Shape `json:"-"`

	// State is the solver's body: shape, mass properties, pose, velocities, samples and the
	// fluid's force on it. Set by World.AddRigidBody; the pose and velocities may be written by
	// a game between steps.
	State rigid.Body `json:"-"`
	// Volumes are the boundary samples' volumes V_b (m³), from the body's own samples alone.
	Volumes []float64 `json:"-"`
	// Interior are points filling the body (body frame), each an equal share of its volume.
	Interior []mgl64.Vec3 `json:"-"`
	// Displaced counts the fluid particles removed from inside the body when it was added.
	Displaced int `json:"-"`
	// Contacts counts the body's contact points at the last substep of the last step.
	Contacts int `json:"-"`
	// Submerged is the fraction of the body's volume below the water around it at the end of
	// the last step (0 in air, 1 fully under water).
	Submerged float64 `json:"-"`
}

// DefaultRigidBody returns the declared defaults: a dynamic 20 cm box of water's density.
func DefaultRigidBody() RigidBody {
	var r RigidBody
	params.Defaults(&r)
	return r
}

// unitQuatTolerance is how far |q| may be from 1: quaternions written in a scene with six
// decimals are unit to about 1e-6.
const unitQuatTolerance = 1e-5

// Validate checks the ranges and the relations: a known type and shape, a unit orientation,
// dimensions of at least one particle spacing, a closed mesh, and given principal moments that
// a real body can have (each at most the sum of the other two).
func (r *RigidBody) Validate(path string, spacing float64) error {
	if err := params.Validate(r, path); err != nil {
		return err
	}
	if _, err := r.Motion(); err != nil {
		return &params.Error{Path: pathJoin(path, "type"), Msg: err.Error()}
	}
	if r.Shape == "mesh" && r.Mesh == nil {
		return r.validateRest(path) // a scene's mesh is read when the world is built
	}
	sh, err := r.Geometry()
	if err != nil {
		return &params.Error{Path: pathJoin(path, "shape"), Msg: err.Error()}
	}
	if err := sh.Validate(spacing); err != nil {
		key := map[rigid.ShapeKind]string{rigid.Box: "size", rigid.Sphere: "radius", rigid.Capsule: "radius", rigid.Mesh: "file"}[sh.Kind]
		return &params.Error{Path: pathJoin(path, key), Msg: err.Error()}
	}
	return r.validateRest(path)
}

// validateRest checks the orientation and the given inertia.
func (r *RigidBody) validateRest(path string) error {
	q := r.Orientation
	if l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]); math.Abs(l-1) > unitQuatTolerance {
		return &params.Error{Path: pathJoin(path, "orientation"), Msg: fmt.Sprintf("%v has length %.6g, not 1 (a rotation is a unit quaternion [w, x, y, z])", q, l)}
	}
	if in := r.Inertia; in != (mgl64.Vec3{}) {
		for d := 0; d < 3; d++ {
			if !(in[d] > 0) {
				return &params.Error{Path: pathJoin(path, fmt.Sprintf("inertia[%d]", d)), Msg: fmt.Sprintf("%g kg m² must be above 0 (the tensor is degenerate)", in[d])}
			}
		}
		for d := 0; d < 3; d++ {
			if a, b := in[(d+1)%3], in[(d+2)%3]; in[d] > (a+b)*(1+1e-9) {
				return &params.Error{Path: pathJoin(path, fmt.Sprintf("inertia[%d]", d)), Msg: fmt.Sprintf("%g kg m² exceeds the sum of the other two moments %g (no body has such an inertia tensor)", in[d], a+b)}
			}
		}
	}
	return nil
}

// Motion returns the body's kind of motion.
func (r *RigidBody) Motion() (rigid.Motion, error) {
	switch r.Type {
	case "static":
		return rigid.Static, nil
	case "kinematic":
		return rigid.Kinematic, nil
	case "dynamic":
		return rigid.Dynamic, nil
	}
	return 0, fmt.Errorf("%q is not a body type (static, kinematic or dynamic)", r.Type)
}

// Geometry returns the body's shape in model coordinates (a mesh is Mesh, copied).
func (r *RigidBody) Geometry() (rigid.Shape, error) {
	switch r.Shape {
	case "box":
		return rigid.Shape{Kind: rigid.Box, HalfExtents: r.Size.Mul(0.5)}, nil
	case "sphere":
		return rigid.Shape{Kind: rigid.Sphere, Radius: r.Radius}, nil
	case "capsule":
		return rigid.Shape{Kind: rigid.Capsule, Radius: r.Radius, HalfLength: 0.5 * r.Length}, nil
	case "mesh":
		if r.Mesh == nil || len(r.Mesh.Tris) == 0 {
			return rigid.Shape{}, fmt.Errorf("mesh shape without a mesh (give the OBJ file)")
		}
		m := rigid.Shape{Kind: rigid.Mesh, V: append([]mgl64.Vec3(nil), r.Mesh.V...), Tris: r.Mesh.Tris}
		return m, nil
	}
	return rigid.Shape{}, fmt.Errorf("%q is not a shape (box, sphere, capsule or mesh)", r.Shape)
}
