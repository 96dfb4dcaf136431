package reduced

import (
	"fmt"
	"math"
	"sort"
)

// Box is a model-reduced 3D wind in the box [0,Lx]×[0,Ly]×[0,Lz] with free-slip walls: the
// same method as the 2D domain (§5.1, Eq. 5.3–5.9) on the closed-form Laplacian eigenbasis of
// the box, the 3D case of de Witt, Lessig and Fiume 2012. This goes beyond the dissertation,
// whose reduced fluid is 2D. For integer wave numbers a = (a1, a2, a3), k_e = a_e π/L_e,
//
//	b = (A₁ sin(k1x)cos(k2y)cos(k3z), A₂ cos(k1x)sin(k2y)cos(k3z), A₃ cos(k1x)cos(k2y)sin(k3z)),
//
// has no normal component on any wall, satisfies ∇²b = −|k|² b, and is divergence-free when
// A·k = 0 (∇·b = (A·k) cos cos cos). With all three a_e ≥ 1 there are two such polarisations
// A; with one a_e = 0 the component along e vanishes and there is one; with two zero, none.
// Distinct wave numbers are orthogonal, and so are the two polarisations of one; each mode is
// scaled to unit L² norm, ∫|b|² = |A|² V Π_e h(a_e) with h = ½ for a_e ≥ 1 and 1 for a_e = 0.
// The basis holds the Modes modes of smallest |k|². There are no bodies in the box: it is a
// wind field that carries itself (Eq. 5.9), decays by viscosity and that a caller forces
// (AddScaled) and samples (VelocityAt).
type Box struct {
	cfg   BoxConfig
	modes []boxMode
	lam   []float64
	r     []float64
	time  float64
	// the advection tensor C(k,i,j) = −⟨b_k, (b_i·∇) b_j⟩ (Eq. 5.7), its nonzeros grouped by i
	tstart         []int
	tk, tj         []int32
	tv             []float64
	mat            []float64
	term, next, ac []float64
	sx, sy, sz     []float64 // scratch: sin and cos of a·π x/L per axis for VelocityAt
	cx, cy, cz     []float64
}

// boxMode is one basis field: wave numbers and the normalised amplitudes A.
type boxMode struct {
	a   [3]int
	amp [3]float64
}

// BoxConfig declares a 3D reduced wind box; NewBox checks every field and names the first out
// of range.
type BoxConfig struct {
	// Size of the box (m). Range (0, 1e6] each.
	Size [3]float64
	// MaxWave: the largest wave number per axis considered (the modes are the Modes smallest
	// among them). Default 8; range [1, 32].
	MaxWave int
	// Modes: basis size. Default 64; range [1, number of fields with wave numbers ≤ MaxWave],
	// at most MaxModes.
	Modes int
	// Viscosity ν (m²/s): each mode decays as exp(−ν|k|²t). Default 0; range [0, 10].
	Viscosity float64
	// TaylorOrder p of the exponential step (Eq. 5.9). Default 4; range [1, 16].
	TaylorOrder int
}

// DefaultBoxConfig returns a 1 m cube with 64 modes of wave numbers up to 8, inviscid.
func DefaultBoxConfig() BoxConfig {
	return BoxConfig{Size: [3]float64{1, 1, 1}, MaxWave: 8, Modes: 64, TaylorOrder: 4}
}

