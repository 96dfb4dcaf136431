// Package viscoelastic is viscoelastic goo by position-based velocity corrections:
// T. Takahashi, Y. Dobashi, I. Fujishiro, T. Nishita, "Volume preserving viscoelastic fluids
// with large deformations using position-based velocity corrections", The Visual Computer, 2015.
//
// Goo particles are joined by pairwise connections with a rest length r_ij. Each substep,
// before the pressure solve, connections are created and broken (Algorithm 1), the predicted
// velocity of every connected particle gets the correction Δv of Eq. 8/10, and the correction
// coefficient c weakens under large stretch (Eq. 11). Positions are not touched, so the pressure
// solve sees the positions its neighbour lists were built from (the paper's second requirement,
// §3.1), and the velocities it makes divergence-free include the correction (the first).
//
// Connections are stored on both particles of a fluid pair (i lists j and j lists i), so each
// particle's correction is a gather over its own list and the pass runs in parallel blocks with
// no write to another particle. Both sides evaluate the same symmetric tests on the same
// numbers, so the two lists stay mirror images: creation needs |x_ij| < ᾱh (and the pair is in
// both neighbour lists, found by the same distance test), breaking needs |x_ij| > β̄h, and
// the rest length is the same |x_ij|.
package viscoelastic

import (
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// State is the goo state of the packed fluid particles. Every slice is indexed like
// physics.FluidSet (all fluid particles); particles with Beta = 0 are plain fluid and take no
// part. C changes during the run (plasticity) and is kept between steps; the other parameters
// are copied from the bodies' materials every step, so a material edit takes effect at once.
type State struct {
	C     []float64 // correction coefficient c_i of Eq. 6 (weakened by Eq. 7/11)
	L     []float64 // lower limit l_i of c_i
	W     []float64 // weakening speed w_i (1/s)
	Gamma []float64 // yield criterion γ_i
	Alpha []float64 // connection distance α_i (units of h)
	Beta  []float64 // break distance β_i (units of h); 0 marks a non-goo particle
	// New is 1 for a particle whose body joined the goo this step: in its first substep it
	// connects to every goo neighbour within h, the paper's "set of pairwise connections for
	// neighboring particles when an object is created" (§3.2.1); later connections need α.
	New []float64

	// Adhesion is c_k of every boundary particle (indexed like physics.BoundarySet); 0 means
	// goo never connects to it.
	Adhesion []float64

	// Owner maps a boundary particle to the rigid body it belongs to (−1: a wall), and Centers
	// holds each body's centre of mass. With them, Step sums the reaction of the goo's wall
	// connections on each body (Eq. 9) into Force and Torque; nil Owner skips it.
	Owner   []int32
	Centers []physics.Vec3
	// Force and Torque (about the centre) are what the goo's connections exert on each body
	// in the last Step (N, N m).
	Force, Torque []physics.Vec3

	Conn Connections

	// Deferred counts the candidate connections of the last Step that did not fit a
	// particle's candidate buffer and wait for a later substep (0 in practice).
	Deferred int

	cNext     []float64
	key       []float64
	deferred  []int
	pd        []partner // per particle: what a partner's connection reads, one cache line
	blockBeta []float64 // per block: smallest β of its goo particles
	blockKey  []float64 // per block: largest connection key
	safeBreak float64   // (min β)·h: shorter connections cannot break
	limMax    float64   // the largest connection distance of any pair (m)
	keyMin    float64   // the smallest connection key of a goo particle
	blockKMin []float64 // per block: smallest connection key
	wMin      float64   // W at the largest connection distance, lowered by a margin
	bodyPart  []float64 // per block: force and torque on each body (6 numbers a body)
	reg       []physics.Field
	pass      passArgs
}

// Connections are the pairwise connections as compressed rows per par.BlockSize block of
// particles (the layout of physics.Neighbors): particle Lo+k's connections are entries
// Start[k]:Start[k+1] of its block. A partner j ≥ 0 is a fluid particle; j < 0 is boundary
// particle −j−1. R holds the rest lengths r_ij (m).
type Connections struct {
	Blocks []ConnBlock
	next   []ConnBlock
}

// ConnBlock holds the rows of one block.
type ConnBlock struct {
	Start []int32
	J     []int32
	R     []float64
}

// Of returns particle i's partners and rest lengths.
func (c *Connections) Of(i int) ([]int32, []float64) {
	if i/par.BlockSize >= len(c.Blocks) {
		return nil, nil
	}
	b := &c.Blocks[i/par.BlockSize]
	k := i % par.BlockSize
	if k+1 >= len(b.Start) {
		return nil, nil
	}
	s, e := b.Start[k], b.Start[k+1]
	return b.J[s:e], b.R[s:e]
}

// Count returns the number of stored connection entries (a fluid pair counts twice).
func (c *Connections) Count() int {
	n := 0
	for i := range c.Blocks {
		n += len(c.Blocks[i].J)
	}
	return n
}

// Pairs returns the number of connections, a fluid pair counted once.
func (c *Connections) Pairs() int {
	fluid, wall := 0, 0
	for b := range c.Blocks {
		for _, j := range c.Blocks[b].J {
			if j >= 0 {
				fluid++
			} else {
				wall++
			}
		}
	}
	return fluid/2 + wall
}

// Params of one substep.
type Params struct {
	Kernel *physics.Kernel // its support radius h is the paper's h: distances are in units of h
	Dt     float64         // substep length Δt (s)
}

// partner is what the connection loop reads of a partner particle, packed into 64 bytes so a
// connection costs one cache-line read (the loop's cost is memory latency).
type partner struct {
	x                    physics.Vec3
	c, m, gamma, w, beta float64
}

type passArgs struct {
	f      *physics.FluidSet
	b      *physics.BoundarySet
	ff, fb *physics.Neighbors
	p      Params
	fn     func(lo, hi, block int)
	fnMap  func(lo, hi, block int)
	fnPrep func(lo, hi, block int)
	src    []int32 // Remap: new particle → old particle (−1: new, no connections)
	inv    []int32 // Remap: old fluid particle → new (−1: gone)
	binv   []int32 // Remap: old boundary particle → new (−1: gone); nil keeps them
}

func (s *State) init() {
	s.pass.fn, s.pass.fnMap, s.pass.fnPrep = s.stepBlock, s.remapBlock, s.prepare
}

// Len returns the number of particles the state covers (0 when the world has no goo).
func (s *State) Len() int { return len(s.C) }

// Fields lists the per-particle fields, for permuting them with the fluid's fields.
func (s *State) Fields() []physics.Field {
	if s.reg == nil {
		s.reg = []physics.Field{
			{Name: "gooC", Unit: "1", Scalar: &s.C},
			{Name: "gooL", Unit: "1", Scalar: &s.L},
			{Name: "gooW", Unit: "1/s", Scalar: &s.W},
			{Name: "gooGamma", Unit: "1", Scalar: &s.Gamma},
			{Name: "gooAlpha", Unit: "1", Scalar: &s.Alpha},
			{Name: "gooBeta", Unit: "1", Scalar: &s.Beta},
			{Name: "gooNew", Unit: "1", Scalar: &s.New},
		}
	}
	return s.reg
}

// Resize sets the particle count to n, keeping existing values (new particles are plain
// fluid with no connections until their parameters are set).
func (s *State) Resize(n int) {
	for _, f := range s.Fields() {
		*f.Scalar = resize(*f.Scalar, n)
	}
	s.cNext = par.Grow(s.cNext, n)
	nb := par.Blocks(n)
	s.Conn.Blocks = resizeBlocks(s.Conn.Blocks, nb)
	for b := range s.Conn.Blocks {
		rows := min(par.BlockSize, n-b*par.BlockSize)
		blk := &s.Conn.Blocks[b]
		for len(blk.Start) < rows+1 {
			if len(blk.Start) == 0 {
				blk.Start = append(blk.Start, 0)
				continue
			}
			blk.Start = append(blk.Start, blk.Start[len(blk.Start)-1])
		}
		if len(blk.Start) > rows+1 {
			blk.Start = blk.Start[:rows+1]
			blk.J, blk.R = blk.J[:blk.Start[rows]], blk.R[:blk.Start[rows]]
		}
	}
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		old := len(s)
		s = s[:n]
		for i := old; i < n; i++ {
			s[i] = 0
		}
		return s
	}
	t := make([]float64, n, n+n/8)
	copy(t, s)
	return t
}

