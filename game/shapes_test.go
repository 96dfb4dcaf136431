package game

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics/rigid"
)

// Tolerances of the drawn meshes: positions and normals are float32, so a vertex lies on the
// exact surface and a normal has unit length to a few float32 ulps.
const (
	surfaceTol = 1e-6 // m, for shapes of about 0.1 m
	unitTol    = 1e-6
	// The tessellated sphere's volume falls short of the ball's by the facets' chords: for 32
	// segments and 8 bands per hemisphere it is 1.6 % less.
	roundVolumeTol = 0.03
)

// meshVolume is the signed volume enclosed by the triangles (divergence theorem): the shape's
// volume when the surface is closed and wound counter-clockwise seen from outside.
func meshVolume(pos []float32, idx []uint32) float64 {
	v := 0.0
	p := func(i uint32) rigid.Vec3 {
		return rigid.Vec3{float64(pos[3*i]), float64(pos[3*i+1]), float64(pos[3*i+2])}
	}
	for k := 0; k+2 < len(idx); k += 3 {
		a, b, c := p(idx[k]), p(idx[k+1]), p(idx[k+2])
		v += a.Dot(b.Cross(c)) / 6
	}
	return v
}

func TestShapeMeshes(t *testing.T) {
	// Every vertex lies on the shape's surface, every normal is the unit outward normal there,
	// every triangle has area and faces outward (counter-clockwise seen from outside), and the
	// surface is closed: it encloses the shape's volume.
	octa := &rigid.Shape{Kind: rigid.Mesh,
		V:    []rigid.Vec3{{0.1, 0, 0}, {-0.1, 0, 0}, {0, 0.1, 0}, {0, -0.1, 0}, {0, 0, 0.1}, {0, 0, -0.1}},
		Tris: [][3]int32{{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}}}
	for _, c := range []struct {
		name   string
		sh     *rigid.Shape
		volume float64 // exact volume of the shape
		tol    float64 // relative tolerance of the drawn volume
	}{
		{"box", &rigid.Shape{Kind: rigid.Box, HalfExtents: rigid.Vec3{0.1, 0.05, 0.2}}, 0.2 * 0.1 * 0.4, 1e-6},
		{"sphere", &rigid.Shape{Kind: rigid.Sphere, Radius: 0.1}, 4.0 / 3 * math.Pi * 1e-3, roundVolumeTol},
		{"capsule", &rigid.Shape{Kind: rigid.Capsule, Radius: 0.05, HalfLength: 0.1}, math.Pi*0.05*0.05*0.2 + 4.0/3*math.Pi*0.05*0.05*0.05, roundVolumeTol},
		{"mesh", octa, 4.0 / 3 * 0.1 * 0.1 * 0.1, 1e-6},
	} {
		pos, nrm, idx := ShapeMesh(c.sh)
		if len(pos) != len(nrm) || len(pos)%3 != 0 || len(idx)%3 != 0 || len(idx) == 0 {
			t.Fatalf("%s: %d position, %d normal floats, %d indices", c.name, len(pos), len(nrm), len(idx))
		}
		nv := uint32(len(pos) / 3)
		for i := uint32(0); i < nv; i++ {
			p := rigid.Vec3{float64(pos[3*i]), float64(pos[3*i+1]), float64(pos[3*i+2])}
			n := rigid.Vec3{float64(nrm[3*i]), float64(nrm[3*i+1]), float64(nrm[3*i+2])}
			if math.Abs(n.Len()-1) > unitTol {
				t.Fatalf("%s: vertex %d normal %v has length %g", c.name, i, n, n.Len())
			}
			if c.sh.Kind == rigid.Mesh {
				continue // a mesh's distance needs its grid; its faces are checked below
			}
			d, out := c.sh.Distance(p)
			if math.Abs(d) > surfaceTol {
				t.Fatalf("%s: vertex %d at %v is %g m off the surface", c.name, i, p, d)
			}
			if c.sh.Kind != rigid.Box && n.Dot(out) < 1-unitTol { // a box's edges have several normals
				t.Fatalf("%s: vertex %d normal %v, surface normal %v", c.name, i, n, out)
			}
		}
		for k := 0; k < len(idx); k += 3 {
			for _, i := range idx[k : k+3] {
				if i >= nv {
					t.Fatalf("%s: triangle %d names vertex %d of %d", c.name, k/3, i, nv)
				}
			}
			p := func(i uint32) rigid.Vec3 {
				return rigid.Vec3{float64(pos[3*i]), float64(pos[3*i+1]), float64(pos[3*i+2])}
			}
			a, b, d := p(idx[k]), p(idx[k+1]), p(idx[k+2])
			face := b.Sub(a).Cross(d.Sub(a))
			if face.Len() == 0 {
				t.Fatalf("%s: triangle %d has no area", c.name, k/3)
			}
			for _, i := range idx[k : k+3] {
				n := rigid.Vec3{float64(nrm[3*i]), float64(nrm[3*i+1]), float64(nrm[3*i+2])}
				if face.Dot(n) <= 0 {
					t.Fatalf("%s: triangle %d is wound against its normals (clockwise from outside)", c.name, k/3)
				}
			}
		}
		if v := meshVolume(pos, idx); math.Abs(v-c.volume) > c.tol*c.volume {
			t.Errorf("%s: the drawn surface encloses %g m³, the shape %g m³ (tolerance %g)", c.name, v, c.volume, c.tol)
		} else {
			t.Logf("%s: %d vertices, %d triangles, volume %.6g m³ for %.6g m³", c.name, nv, len(idx)/3, v, c.volume)
		}
	}
}