// boxFields lists every field with wave numbers up to K per axis, in a fixed order: by a, then
// polarisation.
func boxFields(k int, size [3]float64) []boxMode {
	var out []boxMode
	for a1 := 0; a1 <= k; a1++ {
		for a2 := 0; a2 <= k; a2++ {
			for a3 := 0; a3 <= k; a3++ {
				a := [3]int{a1, a2, a3}
				var kv [3]float64
				zeros := 0
				for e := range 3 {
					kv[e] = float64(a[e]) * math.Pi / size[e]
					if a[e] == 0 {
						zeros++
					}
				}
				var pols [][3]float64
				switch zeros {
				case 0:
					// e1 ⊥ k: k × (the unit axis of k's smallest component), e2 = k̂ × e1
					m := 0
					for e := 1; e < 3; e++ {
						if kv[e] < kv[m] {
							m = e
						}
					}
					var ax [3]float64
					ax[m] = 1
					e1 := unit3(cross3(kv, ax))
					e2 := unit3(cross3(unit3(kv), e1))
					pols = [][3]float64{e1, e2}
				case 1:
					// the component along the zero wave number vanishes: A ⊥ k in the other two
					var z int
					for e := range 3 {
						if a[e] == 0 {
							z = e
						}
					}
					p, q := (z+1)%3, (z+2)%3
					var e1 [3]float64
					e1[p], e1[q] = kv[q], -kv[p]
					pols = [][3]float64{unit3(e1)}
				}
				h := size[0] * size[1] * size[2]
				for e := range 3 {
					if a[e] > 0 {
						h /= 2
					}
				}
				for _, pol := range pols {
					s := 1 / math.Sqrt(h)
					out = append(out, boxMode{a: a, amp: [3]float64{pol[0] * s, pol[1] * s, pol[2] * s}})
				}
			}
		}
	}
	return out
}

func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func unit3(a [3]float64) [3]float64 {
	l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2])
	return [3]float64{a[0] / l, a[1] / l, a[2] / l}
}

