package game

import (
	"math"
	"runtime"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/par"
)

// Anisotropic particles after Yu and Turk 2013 ("Reconstructing surfaces of particle-based
// fluids using anisotropic kernels", ACM TOG 32(1), §3.3–3.4): each liquid particle is drawn as
// an ellipsoid shaped by the spread of its neighbours, so a particle at a flat surface becomes a
// disc in the surface's plane and the surface is drawn flat instead of as a layer of sphere
// caps, while a particle inside the fluid, with neighbours all round, stays a sphere.
//
// For particle i with neighbours j within the support R (i included), with the weight
// w_ij = 1 − (|x_i − x_j|/R)³ (Eq. 11):
//
//	x̄_i = Σ_j w_ij x_j / Σ_j w_ij                              (the weighted mean of Eq. 6)
//	C_i = Σ_j w_ij (x_j − x̄_i)(x_j − x̄_i)ᵀ / Σ_j w_ij          (Eq. 10)
//
// C_i = Q diag(σ1, σ2, σ3) Qᵀ with σ1 ≥ σ2 ≥ σ3 (the SVD of the symmetric C_i, Eq. 12); when i
// has at least anisoMinNeighbors neighbours the eigenvalues are clamped to σ̃_k = max(σ_k,
// σ1/k_r) (Eq. 15: no axis shorter than 1/k_r of the longest), otherwise the particle is
// isotropic (σ̃_k = 1: a splash or a thin thread, whose covariance says nothing of a surface).
// The kernel G_i = Q diag(σ̃)⁻¹ Qᵀ/(k_s h) (Eq. 16) has the ellipsoids ‖G_i (x − x_i)‖ = const as
// its level sets, with semi-axes along Q's columns in proportion to σ̃_k. The paper's scale k_s
// is here fixed per particle so that det G_i is the isotropic kernel's: the ellipsoid keeps the
// volume of the particle's sphere of radius r, its semi-axes r·σ̃_k/(σ̃1 σ̃2 σ̃3)^(1/3). The
// optional Laplacian smoothing of the centres (Eq. 6 with λ) is not applied: the ellipsoids
// are drawn at the particles' own positions.
const (
	// anisoSupport is the neighbourhood radius R in particle radii: Yu and Turk take twice the
	// SPH support h (§3.4), and the solver's h is 4r (components.Solver.SupportRadius).
	anisoSupport = 8.0
	// anisoMaxRatio is k_r (Eq. 15), the largest ratio of an ellipsoid's longest to its
	// shortest axis: the paper's 4.
	anisoMaxRatio = 4.0
	// anisoMinNeighbors is N_ε (Eq. 15): fewer neighbours than this within R and the particle
	// stays a sphere. The paper's 25; a particle inside the fluid has about 260 at R = 8r (the
	// lattice points within four spacings), one at a flat surface about half of that.
	anisoMinNeighbors = 25
)

// anisotropy computes the ellipsoids of a set of particles (Yu and Turk 2013, above) on a
// uniform grid of cells R/2 wide, in parallel over fixed blocks of particles: every particle
// writes only its own axes, so the result is the same for any number of workers. Its slices
// are kept between calls, so after the first call with the largest n it allocates nothing.
type anisotropy struct {
	pool *par.Pool
	// The grid: the particles' indices sorted by cell (counting sort), cell c's in
	// order[start[c]:start[c+1]].
	start, order, cell []int32
	lo                 [3]float64
	dim                [3]int
	inv                float64 // 1 / cell width
	// Input of the current call.
	pos    []float32
	stride int
	r, R   float64
	// Axes holds the result: 9 floats per particle, the three semi-axes (x, y, z each) of its
	// ellipsoid in metres, the longest first.
	Axes  []float32
	block func(lo, hi, block int)
}

// newAnisotropy makes an anisotropy computer running on workers goroutines (≤ 0: GOMAXPROCS).
func newAnisotropy(workers int) *anisotropy {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	a := &anisotropy{pool: par.NewPool(workers)}
	a.block = a.compute
	return a
}

// Close stops the worker goroutines.
func (a *anisotropy) Close() { a.pool.Close() }

// Compute fills a.Axes for the n particles whose positions are pos[i·stride : i·stride+3],
// of radius r.
func (a *anisotropy) Compute(pos []float32, stride, n int, r float64) {
	a.pos, a.stride, a.r, a.R = pos, stride, r, anisoSupport*r
	a.Axes = par.Grow(a.Axes, 9*n)
	if n == 0 {
		return
	}
	// The grid over the particles' bounding box, cells R/2 wide, so the 5³ cells around a
	// particle hold about 2.2 times the particles within R where cells R wide would hold 6.4
	// times (widened when the box would need more than 4n cells: a few far-flung splashes must
	// not make the grid huge).
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			x := float64(pos[i*stride+c])
			lo[c], hi[c] = math.Min(lo[c], x), math.Max(hi[c], x)
		}
	}
	w := a.R / 2
	for {
		cells := 1
		for c := 0; c < 3; c++ {
			a.dim[c] = int((hi[c]-lo[c])/w) + 1
			cells *= a.dim[c]
		}
		if cells <= 4*n+64 {
			break
		}
		w *= 2
	}
	a.lo, a.inv = lo, 1/w
	cells := a.dim[0] * a.dim[1] * a.dim[2]
	a.start = par.Grow(a.start, cells+1)
	a.order = par.Grow(a.order, n)
	a.cell = par.Grow(a.cell, n)
	clear(a.start)
	for i := 0; i < n; i++ {
		c := a.cellOf(pos[i*stride:])
		a.cell[i] = int32(c)
		a.start[c+1]++
	}
	for c := 0; c < cells; c++ {
		a.start[c+1] += a.start[c]
	}
	// Fill each cell's run in particle order (start[c] advances as the run fills, then is
	// shifted back).
	for i := 0; i < n; i++ {
		c := a.cell[i]
		a.order[a.start[c]] = int32(i)
		a.start[c]++
	}
	for c := cells; c > 0; c-- {
		a.start[c] = a.start[c-1]
	}
	a.start[0] = 0
	a.pool.For(n, a.block)
}