func resizeBlocks(b []ConnBlock, n int) []ConnBlock {
	for len(b) < n {
		b = append(b, ConnBlock{})
	}
	return b[:n]
}

// Step runs one substep of the paper's Algorithm 2, lines 3-7, for every goo particle i:
//
//  1. keep the connections with |x_ij| ≤ β̄h, β̄ = (β_i+β_j)/2, and break the others (Alg. 1);
//  2. add Δv_i of Eq. 8/10 to v*_i: for fluid partners
//     −(1/Δt)·(c_i+c_j)/2 · m_j/(m_i+m_j) · D_ij · x_ij/|x_ij|, for boundary partners (one-way
//     coupling, m_k = ∞) −(1/Δt)·(c_i+c_k)/2 · D_ik · x_ik/|x_ik|, with D_ij = max(|x_ij| − r_ij, 0);
//  3. weaken c_i by Eq. 11: c_i ← max(c_i − Δt·Σ w̄ σ, l_i), σ = 1 where D/h > γ̄;
//  4. connect the goo neighbours and adhesive boundary neighbours with |x_ij| < ᾱh that are not
//     connected yet, with r_ij = |x_ij| (Alg. 1; a new connection has D = 0, so it corrects
//     nothing this substep, matching the paper's order "update connections, then correct");
//     pairs with a particle marked New connect within h (the connections made "when an object
//     is created"), a test both sides of a pair evaluate alike.
//
// Only stretched connections (|x_ij| > r_ij) need a square root and the partner's c, m, γ and w.
//
// For a boundary partner k the pair's α, β, γ and w are the goo particle's own and c_k is the
// wall's Adhesion. ff and fb are the substep's fluid→fluid and fluid→boundary neighbour lists.
func (s *State) Step(f *physics.FluidSet, b *physics.BoundarySet, ff, fb *physics.Neighbors, p Params, pool *par.Pool) {
	n := f.Len()
	if s.Len() != n {
		panic("viscoelastic: state and fluid set differ in length")
	}
	if s.pass.fn == nil {
		s.init()
	}
	s.Conn.next = resizeBlocks(s.Conn.next, par.Blocks(n))
	s.cNext = par.Grow(s.cNext, n)
	s.key = par.Grow(s.key, n)
	s.pd = par.Grow(s.pd, n)
	nblk := par.Blocks(n)
	s.deferred = par.Grow(s.deferred, nblk)
	s.blockBeta, s.blockKey, s.blockKMin = par.Grow(s.blockBeta, nblk), par.Grow(s.blockKey, nblk), par.Grow(s.blockKMin, nblk)
	s.pass.f, s.pass.b, s.pass.ff, s.pass.fb, s.pass.p = f, b, ff, fb, p
	pool.For(n, s.pass.fnPrep)
	bmin, kmax, kmin := math.Inf(1), -1.0, math.Inf(1)
	for b := 0; b < nblk; b++ {
		bmin, kmax, kmin = min(bmin, s.blockBeta[b]), max(kmax, s.blockKey[b]), min(kmin, s.blockKMin[b])
	}
	s.keyMin = kmin
	h := p.Kernel.H
	s.safeBreak = bmin * h
	// The largest connection distance of any pair is limit(kmax, kmax); W there, lowered by
	// a relative 1e-4 in distance (a W change far above float32's 6e-8 rounding), bounds W_ij
	// of every pair that can connect. At the support's edge W is 0 and the filter passes all.
	s.limMax = limit(kmax, kmax, h)
	s.wMin = p.Kernel.W(min(s.limMax*(1+1e-4), h))
	if s.wMin > 0 {
		s.wMin *= 1 - 1e-4
	}
	nbody := 0
	if s.Owner != nil {
		nbody = len(s.Centers)
	}
	s.bodyPart = par.Grow(s.bodyPart, 6*nbody*nblk)
	pool.For(n, s.pass.fn)
	s.Force, s.Torque = par.Grow(s.Force, nbody), par.Grow(s.Torque, nbody)
	physics.ReduceLoads(s.bodyPart, nbody, nblk, s.Force, s.Torque)
	s.Deferred = 0
	for _, d := range s.deferred {
		s.Deferred += d
	}
	s.Conn.Blocks, s.Conn.next = s.Conn.next, s.Conn.Blocks
	s.C, s.cNext = s.cNext, s.C
	clear(s.New)
	s.pass.f, s.pass.b, s.pass.ff, s.pass.fb = nil, nil, nil, nil
}

