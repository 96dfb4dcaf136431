package reduced

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Field is a user-authored or data-driven velocity field for basis enrichment (§5.2): either
// a Go function or cell-centred grid samples on the domain's CellsX×CellsY grid.
type Field struct {
	// Func returns the velocity (m/s) at (x, y).
	Func func(x, y float64) (u, v float64)
	// U, V: cell-centred samples, cell (i, j) at index i·CellsY + j, used when Func is nil.
	U, V []float64
}

func (f *Field) validate(c *Config) error {
	if f.Func != nil {
		if f.U != nil || f.V != nil {
			return errors.New("set either Func or the U, V grid, not both")
		}
		return nil
	}
	n := c.CellsX * c.CellsY
	if len(f.U) != n || len(f.V) != n {
		return fmt.Errorf("grid field has %d U and %d V samples, the %dx%d grid needs %d each", len(f.U), len(f.V), c.CellsX, c.CellsY, n)
	}
	for i := range f.U {
		if !finite(f.U[i]) || !finite(f.V[i]) {
			return fmt.Errorf("grid sample %d = (%v, %v) is not finite", i, f.U[i], f.V[i])
		}
	}
	return nil
}

// rankTolerance: singular values below this fraction of the largest are treated as zero in the
// two SVDs of §5.2 (the fields' projections are exact to about 1e-13 relative, so anything
// above 1e-8 is a real direction, and a field wholly inside span(E) deflates to ~1e-15).
const rankTolerance = 1e-8

// sample fills the staggered-grid samples of a field.
func (f *Field) sample(g *grid, ug, vg []float64) {
	nx, ny := g.nx, g.ny
	if f.Func != nil {
		for i := 0; i <= nx; i++ {
			for j := 0; j < ny; j++ {
				x, y := g.uPos(i, j)
				ug[i*ny+j], _ = f.Func(x, y)
			}
		}
		for i := 0; i < nx; i++ {
			for j := 0; j <= ny; j++ {
				x, y := g.vPos(i, j)
				_, vg[i*(ny+1)+j] = f.Func(x, y)
			}
		}
		return
	}
	// faces take the mean of their two cells (one cell on a wall)
	for i := 0; i <= nx; i++ {
		for j := 0; j < ny; j++ {
			l, r := max(i-1, 0), min(i, nx-1)
			ug[i*ny+j] = (f.U[l*ny+j] + f.U[r*ny+j]) / 2
		}
	}
	for i := 0; i < nx; i++ {
		for j := 0; j <= ny; j++ {
			b, t := max(j-1, 0), min(j, ny-1)
			vg[i*(ny+1)+j] = (f.V[i*ny+b] + f.V[i*ny+t]) / 2
		}
	}
}

// full returns a basis holding every ambient mode (evaluation tables only), used to project
// fields onto the whole divergence-free ambient space.
func fullBasis(am *ambient, g *grid) *basis {
	b := &basis{am: am, g: g}
	for a := 0; a < am.size(); a++ {
		b.modes = append(b.modes, []term{{a, 1}})
	}
	b.finishEval()
	return b
}

// projectAmbient returns the coefficients ⟨f, e_a⟩ of a field over all ambient modes. In the
// rectangle the eigenfunctions e_a are complete in the space of divergence-free fields tangent
// to the walls, and every gradient is orthogonal to them (⟨∇φ, e⟩ = −⟨φ, ∇·e⟩ + ∮φ e·n = 0),
// so this expansion is the divergence-free (Leray) projection of f, truncated to the grid's
// wave numbers: the "projected to be divergence free" step of §5.2.
func projectAmbient(full *basis, f *Field) []float64 {
	g := full.g
	ug, vg := make([]float64, g.nu()), make([]float64, g.nv())
	f.sample(g, ug, vg)
	p := make([]float64, len(full.active))
	full.project(p, ug, vg)
	return p
}

// Projected is a user field after the divergence-free projection of §5.2.
type Projected struct {
	full *basis
	c    []float64
	tr   trig
}

// ProjectField projects a field onto the divergence-free fields of cfg's domain (§5.2, the
// step before Eq. 5.10).
func ProjectField(cfg Config, f Field) (*Projected, error) {
	c := cfg
	c.Enrich = nil
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := f.validate(&c); err != nil {
		return nil, fmt.Errorf("reduced: ProjectField: %w", err)
	}
	am := &ambient{lx: cfg.Width, ly: cfg.Height, kx: cfg.CellsX / 2, ky: cfg.CellsY / 2}
	full := fullBasis(am, newGrid(am, cfg.CellsX, cfg.CellsY))
	return &Projected{full: full, c: projectAmbient(full, &f), tr: full.newTrig()}, nil
}

