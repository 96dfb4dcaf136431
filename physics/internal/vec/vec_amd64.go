//go:build !purego

package vec

import "github.com/go-gl/mathgl/mgl64"

//go:noescape
func gatherSum4RowsAVX(start, js *int32, gs *float32, v *[4]float64, n int, out *[4]float64)

//go:noescape
func kGradSumRowsAVX(start, js *int32, gs *float32, v, ys *[4]float64, m float64, n int, out *[4]float64)

//go:noescape
func predictSumsAVX(js *int32, gs *float32, n int, x, v *mgl64.Vec3, q *[4]float64, xi, vi *mgl64.Vec3, out *[4][4]float64)

//go:noescape
func factorSumsAVX(js *int32, gs *float32, n int, x, v *mgl64.Vec3, xi, vi *mgl64.Vec3, c *[4]float64, out *[3][4]float64)

//go:noescape
func fitSumsAVX(js *int32, n int, x, y *mgl64.Vec3, xi, yi *mgl64.Vec3, h2 float64, acc *[15][4]float64) int

//go:noescape
func pairScalarsAVX(js *int32, n int, x *mgl64.Vec3, ps, u0, u1, u2 *float64, p *PairArgs)

//go:noescape
func pairTermsAVX(s, u0, u1, u2 *float64, n int, m *[9]float64, pa *mgl64.Vec3)

//go:noescape
func pairForcesAVX(js, pts *int32, n int, pe, pa, x, xp *mgl64.Vec3, hf *[9]float64, a *ForceArgs)

//go:noescape
func stressDivAVX(js *int32, bs *[3]float32, n int, st *[8]float64, out *[12]float64)

//go:noescape
func outerSumsAVX(js *int32, gs *[3]float32, n int, src, o *mgl64.Vec3, out *[12]float64)

//go:noescape
func productRowsAVX(start, js *int32, bs *[3]float32, st *[8]float64, own *[4]float64, src *mgl64.Vec3, pinned *bool, lo, hi int, c, v2 float64, ap *mgl64.Vec3) float64

//go:noescape
func strainStressRowsAVX(start, js *int32, gs *[3]float32, src *mgl64.Vec3, lo, hi int, c, mu2, mu, lambda float64, st *[8]float64)

//go:noescape
func rotateGradsRowsAVX(start *int32, rc *[12]float64, cs, gs *[3]float32, lo, hi int, sum *[4]float64)

//go:noescape
func rotateEachAVX(js *int32, rc *[12]float64, cs, gs *[3]float32, n int)

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// hasAVX2: CPUID leaf 1 ECX bits 23 (POPCNT), 27 (OSXSAVE) and 28 (AVX), XCR0 bits 1–2 (the
// system saves the XMM and YMM registers), leaf 7 EBX bit 5 (AVX2).
func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const popcnt, osxsave, avx = 1 << 23, 1 << 27, 1 << 28
	if c1&(popcnt|osxsave|avx) != popcnt|osxsave|avx {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

//go:noescape
func pfFirstAVX(js *int32, n int, x *mgl64.Vec3, gx, gy, gz, pg *float64, a *PFPass)

//go:noescape
func pfNextAVX(js *int32, n int, x *mgl64.Vec3, dx, dy, dz, pg *float64, a *PFPass)

//go:noescape
func pfWallsAVX(js *int32, n int, x *mgl64.Vec3, vol, gx, gy, gz *float64, store int, a *PFPass)

//go:noescape
func pfResidAVX(js *int32, n int, coef *[2]float64, gx, gy, gz *float64, out *[6][4]float64)

//go:noescape
func pfGatherAVX(js *int32, n int, v, gx, gy, gz *float64, out *[3][4]float64)

//go:noescape
func pfDotAVX(js *int32, n int, d *mgl64.Vec3, gx, gy, gz *float64, out *[4]float64)

//go:noescape
func pfMoveAVX(js *int32, n int, x *mgl64.Vec3, dx, dy, dz, pg *float64, a *PFPass)

//go:noescape
func pfDotsAVX(n int, gx, gy, gz, dx, dy, dz *float64, out *[2][4]float64)
