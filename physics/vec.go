package physics

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Vec3 is the element type of every per-particle vector field. It is mathgl's vector so the
// ECS components and the solver share one memory layout (copies are plain copy calls); inner
// loops index its components directly instead of chaining array-valued methods.
type Vec3 = mgl64.Vec3

// Dist2 returns the squared distance between a and b.
func Dist2(a, b Vec3) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return dx*dx + dy*dy + dz*dz
}

// Norm returns the Euclidean length of a.
func Norm(a Vec3) float64 { return math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2]) }

// Finite reports whether every component of a is neither NaN nor ±Inf.
func Finite(a Vec3) bool {
	return !math.IsNaN(a[0]+a[1]+a[2]) && !math.IsInf(a[0]+a[1]+a[2], 0)
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