// NewBox builds the basis and the advection tensor and returns a box of still air.
func NewBox(c BoxConfig) (*Box, error) {
	for e, l := range c.Size {
		if !finite(l) || l <= 0 || l > 1e6 {
			return nil, fmt.Errorf("reduced: BoxConfig.Size[%d] = %v m is out of range (0, 1e6]", e, l)
		}
	}
	if c.MaxWave < 1 || c.MaxWave > 32 {
		return nil, rangeErr3("MaxWave", c.MaxWave, 1, 32)
	}
	all := boxFields(c.MaxWave, c.Size)
	if hi := min(len(all), MaxModes); c.Modes < 1 || c.Modes > hi {
		return nil, fmt.Errorf("reduced: BoxConfig.Modes = %d is out of range [1, %d] (%d fields have wave numbers up to MaxWave = %d; at most MaxModes = %d)", c.Modes, hi, len(all), c.MaxWave, MaxModes)
	}
	if !finite(c.Viscosity) || c.Viscosity < 0 || c.Viscosity > 10 {
		return nil, fmt.Errorf("reduced: BoxConfig.Viscosity = %v m²/s is out of range [0, 10]", c.Viscosity)
	}
	if c.TaylorOrder < 1 || c.TaylorOrder > 16 {
		return nil, rangeErr3("TaylorOrder", c.TaylorOrder, 1, 16)
	}
	lam := func(m boxMode) float64 {
		s := 0.0
		for e := range 3 {
			k := float64(m.a[e]) * math.Pi / c.Size[e]
			s += k * k
		}
		return s
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	// smallest |k|² first; ties keep the fixed enumeration order (a, then polarisation)
	sort.SliceStable(idx, func(p, q int) bool { return lam(all[idx[p]]) < lam(all[idx[q]]) })
	b := &Box{cfg: c}
	for _, i := range idx[:c.Modes] {
		b.modes = append(b.modes, all[i])
		b.lam = append(b.lam, lam(all[i]))
	}
	n := c.Modes
	b.r = make([]float64, n)
	b.mat = make([]float64, n*n)
	b.term, b.next, b.ac = make([]float64, n), make([]float64, n), make([]float64, n)
	w := c.MaxWave + 1
	b.sx, b.sy, b.sz = make([]float64, w), make([]float64, w), make([]float64, w)
	b.cx, b.cy, b.cz = make([]float64, w), make([]float64, w), make([]float64, w)
	b.buildTensor()
	return b, nil
}

func rangeErr3(field string, v, lo, hi int) error {
	return fmt.Errorf("reduced: BoxConfig.%s = %d is out of range [%d, %d]", field, v, lo, hi)
}

// triple is ∫_0^L f1(pπx/L) f2(qπx/L) f3(sπx/L) dx for f_j = sin when sin[j], else cos, with an
// even number of sines. Writing sin θ = (e^{iθ} − e^{−iθ})/(2i) and cos θ = (e^{iθ} + e^{−iθ})/2,
// the product is (1/8) Σ_σ c_σ e^{i(σ1p + σ2q + σ3s)πx/L} with c_σ = (−1)^{n_sin/2} Π_{sin j} σ_j
// (real for an even count); over [0, L] every exponent but 0 integrates (with its conjugate)
// to 0, so the integral is L/8 times the sum of c_σ over the sign choices with
// σ1p + σ2q + σ3s = 0.
func triple(sin [3]bool, p, q, s int, l float64) float64 {
	ns := 0
	for _, x := range sin {
		if x {
			ns++
		}
	}
	sum := 0
	for m := 0; m < 8; m++ {
		sg := [3]int{1 - 2*(m&1), 1 - 2*(m>>1&1), 1 - 2*(m>>2&1)}
		if sg[0]*p+sg[1]*q+sg[2]*s != 0 {
			continue
		}
		c := 1
		for j := range 3 {
			if sin[j] {
				c *= sg[j]
			}
		}
		sum += c
	}
	if ns/2%2 == 1 {
		sum = -sum
	}
	return l / 8 * float64(sum)
}

// tensorEntry is C(k,i,j) = −⟨b_k, (b_i·∇) b_j⟩ = −Σ_{c,d} ∫ b_k,d b_i,c ∂_c b_j,d, each term a
// product over the axes of triple integrals. Component d of a mode is sin along axis d and cos
// along the others; ∂_c turns the factor along axis c from sin into k_c cos (c = d) or from
// cos into −k_c sin (c ≠ d), so every axis carries an even number of sines.
func (b *Box) tensorEntry(k, i, j int) float64 {
	mk, mi, mj := &b.modes[k], &b.modes[i], &b.modes[j]
	total := 0.0
	for c := range 3 {
		if mi.amp[c] == 0 {
			continue
		}
		kc := float64(mj.a[c]) * math.Pi / b.cfg.Size[c]
		for d := range 3 {
			if mk.amp[d] == 0 || mj.amp[d] == 0 {
				continue
			}
			v := mk.amp[d] * mi.amp[c] * mj.amp[d] * kc
			if c != d {
				v = -v
			}
			for e := range 3 {
				sj := e == d // b_j,d's factor along e before the derivative
				if e == c {
					sj = !sj
				}
				v *= triple([3]bool{e == d, e == c, sj}, mk.a[e], mi.a[e], mj.a[e], b.cfg.Size[e])
				if v == 0 {
					break
				}
			}
			total += v
		}
	}
	return -total
}

// buildTensor stores the nonzero entries of C, grouped by i.
func (b *Box) buildTensor() {
	n := len(b.modes)
	b.tstart = make([]int, n+1)
	for i := 0; i < n; i++ {
		b.tstart[i] = len(b.tv)
		for k := 0; k < n; k++ {
			for j := 0; j < n; j++ {
				if v := b.tensorEntry(k, i, j); v != 0 {
					b.tk = append(b.tk, int32(k))
					b.tj = append(b.tj, int32(j))
					b.tv = append(b.tv, v)
				}
			}
		}
	}
	b.tstart[n] = len(b.tv)
}

// Modes returns the basis size.
func (b *Box) Modes() int { return len(b.modes) }

// Config returns the box's configuration.
func (b *Box) Config() BoxConfig { return b.cfg }

// Eigenvalue returns |k|² of mode k (∇²b_k = −|k|² b_k).
func (b *Box) Eigenvalue(k int) float64 { return b.lam[k] }

// Waves returns mode k's wave numbers.
func (b *Box) Waves(k int) [3]int { return b.modes[k].a }

// Time returns the simulated time (s).
func (b *Box) Time() float64 { return b.time }

// TensorNonzeros returns the number of nonzero entries of the advection tensor.
func (b *Box) TensorNonzeros() int { return len(b.tv) }

// Tensor returns C(k,i,j) = −⟨b_k, (b_i·∇) b_j⟩ (Eq. 5.7).
func (b *Box) Tensor(k, i, j int) float64 { return b.tensorEntry(k, i, j) }

// Coefficients copies the coefficients into dst (grown as needed) and returns it.
func (b *Box) Coefficients(dst []float64) []float64 {
	dst = append(dst[:0], b.r...)
	return dst
}

// SetCoefficients sets the coefficients; len(r) must equal Modes().
func (b *Box) SetCoefficients(r []float64) error {
	if len(r) != len(b.r) {
		return fmt.Errorf("reduced: Box.SetCoefficients got %d coefficients, the basis has %d", len(r), len(b.r))
	}
	for i, x := range r {
		if !finite(x) {
			return fmt.Errorf("reduced: Box.SetCoefficients: coefficient %d = %v is not finite", i, x)
		}
	}
	copy(b.r, r)
	return nil
}

// AddScaled adds s·f to the coefficients (Eq. 5.5 with f = Bᵀ of a force density and s = Δt).
func (b *Box) AddScaled(f []float64, s float64) error {
	if len(f) != len(b.r) {
		return fmt.Errorf("reduced: Box.AddScaled got %d coefficients, the basis has %d", len(f), len(b.r))
	}
	if !finite(s) {
		return fmt.Errorf("reduced: Box.AddScaled scale %v is not finite", s)
	}
	for k, x := range f {
		b.r[k] += s * x
	}
	return nil
}

// Energy returns ½Σr², the kinetic energy per unit density ½∫|u|² dV (m⁵/s²).
func (b *Box) Energy() float64 {
	e := 0.0
	for _, x := range b.r {
		e += x * x
	}
	return e / 2
}

// ModeVelocityAt returns mode k's velocity at (x, y, z).
func (b *Box) ModeVelocityAt(k int, p [3]float64) [3]float64 {
	m := &b.modes[k]
	var s, c [3]float64
	for e := range 3 {
		s[e], c[e] = math.Sincos(float64(m.a[e]) * math.Pi * p[e] / b.cfg.Size[e])
	}
	return [3]float64{m.amp[0] * s[0] * c[1] * c[2], m.amp[1] * c[0] * s[1] * c[2], m.amp[2] * c[0] * c[1] * s[2]}
}

// VelocityAt returns the wind Σ r_k b_k at p (m/s), from per-axis sine and cosine tables (six
// library calls per point).
func (b *Box) VelocityAt(p [3]float64) [3]float64 {
	fill := func(s, c []float64, x, l float64) {
		th := math.Pi * x / l
		s1, c1 := math.Sincos(th)
		s[0], c[0] = 0, 1
		for a := 1; a < len(s); a++ {
			s[a] = s[a-1]*c1 + c[a-1]*s1
			c[a] = c[a-1]*c1 - s[a-1]*s1
		}
	}
	fill(b.sx, b.cx, p[0], b.cfg.Size[0])
	fill(b.sy, b.cy, p[1], b.cfg.Size[1])
	fill(b.sz, b.cz, p[2], b.cfg.Size[2])
	var u [3]float64
	for k, m := range b.modes {
		r := b.r[k]
		if r == 0 {
			continue
		}
		a := m.a
		u[0] += r * m.amp[0] * b.sx[a[0]] * b.cy[a[1]] * b.cz[a[2]]
		u[1] += r * m.amp[1] * b.cx[a[0]] * b.sy[a[1]] * b.cz[a[2]]
		u[2] += r * m.amp[2] * b.cx[a[0]] * b.cy[a[1]] * b.sz[a[2]]
	}
	return u
}

// Step advances the wind by dt with Eq. 5.9, r ← exp(Δt(νD̃ + Ã(r))) r by the Taylor series of
// order TaylorOrder (see advanceFluid: the same step and the same energy behaviour).
func (b *Box) Step(dt float64) error {
	if !finite(dt) || dt <= 0 {
		return fmt.Errorf("reduced: dt = %v s must be finite and > 0", dt)
	}
	n := len(b.r)
	m := b.mat
	clear(m)
	for k := range n {
		m[k*n+k] = -b.cfg.Viscosity * b.lam[k]
	}
	for i := 0; i < n; i++ {
		ri := b.r[i]
		if ri == 0 {
			continue
		}
		for e := b.tstart[i]; e < b.tstart[i+1]; e++ {
			m[int(b.tk[e])*n+int(b.tj[e])] += ri * b.tv[e]
		}
	}
	term, next, acc := b.term, b.next, b.ac
	copy(term, b.r)
	copy(acc, b.r)
	for k := 1; k <= b.cfg.TaylorOrder; k++ {
		s := dt / float64(k)
		for i := 0; i < n; i++ {
			row := m[i*n : (i+1)*n]
			v := 0.0
			for j, x := range row {
				v += x * term[j]
			}
			next[i] = s * v
		}
		term, next = next, term
		for i, x := range term {
			acc[i] += x
		}
	}
	copy(b.r, acc)
	b.time += dt
	return nil
}

// quadrature calls f at the points of the midpoint rule with 2·MaxWave+2 points per axis and
// their weight: exact for the product of any two modes (Σ_i cos(mπ(i+½)/n) = 0 for
// 0 < m < 2n), so BᵀB = I holds on it to rounding.
func (b *Box) quadrature(f func(p [3]float64, w float64)) {
	n := 2*b.cfg.MaxWave + 2
	s := b.cfg.Size
	w := s[0] * s[1] * s[2] / float64(n*n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				f([3]float64{(float64(i) + 0.5) * s[0] / float64(n), (float64(j) + 0.5) * s[1] / float64(n), (float64(k) + 0.5) * s[2] / float64(n)}, w)
			}
		}
	}
}

