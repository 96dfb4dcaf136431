package rigid

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// tessellateBox returns the closed, outward-wound triangle mesh of the box [lo, hi].
func tessellateBox(lo, hi Vec3) Shape {
	v := []Vec3{}
	for i := 0; i < 8; i++ {
		v = append(v, Vec3{pick(i&1, lo[0], hi[0]), pick(i&2, lo[1], hi[1]), pick(i&4, lo[2], hi[2])})
	}
	quads := [][4]int32{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	var tris [][3]int32
	for _, q := range quads {
		tris = append(tris, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	return Shape{Kind: Mesh, V: v, Tris: tris}
}

func pick(bit int, a, b float64) float64 {
	if bit != 0 {
		return b
	}
	return a
}

// tessellateSphere returns a UV sphere mesh of radius r with n rings.
func tessellateSphere(r float64, n int) Shape {
	var v []Vec3
	v = append(v, Vec3{0, r, 0})
	for i := 1; i < n; i++ {
		th := math.Pi * float64(i) / float64(n)
		for j := 0; j < 2*n; j++ {
			ph := math.Pi * float64(j) / float64(n)
			v = append(v, Vec3{r * math.Sin(th) * math.Cos(ph), r * math.Cos(th), -r * math.Sin(th) * math.Sin(ph)})
		}
	}
	v = append(v, Vec3{0, -r, 0})
	idx := func(i, j int) int32 { return int32(1 + (i-1)*2*n + (j % (2 * n))) }
	var tris [][3]int32
	for j := 0; j < 2*n; j++ {
		tris = append(tris, [3]int32{0, idx(1, j), idx(1, j+1)})
		tris = append(tris, [3]int32{int32(len(v) - 1), idx(n-1, j+1), idx(n-1, j)})
	}
	for i := 1; i < n-1; i++ {
		for j := 0; j < 2*n; j++ {
			tris = append(tris, [3]int32{idx(i, j), idx(i+1, j), idx(i+1, j+1)}, [3]int32{idx(i, j), idx(i+1, j+1), idx(i, j+1)})
		}
	}
	return Shape{Kind: Mesh, V: v, Tris: tris}
}

// TestMeshPropertiesMatchClosedForms: the polyhedral moments of a tessellated box equal the
// box's closed form to round-off, an off-centre box's centre of mass is found, and a fine UV
// sphere approaches the sphere's (its inscribed polyhedron loses volume as 1/n²).
func TestMeshPropertiesMatchClosedForms(t *testing.T) {
	const roundOff = 1e-12
	const sphereTol = 0.01 // 64-ring UV sphere: volume and inertia within 1 %
	box := Shape{Kind: Box, HalfExtents: Vec3{0.3, 0.2, 0.1}}
	want, _ := box.Properties(700)
	mesh := tessellateBox(Vec3{1, 2, 3}, Vec3{1.6, 2.4, 3.2})
	got, err := mesh.Properties(700)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Mass-want.Mass) > roundOff*want.Mass {
		t.Errorf("mesh box mass %g, closed form %g", got.Mass, want.Mass)
	}
	for d, c := range []float64{1.3, 2.2, 3.1} {
		if math.Abs(got.Center[d]-c) > roundOff {
			t.Errorf("centre[%d] = %g, want %g", d, got.Center[d], c)
		}
	}
	for i := range want.Inertia {
		if math.Abs(got.Inertia[i]-want.Inertia[i]) > roundOff*want.Inertia[0] {
			t.Errorf("inertia[%d] = %g, closed form %g", i, got.Inertia[i], want.Inertia[i])
		}
	}
	sph := Shape{Kind: Sphere, Radius: 0.5}
	ws, _ := sph.Properties(1000)
	ms := tessellateSphere(0.5, 64)
	gs, err := ms.Properties(1000)
	if err != nil {
		t.Fatal(err)
	}
	if e := math.Abs(gs.Mass/ws.Mass - 1); e > sphereTol {
		t.Errorf("UV sphere mass off by %.3g", e)
	}
	if e := math.Abs(gs.Inertia[0]/ws.Inertia[0] - 1); e > sphereTol {
		t.Errorf("UV sphere inertia off by %.3g", e)
	}
	// an inward-wound mesh has negative volume and is refused
	for i := range mesh.Tris {
		mesh.Tris[i][1], mesh.Tris[i][2] = mesh.Tris[i][2], mesh.Tris[i][1]
	}
	if _, err := mesh.Properties(700); err == nil {
		t.Error("inward-wound mesh accepted")
	}
}

// TestCapsuleInertiaMatchesIntegration checks the capsule's closed form against a Monte Carlo
// integral over its volume.
func TestCapsuleInertiaMatchesIntegration(t *testing.T) {
	const tol = 0.01 // 2M samples: statistical error about 0.1 %
	c := Shape{Kind: Capsule, Radius: 0.1, HalfLength: 0.15}
	p, _ := c.Properties(1)
	rng := rand.New(rand.NewSource(1))
	lo, hi := c.Bounds()
	box := (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
	var n, ixx, iyy float64
	const samples = 2_000_000
	for k := 0; k < samples; k++ {
		q := Vec3{lo[0] + rng.Float64()*(hi[0]-lo[0]), lo[1] + rng.Float64()*(hi[1]-lo[1]), lo[2] + rng.Float64()*(hi[2]-lo[2])}
		if d, _ := c.Distance(q); d < 0 {
			n++
			ixx += q[1]*q[1] + q[2]*q[2]
			iyy += q[0]*q[0] + q[2]*q[2]
		}
	}
	dv := box / samples
	if e := math.Abs(n*dv/p.Volume - 1); e > tol {
		t.Errorf("volume off by %.3g", e)
	}
	if e := math.Abs(ixx*dv/p.Inertia[0] - 1); e > tol {
		t.Errorf("I_xx off by %.3g", e)
	}
	if e := math.Abs(iyy*dv/p.Inertia[4] - 1); e > tol {
		t.Errorf("I_yy off by %.3g", e)
	}
}

// TestMeshDistanceMatchesBox: the grid distance of a tessellated box agrees with the exact
// box distance near its surface (within a tenth of the grid cell there, where contacts are
// decided), with the right sign everywhere.
func TestMeshDistanceMatchesBox(t *testing.T) {
	const spacing = 0.02
	h := Vec3{0.1, 0.07, 0.05}
	mesh := tessellateBox(scale(h, -1), h)
	if err := mesh.Prepare(spacing, 3*spacing); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(2))
	near := 0
	for k := 0; k < 20000; k++ {
		p := Vec3{(rng.Float64()*2 - 1) * 0.15, (rng.Float64()*2 - 1) * 0.12, (rng.Float64()*2 - 1) * 0.1}
		want, _ := boxDistance(h, p)
		got, _ := mesh.Distance(p)
		if math.Abs(want) < 2*spacing {
			near++
			// trilinear interpolation of a distance field is exact on flat faces and off by at
			// most a fraction of a cell near edges and corners
			if math.Abs(got-want) > 0.25*spacing {
				t.Fatalf("distance at %v: grid %g, exact %g", p, got, want)
			}
		}
		if (got < 0) != (want < 0) && math.Abs(want) > 0.5*spacing {
			t.Fatalf("sign at %v: grid %g, exact %g", p, got, want)
		}
	}
	if near < 1000 {
		t.Fatalf("only %d samples near the surface", near)
	}
}

// TestSamplesInset: every sample of the first layer lies half a spacing inside the surface,
// and deeper layers a spacing further, for every shape.
func TestSamplesInset(t *testing.T) {
	const spacing = 0.02
	const tol = 1e-9
	shapes := []Shape{
		{Kind: Box, HalfExtents: Vec3{0.1, 0.06, 0.05}},
		{Kind: Sphere, Radius: 0.1},
		{Kind: Capsule, Radius: 0.05, HalfLength: 0.1},
	}
	for _, sh := range shapes {
		x, outer, err := sh.Samples(spacing, 2)
		if err != nil {
			t.Fatal(err)
		}
		if outer == 0 || outer == len(x) {
			t.Fatalf("%v: %d outer of %d samples", sh.Kind, outer, len(x))
		}
		for i, p := range x {
			d, _ := sh.Distance(p)
			want := -0.5 * spacing
			if i >= outer {
				want = -1.5 * spacing
			}
			if sh.Kind == Box && i >= outer {
				// box edges: the inner layer's corners are deeper along two axes
				if d > want+tol {
					t.Fatalf("%v sample %d at depth %g, want at least %g", sh.Kind, i, d, want)
				}
				continue
			}
			if math.Abs(d-want) > tol && !(sh.Kind == Box && d < want) {
				t.Fatalf("%v sample %d at distance %g, want %g", sh.Kind, i, d, want)
			}
		}
	}
}

// TestPointIndexQuery compares the cell index's radius query with brute force.
func TestPointIndexQuery(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	x := make([]Vec3, 3000)
	ids := []int32{}
	for i := range x {
		x[i] = Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
		if i%3 != 0 {
			ids = append(ids, int32(i))
		}
	}
	var pi physics.PointIndex
	pi.Build(x, ids, 0.1)
	for q := 0; q < 50; q++ {
		c := Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
		rad := 0.05 + 0.3*rng.Float64()
		got := map[int32]bool{}
		for _, i := range pi.Query(c, rad, x, nil) {
			got[i] = true
		}
		n := 0
		for _, i := range ids {
			if norm(sub(x[i], c)) <= rad {
				n++
				if !got[i] {
					t.Fatalf("query missed point %d", i)
				}
			}
		}
		if n != len(got) {
			t.Fatalf("query returned %d points, brute force %d", len(got), n)
		}
	}
}

// TestQuatIntegrateExactSpin: integrating a constant spin for many steps gives the rotation by
// ω·t, to round-off, whatever the step.
func TestQuatIntegrateExactSpin(t *testing.T) {
	const tol = 1e-12
	w := Vec3{0, 0, 2}
	q := QuatIdentity
	for i := 0; i < 1000; i++ {
		q = q.Integrate(w, 0.001)
	}
	want := QuatAxisAngle(Vec3{0, 0, 1}, 2)
	for d := 0; d < 4; d++ {
		if math.Abs(q[d]-want[d]) > tol {
			t.Fatalf("q = %v, want %v", q, want)
		}
	}
}
