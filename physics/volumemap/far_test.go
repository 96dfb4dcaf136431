package volumemap

import (
	"math/rand/v2"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// TestFarSkipsOnlyWhereThereIsNoParticle: on the DamBreakModel tank, at 20000 random points
// in and around it, Far never claims a point whose virtual particle At and Offset would place
// within the support (Offset(φ, R) < H with V > 0), and it claims every point 2.75H or more
// from every wall, where all stencil nodes lie at φ ≥ H (the farthest node is 2√3 cells =
// 1.73H away at the default cell; a Far that always answered false would fail this).
func TestFarSkipsOnlyWhereThereIsNoParticle(t *testing.T) {
	v, tr, o := tank(t)
	m, err := Build(v, tr, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := m.Bounds()
	rng := rand.New(rand.NewPCG(3, 5))
	deep, deepFar := 0, 0
	for range 20000 {
		var x physics.Vec3
		for d := range 3 {
			x[d] = lo[d] - 0.1 + (hi[d]-lo[d]+0.2)*rng.Float64()
		}
		far := m.Far(x)
		phi, vol, _, ok := m.At(x)
		if far && ok && vol > 0 && Offset(phi, o.R) < o.H {
			t.Fatalf("Far(%v) but At gives V = %g at φ = %g, a particle within the support", x, vol, phi)
		}
		if ok && phi >= 2.75*o.H {
			deep++
			if far {
				deepFar++
			}
		}
	}
	if deep < 1000 || deepFar != deep {
		t.Fatalf("%d of %d points 2.75H or more from the walls are Far; want all (and at least 1000 such points)", deepFar, deep)
	}
}
