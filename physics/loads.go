package physics

// Per-body loads summed in parallel: each work block accumulates into its own slice of six
// numbers per body (force, then torque about the body's centre), and ReduceLoads adds the
// blocks in block order, so the totals do not depend on the number of workers (DESIGN §7).

// AddLoad adds the force (fx, fy, fz) acting at r = (rx, ry, rz) from the body's centre to a
// body's six partial sums q: the force and its torque r × f.
func AddLoad(q []float64, rx, ry, rz, fx, fy, fz float64) {
	q = q[:6]
	q[0] += fx
	q[1] += fy
	q[2] += fz
	q[3] += ry*fz - rz*fy
	q[4] += rz*fx - rx*fz
	q[5] += rx*fy - ry*fx
}

// ReduceLoads sums the per-block partials (blocks × bodies × 6, block-major) into force and
// torque per body, adding the blocks in order.
func ReduceLoads(partial []float64, bodies, blocks int, force, torque []Vec3) {
	for k := 0; k < bodies; k++ {
		var f, t Vec3
		for b := 0; b < blocks; b++ {
			q := partial[6*(b*bodies+k):]
			f = Vec3{f[0] + q[0], f[1] + q[1], f[2] + q[2]}
			t = Vec3{t[0] + q[3], t[1] + q[4], t[2] + q[5]}
		}
		force[k], torque[k] = f, t
	}
}
