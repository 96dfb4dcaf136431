package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// pfSpline is the cubic spline of support h written out independently of PFPass.eval:
// W(r) = 8/(πh³)·(6q³ − 6q² + 1) for q ≤ ½, 16/(πh³)(1 − q)³ for q < 1, and
// g = W'(r)/r = 48/(πh³)·(3q − 2)/h² or −48/(πh³)(1 − q)²/(h r).
func pfSpline(r, h float64) (w, g float64) {
	q := r / h
	c := 1 / (math.Pi * h * h * h)
	switch {
	case q >= 1:
		return 0, 0
	case q <= 0.5:
		return 8 * c * (6*q*q*q - 6*q*q + 1), 48 * c * (3*q - 2) / (h * h)
	default:
		return 16 * c * math.Pow(1-q, 3), -48 * c * (1 - q) * (1 - q) / (h * r)
	}
}

type pfCase struct {
	x   []mgl64.Vec3
	vol []float64
	js  []int32
	p   mgl64.Vec3
	h   float64
}

// pfRandom: n neighbours of p at distances up to 1.2 h (some beyond the support, some within
// h/2, one coincident with p where n > 5), each index into x.
func pfRandom(rng *rand.Rand, n int) pfCase {
	c := pfCase{h: 0.1, p: mgl64.Vec3{0.3, -0.2, 0.7}}
	c.x = make([]mgl64.Vec3, 2*n+3)
	c.vol = make([]float64, len(c.x))
	for k := range c.x {
		u := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		c.x[k] = c.p.Add(u.Mul(1.2 * c.h * rng.Float64()))
		c.vol[k] = 1e-6 * (0.5 + rng.Float64())
	}
	if n > 5 {
		c.x[5] = c.p
	}
	c.js = make([]int32, n)
	for k := range c.js {
		c.js[k] = int32(rng.IntN(len(c.x)))
	}
	return c
}

func (c *pfCase) pass() *PFPass {
	var a PFPass
	h := c.h
	a.SetKernel(1/h, 1/(h*h), 8/(math.Pi*h*h*h), 48/(math.Pi*h*h*h))
	a.SetConstraint(&c.p, 2.5e-7)
	po := c.p.Add(mgl64.Vec3{1e-3, -2e-3, 5e-4})
	a.SetStep(&po, -0.37)
	return &a
}

func bitsEqual(a, b []float64) int {
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return k
		}
	}
	return -1
}