// VelocityAt evaluates the projected field at (x, y).
func (p *Projected) VelocityAt(x, y float64) (u, v float64) {
	return p.full.velocity(p.c, x, y, p.tr)
}

// Norm returns the L² norm of the projected field.
func (p *Projected) Norm() float64 { return norm(p.c) }

func norm(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s)
}

// enrich appends the enriched modes R of Eq. 5.10 to the basis and returns how many each
// field contributed (in order: a field adds at most one; a field already in the span of the
// previous ones or of E adds none).
//
// Following §5.2: each field is projected to be divergence-free and scaled to unit length
// (the columns of D); the left singular vectors U of D with nonzero singular values are kept;
// U is deflated against the eigenmodes, U_d = U − EEᵀU (Eq. 5.10), which in ambient
// coefficients zeroes the coefficients of E's modes exactly; the SVD of U_d then gives the
// orthonormal R. All of it happens in ambient coefficient space, where the inner product is
// the Euclidean one because the ambient modes are orthonormal.
func (b *basis) enrich(fields []Field) ([]int, error) {
	full := fullBasis(b.am, b.g)
	na := b.am.size()
	var cols [][]float64
	for i := range fields {
		c := projectAmbient(full, &fields[i])
		nrm := norm(c)
		if nrm == 0 {
			return nil, fmt.Errorf("reduced: Config.Enrich[%d]: the field's divergence-free part is zero", i)
		}
		for a := range c {
			c[a] /= nrm
		}
		cols = append(cols, c)
	}
	u := leftSingular(cols)
	inE := make([]bool, na)
	for _, m := range b.modes {
		inE[m[0].a] = true
	}
	for _, c := range u {
		for a := range c {
			if inE[a] {
				c[a] = 0 // Eq. 5.10: U_d = U − E Eᵀ U
			}
		}
	}
	r := leftSingular(u)
	for _, c := range r {
		var m []term
		for a, x := range c {
			if x != 0 {
				m = append(m, term{a, x})
			}
		}
		b.modes = append(b.modes, m)
	}
	// attribute the new modes to fields for reporting: field i "adds" a mode when it raises
	// the rank of the deflated span of fields 0..i
	added := make([]int, len(fields))
	prev := 0
	for i := range fields {
		var sub [][]float64
		for _, c := range cols[:i+1] {
			x := append([]float64(nil), c...)
			for a := range x {
				if inE[a] {
					x[a] = 0
				}
			}
			sub = append(sub, x)
		}
		rk := len(leftSingular(sub))
		added[i] = rk - prev
		prev = rk
	}
	return added, nil
}

// leftSingular returns the left singular vectors of the matrix with the given columns whose
// singular values exceed rankTolerance·σ_max, ordered by decreasing singular value, each of unit
// length. It diagonalises the small Gram matrix ColsᵀCols with cyclic Jacobi rotations
// (U = D V Σ⁻¹).
func leftSingular(cols [][]float64) [][]float64 {
	n := len(cols)
	if n == 0 {
		return nil
	}
	g := make([]float64, n*n)
	for i := range cols {
		for j := range cols {
			s := 0.0
			for a := range cols[i] {
				s += cols[i][a] * cols[j][a]
			}
			g[i*n+j] = s
		}
	}
	vals, vecs := jacobiEigen(g, n)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(p, q int) bool { return vals[idx[p]] > vals[idx[q]] })
	smax := math.Sqrt(math.Max(vals[idx[0]], 0))
	var out [][]float64
	for _, k := range idx {
		s := math.Sqrt(math.Max(vals[k], 0))
		if s <= rankTolerance*smax || s == 0 {
			continue
		}
		u := make([]float64, len(cols[0]))
		for i := range cols {
			w := vecs[i*n+k] / s
			for a, x := range cols[i] {
				u[a] += w * x
			}
		}
		// re-normalise away the rounding of Σ⁻¹ (the vector's direction is the SVD's)
		nu := norm(u)
		for a := range u {
			u[a] /= nu
		}
		out = append(out, u)
	}
	return out
}

// jacobiEigen diagonalises the symmetric n×n matrix a (overwritten) by cyclic Jacobi
// rotations; it returns the eigenvalues and the eigenvectors as the columns of v.
func jacobiEigen(a []float64, n int) ([]float64, []float64) {
	v := make([]float64, n*n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off := 0.0
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				off += a[i*n+j] * a[i*n+j]
			}
		}
		if off < 1e-30 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p], a[k*n+q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k], a[q*n+k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p], v[k*n+q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = a[i*n+i]
	}
	return vals, v
}
