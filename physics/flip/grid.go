package flip

import (
	"fmt"
	"math"
)

// Grid is a MAC (staggered) grid over the box [Origin, Origin + h·Dims]: pressures, masses and
// capacities live at the Nx·Ny·Nz cell centres, the d-th velocity component on the faces
// normal to axis d ((Nx+1)·Ny·Nz faces for d = 0, and so on), §3.2 of the chapter. Cell (i,j,k)
// has its centre at Origin + h·(i+½, j+½, k+½); the d = 0 face (i,j,k) sits at
// Origin + h·(i, j+½, k+½). Indices run x fastest.
type Grid struct {
	H      float64 // cell size h (m)
	Origin Vec3    // lower corner of the box (m)
	N      [3]int  // cells per axis
	// FaceN[d] is the face lattice of component d: N with one more along axis d.
	FaceN [3][3]int
}

// Lattice is one of the four sample lattices of a MAC grid: the cell centres (offset ½,½,½)
// or the faces of one component (offset 0 along its axis, ½ along the others).
type Lattice struct {
	N   [3]int
	Off [3]float64 // sample (i,j,k) sits at Origin + h·((i,j,k) + Off)
}

// Len returns the number of samples of the lattice.
func (l *Lattice) Len() int { return l.N[0] * l.N[1] * l.N[2] }

// Index returns the flat index of sample (i,j,k) (x fastest).
func (l *Lattice) Index(i, j, k int) int { return i + l.N[0]*(j+l.N[1]*k) }

// Cells returns the cell-centre lattice.
func (g *Grid) Cells() Lattice { return Lattice{N: g.N, Off: [3]float64{0.5, 0.5, 0.5}} }

// Faces returns the face lattice of velocity component d.
func (g *Grid) Faces(d int) Lattice {
	l := Lattice{N: g.FaceN[d], Off: [3]float64{0.5, 0.5, 0.5}}
	l.Off[d] = 0
	return l
}

// NumCells returns Nx·Ny·Nz.
func (g *Grid) NumCells() int { return g.N[0] * g.N[1] * g.N[2] }

// Max returns the upper corner of the box.
func (g *Grid) Max() Vec3 {
	return Vec3{g.Origin[0] + g.H*float64(g.N[0]), g.Origin[1] + g.H*float64(g.N[1]), g.Origin[2] + g.H*float64(g.N[2])}
}

// BytesPerCell is the grid memory of one cell, counted from the fields a Sim keeps: per cell
// 9 float64 (mass, capacity ρ_max, volume fraction, density, density change, warm-started
// pressure and pseudo-pressure, two power-iteration vectors), 2 int32 (particle count, system
// index) and a solid flag; per face (one per cell and axis, plus the walls') 7 float64 (mass,
// velocity, rasterised velocity, volume fraction, density, position offset, scratch) and an
// int32 mark; per system unknown (at most one per cell) the operator (diagonal, 6
// coefficients, 6 neighbour indices, preconditioner, its scratch) and the solvers' 10 work
// vectors and free flags.
const BytesPerCell = (9*8 + 2*4 + 1) + 3*(7*8+4) + (8 + 6*8 + 6*4 + 8 + 8) + (10*8 + 1)

// newGrid validates the grid's parameters and the memory it would take (refused above
// maxBytes before anything is allocated).
func newGrid(h float64, origin Vec3, n [3]int, maxBytes int64) (Grid, error) {
	if !(h > 0) || math.IsInf(h, 0) {
		return Grid{}, fmt.Errorf("flip: CellSize = %g m must be positive and finite", h)
	}
	for d := 0; d < 3; d++ {
		if math.IsNaN(origin[d]) || math.IsInf(origin[d], 0) {
			return Grid{}, fmt.Errorf("flip: Origin[%d] = %g must be finite", d, origin[d])
		}
		if n[d] < 2 {
			return Grid{}, fmt.Errorf("flip: Dims[%d] = %d cells; need at least 2", d, n[d])
		}
	}
	cells := float64(n[0]) * float64(n[1]) * float64(n[2])
	if need := cells * BytesPerCell; need > float64(maxBytes) {
		return Grid{}, fmt.Errorf("flip: Dims %d×%d×%d (CellSize %g m) needs %.3g bytes of grid memory, more than MaxGridBytes = %d", n[0], n[1], n[2], h, need, maxBytes)
	}
	g := Grid{H: h, Origin: origin, N: n}
	for d := 0; d < 3; d++ {
		g.FaceN[d] = n
		g.FaceN[d][d]++
	}
	return g, nil
}

