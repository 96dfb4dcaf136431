package physics

import (
	"fmt"
	"math"
)

// KernelKind selects the SPH smoothing kernel.
type KernelKind uint8

const (
	// CubicSpline is the M4 cubic B-spline of Monaghan (1992), written with the support
	// radius h: q = r/h, W = k(6q³ − 6q² + 1) for q ≤ ½, W = 2k(1 − q)³ for ½ < q ≤ 1,
	// k = 8/(πh³). It is the kernel of the IISPH paper (Ihmsen et al. 2014, Sec. 5).
	CubicSpline KernelKind = iota
	// WendlandC2 is Wendland's C² kernel in 3D with support radius h:
	// W = 21/(2πh³)·(1 − q)⁴(1 + 4q). It is smoother and resists pairing (Dehnen & Aly 2012).
	WendlandC2
)

// String returns the kernel's name as scene files spell it.
func (k KernelKind) String() string {
	switch k {
	case CubicSpline:
		return "cubic"
	case WendlandC2:
		return "wendland"
	}
	return fmt.Sprintf("KernelKind(%d)", uint8(k))
}

// ParseKernel maps a scene name ("cubic", "wendland") to its KernelKind.
func ParseKernel(s string) (KernelKind, error) {
	switch s {
	case "cubic", "":
		return CubicSpline, nil
	case "wendland":
		return WendlandC2, nil
	}
	return 0, fmt.Errorf("unknown kernel %q (allowed: cubic, wendland)", s)
}

// Kernel is a smoothing kernel with support radius H (W = 0 for r ≥ H) in Dim = 3 or 2
// dimensions. Its constants are precomputed by NewKernel or NewKernel2D; the methods are
// branch-light so they can run per neighbour pair.
type Kernel struct {
	Kind KernelKind
	H    float64 // support radius (m)
	Dim  int     // 3, or 2 for a planar world (the x–y plane); W is normalised in Dim dimensions
	invH float64
	k    float64 // normalisation of W
	l    float64 // normalisation of the derivative
}

// NewKernel returns a 3D kernel of the given kind with support radius h > 0.
func NewKernel(kind KernelKind, h float64) Kernel {
	kr := Kernel{Kind: kind, H: h, Dim: 3, invH: 1 / h}
	h3 := h * h * h
	switch kind {
	case CubicSpline:
		kr.k = 8 / (math.Pi * h3)
	case WendlandC2:
		kr.k = 21 / (2 * math.Pi * h3)
	}
	kr.setSlope()
	return kr
}

// NewKernel2D returns the kernel of the given kind normalised in two dimensions, ∫W dA = 1
// over the plane, for a planar world: the cubic spline's k = 40/(7πh²) (Monaghan 1992's
// 10/(7πh̃²) with the smoothing length h̃ = h/2), Wendland C2's 7/(πh²) (Wendland 1995;
// Dehnen & Aly 2012, Table 1). The shape in q = r/h is that of the 3D kernel.
func NewKernel2D(kind KernelKind, h float64) Kernel {
	kr := Kernel{Kind: kind, H: h, Dim: 2, invH: 1 / h}
	h2 := h * h
	switch kind {
	case CubicSpline:
		kr.k = 40 / (7 * math.Pi * h2)
	case WendlandC2:
		kr.k = 7 / (math.Pi * h2)
	}
	kr.setSlope()
	return kr
}

// setSlope sets the derivative's normalisation from k: dW/dq = 6k(3q² − 2q) and −6k(1 − q)²
// for the cubic spline, −20k q(1 − q)³ for Wendland C2.
func (kr *Kernel) setSlope() {
	switch kr.Kind {
	case CubicSpline:
		kr.l = 6 * kr.k
	case WendlandC2:
		kr.l = 20 * kr.k
	}
}

// ViscFactor is the factor 2(d + 2) of the Laplacian viscosity operator of Monaghan (2005)
// and its relatives (Weiler et al. 2018, Eq. 3): 10 in 3D, 8 in 2D.
func (kr *Kernel) ViscFactor() float64 { return float64(2 * (kr.Dim + 2)) }

// depth returns the lattice offsets the kernel's lattice sums run over along z: ±n in 3D, only
// 0 in a planar world.
func (kr *Kernel) depth(n int) int {
	if kr.Dim == 2 {
		return 0
	}
	return n
}

// W evaluates the kernel at distance r ≥ 0.
func (kr *Kernel) W(r float64) float64 {
	q := r * kr.invH
	if q >= 1 {
		return 0
	}
	switch kr.Kind {
	case WendlandC2:
		a := 1 - q
		a2 := a * a
		return kr.k * a2 * a2 * (1 + 4*q)
	default:
		if q <= 0.5 {
			q2 := q * q
			return kr.k * (6*q2*q - 6*q2 + 1)
		}
		a := 1 - q
		return kr.k * 2 * a * a * a
	}
}

