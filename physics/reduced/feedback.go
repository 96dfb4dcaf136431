package reduced

import (
	"math"
	"time"
)

func nanotime() int64 { return time.Now().UnixNano() }

// qnode is a quadtree node over a block of grid cells [i0,i1)×[j0,j1) (§5.3.4). Nodes are
// stored in pre-order, so a parent always precedes its children.
type qnode struct {
	i0, i1, j0, j1 int
	cx, cy, half   float64 // centre and half-diagonal (m)
	level, parent  int
	child          [4]int32 // −1 where absent
	// leaves: the u and v samples they own, as ranges of feedback.us / feedback.vs
	us0, us1, vs0, vs1 int
}

// feedback holds the quadtree, its error table (Eq. 5.19) and scratch.
type feedback struct {
	ready      bool
	nodes      []qnode
	us, vs     []int32     // owned sample indices, leaf by leaf
	table      [][]float64 // [level][distance bin]: error bound per unit circulation
	binW, aref float64
	accU, accV []float64
	stack      []int32
	dr         []float64
	tr1        trig
	naiveFn    func(lo, hi, block int)
}

// buildQuadtree splits the grid's cells in halves until a node has at most LeafCells cells
// per side, assigns each MAC sample to the cell that owns it (u sample (i, j) to cell
// (min(i, nx−1), j), v sample (i, j) to cell (i, min(j, ny−1))), and precomputes the error
// table of Eq. 5.19.
func (d *Domain) buildQuadtree() {
	f := &d.fb
	g := d.g
	f.nodes = f.nodes[:0]
	f.us, f.vs = f.us[:0], f.vs[:0]
	leaf := d.cfg.LeafCells
	var build func(i0, i1, j0, j1, level, parent int) int
	build = func(i0, i1, j0, j1, level, parent int) int {
		id := len(f.nodes)
		w, h := float64(i1-i0)*g.hx, float64(j1-j0)*g.hy
		f.nodes = append(f.nodes, qnode{i0: i0, i1: i1, j0: j0, j1: j1,
			cx: (float64(i0) + float64(i1-i0)/2) * g.hx, cy: (float64(j0) + float64(j1-j0)/2) * g.hy,
			half: math.Hypot(w, h) / 2, level: level, parent: parent, child: [4]int32{-1, -1, -1, -1}})
		if i1-i0 <= leaf && j1-j0 <= leaf {
			n := &f.nodes[id]
			n.us0, n.vs0 = len(f.us), len(f.vs)
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					f.us = append(f.us, int32(i*g.ny+j))
					if i == g.nx-1 {
						f.us = append(f.us, int32((i+1)*g.ny+j))
					}
					f.vs = append(f.vs, int32(i*(g.ny+1)+j))
					if j == g.ny-1 {
						f.vs = append(f.vs, int32(i*(g.ny+1)+j+1))
					}
				}
			}
			n.us1, n.vs1 = len(f.us), len(f.vs)
			return id
		}
		im, jm := (i0+i1)/2, (j0+j1)/2
		k := 0
		for _, xs := range [][2]int{{i0, im}, {im, i1}} {
			for _, ys := range [][2]int{{j0, jm}, {jm, j1}} {
				if xs[0] == xs[1] || ys[0] == ys[1] {
					continue
				}
				c := build(xs[0], xs[1], ys[0], ys[1], level+1, id)
				f.nodes[id].child[k] = int32(c)
				k++
			}
		}
		return id
	}
	build(0, g.nx, 0, g.ny, 0, -1)
	f.accU, f.accV = make([]float64, len(f.nodes)), make([]float64, len(f.nodes))
	f.dr = make([]float64, d.b.n)
	d.errorTable()
	f.ready = true
}