// TestPFPassFormula: on random neighbourhoods, First's gradients and sums, Next's and Move's
// moves, Dots and Walls' sums are the spline and the sums written out independently, within
// 1e-12 relative (round-off of a different evaluation order).
func TestPFPassFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const tol = 1e-12
	for _, n := range []int{1, 4, 7, 33, 64} {
		c := pfRandom(rng, n)
		a := c.pass()
		vi := 2.5e-7
		gx, gy, gz, pg := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		sw, sx, sy, sz, sn := a.First(c.js, c.x, gx, gy, gz, pg)
		var want [5]float64
		for e, j := range c.js {
			r := c.p.Sub(c.x[j])
			w, g := pfSpline(r.Len(), c.h)
			if d := math.Abs(g*r[0] - gx[e]); d > tol*math.Abs(g)*c.h {
				t.Fatalf("n %d pair %d: gx %v, want %v", n, e, gx[e], g*r[0])
			}
			if d := math.Abs(vi*g - pg[e]); d > tol*math.Abs(vi*g) {
				t.Fatalf("n %d pair %d: pg %v, want %v", n, e, pg[e], vi*g)
			}
			want[0] += w
			want[1] += vi * g * r[0]
			want[2] += vi * g * r[1]
			want[3] += vi * g * r[2]
			want[4] += vi * vi * g * g * r.Dot(r)
		}
		got := [5]float64{sw, sx, sy, sz, sn}
		scale := [5]float64{want[0], vi * want[0] / c.h, vi * want[0] / c.h, vi * want[0] / c.h, want[4]}
		for k := range got {
			if math.Abs(got[k]-want[k]) > tol*math.Abs(scale[k])+1e-300 {
				t.Fatalf("n %d: First's sum %d = %v, want %v", n, k, got[k], want[k])
			}
		}

		// Next from zero displacements: each neighbour moves by u pg (p_o − x_j)
		dx, dy, dz := make([]float64, n), make([]float64, n), make([]float64, n)
		pg0 := append([]float64(nil), pg...)
		po := c.p.Add(mgl64.Vec3{1e-3, -2e-3, 5e-4})
		sw, _, _, _, sn = a.Next(c.js, c.x, dx, dy, dz, pg)
		want = [5]float64{}
		for e, j := range c.js {
			d := po.Sub(c.x[j]).Mul(-0.37 * pg0[e])
			if math.Abs(d[1]-dy[e]) > tol*math.Abs(d[1])+1e-300 {
				t.Fatalf("n %d pair %d: dy %v, want %v", n, e, dy[e], d[1])
			}
			r := c.p.Sub(c.x[j]).Sub(d)
			w, g := pfSpline(r.Len(), c.h)
			want[0] += w
			want[4] += vi * vi * g * g * r.Dot(r)
		}
		if math.Abs(sw-want[0]) > tol*want[0] || math.Abs(sn-want[4]) > tol*want[4]+1e-300 {
			t.Fatalf("n %d: Next's sums %v %v, want %v %v", n, sw, sn, want[0], want[4])
		}

		// Move: a second move by the same step from the displacements d, and Dots over them
		pg1 := append([]float64(nil), pg...)
		d1 := [3][]float64{append([]float64(nil), dx...), append([]float64(nil), dy...), append([]float64(nil), dz...)}
		a.Move(c.js, c.x, dx, dy, dz, pg)
		var wantGD, wantDD, norm float64
		for e, j := range c.js {
			for k, dk := range [3][]float64{dx, dy, dz} {
				want := d1[k][e] + (-0.37*pg1[e])*(po[k]-c.x[j][k]-d1[k][e])
				if math.Abs(dk[e]-want) > tol*(math.Abs(want)+math.Abs(d1[k][e])) {
					t.Fatalf("n %d pair %d: Move's component %d %v, want %v", n, e, k, dk[e], want)
				}
			}
			wantGD += gx[e]*dx[e] + gy[e]*dy[e] + gz[e]*dz[e]
			wantDD += dx[e]*dx[e] + dy[e]*dy[e] + dz[e]*dz[e]
			norm += math.Sqrt((gx[e]*gx[e] + gy[e]*gy[e] + gz[e]*gz[e]) * (dx[e]*dx[e] + dy[e]*dy[e] + dz[e]*dz[e]))
		}
		gd, dd := Dots(gx, gy, gz, dx, dy, dz)
		if math.Abs(gd-wantGD) > tol*norm || math.Abs(dd-wantDD) > tol*wantDD {
			t.Fatalf("n %d: Dots %v %v, want %v %v", n, gd, dd, wantGD, wantDD)
		}

		cw, wx, _, _ := a.Walls(c.js, c.x, c.vol, gx, gy, gz)
		var wantC, wantX float64
		for e, j := range c.js {
			r := c.p.Sub(c.x[j])
			w, g := pfSpline(r.Len(), c.h)
			wantC += c.vol[j] * w
			wantX += c.vol[j] * g * r[0]
			if d := math.Abs(c.vol[j]*g*r[2] - gz[e]); d > tol*math.Abs(c.vol[j]*g)*c.h {
				t.Fatalf("n %d pair %d: walls' gz %v, want %v", n, e, gz[e], c.vol[j]*g*r[2])
			}
		}
		if math.Abs(cw-wantC) > tol*wantC || math.Abs(wx-wantX) > tol*wantC/c.h {
			t.Fatalf("n %d: Walls' sums %v %v, want %v %v", n, cw, wx, wantC, wantX)
		}
	}
}

// TestPFPassVectorEqualsLoop: on random lists of every length up to 70, inside and outside
// the support, the assembly (four pairs a step) and the Go loop give the same sums and stored
// values bit for bit.
func TestPFPassVectorEqualsLoop(t *testing.T) {
	if !HasAVX2 {
		t.Skip("no AVX2 on this processor or in this build: only the Go loop runs")
	}
	defer func(old bool) { HasAVX2 = old }(HasAVX2)
	rng := rand.New(rand.NewPCG(5, 6))
	for k := 0; k <= 141; k++ {
		// every length up to 70, then again with a support of a tenth: all pairs outside it
		// but a coincident one
		n := k % 71
		c := pfRandom(rng, n)
		if k > 70 {
			c.h /= 10
		}
		type result struct {
			sums                       []float64
			gx, gy, gz, pg, dx, dy, dz []float64
			bx, by, bz                 []float64
		}
		run := func(asm bool) result {
			HasAVX2 = asm
			a := c.pass()
			var r result
			for _, p := range []*[]float64{&r.gx, &r.gy, &r.gz, &r.pg, &r.dx, &r.dy, &r.dz, &r.bx, &r.by, &r.bz} {
				*p = make([]float64, n)
			}
			s0, s1, s2, s3, s4 := a.First(c.js, c.x, r.gx, r.gy, r.gz, r.pg)
			r.sums = append(r.sums, s0, s1, s2, s3, s4)
			for step := 0; step < 2; step++ {
				s0, s1, s2, s3, s4 = a.Next(c.js, c.x, r.dx, r.dy, r.dz, r.pg)
				r.sums = append(r.sums, s0, s1, s2, s3, s4)
			}
			a.Move(c.js, c.x, r.dx, r.dy, r.dz, r.pg)
			gd, dd := Dots(r.gx, r.gy, r.gz, r.dx, r.dy, r.dz)
			r.sums = append(r.sums, gd, dd)
			c0, c1, c2, c3 := a.Walls(c.js, c.x, c.vol, r.bx, r.by, r.bz)
			r.sums = append(r.sums, c0, c1, c2, c3)
			c0, c1, c2, c3 = a.Walls(c.js, c.x, c.vol, nil, nil, nil)
			r.sums = append(r.sums, c0, c1, c2, c3)
			return r
		}
		v, g := run(true), run(false)
		for k, pair := range [][2][]float64{{v.sums, g.sums}, {v.gx, g.gx}, {v.gy, g.gy}, {v.gz, g.gz}, {v.pg, g.pg},
			{v.dx, g.dx}, {v.dy, g.dy}, {v.dz, g.dz}, {v.bx, g.bx}, {v.by, g.by}, {v.bz, g.bz}} {
			if e := bitsEqual(pair[0], pair[1]); e >= 0 {
				t.Fatalf("n %d, array %d, element %d: assembly %v, Go loop %v", n, k, e, pair[0][e], pair[1][e])
			}
		}
	}
}

