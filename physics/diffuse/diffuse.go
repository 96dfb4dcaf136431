// Package diffuse adds spray, foam and air bubbles to a particle fluid as a post-process, after
// M. Ihmsen, N. Akinci, G. Akinci, M. Teschner, "Unified spray, foam and air bubbles for
// particle-based fluids", The Visual Computer 28(6), 2012.
//
// Diffuse particles are generated where the fluid traps air (a potential from the velocity
// differences of approaching neighbours, Eq. 2), at wave crests (the curvature of the surface,
// Eq. 4, where it moves along its normal, Eq. 7) and where the fluid is fast (its kinetic
// energy); they are classified by how many fluid particles surround them (spray outside the fluid,
// foam at its surface, bubbles inside) and moved accordingly: spray ballistically, foam with the
// fluid's local velocity, bubbles by buoyancy and drag towards that velocity. Foam dissolves
// after its lifetime. The diffuse particles never act on the fluid, so the fluid's results do
// not change with them.
//
// Two choices differ from the paper and are stated where they are made: the kinetic-energy
// potential uses the energy per unit mass ½|v|² (J/kg), so its limits do not change with the
// particle size; a new particle takes the fluid particle's velocity (the paper adds its
// position offset, a length, to the velocity).
//
// Determinism: every random number is a hash of the seed, the update counter and the fluid
// particle's index, the counts are laid out by a prefix sum in index order, and every pass
// writes only its own particles, so the result does not depend on the number of workers.
package diffuse

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Vec3 is the package's vector type.
type Vec3 = physics.Vec3

// Kind classifies a diffuse particle by its fluid neighbours (the paper's 6 and 20).
type Kind uint8