// errorTable precomputes Eq. 5.19: for each quadtree level and distance bin, the largest
// difference max_j |u(c) − u(s_j)| between a panel's velocity at a node's centre c and at
// sample points s_j inside the node (a 5×5 lattice over the level's largest node, corners
// included), over 16 directions from the panel and 8 panel orientations, for a panel of the
// scene's largest length carrying unit circulation (γA = 1). At run time the bound for a panel
// is |γ|A times the entry. Distances in a bin are sampled at its two ends and middle; bins the
// node could contain the panel in are +Inf.
func (d *Domain) errorTable() {
	f := &d.fb
	f.aref = 0
	for _, b := range d.bodies {
		for _, l := range b.ln {
			f.aref = math.Max(f.aref, l)
		}
	}
	if f.aref == 0 {
		f.aref = math.Min(d.g.hx, d.g.hy)
	}
	f.binW = math.Min(d.g.hx, d.g.hy)
	diag := math.Hypot(d.cfg.Width, d.cfg.Height)
	nbins := int(diag/f.binW) + 2
	levels := 0
	for _, n := range f.nodes {
		levels = max(levels, n.level+1)
	}
	ws, hs := make([]float64, levels), make([]float64, levels)
	for _, n := range f.nodes {
		ws[n.level] = math.Max(ws[n.level], float64(n.i1-n.i0)*d.g.hx)
		hs[n.level] = math.Max(hs[n.level], float64(n.j1-n.j0)*d.g.hy)
	}
	eps := d.cfg.PanelEpsilon
	a := f.aref
	gam := 1 / a
	f.table = make([][]float64, levels)
	for l := 0; l < levels; l++ {
		w, h := ws[l], hs[l]
		half := math.Hypot(w, h) / 2
		f.table[l] = make([]float64, nbins)
		for bin := range f.table[l] {
			d0 := float64(bin) * f.binW
			if d0 <= half+a {
				f.table[l][bin] = math.Inf(1)
				continue
			}
			worst := 0.0
			for _, dist := range []float64{d0, d0 + f.binW/2, d0 + f.binW} {
				for dir := 0; dir < 16; dir++ {
					sd, cd := math.Sincos(2 * math.Pi * float64(dir) / 16)
					// panel midpoint at distance dist from the node centre (0, 0)
					px, py := dist*cd, dist*sd
					for or := 0; or < 8; or++ {
						so, co := math.Sincos(math.Pi * float64(or) / 8)
						ox, oy := px-co*a/2, py-so*a/2
						uc, vc := panelVelocity(0, 0, ox, oy, co, so, a, gam, eps)
						for si := -2; si <= 2; si++ {
							for sj := -2; sj <= 2; sj++ {
								x, y := float64(si)*w/4, float64(sj)*h/4
								u, v := panelVelocity(x, y, ox, oy, co, so, a, gam, eps)
								worst = math.Max(worst, math.Hypot(u-uc, v-vc))
							}
						}
					}
				}
			}
			f.table[l][bin] = worst
		}
	}
}

// Feedback adds the projection of the panels' velocity u_p (Eq. 5.18, with the strengths of
// the last SolvePanels) onto the basis to the reduced coefficients (§5.3.4): per
// Config.Feedback either exactly (FeedbackGalerkin) or by summing u_p on the background grid,
// naively or through the quadtree, and projecting with Eq. 5.3.
func (d *Domain) Feedback() {
	if d.cfg.Feedback == FeedbackOff || len(d.cp.sg) == 0 {
		return
	}
	d.feedbackDelta(d.cfg.Feedback)
	for k, x := range d.fb.dr {
		d.r[k] += x
	}
}

// feedbackDelta computes the change of the reduced coefficients into d.fb.dr.
func (d *Domain) feedbackDelta(mode FeedbackMode) {
	if d.fb.dr == nil {
		d.fb.dr = make([]float64, d.b.n)
	}
	if mode == FeedbackGalerkin {
		d.galerkinFeedback(d.pa)
	} else {
		d.feedbackGrid(mode)
		d.b.project(d.pa, d.ug, d.vg)
	}
	d.b.reduce(d.fb.dr, d.pa)
}

