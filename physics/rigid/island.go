package rigid

import "math"

// maxIslandRows bounds the rows of a joint island that is solved directly: its dense factor
// costs n³/6 multiply-adds per substep and n² per iteration, 0.15 M and 9 k at 96 rows (a
// wheel of 15 welded paddles on a hinge). Larger islands fall back to one block per joint.
const maxIslandRows = 96

// pivotTol is the relative size below which a pivot of an island's factor marks its row as
// dependent on the rows before it (a closed loop of joints, or a body welded to the world by
// two joints): the row's impulse is then left at zero, which solves the consistent system.
const pivotTol = 1e-10

// jointIsland is a set of joints connected through dynamic bodies. Its rows are solved as one
// system, K λ = −c with K = J M⁻¹ Jᵀ over all its rows, because Gauss-Seidel between joints
// does not converge when a light body is held between heavy ones (a hub with welded paddles:
// each joint's correction undoes the others', and the error grows).
type jointIsland struct {
	first, count int // joints: s.islandJoints[first : first+count]
	n            int // rows; 0 when the island is too large and solved joint by joint
	factor       int // offset of its n x n factor in s.islandFactor
}

// buildIslands groups the joints into islands (union-find over the dynamic bodies they join;
// static, kinematic and world ends do not connect), numbered in the order of their first
// joint, and factors each island's K. The joints' rows must be prepared.
func (s *Solver) buildIslands() {
	nb := len(s.Bodies)
	s.parent = resize(s.parent, nb)
	s.islandOf = resize(s.islandOf, nb)
	for i := range s.parent {
		s.parent[i] = int32(i)
		s.islandOf[i] = -1
	}
	dyn := func(i int) bool { return i >= 0 && s.Bodies[i].Motion == Dynamic && !s.Bodies[i].Asleep }
	for k := range s.Joints {
		j := &s.Joints[k]
		if dyn(j.A) && dyn(j.B) {
			ra, rb := s.find(int32(j.A)), s.find(int32(j.B))
			if ra != rb {
				s.parent[max(ra, rb)] = min(ra, rb)
			}
		}
	}
	s.islands = s.islands[:0]
	s.jointIsland = resize(s.jointIsland, len(s.Joints))
	for k := range s.Joints {
		j := &s.Joints[k]
		root := int32(-1)
		if dyn(j.A) {
			root = s.find(int32(j.A))
		} else if dyn(j.B) {
			root = s.find(int32(j.B))
		}
		if root >= 0 && s.islandOf[root] >= 0 {
			s.jointIsland[k] = s.islandOf[root]
			s.islands[s.islandOf[root]].count++
			continue
		}
		if root >= 0 {
			s.islandOf[root] = int32(len(s.islands))
		}
		s.jointIsland[k] = int32(len(s.islands))
		s.islands = append(s.islands, jointIsland{count: 1})
	}
	off := 0
	for i := range s.islands {
		s.islands[i].first = off
		off += s.islands[i].count
		s.islands[i].count = 0
	}
	s.islandJoints = resize(s.islandJoints, len(s.Joints))
	for k := range s.Joints {
		is := &s.islands[s.jointIsland[k]]
		s.islandJoints[is.first+is.count] = int32(k)
		is.count++
	}
	size := 0
	for i := range s.islands {
		is := &s.islands[i]
		n := 0
		for _, k := range s.islandJoints[is.first : is.first+is.count] {
			s.Joints[k].off = n
			n += s.Joints[k].n
		}
		if limit := s.islandRows; (limit > 0 && n > limit) || n > maxIslandRows {
			n = 0
		}
		is.n, is.factor = n, size
		size += n * n
	}
	s.islandFactor = resize(s.islandFactor, size)
	for i := range s.islands {
		if is := &s.islands[i]; is.n > 0 {
			s.factorIsland(is)
			for _, k := range s.islandJoints[is.first : is.first+is.count] {
				if j := &s.Joints[k]; j.Kind == Hinge || j.Kind == Slider {
					s.motorMass(is, j)
				}
			}
		} else {
			for _, k := range s.islandJoints[is.first : is.first+is.count] {
				j := &s.Joints[k]
				a, b := s.jointBodies(j)
				s.jointMass(j, a, b)
				if j.Kind == Hinge || j.Kind == Slider {
					s.motorMass(nil, j)
				}
			}
		}
	}
}

// find returns the root of body i's set, halving the path on the way.
func (s *Solver) find(i int32) int32 {
	for s.parent[i] != i {
		s.parent[i] = s.parent[s.parent[i]]
		i = s.parent[i]
	}
	return i
}

// side is one body's part of a joint row: its index (−1 for the world), linear and angular
// Jacobian.
type side struct {
	body   int
	la, aa Vec3
}

// factorIsland assembles the island's K = J M⁻¹ Jᵀ (lower triangle) and factors it in place,
// K = L Lᵀ, leaving dependent rows (pivot below pivotTol of their diagonal) out.
func (s *Solver) factorIsland(is *jointIsland) {
	n := is.n
	k := s.islandFactor[is.factor : is.factor+n*n]
	joints := s.islandJoints[is.first : is.first+is.count]
	for _, ka := range joints {
		ja := &s.Joints[ka]
		for r := 0; r < ja.n; r++ {
			ra := &ja.rows[r]
			sr := [2]side{{ja.A, ra.la, ra.aa}, {ja.B, ra.lb, ra.ab}}
			row := ja.off + r
			for _, kb := range joints {
				jb := &s.Joints[kb]
				if jb.off > row {
					break
				}
				for c := 0; c < jb.n && jb.off+c <= row; c++ {
					rb := &jb.rows[c]
					sc := [2]side{{jb.A, rb.la, rb.aa}, {jb.B, rb.lb, rb.ab}}
					v := 0.0
					for _, p := range sr {
						if p.body < 0 || s.Bodies[p.body].Motion != Dynamic || s.Bodies[p.body].Asleep {
							continue
						}
						b := &s.Bodies[p.body]
						ia := b.invI.MulVec(p.aa)
						for _, q := range sc {
							if q.body == p.body {
								v += linDot(b, p.la, q.la) + dot(ia, q.aa)
							}
						}
					}
					k[row*n+jb.off+c] = v
				}
			}
		}
	}
	cholesky(k, n)
}