// hashSize bounds the per-particle membership table of the connection test; a particle with
// more than hashSize/2 surviving connections falls back to a linear scan.
const hashSize = 256

// maxCand bounds the candidates one particle collects per substep for new connections; the
// neighbours within h number about 33 (up to ~60 under compression), so it is never reached
// in practice, and past it the rest wait for the next substep (counted in Deferred).
const maxCand = 128

// restSlack treats a connection within rounding of its rest length as unstretched
// (|x_ij|² ≤ r²(1+1e-12), a relative stretch below 5e-13): r = √(|x_ij|²) rounds, and a
// round-off stretch would cost the full correction path for nothing.
const restSlack = 1 + 1e-12

// capFactor keeps the connection distance strictly inside the kernel support: a pair that
// passes the test is then surely in both particles' neighbour lists, whatever the rounding of
// the search's own distance test, so both sides see it (symmetry). It also makes stepBlock's
// shortcut exact: if particle i skips the distance tests because all its goo neighbours are
// connected partners inside capFactor·h, a pair (i, j) that j would create lies inside
// capFactor·h, is one of i's neighbours and is not connected — so i does not skip either.
const capFactor = 1 - 1e-9

// prepare fills the per-particle connection key used by the candidate tests: −1 for plain
// fluid, 10 for a particle new to the goo (connects within the support), else min(α, 2)
// (α beyond 2 gives the same capped limit). It also records per block the smallest β and the
// largest key, for the shortcuts of stepBlock.
func (s *State) prepare(lo, hi, blk int) {
	bmin, kmax, kmin := math.Inf(1), -1.0, math.Inf(1)
	f := s.pass.f
	for i := lo; i < hi; i++ {
		s.pd[i] = partner{x: f.X[i], c: s.C[i], m: f.M[i], gamma: s.Gamma[i], w: s.W[i], beta: s.Beta[i]}
		switch {
		case s.Beta[i] == 0:
			s.key[i] = -1
			continue
		case s.New[i] != 0:
			s.key[i] = 10
		default:
			s.key[i] = min(s.Alpha[i], 2)
		}
		bmin, kmax, kmin = min(bmin, s.Beta[i]), max(kmax, s.key[i]), min(kmin, s.key[i])
	}
	s.blockBeta[blk], s.blockKey[blk], s.blockKMin[blk] = bmin, kmax, kmin
}