// galerkinFeedback writes p_a = Σ_i γ_i ∫_panel i ψ_a ds for every active ambient mode (see
// FeedbackGalerkin). Along a panel from (x0, y0) in direction (tx, ty),
// sin(k1x) sin(k2y) = ½[cos θ₋ − cos θ₊] with θ± = k1x ± k2y linear in the arc length s, and
// ∫₀ˡ cos(θ0 + βs) ds = [sin(θ0 + βl) − sin θ0]/β. The sines and cosines at the panel's ends
// come from the Chebyshev tables, so no trigonometric call is made per mode.
func (d *Domain) galerkinFeedback(p []float64) {
	b := d.b
	am := b.am
	cp := &d.cp
	na := len(b.active)
	for i := range p[:na] {
		p[i] = 0
	}
	t0, t1 := d.tr, d.fb.tr1
	if t1.sx == nil {
		d.fb.tr1 = b.newTrig()
		t1 = d.fb.tr1
	}
	for i := 0; i < cp.np; i++ {
		g := cp.gamma[i]
		if g == 0 {
			continue
		}
		l := cp.ln[i]
		x0, y0 := cp.ox[i], cp.oy[i]
		x1, y1 := x0+l*cp.tx[i], y0+l*cp.ty[i]
		fillTrig(t0.sx, t0.cx, math.Pi*x0/am.lx)
		fillTrig(t0.sy, t0.cy, math.Pi*y0/am.ly)
		fillTrig(t1.sx, t1.cx, math.Pi*x1/am.lx)
		fillTrig(t1.sy, t1.cy, math.Pi*y1/am.ly)
		for q := 0; q < na; q++ {
			a1, a2 := b.w1[q], b.w2[q]
			k1, k2 := float64(a1)*math.Pi/am.lx, float64(a2)*math.Pi/am.ly
			// sin θ± at both ends
			sp0 := t0.sx[a1]*t0.cy[a2] + t0.cx[a1]*t0.sy[a2]
			sm0 := t0.sx[a1]*t0.cy[a2] - t0.cx[a1]*t0.sy[a2]
			sp1 := t1.sx[a1]*t1.cy[a2] + t1.cx[a1]*t1.sy[a2]
			sm1 := t1.sx[a1]*t1.cy[a2] - t1.cx[a1]*t1.sy[a2]
			bp := k1*cp.tx[i] + k2*cp.ty[i]
			bm := k1*cp.tx[i] - k2*cp.ty[i]
			var ip, im float64
			if math.Abs(bp*l) > 1e-4 {
				ip = (sp1 - sp0) / bp
			} else {
				// cos at the midpoint: cos θ+(l/2) from the ends' sines is not at hand; use
				// cos θ+ at the ends' mean, exact to O((βl)²) with the series correction
				cp0 := t0.cx[a1]*t0.cy[a2] - t0.sx[a1]*t0.sy[a2]
				cp1 := t1.cx[a1]*t1.cy[a2] - t1.sx[a1]*t1.sy[a2]
				ip = l * (cp0 + cp1) / 2 * (1 - (bp*l)*(bp*l)/24) / math.Cos(bp*l/2)
			}
			if math.Abs(bm*l) > 1e-4 {
				im = (sm1 - sm0) / bm
			} else {
				cm0 := t0.cx[a1]*t0.cy[a2] + t0.sx[a1]*t0.sy[a2]
				cm1 := t1.cx[a1]*t1.cy[a2] + t1.sx[a1]*t1.sy[a2]
				im = l * (cm0 + cm1) / 2 * (1 - (bm*l)*(bm*l)/24) / math.Cos(bm*l/2)
			}
			p[q] += g * b.nrm[q] * 0.5 * (im - ip)
		}
	}
}

// feedbackGrid fills d.ug, d.vg with u_p at every grid sample.
func (d *Domain) feedbackGrid(mode FeedbackMode) {
	if mode == FeedbackNaive {
		if d.fb.naiveFn == nil {
			d.fb.naiveFn = d.naiveBlock
		}
		nu, nv := d.g.nu(), d.g.nv()
		d.pool.For(nu+nv, d.fb.naiveFn)
		return
	}
	if !d.fb.ready {
		d.buildQuadtree()
	}
	d.quadtreeGrid()
}

