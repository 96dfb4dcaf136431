package reduced

import (
	"fmt"
	"math"
)

// Vec2 is a point or vector in the domain's plane (m or m/s).
type Vec2 struct{ X, Y float64 }

// BodyDef declares a planar rigid body coupled to the fluid (§5.3; the dissertation uses Box2D
// for the rigid bodies, this package keeps the minimum the coupling needs).
type BodyDef struct {
	// Outline: the closed polygon, counter-clockwise, in body space (m). It is re-centred on its
	// centroid. At least 3 vertices, no edge shorter than 1e-9 m.
	Outline []Vec2
	// PanelsPerSide: vortex panels on each side (§5.3.1): odd, in [1, MaxPanelsPerSide] (an
	// even count cannot cancel the normal flow of a rotating symmetric body, §5.3.1). One value
	// for every side, or one per side.
	PanelsPerSide []int
	// Density: areal density of the body (kg/m²). Range (0, 1e6].
	Density float64
	// Position of the centroid (m) and Angle (rad) in the domain; the whole outline must lie
	// inside the domain.
	Position Vec2
	Angle    float64
	// Velocity (m/s) and AngularVelocity (rad/s, counter-clockwise).
	Velocity        Vec2
	AngularVelocity float64
	// Kinematic bodies keep their velocities (forces and gravity are not applied) but still
	// move and still push the fluid.
	Kinematic bool
}

// MaxPanelsPerSide bounds BodyDef.PanelsPerSide.
const MaxPanelsPerSide = 101

// BoxOutline returns the counter-clockwise outline of a w×h rectangle centred at the origin.
func BoxOutline(w, h float64) []Vec2 {
	return []Vec2{{-w / 2, -h / 2}, {w / 2, -h / 2}, {w / 2, h / 2}, {-w / 2, h / 2}}
}

// Body is a planar rigid body with its vortex panels.
type Body struct {
	// body-space panels (centroid at the origin): start, unit tangent, length, midpoint,
	// outward normal
	ox, oy, tx, ty, ln, mx, my, nx, ny []float64
	pinv                               []float64 // M×(M+1) least-squares inverse of P (Eq. 5.13, 5.15)
	radius                             float64   // bounding radius about the centroid
	area, mass, inertia                float64
	kinematic                          bool

	pos        Vec2
	angle      float64
	vel        Vec2
	angVel     float64
	force      Vec2
	torque     float64
	firstPanel int // index of the body's first panel in the domain's flat panel arrays
}

// BodyState is a body's pose and velocities.
type BodyState struct {
	Position        Vec2
	Angle           float64
	Velocity        Vec2
	AngularVelocity float64
}

// State returns the body's pose and velocities.
func (b *Body) State() BodyState {
	return BodyState{b.pos, b.angle, b.vel, b.angVel}
}

// Mass (kg per unit depth), Area (m²) and Inertia (kg·m²) about the centroid.
func (b *Body) Mass() float64    { return b.mass }
func (b *Body) Area() float64    { return b.area }
func (b *Body) Inertia() float64 { return b.inertia }

// Panels returns the number of vortex panels on the body.
func (b *Body) Panels() int { return len(b.ln) }

// Force returns the fluid force (N per unit depth: dynamic pressure plus buoyancy, Eq. 5.21–5.22)
// and torque applied in the last step.
func (b *Body) Force() (Vec2, float64) { return b.force, b.torque }