// limit returns the connection distance of a pair with keys a and b.
func limit(a, b, h float64) float64 {
	if a >= 10 || b >= 10 {
		return capFactor * h
	}
	return min(0.5*(a+b), capFactor) * h
}

func (s *State) stepBlock(lo, hi, blk int) {
	f, bs := s.pass.f, s.pass.b
	h, dt := s.pass.p.Kernel.H, s.pass.p.Dt
	invH, invDt := 1/h, 1/dt
	capH := capFactor * h
	capH2 := capH * capH
	safe2 := s.safeBreak * s.safeBreak // no connection shorter than this can break
	limMax2 := s.limMax * s.limMax     // no pair farther apart can be a new connection
	wMin := s.wMin                     // no pair with a smaller W_ij can be a new connection
	old := &s.Conn.Blocks[blk]
	nb := &s.Conn.next[blk]
	nb.Start = append(nb.Start[:0], 0)
	outJ, outR := nb.J[:0], nb.R[:0]
	fblk, bblk := &s.pass.ff.Blocks[blk], &s.pass.fb.Blocks[blk]
	key := s.key
	nbody := 0
	if s.Owner != nil {
		nbody = len(s.Centers)
	}
	part := s.bodyPart[6*nbody*blk : 6*nbody*(blk+1)]
	clear(part)
	var table [hashSize]int32
	var cand [maxCand]int32
	var candD2 [maxCand]float64
	deferred := 0
	for i := lo; i < hi; i++ {
		k := i - lo
		ci := s.C[i]
		s.cNext[i] = ci
		keyI := key[i]
		if keyI < 0 {
			nb.Start = append(nb.Start, int32(len(outJ)))
			continue
		}
		var js []int32
		var rs []float64
		if k+1 < len(old.Start) {
			js, rs = old.J[old.Start[k]:old.Start[k+1]], old.R[old.Start[k]:old.Start[k+1]]
		}
		// Room for every kept partner and every candidate, so the loops below store by index.
		w := len(outJ)
		if need := w + len(js) + maxCand; need > cap(outJ) || need > cap(outR) {
			outJ = append(outJ[:w], make([]int32, need-w)...)[:w]
			outR = append(outR[:w], make([]float64, need-w)...)[:w]
		}
		dstJ, dstR := outJ[:cap(outJ)], outR[:cap(outR)]
		rowStart := w
		pi := &s.pd[i]
		betaI, xi, mi, gammaI, wI := pi.beta, pi.x, pi.m, pi.gamma, pi.w
		var dvx, dvy, dvz, weaken float64
		// Kept partners well inside the support (so surely in the neighbour lists), and those
		// within their pair's connection distance (so surely among the candidates below).
		keptInF, keptInB, keptNear := 0, 0, 0
		allCap := keyI >= 10 || 0.5*(keyI+s.keyMin) >= capFactor
		limB := capH
		if keyI < 10 {
			limB = min(keyI, capFactor) * h
		}
		for q, j := range js {
			var pj *partner
			var xj physics.Vec3
			if j >= 0 {
				pj = &s.pd[j]
				xj = pj.x
			} else {
				xj = bs.X[-j-1]
			}
			rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
			d2 := rx*rx + ry*ry + rz*rz
			if d2 > safe2 {
				beta := betaI
				if j >= 0 {
					beta = 0.5 * (betaI + pj.beta)
				}
				if bl := beta * h; d2 > bl*bl {
					continue // Algorithm 1, lines 6-8: the connection breaks
				}
			}
			if d2 < capH2 {
				if j >= 0 {
					keptInF++
					if allCap {
						keptNear++ // every pair of i connects within capFactor·h
					} else if d2 < limMax2 {
						if lim := limit(keyI, key[j], h); d2 < lim*lim {
							keptNear++
						}
					}
				} else {
					keptInB++
					if d2 < limB*limB {
						keptNear++
					}
				}
			}
			r := rs[q]
			dstJ[w], dstR[w] = j, r
			w++
			if d2 <= r*r*restSlack {
				continue // compressed or at rest: the pressure solve's business (D_ij = 0)
			}
			d := math.Sqrt(d2)
			D := d - r
			var coef, gamma, wk float64
			if j >= 0 {
				mj := pj.m
				coef = 0.5 * (ci + pj.c) * mj / (mi + mj)
				gamma = 0.5 * (gammaI + pj.gamma)
				wk = 0.5 * (wI + pj.w)
			} else {
				coef = 0.5 * (ci + s.Adhesion[-j-1])
				gamma, wk = gammaI, wI
			}
			c := coef * D / d
			dvx -= c * rx
			dvy -= c * ry
			dvz -= c * rz
			if j < 0 && nbody > 0 {
				if o := s.Owner[-j-1]; o >= 0 {
					// Eq. 9: the body feels −m_i Δv_i/Δt of this connection, pulling it
					// towards the goo. Eq. 10's one-way Δv_i (m_k = ∞) is kept for the goo:
					// a body's mass dwarfs a particle's, m_k/(m_i+m_k) ≈ 1.
					g := mi * c * invDt * invDt
					fx, fy, fz := g*rx, g*ry, g*rz
					cc := &s.Centers[o]
					physics.AddLoad(part[6*o:], xj[0]-cc[0], xj[1]-cc[1], xj[2]-cc[2], fx, fy, fz)
				}
			}
			if D*invH > gamma {
				weaken += wk
			}
		}
		kept := w - rowStart
		// New connections (Algorithm 1, lines 2-5) can only be made with a goo neighbour (or
		// adhesive wall sample) in the support that is not connected yet. When the neighbours
		// number no more than the kept partners inside the support, every one is connected and
		// the distance tests are skipped — the common case of goo that is not mixing.
		nbJ, nbW, _ := fblk.RowW(k)
		gooNb := 0
		for _, j := range nbJ {
			if key[j] >= 0 {
				gooNb++
			}
		}
		var bks []int32
		var bws []float32
		wallNb := 0
		if len(s.Adhesion) > 0 {
			bks, bws, _ = bblk.RowW(k)
			for _, bk := range bks {
				if s.Adhesion[bk] != 0 {
					wallNb++
				}
			}
		}
		if gooNb > keptInF || wallNb > keptInB {
			nc := 0
			for q, j := range nbJ {
				// W_ij below W at the largest connection distance (with a margin far above
				// float32 rounding) means the pair is too far apart: skip the exact test.
				if float64(nbW[q]) < wMin {
					continue
				}
				kj := key[j]
				if kj < 0 {
					continue
				}
				xj := s.pd[j].x
				rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
				d2 := rx*rx + ry*ry + rz*rz
				if lim := limit(keyI, kj, h); d2 < lim*lim {
					if nc == maxCand {
						deferred++
						continue
					}
					cand[nc], candD2[nc] = j, d2
					nc++
				}
			}
			for q, bk := range bks {
				if s.Adhesion[bk] == 0 || float64(bws[q]) < wMin {
					continue
				}
				xj := bs.X[bk]
				rx, ry, rz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
				if d2 := rx*rx + ry*ry + rz*rz; d2 < limB*limB {
					if nc == maxCand {
						deferred++
						continue
					}
					cand[nc], candD2[nc] = -bk-1, d2
					nc++
				}
			}
			if nc > keptNear { // some candidate is not a kept partner
				w = connectNew(dstJ, dstR, rowStart, kept, cand[:nc], candD2[:nc], &table)
			}
		}
		outJ, outR = dstJ[:w], dstR[:w]
		nb.Start = append(nb.Start, int32(w))
		v := &f.VStar[i]
		v[0] += dvx * invDt
		v[1] += dvy * invDt
		v[2] += dvz * invDt
		s.cNext[i] = max(ci-dt*weaken, s.L[i])
	}
	nb.J, nb.R = outJ, outR
	s.deferred[blk] = deferred
}

