package physics

import (
	"fmt"
	"math"
)

// MaxSamples bounds the particles one sampling call may create (fluid blocks, walls): a scene
// asking for more is almost surely a unit mistake, and is refused before any allocation.
const MaxSamples = 100_000_000

// FluidBlock fills [lo, hi] with particles on a cubic lattice of spacing s = 2r, using the
// sampling rule of SPlisHSPlasH's fluid blocks (its denseMode 0): steps_d = round(L_d/s) − 1
// particles per axis at lo + s·(1 + j), so a block touching a wall keeps a spacing's gap to
// it. A 1 m cube at r = 0.025 gives 19³ = 6859 particles.
func FluidBlock(lo, hi Vec3, s float64) ([]Vec3, error) {
	if !(s > 0) {
		return nil, fmt.Errorf("fluid spacing %g must be > 0", s)
	}
	var n [3]int
	for d := 0; d < 3; d++ {
		if !(hi[d] > lo[d]) {
			return nil, fmt.Errorf("box max[%d] = %g must exceed min[%d] = %g", d, hi[d], d, lo[d])
		}
		n[d] = int(math.Round((hi[d]-lo[d])/s)) - 1
		if n[d] < 1 {
			return nil, fmt.Errorf("box is %g m on axis %d, too thin for one particle at spacing %g m (needs ≥ %g m)", hi[d]-lo[d], d, s, 1.5*s)
		}
	}
	if total := float64(n[0]) * float64(n[1]) * float64(n[2]); total > MaxSamples {
		return nil, fmt.Errorf("box would hold %.3g particles at spacing %g m, more than the limit %.0g", total, s, float64(MaxSamples))
	}
	out := make([]Vec3, 0, n[0]*n[1]*n[2])
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			for i := 0; i < n[0]; i++ {
				out = append(out, Vec3{lo[0] + s*float64(1+i), lo[1] + s*float64(1+j), lo[2] + s*float64(1+k)})
			}
		}
	}
	return out, nil
}

// FluidSphere fills the ball of the given centre and radius with particles on a cubic
// lattice of spacing s centred on the ball's centre: every lattice point at most radius − s/2
// from the centre, so the ball's volume is (number of particles)·s³ within the lattice's
// surface error and no particle sits on the nominal surface.
func FluidSphere(center Vec3, radius, s float64) ([]Vec3, error) {
	return fluidBall(center, radius, s, 3, "sphere")
}

// fluidBall is FluidSphere (dims 3) and FluidDisc (dims 2: the square lattice of the x–y
// plane at z = 0, the centre's z ignored).
func fluidBall(center Vec3, radius, s float64, dims int, what string) ([]Vec3, error) {
	if !(s > 0) {
		return nil, fmt.Errorf("fluid spacing %g must be > 0", s)
	}
	if !(radius >= s) || math.IsInf(radius, 0) {
		return nil, fmt.Errorf("%s radius %g m must be at least the spacing %g m", what, radius, s)
	}
	m := int(math.Floor(radius / s))
	if total := math.Pow(float64(2*m+1), float64(dims)); total > MaxSamples {
		return nil, fmt.Errorf("%s would hold %.3g particles at spacing %g m, more than the limit %.0g", what, total, s, float64(MaxSamples))
	}
	mz, cz := m, center[2]
	if dims == 2 {
		mz, cz = 0, 0
	}
	lim := radius - 0.5*s
	var out []Vec3
	for k := -mz; k <= mz; k++ {
		for j := -m; j <= m; j++ {
			for i := -m; i <= m; i++ {
				x, y, z := s*float64(i), s*float64(j), s*float64(k)
				if x*x+y*y+z*z <= lim*lim {
					out = append(out, Vec3{center[0] + x, center[1] + y, cz + z})
				}
			}
		}
	}
	return out, nil
}

// FluidRect is FluidBlock for a 2D world: the rectangle [lo, hi] of the x–y plane filled on a
// square lattice of spacing s by the same rule (round(L_d/s) − 1 particles on each of x and y,
// at lo + s·(1 + j)), all at z = 0; the box's z extent is ignored, as SPlisHSPlasH's 2D
// scenes give blocks a depth that their 2D sampling ignores.
func FluidRect(lo, hi Vec3, s float64) ([]Vec3, error) {
	flat := func(v Vec3) Vec3 { return Vec3{v[0], v[1], -s} }
	top := Vec3{hi[0], hi[1], s}
	x, err := FluidBlock(flat(lo), top, s)
	for i := range x {
		x[i][2] = 0 // the block rule's one layer at −s + s = 0
	}
	return x, err
}

// FluidDisc is FluidSphere for a 2D world: the disc of the given centre (its z ignored) and
// radius in the x–y plane, filled on a square lattice of spacing s centred on the centre with
// every point at most radius − s/2 from it, all at z = 0.
func FluidDisc(center Vec3, radius, s float64) ([]Vec3, error) {
	return fluidBall(center, radius, s, 2, "disc")
}
