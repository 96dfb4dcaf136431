//go:build !purego

package physics

import "github.com/sluicephysics/sluice/physics/internal/vec"

// screenAVX2 is screen over n candidates (a multiple of 8) with AVX2, eight at a time
// (screen_amd64.s); it accepts exactly the candidates screen accepts.
//
//go:noescape
func screenAVX2(cand, near *int32, nx, ny, nz *float32, n int, x, y, z, h2 float32) int

// gatherRunAVX fills near, nx, ny and nz with the points of the 27 cells (screen_amd64.s).
//
//go:noescape
func gatherRunAVX(cells, cellStart *int32, sorted *float64, near *int32, nx, ny, nz *float32, ox, oy, oz float64) int

// cubicAVX evaluates the cubic spline for n squared distances, four at a time
// (screen_amd64.s).
//
//go:noescape
func cubicAVX(r2 *float64, wv, gv *float32, n int, invH, k, l, k2, negL float64)

// keepAVX2 keeps the candidates of a query point that lie inside the support in double
// precision, four at a time (screen_amd64.s); n is a multiple of 4. See keepExact.
//
//go:noescape
func keepAVX2(cand *int32, n int, order *int32, sorted *float64, xi *float64, h2 float64, self int32, js *int32, r2s *float64) int

// packTable[m] lists the set bits of the 8-bit mask m in increasing order, then zeros: the
// permutation that moves a vector's accepted lanes to its front.
var packTable [256][8]int32

// packTable2[m] is packTable[m] for the four float64 lanes of a vector, as the pairs of 32-bit
// lanes VPERMD moves: lane l becomes lanes 2l and 2l + 1.
var packTable2 [16][8]int32

func init() {
	for m := range packTable {
		n := 0
		for b := 0; b < 8; b++ {
			if m&(1<<b) != 0 {
				packTable[m][n] = int32(b)
				n++
			}
		}
	}
	for m := range packTable2 {
		for p := 0; p < 4; p++ {
			l := packTable[m][p]
			packTable2[m][2*p], packTable2[m][2*p+1] = 2*l, 2*l+1
		}
	}
	useAVX2 = vec.HasAVX2
}
