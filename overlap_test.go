package sluice_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// overlapTol (m): a region placed this far from touching a body, on either side, is found or
// not as the geometry says: far below the shapes' size, above the round-off of the tests.
const overlapTol = 1e-6

func TestOverlapAgainstAnalyticShapes(t *testing.T) {
	// Each region is placed overlapTol closer or farther than the analytic touching distance
	// of a rigid body; Overlap finds the body exactly when it is closer.
	w := rigidWorld(t, mgl64.Vec3{})
	add := func(name string, mod func(*components.RigidBody)) sluice.Entity {
		d := components.DefaultRigidBody()
		d.Type = "static"
		mod(&d)
		return mustRigid(t, w, name, d)
	}
	s45 := math.Sin(math.Pi / 8)
	c45 := math.Cos(math.Pi / 8)
	boxE := add("box", func(d *components.RigidBody) {
		d.Size, d.Position, d.Orientation = mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 1, 0}, [4]float64{c45, 0, 0, s45} // 45° about z
	})
	ballE := add("ball", func(d *components.RigidBody) {
		d.Shape, d.Radius, d.Position = "sphere", 0.1, mgl64.Vec3{2, 1, 0}
	})
	capE := add("capsule", func(d *components.RigidBody) {
		d.Shape, d.Radius, d.Length, d.Position = "capsule", 0.05, 0.3, mgl64.Vec3{4, 1, 0} // axis along y
	})
	diag := 0.1 * math.Sqrt2 // the turned box's corner reaches this far along x
	cases := []struct {
		name  string
		body  sluice.Entity
		shape func(gap float64) sluice.OverlapShape
	}{
		// a sphere region to the right of the turned box's corner (its signed distance)
		{"sphere vs turned box", boxE, func(g float64) sluice.OverlapShape {
			return sluice.OverlapShape{Kind: "sphere", Center: mgl64.Vec3{diag + 0.05 + g, 1, 0}, Radius: 0.05}
		}},
		// an axis-aligned box region beside the turned box's corner: separating axes
		{"box vs turned box", boxE, func(g float64) sluice.OverlapShape {
			return sluice.OverlapShape{Kind: "box", Center: mgl64.Vec3{diag + 0.05 + g, 1, 0}, HalfExtents: mgl64.Vec3{0.05, 0.05, 0.05}}
		}},
		// a box region turned 45° about z, its corner towards the ball
		{"turned box vs sphere", ballE, func(g float64) sluice.OverlapShape {
			return sluice.OverlapShape{Kind: "box", Center: mgl64.Vec3{2 - 0.1 - 0.05*math.Sqrt2 - g, 1, 0}, HalfExtents: mgl64.Vec3{0.05, 0.05, 0.05},
				Orientation: mgl64.Quat{W: c45, V: mgl64.Vec3{0, 0, s45}}}
		}},
		// a box region above the capsule's top cap
		{"box vs capsule cap", capE, func(g float64) sluice.OverlapShape {
			return sluice.OverlapShape{Kind: "box", Center: mgl64.Vec3{4, 1 + 0.15 + 0.05 + 0.05 + g, 0}, HalfExtents: mgl64.Vec3{0.05, 0.05, 0.05}}
		}},
		// a box region beside the capsule's side, offset along the axis
		{"box vs capsule side", capE, func(g float64) sluice.OverlapShape {
			return sluice.OverlapShape{Kind: "box", Center: mgl64.Vec3{4 + 0.05 + 0.02 + g, 1.1, 0}, HalfExtents: mgl64.Vec3{0.02, 0.02, 0.02}}
		}},
	}
	for _, c := range cases {
		for _, g := range []float64{-overlapTol, overlapTol} {
			hits, err := w.Overlap(c.shape(g), sluice.RayFilter{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, h := range hits {
				found = found || (h.Body == c.body && h.Rigid)
			}
			if found != (g < 0) {
				t.Errorf("%s, %+g m from touching: found %v", c.name, g, found)
			}
		}
	}
	if _, err := w.Overlap(sluice.OverlapShape{Kind: "cone", Radius: 1}, sluice.RayFilter{}); err == nil || !strings.Contains(err.Error(), "sphere or box") {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := w.Overlap(sluice.OverlapShape{Kind: "sphere", Radius: -1}, sluice.RayFilter{}); err == nil || !strings.Contains(err.Error(), "radius") {
		t.Errorf("negative radius: %v", err)
	}
	if _, err := w.Overlap(sluice.OverlapShape{Kind: "box", HalfExtents: mgl64.Vec3{1, 1, 1}, Orientation: mgl64.Quat{W: 2}}, sluice.RayFilter{}); err == nil || !strings.Contains(err.Error(), "unit quaternion") {
		t.Errorf("non-unit orientation: %v", err)
	}
}

func TestOverlapCountsParticles(t *testing.T) {
	// In a block of water, a box region counts exactly the particles whose centres it holds
	// (a scan of all particles says how many); the tank's samples in a region at its floor
	// are counted as a wall; the filter skips fluid or walls, and ignores named bodies.
	w := rigidWorld(t, mgl64.Vec3{0, -9.81, 0})
	tank, _ := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.3, 0.2}, true)
	water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.2, 0.2}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	steps(t, w, 3, nil)
	q := mgl64.QuatRotate(0.3, mgl64.Vec3{1, 1, 0}.Normalize())
	region := sluice.OverlapShape{Kind: "box", Center: mgl64.Vec3{0.2, 0.1, 0.1}, HalfExtents: mgl64.Vec3{0.07, 0.05, 0.04}, Orientation: q}
	want := 0
	for _, x := range w.Particles(water).X {
		l := q.Conjugate().Rotate(x.Sub(region.Center))
		if math.Abs(l[0]) <= 0.07 && math.Abs(l[1]) <= 0.05 && math.Abs(l[2]) <= 0.04 {
			want++
		}
	}
	hits, err := w.Overlap(region, sluice.RayFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Body != water || hits[0].Particles != want || want == 0 {
		t.Errorf("region in the water: %+v, want water with %d particles", hits, want)
	}
	floor := sluice.OverlapShape{Kind: "sphere", Center: mgl64.Vec3{0.2, 0, 0.1}, Radius: 0.04}
	hits, _ = w.Overlap(floor, sluice.RayFilter{})
	var gotTank, gotWater bool
	for _, h := range hits {
		gotTank = gotTank || (h.Body == tank && h.Particles > 0)
		gotWater = gotWater || h.Body == water
	}
	if !gotTank || !gotWater {
		t.Errorf("region at the floor: %+v, want the tank's samples and water", hits)
	}
	hits, _ = w.Overlap(floor, sluice.RayFilter{SkipWalls: true, Ignore: []sluice.Entity{water}})
	if len(hits) != 0 {
		t.Errorf("walls skipped and water ignored: %+v", hits)
	}
}