// Consts returns 1/H and the normalisation k of W (W = k·f(r/H)), for loops that evaluate
// the kernel themselves (the elastoplastic forces' vector assembly) with the same bits as W.
func (kr *Kernel) Consts() (invH, k float64) { return kr.invH, kr.k }

// GradFactor returns g such that ∇W(x) = g·x for a vector x of length r > 0 (g = W'(r)/r,
// always ≤ 0). It is 0 for r = 0 and r ≥ H.
func (kr *Kernel) GradFactor(r float64) float64 {
	q := r * kr.invH
	if q >= 1 || r <= 1e-12*kr.H {
		return 0
	}
	switch kr.Kind {
	case WendlandC2:
		a := 1 - q
		// dW/dr = -k·20 q (1-q)^3 / h ; divided by r = q h gives -20k (1-q)^3 / h^2
		return -kr.l * a * a * a * kr.invH * kr.invH
	default:
		// dW/dq = l (3q² − 2q) for q ≤ ½, −l (1 − q)² otherwise; dW/dr = dW/dq / h.
		var dq float64
		if q <= 0.5 {
			dq = kr.l * q * (3*q - 2)
		} else {
			a := 1 - q
			dq = -kr.l * a * a
		}
		return dq * kr.invH / r
	}
}

// Eval returns W(r) and the gradient factor GradFactor(r) together, sharing q and the
// branch: the neighbour search evaluates both for every pair it stores.
func (kr *Kernel) Eval(r float64) (w, g float64) {
	q := r * kr.invH
	if q >= 1 {
		return 0, 0
	}
	tiny := r <= 1e-12*kr.H
	switch kr.Kind {
	case WendlandC2:
		a := 1 - q
		a3 := a * a * a
		w = kr.k * a3 * a * (1 + 4*q)
		g = -kr.l * a3 * kr.invH * kr.invH
	default:
		if q <= 0.5 {
			q2 := q * q
			w = kr.k * (6*q2*q - 6*q2 + 1)
			g = kr.l * q * (3*q - 2) * kr.invH / r
		} else {
			a := 1 - q
			w = kr.k * 2 * a * a * a
			g = -kr.l * a * a * kr.invH / r
		}
	}
	if tiny {
		g = 0
	}
	return w, g
}

// cubic is Eval for the cubic spline, small enough to inline in the search's pair loop.
// Callers guarantee r < H; a coincident pair (r = 0) gets g finite and ∇W = g·0 = 0.
func (kr *Kernel) cubic(r float64) (w, g float64) {
	q := r * kr.invH
	a := 1 - q
	if q <= 0.5 {
		w = kr.k * (6*q*q*(q-1) + 1)
		g = kr.l * (3*q - 2) * kr.invH * kr.invH
		return
	}
	w = kr.k * 2 * a * a * a
	g = -kr.l * a * a * kr.invH / r
	return
}

// W0 is the kernel's value at r = 0 (the self-contribution to density).
func (kr *Kernel) W0() float64 { return kr.W(0) }

// LatticeVolume returns the particle volume V = 1/Σ_j W(x_j) for an infinite cubic lattice of
// the given spacing (a square lattice and an area, m², in 2D), summed over every lattice point
// in the support (self included). With this
// volume a particle deep inside a freshly sampled block has exactly its rest density, so a
// block starts at rest instead of with a pressure burst. For the cubic spline with h = 2·spacing
// it is 1.0000276·spacing³ (TestLatticeVolume; SPlisHSPlasH gives its particles 0.8·(2r)³).
func (kr *Kernel) LatticeVolume(spacing float64) float64 {
	n := int(math.Ceil(kr.H/spacing)) + 1
	nz := kr.depth(n)
	sum := 0.0
	for i := -n; i <= n; i++ {
		for j := -n; j <= n; j++ {
			for k := -nz; k <= nz; k++ {
				r := spacing * math.Sqrt(float64(i*i+j*j+k*k))
				sum += kr.W(r)
			}
		}
	}
	return 1 / sum
}

// ViscositySafety is the fraction of the lattice's explicit viscosity limit 2/(ν λ_max) that
// substeps may use. Real particles are not a lattice: at a free surface the lower densities make
// the operator's top eigenvalue 3–5 % larger (TestViscosityEigenIsTheOperatorsSpectralRadius),
// and moving, disordered particles vary their neighbour sums further; with 0.8 the cubic spline's
// limit ν Δt/H² ≈ 0.028 sits just below the 0.029 a dam break ran stably.
const ViscositySafety = 0.8

