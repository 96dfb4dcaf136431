package flip

import (
	"fmt"
	"math"
)

// ObstacleKind selects the shape of a static obstacle.
type ObstacleKind int

const (
	// ObstacleBox is the axis-aligned box [Min, Max].
	ObstacleBox ObstacleKind = iota
	// ObstacleSphere is the ball of radius Radius around Center.
	ObstacleSphere
	// ObstacleSDF is any solid given by its signed distance: SDF(x) returns the distance of x
	// to the surface (negative inside) and the outward unit normal there; Min and Max bound
	// the solid (outside them SDF is never consulted). A world's solid walls (boxes, closed
	// meshes with their distance grids) enter the liquid this way.
	ObstacleSDF
)

// Obstacle is a static solid inside the box. The box walls themselves are always solid.
type Obstacle struct {
	Kind     ObstacleKind
	Min, Max Vec3    // box corners (m)
	Center   Vec3    // sphere centre (m)
	Radius   float64 // sphere radius (m)
	// SDF is the signed distance and outward normal of an ObstacleSDF (m).
	SDF func(x Vec3) (float64, Vec3)
}

func (o *Obstacle) validate(i int) error {
	switch o.Kind {
	case ObstacleBox:
		for d := 0; d < 3; d++ {
			if !(o.Max[d] > o.Min[d]) || math.IsInf(o.Max[d]-o.Min[d], 0) {
				return fmt.Errorf("flip: obstacle %d: Max[%d] = %g must exceed Min[%d] = %g", i, d, o.Max[d], d, o.Min[d])
			}
		}
	case ObstacleSphere:
		if !(o.Radius > 0) || math.IsInf(o.Radius, 0) {
			return fmt.Errorf("flip: obstacle %d: Radius = %g must be positive and finite", i, o.Radius)
		}
		for d := 0; d < 3; d++ {
			if math.IsNaN(o.Center[d]) || math.IsInf(o.Center[d], 0) {
				return fmt.Errorf("flip: obstacle %d: Center[%d] = %g must be finite", i, d, o.Center[d])
			}
		}
	case ObstacleSDF:
		if o.SDF == nil {
			return fmt.Errorf("flip: obstacle %d: an ObstacleSDF needs its SDF", i)
		}
		for d := 0; d < 3; d++ {
			if !(o.Max[d] > o.Min[d]) || math.IsInf(o.Max[d]-o.Min[d], 0) {
				return fmt.Errorf("flip: obstacle %d: Max[%d] = %g must exceed Min[%d] = %g", i, d, o.Max[d], d, o.Min[d])
			}
		}
	default:
		return fmt.Errorf("flip: obstacle %d: unknown Kind %d", i, o.Kind)
	}
	return nil
}

// bounds returns the obstacle's bounding box.
func (o *Obstacle) bounds() (lo, hi Vec3) {
	if o.Kind == ObstacleSphere {
		r := Vec3{o.Radius, o.Radius, o.Radius}
		return o.Center.Sub(r), o.Center.Add(r)
	}
	return o.Min, o.Max
}

// distance returns the signed distance of x to the obstacle's surface (negative inside) and
// the closest surface point.
func (o *Obstacle) distance(x Vec3) (float64, Vec3) {
	if o.Kind == ObstacleSphere {
		d := x.Sub(o.Center)
		l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		if l == 0 {
			return -o.Radius, o.Center.Add(Vec3{0, o.Radius, 0})
		}
		return l - o.Radius, o.Center.Add(d.Mul(o.Radius / l))
	}
	if o.Kind == ObstacleSDF {
		for d := 0; d < 3; d++ {
			if x[d] < o.Min[d] || x[d] > o.Max[d] {
				return math.Inf(1), x // beyond the bounds: outside, and no surface point needed
			}
		}
		dist, n := o.SDF(x)
		return dist, Vec3{x[0] - dist*n[0], x[1] - dist*n[1], x[2] - dist*n[2]}
	}
	inside := true
	out := 0.0
	for d := 0; d < 3; d++ {
		if x[d] < o.Min[d] || x[d] > o.Max[d] {
			inside = false
			e := max(o.Min[d]-x[d], x[d]-o.Max[d])
			out += e * e
		}
	}
	if !inside {
		p := x
		for d := 0; d < 3; d++ {
			p[d] = min(max(p[d], o.Min[d]), o.Max[d])
		}
		return math.Sqrt(out), p
	}
	// Inside: the nearest face.
	best, bd, side := math.Inf(1), 0, 0.0
	for d := 0; d < 3; d++ {
		if e := x[d] - o.Min[d]; e < best {
			best, bd, side = e, d, o.Min[d]
		}
		if e := o.Max[d] - x[d]; e < best {
			best, bd, side = e, d, o.Max[d]
		}
	}
	p := x
	p[bd] = side
	return -best, p
}

