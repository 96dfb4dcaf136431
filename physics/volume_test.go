package physics

import "testing"

// colorVolumeTol bounds ColorVolume against the true volume of a lattice of particles (n
// particles of spacing s fill n·s³). Flat faces are exact by the kernel's symmetry; the level
// set rounds edges and curved surfaces inward by about the kernel's width times their curvature:
// measured −0.72 % on a 20³ block and −0.5 % on a ball of radius 15 spacings (the goo squeeze's
// resolution). Coarser shapes lose more (−2.8 % at 10³).
const colorVolumeTol = 0.01

func TestColorVolumeMeasuresGeometry(t *testing.T) {
	const r = 0.01
	s := 2 * r
	kr := NewKernel(CubicSpline, 4*r)
	v0 := kr.LatticeVolume(s)
	check := func(name string, x []Vec3, want float64) {
		t.Helper()
		got := ColorVolume(x, v0, &kr, r)
		t.Logf("%s (%d particles): %.6f m³, true %.6f m³ (%+.2f %%)", name, len(x), got, want, 100*(got/want-1))
		if d := got/want - 1; d > colorVolumeTol || d < -colorVolumeTol {
			t.Errorf("%s: volume %.6f m³, want %.6f m³ ± %.0f %%", name, got, want, 100*colorVolumeTol)
		}
	}
	block, err := FluidBlock(Vec3{}, Vec3{21 * s, 21 * s, 21 * s}, s)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(len(block))
	check("20³ block", block, n*s*s*s)
	// The same particles spread 10 % further apart vertically enclose 10 % more volume: the
	// measure follows the particles' spacing, not their number.
	tall := make([]Vec3, len(block))
	for i, x := range block {
		tall[i] = Vec3{x[0], 1.1 * x[1], x[2]}
	}
	check("20³ block stretched 1.1× in y", tall, 1.1*n*s*s*s)
	ball, err := FluidSphere(Vec3{0.5, 0.5, 0.5}, 15*s, s)
	if err != nil {
		t.Fatal(err)
	}
	check("ball of radius 15 spacings", ball, float64(len(ball))*s*s*s)
}
