package volumemap

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Options configure Build. Make them with DefaultOptions and change what differs.
type Options struct {
	// H is the kernel's support radius (m), > 0: the radius of the ball V integrates over and
	// the width of γ's fall from 1 to 0.
	H float64
	// R is the fluid's particle radius (m), in (0, H]. The map's fields do not depend on it;
	// Boundary uses it to place the virtual boundary particle.
	R float64
	// Invert puts the solid outside the mesh: a tank whose inside holds the fluid (the
	// reference's mapInvert). Default false: the solid is the mesh's inside.
	Invert bool
	// Cell is the grid's cell size relative to H, in [1/8, 1]; default DefaultCell.
	Cell float64
	// VolumeFactor multiplies the volume integral, in (0, 1]; default 0.8, the factor the
	// reference implementation (SPlisHSPlasH) applies to its volume maps.
	VolumeFactor float64
	// Kernel is the kernel whose shape γ takes (γ(φ) = W(φ)/W(0)); default physics.CubicSpline.
	Kernel physics.KernelKind
}

// DefaultCell is the default cell size relative to H: H/2. The DamBreakModel tank then
// builds in about a quarter of a second on one core; finer cells buy accuracy at a steep cost
// in build time (the package doc has the measured trade-off, BenchmarkCellSize). For
// comparison, the reference's map of that tank uses 40 × 30 × 15 cells of cubic polynomials
// over the tank's box grown by 8H: cells of 1.4–2.1H.
const DefaultCell = 1.0 / 2

// DefaultVolumeFactor is the reference implementation's factor on the volume integral.
const DefaultVolumeFactor = 0.8

// MaxNodes bounds the number of grid nodes Build allocates (φ and V, 8 bytes each, plus a
// padded copy of φ while building).
const MaxNodes = 1 << 26

// DefaultOptions returns the options for support radius h and particle radius r with every
// other field at its default.
func DefaultOptions(h, r float64) Options {
	return Options{H: h, R: r, Cell: DefaultCell, VolumeFactor: DefaultVolumeFactor, Kernel: physics.CubicSpline}
}

func (o Options) check() error {
	if !(o.H > 0) || math.IsInf(o.H, 0) {
		return fmt.Errorf("volumemap: support radius H = %g m, want a finite value > 0", o.H)
	}
	if !(o.R > 0 && o.R <= o.H) {
		return fmt.Errorf("volumemap: particle radius R = %g m, want (0, H = %g m]", o.R, o.H)
	}
	if !(o.Cell >= 1.0/8 && o.Cell <= 1) {
		return fmt.Errorf("volumemap: cell size Cell = %g·H, want [1/8, 1] (default %.4g)", o.Cell, DefaultCell)
	}
	if !(o.VolumeFactor > 0 && o.VolumeFactor <= 1) {
		return fmt.Errorf("volumemap: volume factor %g, want (0, 1] (default %g)", o.VolumeFactor, DefaultVolumeFactor)
	}
	if o.Kernel != physics.CubicSpline && o.Kernel != physics.WendlandC2 {
		return fmt.Errorf("volumemap: kernel %v, want cubic or wendland", o.Kernel)
	}
	return nil
}

// Map holds φ and V on a regular grid; see the package doc. It is read-only after Build, so
// At may be called from any number of goroutines.
type Map struct {
	opt   Options
	dx    float64      // cell size (m)
	inv   float64      // 1/dx
	lo    physics.Vec3 // node (0, 0, 0)
	n     [3]int       // nodes per axis
	nodes []float64    // node i + n0(j + n1 k) holds φ (m) at 2·index and V (m³) at 2·index+1
	full  float64      // VolumeFactor · 4πH³/3, V deep inside the solid
	boxLo physics.Vec3 // region where At answers: the mesh's box grown by 2H
	boxHi physics.Vec3
	far   farCells // the cells without a virtual particle (Far)
}

