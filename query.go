package sluice

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// Queries a game asks between steps: is this point in water, how high is the water here.
// They read the fluid and goo particles (not elastic solids) through an index built on the
// first query after a Step or a change of bodies, in O(N log N); each query then costs a few
// hundred kernel evaluations. A game that writes Particles itself between steps should call
// InvalidateQueries, or the queries see the particles as the last Step left them.

// FluidSample is what FluidAt finds at a point: the SPH interpolation of the fluid (and goo)
// particles around it (Monaghan 1992: A(p) = Σ_j m_j/ρ_j A_j W(p − x_j)).
type FluidSample struct {
	// Inside: the fluid's volume fraction at the point is at least 1/2, i.e. the point is
	// within the fluid's surface as the particles define it.
	Inside bool
	// Fraction is Σ_j V_j W(p − x_j) with V_j = m_j/ρ0_j: 1 in the bulk at rest, 1/2 at the
	// free surface, 0 farther than one support radius from any fluid particle.
	Fraction float64
	// Density is the SPH density Σ_j m_j W(p − x_j) (kg/m³): ρ0 inside the bulk, less within a
	// support radius of the surface (walls are not counted).
	Density float64
	// Velocity (m/s) and Pressure (Pa) are the particles' values averaged with the weights
	// V_j W(p − x_j), normalised by Fraction (Shepard), so a point near the surface reads the
	// surface's velocity rather than a fraction of it; zero when Fraction is 0.
	Velocity mgl64.Vec3
	Pressure float64
	// Body is the fluid body whose particle is nearest the point within a support radius,
	// or the zero entity when there is none.
	Body Entity
}

// queryIndex is the fluid particles as the queries see them, with their cell index.
type queryIndex struct {
	built   bool
	x, v    []mgl64.Vec3
	vol, m  []float64
	p       []float64
	body    []int32 // index into ents
	ents    []Entity
	ids     []int32
	idx     physics.PointIndex
	scratch []int32

	// The walls' samples, for Raycast.
	wallX    []mgl64.Vec3
	wallBody []int32 // index into wallEnts
	wallEnts []Entity
	wallIDs  []int32
	wallIdx  physics.PointIndex
	// wallsBuilt: the wall index is current (built on the first Raycast after a change).
	wallsBuilt bool
}

// InvalidateQueries makes the next query rebuild its index from the bodies' particles; Step,
// Remove and the Add functions do this themselves.
func (w *World) InvalidateQueries() { w.query.built = false }

func (w *World) queries() *queryIndex {
	q := &w.query
	if q.built {
		return q
	}
	q.x, q.v, q.vol, q.m, q.p, q.body, q.ents = q.x[:0], q.v[:0], q.vol[:0], q.m[:0], q.p[:0], q.body[:0], q.ents[:0]
	for _, b := range w.Bodies() {
		if b.Body.Phase != components.Fluid || b.Particles.Len() == 0 {
			continue
		}
		bi := int32(len(q.ents))
		q.ents = append(q.ents, b.Entity)
		p := b.Particles
		for i := range p.X {
			q.x = append(q.x, p.X[i])
			q.v = append(q.v, at(p.V, i))
			m := w.sim.Volume0 * b.Material.RestDensity
			if i < len(p.M) {
				m = p.M[i]
			}
			q.m = append(q.m, m)
			q.vol = append(q.vol, m/b.Material.RestDensity)
			pr := 0.0
			if i < len(p.Pressure) {
				pr = p.Pressure[i]
			}
			q.p = append(q.p, pr)
			q.body = append(q.body, bi)
		}
	}
	h := w.sim.Kernel.H
	q.ids = q.ids[:0]
	for i := range q.x {
		q.ids = append(q.ids, int32(i))
	}
	q.idx.Build(q.x, q.ids, h)
	q.wallsBuilt = false
	q.built = true
	return q
}

func at(v []mgl64.Vec3, i int) mgl64.Vec3 {
	if i < len(v) {
		return v[i]
	}
	return mgl64.Vec3{}
}

// FluidAt interpolates the fluid (water and goo bodies) at the point p. It fails only for a
// point that is not finite.
func (w *World) FluidAt(p mgl64.Vec3) (FluidSample, error) {
	if !physics.Finite(p) {
		return FluidSample{}, fmt.Errorf("fluid at: point %v is not finite", p)
	}
	q := w.queries()
	kr := &w.sim.Kernel
	q.scratch = q.idx.Query(p, kr.H, q.x, q.scratch[:0])
	var s FluidSample
	best, bestD := int32(-1), math.Inf(1)
	for _, j := range q.scratch {
		d := q.x[j].Sub(p).Len()
		wj := kr.W(d)
		s.Fraction += q.vol[j] * wj
		s.Density += q.m[j] * wj
		s.Velocity = s.Velocity.Add(q.v[j].Mul(q.vol[j] * wj))
		s.Pressure += q.vol[j] * wj * q.p[j]
		if d < bestD {
			best, bestD = j, d
		}
	}
	if s.Fraction > 0 {
		s.Velocity = s.Velocity.Mul(1 / s.Fraction)
		s.Pressure /= s.Fraction
	}
	if best >= 0 {
		s.Body = q.ents[q.body[best]]
	}
	s.Inside = s.Fraction >= 0.5
	return s, nil
}

// SurfaceHeight returns the height y (m) of the highest fluid surface above or below the
// point (x, z): where the volume fraction of FluidAt falls to 1/2 going up through the
// topmost fluid in that vertical line (found to 10⁻⁴ of the particle spacing by bisection).
// ok is false when no fluid particle is within a support radius of the line. Boats, wading
// characters and splash effects use it.
func (w *World) SurfaceHeight(x, z float64) (y float64, ok bool, err error) {
	if !finite(x) || !finite(z) {
		return 0, false, fmt.Errorf("surface height: point (%g, %g) is not finite", x, z)
	}
	q := w.queries()
	kr := &w.sim.Kernel
	h := kr.H
	// The particles within h of the vertical line, sorted by height, so that the fraction
	// at a height sums only those within h of it.
	q.scratch = q.idx.QueryColumn(x, z, h, q.x, q.scratch[:0])
	if len(q.scratch) == 0 {
		return 0, false, nil
	}
	slices.SortFunc(q.scratch, func(a, b int32) int {
		if c := cmp.Compare(q.x[a][1], q.x[b][1]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	top := q.x[q.scratch[len(q.scratch)-1]][1]
	frac := func(y float64) float64 {
		lo, _ := slices.BinarySearchFunc(q.scratch, y-h, func(j int32, t float64) int { return cmp.Compare(q.x[j][1], t) })
		f := 0.0
		for _, j := range q.scratch[lo:] {
			p := q.x[j]
			if p[1] > y+h {
				break
			}
			dx, dy, dz := p[0]-x, p[1]-y, p[2]-z
			f += q.vol[j] * kr.W(math.Sqrt(dx*dx+dy*dy+dz*dz))
		}
		return f
	}
	// Walk down from above the topmost particle (fraction 0 there) in quarter spacings until
	// the fraction reaches 1/2, then bisect the bracket.
	sp := w.sim.Settings.Spacing()
	hi := top + h
	lo := hi
	for {
		lo -= sp / 4
		if frac(lo) >= 0.5 {
			break
		}
		if lo < top-h {
			// A thin sheet or lone droplets: the fraction never reaches 1/2 here.
			return 0, false, nil
		}
	}
	hi = lo + sp/4
	for hi-lo > 1e-4*sp {
		mid := 0.5 * (lo + hi)
		if frac(mid) >= 0.5 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi), true, nil
}