// connectNew appends to the row dstJ[rowStart:rowStart+kept] the candidates that are not
// among its kept partners, with rest length |x_ij|, and returns the row's new end. Membership
// uses an open-addressing table on the stack (at most half full), or a linear scan for very
// long rows. The caller has made room for every candidate.
func connectNew(dstJ []int32, dstR []float64, rowStart, kept int, cand []int32, candD2 []float64, table *[hashSize]int32) int {
	w := rowStart + kept
	if kept > hashSize/2 {
		for q, j := range cand {
			found := false
			for _, c := range dstJ[rowStart : rowStart+kept] {
				if c == j {
					found = true
					break
				}
			}
			if !found {
				dstJ[w], dstR[w] = j, math.Sqrt(candD2[q])
				w++
			}
		}
		return w
	}
	size := int32(16)
	for size < int32(2*kept) {
		size *= 2
	}
	mask := size - 1
	for t := int32(0); t < size; t++ {
		table[t] = math.MinInt32
	}
	for _, j := range dstJ[rowStart : rowStart+kept] {
		t := hash(j) & mask
		for table[t] != math.MinInt32 {
			t = (t + 1) & mask
		}
		table[t] = j
	}
	for q, j := range cand {
		t := hash(j) & mask
		found := false
		for table[t] != math.MinInt32 {
			if table[t] == j {
				found = true
				break
			}
			t = (t + 1) & mask
		}
		if !found {
			dstJ[w], dstR[w] = j, math.Sqrt(candD2[q])
			w++
		}
	}
	return w
}

