package volumemap

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// modelsDir holds the reference scenes' meshes.
const modelsDir = "/work/shared/splishsplash/models"

// readOBJ reads the v and f lines of an OBJ file (polygons as fans, "i/t/n" indices).
func readOBJ(tb testing.TB, path string) ([]physics.Vec3, [][3]int32) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Skipf("mesh not available: %v", err)
	}
	defer f.Close()
	var vs []physics.Vec3
	var ts [][3]int32
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		switch fs[0] {
		case "v":
			var p physics.Vec3
			for d := 0; d < 3; d++ {
				x, err := strconv.ParseFloat(fs[1+d], 64)
				if err != nil {
					tb.Fatal(err)
				}
				p[d] = x
			}
			vs = append(vs, p)
		case "f":
			var idx []int32
			for _, s := range fs[1:] {
				s, _, _ = strings.Cut(s, "/")
				k, err := strconv.Atoi(s)
				if err != nil {
					tb.Fatal(err)
				}
				idx = append(idx, int32(k-1))
			}
			for i := 2; i < len(idx); i++ {
				ts = append(ts, [3]int32{idx[0], idx[i-1], idx[i]})
			}
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return vs, ts
}

// scaled returns vs scaled per axis.
func scaled(vs []physics.Vec3, s physics.Vec3) []physics.Vec3 {
	out := make([]physics.Vec3, len(vs))
	for i, v := range vs {
		out[i] = physics.Vec3{v[0] * s[0], v[1] * s[1], v[2] * s[2]}
	}
	return out
}

// boxMesh is the box [-half, half] as 12 counter-clockwise triangles.
func boxMesh(half physics.Vec3) ([]physics.Vec3, [][3]int32) {
	var vs []physics.Vec3
	for i := 0; i < 8; i++ {
		vs = append(vs, physics.Vec3{
			half[0] * float64(2*(i&1)-1), half[1] * float64(2*((i>>1)&1)-1), half[2] * float64(2*((i>>2)&1)-1)})
	}
	// Faces as quads (a, b, c, d) counter-clockwise from outside.
	quads := [][4]int32{
		{0, 2, 3, 1}, // z−
		{4, 5, 7, 6}, // z+
		{0, 1, 5, 4}, // y−
		{2, 6, 7, 3}, // y+
		{0, 4, 6, 2}, // x−
		{1, 3, 7, 5}, // x+
	}
	var ts [][3]int32
	for _, q := range quads {
		ts = append(ts, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	return vs, ts
}

// boxSDF is the closed-form signed distance to the box [-half, half], positive outside.
func boxSDF(p, half physics.Vec3) float64 {
	var out2, in float64
	in = math.Inf(-1)
	for d := 0; d < 3; d++ {
		q := math.Abs(p[d]) - half[d]
		if q > 0 {
			out2 += q * q
		}
		in = max(in, q)
	}
	if out2 > 0 {
		return math.Sqrt(out2)
	}
	return in
}

// gammaRef is γ(φ) = W(φ)/W(0) for φ > 0, 1 for φ ≤ 0, from the kernel's own W.
func gammaRef(kr *physics.Kernel, phi float64) float64 {
	if phi <= 0 {
		return 1
	}
	return kr.W(phi) / kr.W(0)
}

// planeVolume is factor·∫_{−H}^{H} γ(d + t)·π(H² − t²) dt, the volume of a point at distance
// d from an infinite flat wall, by composite 4-point Gauss on 4000 panels (the integrand is
// C¹ with kinks of its second derivative at d + t = 0 and H/2: the rule's error is below
// 1e-9 of the full volume).
func planeVolume(kr *physics.Kernel, factor, d float64) float64 {
	h := kr.H
	const panels = 4000
	hp := 2 * h / panels
	s := 0.0
	for i := 0; i < panels; i++ {
		for _, g := range gauss4 {
			t := -h + hp*(float64(i)+0.5+0.5*g[0])
			s += 0.5 * hp * g[1] * gammaRef(kr, d+t) * math.Pi * (h*h - t*t)
		}
	}
	return factor * s
}

// tank is the DamBreakModel wall: UnitBox.obj scaled 4 × 3 × 1.5, inverted, r = 0.025,
// H = 4r.
func tank(tb testing.TB) ([]physics.Vec3, [][3]int32, Options) {
	vs, ts := readOBJ(tb, modelsDir+"/UnitBox.obj")
	o := DefaultOptions(0.1, 0.025)
	o.Invert = true
	return scaled(vs, physics.Vec3{4, 3, 1.5}), ts, o
}

// subdivideSphere splits every triangle of a mesh around the origin into four at its edges'
// midpoints and moves the new vertices onto the sphere of radius r: 4× the triangles, each
// still counter-clockwise from outside.
func subdivideSphere(vs []physics.Vec3, ts [][3]int32, r float64) ([]physics.Vec3, [][3]int32) {
	vs = append([]physics.Vec3{}, vs...)
	mid := map[[2]int32]int32{}
	at := func(a, b int32) int32 {
		k := [2]int32{min(a, b), max(a, b)}
		if i, ok := mid[k]; ok {
			return i
		}
		vs = append(vs, vs[a].Add(vs[b]).Normalize().Mul(r))
		mid[k] = int32(len(vs) - 1)
		return mid[k]
	}
	var out [][3]int32
	for _, t := range ts {
		ab, bc, ca := at(t[0], t[1]), at(t[1], t[2]), at(t[2], t[0])
		out = append(out, [3]int32{t[0], ab, ca}, [3]int32{ab, t[1], bc}, [3]int32{ca, bc, t[2]}, [3]int32{ab, bc, ca})
	}
	return vs, out
}