// cellOf returns the grid cell of position p (its first three floats).
func (a *anisotropy) cellOf(p []float32) int {
	var k [3]int
	for c := 0; c < 3; c++ {
		k[c] = min(max(int((float64(p[c])-a.lo[c])*a.inv), 0), a.dim[c]-1)
	}
	return (k[2]*a.dim[1]+k[1])*a.dim[0] + k[0]
}

// compute fills the axes of particles [lo, hi): one pass over the neighbours in the cells
// around each, summing Σw, Σw d and Σw d dᵀ of the offsets d = x_j − x_i (offsets keep the
// sums' precision), whence x̄ − x_i = Σw d/Σw and C = Σw d dᵀ/Σw − (x̄ − x_i)(x̄ − x_i)ᵀ; then the
// eigen decomposition, the clamping and the volume-keeping scale.
func (a *anisotropy) compute(lo, hi, _ int) {
	pos, stride, R := a.pos, a.stride, a.R
	R2, invR := R*R, 1/R
	for i := lo; i < hi; i++ {
		xi := [3]float64{float64(pos[i*stride]), float64(pos[i*stride+1]), float64(pos[i*stride+2])}
		var k0, k1 [3]int
		for c := 0; c < 3; c++ {
			k0[c] = min(max(int((xi[c]-R-a.lo[c])*a.inv), 0), a.dim[c]-1)
			k1[c] = min(max(int((xi[c]+R-a.lo[c])*a.inv), 0), a.dim[c]-1)
		}
		var wsum float64
		var mean [3]float64
		var cov [9]float64
		neighbors := -1 // i itself is counted below
		for kz := k0[2]; kz <= k1[2]; kz++ {
			for ky := k0[1]; ky <= k1[1]; ky++ {
				row := (kz*a.dim[1] + ky) * a.dim[0]
				for _, j := range a.order[a.start[row+k0[0]]:a.start[row+k1[0]+1]] {
					p := pos[int(j)*stride : int(j)*stride+3]
					d0, d1, d2 := float64(p[0])-xi[0], float64(p[1])-xi[1], float64(p[2])-xi[2]
					dd := d0*d0 + d1*d1 + d2*d2
					if dd >= R2 {
						continue
					}
					q := math.Sqrt(dd) * invR
					w := 1 - q*q*q
					wsum += w
					mean[0] += w * d0
					mean[1] += w * d1
					mean[2] += w * d2
					cov[0] += w * d0 * d0
					cov[1] += w * d0 * d1
					cov[2] += w * d0 * d2
					cov[4] += w * d1 * d1
					cov[5] += w * d1 * d2
					cov[8] += w * d2 * d2
					neighbors++
				}
			}
		}
		out := a.Axes[9*i : 9*i+9]
		if neighbors < anisoMinNeighbors {
			a.isotropic(out)
			continue
		}
		for c := 0; c < 3; c++ {
			mean[c] /= wsum
		}
		for r := 0; r < 3; r++ {
			for c := r; c < 3; c++ {
				cov[3*r+c] = cov[3*r+c]/wsum - mean[r]*mean[c]
			}
		}
		cov[3], cov[6], cov[7] = cov[1], cov[2], cov[5]
		lambda, q := physics.SymEigen3(&cov)
		// Sort the eigenpairs by decreasing σ.
		idx := [3]int{0, 1, 2}
		for p := 0; p < 2; p++ {
			for s := p + 1; s < 3; s++ {
				if lambda[idx[s]] > lambda[idx[p]] {
					idx[p], idx[s] = idx[s], idx[p]
				}
			}
		}
		s1 := lambda[idx[0]]
		if !(s1 > 0) {
			a.isotropic(out) // every neighbour at one point: no shape to take
			continue
		}
		var sig [3]float64
		for k := 0; k < 3; k++ {
			sig[k] = math.Max(lambda[idx[k]], s1/anisoMaxRatio)
		}
		scale := a.r / math.Cbrt(sig[0]*sig[1]*sig[2])
		for k := 0; k < 3; k++ {
			l := sig[k] * scale
			col := idx[k]
			out[3*k] = float32(l * q[col])
			out[3*k+1] = float32(l * q[3+col])
			out[3*k+2] = float32(l * q[6+col])
		}
	}
}

// isotropic writes the axes of the particle's sphere: r along x, y and z.
func (a *anisotropy) isotropic(out []float32) {
	r := float32(a.r)
	clear(out)
	out[0], out[4], out[8] = r, r, r
}