// Project returns Bᵀf (Eq. 5.3–5.4) of the field f (in the box's coordinates) on the
// quadrature of quadrature: exact for fields in the span of the modes, the divergence-free
// part's leading coefficients otherwise.
func (b *Box) Project(f func(p [3]float64) [3]float64) []float64 {
	out := make([]float64, len(b.modes))
	b.quadrature(func(p [3]float64, w float64) {
		v := f(p)
		for k := range b.modes {
			m := b.ModeVelocityAt(k, p)
			out[k] += w * (m[0]*v[0] + m[1]*v[1] + m[2]*v[2])
		}
	})
	return out
}

// WeightedGram returns G_kl = ∫ g b_k·b_l (n×n, row-major) for the weight g on the same
// quadrature: with 0 ≤ g ≤ 1 it is symmetric with eigenvalues in [0, 1] (BᵀB = I there).
func (b *Box) WeightedGram(g func(p [3]float64) float64) []float64 {
	n := len(b.modes)
	out := make([]float64, n*n)
	vel := make([][3]float64, n)
	b.quadrature(func(p [3]float64, w float64) {
		gw := g(p) * w
		if gw == 0 {
			return
		}
		for k := range n {
			vel[k] = b.ModeVelocityAt(k, p)
		}
		for k := range n {
			for l := range n {
				out[k*n+l] += gw * (vel[k][0]*vel[l][0] + vel[k][1]*vel[l][1] + vel[k][2]*vel[l][2])
			}
		}
	})
	return out
}

