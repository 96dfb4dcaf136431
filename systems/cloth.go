package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/pf"
)

// ClothBody is the mesh of one cloth body, keyed by the body's ID and indexed by the
// particles' indices in the body (not their packed order); each substep maps it to the packed
// indices and hands the Projective Fluids solver its springs (physics/pf, springs.go).
type ClothBody struct {
	ID     uint32
	Rest   []physics.Vec3 // rest positions (m): the rest lengths, and where pinned vertices stay
	Tris   [][3]int32     // triangles (vertex indices)
	Pinned []int32        // pinned vertices, ascending

	// Stretch and Bend are the distance constraints: the mesh edges, and the pairs of
	// vertices opposite an edge shared by two triangles, each with its rest length.
	Stretch, Bend []ClothEdge

	slot int
	idx  []int32 // particle index in the body → packed index
}

// ClothEdge is one distance constraint of a cloth body between vertices I and J with rest
// length L (m).
type ClothEdge struct {
	I, J int32
	L    float64
}

// degenerateArea: a triangle whose area is below this fraction of its longest edge squared
// is degenerate (its vertices are collinear to within about 10⁻⁶ of the edge).
const degenerateArea = 1e-6

// BuildCloth checks a cloth mesh and derives its constraints: every vertex index of a triangle
// in [0, n), no degenerate triangle, no edge shared by more than two triangles, every vertex in
// a triangle, pinned indices in [0, n) without repeats. Errors name the body, the field and
// the allowed range.
func BuildCloth(name string, rest []physics.Vec3, tris [][3]int32, pinned []int32) (*ClothBody, error) {
	n := len(rest)
	path := fmt.Sprintf("bodies[%q]", name)
	if len(tris) == 0 {
		return nil, fmt.Errorf("%s.triangles: a cloth body needs at least one triangle", path)
	}
	used := make([]bool, n)
	type edgeKey struct{ a, b int32 }
	type edgeUse struct {
		count    int
		opposite [2]int32
	}
	edges := map[edgeKey]*edgeUse{}
	var order []edgeKey
	for k, t := range tris {
		for _, v := range t {
			if v < 0 || int(v) >= n {
				return nil, fmt.Errorf("%s.triangles[%d]: vertex %d is outside [0, %d)", path, k, v, n)
			}
		}
		a, b, c := rest[t[0]], rest[t[1]], rest[t[2]]
		e1, e2 := b.Sub(a), c.Sub(a)
		area := 0.5 * e1.Cross(e2).Len()
		lmax := max(physics.Dist2(a, b), physics.Dist2(b, c), physics.Dist2(c, a))
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || !(area > degenerateArea*lmax) {
			return nil, fmt.Errorf("%s.triangles[%d]: vertices %v span an area of %g m², a degenerate triangle (allowed: area above %g times the longest edge squared)", path, k, t, area, degenerateArea)
		}
		for e := 0; e < 3; e++ {
			i, j, o := t[e], t[(e+1)%3], t[(e+2)%3]
			used[i] = true
			key := edgeKey{min(i, j), max(i, j)}
			u := edges[key]
			if u == nil {
				u = &edgeUse{}
				edges[key] = u
				order = append(order, key)
			}
			if u.count == 2 {
				return nil, fmt.Errorf("%s.triangles[%d]: edge (%d, %d) is shared by more than two triangles (allowed: a manifold sheet, at most two per edge)", path, k, key.a, key.b)
			}
			u.opposite[u.count] = o
			u.count++
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("%s: vertex %d is in no triangle (every cloth vertex must be)", path, i)
		}
	}
	pins := slices.Clone(pinned)
	slices.Sort(pins)
	for k, p := range pins {
		if p < 0 || int(p) >= n {
			return nil, fmt.Errorf("%s.pinned: vertex %d is outside [0, %d)", path, p, n)
		}
		if k > 0 && pins[k-1] == p {
			return nil, fmt.Errorf("%s.pinned: vertex %d is listed twice", path, p)
		}
	}
	cb := &ClothBody{Rest: slices.Clone(rest), Tris: slices.Clone(tris), Pinned: pins}
	for _, key := range order {
		u := edges[key]
		cb.Stretch = append(cb.Stretch, ClothEdge{key.a, key.b, math.Sqrt(physics.Dist2(rest[key.a], rest[key.b]))})
		if u.count == 2 && u.opposite[0] != u.opposite[1] {
			a, b := u.opposite[0], u.opposite[1]
			cb.Bend = append(cb.Bend, ClothEdge{a, b, math.Sqrt(physics.Dist2(rest[a], rest[b]))})
		}
	}
	return cb, nil
}

// LumpedMasses returns each vertex's mass: the areal density times a third of the area of its
// triangles.
func (c *ClothBody) LumpedMasses(sigma float64) []float64 {
	m := make([]float64, len(c.Rest))
	for _, t := range c.Tris {
		a, b, d := c.Rest[t[0]], c.Rest[t[1]], c.Rest[t[2]]
		area := 0.5 * b.Sub(a).Cross(d.Sub(a)).Len()
		for _, v := range t {
			m[v] += sigma * area / 3
		}
	}
	return m
}

// InitCloth sets the mesh of the cloth body with the given ID.
func (s *Sim) InitCloth(id uint32, c *ClothBody) {
	c.ID = id
	s.RemoveCloth(id)
	s.Cloth = append(s.Cloth, c)
	slices.SortFunc(s.Cloth, func(a, b *ClothBody) int { return int(a.ID) - int(b.ID) })
}

