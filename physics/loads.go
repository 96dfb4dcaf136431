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

// BoundaryPressure is the pressure p_b a boundary sample at xb carries in its pair with a
// fluid particle of pressure p and rest density ρ0 at xi: the particle's pressure extrapolated
// hydrostatically to the sample,
//
//	p_b = max(0, p + ρ0 g·(x_b − x_i)),
//
// the hydrostatic wall-pressure extrapolation of S. Adami, X. Y. Hu, N. A. Adams, "A
// generalized wall boundary condition for smoothed particle hydrodynamics", J. Comput. Phys.
// 231 (2012), Eq. 27, p_w = (Σ_f p_f W_wf + (g − a_w)·Σ_f ρ_f r_wf W_wf)/Σ_f W_wf, taken
// pairwise (the Shepard average over the sample's fluid neighbours replaced by the one
// particle of the pair) and with the boundary's own acceleration left out (a_w = 0: exact
// for walls and bodies at rest). Band et al., "Pressure Boundaries for Implicit
// Incompressible SPH", ACM TOG 37(2), 2018, discuss the issues of IISPH's pressure mirroring
// (p_b = p_i) and solve for the samples' pressures in an extended pressure equation instead.
// Both the Shepard and the pairwise form are exact for a hydrostatic (linear) pressure field;
// the pairwise one keeps the pressure system local (p_b depends on p_i only, no boundary
// neighbour lists) and makes every fluid–sample force a pair force, so a body's load is
// exactly the reaction. Negative values are clamped as the fluid's own pressures are: a
// sample above the free surface borders air.
func BoundaryPressure(p, rho0 float64, g, xi, xb *Vec3) float64 {
	h := rho0 * (g[0]*(xb[0]-xi[0]) + g[1]*(xb[1]-xi[1]) + g[2]*(xb[2]-xi[2]))
	return max(0, p+h)
}
