package airdrag

import (
	"math"
	"testing"

	"github.com/sluicephysics/sluice/physics"
)

// paperForce is the drag (N) of Gissler et al. 2017 on an unoccluded lone droplet (no
// neighbours: f_n = 0, w = 1) at speed u, written out step by step from the paper's Eqs. 6–9
// and 12 (droplet radius L, TAB damping time t_d and frequency ω, time of largest deformation
// t_max, deformation c_def, Weber number, largest deformation y_max, Reynolds number, sphere
// drag coefficient, Liu's correction, deformed cross-section).
func paperForce(u, r, rhoL float64) float64 {
	L := math.Pow(3/(4*math.Pi), 1.0/3) * 2 * r
	td := 2 * rhoL * L * L / (5 * 1.02e-3)
	om := math.Sqrt(8*0.0724/(rhoL*L*L*L) - 1/(td*td))
	tmax := 2 * (math.Pi - math.Atan(math.Sqrt(td*td*om*om+1)+td*om)) / om
	cdef := 1 - math.Exp(-tmax/td)*(math.Cos(om*tmax)+math.Sin(om*tmax)/(om*td))
	we := 1.2041 * u * u * L / 0.0724
	y := math.Min(1, (1.0/3)*we*cdef/(8*0.5))
	re := 2 * math.Max(0.1, 1.2041*u*L/1.845e-5)
	cs := 0.424
	if re <= 1000 {
		cs = 24 / re * (1 + math.Pow(re, 2.0/3)/6)
	}
	h := L + 0.5*L*y
	return 0.5 * 1.2041 * u * u * cs * (1 + 2.632*y) * math.Pi * h * h
}

func TestLoneDropletDragMatchesPaper(t *testing.T) {
	// The acceleration of a particle without neighbours, times its mass and divided by the
	// factor c, against the paper's closed form, at speeds on both sides of Re = 1000 and of
	// y_max = 1. relTol: both evaluate the same double-precision formulas in a different
	// order, so only a few ulps may differ.
	const relTol = 1e-9
	const r, rho, m, c = 0.025, 1000.0, 0.1, 10.0
	p := Params{Factor: c, Droplet: NewDroplet(r, rho)}
	for _, u := range []float64{0.001, 0.01, 0.5, 3, 40} {
		v := physics.Vec3{0.6 * u, -0.8 * u, 0}
		a := Accel(&p, v, m, 0, 32, 0)
		want := c * paperForce(u, r, rho) / m
		got := a.Len()
		if math.Abs(got/want-1) > relTol {
			t.Errorf("u = %g m/s: |a| = %.15g m/s², paper %.15g: off by %.3g, want ≤ %g", u, got, want, got/want-1, relTol)
		}
		if cos := -a.Dot(v) / (a.Len() * v.Len()); math.Abs(cos-1) > relTol {
			t.Errorf("u = %g m/s: the drag is not against the velocity (cos %.15g)", u, cos)
		}
	}
}

func TestOcclusion(t *testing.T) {
	// A particle with a full neighbourhood (f_n = 1) whose neighbours all lie downstream
	// (max v̂_rel·x̂_ij = 1, Eq. 15) is shielded: no drag. With the air-facing side open
	// (max cosine 0, w = 1) it feels C_D = 1 on the flat face (2r)² (Eqs. 10, 13):
	// F = ½ ρ_a u² (2r)². relTol as in TestLoneDropletDragMatchesPaper.
	const relTol = 1e-9
	const r, m, u = 0.01, 0.008, 2.0
	p := Params{Factor: 1, Droplet: NewDroplet(r, 1000)}
	v := physics.Vec3{0, -u, 0}
	if a := Accel(&p, v, m, 40, 32, 1); a != (physics.Vec3{}) {
		t.Errorf("shielded particle: a = %v, want 0", a)
	}
	a := Accel(&p, v, m, 40, 32, 0)
	want := 0.5 * RhoAir * u * u * 4 * r * r / m
	if math.Abs(a[1]/want-1) > relTol {
		t.Errorf("exposed inner particle: a_y = %.15g, want ½ρ_a u²(2r)²/m = %.15g", a[1], want)
	}
	// A half-filled neighbourhood lies between (Eq. 10, 13 interpolate linearly in f_n).
	half := Accel(&p, v, m, float64(32/3), 32, 0)[1]
	lone := Accel(&p, v, m, 0, 32, 0)[1]
	if lo, hi := min(lone, want), max(lone, want); half < lo || half > hi {
		t.Errorf("half-filled neighbourhood: a_y = %.6g, not between lone %.6g and full %.6g", half, lone, want)
	}
}

func TestFullNeighbors(t *testing.T) {
	// Lattice points strictly within 2 spacings (h = 4r, spacing 2r): those with |p|² ≤ 3
	// (1 + 6 + 12 + 8) less the centre; the 6 at distance exactly 2 lie on the support's edge,
	// where W = 0, and do not count.
	if n := FullNeighbors(0.02, 0.04); n != 26 {
		t.Errorf("FullNeighbors(2r, 4r) = %d, want 26", n)
	}
	// On the square lattice: |p|² ≤ 2 (1 + 4 + 4) less the centre; the 4 at distance 2 do not
	// count either.
	if n := FullNeighbors2D(0.02, 0.04); n != 8 {
		t.Errorf("FullNeighbors2D(2r, 4r) = %d, want 8", n)
	}
}
