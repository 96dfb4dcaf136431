package systems

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

func TestColumnsHoldEveryParticleOnce(t *testing.T) {
	// Random clouds (one spread thin, so the columns coarsen): every particle is in exactly
	// one column, the one its x and z fall in, and a disc's span holds every particle whose
	// horizontal distance is within the disc's radius (a scan finds no other).
	r := rand.New(rand.NewPCG(1, 2))
	for _, spread := range []float64{1, 1000} {
		x := make([]physics.Vec3, 3000)
		for i := range x {
			x[i] = physics.Vec3{spread * r.Float64(), r.Float64(), spread * r.NormFloat64()}
		}
		var g columns
		g.build(x, 0.05)
		seen := make([]int, len(x))
		for c := 0; c < g.nx*g.nz; c++ {
			for _, i := range g.idx[g.start[c]:g.start[c+1]] {
				seen[i]++
				if g.of(x[i][0], x[i][2]) != c {
					t.Fatalf("particle %d in column %d, its column is %d", i, c, g.of(x[i][0], x[i][2]))
				}
			}
		}
		if slices.ContainsFunc(seen, func(n int) bool { return n != 1 }) {
			t.Fatalf("spread %g: a particle is not in exactly one column", spread)
		}
		cx, cz, rad := x[7][0], x[7][2], 0.2*spread
		var want, got []int32
		for i, p := range x {
			if (p[0]-cx)*(p[0]-cx)+(p[2]-cz)*(p[2]-cz) <= rad*rad {
				want = append(want, int32(i))
			}
		}
		i0, i1, k0, k1 := g.span(cx, cz, rad)
		for i := i0; i <= i1; i++ {
			for k := k0; k <= k1; k++ {
				for _, p := range g.idx[g.start[i*g.nz+k]:g.start[i*g.nz+k+1]] {
					q := x[p]
					if (q[0]-cx)*(q[0]-cx)+(q[2]-cz)*(q[2]-cz) <= rad*rad {
						got = append(got, p)
					}
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("spread %g: the disc's columns hold %d of the %d particles a scan finds", spread, len(got), len(want))
		}
	}
}
