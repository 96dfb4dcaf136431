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
	kFn                         func(lo, hi, block int)
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

// influenceBlock fills rows of ku, kv: item = t·np + s.
func (d *Domain) influenceBlock(lo, hi, _ int) {
	cp := &d.cp
	np := cp.np
	eps := d.cfg.PanelEpsilon
	for it := lo; it < hi; it++ {
		t, s := it/np, it%np
		px, py := cp.mx[t], cp.my[t]
		qx, qy := px, py
		var u, v, psi float64
		l := cp.ln[s]
		far2 := farRatio * farRatio * l * l
		if cp.owner[t] != cp.owner[s] {
			if dx, dy := px-cp.mx[s], py-cp.my[s]; dx*dx+dy*dy >= far2 {
				u, v, psi = panelFar(px, py, cp.mx[s], cp.my[s], cp.tx[s], cp.ty[s], l, 1)
			} else {
				u, v = panelVelocity(px, py, cp.ox[s], cp.oy[s], cp.tx[s], cp.ty[s], l, 1, eps)
				psi = panelStream(qx, qy, cp.ox[s], cp.oy[s], cp.tx[s], cp.ty[s], l, 1)
			}
		}
		for _, rf := range cp.refl[cp.owner[s]] {
			iox, ioy, itx, ity, sg := rf.fx*cp.ox[s]+rf.offx, rf.fy*cp.oy[s]+rf.offy, rf.fx*cp.tx[s], rf.fy*cp.ty[s], rf.fx*rf.fy
			imx, imy := rf.fx*cp.mx[s]+rf.offx, rf.fy*cp.my[s]+rf.offy
			var iu, iv, ip float64
			if dx, dy := px-imx, py-imy; dx*dx+dy*dy >= far2 {
				iu, iv, ip = panelFar(px, py, imx, imy, itx, ity, l, sg)
			} else {
				iu, iv = panelVelocity(px, py, iox, ioy, itx, ity, l, sg, eps)
				ip = panelStream(qx, qy, iox, ioy, itx, ity, l, sg)
			}
			u += iu
			v += iv
			psi += ip
		}
		cp.ku[it], cp.kv[it], cp.kpsi[it] = u, v, psi
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
	cp.iterations = 0
	if interact {
		d.pool.For(np*np, cp.kFn)
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
			if dmax <= d.cfg.CouplingTolerance*gmax {
				break
			}
		}
	}
	// velocity induced at each midpoint by everything but the body's own panels (for forces)
	for t := 0; t < np; t++ {
		u, v := 0.0, 0.0
		if interact {
			ku, kv := cp.ku[t*np:(t+1)*np], cp.kv[t*np:(t+1)*np]
			for s, g := range cp.gamma {
				u += g * ku[s]
				v += g * kv[s]
			}
		}
		cp.uox[t], cp.uoy[t] = u, v
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
