package rigid

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// Vec3 is the vector type of every per-sample field (mathgl's, shared with the ECS).
type Vec3 = physics.Vec3

// Mat3 is a row-major 3x3 matrix. The solver works on plain arrays: Go's array-valued methods
// are several times slower in the contact loops than indexed arithmetic (DESIGN §10).
type Mat3 [9]float64

// Quat is a unit quaternion (w, x, y, z) rotating body space to world space.
type Quat [4]float64

// Identity3 is the 3x3 identity.
var Identity3 = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

// QuatIdentity is the rotation by zero.
var QuatIdentity = Quat{1, 0, 0, 0}

func add(a, b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub(a, b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale(a Vec3, s float64) Vec3 {
	return Vec3{a[0] * s, a[1] * s, a[2] * s}
}
func dot(a, b Vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm(a Vec3) float64 { return math.Sqrt(dot(a, a)) }

// MulVec returns m·v.
func (m *Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// MulTVec returns mᵀ·v.
func (m *Mat3) MulTVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

// Mul returns a·b.
func (a *Mat3) Mul(b *Mat3) Mat3 {
	var c Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			c[3*i+j] = a[3*i]*b[j] + a[3*i+1]*b[3+j] + a[3*i+2]*b[6+j]
		}
	}
	return c
}

// Transpose returns aᵀ.
func (a *Mat3) Transpose() Mat3 {
	return Mat3{a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]}
}

// Det returns the determinant.
func (a *Mat3) Det() float64 {
	return a[0]*(a[4]*a[8]-a[5]*a[7]) - a[1]*(a[3]*a[8]-a[5]*a[6]) + a[2]*(a[3]*a[7]-a[4]*a[6])
}

// Inverse returns a⁻¹ and false when a is singular (|det| below 1e-300 or not finite).
func (a *Mat3) Inverse() (Mat3, bool) {
	d := a.Det()
	if !(math.Abs(d) > 1e-300) || math.IsInf(d, 0) {
		return Mat3{}, false
	}
	id := 1 / d
	return Mat3{
		(a[4]*a[8] - a[5]*a[7]) * id, (a[2]*a[7] - a[1]*a[8]) * id, (a[1]*a[5] - a[2]*a[4]) * id,
		(a[5]*a[6] - a[3]*a[8]) * id, (a[0]*a[8] - a[2]*a[6]) * id, (a[2]*a[3] - a[0]*a[5]) * id,
		(a[3]*a[7] - a[4]*a[6]) * id, (a[1]*a[6] - a[0]*a[7]) * id, (a[0]*a[4] - a[1]*a[3]) * id,
	}, true
}

// Normalize returns q scaled to unit length.
func (q Quat) Normalize() Quat {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return Quat{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// Len returns |q|.
func (q Quat) Len() float64 { return math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]) }

// QuatAxisAngle is the rotation by angle (rad) about axis (normalised here; a zero axis gives
// the identity).
func QuatAxisAngle(axis Vec3, angle float64) Quat {
	l := norm(axis)
	if l == 0 || angle == 0 {
		return QuatIdentity
	}
	s := math.Sin(0.5*angle) / l
	return Quat{math.Cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s}
}

// Mul returns the Hamilton product p·q (rotate by q, then by p).
func (p Quat) Mul(q Quat) Quat {
	return Quat{
		p[0]*q[0] - p[1]*q[1] - p[2]*q[2] - p[3]*q[3],
		p[0]*q[1] + p[1]*q[0] + p[2]*q[3] - p[3]*q[2],
		p[0]*q[2] - p[1]*q[3] + p[2]*q[0] + p[3]*q[1],
		p[0]*q[3] + p[1]*q[2] - p[2]*q[1] + p[3]*q[0],
	}
}

// Matrix returns the rotation matrix of a unit quaternion.
func (q Quat) Matrix() Mat3 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return Mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

// Integrate advances the orientation by the angular velocity ω (world frame) over dt with the
// exact rotation exp(ω dt) (so a constant spin keeps its rate whatever the step) and
// renormalises.
func (q Quat) Integrate(w Vec3, dt float64) Quat {
	a := norm(w) * dt
	if a == 0 {
		return q
	}
	return QuatAxisAngle(w, a).Mul(q).Normalize()
}

// rotateInertia returns R·I·Rᵀ, a body-frame tensor in world frame.
func rotateInertia(r *Mat3, i *Mat3) Mat3 {
	ri := r.Mul(i)
	rt := r.Transpose()
	return ri.Mul(&rt)
}

// ApplyImpulse changes a body's velocities by the impulse j (N s, world) applied at the world
// point at: ΔV = j/m and ΔW = I⁻¹ ((at − X) × j), with the world inverse inertia R I_b⁻¹ Rᵀ
// of the body's present orientation. Static and kinematic bodies have zero inverse mass and
// inertia and do not change.
func (b *Body) ApplyImpulse(j, at Vec3) {
	b.V = add(b.V, b.linDelta(j))
	b.ApplyAngularImpulse(cross(sub(at, b.X), j))
}

// ApplyAngularImpulse changes a body's angular velocity by I⁻¹ l for the angular impulse l
// (N m s, world); a planar body turns about its plane normal only (planar.go).
func (b *Body) ApplyAngularImpulse(l Vec3) {
	r := b.Q.Matrix()
	if b.Planar() {
		pi := b.planarInvInertia(&r)
		b.W = add(b.W, pi.MulVec(l))
		return
	}
	lb := r.MulTVec(l)
	wb := b.InvInertia.MulVec(lb)
	b.W = add(b.W, r.MulVec(wb))
}
