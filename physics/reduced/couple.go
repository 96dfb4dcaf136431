package reduced

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics/par"
)

// reflection maps a point (x, y) to (fx·x + offx, fy·y + offy): a mirror image of a body
// across one wall (one factor −1, strength sign −1) or across a corner (both, sign +1).
type reflection struct{ fx, fy, offx, offy float64 }

// coupling holds the per-step panel arrays of all bodies in world space (flat, body after
// body) and the solver's scratch.
type coupling struct {
	np                                 int
	ox, oy, tx, ty, ln, mx, my, nx, ny []float64
	owner, next                        []int // body of each panel; the next panel along the outline
	gamma, prev, borig, bobj, psi      []float64
	ufx, ufy                           []float64 // reduced velocity at the midpoints
	uox, uoy                           []float64 // velocity induced by the other panels and all images
	ku, kv                             []float64 // np×np: velocity at midpoint t of unit strength on panel s (other bodies) and s's images
	kpsi                               []float64 // np×np: their stream function at the midpoint of panel t
	refl                               [][]reflection
	// sources: every panel and image with its strength, for evaluating u_p (Eq. 5.18)
	sox, soy, stx, sty, sln, sg []float64
	iterations                  int
	change                      float64 // last sweep's largest strength change over the largest strength
	kFn                         func(lo, hi, block int)
	clusters                    []cluster
	mc, mom                     []complex128 // per cluster panel: multipole coefficients; per cluster: moments
	nfar                        []bool       // np × clusters: cluster far from midpoint t
}

// AddBody adds a rigid body (validated against the domain) and returns it.
func (d *Domain) AddBody(def BodyDef) (*Body, error) {
	b, err := newBody(def, &d.cfg)
	if err != nil {
		return nil, err
	}
	b.firstPanel = d.cp.np
	d.bodies = append(d.bodies, b)
	cp := &d.cp
	cp.np += b.Panels()
	n := cp.np
	for _, s := range []*[]float64{&cp.ox, &cp.oy, &cp.tx, &cp.ty, &cp.ln, &cp.mx, &cp.my, &cp.nx, &cp.ny, &cp.gamma, &cp.prev, &cp.borig, &cp.bobj, &cp.psi, &cp.ufx, &cp.ufy, &cp.uox, &cp.uoy} {
		*s = append(*s, make([]float64, b.Panels())...)
	}
	for k := range b.Panels() {
		cp.owner = append(cp.owner, len(d.bodies)-1)
		cp.next = append(cp.next, b.firstPanel+(k+1)%b.Panels())
	}
	cp.ku, cp.kv, cp.kpsi = make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	cp.refl = append(cp.refl, nil)
	if cp.kFn == nil {
		cp.kFn = d.influenceBlock
	}
	d.fb.ready = false
	return b, nil
}

// Bodies returns the domain's bodies in the order they were added.
func (d *Domain) Bodies() []*Body { return d.bodies }

// PanelCount returns the total number of vortex panels.
func (d *Domain) PanelCount() int { return d.cp.np }

// CouplingIterations returns the multi-body sweeps of the last panel solve.
func (d *Domain) CouplingIterations() int { return d.cp.iterations }

// CouplingConverged reports whether the last panel solve's sweeps reached CouplingTolerance,
// and the relative change of its last sweep. They do not when bodies overlap (the package has
// no body-body contacts) or when panels are much longer than the gaps between bodies; the
// strengths are then those of the last sweep.
func (d *Domain) CouplingConverged() (bool, float64) {
	return d.cp.change <= d.cfg.CouplingTolerance, d.cp.change
}

