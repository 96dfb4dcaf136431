package components

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Joint describes a joint between two rigid bodies, or a rigid body and the world, as the
// bodies stand when it is added (World.AddJoint; the scene key joints). Its parameters are
// declared here once.
type Joint struct {
	// Kind is "ball" (the bodies turn freely about the anchor), "hinge" (they turn about
	// Axis through the anchor only), "fixed" (they move as one) or "slider" (they keep their
	// relative orientation, and a's anchor point moves along Axis, carried by a, relative to
	// b's: a piston, a lift).
	Kind string `json:"kind" required:"true" doc:"ball, hinge, fixed or slider"`
	// Anchor is the world point joined; each body keeps it at the place of its own frame
	// where it is now.
	Anchor mgl64.Vec3 `json:"anchor" unit:"m" required:"true" range:"[-1e6,1e6]" doc:"the world point joined, as the bodies stand when the joint is added"`
	// Axis is the hinge's or slider's axis in world axes now; each body keeps it in its own
	// frame.
	Axis mgl64.Vec3 `json:"axis" unit:"1" default:"[0,0,0]" range:"[-1e6,1e6]" doc:"hinge and slider: the axis in world axes as the bodies stand (any length but zero)"`
	// A hinge's velocity motor drives body a's spin relative to b about the axis
	// (right-handed) to MotorSpeed (rad/s) with at most MotorMaxTorque; a slider's drives a's
	// speed along the axis relative to b to MotorSpeed (m/s) with at most MotorMaxForce.
	MotorSpeed     float64 `json:"motorSpeed" unit:"rad/s or m/s" default:"0" range:"[-1e6,1e6]" doc:"hinge: a's spin relative to b about the axis (right-handed); slider: a's speed along the axis relative to b"`
	MotorMaxTorque float64 `json:"motorMaxTorque" unit:"N m" default:"0" range:"[0,1e12]" doc:"hinge: the motor's largest torque (0: no motor)"`
	MotorMaxForce  float64 `json:"motorMaxForce" unit:"N" default:"0" range:"[0,1e12]" doc:"slider: the motor's largest force (0: no motor)"`
	// MotorSchedule, when not empty, sets MotorSpeed from the simulated time at every
	// substep: (time, speed) keys joined linearly, the first key's speed before it and the
	// last's after it, or, with RepeatSchedule, the keys repeated with the period from the
	// first key's time to the last's (the reference library's targetSequence).
	MotorSchedule  []MotorKey `json:"motorSchedule" doc:"motor speed keys over time, joined linearly (empty: the constant motorSpeed)"`
	RepeatSchedule bool       `json:"repeatSchedule" default:"false" doc:"repeat motorSchedule with the period from its first key's time to its last's"`
	// Limited bounds a hinge's angle (a's turn relative to b about the axis, right-handed,
	// from where they are when joined; rad, −π ≤ Lower ≤ Upper ≤ π) or a slider's offset
	// (a's anchor point along the axis from b's, from where they are when joined; m) to
	// [Lower, Upper]. The joint's pose when added must lie within them.
	Limited bool    `json:"limited" default:"false" doc:"hinge and slider: keep the angle or offset within [lower, upper]"`
	Lower   float64 `json:"lower" unit:"rad or m" default:"0" range:"[-1e6,0]" doc:"hinge: least angle (≥ −π) of a relative to b from where they were joined; slider: least offset"`
	Upper   float64 `json:"upper" unit:"rad or m" default:"0" range:"[0,1e6]" doc:"hinge: greatest angle (≤ π); slider: greatest offset"`
}

// MotorKey is one key of a motor's speed schedule.
type MotorKey struct {
	Time  float64 `json:"time" unit:"s" required:"true" range:"[0,1e6]" doc:"simulated time of the key"`
	Speed float64 `json:"speed" unit:"rad/s or m/s" required:"true" range:"[-1e6,1e6]" doc:"motor speed at that time"`
}

// ScheduledSpeed returns the speed of the keys at time t (see Joint.MotorSchedule): linear
// between keys, the first key's speed before it, the last's after it, or with repeat the
// keys wrapped with the period from the first key's time to the last's. The keys' times
// must increase.
func ScheduledSpeed(keys []MotorKey, repeat bool, t float64) float64 {
	n := len(keys)
	if n == 0 {
		return 0
	}
	t0, t1 := keys[0].Time, keys[n-1].Time
	if repeat && t1 > t0 && t > t1 {
		t = t0 + math.Mod(t-t0, t1-t0)
	}
	if t <= t0 {
		return keys[0].Speed
	}
	for k := 1; k < n; k++ {
		if t <= keys[k].Time {
			a := (t - keys[k-1].Time) / (keys[k].Time - keys[k-1].Time)
			return (1-a)*keys[k-1].Speed + a*keys[k].Speed
		}
	}
	return keys[n-1].Speed
}