// newBody validates a definition against the domain and precomputes its panels and P⁺.
func newBody(def BodyDef, c *Config) (*Body, error) {
	n := len(def.Outline)
	if n < 3 {
		return nil, fmt.Errorf("reduced: BodyDef.Outline has %d vertices, needs at least 3", n)
	}
	for i, p := range def.Outline {
		if !finite(p.X) || !finite(p.Y) {
			return nil, fmt.Errorf("reduced: BodyDef.Outline[%d] = %v is not finite", i, p)
		}
	}
	if len(def.PanelsPerSide) != 1 && len(def.PanelsPerSide) != n {
		return nil, fmt.Errorf("reduced: BodyDef.PanelsPerSide has %d entries, needs 1 or one per side (%d)", len(def.PanelsPerSide), n)
	}
	for i, k := range def.PanelsPerSide {
		if k < 1 || k > MaxPanelsPerSide || k%2 == 0 {
			return nil, fmt.Errorf("reduced: BodyDef.PanelsPerSide[%d] = %d must be odd and in [1, %d] (§5.3.1: an even count cannot cancel the normal flow of a rotating symmetric body)", i, k, MaxPanelsPerSide)
		}
	}
	if !finite(def.Density) || def.Density <= 0 || def.Density > 1e6 {
		return nil, fmt.Errorf("reduced: BodyDef.Density = %v kg/m² is out of range (0, 1e6]", def.Density)
	}
	for _, v := range []float64{def.Position.X, def.Position.Y, def.Angle, def.Velocity.X, def.Velocity.Y, def.AngularVelocity} {
		if !finite(v) {
			return nil, fmt.Errorf("reduced: BodyDef pose or velocity %v is not finite", v)
		}
	}
	// area, centroid, second moment (shoelace)
	var a, cx, cy float64
	for i := range def.Outline {
		p, q := def.Outline[i], def.Outline[(i+1)%n]
		cr := p.X*q.Y - q.X*p.Y
		a += cr / 2
		cx += (p.X + q.X) * cr / 6
		cy += (p.Y + q.Y) * cr / 6
	}
	if a <= 0 {
		return nil, fmt.Errorf("reduced: BodyDef.Outline encloses area %g m²: it must be counter-clockwise with positive area", a)
	}
	cx, cy = cx/a, cy/a
	pts := make([]Vec2, n)
	var j0 float64
	for i, p := range def.Outline {
		pts[i] = Vec2{p.X - cx, p.Y - cy}
	}
	var minX, maxX, minY, maxY float64
	for i := range pts {
		p, q := pts[i], pts[(i+1)%n]
		cr := p.X*q.Y - q.X*p.Y
		j0 += cr * (p.X*p.X + p.X*q.X + q.X*q.X + p.Y*p.Y + p.Y*q.Y + q.Y*q.Y) / 12
		if math.Hypot(q.X-p.X, q.Y-p.Y) < 1e-9 {
			return nil, fmt.Errorf("reduced: BodyDef.Outline side %d is shorter than 1e-9 m", i)
		}
		minX, maxX = math.Min(minX, p.X), math.Max(maxX, p.X)
		minY, maxY = math.Min(minY, p.Y), math.Max(maxY, p.Y)
	}
	if maxX-minX >= c.Width || maxY-minY >= c.Height {
		return nil, fmt.Errorf("reduced: body of extent %.4g × %.4g m is larger than the %.4g × %.4g m domain", maxX-minX, maxY-minY, c.Width, c.Height)
	}
	b := &Body{area: a, mass: def.Density * a, inertia: def.Density * j0, kinematic: def.Kinematic,
		pos: def.Position, angle: def.Angle, vel: def.Velocity, angVel: def.AngularVelocity}
	for i := range pts {
		p, q := pts[i], pts[(i+1)%n]
		k := def.PanelsPerSide[0]
		if len(def.PanelsPerSide) == n {
			k = def.PanelsPerSide[i]
		}
		l := math.Hypot(q.X-p.X, q.Y-p.Y)
		tx, ty := (q.X-p.X)/l, (q.Y-p.Y)/l
		for s := 0; s < k; s++ {
			ox, oy := p.X+(q.X-p.X)*float64(s)/float64(k), p.Y+(q.Y-p.Y)*float64(s)/float64(k)
			pl := l / float64(k)
			b.ox, b.oy = append(b.ox, ox), append(b.oy, oy)
			b.tx, b.ty = append(b.tx, tx), append(b.ty, ty)
			b.ln = append(b.ln, pl)
			b.mx, b.my = append(b.mx, ox+tx*pl/2), append(b.my, oy+ty*pl/2)
			b.nx, b.ny = append(b.nx, ty), append(b.ny, -tx) // outward for a CCW outline
		}
		b.radius = math.Max(b.radius, math.Hypot(p.X, p.Y))
	}
	if err := b.inside(c); err != nil {
		return nil, err
	}
	b.pinv = panelInverse(b)
	return b, nil
}

// inside reports an error when any vertex of the body lies outside the domain.
func (b *Body) inside(c *Config) error {
	s, co := math.Sincos(b.angle)
	for i := range b.ox {
		x := b.pos.X + co*b.ox[i] - s*b.oy[i]
		y := b.pos.Y + s*b.ox[i] + co*b.oy[i]
		if x < 0 || x > c.Width || y < 0 || y > c.Height {
			return fmt.Errorf("reduced: body at (%.4g, %.4g) m has outline point (%.4g, %.4g) outside the [0, %.4g]×[0, %.4g] m domain", b.pos.X, b.pos.Y, x, y, c.Width, c.Height)
		}
	}
	return nil
}