// placePanels transforms every body's panels to world space and chooses the images.
func (d *Domain) placePanels() {
	cp := &d.cp
	lx, ly := d.cfg.Width, d.cfg.Height
	for bi, b := range d.bodies {
		s, c := math.Sincos(b.angle)
		for k := range b.ln {
			i := b.firstPanel + k
			cp.ox[i] = b.pos.X + c*b.ox[k] - s*b.oy[k]
			cp.oy[i] = b.pos.Y + s*b.ox[k] + c*b.oy[k]
			cp.tx[i], cp.ty[i] = c*b.tx[k]-s*b.ty[k], s*b.tx[k]+c*b.ty[k]
			cp.nx[i], cp.ny[i] = c*b.nx[k]-s*b.ny[k], s*b.nx[k]+c*b.ny[k]
			cp.mx[i] = b.pos.X + c*b.mx[k] - s*b.my[k]
			cp.my[i] = b.pos.Y + s*b.mx[k] + c*b.my[k]
			cp.ln[i] = b.ln[k]
		}
		r := cp.refl[bi][:0]
		if d.cfg.Images {
			// §5.3.3: mirror the body across each wall whose dipole estimate (R/d)² of the
			// induced normal flow exceeds WallError, and across the corner of two mirrored
			// adjacent walls so both walls stay exact.
			near := func(dist float64) bool {
				return dist <= 0 || (b.radius/dist)*(b.radius/dist) > d.cfg.WallError
			}
			lw, rw, bw, tw := near(b.pos.X), near(lx-b.pos.X), near(b.pos.Y), near(ly-b.pos.Y)
			if lw {
				r = append(r, reflection{-1, 1, 0, 0})
			}
			if rw {
				r = append(r, reflection{-1, 1, 2 * lx, 0})
			}
			if bw {
				r = append(r, reflection{1, -1, 0, 0})
			}
			if tw {
				r = append(r, reflection{1, -1, 0, 2 * ly})
			}
			for _, xw := range []struct {
				on  bool
				off float64
			}{{lw, 0}, {rw, 2 * lx}} {
				for _, yw := range []struct {
					on  bool
					off float64
				}{{bw, 0}, {tw, 2 * ly}} {
					if xw.on && yw.on {
						r = append(r, reflection{-1, -1, xw.off, yw.off})
					}
				}
			}
		}
		cp.refl[bi] = r
	}
}

// multipoleOrder and multipoleRatio: a cluster (a body or one of its images) seen from at
// least multipoleRatio times its radius R is evaluated from its multipole expansion to
// at most multipoleOrder terms (fewer when farther, see influenceBlock); the truncation error
// per unit strength is below l·ρ^15/(15(1−ρ)) ≤ 7e-9·l for ρ = R/d ≤ 1/3.
const (
	multipoleOrder = 14
	multipoleRatio = 3.0
)

// cluster is a body's panels, or their mirror image across one wall or a corner (§5.3.3).
type cluster struct {
	body                     int
	real                     bool
	fx, fy, offx, offy, sign float64
	cx, cy, r                float64
	coef                     int // offset of its panels' coefficients in coupling.mc
}

// buildClusters lists the clusters of this step and the multipole coefficients of each of
// their panels: for the panel from z_o to z_e with direction e and centre c,
// a_p = ∫ (ζ − c)^p ds = [(z_e − c)^{p+1} − (z_o − c)^{p+1}] / ((p+1) e), so that the panel's
// F(z) = ∫ ln(z − ζ) ds = l ln(z − c) − Σ_p a_p /(p (z − c)^p) (see panelFar for w, ψ, u).
func (d *Domain) buildClusters() {
	cp := &d.cp
	cp.clusters = cp.clusters[:0]
	n := 0
	for bi, b := range d.bodies {
		add := func(rf reflection, real bool) {
			cp.clusters = append(cp.clusters, cluster{body: bi, real: real, fx: rf.fx, fy: rf.fy, offx: rf.offx, offy: rf.offy,
				sign: rf.fx * rf.fy, cx: rf.fx*b.pos.X + rf.offx, cy: rf.fy*b.pos.Y + rf.offy, r: b.radius, coef: n})
			n += len(b.ln) * multipoleOrder
		}
		add(reflection{1, 1, 0, 0}, true)
		for _, rf := range cp.refl[bi] {
			add(rf, false)
		}
	}
	cp.mc = par.Grow(cp.mc, n)
	for _, c := range cp.clusters {
		b := d.bodies[c.body]
		for k := range b.ln {
			s := b.firstPanel + k
			ox, oy := c.fx*cp.ox[s]+c.offx, c.fy*cp.oy[s]+c.offy
			tx, ty := c.fx*cp.tx[s], c.fy*cp.ty[s]
			l := cp.ln[s]
			zo := complex(ox-c.cx, oy-c.cy)
			ze := complex(ox+l*tx-c.cx, oy+l*ty-c.cy)
			inv := complex(tx, -ty) // 1/e for a unit direction
			po, pe := zo, ze
			for p := 1; p <= multipoleOrder; p++ {
				po *= zo
				pe *= ze
				// stored divided by p, the form the stream function uses
				cp.mc[c.coef+k*multipoleOrder+p-1] = (pe - po) * inv / complex(float64(p*(p+1)), 0)
			}
		}
	}
	cp.nfar = par.Grow(cp.nfar, cp.np*len(cp.clusters))
}

