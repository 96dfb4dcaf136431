package sluice

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// RayFilter chooses what a Raycast may hit; the zero value hits everything.
type RayFilter struct {
	SkipRigid bool     // rigid bodies (their exact shapes)
	SkipWalls bool     // walls and tanks (their boundary samples)
	SkipFluid bool     // the surface of water and goo
	Ignore    []Entity // bodies the ray passes through (the player's own crate)
	// Mask, when not zero, keeps the rigid bodies on a layer of Mask (RigidBody
	// CollisionLayers) and skips the others.
	Mask uint32
}

// RayHit is where a ray first meets something.
type RayHit struct {
	Point    mgl64.Vec3
	Normal   mgl64.Vec3 // outward unit normal of what was hit, facing the ray
	Distance float64    // from the origin along the ray (m)
	Body     Entity
	Phase    components.Phase // boundary for rigid bodies and walls, fluid for water and goo
	Rigid    bool             // the body is a rigid body
}

// Raycast follows the ray from origin along dir (any length, not zero) up to maxDist (m)
// and returns the first thing it enters:
//   - a rigid body, exactly (box, sphere and capsule in closed form, meshes triangle by
//     triangle);
//   - a wall or tank, whose surface is taken as the union of spheres of radius r around its
//     boundary samples: within r of the wall's true surface;
//   - the free surface of water or goo, where the fluid's volume fraction (FluidAt) rises to
//     1/2, marched in quarter particle spacings and bisected to 10⁻⁴ spacing: within r of the
//     particles' surface; the normal is the fraction's negative gradient.
//
// A ray that starts inside a rigid body or a wall sample does not hit it; one that starts in
// water hits the next solid. ok is false when nothing is within maxDist.
func (w *World) Raycast(origin, dir mgl64.Vec3, maxDist float64, f RayFilter) (hit RayHit, ok bool, err error) {
	if !physics.Finite(origin) || !physics.Finite(dir) || dir.Len() == 0 {
		return RayHit{}, false, fmt.Errorf("raycast: origin %v and direction %v must be finite, the direction not zero", origin, dir)
	}
	if !(maxDist >= 0) || math.IsInf(maxDist, 0) {
		return RayHit{}, false, fmt.Errorf("raycast: maxDist %g must be finite and ≥ 0", maxDist)
	}
	d := dir.Normalize()
	best := maxDist
	q := w.queries()
	if !f.SkipRigid {
		for _, b := range w.Bodies() {
			rb := w.RigidBody(b.Entity)
			if rb == nil || slices.Contains(f.Ignore, b.Entity) || (f.Mask != 0 && rb.State.Layers&f.Mask == 0) {
				continue
			}
			st := &rb.State
			oc := origin.Sub(st.X)
			tc := oc.Dot(d)
			if far := oc.Sub(d.Mul(tc)).Len(); far > st.Reach || -tc-st.Reach > best {
				continue // the ray misses the body's bounding sphere, or meets it too late
			}
			r := st.Q.Matrix()
			t, n, got := st.Shape.Raycast(r.MulTVec(oc), r.MulTVec(d), best)
			if got && t <= best {
				best, ok = t, true
				hit = RayHit{Distance: t, Normal: r.MulVec(n), Body: b.Entity, Phase: b.Body.Phase, Rigid: true}
			}
		}
	}
	if !f.SkipWalls && !q.wallsBuilt {
		w.indexWalls(q)
		q.wallsBuilt = true
	}
	if !f.SkipWalls && len(q.wallX) > 0 {
		if t, k, got := q.rayWalls(origin, d, best, w.sim.Settings.ParticleRadius, f.Ignore); got {
			best, ok = t, true
			p := origin.Add(d.Mul(t))
			hit = RayHit{Distance: t, Normal: p.Sub(q.wallX[k]).Normalize(), Body: q.wallEnts[q.wallBody[k]], Phase: components.Boundary}
		}
	}
	if !f.SkipFluid && len(q.x) > 0 {
		if t, n, j, got := w.rayFluid(origin, d, best, f.Ignore); got {
			best, ok = t, true
			hit = RayHit{Distance: t, Normal: n, Body: q.ents[q.body[j]], Phase: components.Fluid}
		}
	}
	if ok {
		hit.Point = origin.Add(d.Mul(hit.Distance))
	}
	return hit, ok, nil
}

