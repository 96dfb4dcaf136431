//go:build !amd64 || purego

package vec

import "github.com/go-gl/mathgl/mgl64"

func hasAVX2() bool { return false }

func gatherSum4RowsAVX(start, js *int32, gs *float32, v *[4]float64, n int, out *[4]float64) {
	panic("vec: no assembly in this build")
}

func kGradSumRowsAVX(start, js *int32, gs *float32, v, ys *[4]float64, m float64, n int, out *[4]float64) {
	panic("vec: no assembly in this build")
}

func predictSumsAVX(js *int32, gs *float32, n int, x, v *mgl64.Vec3, q *[4]float64, xi, vi *mgl64.Vec3, out *[4][4]float64) {
	panic("vec: no assembly in this build")
}

func factorSumsAVX(js *int32, gs *float32, n int, x, v *mgl64.Vec3, xi, vi *mgl64.Vec3, c *[4]float64, out *[3][4]float64) {
	panic("vec: no assembly in this build")
}

func fitSumsAVX(js *int32, n int, x, y *mgl64.Vec3, xi, yi *mgl64.Vec3, h2 float64, acc *[15][4]float64) int {
	panic("vec: no assembly in this build")
}

func pairScalarsAVX(js *int32, n int, x *mgl64.Vec3, ps, u0, u1, u2 *float64, p *PairArgs) {
	panic("vec: no assembly in this build")
}

func pairTermsAVX(s, u0, u1, u2 *float64, n int, m *[9]float64, pa *mgl64.Vec3) {
	panic("vec: no assembly in this build")
}

func pairForcesAVX(js, pts *int32, n int, pe, pa, x, xp *mgl64.Vec3, hf *[9]float64, a *ForceArgs) {
	panic("vec: no assembly in this build")
}

func stressDivAVX(js *int32, bs *[3]float32, n int, st *[8]float64, out *[12]float64) {
	panic("vec: no assembly in this build")
}

func outerSumsAVX(js *int32, gs *[3]float32, n int, src, o *mgl64.Vec3, out *[12]float64) {
	panic("vec: no assembly in this build")
}

func strainStressRowsAVX(start, js *int32, gs *[3]float32, src *mgl64.Vec3, lo, hi int, c, mu2, mu, lambda float64, st *[8]float64) {
	panic("vec: no assembly in this build")
}

func rotateGradsRowsAVX(start *int32, rc *[12]float64, cs, gs *[3]float32, lo, hi int, sum *[4]float64) {
	panic("vec: no assembly in this build")
}

func rotateEachAVX(js *int32, rc *[12]float64, cs, gs *[3]float32, n int) {
	panic("vec: no assembly in this build")
}

func productRowsAVX(start, js *int32, bs *[3]float32, st *[8]float64, own *[4]float64, src *mgl64.Vec3, pinned *bool, lo, hi int, c, v2 float64, ap *mgl64.Vec3) float64 {
	panic("vec: no assembly in this build")
}

func pfFirstAVX(js *int32, n int, x *mgl64.Vec3, gx, gy, gz, pg *float64, a *PFPass) {
	panic("vec: no assembly in this build")
}

func pfNextAVX(js *int32, n int, x *mgl64.Vec3, dx, dy, dz, pg *float64, a *PFPass) {
	panic("vec: no assembly in this build")
}

func pfWallsAVX(js *int32, n int, x *mgl64.Vec3, vol, gx, gy, gz *float64, store int, a *PFPass) {
	panic("vec: no assembly in this build")
}

func pfResidAVX(js *int32, n int, coef *[2]float64, gx, gy, gz *float64, out *[6][4]float64) {
	panic("vec: no assembly in this build")
}

func pfGatherAVX(js *int32, n int, v, gx, gy, gz *float64, out *[3][4]float64) {
	panic("vec: no assembly in this build")
}

func pfDotAVX(js *int32, n int, d *mgl64.Vec3, gx, gy, gz *float64, out *[4]float64) {
	panic("vec: no assembly in this build")
}

func pfMoveAVX(js *int32, n int, x *mgl64.Vec3, dx, dy, dz, pg *float64, a *PFPass) {
	panic("vec: no assembly in this build")
}

func pfDotsAVX(n int, gx, gy, gz, dx, dy, dz *float64, out *[2][4]float64) {
	panic("vec: no assembly in this build")
}
