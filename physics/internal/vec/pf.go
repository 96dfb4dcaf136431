package vec

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// PFPass holds the constants of the pair passes of Projective Fluids' local step (Weiler et
// al. 2016, Algorithm 1 on the density constraint of Eq. 8): the cubic spline's, one
// constraint's (its projected position p, its volume V_i) and the last Newton step's (the
// position p_o before it and u = −λ), each broadcast to four lanes, and the sums' lanes.
//
// The kernel is W = k(6q³ − 6q² + 1) for q ≤ ½, 2k(1 − q)³ for ½ < q < 1, 0 beyond, and the
// gradient factor g = W'(r)/r is l(3q − 2)/h² or −l(1 − q)²/(h r), evaluated as
// k((6q)q(q − 1) + 1), l(3q − 2)·h⁻², ((2k)a)a·a and (((−l)a)a·h⁻¹)/r with a = 1 − q,
// q = r·h⁻¹, r = √((x² + y²) + z²). Pair e adds into lane e mod 4 of each sum, each lane in
// list order, the lanes added as (l₀ + l₁) + (l₂ + l₃): the assembly takes four pairs a step,
// the last group masked so that its empty lanes add +0 (a lane's sum starts at +0 and so is
// never −0: adding +0 leaves it as it is), and the Go loop, where the processor lacks AVX2,
// does the same operations in the same order (no fused multiply-add), so both give the same
// bits.
type PFPass struct {
	// rows: p (x, y, z), V_i, p_o (x, y, z), u, h⁻¹, h⁻², k, 2k, l, −l; then the lanes of the
	// sums (W or V_b W, and the three gradient components and ‖∇‖² of the movable terms).
	rows  [14][4]float64
	acc   [5][4]float64 // the Go loop's lanes
	valid [4]uint64     // the assembly's lanes of the last, partial group
	scal  [8]float64    // p, V_i, p_o, u: set by SetConstraint and SetStep, broadcast by the assembly
	out   [5]float64    // the assembly's sums
	idx   [4]int32      // the assembly's indices of the last, partial group
}

// row indices of PFPass.rows
const (
	pfPx = iota
	pfPy
	pfPz
	pfVi
	pfPox
	pfPoy
	pfPoz
	pfU
	pfInvH
	pfInvH2
	pfK
	pfK2
	pfL
	pfNegL
)

func (a *PFPass) set(row int, v float64) { a.rows[row] = [4]float64{v, v, v, v} }

// SetKernel sets the cubic spline's constants: invH = 1/h, invH2 = 1/h², k = 8/(πh³) and
// l = 48/(πh³), as the caller's own scalar evaluation has them.
func (a *PFPass) SetKernel(invH, invH2, k, l float64) {
	a.set(pfInvH, invH)
	a.set(pfInvH2, invH2)
	a.set(pfK, k)
	a.set(pfK2, k*2)
	a.set(pfL, l)
	a.set(pfNegL, -l)
}

// SetConstraint sets the projected position p of the constraint's own particle and its
// volume V_i.
func (a *PFPass) SetConstraint(p *mgl64.Vec3, vi float64) {
	a.scal[0], a.scal[1], a.scal[2], a.scal[3] = p[0], p[1], p[2], vi
}

// SetStep sets the last Newton step: the position po of the own particle before it and
// u = −λ (Eq. 10–11).
func (a *PFPass) SetStep(po *mgl64.Vec3, u float64) {
	a.scal[4], a.scal[5], a.scal[6], a.scal[7] = po[0], po[1], po[2], u
}

// eval is the cubic spline at distance r, as the assembly computes it.
func (a *PFPass) eval(r float64) (w, g float64) {
	q := r * a.rows[pfInvH][0]
	if q >= 1 {
		return 0, 0
	}
	if q <= 0.5 {
		return a.rows[pfK][0] * (6*q*q*(q-1) + 1), a.rows[pfL][0] * (3*q - 2) * a.rows[pfInvH2][0]
	}
	b := 1 - q
	return a.rows[pfK2][0] * b * b * b, a.rows[pfNegL][0] * b * b * a.rows[pfInvH][0] / r
}