func hash(j int32) int32 { return int32((uint32(j) * 2654435761) >> 8) }

// Remap moves the state to a new particle order: new particle k takes the state of old
// particle src[k] (src[k] = −1: a new particle, plain fluid and unconnected until its
// parameters are set), fluid partners are renamed by inv (old → new, −1 drops the
// connection) and boundary partners by binv (nil: unchanged). It serves the cell-order sort
// (a permutation), removal of particles that left the domain, and repacking.
func (s *State) Remap(src, inv, binv []int32, pool *par.Pool) {
	n := len(src)
	if s.pass.fn == nil {
		s.init()
	}
	s.pass.src, s.pass.inv, s.pass.binv = src, inv, binv
	s.Conn.next = resizeBlocks(s.Conn.next, par.Blocks(n))
	pool.For(n, s.pass.fnMap)
	s.Conn.Blocks, s.Conn.next = s.Conn.next, s.Conn.Blocks
	for _, fd := range s.Fields() {
		old := *fd.Scalar
		s.cNext = par.Grow(s.cNext, n)
		for k, o := range src {
			if o >= 0 {
				s.cNext[k] = old[o]
			} else {
				s.cNext[k] = 0
			}
		}
		*fd.Scalar, s.cNext = s.cNext, old
	}
	s.cNext = par.Grow(s.cNext, n)
	s.pass.src, s.pass.inv, s.pass.binv = nil, nil, nil
}