// influenceBlock fills rows t ∈ [lo, hi) of kpsi (and ku, kv for clusters too near for their
// multipole): the stream function and velocity at midpoint t of unit strength on panel s of
// other bodies and of every image. Far clusters contribute ψ from their multipole expansion and
// are marked in nfar for the velocity pass.
func (d *Domain) influenceBlock(lo, hi, _ int) {
	cp := &d.cp
	np := cp.np
	eps := d.cfg.PanelEpsilon
	var w [multipoleOrder + 1]complex128
	nc := len(cp.clusters)
	for t := lo; t < hi; t++ {
		px, py := cp.mx[t], cp.my[t]
		kp, ku, kv := cp.kpsi[t*np:(t+1)*np], cp.ku[t*np:(t+1)*np], cp.kv[t*np:(t+1)*np]
		for s := range kp {
			kp[s], ku[s], kv[s] = 0, 0, 0
		}
		far := cp.nfar[t*nc : (t+1)*nc]
		for ci, c := range cp.clusters {
			far[ci] = false
			if c.real && c.body == cp.owner[t] {
				continue
			}
			b := d.bodies[c.body]
			dx, dy := px-c.cx, py-c.cy
			r2 := dx*dx + dy*dy
			if rho2 := c.r * c.r / r2; rho2 <= 1/(multipoleRatio*multipoleRatio) {
				far[ci] = true
				// terms needed for a truncation below 1e-9·l: ρ^(P+1) ≤ 1e-9·(1−ρ)
				order := multipoleOrder
				if lr := 0.5 * math.Log(rho2); lr < 0 {
					order = min(multipoleOrder, int(math.Log(1e-9*(1-math.Sqrt(rho2)))/lr))
				}
				lg := 0.5 * math.Log(r2)
				w[1] = complex(dx/r2, -dy/r2)
				for p := 2; p <= order; p++ {
					w[p] = w[p-1] * w[1]
				}
				k := -c.sign / (2 * math.Pi)
				for j := range b.ln {
					s := b.firstPanel + j
					a := cp.mc[c.coef+j*multipoleOrder : c.coef+j*multipoleOrder+order]
					sum := 0.0
					for p, ap := range a {
						wp := w[p+1]
						sum += real(ap)*real(wp) - imag(ap)*imag(wp)
					}
					kp[s] += k * (cp.ln[s]*lg - sum)
				}
				continue
			}
			for j := range b.ln {
				s := b.firstPanel + j
				l := cp.ln[s]
				ox, oy := c.fx*cp.ox[s]+c.offx, c.fy*cp.oy[s]+c.offy
				tx, ty := c.fx*cp.tx[s], c.fy*cp.ty[s]
				mx, my := ox+tx*l/2, oy+ty*l/2
				var u, v, psi float64
				if ex, ey := px-mx, py-my; ex*ex+ey*ey >= farRatio*farRatio*l*l {
					u, v, psi = panelFar(px, py, mx, my, tx, ty, l, c.sign)
				} else {
					u, v = panelVelocity(px, py, ox, oy, tx, ty, l, c.sign, eps)
					psi = panelStream(px, py, ox, oy, tx, ty, l, c.sign)
				}
				ku[s] += u
				kv[s] += v
				kp[s] += psi
			}
		}
	}
}