// pair is the Go loops' part common to First and Next for pair e at r = (rx, ry, rz): the
// kernel at |r|, the factor pg[e] = V_i g and the sums' lanes; it returns g.
func (a *PFPass) pair(e int, rx, ry, rz, vi float64, pg []float64) float64 {
	r2 := rx*rx + ry*ry + rz*rz
	wv, g := a.eval(math.Sqrt(r2))
	l := e & 3
	a.acc[0][l] += wv
	gv := g * vi
	pg[e] = gv
	a.acc[1][l] += gv * rx
	a.acc[2][l] += gv * ry
	a.acc[3][l] += gv * rz
	a.acc[4][l] += gv * gv * r2
	return g
}

func (a *PFPass) sums(n int) (s [5]float64) {
	for k := range s[:n] {
		s[k] = (a.acc[k][0] + a.acc[k][1]) + (a.acc[k][2] + a.acc[k][3])
	}
	return s
}

// First is the first pass over the fluid pairs of a constraint, at the iterate where no
// neighbour has moved: for the neighbours j = js[e] at x[j], with r = p − x[j] and the kernel
// at |r|, it stores the gradient g r in gx, gy, gz and the factor V_i g in pg, and returns
// Σ W, Σ V_i g r (three components) and Σ (V_i g)² r², the last with r² formed as
// (x² + y²) + z² as before the square root. gx, gy, gz and pg need len(js) elements.
func (a *PFPass) First(js []int32, x []mgl64.Vec3, gx, gy, gz, pg []float64) (sw, sx, sy, sz, sn float64) {
	n := len(js)
	gx, gy, gz, pg = gx[:n], gy[:n], gz[:n], pg[:n]
	if HasAVX2 && n > 0 {
		pfFirstAVX(&js[0], n, &x[0], &gx[0], &gy[0], &gz[0], &pg[0], a)
		return a.out[0], a.out[1], a.out[2], a.out[3], a.out[4]
	}
	p, vi := [3]float64{a.scal[0], a.scal[1], a.scal[2]}, a.scal[3]
	a.acc = [5][4]float64{}
	for e := 0; e < n; e++ {
		xj := &x[js[e]]
		rx, ry, rz := p[0]-xj[0], p[1]-xj[1], p[2]-xj[2]
		g := a.pair(e, rx, ry, rz, vi, pg)
		gx[e], gy[e], gz[e] = g*rx, g*ry, g*rz
	}
	s := a.sums(5)
	return s[0], s[1], s[2], s[3], s[4]
}

// Next is a later pass over the fluid pairs of a constraint: each neighbour first makes its
// move of the last Newton step, d += u pg (p_o − x[j] − d) with d = (dx, dy, dz)[e] its
// displacement so far and pg[e] the factor of that step; then, with r = p − x[j] − d, the
// kernel at |r| gives the new factor pg[e] = V_i g, and the sums are those of First.
func (a *PFPass) Next(js []int32, x []mgl64.Vec3, dx, dy, dz, pg []float64) (sw, sx, sy, sz, sn float64) {
	n := len(js)
	dx, dy, dz, pg = dx[:n], dy[:n], dz[:n], pg[:n]
	if HasAVX2 && n > 0 {
		pfNextAVX(&js[0], n, &x[0], &dx[0], &dy[0], &dz[0], &pg[0], a)
		return a.out[0], a.out[1], a.out[2], a.out[3], a.out[4]
	}
	p, vi := [3]float64{a.scal[0], a.scal[1], a.scal[2]}, a.scal[3]
	po, u0 := [3]float64{a.scal[4], a.scal[5], a.scal[6]}, a.scal[7]
	a.acc = [5][4]float64{}
	for e := 0; e < n; e++ {
		xj := &x[js[e]]
		u := u0 * pg[e]
		dx[e] += u * (po[0] - xj[0] - dx[e])
		dy[e] += u * (po[1] - xj[1] - dy[e])
		dz[e] += u * (po[2] - xj[2] - dz[e])
		a.pair(e, p[0]-xj[0]-dx[e], p[1]-xj[1]-dy[e], p[2]-xj[2]-dz[e], vi, pg)
	}
	s := a.sums(5)
	return s[0], s[1], s[2], s[3], s[4]
}

