package flip

import (
	"math"
	"testing"
)

// splashScene is a small dam break over a box and a sphere (the chapter's Fig. 3.2 in
// miniature): a 0.5 m × 0.6 m column in a 1.6 m × 0.8 m × 0.4 m tank.
func splashScene(t *testing.T, unilateral bool, workers int) *Sim {
	t.Helper()
	p := DefaultParams()
	p.CellSize = 0.05
	p.Dims = [3]int{32, 16, 8}
	p.Unilateral = unilateral
	obs := []Obstacle{
		{Kind: ObstacleBox, Min: Vec3{0.9, 0, 0.1}, Max: Vec3{1.05, 0.2, 0.3}},
		{Kind: ObstacleSphere, Center: Vec3{1.35, 0.1, 0.2}, Radius: 0.12},
	}
	s := newTestSim(t, p, obs, workers)
	if _, err := s.AddBlock(Vec3{}, Vec3{0.5, 0.6, 0.4}, Vec3{}); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSplashConservesParticlesAndKeepsConstraints(t *testing.T) {
	// Through 0.6 s of a dam break over obstacles: the particle count and total mass are
	// exactly those seeded (mass-full FLIP: mass is carried by the particles, §3.2); every
	// particle stays finite, inside the box and outside the obstacles (§3.2.4 clipping); no
	// pressure is ever negative (Eq. 3.4); and the liquid keeps its volume: the mass
	// rasterised above the cells' capacities ρ_max (Eq. 3.13), Σ max(ρ_c − ρ_max, 0)·h³, stays
	// below excessTol of the total at the start of every frame (bilateralExcessTol for the
	// bilateral solve).
	const (
		excessTol = 0.03 // the liquid's volume kept within 3 %
		// bilateralExcessTol bounds the bilateral solve's drift (no density control, FLIP's
		// known volume drift) and guards its sharp obstacles: with solid cells treated as air
		// the liquid flowed into them and piled up at their faces, far above this.
		bilateralExcessTol = 0.10
	)
	if raceEnabled {
		t.Skip("splash validation: 1.5 s, 22 s under the race detector (the determinism and save/restore tests run the same scene)")
	}
	for _, uni := range []bool{true, false} {
		s := splashScene(t, uni, 2)
		n0 := len(s.X)
		m0 := float64(n0) * s.mp
		h3 := s.g.H * s.g.H * s.g.H
		worstExcess, worstCell, worstAt := 0.0, 0.0, 0
		for frame := 0; frame < 36; frame++ {
			if _, err := s.Advance(1.0 / 60); err != nil {
				t.Fatal(err)
			}
			if len(s.X) != n0 || len(s.V) != n0 {
				t.Fatalf("frame %d: %d particles, seeded %d", frame, len(s.X), n0)
			}
			if m := float64(len(s.X)) * s.ParticleMass(); m != m0 {
				t.Fatalf("frame %d: mass %v, seeded %v", frame, m, m0)
			}
			top := s.g.Max()
			for i, x := range s.X {
				for d := 0; d < 3; d++ {
					if !(x[d] >= s.g.Origin[d] && x[d] <= top[d]) || math.IsNaN(s.V[i][d]) {
						t.Fatalf("frame %d: particle %d at %v, velocity %v", frame, i, x, s.V[i])
					}
				}
				if s.inObstacle(x) {
					t.Fatalf("frame %d: particle %d at %v inside an obstacle", frame, i, x)
				}
			}
			if uni {
				for c, p := range s.pw {
					if p < 0 {
						t.Fatalf("frame %d: cell %d pressure %g < 0", frame, c, p)
					}
				}
			}
			s.rasterise()
			excess := 0.0
			for c, r := range s.rc {
				excess += max(r-s.rhoMax[c], 0) * h3
				if e := (r - s.rhoMax[c]) / s.rho0; e > worstCell {
					worstCell, worstAt = e, c
				}
			}
			worstExcess = max(worstExcess, excess/m0)
		}
		nx, ny := s.g.N[0], s.g.N[1]
		t.Logf("unilateral %v: %d particles, worst excess %.2f %% of the mass, worst cell %.1f %% over capacity, cell (%d,%d,%d) of %v",
			uni, n0, 100*worstExcess, 100*worstCell, worstAt%nx, (worstAt/nx)%ny, worstAt/(nx*ny), s.g.N)
		if tol := map[bool]float64{true: excessTol, false: bilateralExcessTol}[uni]; worstExcess > tol {
			t.Errorf("unilateral %v: %.2f %% of the mass above capacity, want ≤ %g %%", uni, 100*worstExcess, 100*tol)
		}
	}
}

func TestPressurisedCellsEndFull(t *testing.T) {
	// Complementarity seen through the velocity field: after the solve and the velocity update
	// of Eq. 3.8, the density each pressurised cell will have at the end of the step,
	// ρ_c − Δt ∇·(ρ_f u), computed from the updated face velocities, equals its capacity
	// ρ_max within fullTol (the divergence constraint is met with equality where p > 0), and
	// no cell of the system ends above its capacity by more than fullTol. Faces whose density
	// is below the air threshold (where Eq. 3.8 divides by the threshold instead) are excluded
	// with their cells.
	const fullTol = 1e-4 // kg/m³: ten times the solver tolerance used here (1e-8·ρ0 ≈ 1e-5)
	s := splashScene(t, true, 1)
	s.p.Tolerance = 1e-8
	for frame := 0; frame < 12; frame++ {
		if _, err := s.Advance(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	s.dt = 1.0 / 240
	s.rasterise()
	s.densityCorrection()
	s.applyForces()
	s.pressureSolve()
	var flux [3][]float64
	for d := 0; d < 3; d++ {
		flux[d] = make([]float64, len(s.uf[d]))
		for f, u := range s.uf[d] {
			flux[d][f] = s.rf[d][f] * u
		}
	}
	nx, ny := s.g.N[0], s.g.N[1]
	checked, skipped := 0, 0
	for _, c32 := range s.sys {
		c := int(c32)
		i, j, k := c%nx, (c/nx)%ny, c/(nx*ny)
		thin := false
		for dir := 0; dir < 6; dir++ {
			f, _ := s.faceOf(i, j, k, dir)
			if s.vf[dir/2][f] > 0 && s.rf[dir/2][f] < s.massThreshRho {
				thin = true
			}
		}
		if thin {
			skipped++
			continue
		}
		end := s.rc[c] - s.dt*s.divergence(&flux, c)
		if s.pw[c] > 0 {
			checked++
			if math.Abs(end-s.rhoMax[c]) > fullTol {
				t.Fatalf("pressurised cell %d ends at %.9g kg/m³, capacity %.9g", c, end, s.rhoMax[c])
			}
		} else if end > s.rhoMax[c]+fullTol {
			t.Fatalf("cell %d at zero pressure ends at %.9g kg/m³, above its capacity %.9g", c, end, s.rhoMax[c])
		}
	}
	t.Logf("%d pressurised cells checked, %d cells beside thin faces skipped, %d system cells", checked, skipped, len(s.sys))
	if checked < len(s.sys)/3 {
		t.Fatalf("only %d of %d system cells checked", checked, len(s.sys))
	}
}

func bitsEqual(a, b []Vec3) int {
	for i := range a {
		for d := 0; d < 3; d++ {
			if math.Float64bits(a[i][d]) != math.Float64bits(b[i][d]) {
				return i
			}
		}
	}
	return -1
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	// Results are bit-identical for 1 and 3 workers (fixed blocks, sequential scatter).
	var ref *Sim
	for _, w := range []int{1, 3} {
		s := splashScene(t, true, w)
		for frame := 0; frame < 10; frame++ {
			if _, err := s.Advance(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		if ref == nil {
			ref = s
			continue
		}
		if i := bitsEqual(ref.X, s.X); i >= 0 {
			t.Fatalf("%d workers: particle %d at %v, 1 worker %v", w, i, s.X[i], ref.X[i])
		}
		if i := bitsEqual(ref.V, s.V); i >= 0 {
			t.Fatalf("%d workers: particle %d velocity %v, 1 worker %v", w, i, s.V[i], ref.V[i])
		}
	}
}

func TestSaveRestoreContinuesBitIdentically(t *testing.T) {
	// Saving mid-splash and restoring (into the same Sim and into a fresh one) continues with
	// the very same bits as the uninterrupted run: the state holds every warm start.
	s := splashScene(t, true, 2)
	for frame := 0; frame < 6; frame++ {
		if _, err := s.Advance(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Save()
	run := func(s *Sim) {
		for frame := 0; frame < 3; frame++ {
			if _, err := s.Advance(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(s)
	want := append([]Vec3(nil), s.X...)
	wantV := append([]Vec3(nil), s.V...)
	for _, fresh := range []bool{false, true} {
		r := s
		if fresh {
			r = splashScene(t, true, 1)
		}
		if err := r.Restore(st); err != nil {
			t.Fatal(err)
		}
		run(r)
		if i := bitsEqual(want, r.X); i >= 0 {
			t.Fatalf("fresh %v: particle %d at %v, uninterrupted %v", fresh, i, r.X[i], want[i])
		}
		if i := bitsEqual(wantV, r.V); i >= 0 {
			t.Fatalf("fresh %v: particle %d velocity %v, uninterrupted %v", fresh, i, r.V[i], wantV[i])
		}
	}
}

func TestSplashGainsNoEnergy(t *testing.T) {
	// The splash scene for 2 s at CFL 1 and 5 (one step per 30 Hz frame), both solves: the
	// mechanical energy Σ m·(½|v|² + g·y) never rises above its initial value by more than
	// energyTol. Gravity is the only force that does work on the liquid; the pressure of an
	// incompressible (or unilaterally incompressible) flow does none or removes energy, the
	// walls and obstacles are inelastic, and the PIC part of the velocity update dissipates.
	// A step too long for the solve, or a wrong sign in Eq. 3.8, would add energy. (Single
	// particles may well exceed the free-fall speed: impact jets concentrate energy.)
	const energyTol = 0.01 // FLIP's transfers are not exactly energy-conserving
	if raceEnabled {
		t.Skip("2 s of splash four times: 4 s, and the race detector slows the step about 15-fold")
	}
	for _, cfl := range []float64{1, 5} {
		for _, uni := range []bool{true, false} {
			s := splashScene(t, uni, 2)
			s.p.CFL = cfl
			energy := func() float64 {
				e := 0.0
				for i, v := range s.V {
					e += s.mp * (0.5*(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]) - s.p.Gravity[1]*s.X[i][1])
				}
				return e
			}
			e0 := energy()
			worst := math.Inf(-1)
			for frame := 0; frame < 60; frame++ {
				if _, err := s.Advance(1.0 / 30); err != nil {
					t.Fatal(err)
				}
				e := energy()
				if math.IsNaN(e) {
					t.Fatalf("CFL %g, unilateral %v, frame %d: energy NaN", cfl, uni, frame)
				}
				worst = max(worst, e/e0-1)
			}
			t.Logf("CFL %g, unilateral %v: %d steps, largest energy change %+.2f %%, final energy %.3f of the initial", cfl, uni, s.Totals().Steps, 100*worst, energy()/e0)
			if worst > energyTol {
				t.Errorf("CFL %g, unilateral %v: energy rose %.2f %% above the initial, want ≤ %g %%", cfl, uni, 100*worst, 100*energyTol)
			}
		}
	}
}
