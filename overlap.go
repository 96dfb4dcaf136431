package sluice

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// OverlapShape is the region an Overlap query or a sensor tests: a sphere of Radius or a box of
// HalfExtents turned by Orientation (the zero quaternion is the identity), centred at Center.
type OverlapShape struct {
	Kind        string // "sphere" or "box"
	Center      mgl64.Vec3
	Radius      float64    // sphere (m)
	HalfExtents mgl64.Vec3 // box (m)
	Orientation mgl64.Quat // box
}

// OverlapHit is one body an Overlap found in its region.
type OverlapHit struct {
	Body  Entity
	Phase components.Phase
	Rigid bool
	// Particles counts the body's particles (water, goo, elastic, elastoplastic) or boundary
	// samples (walls) inside the region; 0 for rigid bodies.
	Particles int
}

// check validates the shape; op names the caller in the error.
func (s *OverlapShape) check(op string) error {
	if !physics.Finite(s.Center) {
		return fmt.Errorf("%s: center %v is not finite", op, s.Center)
	}
	switch s.Kind {
	case "sphere":
		if !(s.Radius > 0) || math.IsInf(s.Radius, 0) {
			return fmt.Errorf("%s: sphere radius %g m must be finite and > 0", op, s.Radius)
		}
	case "box":
		if !physics.Finite(s.HalfExtents) || !(s.HalfExtents[0] > 0 && s.HalfExtents[1] > 0 && s.HalfExtents[2] > 0) {
			return fmt.Errorf("%s: box half extents %v m must be finite and > 0", op, s.HalfExtents)
		}
		q := s.Orientation
		if q == (mgl64.Quat{}) {
			s.Orientation = mgl64.QuatIdent()
		} else if l := q.Len(); !(math.Abs(l-1) < 1e-6) {
			return fmt.Errorf("%s: box orientation %v is not a unit quaternion (|q| = %g)", op, q, l)
		}
	default:
		return fmt.Errorf("%s: shape kind %q is not sphere or box", op, s.Kind)
	}
	return nil
}

// reach is the radius of the shape's bounding sphere.
func (s *OverlapShape) reach() float64 {
	if s.Kind == "sphere" {
		return s.Radius
	}
	return s.HalfExtents.Len()
}

// contains reports whether the world point p lies in the shape.
func (s *OverlapShape) contains(p mgl64.Vec3) bool {
	d := p.Sub(s.Center)
	if s.Kind == "sphere" {
		return d.Dot(d) <= s.Radius*s.Radius
	}
	l := s.Orientation.Conjugate().Rotate(d)
	return math.Abs(l[0]) <= s.HalfExtents[0] && math.Abs(l[1]) <= s.HalfExtents[1] && math.Abs(l[2]) <= s.HalfExtents[2]
}

// boxDistance is the distance from the point l (in the box's frame) to the box of half
// extents he (0 inside).
func boxDistance(l, he mgl64.Vec3) float64 {
	var s float64
	for k := 0; k < 3; k++ {
		if e := math.Abs(l[k]) - he[k]; e > 0 {
			s += e * e
		}
	}
	return math.Sqrt(s)
}

// Overlap lists the bodies that reach into the region, in body ID order:
//   - rigid bodies, exactly for a sphere region (the body's signed distance at its centre is
//     below its radius) and for a box region against box (separating axes), sphere and
//     capsule bodies (the distance from the box to the centre or the axis, minimised by
//     golden-section search, a convex function along the axis: to 1e-9 of the length);
//     against a mesh body a box region counts when one of the body's surface samples lies in
//     it or its centre lies in the mesh, so it is exact to the sampling (one particle spacing);
//   - water and goo bodies with the number of their particles in the region, through the
//     queries' index (a few hundred particle tests for a region of a support radius);
//   - elastic and elastoplastic bodies and walls with the number of their particles or
//     boundary samples in the region (a scan of those bodies' particles).
//
// The filter skips kinds of bodies, ignored bodies and, with a Mask, the rigid bodies on no
// layer of it, as for Raycast.
func (w *World) Overlap(s OverlapShape, f RayFilter) ([]OverlapHit, error) {
	if err := s.check("overlap"); err != nil {
		return nil, err
	}
	return w.overlap(&s, f, nil), nil
}

