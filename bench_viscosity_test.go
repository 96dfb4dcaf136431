package sluice_test

import (
	"testing"
	"time"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics"
)

// BenchmarkViscosity compares one substep's viscosity on the 10k dam break (r = 2.5 cm) with
// ν = 1 m²/s, advanced 0.2 s with the implicit solve on one worker: "explicit" is the advection
// with the Laplacian viscosity (physics.Advect), the others the advection without it plus the
// implicit solve (physics/viscosity), at the explicit limit's Δt or at dtMax = 5 ms, each
// started cold (v*) or warm (the last real substep's velocity change). Reports ns per
// particle per substep and CG iterations.
func BenchmarkViscosity(b *testing.B) {
	s := components.DefaultSolver()
	s.ParticleRadius = 0.025
	s.ViscositySolver = "implicit"
	m := components.DefaultMaterial()
	m.Viscosity = 1
	w := damBreakWith(b, s, m)
	defer w.Close()
	for i := 0; i < 12; i++ {
		if _, err := w.Step(1.0 / 60); err != nil {
			b.Fatal(err)
		}
	}
	sim := w.Sim()
	pool := w.ECS().Pool
	f := &sim.Fluid
	lim := sim.Kernel.ViscousDtLimit(s.Spacing(), s.BoundaryLayers, m.Viscosity, 0)
	warm := append([]physics.Vec3(nil), f.VDiff...)
	n := f.Len()
	b.Run("explicit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			physics.Advect(f, &sim.FF, &sim.Kernel, s.Gravity, 0, lim, pool)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/particle/step")
		b.ReportMetric(float64(n), "particles")
	})
	for _, c := range []struct {
		name string
		dt   float64
		warm bool
	}{{"implicit-dtLimit-cold", lim, false}, {"implicit-dtLimit-warm", lim, true}, {"implicit-5ms-cold", 0.005, false}, {"implicit-5ms-warm", 0.005, true}} {
		b.Run(c.name, func(b *testing.B) {
			it := 0
			for i := 0; i < b.N; i++ {
				if c.warm {
					copy(f.VDiff, warm)
				} else {
					clear(f.VDiff)
				}
				physics.AdvectInviscid(f, &sim.FF, &sim.Kernel, s.Gravity, 0, c.dt, pool)
				it += sim.Visc.Solve(f, &sim.Bound, &sim.FF, &sim.FB, &sim.Kernel, c.dt, pool).Iterations
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/particle/step")
			b.ReportMetric(float64(it)/float64(b.N), "iterations")
		})
	}
}

// BenchmarkViscousDamBreak runs issue 21's viscous dam break (ν = 0.05 m²/s, r = 1 cm,
// dtMax = 4 ms, 140 particles) for one simulated second on one worker with each viscosity
// solver and reports the substeps and the wall time. Run it with -benchtime=1x.
func BenchmarkViscousDamBreak(b *testing.B) {
	for _, mode := range []string{"explicit", "implicit"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				w, e := viscousDamBreak(b, mode, 1)
				b.ReportMetric(float64(w.Particles(e).Len()), "particles")
				sub := 0
				t0 := time.Now()
				for f := 0; f < 60; f++ {
					st, err := w.Step(1.0 / 60)
					if err != nil {
						b.Fatal(err)
					}
					sub += st.Substeps
				}
				b.ReportMetric(float64(sub), "substeps")
				b.ReportMetric(float64(time.Since(t0).Milliseconds()), "ms/simulated-s")
				w.Close()
			}
		})
	}
}
