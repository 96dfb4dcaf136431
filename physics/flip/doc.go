package flip

import "github.com/sluicephysics/sluice/physics"

// Vec3 is physics.Vec3.
type Vec3 = physics.Vec3
