// Package airdrag is the air drag of Gissler, Band, Peer, Ihmsen and Teschner ("Approximate
// Air-Fluid Interactions for SPH", VRIPHYS 2017): each fluid particle is treated as a droplet
// in still air, deformed by the air flow (a Taylor analogy breakup model) and occluded by its
// neighbours, and receives the drag force of a sphere,
//
//	F_i = ½ ρ_a |v_rel| v_rel C_D,i A_i,   v_rel = v_air − v_i
//
// times a user factor c (the reference's "drag"), divided by m_i. The pieces, from the
// paper's Sec. 4 with its constants (water droplet in air at 20 °C: ρ_a 1.2041 kg/m³, μ_a
// 1.845e-5 Pa s, σ 0.0724 N/m, μ_l 1.02e-3 Pa s; TAB constants C_F 1/3, C_k 8, C_d 5, C_b ½):
//
//	L = (3/(4π))^{1/3} · 2r                         droplet radius of the particle's volume
//	1/t_d = C_d μ_l/(2 ρ_l L²),  ω² = C_k σ/(ρ_l L³) − 1/t_d²   (TAB damping time, frequency)
//	t_max = −2(arctan(√(t_d²ω² + 1) + t_d ω) − π)/ω                       (Eq. 6)
//	c_def = 1 − e^{−t_max/t_d}(cos(ω t_max) + sin(ω t_max)/(ω t_d))       (Eq. 7)
//	y_max = min(1, C_F We c_def/(C_k C_b)),  We = ρ_a |v_rel|² L/σ       (Eq. 8)
//	C_D,sphere = 24/Re (1 + Re^{2/3}/6) for Re ≤ 1000, else 0.424,  Re = 2 max(0.1, ρ_a|v_rel|L/μ_a)
//	C_D,Liu = C_D,sphere (1 + 2.632 y_max)                                (Eq. 9)
//	C_D,i = (1 − f_n) C_D,Liu + f_n,  f_n = min(1, n_i/(⅔ n_full))        (Eq. 10)
//	A_droplet = π (L + C_b L y_max)²                                      (Eq. 12)
//	A_unoccluded = (1 − f_n) A_droplet + f_n (2r)²                        (Eq. 13)
//	w_i = clamp(1 − max(0, max_j v̂_rel·x̂_ij), 0, 1),  A_i = w_i A_unoccluded   (Eqs. 14, 15)
//
// n_i counts the particle's fluid and boundary neighbours and n_full is the neighbour count of a
// particle inside the fluid (the paper's 38 for its kernel; here the count of lattice points
// at the particle spacing within the kernel support, FullNeighbors, or FullNeighbors2D in a 2D
// world). A particle with no
// neighbours falls like a lone droplet (f_n = 0, w_i = 1); one inside the fluid, whose
// neighbours cover every direction, is occluded (w_i = 0) and feels no drag; a surface particle
// facing the air feels the drag of a flat (2r)² face with C_D = 1. The air is still (v_air = 0).
// The drag is explicit, from the velocities at the start of the step.
package airdrag

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Physical constants of the paper's Sec. 4 (air and water at room temperature) and its TAB
// model constants.
const (
	RhoAir   = 1.2041   // air density ρ_a (kg/m³)
	MuAir    = 1.845e-5 // air dynamic viscosity μ_a (Pa s)
	Sigma    = 0.0724   // water surface tension σ (N/m)
	MuLiquid = 1.02e-3  // water dynamic viscosity μ_l (Pa s)
	CF       = 1.0 / 3
	CK       = 8.0
	CD       = 5.0
	CB       = 0.5
)

// Droplet is the part of the drag that depends only on the particle size and the liquid's
// rest density: the droplet radius L and the velocity-free factor of y_max (Eqs. 6–8).
type Droplet struct {
	L      float64 // droplet radius (m)
	Diam   float64 // particle diameter 2r (m)
	YCoeff float64 // y_max = min(1, YCoeff·|v_rel|²) (s²/m²)
}

// NewDroplet evaluates Eqs. 6–8 for a particle of radius r of a liquid of rest density rho.
func NewDroplet(r, rho float64) Droplet {
	diam := 2 * r
	L := math.Cbrt(0.75/math.Pi) * diam
	invTd := 0.5 * CD * MuLiquid / (rho * L * L)
	td := 1 / invTd
	w2 := max(0, CK*Sigma/(rho*L*L*L)-invTd*invTd)
	w := math.Sqrt(w2)
	var cdef float64
	if w > 0 {
		tmax := -2 * (math.Atan(math.Sqrt(td*td*w2+1)+td*w) - math.Pi) / w
		cdef = 1 - math.Exp(-tmax/td)*(math.Cos(w*tmax)+math.Sin(w*tmax)/(w*td))
	} else {
		// an overdamped droplet (no oscillation) deforms monotonically to its full extent
		cdef = 1
	}
	weNoV := RhoAir * L / Sigma
	return Droplet{L: L, Diam: diam, YCoeff: CF * weNoV * cdef / (CK * CB)}
}

// Coefficient returns C_D,i·A_i/w_i, the drag coefficient times the unoccluded area (Eqs. 8–13),
// for a relative speed u (m/s) and fraction fn = min(1, n_i/(⅔ n_full)).
func (d *Droplet) Coefficient(u, fn float64) float64 {
	y := min(1, d.YCoeff*u*u)
	re := 2 * max(RhoAir*u*d.L/MuAir, 0.1)
	var cs float64
	if re <= 1000 {
		cs = 24 / re * (1 + math.Pow(re, 2.0/3)/6)
	} else {
		cs = 0.424
	}
	cliu := cs * (1 + 2.632*y)
	cd := (1-fn)*cliu + fn
	h := d.L + CB*d.L*y
	a := (1-fn)*math.Pi*h*h + fn*d.Diam*d.Diam
	return cd * a
}