// panelVelocity is Eq. 5.11: the velocity at (px, py) induced by a straight vortex panel of
// constant strength γ (circulation per length, counter-clockwise positive) from (ox, oy) along
// the unit tangent (tx, ty) for length l. In the panel frame (x along the tangent, y along the
// left normal) integrating the point-vortex kernel over the panel gives
//
//	u = −γβ/(2π),  v = γ/(2π) ln((d_o + ε)/(d_e + ε)),
//
// with β the signed angle the panel subtends from the point, β = atan2(y·l, y² − x(l − x)), and
// d_o, d_e the distances to the panel's start and end. (The dissertation writes u = γβ/(2π):
// the opposite sign convention for γ.) The normal component at the panel's own midpoint is 0.
func panelVelocity(px, py, ox, oy, tx, ty, l, gamma, eps float64) (u, v float64) {
	dx, dy := px-ox, py-oy
	x := dx*tx + dy*ty
	y := -dx*ty + dy*tx
	d0 := math.Sqrt(x*x + y*y)
	xe := x - l
	de := math.Sqrt(xe*xe + y*y)
	beta := math.Atan2(y*l, y*y-x*(l-x))
	k := gamma / (2 * math.Pi)
	ul := -k * beta
	vl := k * math.Log((d0+eps)/(de+eps))
	return ul*tx - vl*ty, ul*ty + vl*tx
}

// panelStream is the stream function of the panel of Eq. 5.11 (u = ∂ψ/∂y, v = −∂ψ/∂x): the
// integral of the point-vortex stream function −γ/(2π) ln r over the panel,
//
//	ψ = −γ/(2π) [G(x) − G(x − l)],  G(t) = ½ t ln(t² + y²) − t + y atan(t/y),
//
// in the panel frame (x along the tangent, y along the left normal). It is continuous across
// the panel, so the flux through any segment is the difference of ψ at its ends.
func panelStream(px, py, ox, oy, tx, ty, l, gamma float64) float64 {
	dx, dy := px-ox, py-oy
	x := dx*tx + dy*ty
	y := -dx*ty + dy*tx
	return -gamma / (2 * math.Pi) * (antiLog(x, y) - antiLog(x-l, y))
}

// antiLog is G(t) = ∫ ½ ln(t² + y²) dt, with its limits at t = 0 or y = 0.
func antiLog(t, y float64) float64 {
	r2 := t*t + y*y
	g := -t
	if r2 > 0 && t != 0 {
		g += 0.5 * t * math.Log(r2)
	}
	if y != 0 {
		g += y * math.Atan(t/y)
	}
	return g
}

// panelInverse builds the panel matrix P of Eq. 5.12–5.13 in body space and returns the
// least-squares inverse P⁺ = (PᵀP)⁻¹Pᵀ (M × (M+1)) of P with the zero-circulation row A_i of
// Eq. 5.15 appended; at run time γ = P⁺ b is one matrix-vector product (§5.3.1).
//
// Eq. 5.12 and 5.14 impose the normal flow at each panel midpoint with the one-point rule
// A_j u(m_j)·n_j, and the dissertation notes that higher-order rules could be used. We keep the
// midpoints as collocation points but integrate exactly: condition j is zero flux through the
// piece of outline from midpoint m_j to the next panel's midpoint m_{j+1}, which is the
// difference of the stream function there, P_ji = −(ψ_i(m_{j+1}) − ψ_i(m_j)) for unit γ_i, and
// b_j the same difference for u_f − u_o (Eq. 5.14). Equivalently the relative stream function
// takes one value at all midpoints: the no-penetration condition of a closed body. The fluxes
// of any panel field around a closed outline sum to exactly zero, so P is exactly singular
// with the circulation direction as its null space (the reason for Eq. 5.15's row) and every
// b is consistent: the solve leaves no flux through any piece. (Collocating the normal
// velocity instead leaves an O((A/R)²) least-squares residual on asymmetric bodies, and
// differencing ψ at the panels' end points instead of their midpoints gives a second null
// vector on outlines with two mirror symmetries, e.g. every box.)
func panelInverse(b *Body) []float64 {
	m := len(b.ln)
	rows := m + 1
	p := make([]float64, rows*m)
	for j := 0; j < m; j++ {
		k := (j + 1) % m
		for i := 0; i < m; i++ {
			fl := panelStream(b.mx[k], b.my[k], b.ox[i], b.oy[i], b.tx[i], b.ty[i], b.ln[i], 1) -
				panelStream(b.mx[j], b.my[j], b.ox[i], b.oy[i], b.tx[i], b.ty[i], b.ln[i], 1)
			p[j*m+i] = -fl
		}
	}
	for i := 0; i < m; i++ {
		p[m*m+i] = b.ln[i]
	}
	// normal equations PᵀP X = Pᵀ, solved by Gauss–Jordan elimination with partial pivoting
	a := make([]float64, m*m)
	for i := 0; i < m; i++ {
		for k := 0; k < m; k++ {
			s := 0.0
			for r := 0; r < rows; r++ {
				s += p[r*m+i] * p[r*m+k]
			}
			a[i*m+k] = s
		}
	}
	x := make([]float64, m*rows) // Pᵀ
	for i := 0; i < m; i++ {
		for r := 0; r < rows; r++ {
			x[i*rows+r] = p[r*m+i]
		}
	}
	for col := 0; col < m; col++ {
		piv := col
		for r := col + 1; r < m; r++ {
			if math.Abs(a[r*m+col]) > math.Abs(a[piv*m+col]) {
				piv = r
			}
		}
		if piv != col {
			for k := 0; k < m; k++ {
				a[col*m+k], a[piv*m+k] = a[piv*m+k], a[col*m+k]
			}
			for k := 0; k < rows; k++ {
				x[col*rows+k], x[piv*rows+k] = x[piv*rows+k], x[col*rows+k]
			}
		}
		d := a[col*m+col]
		for k := 0; k < m; k++ {
			a[col*m+k] /= d
		}
		for k := 0; k < rows; k++ {
			x[col*rows+k] /= d
		}
		for r := 0; r < m; r++ {
			if r == col {
				continue
			}
			f := a[r*m+col]
			if f == 0 {
				continue
			}
			for k := 0; k < m; k++ {
				a[r*m+k] -= f * a[col*m+k]
			}
			for k := 0; k < rows; k++ {
				x[r*rows+k] -= f * x[col*rows+k]
			}
		}
	}
	return x
}

