// Package rigid simulates rigid bodies that share the particle world with SPH fluids: their
// mass properties, their boundary samples (N. Akinci, M. Ihmsen, G. Akinci, B. Solenthaler,
// M. Teschner, "Versatile Rigid-Fluid Coupling for Incompressible SPH Fluids", ACM TOG 31(4),
// 2012), the fluid's pressure forces on them (Akinci Eq. 10, the reaction of the boundary term
// of IISPH's pressure force), their contacts with each other and with static walls, and their
// integration.
//
// Two-way coupling follows Akinci 2012: the body's surface is sampled with boundary particles
// stored in body space and moved with the body every substep; the fluid sees them (with their
// velocities) in the pressure solve, and the pressure force each fluid particle feels from a
// sample acts back on the body, summed into a force and a torque about the centre of mass.
//
// Contacts are particle-based: every sample of one body is tested against the signed distance
// of the other (analytic for boxes, spheres and capsules, a grid for meshes), and static walls
// take part through their own boundary samples, so any geometry the fluid sees is also solid to
// the bodies. The contacts are resolved by a sequential-impulse solver with warm starting,
// Coulomb friction, restitution and speculative margins (see Solver).
package rigid

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// ShapeKind is the geometry of a rigid body.
type ShapeKind uint8

const (
	// Box is centred at the body origin with half extents along the body axes.
	Box ShapeKind = iota
	// Sphere is centred at the body origin.
	Sphere
	// Capsule is a cylinder of the given radius along the body y axis between the cap centres
	// at ±HalfLength, closed by two hemispheres.
	Capsule
	// Mesh is a closed triangle mesh in body coordinates.
	Mesh
)

// String returns the shape's scene name.
func (k ShapeKind) String() string {
	switch k {
	case Box:
		return "box"
	case Sphere:
		return "sphere"
	case Capsule:
		return "capsule"
	case Mesh:
		return "mesh"
	}
	return fmt.Sprintf("shape(%d)", uint8(k))
}

// Shape is a body's geometry in its own frame.
type Shape struct {
	Kind        ShapeKind
	HalfExtents Vec3    // box
	Radius      float64 // sphere, capsule
	HalfLength  float64 // capsule: half the distance between the cap centres
	V           []Vec3  // mesh vertices
	Tris        [][3]int32

	grid *distanceGrid // a mesh's signed distance, built by Prepare
}

// MassProperties are a body's mass, centre of mass (in the shape's frame) and inertia tensor
// about the centre of mass (in the shape's axes).
type MassProperties struct {
	Mass    float64
	Volume  float64
	Center  Vec3
	Inertia Mat3
}

// Properties returns the shape's volume, centre of mass and inertia for a uniform density
// (kg/m³). Boxes, spheres and capsules are in closed form; meshes sum signed tetrahedra from
// the origin over the triangles (the divergence theorem), so a closed, consistently oriented
// mesh gives its exact polyhedral moments. It fails for a mesh of zero or negative volume
// (open, or wound inward).
func (s *Shape) Properties(density float64) (MassProperties, error) {
	var p MassProperties
	switch s.Kind {
	case Box:
		h := s.HalfExtents
		p.Volume = 8 * h[0] * h[1] * h[2]
		m := density * p.Volume
		// I = m/12·(b² + c²) for full sides 2h: m/3·(h_b² + h_c²)
		p.Inertia = Mat3{m / 3 * (h[1]*h[1] + h[2]*h[2]), 0, 0, 0, m / 3 * (h[0]*h[0] + h[2]*h[2]), 0, 0, 0, m / 3 * (h[0]*h[0] + h[1]*h[1])}
	case Sphere:
		r := s.Radius
		p.Volume = 4.0 / 3 * math.Pi * r * r * r
		i := 0.4 * density * p.Volume * r * r
		p.Inertia = Mat3{i, 0, 0, 0, i, 0, 0, 0, i}
	case Capsule:
		r, h := s.Radius, s.HalfLength
		vc := math.Pi * r * r * 2 * h
		vh := 2.0 / 3 * math.Pi * r * r * r // one hemisphere
		p.Volume = vc + 2*vh
		mc, mh := density*vc, density*vh
		// Axis: the cylinder's m r²/2 plus both hemispheres' 2/5 m r². Across: the cylinder's
		// m(r²/4 + h²/3) plus each hemisphere's 2/5 m r² about its flat face's centre, moved
		// from its own centre of mass (3r/8 from that face) to the body centre (h + 3r/8 away):
		// m(2r²/5 + h² + 3hr/4).
		ia := mc*r*r/2 + 2*mh*0.4*r*r
		ix := mc*(r*r/4+h*h/3) + 2*mh*(0.4*r*r+h*h+0.75*h*r)
		p.Inertia = Mat3{ix, 0, 0, 0, ia, 0, 0, 0, ix}
	case Mesh:
		var vol float64
		var c Vec3
		var cov Mat3 // ∫ x xᵀ dV over the mesh, about the origin
		for _, t := range s.Tris {
			a, b, d := s.V[t[0]], s.V[t[1]], s.V[t[2]]
			v := dot(a, cross(b, d)) / 6 // signed volume of the tetrahedron (0, a, b, d)
			vol += v
			sum := add(add(a, b), d)
			c = add(c, scale(sum, v/4))
			// ∫_tet x xᵀ = V/20 (Σ p_k p_kᵀ + (Σ p_k)(Σ p_k)ᵀ) with p_0 = 0
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					cov[3*i+j] += v / 20 * (a[i]*a[j] + b[i]*b[j] + d[i]*d[j] + sum[i]*sum[j])
				}
			}
		}
		if !(vol > 0) {
			return p, fmt.Errorf("mesh encloses volume %g m³: it must be closed with its triangles wound counter-clockwise seen from outside", vol)
		}
		c = scale(c, 1/vol)
		p.Volume, p.Center = vol, c
		// move the second moment to the centre of mass, then I = tr(C)·1 − C
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				cov[3*i+j] -= vol * c[i] * c[j]
			}
		}
		tr := cov[0] + cov[4] + cov[8]
		for i := 0; i < 9; i++ {
			p.Inertia[i] = -density * cov[i]
		}
		for i := 0; i < 3; i++ {
			p.Inertia[4*i] += density * tr
		}
	default:
		return p, fmt.Errorf("unknown shape %v", s.Kind)
	}
	p.Mass = density * p.Volume
	return p, nil
}