// overlap appends the hits of the checked shape s to out.
func (w *World) overlap(s *OverlapShape, f RayFilter, out []OverlapHit) []OverlapHit {
	q := w.queries()
	fluidCount := make([]int, len(q.ents))
	if !f.SkipFluid && len(q.x) > 0 {
		q.scratch = q.idx.Query(s.Center, s.reach(), q.x, q.scratch[:0])
		for _, k := range q.scratch {
			if s.contains(q.x[k]) {
				fluidCount[q.body[k]]++
			}
		}
	}
	reach := s.reach()
	for _, b := range w.Bodies() {
		if slices.Contains(f.Ignore, b.Entity) {
			continue
		}
		if rb := w.RigidBody(b.Entity); rb != nil {
			if f.SkipRigid || (f.Mask != 0 && rb.State.Layers&f.Mask == 0) {
				continue
			}
			if st := &rb.State; st.X.Sub(s.Center).Len() <= st.Reach+reach && s.touches(st) {
				out = append(out, OverlapHit{Body: b.Entity, Phase: b.Body.Phase, Rigid: true})
			}
			continue
		}
		n := 0
		switch b.Body.Phase {
		case components.Fluid:
			if k := slices.Index(q.ents, b.Entity); k >= 0 {
				n = fluidCount[k]
			}
		case components.Boundary:
			if f.SkipWalls {
				continue
			}
			n = countIn(s, b.Particles.X)
		default:
			n = countIn(s, b.Particles.X)
		}
		if n > 0 {
			out = append(out, OverlapHit{Body: b.Entity, Phase: b.Body.Phase, Particles: n})
		}
	}
	return out
}

// countIn counts the points of x in s.
func countIn(s *OverlapShape, x []mgl64.Vec3) int {
	n := 0
	for _, p := range x {
		if s.contains(p) {
			n++
		}
	}
	return n
}

// touches reports whether the rigid body b reaches into the shape.
func (s *OverlapShape) touches(b *rigid.Body) bool {
	r := b.Q.Matrix()
	toBody := func(p mgl64.Vec3) mgl64.Vec3 { return r.MulTVec(p.Sub(b.X)) }
	if s.Kind == "sphere" {
		d, _ := b.Shape.Distance(toBody(s.Center))
		return d <= s.Radius
	}
	// the box region's frame: world = Center + Rq l
	inv := s.Orientation.Conjugate()
	toBox := func(p mgl64.Vec3) mgl64.Vec3 { return inv.Rotate(p.Sub(s.Center)) }
	sh := b.Shape
	switch sh.Kind {
	case rigid.Sphere:
		return boxDistance(toBox(b.X), s.HalfExtents) <= sh.Radius
	case rigid.Capsule:
		// the cap centres at ±HalfLength along the body's y axis
		axis := r.MulVec(mgl64.Vec3{0, sh.HalfLength, 0})
		a, c := toBox(b.X.Sub(axis)), toBox(b.X.Add(axis))
		dist := func(t float64) float64 { return boxDistance(a.Add(c.Sub(a).Mul(t)), s.HalfExtents) }
		return goldenMin(dist) <= sh.Radius
	case rigid.Box:
		return boxesOverlap(s.Center, s.Orientation, s.HalfExtents, b.X, r, sh.HalfExtents)
	}
	// a mesh: its surface samples in the box, or the box's centre in the mesh
	for _, p := range b.Samples[:b.Outer] {
		if s.contains(b.X.Add(r.MulVec(p))) {
			return true
		}
	}
	d, _ := sh.Distance(toBody(s.Center))
	return d <= 0
}

// goldenMin minimises the convex function f over [0, 1] by golden-section search to 1e-9.
func goldenMin(f func(float64) float64) float64 {
	const g = 0.6180339887498949
	lo, hi := 0.0, 1.0
	x1, x2 := hi-g*(hi-lo), lo+g*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for hi-lo > 1e-9 {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - g*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + g*(hi-lo)
			f2 = f(x2)
		}
	}
	return min(f(lo), f(hi), f1, f2)
}

// boxesOverlap tests two oriented boxes with the separating axis theorem: the 3 + 3 face
// normals and the 9 edge cross products (Gottschalk, Lin & Manocha 1996, "OBBTree").
func boxesOverlap(ca mgl64.Vec3, qa mgl64.Quat, ha mgl64.Vec3, cb mgl64.Vec3, rb rigid.Mat3, hb mgl64.Vec3) bool {
	var ua, ub [3]mgl64.Vec3
	for k := 0; k < 3; k++ {
		var e mgl64.Vec3
		e[k] = 1
		ua[k] = qa.Rotate(e)
		ub[k] = rb.MulVec(e)
	}
	d := cb.Sub(ca)
	sep := func(n mgl64.Vec3) bool {
		l := n.Len()
		if l < 1e-12 {
			return false // parallel edges: a face axis decides
		}
		ra := ha[0]*math.Abs(ua[0].Dot(n)) + ha[1]*math.Abs(ua[1].Dot(n)) + ha[2]*math.Abs(ua[2].Dot(n))
		rB := hb[0]*math.Abs(ub[0].Dot(n)) + hb[1]*math.Abs(ub[1].Dot(n)) + hb[2]*math.Abs(ub[2].Dot(n))
		return math.Abs(d.Dot(n)) > ra+rB
	}
	for k := 0; k < 3; k++ {
		if sep(ua[k]) || sep(ub[k]) {
			return false
		}
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if sep(ua[i].Cross(ub[j])) {
				return false
			}
		}
	}
	return true
}