// RemoveCloth drops the mesh of the body with the given ID (if any).
func (s *Sim) RemoveCloth(id uint32) {
	s.Cloth = slices.DeleteFunc(s.Cloth, func(c *ClothBody) bool { return c.ID == id })
}

// ClothByID returns the mesh of the cloth body with the given ID, or nil.
func (s *Sim) ClothByID(id uint32) *ClothBody {
	i, ok := slices.BinarySearchFunc(s.Cloth, id, func(c *ClothBody, id uint32) int { return int(c.ID) - int(id) })
	if !ok {
		return nil
	}
	return s.Cloth[i]
}

// gatherCloth matches the meshes to the cloth bodies: it drops the meshes of bodies that are
// gone and reports a cloth body without a mesh, one whose particle count no longer matches its
// mesh, and cloth in a world whose pressure solver is not Projective Fluids.
func (s *Sim) gatherCloth() error {
	keep := s.Cloth[:0:0]
	for slot, b := range s.bodies {
		if b.body.Phase != components.Cloth {
			continue
		}
		if s.PF == nil {
			return fmt.Errorf("bodies[%q]: a cloth body needs solver.pressureSolver \"pf\" (is %q; allowed: pf): its springs are constraints of the Projective Fluids solve", b.body.Name, s.Settings.PressureSolver)
		}
		c := s.ClothByID(b.body.ID)
		if c == nil {
			return fmt.Errorf("bodies[%q]: cloth body without a mesh (add it with World.AddCloth)", b.body.Name)
		}
		if len(c.Rest) != b.p.Len() {
			return fmt.Errorf("bodies[%q]: %d particles for a cloth mesh of %d vertices (cloth particles are not added or removed)", b.body.Name, b.p.Len(), len(c.Rest))
		}
		c.slot = slot
		c.idx = slices.Grow(c.idx[:0], len(c.Rest))[:len(c.Rest)]
		keep = append(keep, c)
	}
	s.Cloth = keep
	return nil
}

// indexCloth maps every cloth body's vertex indices to the packed order of this substep.
func (s *Sim) indexCloth() {
	for k := range s.owner {
		slot := s.owner[k]
		if s.bodies[slot].body.Phase != components.Cloth {
			continue
		}
		if c := s.ClothByID(s.bodies[slot].body.ID); c != nil {
			c.idx[s.origin[k]] = int32(k)
		}
	}
}

// prepareCloth hands the Projective Fluids solver the cloth bodies' springs and pinned
// vertices in this substep's packed order, with the weights of the bodies' materials (so an
// edit between steps applies at the next substep).
func (s *Sim) prepareCloth() error {
	if s.PF == nil {
		return nil
	}
	if len(s.Cloth) == 0 {
		s.PF.SetSprings(nil)
		return nil
	}
	s.indexCloth()
	n := s.Fluid.Len()
	s.clothEdges = s.clothEdges[:0]
	s.clothFixed = slices.Grow(s.clothFixed[:0], n)[:n]
	clear(s.clothFixed)
	for _, c := range s.Cloth {
		m := &s.bodies[c.slot].mat.Cloth
		for _, e := range c.Stretch {
			s.clothEdges = append(s.clothEdges, pf.Edge{I: c.idx[e.I], J: c.idx[e.J], L: e.L, W: m.StretchStiffness})
		}
		for _, e := range c.Bend {
			s.clothEdges = append(s.clothEdges, pf.Edge{I: c.idx[e.I], J: c.idx[e.J], L: e.L, W: m.BendStiffness})
		}
		for _, p := range c.Pinned {
			s.clothFixed[c.idx[p]] = true
		}
	}
	// The cloth vertices of this packed order, as the Density stage marked them (markNotFluid).
	sheet := s.Fluid.NotFluid
	if len(sheet) != n {
		s.markNotFluid()
		sheet = s.Fluid.NotFluid
	}
	if err := s.clothSprings.Build(n, s.clothEdges, s.clothFixed, sheet); err != nil {
		return fmt.Errorf("cloth: %w", err)
	}
	s.PF.SetSprings(&s.clothSprings)
	return nil
}

// holdCloth puts the pinned cloth vertices back at their rest positions with zero velocity
// after integration (the solve leaves them there up to rounding: they are not unknowns).
func (s *Sim) holdCloth() {
	f := &s.Fluid
	for _, c := range s.Cloth {
		for _, p := range c.Pinned {
			k := c.idx[p]
			f.X[k], f.V[k] = c.Rest[p], physics.Vec3{}
		}
	}
}

// markNotFluid sets Fluid.NotFluid to the cloth vertices of this substep's packed order, or nil
// without cloth: a cloth vertex takes part in no density constraint (physics/pf), so the
// densities the Density stage measures, which the statistics' measured compression and the
// viscosity read, must not count it either (with it counted, a sheet under water read as
// 1.91 % of compression where the solver's own estimate was 0.0000 %).
func (s *Sim) markNotFluid() {
	if len(s.Cloth) == 0 {
		s.Fluid.NotFluid = nil
		return
	}
	n := s.Fluid.Len()
	s.notFluid = slices.Grow(s.notFluid[:0], n)[:n]
	for k := range s.notFluid {
		s.notFluid[k] = s.bodies[s.owner[k]].body.Phase == components.Cloth
	}
	s.Fluid.NotFluid = s.notFluid
}
