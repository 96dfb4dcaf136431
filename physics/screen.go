package physics

// The search's loops that run as AVX2 assembly (screen_amd64.s) where useAVX2 is set, and as
// the Go loops of neighbors.go otherwise; both do the same operations in the same order.

// screenVec screens with AVX2 when the processor has it, else with the Go loop.
func screenVec(cand, near []int32, nx, ny, nz []float32, x, y, z, h2 float32) int {
	n := len(near)
	if !useAVX2 || n == 0 {
		return screen(cand, near, nx, ny, nz, x, y, z, h2)
	}
	if n%8 != 0 || len(cand) < n || len(nx) < n || len(ny) < n || len(nz) < n {
		panic("physics: screenVec needs candidates padded to a multiple of 8")
	}
	return screenAVX2(&cand[0], &near[0], &nx[0], &ny[0], &nz[0], n, x, y, z, h2)
}

// gatherRun writes the sorted indices of the points in the cells (entries < 0 are none) to near
// and their positions relative to o, rounded to single precision, to nx, ny and nz, which
// have room for all of them, and returns their number.
func gatherRun(cells, cellStart []int32, sorted []Vec3, near []int32, nx, ny, nz []float32, ox, oy, oz float64) int {
	if !useAVX2 || len(near) == 0 {
		return gatherRunGo(cells, cellStart, sorted, near, nx, ny, nz, ox, oy, oz)
	}
	if len(cells) != 27 {
		panic("physics: gatherRun needs the 27 cells of a query cell")
	}
	return gatherRunAVX(&cells[0], &cellStart[0], &sorted[0][0], &near[0], &nx[0], &ny[0], &nz[0], ox, oy, oz)
}

// cubicSquared sets w[q], g[q] to the cubic spline's value and gradient factor at the distance
// √r2[q], rounded to single precision, as Kernel.cubic gives them; four at a time with AVX2.
func (kr *Kernel) cubicSquared(r2 []float64, w, g []float32) {
	n := len(r2)
	w, g = w[:n], g[:n]
	n4 := n &^ 3
	if useAVX2 && n4 > 0 {
		cubicAVX(&r2[0], &w[0], &g[0], n4, kr.invH, kr.k, kr.l, kr.k*2, -kr.l)
	} else {
		n4 = 0
	}
	for q := n4; q < n; q++ {
		wq, gq := kr.cubic(sqrt(r2[q]))
		w[q], g[q] = float32(wq), float32(gq)
	}
}

// keepExact writes to js and r2s the points order[k] and squared distances of the candidates k
// of cand (indices into the target grid's sorted positions) that lie closer than √h2 to xi in
// double precision, except the point self (−1 for none), in the order of cand, and returns
// their number; js and r2s have room for len(cand). The squared distance is
// (dx² + dy²) + dz², the same with AVX2 (four candidates at a time) and without, so the lists
// do not depend on the processor.
func keepExact(cand, order []int32, sorted []Vec3, xi *Vec3, h2 float64, self int32, js []int32, r2s []float64) int {
	n := len(cand)
	js, r2s = js[:n], r2s[:n]
	na, t := 0, 0
	if n4 := n &^ 3; useAVX2 && n4 > 0 {
		na = keepAVX2(&cand[0], n4, &order[0], &sorted[0][0], &xi[0], h2, self, &js[0], &r2s[0])
		t = n4
	}
	for ; t < n; t++ {
		k := cand[t]
		j := order[k]
		if j == self {
			continue
		}
		xj := &sorted[k]
		dx, dy, dz := xi[0]-xj[0], xi[1]-xj[1], xi[2]-xj[2]
		r2 := dx*dx + dy*dy + dz*dz
		if r2 >= h2 {
			continue // inside the screen's margin only
		}
		js[na] = j
		r2s[na] = r2
		na++
	}
	return na
}