// naiveBlock evaluates every source at samples lo..hi (u samples first, then v samples).
func (d *Domain) naiveBlock(lo, hi, _ int) {
	g := d.g
	cp := &d.cp
	eps := d.cfg.PanelEpsilon
	nu := g.nu()
	for it := lo; it < hi; it++ {
		var x, y float64
		if it < nu {
			x, y = g.uPos(it/g.ny, it%g.ny)
		} else {
			k := it - nu
			x, y = g.vPos(k/(g.ny+1), k%(g.ny+1))
		}
		var u, v float64
		for s, gm := range cp.sg {
			pu, pv := panelVelocity(x, y, cp.sox[s], cp.soy[s], cp.stx[s], cp.sty[s], cp.sln[s], gm, eps)
			u += pu
			v += pv
		}
		if it < nu {
			d.ug[it] = u
		} else {
			d.vg[it-nu] = v
		}
	}
}

// quadtreeGrid is the accelerated feedback of §5.3.4: per source panel, descend from the root;
// at a node that cannot contain the panel and whose bound |γ|A·table[level][bin(distance)] is
// at most FeedbackError, evaluate the panel once at the node centre and credit the node;
// otherwise descend, evaluating at the samples of the leaves reached (Eq. 5.11, or its
// far-field expansion beyond farRatio panel lengths). The node credits are then pushed down to
// their samples.
func (d *Domain) quadtreeGrid() {
	f := &d.fb
	g := d.g
	cp := &d.cp
	eps := d.cfg.PanelEpsilon
	tol := d.cfg.FeedbackError
	for i := range f.accU {
		f.accU[i], f.accV[i] = 0, 0
	}
	for i := range d.ug {
		d.ug[i] = 0
	}
	for i := range d.vg {
		d.vg[i] = 0
	}
	nbins := len(f.table[0])
	for s, gm := range cp.sg {
		ox, oy, tx, ty, l := cp.sox[s], cp.soy[s], cp.stx[s], cp.sty[s], cp.sln[s]
		mx, my := ox+tx*l/2, oy+ty*l/2
		circ := math.Abs(gm) * l
		st := append(f.stack[:0], 0)
		for len(st) > 0 {
			id := st[len(st)-1]
			st = st[:len(st)-1]
			n := &f.nodes[id]
			dist := math.Hypot(n.cx-mx, n.cy-my)
			if dist > n.half+l {
				bin := min(int(dist/f.binW), nbins-1)
				if circ*f.table[n.level][bin] <= tol {
					u, v := panelVelocity(n.cx, n.cy, ox, oy, tx, ty, l, gm, eps)
					f.accU[id] += u
					f.accV[id] += v
					continue
				}
			}
			if n.child[0] < 0 {
				// per sample: Eq. 5.11 near the panel, its far-field expansion (error < 1e-7
				// relative) beyond farRatio panel lengths
				far2 := farRatio * farRatio * l * l
				for _, k := range f.us[n.us0:n.us1] {
					x, y := g.uPos(int(k)/g.ny, int(k)%g.ny)
					var u float64
					if (x-mx)*(x-mx)+(y-my)*(y-my) >= far2 {
						u, _ = panelFarVelocity(x, y, mx, my, tx, ty, l, gm)
					} else {
						u, _ = panelVelocity(x, y, ox, oy, tx, ty, l, gm, eps)
					}
					d.ug[k] += u
				}
				for _, k := range f.vs[n.vs0:n.vs1] {
					x, y := g.vPos(int(k)/(g.ny+1), int(k)%(g.ny+1))
					var v float64
					if (x-mx)*(x-mx)+(y-my)*(y-my) >= far2 {
						_, v = panelFarVelocity(x, y, mx, my, tx, ty, l, gm)
					} else {
						_, v = panelVelocity(x, y, ox, oy, tx, ty, l, gm, eps)
					}
					d.vg[k] += v
				}
				continue
			}
			for _, c := range n.child {
				if c >= 0 {
					st = append(st, c)
				}
			}
		}
		f.stack = st
	}
	// push node credits down (pre-order: parents first) and onto the leaves' samples
	for id := range f.nodes {
		n := &f.nodes[id]
		if n.parent >= 0 {
			f.accU[id] += f.accU[n.parent]
			f.accV[id] += f.accV[n.parent]
		}
		if n.child[0] < 0 {
			au, av := f.accU[id], f.accV[id]
			for _, k := range f.us[n.us0:n.us1] {
				d.ug[k] += au
			}
			for _, k := range f.vs[n.vs0:n.vs1] {
				d.vg[k] += av
			}
		}
	}
}