// rayWalls marches the ray in steps of one radius r and tests the wall samples within 2r of
// each point as spheres of radius r: a sphere the ray enters in [t, t+r] has its centre within
// 2r of the point at t. It returns the nearest entry and the sample's index.
func (q *queryIndex) rayWalls(o, d mgl64.Vec3, tmax, r float64, ignore []Entity) (float64, int32, bool) {
	best, bk, hit := tmax, int32(-1), false
	for t := 0.0; t <= best; t += r {
		q.scratch = q.wallIdx.Query(o.Add(d.Mul(t)), 2*r, q.wallX, q.scratch[:0])
		for _, k := range q.scratch {
			if len(ignore) > 0 && slices.Contains(ignore, q.wallEnts[q.wallBody[k]]) {
				continue
			}
			oc := o.Sub(q.wallX[k])
			b := oc.Dot(d)
			c := oc.Dot(oc) - r*r
			if c < 0 { // starts inside this sample's sphere
				continue
			}
			disc := b*b - c
			if disc < 0 || b > 0 {
				continue
			}
			if th := -b - math.Sqrt(disc); th <= best && (!hit || th < best || (th == best && k < bk)) {
				best, bk, hit = th, k, true
			}
		}
	}
	return best, bk, hit
}

// rayFluid marches the ray in quarter spacings until the fluid's volume fraction reaches 1/2,
// from below it (a ray starting in the fluid first leaves it), and bisects the crossing.
func (w *World) rayFluid(o, d mgl64.Vec3, tmax float64, ignore []Entity) (float64, mgl64.Vec3, int32, bool) {
	q := &w.query
	kr := &w.sim.Kernel
	sp := w.sim.Settings.Spacing()
	frac := func(p mgl64.Vec3) (float64, mgl64.Vec3, int32) {
		q.scratch = q.idx.Query(p, kr.H, q.x, q.scratch[:0])
		s, g := 0.0, mgl64.Vec3{}
		near, nd := int32(-1), math.Inf(1)
		for _, j := range q.scratch {
			if len(ignore) > 0 && slices.Contains(ignore, q.ents[q.body[j]]) {
				continue
			}
			x := p.Sub(q.x[j])
			r := x.Len()
			s += q.vol[j] * kr.W(r)
			g = g.Add(x.Mul(q.vol[j] * kr.GradFactor(r)))
			if r < nd {
				near, nd = j, r
			}
		}
		return s, g, near
	}
	prev, _, _ := frac(o)
	wasOut := prev < 0.5
	step := sp / 4
	for t := step; t <= tmax+step; t += step {
		tt := min(t, tmax)
		c, _, _ := frac(o.Add(d.Mul(tt)))
		in := c >= 0.5
		if !wasOut {
			wasOut = !in
		} else if in {
			lo, hi := tt-step, tt
			for hi-lo > 1e-4*sp {
				mid := 0.5 * (lo + hi)
				if m, _, _ := frac(o.Add(d.Mul(mid))); m >= 0.5 {
					hi = mid
				} else {
					lo = mid
				}
			}
			_, g, near := frac(o.Add(d.Mul(hi)))
			n := g.Mul(-1)
			if l := n.Len(); l > 0 {
				n = n.Mul(1 / l)
			} else {
				n = d.Mul(-1)
			}
			return hi, n, near, true
		}
		if tt >= tmax {
			break
		}
	}
	return 0, mgl64.Vec3{}, -1, false
}

// indexWalls indexes the boundary samples of the walls and tanks (not rigid bodies) for Raycast.
func (w *World) indexWalls(q *queryIndex) {
	q.wallX, q.wallBody, q.wallEnts = q.wallX[:0], q.wallBody[:0], q.wallEnts[:0]
	for _, b := range w.Bodies() {
		if b.Body.Phase != components.Boundary || w.RigidBody(b.Entity) != nil || b.Particles.Len() == 0 {
			continue
		}
		bi := int32(len(q.wallEnts))
		q.wallEnts = append(q.wallEnts, b.Entity)
		for _, x := range b.Particles.X {
			q.wallX = append(q.wallX, x)
			q.wallBody = append(q.wallBody, bi)
		}
	}
	q.wallIDs = q.wallIDs[:0]
	for i := range q.wallX {
		q.wallIDs = append(q.wallIDs, int32(i))
	}
	q.wallIdx.Build(q.wallX, q.wallIDs, w.sim.Kernel.H)
}
