package elastoplastic

// latticeVolume returns the volume of the tetrahedral mesh of an n×n×n lattice body (as made
// by block) carried by its particles' current positions: every lattice cell is split into six
// tetrahedra around its main diagonal (Kuhn's subdivision), and their signed volumes are
// summed. It is a Lagrangian volume measure of the region the particle centres span,
// independent of the solver's F and neighbour lists, and valid while no tetrahedron inverts;
// it also returns the number of inverted tetrahedra, which a caller must check is zero.
func latticeVolume(x []Vec3, n int) (vol float64, inverted int) {
	idx := func(i, j, k int) int { return (i*n+j)*n + k }
	// Kuhn's six paths from corner 000 to 111, one axis at a time.
	perms := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for i := 0; i+1 < n; i++ {
		for j := 0; j+1 < n; j++ {
			for k := 0; k+1 < n; k++ {
				for _, p := range perms {
					c := [3]int{i, j, k}
					var pts [4]Vec3
					pts[0] = x[idx(c[0], c[1], c[2])]
					for s := 0; s < 3; s++ {
						c[p[s]]++
						pts[s+1] = x[idx(c[0], c[1], c[2])]
					}
					a := Vec3{pts[1][0] - pts[0][0], pts[1][1] - pts[0][1], pts[1][2] - pts[0][2]}
					b := Vec3{pts[2][0] - pts[0][0], pts[2][1] - pts[0][1], pts[2][2] - pts[0][2]}
					d := Vec3{pts[3][0] - pts[0][0], pts[3][1] - pts[0][1], pts[3][2] - pts[0][2]}
					v := (a[0]*(b[1]*d[2]-b[2]*d[1]) - a[1]*(b[0]*d[2]-b[2]*d[0]) + a[2]*(b[0]*d[1]-b[1]*d[0])) / 6
					// The orientation of a Kuhn simplex alternates with the parity of the
					// permutation; the sign makes every rest simplex positive.
					if p == [3]int{0, 2, 1} || p == [3]int{1, 0, 2} || p == [3]int{2, 1, 0} {
						v = -v
					}
					if v <= 0 {
						inverted++
					}
					vol += v
				}
			}
		}
	}
	return vol, inverted
}
