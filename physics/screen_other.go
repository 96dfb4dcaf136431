//go:build !amd64 || purego

package physics

// Where no assembly is built (other architectures, -tags purego) useAVX2 stays false and these
// are never called.

func screenAVX2(cand, near *int32, nx, ny, nz *float32, n int, x, y, z, h2 float32) int {
	panic("physics: no assembly in this build")
}

func gatherRunAVX(cells, cellStart *int32, sorted *float64, near *int32, nx, ny, nz *float32, ox, oy, oz float64) int {
	panic("physics: no assembly in this build")
}

func cubicAVX(r2 *float64, wv, gv *float32, n int, invH, k, l, k2, negL float64) {
	panic("physics: no assembly in this build")
}

func keepAVX2(cand *int32, n int, order *int32, sorted *float64, xi *float64, h2 float64, self int32, js *int32, r2s *float64) int {
	panic("physics: no assembly in this build")
}
