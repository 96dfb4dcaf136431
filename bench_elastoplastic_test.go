package sluice_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/internal/cputime"
	"github.com/sluicephysics/sluice/systems"
)

// BenchmarkElastoplasticDrop is the Fig. 4.7 box drop at the chapter's size: a 1.2 m cube of
// 23³ = 12,167 particles (Table 4.1: 12,152) at the default r = 0.025 m, E = 2·10⁵ Pa,
// ν = 0.3, ρ = 1000 kg/m³, yield stress 5 kPa, flow rate 100 /s, dropped 0.3 m onto the floor
// of a tank, on one worker. Each iteration is one 30 Hz frame (World.Step(1/30)), measured
// from the impact on (the world is first advanced 0.3 s), so the body deforms and yields. It
// reports seconds per frame (wall and CPU), substeps per frame (the explicit limit
// elastoplastic.Material.StableDt holds them at ≥ 22 at these moduli) and the share of the
// ElastoplasticForces stage. Table 4.1 gives 87–103 s per frame on one core at Δt = 0.1 ms.
func BenchmarkElastoplasticDrop(b *testing.B) {
	s := components.DefaultSolver()
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{-0.6, 0, -0.6}, mgl64.Vec3{1.8, 2.2, 1.8}, true); err != nil {
		b.Fatal(err)
	}
	m := components.DefaultMaterial()
	m.Elastoplastic.YoungsModulus, m.Elastoplastic.PoissonsRatio = 2e5, 0.3
	m.Elastoplastic.YieldStress, m.Elastoplastic.FlowRate = 5000, 100
	e, err := w.AddElastoplasticBlock("box", m, mgl64.Vec3{0, 0.3, 0}, mgl64.Vec3{1.2, 1.5, 1.2}, mgl64.Vec3{})
	if err != nil {
		b.Fatal(err)
	}
	if n := w.Particles(e).Len(); n != 12167 {
		b.Fatalf("%d particles, want 23³ = 12167", n)
	}
	for i := 0; i < 9; i++ {
		if _, err := w.Step(1.0 / 30); err != nil {
			b.Fatal(err)
		}
	}
	sub := 0
	var epMs, totalMs float64
	b.ResetTimer()
	cpu0 := cputime.Nanos()
	for i := 0; i < b.N; i++ {
		st, err := w.Step(1.0 / 30)
		if err != nil {
			b.Fatal(err)
		}
		sub += st.Substeps
		epMs += st.StageMs[systems.StageElastoplasticForces]
		for _, ms := range st.StageMs {
			totalMs += ms
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/frame")
	b.ReportMetric(float64(sub)/float64(b.N), "substeps/frame")
	b.ReportMetric(100*epMs/max(totalMs, 1e-9), "elastoplastic-%")
	if cpu := cputime.Nanos() - cpu0; cpu0 > 0 {
		b.ReportMetric(float64(cpu)/1e9/float64(b.N), "cpu-s/frame")
	}
}