// Build computes the volume map of the closed triangle mesh (verts, tris) with triangles
// counter-clockwise seen from outside. pool runs the node loops (nil: one worker); the map
// is bit-identical for any number of workers.
func Build(verts []physics.Vec3, tris [][3]int32, o Options, pool *par.Pool) (*Map, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	ms, err := newMesh(verts, tris)
	if err != nil {
		return nil, err
	}
	if pool == nil {
		pool = par.NewPool(1)
		defer pool.Close()
	}
	m := &Map{opt: o, dx: o.Cell * o.H}
	m.inv = 1 / m.dx
	m.full = o.VolumeFactor * 4 * math.Pi * o.H * o.H * o.H / 3
	margin := 2 * o.H
	w, K := ballWeights(o.H / m.dx)
	total, padded := 1, 1
	var np [3]int
	for d := 0; d < 3; d++ {
		m.boxLo[d], m.boxHi[d] = ms.lo[d]-margin, ms.hi[d]+margin
		// One node beyond the region on each side for the Catmull-Rom stencil.
		m.lo[d] = m.boxLo[d] - m.dx
		cells := math.Ceil((m.boxHi[d] - m.boxLo[d]) / m.dx)
		if cells > MaxNodes { // before the conversion to int, which could overflow
			padded = MaxNodes + 1
		} else {
			m.n[d] = int(cells) + 3
			np[d] = m.n[d] + 2*K
			total *= m.n[d]
			padded *= np[d]
		}
		if padded > MaxNodes {
			return nil, fmt.Errorf("volumemap: mesh box %.4g m wide on axis %d needs more than %d grid nodes at cell size %g m; raise Cell or H, or check the mesh's units", ms.hi[d]-ms.lo[d], d, MaxNodes, m.dx)
		}
	}
	sign := 1.0
	if o.Invert {
		sign = -1
	}
	// φ on the grid padded by K nodes per side: V's stencil reaches K nodes.
	pphi := make([]float64, padded)
	plo := m.lo.Sub(physics.Vec3{float64(K) * m.dx, float64(K) * m.dx, float64(K) * m.dx})
	pool.For(padded, func(lo, hi, _ int) {
		guess := int32(-1)
		for idx := lo; idx < hi; idx++ {
			i, j, k := idx%np[0], (idx/np[0])%np[1], idx/(np[0]*np[1])
			p := physics.Vec3{plo[0] + float64(i)*m.dx, plo[1] + float64(j)*m.dx, plo[2] + float64(k)*m.dx}
			d, t := ms.signedDistance(p, guess)
			pphi[idx], guess = sign*d, t
		}
	})
	// γ(φ) = W(φ)/W(0) on the fluid side, 1 in the solid.
	kr := physics.NewKernel(o.Kernel, o.H)
	w0 := kr.W(0)
	gam := make([]float64, padded)
	pool.For(padded, func(lo, hi, _ int) {
		for idx := lo; idx < hi; idx++ {
			if f := pphi[idx]; f <= 0 {
				gam[idx] = 1
			} else {
				gam[idx] = kr.W(f) / w0
			}
		}
	})
	// The stencil's non-zero weights as padded-grid index offsets.
	nk := 2*K + 1
	var offs []int
	var ws []float64
	for k3 := 0; k3 < nk; k3++ {
		for k2 := 0; k2 < nk; k2++ {
			for k1 := 0; k1 < nk; k1++ {
				if v := w[k1+nk*(k2+nk*k3)]; v != 0 {
					offs = append(offs, (k1-K)+np[0]*((k2-K)+np[1]*(k3-K)))
					ws = append(ws, v)
				}
			}
		}
	}
	// φ is 1-Lipschitz, so at φ ≥ 2H the whole ball has φ ≥ H (γ = 0, V = 0) and at φ ≤ −H it
	// has φ ≤ 0 (γ = 1, V = the full volume): those nodes take the exact values.
	cellVol := m.dx * m.dx * m.dx * o.VolumeFactor
	m.nodes = make([]float64, 2*total)
	pool.For(total, func(lo, hi, _ int) {
		for idx := lo; idx < hi; idx++ {
			i, j, k := idx%m.n[0], (idx/m.n[0])%m.n[1], idx/(m.n[0]*m.n[1])
			c := (i + K) + np[0]*((j+K)+np[1]*(k+K))
			f := pphi[c]
			v := 0.0
			switch {
			case f >= 2*o.H:
			case f <= -o.H:
				v = m.full
			default:
				s := 0.0
				for q, off := range offs {
					s += ws[q] * gam[c+off]
				}
				v = cellVol * s
			}
			m.nodes[2*idx], m.nodes[2*idx+1] = f, v
		}
	})
	return m, nil
}

// Options returns the options the map was built with.
func (m *Map) Options() Options { return m.opt }

// Grid returns the node (0, 0, 0), the cell size (m) and the number of nodes per axis.
func (m *Map) Grid() (lo physics.Vec3, dx float64, n [3]int) { return m.lo, m.dx, m.n }

// Bounds returns the box where At answers: the mesh's bounding box grown by 2H.
func (m *Map) Bounds() (lo, hi physics.Vec3) { return m.boxLo, m.boxHi }

// FullVolume is V deep inside the solid: VolumeFactor · 4πH³/3 (m³).
func (m *Map) FullVolume() float64 { return m.full }