// FullNeighbors is the number of neighbours of a particle inside a simple cubic lattice of the
// given spacing, within the support radius h (the point itself not counted): the n_full of
// Eq. 10 for sluice's sampling.
func FullNeighbors(spacing, h float64) int {
	k := int(h/spacing) + 1
	n := 0
	h2 := h * h
	for a := -k; a <= k; a++ {
		for b := -k; b <= k; b++ {
			for c := -k; c <= k; c++ {
				d2 := float64(a*a+b*b+c*c) * spacing * spacing
				if (a != 0 || b != 0 || c != 0) && d2 < h2 {
					n++
				}
			}
		}
	}
	return n
}

// FullNeighbors2D is FullNeighbors on the square lattice of a 2D world (the x–y plane).
func FullNeighbors2D(spacing, h float64) int {
	k := int(h/spacing) + 1
	n := 0
	h2 := h * h
	for a := -k; a <= k; a++ {
		for b := -k; b <= k; b++ {
			if d2 := float64(a*a+b*b) * spacing * spacing; (a != 0 || b != 0) && d2 < h2 {
				n++
			}
		}
	}
	return n
}

// Params are the per-body drag factors and the droplet of each body slot.
type Params struct {
	Factor  float64 // the user's drag factor c (1), 0: no drag
	Droplet Droplet
	// Depth (m) turns a particle's mass into its droplet's: 1 (or 0) in 3D; in a 2D world, whose
	// masses are per metre of depth (ρ0 times the particle's area), the particle diameter 2r,
	// so each particle of the plane is dragged as the droplet of its diameter is in 3D (the
	// drag's acceleration F/m of Eqs. 6–15 with the droplet's own mass).
	Depth float64
}

// Drag adds the air drag to f.VStar. params holds the factor and droplet per body slot, owner
// the slot of every packed particle, nFull the n_full of Eq. 10.
type Drag struct {
	f      *physics.FluidSet
	ff, fb *physics.Neighbors
	// BoundCount, when set, is the number of boundary samples each boundary neighbour stands
	// for in the neighbour count n of Eq. 10 (indexed like the boundary set): a volume-mapped
	// wall's one virtual particle stands for V_b/V0 samples (the wall's volume in the support
	// over a sample's), so a particle at such a wall counts as covered as at a wall of
	// samples. nil counts every boundary neighbour as one.
	BoundCount []float64
	par        []Params
	owner      []int32
	nFull      float64
	dt         float64
	fn         func(lo, hi, block int)
}

// Step applies the drag for one step of length dt.
func (d *Drag) Step(f *physics.FluidSet, ff, fb *physics.Neighbors, params []Params, owner []int32, nFull int, dt float64, pool *par.Pool) {
	if d.fn == nil {
		d.fn = d.block
	}
	d.f, d.ff, d.fb, d.par, d.owner, d.nFull, d.dt = f, ff, fb, params, owner, float64(nFull), dt
	pool.For(f.Len(), d.fn)
	d.f, d.ff, d.fb, d.par, d.owner = nil, nil, nil, nil, nil
}

// Accel returns the drag acceleration of particle i (m/s²) given its neighbour count n (the
// fluid and boundary neighbours, a boundary neighbour weighed by Drag.BoundCount) and the
// largest cosine between −v_i and the directions x̂_ij to its neighbours (0 without
// neighbours): the drag force divided by m_i.
func Accel(p *Params, v physics.Vec3, m float64, n float64, nFull float64, maxCos float64) physics.Vec3 {
	ux, uy, uz := -v[0], -v[1], -v[2] // v_rel = v_air − v_i, still air
	u := math.Sqrt(ux*ux + uy*uy + uz*uz)
	if u <= 1e-6 {
		return physics.Vec3{}
	}
	fn := min(1, n/(nFull*2/3))
	w := max(0, min(1, 1-max(0, maxCos)))
	if p.Depth > 0 {
		m *= p.Depth
	}
	c := p.Factor * 0.5 * RhoAir * u * p.Droplet.Coefficient(u, fn) * w / m
	return physics.Vec3{c * ux, c * uy, c * uz}
}

func (d *Drag) block(lo, hi, blk int) {
	f, dt := d.f, d.dt
	fblk, bblk := &d.ff.Blocks[blk], &d.fb.Blocks[blk]
	for i := lo; i < hi; i++ {
		p := &d.par[d.owner[i]]
		if p.Factor == 0 {
			continue
		}
		vi := f.V[i]
		u := math.Sqrt(vi[0]*vi[0] + vi[1]*vi[1] + vi[2]*vi[2])
		if u <= 1e-6 {
			continue
		}
		// v̂_rel = −v̂_i; the largest v̂_rel·x̂_ij over the fluid neighbours (Eq. 15)
		ex, ey, ez := -vi[0]/u, -vi[1]/u, -vi[2]/u
		js, _ := fblk.Row(i - lo)
		bs, _ := bblk.Row(i - lo)
		xi := f.X[i]
		mc := 0.0
		for _, j := range js {
			xj := &f.X[j]
			rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			r := math.Sqrt(rx*rx + ry*ry + rz*rz)
			if r == 0 {
				continue
			}
			mc = max(mc, (ex*rx+ey*ry+ez*rz)/r)
		}
		n := float64(len(js) + len(bs))
		if bc := d.BoundCount; bc != nil {
			n = float64(len(js))
			for _, j := range bs {
				n += bc[j]
			}
		}
		a := Accel(p, vi, f.M[i], n, d.nFull, mc)
		v := &f.VStar[i]
		v[0] += dt * a[0]
		v[1] += dt * a[1]
		v[2] += dt * a[2]
	}
}
