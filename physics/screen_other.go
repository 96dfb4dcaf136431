//go:build !amd64 || purego

package physics

// screenVec is the Go loop where no vector screen is built (other architectures, purego).
func screenVec(cand, near []int32, nx, ny, nz []float32, x, y, z, h2 float32) int {
	return screen(cand, near, nx, ny, nz, x, y, z, h2)
}

// gatherRun is gatherRunGo where no assembly is built.
func gatherRun(cells, cellStart []int32, sorted []Vec3, near []int32, nx, ny, nz []float32, ox, oy, oz float64) int {
	return gatherRunGo(cells, cellStart, sorted, near, nx, ny, nz, ox, oy, oz)
}