const (
	Spray  Kind = iota // fewer than Params.SprayBelow fluid neighbours: ballistic
	Foam               // in between: carried by the fluid, dissolves after its lifetime
	Bubble             // more than Params.BubbleAbove fluid neighbours: buoyant, dragged
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case Spray:
		return "spray"
	case Foam:
		return "foam"
	case Bubble:
		return "bubble"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Params are the model's coefficients. Each potential I is clamped to [0, 1] by
// Φ(I, τmin, τmax) = (min(I, τmax) − min(I, τmin))/(τmax − τmin) (Eq. 1).
type Params struct {
	TrappedAir  float64 // k_ta: particles generated per second by a fully trapped-air particle (1/s)
	WaveCrest   float64 // k_wc: particles per second at a full wave crest (1/s)
	TAMin       float64 // τ_ta^min of the trapped-air potential v_diff (m/s)
	TAMax       float64 // τ_ta^max (m/s)
	WCMin       float64 // τ_wc^min of the wave-crest curvature κ̃ (1)
	WCMax       float64 // τ_wc^max (1)
	KEMin       float64 // τ_k^min of the kinetic energy per unit mass ½|v|² (J/kg)
	KEMax       float64 // τ_k^max (J/kg)
	LifeMin     float64 // shortest lifetime of a new particle (s)
	LifeMax     float64 // longest lifetime (s); each draws uniformly in [LifeMin, LifeMax]
	Buoyancy    float64 // k_b of the bubbles' acceleration −k_b·g (1)
	Drag        float64 // k_d: fraction of the velocity difference to the fluid a bubble loses per update (1)
	SprayBelow  int     // a particle with fewer fluid neighbours is spray (paper: 6)
	BubbleAbove int     // a particle with more fluid neighbours is a bubble (paper: 20)
	Max         int     // most diffuse particles at once; generation beyond it is counted, not done
	Seed        uint64  // seed of the random numbers
	Gravity     Vec3    // gravitational acceleration (m/s²)
	DomainMin   Vec3    // particles that leave [DomainMin, DomainMax] are removed and counted
	DomainMax   Vec3
}

// Validate checks the coefficients' ranges and relations.
func (p *Params) Validate() error {
	switch {
	case !(p.TrappedAir >= 0), !(p.WaveCrest >= 0):
		return fmt.Errorf("diffuse: generation rates %g, %g 1/s must be ≥ 0", p.TrappedAir, p.WaveCrest)
	case !(p.TAMax > p.TAMin), !(p.WCMax > p.WCMin), !(p.KEMax > p.KEMin):
		return fmt.Errorf("diffuse: every potential's upper limit must exceed its lower one (trapped air %g–%g, wave crest %g–%g, energy %g–%g)", p.TAMin, p.TAMax, p.WCMin, p.WCMax, p.KEMin, p.KEMax)
	case !(p.LifeMin > 0), !(p.LifeMax >= p.LifeMin):
		return fmt.Errorf("diffuse: lifetimes %g–%g s: want 0 < min ≤ max", p.LifeMin, p.LifeMax)
	case p.SprayBelow < 0, p.BubbleAbove < p.SprayBelow:
		return fmt.Errorf("diffuse: neighbour classes %d, %d: want 0 ≤ spray ≤ bubble", p.SprayBelow, p.BubbleAbove)
	case !(p.Drag >= 0 && p.Drag <= 1):
		return fmt.Errorf("diffuse: drag %g outside [0, 1]", p.Drag)
	case p.Max < 0:
		return fmt.Errorf("diffuse: Max = %d < 0", p.Max)
	}
	return nil
}

// Phi is the clamp of Eq. 1: 0 below lo, 1 above hi, linear between.
func Phi(x, lo, hi float64) float64 { return (min(x, hi) - min(x, lo)) / (hi - lo) }

// Stats counts one update.
type Stats struct {
	Spray, Foam, Bubbles int // particles of each kind after the update
	Generated            int // new particles
	Dissolved            int // foam whose lifetime ended
	Left                 int // particles removed for leaving the domain
	Absorbed             int // spray removed for hitting a wall
	Capped               int // particles the potentials asked for beyond Params.Max (not generated)
}

// Set is the diffuse particles of one fluid and the scratch of an update. The zero value is
// an empty set.
type Set struct {
	X    []Vec3    // position (m)
	V    []Vec3    // velocity (m/s)
	Life []float64 // remaining lifetime (s); only foam counts it down
	Kind []Kind
	// Updates counts the updates so far; with Params.Seed it seeds the random numbers.
	Updates uint64

	// scratch
	fGrid, dGrid physics.Grid
	ff, df, dw   physics.Neighbors
	hit          []bool // spray that hit a wall this update
	adj          []int32
	count        []int32 // new particles per fluid particle, then their first slot
	normal       []Vec3  // unit outward normal of a surface fluid particle, zero elsewhere
	keep         []bool

	// arguments of the pass in flight; the passes are method values made once
	p                                         *Params
	x, v                                      []Vec3
	emit                                      []bool
	wx                                        []Vec3
	kr                                        *physics.Kernel
	vol, r, dt                                float64
	base                                      int
	fnNormal, fnCount, fnMake, fnMove, fnWall func(lo, hi, b int)
}

// Len returns the number of diffuse particles.
func (s *Set) Len() int { return len(s.X) }

// Input is the fluid an update reads: its particles' state after the interval and its walls.
type Input struct {
	X, V   []Vec3          // fluid particles' positions (m) and velocities (m/s)
	Emit   []bool          // which fluid particles may generate (nil: all)
	Kernel *physics.Kernel // the fluid's kernel; its support H is the neighbourhood
	R      float64         // particle radius r (m): the radius of the generation cylinder
	Vol    float64         // fluid particles' rest volume (m³), for the colour field of the normals
	// WallX are the wall samples and Walls their grid (cell size Kernel.H), or nil: spray that
	// ends an update within a particle spacing 2r of a sample has hit the wall and is removed.
	WallX []Vec3
	Walls *physics.Grid
}

// Update advances the diffuse particles over dt with the fluid's state after that interval and
// generates new ones. The existing particles are classified and moved first, then the
// dissolved, absorbed and departed ones are removed, then the fluid generates.
func (s *Set) Update(p *Params, in *Input, dt float64, pool *par.Pool) (Stats, error) {
	var st Stats
	if err := p.Validate(); err != nil {
		return st, err
	}
	if !(dt > 0) {
		return st, fmt.Errorf("diffuse: dt = %g s, want > 0", dt)
	}
	if s.fnNormal == nil {
		s.fnNormal, s.fnCount, s.fnMake, s.fnMove, s.fnWall = s.normalBlock, s.countBlock, s.makeBlock, s.moveBlock, s.wallBlock
	}
	x, v, kr := in.X, in.V, in.Kernel
	s.p, s.x, s.v, s.emit, s.kr, s.r, s.vol, s.dt, s.wx = p, x, v, in.Emit, kr, in.R, in.Vol, dt, in.WallX
	defer func() { s.p, s.x, s.v, s.emit, s.kr, s.wx = nil, nil, nil, nil, nil, nil }()
	n := len(x)
	if n > 0 {
		if err := s.fGrid.Build(x, kr.H, pool); err != nil {
			return st, fmt.Errorf("diffuse: %w", err)
		}
	}

	// The existing particles, against the fluid at the end of the interval.
	if m := s.Len(); m > 0 && n > 0 {
		if err := s.dGrid.Build(s.X, kr.H, pool); err != nil {
			return st, fmt.Errorf("diffuse: %w", err)
		}
		s.adj = par.Grow(s.adj, 27*s.dGrid.NumCells())
		s.dGrid.Adjacent(&s.fGrid, s.adj, pool)
		physics.Search(&s.dGrid, s.X, &s.fGrid, s.adj, kr, false, &s.df, pool)
	}
	s.keep = par.Grow(s.keep, s.Len())
	pool.For(s.Len(), s.fnMove)
	if in.Walls != nil && len(in.WallX) > 0 && s.Len() > 0 {
		if err := s.dGrid.Build(s.X, kr.H, pool); err != nil {
			return st, fmt.Errorf("diffuse: %w", err)
		}
		s.adj = par.Grow(s.adj, 27*s.dGrid.NumCells())
		s.dGrid.Adjacent(in.Walls, s.adj, pool)
		physics.Search(&s.dGrid, s.X, in.Walls, s.adj, kr, false, &s.dw, pool)
		s.hit = par.Grow(s.hit, s.Len())
		pool.For(s.Len(), s.fnWall)
	} else {
		s.hit = par.Grow(s.hit, s.Len())
		clear(s.hit)
	}
	k := 0
	for i := range s.X {
		if !s.keep[i] || s.hit[i] {
			switch {
			case s.hit[i]:
				st.Absorbed++
			case s.Kind[i] == Foam && s.Life[i] <= 0:
				st.Dissolved++
			default:
				st.Left++
			}
			continue
		}
		s.X[k], s.V[k], s.Life[k], s.Kind[k] = s.X[i], s.V[i], s.Life[i], s.Kind[i]
		k++
	}
	s.X, s.V, s.Life, s.Kind = s.X[:k], s.V[:k], s.Life[:k], s.Kind[:k]

	// Generation from the fluid's potentials.
	if n > 0 && (p.TrappedAir > 0 || p.WaveCrest > 0) {
		physics.Search(&s.fGrid, x, &s.fGrid, s.fGrid.SelfAdjacent(), kr, true, &s.ff, pool)
		s.normal = par.Grow(s.normal, n)
		s.count = par.Grow(s.count, n+1)
		pool.For(n, s.fnNormal)
		pool.For(n, s.fnCount)
		total := 0
		room := max(p.Max-s.Len(), 0)
		for i := 0; i < n; i++ {
			c := int(s.count[i])
			if total+c > room {
				st.Capped += total + c - room
				c = room - total
			}
			s.count[i] = int32(total)
			total += c
		}
		s.count[n] = int32(total)
		s.base = s.Len()
		m := s.base + total
		s.X, s.V, s.Life, s.Kind = extend(s.X, m), extend(s.V, m), extend(s.Life, m), extend(s.Kind, m)
		pool.For(n, s.fnMake)
		st.Generated = total
	}
	s.Updates++
	for _, kd := range s.Kind {
		switch kd {
		case Spray:
			st.Spray++
		case Foam:
			st.Foam++
		default:
			st.Bubbles++
		}
	}
	return st, nil
}

// moveBlock classifies and moves a block of diffuse particles and marks those to keep.
func (s *Set) moveBlock(lo, hi, b int) {
	p, dt := s.p, s.dt
	g := p.Gravity
	var blk *physics.NeighborBlock
	if len(s.x) > 0 {
		blk = &s.df.Blocks[b]
	}
	for i := lo; i < hi; i++ {
		// the fluid's velocity at the particle: the kernel-weighted average of its neighbours'
		var vf Vec3
		nf := 0
		if blk != nil {
			js, ws, _ := blk.RowW(i - lo)
			nf = len(js)
			sw := 0.0
			for k, j := range js {
				w := float64(ws[k])
				vj := s.v[j]
				vf[0], vf[1], vf[2] = vf[0]+w*vj[0], vf[1]+w*vj[1], vf[2]+w*vj[2]
				sw += w
			}
			if sw > 0 {
				vf[0], vf[1], vf[2] = vf[0]/sw, vf[1]/sw, vf[2]/sw
			}
		}
		x, v := s.X[i], s.V[i]
		switch {
		case nf < p.SprayBelow:
			// spray: ballistic, exact for constant gravity
			s.Kind[i] = Spray
			for d := 0; d < 3; d++ {
				x[d] += dt*v[d] + 0.5*dt*dt*g[d]
				v[d] += dt * g[d]
			}
		case nf > p.BubbleAbove:
			// bubble: buoyancy against gravity and drag towards the fluid's velocity
			s.Kind[i] = Bubble
			for d := 0; d < 3; d++ {
				v[d] += -p.Buoyancy*dt*g[d] + p.Drag*(vf[d]-v[d])
				x[d] += dt * v[d]
			}
		default:
			// foam: carried by the fluid, dissolving
			s.Kind[i] = Foam
			for d := 0; d < 3; d++ {
				v[d] = vf[d]
				x[d] += dt * v[d]
			}
			s.Life[i] -= dt
		}
		s.X[i], s.V[i] = x, v
		inside := true
		for d := 0; d < 3; d++ {
			inside = inside && x[d] >= p.DomainMin[d] && x[d] <= p.DomainMax[d]
		}
		s.keep[i] = inside && !(s.Kind[i] == Foam && s.Life[i] <= 0)
	}
}

// wallBlock marks the spray of a block that ends the update within a spacing 2r of a wall
// sample.
func (s *Set) wallBlock(lo, hi, b int) {
	blk := &s.dw.Blocks[b]
	d2 := 4 * s.r * s.r
	for i := lo; i < hi; i++ {
		s.hit[i] = false
		if s.Kind[i] != Spray {
			continue
		}
		js, _ := blk.Row(i - lo)
		xi := s.X[i]
		for _, j := range js {
			xj := s.wx[j]
			dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			if dx*dx+dy*dy+dz*dz < d2 {
				s.hit[i] = true
				break
			}
		}
	}
}

// normalBlock sets the outward unit normal n̂ = −∇c/|∇c| of the colour field
// c_i = Σ_j V_j W_ij for the fluid's surface particles (|∇c|·h ≥ surfaceGrad) and zero for the
// others, whose colour gradient is too small to give a direction.
func (s *Set) normalBlock(lo, hi, b int) {
	blk := &s.ff.Blocks[b]
	h := s.kr.H
	for i := lo; i < hi; i++ {
		js, gw := blk.Row(i - lo)
		gw = gw[:len(js)]
		xi := &s.x[i]
		var gx, gy, gz float64
		for k, j := range js {
			g := physics.Grad(gw[k], xi, &s.x[j])
			gx, gy, gz = gx+g[0], gy+g[1], gz+g[2]
		}
		gx, gy, gz = gx*s.vol, gy*s.vol, gz*s.vol
		l := math.Sqrt(gx*gx + gy*gy + gz*gz)
		if l*h < surfaceGrad {
			s.normal[i] = Vec3{}
			continue
		}
		s.normal[i] = Vec3{-gx / l, -gy / l, -gz / l}
	}
}

// surfaceGrad is the colour-gradient magnitude |∇c|·h above which a particle counts as a
// surface particle. On a resting lattice (cubic spline, h = 4r) the top layer has
// |∇c|·h ≥ 1.02 and the second layer and the interior 0 (TestSurfaceNormals); 0.7 selects the
// top layer of a flat surface and the outer particles of a crest or a splash.
const surfaceGrad = 0.7

// countBlock evaluates the potentials of a block of fluid particles and draws how many
// diffuse particles each generates: n_d = I_k (k_ta I_ta + k_wc I_wc) Δt, rounded up
// with the probability of its fractional part.
func (s *Set) countBlock(lo, hi, b int) {
	p, h := s.p, s.kr.H
	blk := &s.ff.Blocks[b]
	for i := lo; i < hi; i++ {
		s.count[i] = 0
		if s.emit != nil && !s.emit[i] {
			continue
		}
		vi := s.v[i]
		ke := 0.5 * (vi[0]*vi[0] + vi[1]*vi[1] + vi[2]*vi[2])
		ik := Phi(ke, p.KEMin, p.KEMax)
		if ik == 0 {
			continue
		}
		xi, ni := s.x[i], s.normal[i]
		js, _ := blk.Row(i - lo)
		vdiff, kappa := 0.0, 0.0
		surface := ni != (Vec3{})
		for _, j := range js {
			xj, vj := s.x[j], s.v[j]
			dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			r := math.Sqrt(dx*dx + dy*dy + dz*dz)
			wt := 1 - r/h // the paper's W̃
			if r == 0 || wt <= 0 {
				continue
			}
			// Eq. 2: trapped air, v_diff = Σ_j |v_ij| (1 − v̂_ij·x̂_ij) W̃_ij
			ux, uy, uz := vi[0]-vj[0], vi[1]-vj[1], vi[2]-vj[2]
			if u := math.Sqrt(ux*ux + uy*uy + uz*uz); u > 0 {
				vdiff += u * (1 - (ux*dx+uy*dy+uz*dz)/(u*r)) * wt
			}
			// Eq. 4: wave crests, κ_i = Σ_j (1 − n̂_i·n̂_j) W̃_ij over surface neighbours
			// that lie behind the surface (x̂_ji·n̂_i < 0: convex only)
			if nj := s.normal[j]; surface && nj != (Vec3{}) && -(dx*ni[0]+dy*ni[1]+dz*ni[2]) < 0 {
				kappa += (1 - (ni[0]*nj[0] + ni[1]*nj[1] + ni[2]*nj[2])) * wt
			}
		}
		ita := Phi(vdiff, p.TAMin, p.TAMax)
		iwc := 0.0
		// Eq. 7: only where the surface moves along its normal (v̂_i·n̂_i ≥ 0.6)
		if speed := math.Sqrt(2 * ke); surface && (vi[0]*ni[0]+vi[1]*ni[1]+vi[2]*ni[2]) >= 0.6*speed {
			iwc = Phi(kappa, p.WCMin, p.WCMax)
		}
		nd := ik * (p.TrappedAir*ita + p.WaveCrest*iwc) * s.dt
		c := math.Floor(nd)
		if uniform(p.Seed, s.Updates, uint64(i), 0) < nd-c {
			c++
		}
		s.count[i] = int32(c)
	}
}

// makeBlock places the new particles of a block of fluid particles as the paper samples them: uniformly in the
// cylinder of radius r around the particle's path over the next Δt, x_d = x_i + ρ cos θ e1 +
// ρ sin θ e2 + t v_i, with ρ = r√X_r, θ = 2πX_θ, t = Δt·X_h; each takes the particle's velocity
// and a lifetime drawn uniformly from [LifeMin, LifeMax].
func (s *Set) makeBlock(lo, hi, b int) {
	p, dt := s.p, s.dt
	for i := lo; i < hi; i++ {
		first, last := int(s.count[i]), int(s.count[i+1])
		if first == last {
			continue
		}
		xi, vi := s.x[i], s.v[i]
		e1, e2 := perpendicular(vi)
		for k := first; k < last; k++ {
			q := uint64(4 * (k - first + 1))
			rho := s.r * math.Sqrt(uniform(p.Seed, s.Updates, uint64(i), q))
			th := 2 * math.Pi * uniform(p.Seed, s.Updates, uint64(i), q+1)
			t := dt * uniform(p.Seed, s.Updates, uint64(i), q+2)
			c, sn := rho*math.Cos(th), rho*math.Sin(th)
			d := s.base + k
			for a := 0; a < 3; a++ {
				s.X[d][a] = xi[a] + c*e1[a] + sn*e2[a] + t*vi[a]
			}
			s.V[d] = vi
			s.Life[d] = p.LifeMin + (p.LifeMax-p.LifeMin)*uniform(p.Seed, s.Updates, uint64(i), q+3)
			s.Kind[d] = Foam
		}
	}
}

// perpendicular returns two unit vectors orthogonal to v and to each other.
func perpendicular(v Vec3) (Vec3, Vec3) {
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	if l == 0 {
		return Vec3{1, 0, 0}, Vec3{0, 0, 1}
	}
	u := Vec3{v[0] / l, v[1] / l, v[2] / l}
	a := Vec3{1, 0, 0}
	if math.Abs(u[0]) > 0.9 {
		a = Vec3{0, 1, 0}
	}
	// e1 = a × u normalised, e2 = u × e1
	e1 := Vec3{a[1]*u[2] - a[2]*u[1], a[2]*u[0] - a[0]*u[2], a[0]*u[1] - a[1]*u[0]}
	l1 := math.Sqrt(e1[0]*e1[0] + e1[1]*e1[1] + e1[2]*e1[2])
	e1 = Vec3{e1[0] / l1, e1[1] / l1, e1[2] / l1}
	e2 := Vec3{u[1]*e1[2] - u[2]*e1[1], u[2]*e1[0] - u[0]*e1[2], u[0]*e1[1] - u[1]*e1[0]}
	return e1, e2
}

// uniform returns a number in [0, 1) from a hash of its arguments (SplitMix64 finaliser over
// each word in turn): the same arguments give the same number on every run and worker count.
func uniform(seed, update, i, k uint64) float64 {
	h := seed
	for _, w := range [3]uint64{update, i, k} {
		h = mix(h ^ (w + 0x9e3779b97f4a7c15))
	}
	return float64(h>>11) / (1 << 53)
}

// mix is the SplitMix64 finaliser.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// extend returns s with length n ≥ len(s), its contents kept (par.Grow does not keep them).
func extend[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	t := make([]T, n, n+n/4)
	copy(t, s)
	return t
}