// Bounds returns the half extents of the shape's axis-aligned box in its own frame about its
// origin (for meshes: about the origin of its vertices).
func (s *Shape) Bounds() (lo, hi Vec3) {
	switch s.Kind {
	case Box:
		return scale(s.HalfExtents, -1), s.HalfExtents
	case Sphere:
		r := s.Radius
		return Vec3{-r, -r, -r}, Vec3{r, r, r}
	case Capsule:
		r := s.Radius
		return Vec3{-r, -r - s.HalfLength, -r}, Vec3{r, r + s.HalfLength, r}
	}
	lo = Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, v := range s.V {
		for d := 0; d < 3; d++ {
			lo[d], hi[d] = min(lo[d], v[d]), max(hi[d], v[d])
		}
	}
	return lo, hi
}

// Translate moves a mesh's vertices by −c (so its centre of mass becomes the origin); other
// shapes are centred already.
func (s *Shape) Translate(c Vec3) {
	for i := range s.V {
		s.V[i] = sub(s.V[i], c)
	}
}

// Validate checks the dimensions against the particle spacing: every part of a body must be
// thicker than one spacing, or its samples (inset by half a spacing) would meet or cross.
func (s *Shape) Validate(spacing float64) error {
	switch s.Kind {
	case Box:
		for d := 0; d < 3; d++ {
			if !(2*s.HalfExtents[d] > spacing) {
				return fmt.Errorf("size[%d] = %g m must exceed the particle spacing %g m", d, 2*s.HalfExtents[d], spacing)
			}
		}
	case Sphere, Capsule:
		if !(2*s.Radius > spacing) {
			return fmt.Errorf("radius %g m must exceed half the particle spacing %g m", s.Radius, spacing)
		}
		if s.Kind == Capsule && !(s.HalfLength >= 0) {
			return fmt.Errorf("length %g m must not be negative", 2*s.HalfLength)
		}
	case Mesh:
		if len(s.Tris) == 0 {
			return fmt.Errorf("mesh has no triangles")
		}
		if e, ok := openEdge(s.Tris); !ok {
			return fmt.Errorf("mesh is not closed (edge %d-%d is used by %d triangles, a closed mesh uses each edge twice): it cannot be a volume", e.a, e.b, e.n)
		}
	default:
		return fmt.Errorf("unknown shape %v", s.Kind)
	}
	return nil
}

type edgeUse struct {
	a, b int32
	n    int
}

// openEdge finds an edge not shared by exactly two triangles, in a deterministic order.
func openEdge(tris [][3]int32) (edgeUse, bool) {
	edges := make([][2]int32, 0, 3*len(tris))
	for _, t := range tris {
		for e := 0; e < 3; e++ {
			a, b := t[e], t[(e+1)%3]
			if a > b {
				a, b = b, a
			}
			edges = append(edges, [2]int32{a, b})
		}
	}
	slices.SortFunc(edges, func(x, y [2]int32) int {
		if c := cmp.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return cmp.Compare(x[1], y[1])
	})
	for i := 0; i < len(edges); {
		j := i
		for j < len(edges) && edges[j] == edges[i] {
			j++
		}
		if j-i != 2 {
			return edgeUse{edges[i][0], edges[i][1], j - i}, false
		}
		i = j
	}
	return edgeUse{}, true
}
