package rigid

import (
	"fmt"
	"math"

	"github.com/sluicephysics/sluice/physics"
	"github.com/sluicephysics/sluice/physics/boundary"
)

// Samples places the body's boundary particles (Akinci et al. 2012) in its own frame at about
// the fluid spacing s, in layers: the first layer half a spacing (the particle radius) inside
// the surface, each further layer s deeper. A fluid particle rests about one spacing from the
// nearest sample, so with this inset the fluid's particle volumes (cubes of side s about their
// centres) end at the body's true surface: the fluid displaced is the body's own volume, which
// is what Archimedes' principle needs. The samples of the first layer come first; outer is
// their count (the contact solver uses only them).
func (s *Shape) Samples(spacing float64, layers int) (x []Vec3, outer int, err error) {
	r := 0.5 * spacing
	for l := 0; l < layers; l++ {
		in := r + float64(l)*spacing
		var layer []Vec3
		switch s.Kind {
		case Box:
			h := s.HalfExtents
			if min(h[0], h[1], h[2]) <= in {
				break
			}
			layer, err = boundary.Box(Vec3{-h[0] + in, -h[1] + in, -h[2] + in}, Vec3{h[0] - in, h[1] - in, h[2] - in}, spacing, 1, false)
			if err != nil {
				return nil, 0, err
			}
		case Sphere:
			layer = sphereShell(Vec3{}, s.Radius-in, spacing, -1, 1)
		case Capsule:
			layer = capsuleShell(s.Radius-in, s.HalfLength, spacing)
		case Mesh:
			layer = boundary.Mesh(s.V, s.Tris, spacing, 1, in, false)
		default:
			return nil, 0, fmt.Errorf("unknown shape %v", s.Kind)
		}
		if len(layer) == 0 {
			if l == 0 {
				return nil, 0, fmt.Errorf("%v is too small for one layer of samples at spacing %g m", s.Kind, spacing)
			}
			break // a thin body: the inner layers vanish
		}
		x = append(x, layer...)
		if l == 0 {
			outer = len(x)
		}
		if len(x) > physics.MaxSamples {
			return nil, 0, fmt.Errorf("%v surface would hold more than %d samples at spacing %g m", s.Kind, physics.MaxSamples, spacing)
		}
	}
	return x, outer, nil
}

// sphereShell places about 4πρ²/s² points on the sphere of radius ρ about c (a Fibonacci
// lattice: near-uniform spacing s without poles' clustering), keeping those whose height
// (cos θ) lies in [zlo, zhi], which cuts hemispheres for capsules.
func sphereShell(c Vec3, rho, s float64, zlo, zhi float64) []Vec3 {
	if rho <= 0 {
		return nil
	}
	n := max(1, int(math.Round(4*math.Pi*rho*rho/(s*s))))
	golden := math.Pi * (3 - math.Sqrt(5))
	var out []Vec3
	for i := 0; i < n; i++ {
		y := 1 - (2*float64(i)+1)/float64(n)
		if y < zlo || y > zhi {
			continue
		}
		rr := math.Sqrt(1 - y*y)
		phi := golden * float64(i)
		out = append(out, Vec3{c[0] + rho*rr*math.Cos(phi), c[1] + rho*y, c[2] + rho*rr*math.Sin(phi)})
	}
	return out
}

// capsuleShell samples the capsule surface of radius ρ about the y segment [−h, h]: rings on
// the cylinder about s apart and the two hemispherical caps.
func capsuleShell(rho, h, s float64) []Vec3 {
	if rho <= 0 {
		return nil
	}
	var out []Vec3
	rings := int(math.Round(2 * h / s))
	per := max(3, int(math.Round(2*math.Pi*rho/s)))
	for k := 0; k <= rings && h > 0; k++ {
		y := -h
		if rings > 0 {
			y += 2 * h * float64(k) / float64(rings)
		}
		off := 0.5 * float64(k%2) // stagger the rings
		for i := 0; i < per; i++ {
			a := 2 * math.Pi * (float64(i) + off) / float64(per)
			out = append(out, Vec3{rho * math.Cos(a), y, rho * math.Sin(a)})
		}
	}
	// caps: the upper and lower halves of a full sphere lattice, strictly beyond the equator
	// rings already placed
	eq := 0.5 * s / rho
	for _, p := range sphereShell(Vec3{}, rho, s, -1, 1) {
		switch {
		case p[1] > eq*rho:
			out = append(out, Vec3{p[0], p[1] + h, p[2]})
		case p[1] < -eq*rho:
			out = append(out, Vec3{p[0], p[1] - h, p[2]})
		}
	}
	return out
}

// InteriorPoints returns points filling the shape on a lattice of spacing at least s/4 (coarser
// when the body would need more than maxPoints), each standing for an equal share of the
// volume. The world uses them to measure the fraction of a body below the water surface.
func (s *Shape) InteriorPoints(spacing float64, maxPoints int) []Vec3 {
	lo, hi := s.Bounds()
	h := spacing / 4
	for {
		n := 1.0
		for d := 0; d < 3; d++ {
			n *= math.Max(1, math.Floor((hi[d]-lo[d])/h))
		}
		if n <= float64(maxPoints) {
			break
		}
		h *= 1.2
	}
	var out []Vec3
	var n [3]int
	for d := 0; d < 3; d++ {
		n[d] = max(1, int(math.Floor((hi[d]-lo[d])/h)))
	}
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			for i := 0; i < n[0]; i++ {
				// cell centres of a lattice that exactly spans the bounds
				p := Vec3{
					lo[0] + (float64(i)+0.5)*(hi[0]-lo[0])/float64(n[0]),
					lo[1] + (float64(j)+0.5)*(hi[1]-lo[1])/float64(n[1]),
					lo[2] + (float64(k)+0.5)*(hi[2]-lo[2])/float64(n[2]),
				}
				if d, _ := s.Distance(p); d < 0 {
					out = append(out, p)
				}
			}
		}
	}
	return out
}