// ViscosityEigen returns λ_max (1/m²), the largest eigenvalue per unit kinematic viscosity of
// the Laplacian viscosity operator of Advect (Monaghan 2005) on an infinite cubic lattice of the
// given spacing with the lattice volume. Explicit integration of dv/dt = −ν M v is stable
// exactly when ν Δt λ_max ≤ 2, so 2/(ν λ_max) is the viscosity's true explicit step limit.
//
// It is a von Neumann analysis of the discrete operator: a velocity wave v_j = v̂ e^{i k·x_j}
// is an eigenvector with a_i = −ν M(k) v̂ e^{i k·x_i},
//
//	M(k) = Σ_j c_j (1 − cos k·x_j) x̂_j x̂_jᵀ,   c_j = 2(d+2) V |W'(r_j)| r_j / (r_j² + 0.01 H²),
//
// and λ_max is the largest eigenvalue of M(k) over the wave vectors of the Brillouin zone
// (sampled on a grid that includes its corners, where the checkerboard modes live; by the
// lattice's symmetry 0 ≤ k_z ≤ k_y ≤ k_x ≤ π/spacing suffices). For the cubic spline with
// H = 4r = 2·spacing the limit is ν Δt/H² ≈ 0.032 — the classical 0.125 h²/ν with the
// smoothing length h = H/2, and what was measured on a dam break (0.029 stable, 0.042 not).
func (kr *Kernel) ViscosityEigen(spacing float64) float64 {
	if spacing <= 0 {
		return 0
	}
	vol := kr.LatticeVolume(spacing)
	eps := 0.01 * kr.H * kr.H
	n := int(math.Ceil(kr.H/spacing)) + 1
	type pair struct {
		x [3]float64
		c float64
	}
	nz := kr.depth(n)
	var pairs []pair
	for i := -n; i <= n; i++ {
		for j := -n; j <= n; j++ {
			for k := -nz; k <= nz; k++ {
				x := [3]float64{spacing * float64(i), spacing * float64(j), spacing * float64(k)}
				r := math.Sqrt(x[0]*x[0] + x[1]*x[1] + x[2]*x[2])
				if r == 0 || r >= kr.H {
					continue
				}
				// |∇W| = |GradFactor|·r; the pair's coefficient along x̂ x̂ᵀ.
				c := kr.ViscFactor() * vol * math.Abs(kr.GradFactor(r)) * r * r / (r*r + eps)
				pairs = append(pairs, pair{x, c / (r * r)}) // c/r² so that c·x xᵀ = c_j x̂ x̂ᵀ
			}
		}
	}
	const samples = 16 // wave vectors per axis of the irreducible zone
	best := 0.0
	for a := 0; a <= samples; a++ {
		for b := 0; b <= a; b++ {
			for c := 0; c <= min(b, kr.depth(samples)); c++ {
				kv := [3]float64{float64(a), float64(b), float64(c)}
				for d := range kv {
					kv[d] *= math.Pi / spacing / samples
				}
				var m [6]float64 // xx, xy, xz, yy, yz, zz
				for _, p := range pairs {
					w := p.c * (1 - math.Cos(kv[0]*p.x[0]+kv[1]*p.x[1]+kv[2]*p.x[2]))
					m[0] += w * p.x[0] * p.x[0]
					m[1] += w * p.x[0] * p.x[1]
					m[2] += w * p.x[0] * p.x[2]
					m[3] += w * p.x[1] * p.x[1]
					m[4] += w * p.x[1] * p.x[2]
					m[5] += w * p.x[2] * p.x[2]
				}
				best = max(best, symEigenMax(m))
			}
		}
	}
	return best
}

// symEigenMax returns the largest eigenvalue of the symmetric 3x3 matrix with entries
// (xx, xy, xz, yy, yz, zz), by the trigonometric solution of its characteristic cubic
// (Smith, "Eigenvalues of a symmetric 3x3 matrix", Commun. ACM 4(4), 1961).
func symEigenMax(m [6]float64) float64 {
	p1 := m[1]*m[1] + m[2]*m[2] + m[4]*m[4]
	q := (m[0] + m[3] + m[5]) / 3
	if p1 == 0 {
		return max(m[0], m[3], m[5])
	}
	a, d, f := m[0]-q, m[3]-q, m[5]-q
	p2 := a*a + d*d + f*f + 2*p1
	p := math.Sqrt(p2 / 6)
	// det((A − qI)/p)/2
	det := a*(d*f-m[4]*m[4]) - m[1]*(m[1]*f-m[4]*m[2]) + m[2]*(m[1]*m[4]-d*m[2])
	r := det / (p * p * p) / 2
	r = min(max(r, -1), 1)
	return q + 2*p*math.Cos(math.Acos(r)/3)
}