// Relax moves the coefficients towards a target over the time dt: dr/dt = (F − G r)/τ, the
// projection of a forcing (u_target − u)·g/τ that pulls the wind towards u_target where the
// weight g is 1 (a fan; F = Bᵀ(g u_target), G = WeightedGram(g)). It is integrated by explicit
// Euler in ⌈dt/τ⌉ substeps, stable because G's eigenvalues lie in [0, 1].
func (b *Box) Relax(f, g []float64, tau, dt float64) error {
	n := len(b.r)
	if len(f) != n || len(g) != n*n {
		return fmt.Errorf("reduced: Box.Relax got %d and %d entries, the basis needs %d and %d", len(f), len(g), n, n*n)
	}
	if !finite(tau) || tau <= 0 || !finite(dt) || dt <= 0 {
		return fmt.Errorf("reduced: Box.Relax: τ = %v s and dt = %v s must be finite and > 0", tau, dt)
	}
	m := int(math.Ceil(dt / tau))
	h := dt / float64(m) / tau
	for range m {
		for k := range n {
			v := f[k]
			row := g[k*n : (k+1)*n]
			for l, x := range row {
				v -= x * b.r[l]
			}
			b.next[k] = v
		}
		for k := range n {
			b.r[k] += h * b.next[k]
		}
	}
	return nil
}

// Restore sets the coefficients and the clock (a snapshot's state; the basis is rebuilt from
// the configuration).
func (b *Box) Restore(r []float64, time float64) error {
	if err := b.SetCoefficients(r); err != nil {
		return err
	}
	if !finite(time) {
		return fmt.Errorf("reduced: Box.Restore: time %v is not finite", time)
	}
	b.time = time
	return nil
}
