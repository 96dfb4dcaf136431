package vec

import "github.com/go-gl/mathgl/mgl64"

// The gathers of Projective Fluids' residual and matrix product (Weiler et al. 2016, Eq. 5 and
// Algorithm 2) over one particle's fluid pairs e with neighbours j = js[e] and the kernel
// gradients g_e stored by component in gx, gy, gz. Pair e adds into lane e mod 4 of each sum,
// each lane in list order, and the lanes are added as (l₀ + l₁) + (l₂ + l₃): the assembly
// (four pairs a step, the last group's empty lanes adding zeros, which leave a sum that
// starts at +0 as it is) and the Go loop give the same bits.

// PFResidSums returns d = Σ_e coef[j][0] g_e and a = Σ_e (coef[j][1] g_e) g_e, per component:
// the neighbours' constraint forces on the particle and their part of the global matrix's
// diagonal, with coef[j] = (μ_j V_j, V_j²/‖∇C_j‖²).
func PFResidSums(js []int32, coef [][2]float64, gx, gy, gz []float64) (d, a [3]float64) {
	n := len(js)
	gx, gy, gz = gx[:n], gy[:n], gz[:n]
	var acc [6][4]float64
	if HasAVX2 && n > 0 {
		pfResidAVX(&js[0], n, &coef[0], &gx[0], &gy[0], &gz[0], &acc)
	} else {
		for e, j := range js {
			l := e & 3
			c0, c1 := coef[j][0], coef[j][1]
			g0, g1, g2 := gx[e], gy[e], gz[e]
			acc[0][l] += c0 * g0
			acc[1][l] += c0 * g1
			acc[2][l] += c0 * g2
			acc[3][l] += c1 * g0 * g0
			acc[4][l] += c1 * g1 * g1
			acc[5][l] += c1 * g2 * g2
		}
	}
	for k := 0; k < 3; k++ {
		d[k] = lanes(&acc[k])
		a[k] = lanes(&acc[3+k])
	}
	return d, a
}

// PFGatherSum returns Σ_e v[j] g_e per component.
func PFGatherSum(js []int32, v, gx, gy, gz []float64) (s [3]float64) {
	n := len(js)
	gx, gy, gz = gx[:n], gy[:n], gz[:n]
	var acc [3][4]float64
	if HasAVX2 && n > 0 {
		pfGatherAVX(&js[0], n, &v[0], &gx[0], &gy[0], &gz[0], &acc)
	} else {
		for e, j := range js {
			l := e & 3
			c := v[j]
			acc[0][l] += c * gx[e]
			acc[1][l] += c * gy[e]
			acc[2][l] += c * gz[e]
		}
	}
	return [3]float64{lanes(&acc[0]), lanes(&acc[1]), lanes(&acc[2])}
}

// PFDotSum returns Σ_e g_e·d[j], each product formed as (g_x d_x + g_y d_y) + g_z d_z.
func PFDotSum(js []int32, d []mgl64.Vec3, gx, gy, gz []float64) float64 {
	n := len(js)
	gx, gy, gz = gx[:n], gy[:n], gz[:n]
	var acc [1][4]float64
	if HasAVX2 && n > 0 {
		pfDotAVX(&js[0], n, &d[0], &gx[0], &gy[0], &gz[0], &acc[0])
	} else {
		for e, j := range js {
			dj := &d[j]
			acc[0][e&3] += gx[e]*dj[0] + gy[e]*dj[1] + gz[e]*dj[2]
		}
	}
	return lanes(&acc[0])
}

func lanes(l *[4]float64) float64 { return (l[0] + l[1]) + (l[2] + l[3]) }