// ViscousDtLimit is the largest substep (s) at which the explicit viscosity (kinematic ν, m²/s)
// and wall drag (ν_b) stay stable: ViscositySafety·2/(ν λ_f + ν_b λ_w), with λ_f =
// ViscosityEigen and λ_w = WallDragEigen for walls of the given number of layers (the spectral
// radius of a sum is at most the sum of the radii). It is +Inf when both are zero.
func (kr *Kernel) ViscousDtLimit(spacing float64, layers int, nu, nuB float64) float64 {
	lam := 0.0
	if nu > 0 {
		lam += nu * kr.ViscosityEigen(spacing)
	}
	if nuB > 0 {
		lam += nuB * kr.WallDragEigen(spacing, layers)
	}
	if lam == 0 {
		return math.Inf(1)
	}
	return ViscositySafety * 2 / lam
}

// WallDragEigen returns the largest eigenvalue per unit boundary viscosity ν_b of the wall
// drag of BoundaryDrag (1/m²) for a fluid particle one spacing in front of a flat wall of the
// given number of sample layers: the norm of Σ_b c_b x̂_b x̂_bᵀ with c_b as in ViscosityEigen and
// V_b = V0 (a flat wall's Akinci volume γ/δ_b equals the lattice volume; see WallVolumeScale).
// The drag only adds to each particle's own velocity (the walls do not take part in the mode),
// so this is its whole contribution to the explicit step's spectral radius, which the substep
// control adds to the fluid's.
func (kr *Kernel) WallDragEigen(spacing float64, layers int) float64 {
	if spacing <= 0 {
		return 0
	}
	vol := kr.LatticeVolume(spacing)
	eps := 0.01 * kr.H * kr.H
	n := int(math.Ceil(kr.H/spacing)) + 1
	nz := kr.depth(n)
	var m [6]float64
	for l := 1; l <= layers; l++ {
		for i := -n; i <= n; i++ {
			for j := -nz; j <= nz; j++ {
				x := [3]float64{spacing * float64(i), spacing * float64(l), spacing * float64(j)}
				r2 := x[0]*x[0] + x[1]*x[1] + x[2]*x[2]
				r := math.Sqrt(r2)
				if r >= kr.H {
					continue
				}
				c := kr.ViscFactor() * vol * math.Abs(kr.GradFactor(r)) / (r2 + eps) // c_b/r² times r²/r² : c·x xᵀ = c_b x̂ x̂ᵀ
				m[0] += c * x[0] * x[0]
				m[1] += c * x[0] * x[1]
				m[2] += c * x[0] * x[2]
				m[3] += c * x[1] * x[1]
				m[4] += c * x[1] * x[2]
				m[5] += c * x[2] * x[2]
			}
		}
	}
	return symEigenMax(m)
}

// PlaneSum returns Σ_j W(x_j) over a square lattice of the given spacing in a plane at
// distance offset from the origin (self included when offset = 0); in 2D the wall is a line,
// and the sum runs over the lattice points of a line at that distance.
func (kr *Kernel) PlaneSum(spacing, offset float64) float64 {
	n := int(math.Ceil(kr.H/spacing)) + 1
	nz := kr.depth(n)
	sum := 0.0
	for i := -n; i <= n; i++ {
		for j := -nz; j <= nz; j++ {
			sum += kr.W(math.Sqrt(spacing*spacing*float64(i*i+j*j) + offset*offset))
		}
	}
	return sum
}

// WallVolumeScale returns γ = V0·Σ_{k<layers} PlaneSum(s, k·s), V0 = LatticeVolume(s): the
// factor that makes Akinci's boundary volume V_b = γ/δ_b consistent with the fluid for a flat
// wall of the given number of layers sampled at spacing s. A boundary particle of the wall's
// first layer sees its own layer and the layers behind it, δ_b = Σ_k PlaneSum(s, k·s); a fluid
// particle in front of the wall then gets from it exactly the density the missing fluid layers
// would have given. Without it (γ = 1) a single layer gives a fluid particle one spacing from
// a flat wall 6 % too much density (cubic spline, h = 2s), and the pressure solve, which
// removes any density error within one step, throws the first layer off the wall. For the
// cubic spline at h = 2s, γ ≈ 0.70 for one layer and ≈ 0.85 for two.
func (kr *Kernel) WallVolumeScale(spacing float64, layers int) float64 {
	sum := 0.0
	for k := 0; k < layers; k++ {
		sum += kr.PlaneSum(spacing, float64(k)*spacing)
	}
	return sum * kr.LatticeVolume(spacing)
}
