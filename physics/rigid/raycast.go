package rigid

import "math"

// Raycast intersects the ray o + t·d (body frame, d of unit length) with the shape's surface
// and returns the smallest t in [0, tmax] where the ray enters the shape, with the outward
// normal there. A ray that starts inside the shape does not hit it. Exact for boxes (slabs),
// spheres and capsules (quadratics), and for meshes triangle by triangle (Möller and
// Trumbore 1997, both faces).
func (s *Shape) Raycast(o, d Vec3, tmax float64) (t float64, n Vec3, hit bool) {
	switch s.Kind {
	case Box:
		return rayBox(o, d, s.HalfExtents, tmax)
	case Sphere:
		return raySphere(o, d, Vec3{}, s.Radius, tmax)
	case Capsule:
		return rayCapsule(o, d, s.HalfLength, s.Radius, tmax)
	case Mesh:
		return s.rayMesh(o, d, tmax)
	}
	return 0, Vec3{}, false
}

// rayBox is the slab test: the ray enters the box at the largest of the per-axis entry
// parameters, if that is before the smallest exit.
func rayBox(o, d, he Vec3, tmax float64) (float64, Vec3, bool) {
	tin, tout := math.Inf(-1), math.Inf(1)
	axis, sign := -1, 0.0
	for k := 0; k < 3; k++ {
		if d[k] == 0 {
			if o[k] < -he[k] || o[k] > he[k] {
				return 0, Vec3{}, false
			}
			continue
		}
		t1, t2 := (-he[k]-o[k])/d[k], (he[k]-o[k])/d[k]
		s := -1.0 // entering through the −k face
		if t1 > t2 {
			t1, t2, s = t2, t1, 1
		}
		if t1 > tin {
			tin, axis, sign = t1, k, s
		}
		tout = min(tout, t2)
	}
	if axis < 0 || tin < 0 || tin > tout || tin > tmax {
		return 0, Vec3{}, false
	}
	var n Vec3
	n[axis] = sign
	return tin, n, true
}

// raySphere returns where the ray enters the sphere of centre c and radius r.
func raySphere(o, d, c Vec3, r, tmax float64) (float64, Vec3, bool) {
	oc := sub(o, c)
	b := dot(oc, d)
	cc := dot(oc, oc) - r*r
	if cc < 0 { // starts inside
		return 0, Vec3{}, false
	}
	disc := b*b - cc
	if disc < 0 || b > 0 {
		return 0, Vec3{}, false
	}
	t := -b - math.Sqrt(disc)
	if t < 0 || t > tmax {
		return 0, Vec3{}, false
	}
	p := add(o, scale(d, t))
	return t, scale(sub(p, c), 1/r), true
}

// rayCapsule intersects the capsule of the segment y ∈ [−hl, hl] on the body y axis with
// radius r: the open cylinder's side, then the two caps, the nearest entry.
func rayCapsule(o, d Vec3, hl, r, tmax float64) (float64, Vec3, bool) {
	// A ray starting inside does not hit.
	if y := math.Max(-hl, math.Min(hl, o[1])); o[0]*o[0]+(o[1]-y)*(o[1]-y)+o[2]*o[2] < r*r {
		return 0, Vec3{}, false
	}
	best, bn, hit := math.Inf(1), Vec3{}, false
	a := d[0]*d[0] + d[2]*d[2]
	if a > 0 {
		b := o[0]*d[0] + o[2]*d[2]
		c := o[0]*o[0] + o[2]*o[2] - r*r
		if disc := b*b - a*c; disc >= 0 {
			t := (-b - math.Sqrt(disc)) / a
			if y := o[1] + t*d[1]; t >= 0 && t <= tmax && y >= -hl && y <= hl {
				best, bn, hit = t, Vec3{(o[0] + t*d[0]) / r, 0, (o[2] + t*d[2]) / r}, true
			}
		}
	}
	for _, cy := range []float64{-hl, hl} {
		if t, n, ok := raySphere(o, d, Vec3{0, cy, 0}, r, tmax); ok && t < best {
			// only the cap's outer half is surface; an entry on the inner half lies inside
			// the cylinder, which the side test found first
			if p := o[1] + t*d[1]; (cy > 0 && p >= cy) || (cy < 0 && p <= cy) {
				best, bn, hit = t, n, true
			}
		}
	}
	return best, bn, hit
}

// rayMesh tests every triangle and keeps the nearest hit whose geometric normal faces the ray
// (the entry into a closed mesh), unless the ray starts inside.
func (s *Shape) rayMesh(o, d Vec3, tmax float64) (float64, Vec3, bool) {
	best, bn, hit := math.Inf(1), Vec3{}, false
	crossings := 0
	for _, tri := range s.Tris {
		a, b, c := s.V[tri[0]], s.V[tri[1]], s.V[tri[2]]
		e1, e2 := sub(b, a), sub(c, a)
		p := cross(d, e2)
		det := dot(e1, p)
		if det == 0 {
			continue
		}
		inv := 1 / det
		tv := sub(o, a)
		u := dot(tv, p) * inv
		if u < 0 || u > 1 {
			continue
		}
		q := cross(tv, e1)
		v := dot(d, q) * inv
		if v < 0 || u+v > 1 {
			continue
		}
		t := dot(e2, q) * inv
		if t < 0 {
			continue
		}
		crossings++
		if t > tmax || t >= best {
			continue
		}
		n := cross(e1, e2)
		if dot(n, d) > 0 {
			n = scale(n, -1)
		}
		best, bn, hit = t, scale(n, 1/norm(n)), true
	}
	if crossings%2 == 1 { // an odd number of crossings: the ray starts inside
		return 0, Vec3{}, false
	}
	return best, bn, hit
}