// At returns the signed distance φ (m, positive on the fluid side), the boundary volume V
// (m³, clamped to [0, FullVolume]) and the unit normal n = ∇φ/|∇φ| (pointing to the fluid side;
// zero where |∇φ| < 1e-9) at x, by tricubic Catmull-Rom interpolation of the node values. ok
// is false outside Bounds. It does not allocate.
func (m *Map) At(x physics.Vec3) (phi, vol float64, n physics.Vec3, ok bool) {
	if !(x[0] >= m.boxLo[0] && x[0] <= m.boxHi[0] && x[1] >= m.boxLo[1] && x[1] <= m.boxHi[1] && x[2] >= m.boxLo[2] && x[2] <= m.boxHi[2]) {
		return 0, 0, n, false
	}
	var base [3]int
	var w, dw [3][4]float64
	for d := 0; d < 3; d++ {
		s := (x[d] - m.lo[d]) * m.inv
		i := int(s)
		i = min(max(i, 1), m.n[d]-3) // s ∈ [1, n−2] inside Bounds; clamp round-off
		w[d], dw[d] = crWeights(s - float64(i))
		base[d] = i - 1
	}
	var sums [4][4]float64 // per z layer c: Σ_b w_b px, Σ_b w_b vx, Σ_b w_b dpx, Σ_b w'_b px
	m.layerSums(base, &w, &dw, &sums)
	var gx, gy, gz float64
	for c := 0; c < 4; c++ {
		pz, vz, gxz, gyz := sums[c][0], sums[c][1], sums[c][2], sums[c][3]
		phi += w[2][c] * pz
		gz += dw[2][c] * pz
		gx += w[2][c] * gxz
		gy += w[2][c] * gyz
		vol += w[2][c] * vz
	}
	vol = min(max(vol, 0), m.full)
	g := math.Sqrt(gx*gx + gy*gy + gz*gz) // in node units per cell; only the direction is used
	if g*m.inv > 1e-9 {
		n = physics.Vec3{gx / g, gy / g, gz / g}
	}
	return phi, vol, n, true
}

// layerSums is At's stencil over x and y for each of its four z layers c: with the x
// weights w[0] (and their derivatives dw[0]) per row of four nodes,
//
//	px = Σ_a w_a φ_a,  dpx = Σ_a w'_a φ_a,  vx = Σ_a w_a V_a   (((a0 + a1) + a2) + a3),
//
// and over the layer's four rows b, in order from +0, sums[c] = (Σ_b w1_b px_b, Σ_b w1_b vx_b,
// Σ_b w1_b dpx_b, Σ_b w1'_b px_b). The assembly (four rows a step, one a lane) does every
// row's operations in the Go loop's order, so the two agree bit for bit.
func (m *Map) layerSums(base [3]int, w, dw *[3][4]float64, sums *[4][4]float64) {
	n0, n01 := m.n[0], m.n[0]*m.n[1]
	row0 := 2 * (base[0] + n0*base[1] + n01*base[2])
	if last := row0 + 2*(n0*3+n01*3) + 8; last > len(m.nodes) {
		panic("volumemap: stencil outside the grid")
	}
	if useAVX2 {
		var tab [10][4]float64 // the x weights and derivatives broadcast, then w[1] and dw[1]
		for a := 0; a < 4; a++ {
			tab[a] = [4]float64{w[0][a], w[0][a], w[0][a], w[0][a]}
			tab[4+a] = [4]float64{dw[0][a], dw[0][a], dw[0][a], dw[0][a]}
		}
		tab[8], tab[9] = w[1], dw[1]
		layerSumsAVX(&m.nodes[row0], 16*n0, 16*n01, &tab, sums)
		return
	}
	wx0, wx1, wx2, wx3 := w[0][0], w[0][1], w[0][2], w[0][3]
	dx0, dx1, dx2, dx3 := dw[0][0], dw[0][1], dw[0][2], dw[0][3]
	for c := 0; c < 4; c++ {
		var pz, vz, gxz, gyz float64
		for b := 0; b < 4; b++ {
			row := row0 + 2*(n0*b+n01*c)
			f := m.nodes[row : row+8 : row+8]
			px := wx0*f[0] + wx1*f[2] + wx2*f[4] + wx3*f[6]
			dpx := dx0*f[0] + dx1*f[2] + dx2*f[4] + dx3*f[6]
			vx := wx0*f[1] + wx1*f[3] + wx2*f[5] + wx3*f[7]
			pz += w[1][b] * px
			gyz += dw[1][b] * px
			gxz += w[1][b] * dpx
			vz += w[1][b] * vx
		}
		sums[c] = [4]float64{pz, vz, gxz, gyz}
	}
}

// Boundary returns the virtual boundary particle the map stands for at a fluid particle x,
// placed as the reference implementation does: for 0 < φ < H and V > 0,
// x_b = x − max(φ + R/2, 2R)·n with volume V(x) — half a particle radius below the surface,
// and at least a particle diameter from x. ok is false where the wall has no particle for x
// (outside Bounds, φ ≤ 0, φ ≥ H, V = 0 or no normal).
func (m *Map) Boundary(x physics.Vec3) (xb physics.Vec3, vol float64, ok bool) {
	phi, vol, n, in := m.At(x)
	if !in || !(phi > 0 && phi < m.opt.H) || !(vol > 0) || n == (physics.Vec3{}) {
		return xb, 0, false
	}
	return x.Sub(n.Mul(Offset(phi, m.opt.R))), vol, true
}

// Offset is how far from a fluid particle of radius r at distance phi > 0 from the wall the
// wall's virtual boundary particle lies, along the normal: max(φ + r/2, 2r), half a particle
// radius below the surface and at least a particle diameter from the particle, where the
// kernel's gradient would push it hard (the reference implementation's placement).
func Offset(phi, r float64) float64 { return max(phi+r/2, 2*r) }
