package boundary

import (
	"math"

	"github.com/sluicephysics/sluice/physics"
)

// Section2D is Mesh for a 2D world: the section of a triangle mesh (counter-clockwise seen
// from outside) with the plane z = 0, sampled there. Every triangle whose vertices lie on both
// sides of the plane (a vertex on it counts as above, so each crossing triangle cuts one
// segment, and neighbouring triangles cut the same end point from their shared edge) gives the
// segment between its two crossing edges; points are placed along it at spacing about s, end
// points included, in layers at distances 0, s, … along the segment's normal in the plane
// (the one on the side the triangle's normal points to) when outward, or against it
// otherwise, and thinned like Mesh's to one per cell of side s/2. Triangles in the plane or
// not reaching it give nothing.
func Section2D(v []physics.Vec3, tris [][3]int32, s float64, layers int, outward bool) []physics.Vec3 {
	var pts []physics.Vec3
	above := func(p physics.Vec3) bool { return p[2] >= 0 }
	// cut returns the point of edge (p, q) at z = 0, computed from the edge's end with the
	// lower index so that both triangles of an edge get the same bits.
	cut := func(i, j int32) physics.Vec3 {
		if j < i {
			i, j = j, i
		}
		p, q := v[i], v[j]
		u := p[2] / (p[2] - q[2])
		return physics.Vec3{p[0] + u*(q[0]-p[0]), p[1] + u*(q[1]-p[1]), 0}
	}
	for _, t := range tris {
		if len(pts) > physics.MaxSamples {
			break // the caller reports the oversize sampling
		}
		var ends [2]physics.Vec3
		n := 0
		for e := 0; e < 3; e++ {
			i, j := t[e], t[(e+1)%3]
			if above(v[i]) != above(v[j]) && n < 2 {
				ends[n] = cut(i, j)
				n++
			}
		}
		if n != 2 {
			continue
		}
		a, b := ends[0], ends[1]
		d := b.Sub(a)
		l := math.Hypot(d[0], d[1])
		// the triangle's normal decides which side of the segment is out
		tn := v[t[1]].Sub(v[t[0]]).Cross(v[t[2]].Sub(v[t[0]]))
		nrm := physics.Vec3{}
		if l > 0 {
			nrm = physics.Vec3{d[1] / l, -d[0] / l, 0}
			if nrm[0]*tn[0]+nrm[1]*tn[1] < 0 {
				nrm = nrm.Mul(-1)
			}
		}
		if !outward {
			nrm = nrm.Mul(-1)
		}
		k := max(1, int(math.Ceil(l/s)))
		for ly := 0; ly < layers; ly++ {
			off := nrm.Mul(float64(ly) * s)
			for i := 0; i <= k; i++ {
				pts = append(pts, a.Add(d.Mul(float64(i)/float64(k))).Add(off))
			}
		}
	}
	return thin(pts, s)
}