func (s *State) remapBlock(lo, hi, blk int) {
	nb := &s.Conn.next[blk]
	nb.Start, nb.J, nb.R = append(nb.Start[:0], 0), nb.J[:0], nb.R[:0]
	for i := lo; i < hi; i++ {
		if o := s.pass.src[i]; o >= 0 {
			js, rs := s.Conn.Of(int(o))
			for q, j := range js {
				switch {
				case j >= 0:
					if j = s.pass.inv[j]; j < 0 {
						continue // the partner is gone
					}
				case s.pass.binv != nil:
					m := s.pass.binv[-j-1]
					if m < 0 {
						continue
					}
					j = -m - 1
				}
				nb.J = append(nb.J, j)
				nb.R = append(nb.R, rs[q])
			}
		}
		nb.Start = append(nb.Start, int32(len(nb.J)))
	}
}

// Any reports whether some particle is goo.
func (s *State) Any() bool {
	for _, b := range s.Beta {
		if b != 0 {
			return true
		}
	}
	return false
}

// Export returns the connections of the first n particles as one count per particle and the
// partners and rest lengths concatenated in particle order (for snapshots).
func (c *Connections) Export(n int) (counts, js []int32, rs []float64) {
	counts = make([]int32, n)
	for i := 0; i < n; i++ {
		j, r := c.Of(i)
		counts[i] = int32(len(j))
		js = append(js, j...)
		rs = append(rs, r...)
	}
	return counts, js, rs
}

// Import replaces the connections with those of Export's layout for n particles, checking
// that every partner is a fluid particle below nf or a boundary particle below nb and every
// rest length is finite and non-negative.
func (c *Connections) Import(n int, counts, js []int32, rs []float64, nf, nb int) error {
	if len(counts) != n || len(js) != len(rs) {
		return fmt.Errorf("connections: %d counts for %d particles, %d partners for %d rest lengths", len(counts), n, len(js), len(rs))
	}
	total := 0
	for _, k := range counts {
		if k < 0 {
			return fmt.Errorf("connections: negative count %d", k)
		}
		total += int(k)
	}
	if total != len(js) {
		return fmt.Errorf("connections: counts add up to %d, %d partners stored", total, len(js))
	}
	for q, j := range js {
		if (j >= 0 && int(j) >= nf) || (j < 0 && int(-j-1) >= nb) || !(rs[q] >= 0) || math.IsInf(rs[q], 0) {
			return fmt.Errorf("connections: entry %d (partner %d, rest length %g) is out of range", q, j, rs[q])
		}
	}
	c.Blocks = resizeBlocks(c.Blocks, par.Blocks(n))
	o := 0
	for b := range c.Blocks {
		blk := &c.Blocks[b]
		blk.Start, blk.J, blk.R = append(blk.Start[:0], 0), blk.J[:0], blk.R[:0]
		for i := b * par.BlockSize; i < min(n, (b+1)*par.BlockSize); i++ {
			k := int(counts[i])
			blk.J = append(blk.J, js[o:o+k]...)
			blk.R = append(blk.R, rs[o:o+k]...)
			blk.Start = append(blk.Start, int32(len(blk.J)))
			o += k
		}
	}
	return nil
}

// Lumps returns the sizes of the goo's separate pieces, largest first: the connected
// components of the fluid connection graph with at least minSize particles (plain fluid
// particles are not counted). Merging joins lumps, splitting (connections broken beyond β·h)
// makes new ones.
func (s *State) Lumps(minSize int) []int {
	n := s.Len()
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := 0; i < n; i++ {
		js, _ := s.Conn.Of(i)
		for _, j := range js {
			if j >= 0 {
				a, b := find(int32(i)), find(j)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			}
		}
	}
	size := make([]int, n)
	for i := 0; i < n; i++ {
		if s.Beta[i] != 0 {
			size[find(int32(i))]++
		}
	}
	var out []int
	for _, c := range size {
		if c >= minSize && c > 0 {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b int) int { return b - a })
	return out
}
