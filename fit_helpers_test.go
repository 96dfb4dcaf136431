package sluice_test

import "math"

// fitDampedOscillation fits q(t) ≈ a + b·t + e^{−λt}(c·cos ωt + d·sin ωt) by least squares:
// for every (ω, λ) of a grid the four linear coefficients are solved exactly, and the pair
// with the smallest residual is refined by halving the grid around it. It returns ω (rad/s),
// λ (1/s) and the residual's RMS relative to q's RMS about its mean.
func fitDampedOscillation(ts, qs []float64, wLo, wHi, lHi float64) (omega, lambda, rel float64) {
	best := math.Inf(1)
	resid := func(w, l float64) float64 {
		var m [4][5]float64
		for k, t := range ts {
			e := math.Exp(-l * t)
			f := [4]float64{1, t, e * math.Cos(w*t), e * math.Sin(w*t)}
			for i := 0; i < 4; i++ {
				for j := 0; j < 4; j++ {
					m[i][j] += f[i] * f[j]
				}
				m[i][4] += f[i] * qs[k]
			}
		}
		x, ok := solve4(m)
		if !ok {
			return math.Inf(1)
		}
		r := 0.0
		for k, t := range ts {
			e := math.Exp(-l * t)
			d := qs[k] - (x[0] + x[1]*t + e*(x[2]*math.Cos(w*t)+x[3]*math.Sin(w*t)))
			r += d * d
		}
		return r
	}
	dw, dl := (wHi-wLo)/60, lHi/30
	wc, lc := 0.0, 0.0
	for w := wLo; w <= wHi; w += dw {
		for l := 0.0; l <= lHi; l += dl {
			if r := resid(w, l); r < best {
				best, wc, lc = r, w, l
			}
		}
	}
	for it := 0; it < 30; it++ {
		dw, dl = dw/2, dl/2
		for _, w := range []float64{wc - dw, wc, wc + dw} {
			for _, l := range []float64{math.Max(0, lc-dl), lc, lc + dl} {
				if r := resid(w, l); r < best {
					best, wc, lc = r, w, l
				}
			}
		}
	}
	mean, ss := 0.0, 0.0
	for _, q := range qs {
		mean += q
	}
	mean /= float64(len(qs))
	for _, q := range qs {
		ss += (q - mean) * (q - mean)
	}
	return wc, lc, math.Sqrt(best / ss)
}

// solve4 solves the 4×4 system m[:, :4]·x = m[:, 4] by Gaussian elimination with partial
// pivoting.
func solve4(m [4][5]float64) ([4]float64, bool) {
	for c := 0; c < 4; c++ {
		p := c
		for r := c + 1; r < 4; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if m[p][c] == 0 {
			return [4]float64{}, false
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < 4; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k < 5; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	var x [4]float64
	for r := 3; r >= 0; r-- {
		s := m[r][4]
		for k := r + 1; k < 4; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x, true
}
