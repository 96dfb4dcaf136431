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

// cubicSquared sets w[q], g[q] to the cubic spline's value and gradient factor at the distance
// √r2[q], rounded to single precision, as Kernel.cubic gives them.
func (kr *Kernel) cubicSquared(r2 []float64, w, g []float32) {
	for q := range r2 {
		wq, gq := kr.cubic(sqrt(r2[q]))
		w[q], g[q] = float32(wq), float32(gq)
	}
}