// otherVelocities sets uox, uoy: the velocity at every midpoint induced by the other bodies'
// panels and all images with the converged strengths, from ku, kv for near clusters and from
// each far cluster's moments A_p = Σ γ_s a_{s,p}, A_0 = Σ γ_s l_s: u − iv = (1/2πi)·(−1)·F' with
// F' = A_0/ζ + Σ_p A_p/ζ^{p+1} (see panelFar).
func (d *Domain) otherVelocities() {
	cp := &d.cp
	np := cp.np
	nc := len(cp.clusters)
	cp.mom = par.Grow(cp.mom, nc*(multipoleOrder+1))
	for ci, c := range cp.clusters {
		b := d.bodies[c.body]
		m := cp.mom[ci*(multipoleOrder+1) : (ci+1)*(multipoleOrder+1)]
		for p := range m {
			m[p] = 0
		}
		for j := range b.ln {
			s := b.firstPanel + j
			g := complex(c.sign*cp.gamma[s], 0)
			m[0] += g * complex(cp.ln[s], 0)
			a := cp.mc[c.coef+j*multipoleOrder : c.coef+(j+1)*multipoleOrder]
			for p := 1; p <= multipoleOrder; p++ {
				m[p] += g * a[p-1] * complex(float64(p), 0)
			}
		}
	}
	for t := 0; t < np; t++ {
		u, v := 0.0, 0.0
		ku, kv := cp.ku[t*np:(t+1)*np], cp.kv[t*np:(t+1)*np]
		for s, g := range cp.gamma {
			u += g * ku[s]
			v += g * kv[s]
		}
		far := cp.nfar[t*nc : (t+1)*nc]
		for ci, c := range cp.clusters {
			if !far[ci] {
				continue
			}
			dx, dy := cp.mx[t]-c.cx, cp.my[t]-c.cy
			r2 := dx*dx + dy*dy
			w := complex(dx/r2, -dy/r2)
			m := cp.mom[ci*(multipoleOrder+1) : (ci+1)*(multipoleOrder+1)]
			// Horner: F' = w (A_0 + w (A_1 + w (A_2 + …)))
			f := m[multipoleOrder]
			for p := multipoleOrder - 1; p >= 0; p-- {
				f = f*w + m[p]
			}
			f *= w
			u += imag(f) / (2 * math.Pi)
			v += real(f) / (2 * math.Pi)
		}
		cp.uox[t], cp.uoy[t] = u, v
	}
}