// farRatio: beyond farRatio panel lengths from a panel's midpoint its velocity and stream
// function are evaluated from the expansion of panelFar instead of the closed forms (the
// expansion's relative error there is below (1/(2·farRatio))⁸ ≈ 6e-8).
const farRatio = 4

// panelFar is the far-field expansion of a panel (Eq. 5.11 and panelStream) about its midpoint
// c. With ζ = z − c, e = e^{iθ} the panel direction, h = l/2 and the complex potential
// w = −iγ/(2π) F, F(z) = ∫_{−h}^{h} ln(ζ − s e) ds = l ln ζ − Σ_{p even} 2 e^p h^{p+1}/(p(p+1) ζ^p)
// (odd terms integrate to zero). Kept to p = 6: ψ = Im w = −γ/(2π) Re F and
// u − iv = w' = −iγ/(2π) F'. One logarithm and one complex division per call.
func panelFar(px, py, cx, cy, tx, ty, l, gamma float64) (u, v, psi float64) {
	x, y := px-cx, py-cy
	r2 := x*x + y*y
	qr, qi := x/r2, -y/r2 // q = 1/ζ
	// a = (e q)²
	er, ei := tx*qr-ty*qi, tx*qi+ty*qr
	ar, ai := er*er-ei*ei, 2*er*ei
	a2r, a2i := ar*ar-ai*ai, 2*ar*ai
	a3r, a3i := a2r*ar-a2i*ai, a2r*ai+a2i*ar
	h := l / 2
	h3 := h * h * h
	h5 := h3 * h * h
	h7 := h5 * h * h
	c1, c2, c3 := h3/3, h5/10, h7/21
	fr := 0.5*l*math.Log(r2) - (c1*ar + c2*a2r + c3*a3r)
	// F' = q (l + 2c1·a + 4c2·a² + 6c3·a³)
	sr := l + 2*c1*ar + 4*c2*a2r + 6*c3*a3r
	si := 2*c1*ai + 4*c2*a2i + 6*c3*a3i
	fpr, fpi := qr*sr-qi*si, qr*si+qi*sr
	k := gamma / (2 * math.Pi)
	return k * fpi, k * fpr, -k * fr
}

// panelFarVelocity is the velocity part of panelFar (no logarithm): the quadtree feedback uses
// it at samples beyond farRatio panel lengths.
func panelFarVelocity(px, py, cx, cy, tx, ty, l, gamma float64) (u, v float64) {
	x, y := px-cx, py-cy
	r2 := x*x + y*y
	qr, qi := x/r2, -y/r2
	er, ei := tx*qr-ty*qi, tx*qi+ty*qr
	ar, ai := er*er-ei*ei, 2*er*ei
	a2r, a2i := ar*ar-ai*ai, 2*ar*ai
	a3r, a3i := a2r*ar-a2i*ai, a2r*ai+a2i*ar
	h := l / 2
	h3 := h * h * h
	h5 := h3 * h * h
	h7 := h5 * h * h
	sr := l + 2*h3/3*ar + 2*h5/5*a2r + 2*h7/7*a3r
	si := 2*h3/3*ai + 2*h5/5*a2i + 2*h7/7*a3i
	k := gamma / (2 * math.Pi)
	return k * (qr*si + qi*sr), k * (qr*sr - qi*si)
}