// stencil is the trilinear filter T of Eq. 3.10-3.12 around one point on one lattice: the
// lower corner (i0,j0,k0) of the 2×2×2 samples it touches and the weights along each axis.
// Weights of samples outside the lattice are dropped when rasterising (the blurred walls of
// §3.3: a half-cell beyond the box is solid, and the capacity ρ_max of Eq. 3.13 drops by the
// same amount) and clamped onto the nearest sample when interpolating.
type stencil struct {
	i0 [3]int
	w  [3][2]float64
}

// makeStencil returns the trilinear stencil of point x on lattice l of grid g.
func (g *Grid) makeStencil(l *Lattice, x Vec3) stencil {
	var s stencil
	inv := 1 / g.H
	for d := 0; d < 3; d++ {
		u := (x[d]-g.Origin[d])*inv - l.Off[d]
		f := math.Floor(u)
		s.i0[d] = int(f)
		t := u - f
		s.w[d] = [2]float64{1 - t, t}
	}
	return s
}

// interp3 returns the trilinear interpolations of the fields q, r and e (all on lattice l) at
// x, sharing one stencil; sample indices beyond the lattice are clamped to its edge
// (constant extrapolation). r and e may be nil (their results are then 0).
func (g *Grid) interp3(l *Lattice, q, r, e []float64, x Vec3) (float64, float64, float64) {
	inv := 1 / g.H
	var i0 [3]int
	var t [3]float64
	inside := true
	for d := 0; d < 3; d++ {
		u := (x[d]-g.Origin[d])*inv - l.Off[d]
		f := math.Floor(u)
		i0[d] = int(f)
		t[d] = u - f
		if i0[d] < 0 || i0[d] > l.N[d]-2 {
			inside = false
		}
	}
	nx, nxy := l.N[0], l.N[0]*l.N[1]
	var o [8]int
	if inside {
		b := i0[0] + nx*i0[1] + nxy*i0[2]
		o = [8]int{b, b + 1, b + nx, b + nx + 1, b + nxy, b + nxy + 1, b + nxy + nx, b + nxy + nx + 1}
	} else {
		var lo, hi [3]int
		for d := 0; d < 3; d++ {
			lo[d] = min(max(i0[d], 0), l.N[d]-1)
			hi[d] = min(max(i0[d]+1, 0), l.N[d]-1)
		}
		o = [8]int{
			lo[0] + nx*lo[1] + nxy*lo[2], hi[0] + nx*lo[1] + nxy*lo[2],
			lo[0] + nx*hi[1] + nxy*lo[2], hi[0] + nx*hi[1] + nxy*lo[2],
			lo[0] + nx*lo[1] + nxy*hi[2], hi[0] + nx*lo[1] + nxy*hi[2],
			lo[0] + nx*hi[1] + nxy*hi[2], hi[0] + nx*hi[1] + nxy*hi[2],
		}
	}
	tx, ty, tz := t[0], t[1], t[2]
	sx, sy, sz := 1-tx, 1-ty, 1-tz
	w := [8]float64{sx * sy * sz, tx * sy * sz, sx * ty * sz, tx * ty * sz, sx * sy * tz, tx * sy * tz, sx * ty * tz, tx * ty * tz}
	a, b, c := 0.0, 0.0, 0.0
	for k := 0; k < 8; k++ {
		a += w[k] * q[o[k]]
	}
	if r != nil {
		for k := 0; k < 8; k++ {
			b += w[k] * r[o[k]]
		}
	}
	if e != nil {
		for k := 0; k < 8; k++ {
			c += w[k] * e[o[k]]
		}
	}
	return a, b, c
}