// SolvePanels computes the panel strengths for the current reduced field and body motion:
// Eq. 5.14 per panel (the flux of u_f − u_o through the outline between this panel's midpoint
// and the next one's, integrated exactly as the difference of the stream functions
// ψ_r = Σ r_k ψ_k and ψ_o = v_x(y−c_y) − v_y(x−c_x) − ω|x−c|²/2, see panelInverse),
// γ = P⁺b per body (Eq. 5.16), then the multi-body fixed-point sweeps of
// Eq. 5.17 with the other bodies' panels and every image (§5.3.2–5.3.3) until the largest
// strength change is at most CouplingTolerance of the largest strength. Afterwards VelocityAt
// returns u_r + u_p, which satisfies the boundary conditions.
func (d *Domain) SolvePanels() {
	cp := &d.cp
	if cp.np == 0 {
		return
	}
	d.placePanels()
	d.b.ambientCoefficients(d.q, d.r)
	for _, b := range d.bodies {
		for k := range b.ln {
			i := b.firstPanel + k
			uf, vf := d.b.velocity(d.q, cp.mx[i], cp.my[i], d.tr)
			cp.ufx[i], cp.ufy[i] = uf, vf
			rx, ry := cp.mx[i]-b.pos.X, cp.my[i]-b.pos.Y
			// relative stream function ψ_r − ψ_o at the panel's midpoint
			cp.psi[i] = d.b.streamFunction(d.q, cp.mx[i], cp.my[i], d.tr) -
				(b.vel.X*ry - b.vel.Y*rx - b.angVel*(rx*rx+ry*ry)/2)
		}
		for k := range b.ln {
			i := b.firstPanel + k
			cp.borig[i] = cp.psi[cp.next[i]] - cp.psi[i] // Eq. 5.14, exact flux
			cp.bobj[i] = 0
		}
	}
	interact := len(d.bodies) > 1
	for _, r := range cp.refl {
		interact = interact || len(r) > 0
	}
	np := cp.np
	for i := range cp.gamma {
		cp.gamma[i] = 0
	}
	for bi := range d.bodies {
		d.solveBody(bi) // Eq. 5.16
	}
	cp.iterations, cp.change = 0, 0
	if interact {
		d.buildClusters()
		d.pool.For(np, cp.kFn)
		for it := 1; it <= d.cfg.CouplingIterations; it++ {
			cp.iterations = it
			copy(cp.prev, cp.gamma)
			for bi, b := range d.bodies {
				for k := range b.ln {
					t := b.firstPanel + k
					kp := cp.kpsi[t*np : (t+1)*np]
					p := 0.0
					for s, g := range cp.gamma {
						p += g * kp[s]
					}
					cp.psi[t] = p
				}
				for k := range b.ln {
					t := b.firstPanel + k
					cp.bobj[t] = cp.psi[cp.next[t]] - cp.psi[t] // flux of the others through t
				}
				d.solveBody(bi) // Eq. 5.17
			}
			dmax, gmax := 0.0, 0.0
			for i, g := range cp.gamma {
				dmax = math.Max(dmax, math.Abs(g-cp.prev[i]))
				gmax = math.Max(gmax, math.Abs(g))
			}
			cp.change = 0
			if gmax > 0 {
				cp.change = dmax / gmax
			}
			if dmax <= d.cfg.CouplingTolerance*gmax {
				break
			}
		}
	}
	// velocity induced at each midpoint by everything but the body's own panels (for forces)
	if interact {
		d.otherVelocities()
	} else {
		for t := 0; t < np; t++ {
			cp.uox[t], cp.uoy[t] = 0, 0
		}
	}
	d.gatherSources()
}

// solveBody sets body bi's strengths to P⁺ (b_orig + b_obj, 0).
func (d *Domain) solveBody(bi int) {
	cp := &d.cp
	b := d.bodies[bi]
	m := len(b.ln)
	rows := m + 1
	f := b.firstPanel
	for k := 0; k < m; k++ {
		s := 0.0
		row := b.pinv[k*rows : k*rows+m]
		for j, p := range row {
			s += p * (cp.borig[f+j] + cp.bobj[f+j])
		}
		cp.gamma[f+k] = s
	}
}

// gatherSources lists every panel and image with its strength (Eq. 5.18's sum).
func (d *Domain) gatherSources() {
	cp := &d.cp
	cp.sox, cp.soy, cp.stx, cp.sty, cp.sln, cp.sg = cp.sox[:0], cp.soy[:0], cp.stx[:0], cp.sty[:0], cp.sln[:0], cp.sg[:0]
	for s := 0; s < cp.np; s++ {
		cp.sox, cp.soy = append(cp.sox, cp.ox[s]), append(cp.soy, cp.oy[s])
		cp.stx, cp.sty = append(cp.stx, cp.tx[s]), append(cp.sty, cp.ty[s])
		cp.sln, cp.sg = append(cp.sln, cp.ln[s]), append(cp.sg, cp.gamma[s])
		for _, rf := range cp.refl[cp.owner[s]] {
			cp.sox, cp.soy = append(cp.sox, rf.fx*cp.ox[s]+rf.offx), append(cp.soy, rf.fy*cp.oy[s]+rf.offy)
			cp.stx, cp.sty = append(cp.stx, rf.fx*cp.tx[s]), append(cp.sty, rf.fy*cp.ty[s])
			cp.sln, cp.sg = append(cp.sln, cp.ln[s]), append(cp.sg, rf.fx*rf.fy*cp.gamma[s])
		}
	}
}