// solveIsland solves the island's rows together for the bodies' present velocities: the
// impulses Δλ = −K⁻¹ c that make every row's velocity c (plus the position bias) zero at
// once, added to the accumulated impulses and applied.
func (s *Solver) solveIsland(is *jointIsland, dt float64, bias bool) {
	n := is.n
	s.islandRHS = resize(s.islandRHS, n)
	x := s.islandRHS
	joints := s.islandJoints[is.first : is.first+is.count]
	for _, kj := range joints {
		j := &s.Joints[kj]
		a, b := s.jointBodies(j)
		for r := 0; r < j.n; r++ {
			x[j.off+r] = -j.rowError(r, a, b, dt, bias)
		}
	}
	s.backsolve(is, x)
	for _, kj := range joints {
		j := &s.Joints[kj]
		a, b := s.jointBodies(j)
		dl := x[j.off : j.off+j.n]
		for r, v := range dl {
			j.Lambda[r] += v
		}
		s.applyRows(j, a, b, dl)
	}
}

// backsolve overwrites x with K⁻¹ x for the island's factor K = L Lᵀ (dependent rows get 0).
func (s *Solver) backsolve(is *jointIsland, x []float64) {
	cholSolve(s.islandFactor[is.factor:is.factor+is.n*is.n], is.n, x)
}

// cholesky factors the symmetric positive semi-definite n x n matrix k (its lower triangle,
// row-major) in place, k = L Lᵀ, leaving out the rows whose pivot falls below pivotTol of
// their diagonal (dependent on the rows before: their column of L is zero).
func cholesky(k []float64, n int) {
	for c := 0; c < n; c++ {
		d := k[c*n+c]
		diag := d
		for q := 0; q < c; q++ {
			d -= k[c*n+q] * k[c*n+q]
		}
		if !(d > pivotTol*diag) {
			for r := c; r < n; r++ {
				k[r*n+c] = 0
			}
			continue
		}
		d = math.Sqrt(d)
		k[c*n+c] = d
		for r := c + 1; r < n; r++ {
			v := k[r*n+c]
			for q := 0; q < c; q++ {
				v -= k[r*n+q] * k[c*n+q]
			}
			k[r*n+c] = v / d
		}
	}
}

// cholSolve overwrites x with K⁻¹ x for the factor cholesky left in l (the left-out rows get
// 0, which solves a consistent system).
func cholSolve(l []float64, n int, x []float64) {
	for c := 0; c < n; c++ {
		d := l[c*n+c]
		if d == 0 {
			x[c] = 0
			continue
		}
		v := x[c]
		for q := 0; q < c; q++ {
			v -= l[c*n+q] * x[q]
		}
		x[c] = v / d
	}
	for c := n - 1; c >= 0; c-- {
		d := l[c*n+c]
		if d == 0 {
			x[c] = 0
			continue
		}
		v := x[c]
		for r := c + 1; r < n; r++ {
			v -= l[r*n+c] * x[r]
		}
		x[c] = v / d
	}
}

// motorMass sets a hinge's or slider's free-row effective mass to the one the island leaves
// it: with the island's rows held, an impulse Λ along the free row Jf changes its velocity by
// (Jf M⁻¹ Jfᵀ − yᵀ K⁻¹ y) Λ, y = J M⁻¹ Jfᵀ. A hub's own inertia would be the wrong mass when
// paddles are welded to it: the motor would overshoot on every pass and its Gauss-Seidel
// exchange with the island converge slowly. Without an island factor (is nil) it is the
// joint's own 1/(Jf M⁻¹ Jfᵀ).
func (s *Solver) motorMass(is *jointIsland, j *Joint) {
	a, b := s.jointBodies(j)
	f := &j.free
	_, ia := invMass(a)
	_, ib := invMass(b)
	ma, mb := ia.MulVec(f.aa), ib.MulVec(f.ab)
	eff0 := linDot(a, f.la, f.la) + dot(f.aa, ma) + linDot(b, f.lb, f.lb) + dot(f.ab, mb)
	eff := eff0
	if is != nil {
		s.islandTmp = resize(s.islandTmp, is.n)
		y := s.islandTmp
		for _, kj := range s.islandJoints[is.first : is.first+is.count] {
			jr := &s.Joints[kj]
			for r := 0; r < jr.n; r++ {
				ro := &jr.rows[r]
				v := 0.0
				for _, p := range [2]side{{jr.A, ro.la, ro.aa}, {jr.B, ro.lb, ro.ab}} {
					if p.body < 0 {
						continue
					}
					if p.body == j.A {
						v += linDot(a, p.la, f.la) + dot(p.aa, ma)
					}
					if p.body == j.B {
						v += linDot(b, p.la, f.lb) + dot(p.aa, mb)
					}
				}
				y[jr.off+r] = v
			}
		}
		s.islandRHS = resize(s.islandRHS, is.n)
		z := s.islandRHS
		copy(z, y)
		s.backsolve(is, z)
		for r := range y {
			eff -= y[r] * z[r]
		}
	}
	j.kfree = 0
	if eff > pivotTol*eff0 {
		j.kfree = 1 / eff
	}
}

// resize returns s with length n, reusing its storage when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
