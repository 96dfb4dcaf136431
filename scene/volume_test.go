package scene

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/physics"
)

// cubeOBJ is the unit cube [0,1]³ with outward triangles; each face repeats its corners (as
// exporters write meshes with per-face normals), which welding must merge. open drops the
// top face.
func cubeOBJ(open bool) string {
	var b strings.Builder
	faces := [][4][3]float64{
		{{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}}, // z = 0, normal −z
		{{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}, // z = 1
		{{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}}, // y = 0
		{{0, 1, 0}, {0, 1, 1}, {1, 1, 1}, {1, 1, 0}}, // y = 1 (top)
		{{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}}, // x = 0
		{{1, 0, 0}, {1, 1, 0}, {1, 1, 1}, {1, 0, 1}}, // x = 1
	}
	n := 0
	for fi, f := range faces {
		if open && fi == 3 {
			continue
		}
		for _, v := range f {
			fmt.Fprintf(&b, "v %g %g %g\n", v[0], v[1], v[2])
		}
		fmt.Fprintf(&b, "f %d %d %d %d\n", n+1, n+2, n+3, n+4)
		n += 4
	}
	return b.String()
}

// uvSphere returns a sphere of radius R about c with seg segments (a multiple of 4, so the
// equator reaches ±R on x and z) and rings rings (even): its bounding box is c ± R.
func uvSphere(c mgl64.Vec3, R float64, seg, rings int) *Mesh {
	m := &Mesh{V: []mgl64.Vec3{c.Add(mgl64.Vec3{0, R, 0}), c.Add(mgl64.Vec3{0, -R, 0})}}
	for r := 1; r < rings; r++ {
		th := math.Pi * float64(r) / float64(rings)
		for s := 0; s < seg; s++ {
			ph := 2 * math.Pi * float64(s) / float64(seg)
			m.V = append(m.V, c.Add(mgl64.Vec3{R * math.Sin(th) * math.Cos(ph), R * math.Cos(th), R * math.Sin(th) * math.Sin(ph)}))
		}
	}
	at := func(r, s int) int32 { return int32(2 + (r-1)*seg + s%seg) }
	for s := 0; s < seg; s++ {
		m.Tris = append(m.Tris, [3]int32{0, at(1, s+1), at(1, s)})
		m.Tris = append(m.Tris, [3]int32{1, at(rings-1, s), at(rings-1, s+1)})
		for r := 1; r < rings-1; r++ {
			m.Tris = append(m.Tris, [3]int32{at(r, s), at(r, s+1), at(r+1, s+1)}, [3]int32{at(r, s), at(r+1, s+1), at(r+1, s)})
		}
	}
	return m
}

func TestCubeMeshSamplesLikeTheFluidBlock(t *testing.T) {
	m, err := ReadOBJ(strings.NewReader(cubeOBJ(false)))
	if err != nil {
		t.Fatal(err)
	}
	if open := m.OpenEdges(); open != 0 {
		t.Fatalf("closed cube has %d open edges", open)
	}
	// volumeTol: the divergence-theorem sum of 12 exact triangles is exact up to round-off.
	const volumeTol = 1e-12
	if v := m.Volume(); math.Abs(v-1) > volumeTol {
		t.Errorf("cube volume %g, want 1", v)
	}
	const s = 0.05 // r = 0.025: the reference's DamBreakModel block, 19³ = 6859 particles
	got, err := m.SampleVolume(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := physics.FluidBlock(physics.Vec3{0, 0, 0}, physics.Vec3{1, 1, 1}, s)
	if len(got) != 6859 || len(want) != 6859 {
		t.Fatalf("cube mesh gives %d particles, the block sampler %d; want 19³ = 6859", len(got), len(want))
	}
	// Same lattice points; posTol allows the one rounding of lo + s·(1+i) in each.
	const posTol = 1e-12
	for i := range got {
		if got[i].Sub(mgl64.Vec3(want[i])).Len() > posTol {
			t.Fatalf("particle %d at %v, the block sampler's at %v", i, got[i], want[i])
		}
	}
	// Other sizes, including half-integer multiples of the spacing (ties at exactly r from
	// a face), give the block rule's round(L/s) − 1 per axis too.
	for _, L := range []float64{0.3, 0.31, 0.33, 0.5, 0.7} {
		c, _ := ReadOBJ(strings.NewReader(cubeOBJ(false)))
		c.Transform(mgl64.Vec3{L, L, L}, mgl64.Vec3{0, 1, 0}, 0, mgl64.Vec3{0.1, -0.2, 0.3})
		got, _ := c.SampleVolume(0.04)
		want, _ := physics.FluidBlock(physics.Vec3{0.1, -0.2, 0.3}, physics.Vec3{0.1 + L, -0.2 + L, 0.3 + L}, 0.04)
		if len(got) != len(want) {
			t.Errorf("cube of %g m at spacing 0.04 m: %d particles, the block sampler %d", L, len(got), len(want))
		}
	}
	open, _ := ReadOBJ(strings.NewReader(cubeOBJ(true)))
	if n := open.OpenEdges(); n != 4 {
		t.Errorf("cube without its top has %d open edges, want 4", n)
	}
}

// sphereCountTol bounds the relative difference between the particle counts of a faceted
// sphere mesh and the analytic sphere sampler: 48 × 24 facets lie up to R(1 − cos(π/48)) ≈
// 0.2 % of R inside the sphere, which moves the r-from-the-surface cut by less than a lattice
// shell; 1 % leaves room for lattice points near the cut. Measured: identical counts.
const sphereCountTol = 0.01

func TestSphereMeshSamplesLikeTheFluidSphere(t *testing.T) {
	c, R, s := mgl64.Vec3{0.1, 0.2, -0.3}, 0.3, 0.05
	m := uvSphere(c, R, 48, 24)
	if open := m.OpenEdges(); open != 0 {
		t.Fatalf("sphere mesh has %d open edges", open)
	}
	exact := 4.0 / 3 * math.Pi * R * R * R
	// facetVolumeTol: the inscribed 48 × 24 polyhedron lacks about 3·(1 − cos(π/24)) ≈ 1 % of
	// the ball's volume (the rings' spacing dominates).
	const facetVolumeTol = 0.015
	if v := m.Volume(); math.Abs(v-exact) > facetVolumeTol*exact || v > exact {
		t.Errorf("sphere mesh volume %g, want within %g below 4/3πR³ = %g", v, facetVolumeTol, exact)
	}
	got, err := m.SampleVolume(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := physics.FluidSphere(physics.Vec3(c), R, s)
	t.Logf("sphere R = %g m at spacing %g m: mesh %d particles, analytic %d; mesh volume %.5f m³ (ball %.5f)", R, s, len(got), len(want), m.Volume(), exact)
	if d := math.Abs(float64(len(got)-len(want))) / float64(len(want)); d > sphereCountTol {
		t.Errorf("sphere mesh gives %d particles, the sphere sampler %d (%.2g apart, tolerance %g)", len(got), len(want), d, sphereCountTol)
	}
	for _, p := range got {
		if p.Sub(c).Len() > R-0.5*s+1e-9 {
			t.Fatalf("particle %v is closer than r to the sphere", p)
		}
	}
}

func TestFluidMeshScene(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cube.obj"), []byte(cubeOBJ(false)), 0o644)
	os.WriteFile(filepath.Join(dir, "open.obj"), []byte(cubeOBJ(true)), 0o644)
	scene := `{
  "solver": {"particleRadius": 0.05},
  "boundaries": [{"name": "tank", "min": [-1,0,-1], "max": [1,1,1]}],
  "fluidMeshes": [{"name": "jelly", "file": "FILE", "scale": [0.5,0.5,0.5], "translation": [-0.25,0,-0.25],
                   "velocity": [0,-1,0], "material": {"preset": "honey"}}]
}`
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, []byte(strings.Replace(scene, "FILE", "cube.obj", 1)), 0o644)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e, _ := w.BodyByName("jelly")
	// The placed cube is [−0.25, 0.25] × [0, 0.5] × [−0.25, 0.25]; at spacing 0.1 the block
	// rule gives round(5) − 1 = 4 per axis.
	if n := len(w.Bodies()[1].Particles.X); n != 64 {
		t.Errorf("%d particles, want 4³ = 64", n)
	}
	if w.Material(e).Preset != "honey" || w.Bodies()[1].Particles.V[0] != (mgl64.Vec3{0, -1, 0}) {
		t.Errorf("material %+v, velocity %v", *w.Material(e), w.Bodies()[1].Particles.V[0])
	}
	for i := 0; i < 3; i++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}

	// Malformed fluid meshes fail at load, naming the key and the body.
	for _, c := range []struct{ file, want string }{
		{"open.obj", `fluidMeshes[0].file (body "jelly"): open.obj is not closed: 4 edges are not shared by exactly two triangles`},
		{"missing.obj", `fluidMeshes[0].file (body "jelly"): open`},
	} {
		os.WriteFile(path, []byte(strings.Replace(scene, "FILE", c.file, 1)), 0o644)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.file, err, c.want)
		}
	}
}

