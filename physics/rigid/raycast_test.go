package rigid

import (
	"math"
	"math/rand"
	"testing"
)

// rayTol bounds the difference between a ray's hit distance and its closed form: a few
// floating-point operations on lengths of order one.
const rayTol = 1e-9

func TestRaycastClosedForms(t *testing.T) {
	sphere := Shape{Kind: Sphere, Radius: 0.5}
	capsule := Shape{Kind: Capsule, Radius: 0.3, HalfLength: 0.4}
	box := Shape{Kind: Box, HalfExtents: Vec3{0.2, 0.3, 0.4}}
	cases := []struct {
		name    string
		s       *Shape
		o, d    Vec3
		t       float64
		n       Vec3
		hit     bool
		maxDist float64
	}{
		{"sphere, off-centre along x", &sphere, Vec3{-5, 0.3, 0.1}, Vec3{1, 0, 0}, 5 - math.Sqrt(0.25-0.09-0.01), Vec3{-math.Sqrt(0.15) / 0.5, 0.6, 0.2}, true, 10},
		{"sphere, missed", &sphere, Vec3{-5, 0.6, 0}, Vec3{1, 0, 0}, 0, Vec3{}, false, 10},
		{"sphere, too far", &sphere, Vec3{-5, 0, 0}, Vec3{1, 0, 0}, 0, Vec3{}, false, 4},
		{"sphere, from inside", &sphere, Vec3{0.1, 0, 0}, Vec3{1, 0, 0}, 0, Vec3{}, false, 10},
		{"capsule side", &capsule, Vec3{-5, 0.35, 0.1}, Vec3{1, 0, 0}, 5 - math.Sqrt(0.09-0.01), Vec3{-math.Sqrt(0.08) / 0.3, 0, 0.1 / 0.3}, true, 10},
		{"capsule top cap", &capsule, Vec3{0.1, 5, 0}, Vec3{0, -1, 0}, 5 - 0.4 - math.Sqrt(0.09-0.01), Vec3{0.1 / 0.3, math.Sqrt(0.08) / 0.3, 0}, true, 10},
		{"capsule bottom cap", &capsule, Vec3{0, -5, 0}, Vec3{0, 1, 0}, 5 - 0.7, Vec3{0, -1, 0}, true, 10},
		{"capsule, beside the cap", &capsule, Vec3{-5, 0.65, 0.25}, Vec3{1, 0, 0}, 0, Vec3{}, false, 10},
		{"box face", &box, Vec3{0.1, -0.1, 5}, Vec3{0, 0, -1}, 4.6, Vec3{0, 0, 1}, true, 10},
		{"box, from inside", &box, Vec3{0, 0, 0}, Vec3{0, 0, -1}, 0, Vec3{}, false, 10},
	}
	for _, c := range cases {
		tt, n, hit := c.s.Raycast(c.o, c.d, c.maxDist)
		if hit != c.hit {
			t.Errorf("%s: hit %v, want %v", c.name, hit, c.hit)
			continue
		}
		if !hit {
			continue
		}
		if math.Abs(tt-c.t) > rayTol {
			t.Errorf("%s: t = %.12f, want %.12f", c.name, tt, c.t)
		}
		if norm(sub(n, c.n)) > rayTol {
			t.Errorf("%s: normal %v, want %v", c.name, n, c.n)
		}
	}
}

func TestRaycastBoxAgreesWithItsMesh(t *testing.T) {
	// The slab test and the triangle test are independent: on 2000 random rays at a box and
	// at its tessellation they must agree on hit or miss, distance and normal.
	he := Vec3{0.2, 0.3, 0.4}
	box := Shape{Kind: Box, HalfExtents: he}
	mesh := tessellateBox(scale(he, -1), he)
	rng := rand.New(rand.NewSource(3))
	hits := 0
	for k := 0; k < 2000; k++ {
		o := Vec3{rng.Float64()*4 - 2, rng.Float64()*4 - 2, rng.Float64()*4 - 2}
		aim := Vec3{rng.Float64()*0.8 - 0.4, rng.Float64()*0.8 - 0.4, rng.Float64()*0.8 - 0.4}
		d := sub(aim, o)
		d = scale(d, 1/norm(d))
		t1, n1, h1 := box.Raycast(o, d, 10)
		t2, n2, h2 := mesh.Raycast(o, d, 10)
		if h1 != h2 {
			t.Fatalf("ray %d from %v: box hit %v, mesh hit %v", k, o, h1, h2)
		}
		if !h1 {
			continue
		}
		hits++
		if math.Abs(t1-t2) > rayTol || norm(sub(n1, n2)) > rayTol {
			t.Fatalf("ray %d: box t %.12f n %v, mesh t %.12f n %v", k, t1, n1, t2, n2)
		}
	}
	if hits < 500 {
		t.Fatalf("only %d of 2000 rays hit: the test does not test", hits)
	}
}