// PanelVelocityAt returns u_p (Eq. 5.18): the velocity of every panel and image at (x, y) with
// the strengths of the last solve.
func (d *Domain) PanelVelocityAt(x, y float64) (u, v float64) {
	cp := &d.cp
	eps := d.cfg.PanelEpsilon
	for s := range cp.sg {
		pu, pv := panelVelocity(x, y, cp.sox[s], cp.soy[s], cp.stx[s], cp.sty[s], cp.sln[s], cp.sg[s], eps)
		u += pu
		v += pv
	}
	return u, v
}

// VelocityAt returns u_r + u_p at (x, y) (§5.3.4): the velocity to advect tracers with. Right
// after SolvePanels it satisfies the bodies' and walls' boundary conditions; Step feeds u_p
// back into u_r at its end, so after Step call SolvePanels again before using it.
func (d *Domain) VelocityAt(x, y float64) (u, v float64) {
	u, v = d.ReducedVelocityAt(x, y)
	pu, pv := d.PanelVelocityAt(x, y)
	return u + pu, v + pv
}

// PanelStrengths copies the panel strengths γ of the last solve (1/s·m, i.e. m/s) into dst.
func (d *Domain) PanelStrengths(dst []float64) []float64 {
	dst = par.Grow(dst, d.cp.np)
	copy(dst, d.cp.gamma)
	return dst
}

// PanelMidpoint returns panel i's midpoint and outward normal in world space after the last
// solve.
func (d *Domain) PanelMidpoint(i int) (m, n Vec2) {
	return Vec2{d.cp.mx[i], d.cp.my[i]}, Vec2{d.cp.nx[i], d.cp.ny[i]}
}

// applyForces computes the fluid forces of §5.3.5 on every dynamic body: dynamic pressure
// q = ½ρ|u|² (Eq. 5.20) with u the fluid velocity relative to the panel (the reduced field
// plus the other panels and images, minus the body's velocity), applied as A_i q on the
// panels the relative flow runs into (u·n < 0), pushing inward; and buoyancy
// f_i = −ρ A_i h_i g n_i (Eq. 5.22) with h_i the depth of the panel centre below the top wall.
// Eq. 5.21 writes f = A q n on every panel, which on a closed outline in a uniform relative
// flow sums to zero; applying q on the windward panels only (the impact reading of dynamic
// pressure) is this package's choice and gives drag.
func (d *Domain) applyForces() {
	cp := &d.cp
	rho, g, ly := d.cfg.Density, d.cfg.Gravity, d.cfg.Height
	for _, b := range d.bodies {
		var fx, fy, tq float64
		for k := range b.ln {
			i := b.firstPanel + k
			uo := b.vel.X - b.angVel*(cp.my[i]-b.pos.Y)
			vo := b.vel.Y + b.angVel*(cp.mx[i]-b.pos.X)
			ux, uy := cp.ufx[i]+cp.uox[i]-uo, cp.ufy[i]+cp.uoy[i]-vo
			var px, py float64
			if un := ux*cp.nx[i] + uy*cp.ny[i]; un < 0 {
				q := 0.5 * rho * (ux*ux + uy*uy) // Eq. 5.20
				px, py = -cp.ln[i]*q*cp.nx[i], -cp.ln[i]*q*cp.ny[i]
			}
			h := ly - cp.my[i]
			px -= rho * cp.ln[i] * h * g * cp.nx[i] // Eq. 5.22
			py -= rho * cp.ln[i] * h * g * cp.ny[i]
			fx += px
			fy += py
			tq += (cp.mx[i]-b.pos.X)*py - (cp.my[i]-b.pos.Y)*px
		}
		b.force, b.torque = Vec2{fx, fy}, tq
	}
}