func TestSPlisHSPlasHFluidModelFromOBJ(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cube.obj"), []byte(cubeOBJ(false)), 0o644)
	os.WriteFile(filepath.Join(dir, "open.obj"), []byte(cubeOBJ(true)), 0o644)
	scene := `{
  "Configuration": {"particleRadius": 0.025, "simulationMethod": 3},
  "Materials": [{"id": "Fluid", "viscosityMethod": 1, "Standard viscosity": {"viscosity": 0.02}}],
  "FluidModels": [{"particleFile": "FILE", "translation": [0, 0.5, 0], "mode": 2, "resolutionSDF": [20, 20, 20]}]
}`
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, []byte(strings.Replace(scene, "FILE", "cube.obj", 1)), 0o644)
	sc, warns, err := ImportSPlisHSPlasH(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.FluidMeshes) != 1 || sc.FluidMeshes[0].Material.Viscosity != 0.02 {
		t.Fatalf("fluid meshes %+v", sc.FluidMeshes)
	}
	var keys []string
	for _, w := range warns {
		keys = append(keys, w.Path)
	}
	for _, k := range []string{"FluidModels[0].mode", "FluidModels[0].resolutionSDF"} {
		if !slices.Contains(keys, k) {
			t.Errorf("no warning for %s among %v", k, keys)
		}
	}
	w, err := sc.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	if n := w.Bodies()[0].Particles.Len(); n != 6859 {
		t.Errorf("unit cube model at r = 0.025 gives %d particles, want the reference block's 6859", n)
	}
	w.Close()

	os.WriteFile(path, []byte(strings.Replace(scene, "FILE", "open.obj", 1)), 0o644)
	if _, _, err := ImportSPlisHSPlasH(path); err == nil || !strings.Contains(err.Error(), "FluidModels[0].particleFile") || !strings.Contains(err.Error(), "not closed") {
		t.Errorf("open mesh: error %v, want one naming FluidModels[0].particleFile", err)
	}
}

// corpusSphereTol bounds the count difference for the reference's coarse sphere.obj (760
// triangles, 2.2 % less volume than the unit ball it approximates): the count follows the
// volume, so the mesh gives a few percent fewer particles than the analytic ball.
const corpusSphereTol = 0.04

func TestCorpusSphereMeshSamplesLikeTheFluidSphere(t *testing.T) {
	m, err := LoadOBJ(filepath.Join(corpus, "..", "models", "sphere.obj"))
	if os.IsNotExist(err) {
		t.Skip("SPlisHSPlasH corpus not found at", corpus)
	}
	if err != nil {
		t.Fatal(err)
	}
	const s = 0.05
	got, err := m.SampleVolume(s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := physics.FluidSphere(physics.Vec3{}, 1, s)
	d := float64(len(want)-len(got)) / float64(len(want))
	t.Logf("sphere.obj (volume %.4f m³, ball %.4f): %d particles, analytic %d (%.2f %% fewer)", m.Volume(), 4*math.Pi/3, len(got), len(want), 100*d)
	if math.Abs(d) > corpusSphereTol {
		t.Errorf("sphere.obj gives %d particles, the sphere sampler %d (tolerance %g)", len(got), len(want), corpusSphereTol)
	}
}