// fractionSamples is the number of quadrature points per cell width and axis used for the
// integral of Eq. 3.13: the filter's support [−h, h]³ gets (2·4)³ = 512 midpoint samples. The
// sub-cells' edges fall on the half-cell lattice, so the box walls (at whole cells from
// every sample) are integrated exactly, and other obstacle surfaces to within a sub-cell.
const fractionSamples = 4

// fractions computes the volume fraction of Eq. 3.13 on every sample of lattice l: the
// trilinear-weighted fraction of the filter's support that lies inside the box and outside
// every obstacle, ∫T(x − x_c) f(x) dV / ∫T(x − x_c) dV, by uniform sampling (§3.3). Samples
// whose support misses the walls and all obstacles get exactly 1 without sampling.
func (g *Grid) fractions(l *Lattice, obs []Obstacle, out []float64) {
	h := g.H
	top := g.Max()
	const m = 2 * fractionSamples
	var off [m]float64
	var wt [m]float64
	for a := 0; a < m; a++ {
		s := (float64(a)+0.5)/fractionSamples - 1 // in units of h, in (−1, 1)
		off[a] = s * h
		wt[a] = 1 - math.Abs(s)
	}
	los := make([]Vec3, len(obs))
	his := make([]Vec3, len(obs))
	for i := range obs {
		los[i], his[i] = obs[i].bounds()
	}
	for k := 0; k < l.N[2]; k++ {
		for j := 0; j < l.N[1]; j++ {
			for i := 0; i < l.N[0]; i++ {
				c := Vec3{
					g.Origin[0] + h*(float64(i)+l.Off[0]),
					g.Origin[1] + h*(float64(j)+l.Off[1]),
					g.Origin[2] + h*(float64(k)+l.Off[2]),
				}
				near := false
				for d := 0; d < 3; d++ {
					if c[d]-h < g.Origin[d] || c[d]+h > top[d] {
						near = true
					}
				}
				var hit []int
				for o := range obs {
					if c[0]+h > los[o][0] && c[0]-h < his[o][0] && c[1]+h > los[o][1] && c[1]-h < his[o][1] && c[2]+h > los[o][2] && c[2]-h < his[o][2] {
						hit = append(hit, o)
					}
				}
				idx := l.Index(i, j, k)
				if !near && len(hit) == 0 {
					out[idx] = 1
					continue
				}
				num, den := 0.0, 0.0
				for c2 := 0; c2 < m; c2++ {
					z := c[2] + off[c2]
					for b := 0; b < m; b++ {
						y := c[1] + off[b]
						for a := 0; a < m; a++ {
							x := c[0] + off[a]
							w := wt[a] * wt[b] * wt[c2]
							den += w
							p := Vec3{x, y, z}
							if x < g.Origin[0] || y < g.Origin[1] || z < g.Origin[2] || x > top[0] || y > top[1] || z > top[2] {
								continue
							}
							solid := false
							for _, o := range hit {
								if d, _ := obs[o].distance(p); d < 0 {
									solid = true
									break
								}
							}
							if !solid {
								num += w
							}
						}
					}
				}
				out[idx] = num / den
			}
		}
	}
}