// TestPFGathers: on random lists of every length up to 70, PFResidSums, PFGatherSum and
// PFDotSum equal the sums written out in list order within 1e-13 relative (round-off of
// another order), and the assembly equals the Go loop bit for bit, also on lists whose
// gradients are all −0.
func TestPFGathers(t *testing.T) {
	defer func(old bool) { HasAVX2 = old }(HasAVX2)
	rng := rand.New(rand.NewPCG(9, 10))
	for k := 0; k <= 141; k++ {
		n := k % 71
		m := n + 5
		js := make([]int32, n)
		gx, gy, gz := make([]float64, n), make([]float64, n), make([]float64, n)
		for e := range js {
			js[e] = int32(rng.IntN(m))
			gx[e], gy[e], gz[e] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
			if k > 70 {
				gx[e], gy[e], gz[e] = math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1)
			}
		}
		coef := make([][2]float64, m)
		v := make([]float64, m)
		d := make([]mgl64.Vec3, m)
		for j := range coef {
			coef[j] = [2]float64{rng.NormFloat64(), rng.Float64()}
			v[j] = rng.NormFloat64()
			d[j] = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
		var wd, wa, wg [3]float64
		var wdot, scale float64
		for e, j := range js {
			g := [3]float64{gx[e], gy[e], gz[e]}
			for c := 0; c < 3; c++ {
				wd[c] += coef[j][0] * g[c]
				wa[c] += coef[j][1] * g[c] * g[c]
				wg[c] += v[j] * g[c]
			}
			wdot += g[0]*d[j][0] + g[1]*d[j][1] + g[2]*d[j][2]
			scale += 10
		}
		type out struct {
			d, a, g [3]float64
			dot     float64
		}
		var res []out
		for _, asm := range []bool{false, true} {
			if asm && !hasAVX2() {
				continue
			}
			HasAVX2 = asm
			var o out
			o.d, o.a = PFResidSums(js, coef, gx, gy, gz)
			o.g = PFGatherSum(js, v, gx, gy, gz)
			o.dot = PFDotSum(js, d, gx, gy, gz)
			for c := 0; c < 3; c++ {
				if math.Abs(o.d[c]-wd[c]) > 1e-13*scale || math.Abs(o.a[c]-wa[c]) > 1e-13*scale || math.Abs(o.g[c]-wg[c]) > 1e-13*scale {
					t.Fatalf("n %d, assembly %v, component %d: d %v a %v g %v, want %v %v %v", n, asm, c, o.d[c], o.a[c], o.g[c], wd[c], wa[c], wg[c])
				}
			}
			if math.Abs(o.dot-wdot) > 1e-13*scale {
				t.Fatalf("n %d, assembly %v: dot %v, want %v", n, asm, o.dot, wdot)
			}
			res = append(res, o)
		}
		if len(res) == 2 {
			a, b := res[0], res[1]
			x := append(append(append(a.d[:], a.a[:]...), a.g[:]...), a.dot)
			y := append(append(append(b.d[:], b.a[:]...), b.g[:]...), b.dot)
			if e := bitsEqual(x, y); e >= 0 {
				t.Fatalf("n %d, sum %d: Go loop %v, assembly %v", n, e, x[e], y[e])
			}
		}
	}
}