// integrateBodies advances dynamic bodies by semi-implicit Euler under gravity and the fluid
// forces, and keeps every body inside the domain: a body whose outline crosses a wall is moved
// back and loses its velocity component into that wall (a minimal wall constraint, not a
// contact model; bodies do not collide with each other).
func (d *Domain) integrateBodies(dt float64) {
	lx, ly := d.cfg.Width, d.cfg.Height
	for _, b := range d.bodies {
		if !b.kinematic {
			b.vel.X += dt * b.force.X / b.mass
			b.vel.Y += dt * (b.force.Y/b.mass - d.cfg.Gravity)
			b.angVel += dt * b.torque / b.inertia
		}
		b.pos.X += dt * b.vel.X
		b.pos.Y += dt * b.vel.Y
		b.angle += dt * b.angVel
		s, c := math.Sincos(b.angle)
		var minX, maxX, minY, maxY = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for k := range b.ox {
			x := b.pos.X + c*b.ox[k] - s*b.oy[k]
			y := b.pos.Y + s*b.ox[k] + c*b.oy[k]
			minX, maxX = math.Min(minX, x), math.Max(maxX, x)
			minY, maxY = math.Min(minY, y), math.Max(maxY, y)
		}
		if minX < 0 {
			b.pos.X -= minX
			b.vel.X = math.Max(b.vel.X, 0)
		}
		if maxX > lx {
			b.pos.X -= maxX - lx
			b.vel.X = math.Min(b.vel.X, 0)
		}
		if minY < 0 {
			b.pos.Y -= minY
			b.vel.Y = math.Max(b.vel.Y, 0)
		}
		if maxY > ly {
			b.pos.Y -= maxY - ly
			b.vel.Y = math.Min(b.vel.Y, 0)
		}
	}
}

// Step advances the coupled system by dt (time splitting, §5.3): the reduced fluid (Eq. 5.9),
// the panel solve against the bodies' current motion (§5.3.1–5.3.3), the fluid forces and the
// bodies' integration (§5.3.5), and the feedback of the panels' velocity into the reduced
// coefficients (§5.3.4).
func (d *Domain) Step(dt float64) error {
	if !finite(dt) || dt <= 0 {
		return fmt.Errorf("reduced: dt = %v s must be finite and > 0", dt)
	}
	t0 := nanotime()
	d.advanceFluid(dt)
	t1 := nanotime()
	d.SolvePanels()
	t2 := nanotime()
	d.applyForces()
	d.integrateBodies(dt)
	t3 := nanotime()
	d.Feedback()
	t4 := nanotime()
	d.timing.Advect += t1 - t0
	d.timing.Panels += t2 - t1
	d.timing.Bodies += t3 - t2
	d.timing.Feedback += t4 - t3
	d.timing.Steps++
	d.time += dt
	d.step++
	return nil
}

// Timing accumulates wall-clock nanoseconds per stage of Step.
type Timing struct {
	Advect, Panels, Bodies, Feedback int64
	Steps                            int64
}

// Timing returns the accumulated stage times; ResetTiming clears them.
func (d *Domain) Timing() Timing { return d.timing }
func (d *Domain) ResetTiming()   { d.timing = Timing{} }

// State is everything a domain needs to continue bit-identically: the reduced coefficients,
// the clock and the bodies' poses and velocities (panel strengths have no memory, §5.3.4).
type State struct {
	R      []float64
	Time   float64
	Steps  int64
	Bodies []BodyState
}

// Save returns a copy of the domain's state.
func (d *Domain) Save() State {
	s := State{R: append([]float64(nil), d.r...), Time: d.time, Steps: d.step}
	for _, b := range d.bodies {
		s.Bodies = append(s.Bodies, b.State())
	}
	return s
}

// Restore sets the domain's state from Save's result (same basis and bodies).
func (d *Domain) Restore(s State) error {
	if len(s.R) != len(d.r) {
		return fmt.Errorf("reduced: Restore: state has %d coefficients, the basis has %d", len(s.R), len(d.r))
	}
	if len(s.Bodies) != len(d.bodies) {
		return fmt.Errorf("reduced: Restore: state has %d bodies, the domain has %d", len(s.Bodies), len(d.bodies))
	}
	copy(d.r, s.R)
	d.time, d.step = s.Time, s.Steps
	for i, b := range d.bodies {
		bs := s.Bodies[i]
		b.pos, b.angle, b.vel, b.angVel = bs.Position, bs.Angle, bs.Velocity, bs.AngularVelocity
	}
	return nil
}