// Walls is the pass over the boundary samples j = js[e] at x[j] with volumes vol[j]: with
// r = p − x[j] and the kernel at |r|, it returns Σ V_b W and Σ V_b g r (three components),
// and when gx is not nil stores V_b g r in gx, gy, gz (len(js) elements each).
func (a *PFPass) Walls(js []int32, x []mgl64.Vec3, vol []float64, gx, gy, gz []float64) (c, sx, sy, sz float64) {
	n := len(js)
	if n == 0 {
		return 0, 0, 0, 0 // (most particles have no wall sample near)
	}
	store := gx != nil
	if store {
		gx, gy, gz = gx[:n], gy[:n], gz[:n]
	}
	if HasAVX2 && n > 0 {
		var px, py, pz *float64
		flag := 0
		if store {
			px, py, pz, flag = &gx[0], &gy[0], &gz[0], 1
		}
		pfWallsAVX(&js[0], n, &x[0], &vol[0], px, py, pz, flag, a)
		return a.out[0], a.out[1], a.out[2], a.out[3]
	}
	p := [3]float64{a.scal[0], a.scal[1], a.scal[2]}
	a.acc = [5][4]float64{}
	for e := 0; e < n; e++ {
		j := js[e]
		xj := &x[j]
		rx, ry, rz := p[0]-xj[0], p[1]-xj[1], p[2]-xj[2]
		wv, g := a.eval(math.Sqrt(rx*rx + ry*ry + rz*rz))
		l := e & 3
		vb := vol[j]
		a.acc[0][l] += vb * wv
		g *= vb
		if store {
			gx[e], gy[e], gz[e] = g*rx, g*ry, g*rz
		}
		a.acc[1][l] += g * rx
		a.acc[2][l] += g * ry
		a.acc[3][l] += g * rz
	}
	s := a.sums(4)
	return s[0], s[1], s[2], s[3]
}

// Move makes the neighbours' moves of the last Newton step alone, as Next makes them before
// its kernel pass (the step after which the projection ends without another pass).
func (a *PFPass) Move(js []int32, x []mgl64.Vec3, dx, dy, dz, pg []float64) {
	n := len(js)
	dx, dy, dz, pg = dx[:n], dy[:n], dz[:n], pg[:n]
	if HasAVX2 && n > 0 {
		pfMoveAVX(&js[0], n, &x[0], &dx[0], &dy[0], &dz[0], &pg[0], a)
		return
	}
	po, u0 := [3]float64{a.scal[4], a.scal[5], a.scal[6]}, a.scal[7]
	for e, j := range js {
		xj := &x[j]
		u := u0 * pg[e]
		dx[e] += u * (po[0] - xj[0] - dx[e])
		dy[e] += u * (po[1] - xj[1] - dy[e])
		dz[e] += u * (po[2] - xj[2] - dz[e])
	}
}

// Dots returns Σ_e g_e·d_e and Σ_e ‖d_e‖² over the pairs of one constraint, g (gx, gy, gz)
// and d (dx, dy, dz) stored by component, each product formed as (x + y) + z, in the lanes of
// the other sums.
func Dots(gx, gy, gz, dx, dy, dz []float64) (gd, dd float64) {
	n := len(gx)
	gy, gz, dx, dy, dz = gy[:n], gz[:n], dx[:n], dy[:n], dz[:n]
	var acc [2][4]float64
	if HasAVX2 && n > 0 {
		pfDotsAVX(n, &gx[0], &gy[0], &gz[0], &dx[0], &dy[0], &dz[0], &acc)
	} else {
		for e := range gx {
			l := e & 3
			acc[0][l] += gx[e]*dx[e] + gy[e]*dy[e] + gz[e]*dz[e]
			acc[1][l] += dx[e]*dx[e] + dy[e]*dy[e] + dz[e]*dz[e]
		}
	}
	return lanes(&acc[0]), lanes(&acc[1])
}
