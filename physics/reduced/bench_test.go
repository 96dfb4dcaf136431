package reduced

import (
	"testing"

	"github.com/sluicephysics/sluice/internal/cputime"
)

// BenchmarkGameStep steps the dissertation's game scene (73 modes, 65×65 grid, 15 bodies, 147
// panels; Table 5.1) on one worker and reports the process CPU time per step (cpu-ns/step,
// robust on a shared machine) besides the wall-clock time of each stage. The scene is restored
// every 30 steps (0.25 s): the bodies have no contacts with each other, and once drifting
// bodies overlap the multi-body sweeps stop converging and run to their cap.
// "wall0.05" mirrors fewer bodies across the walls (WallError 0.05 instead of 0.01).
//
//	go test -run '^$' -bench GameStep -benchtime 600x ./physics/reduced
func BenchmarkGameStep(b *testing.B) {
	for _, v := range []struct {
		name string
		fb   FeedbackMode
		we   float64
	}{{"galerkin", FeedbackGalerkin, 0.01}, {"galerkin-wall0.05", FeedbackGalerkin, 0.05}, {"quadtree", FeedbackQuadtree, 0.01}} {
		b.Run(v.name, func(b *testing.B) {
			c := gameConfig()
			c.Feedback, c.WallError = v.fb, v.we
			c.FeedbackError = gameFeedbackError
			d := gameScene(b, c)
			_ = d.Step(1.0 / 120) // builds the quadtree's error table
			start := d.Save()
			d.ResetTiming()
			b.ResetTimer()
			var cpu int64
			for i := 0; i < b.N; i++ {
				if i%30 == 0 {
					b.StopTimer()
					_ = d.Restore(start)
					b.StartTimer()
				}
				c0 := cputime.Nanos()
				_ = d.Step(1.0 / 120)
				cpu += cputime.Nanos() - c0
			}
			tm := d.Timing()
			n := float64(tm.Steps)
			b.ReportMetric(float64(cpu)/n, "cpu-ns/step")
			b.ReportMetric(float64(tm.Advect)/n, "advect-ns/step")
			b.ReportMetric(float64(tm.Panels)/n, "panels-ns/step")
			b.ReportMetric(float64(tm.Feedback)/n, "feedback-ns/step")
			b.ReportMetric(float64(tm.Bodies)/n, "bodies-ns/step")
		})
	}
}

// BenchmarkGameStages times each stage of the game scene alone, at its initial state, in
// process CPU time per call: the reduced fluid step (Eq. 5.9), the panel solve (§5.3.1–5.3.3)
// and the three feedbacks (§5.3.4).
//
//	go test -run '^$' -bench GameStages ./physics/reduced
func BenchmarkGameStages(b *testing.B) {
	stages := []struct {
		name string
		run  func(d *Domain)
	}{
		{"advect", func(d *Domain) { d.advanceFluid(1.0 / 120) }},
		{"panels", func(d *Domain) { d.SolvePanels() }},
		{"feedback-galerkin", func(d *Domain) { d.feedbackDelta(FeedbackGalerkin) }},
		{"feedback-quadtree", func(d *Domain) { d.feedbackDelta(FeedbackQuadtree) }},
		{"feedback-naive", func(d *Domain) { d.feedbackDelta(FeedbackNaive) }},
	}
	for _, st := range stages {
		b.Run(st.name, func(b *testing.B) {
			c := gameConfig()
			c.FeedbackError = gameFeedbackError
			d := gameScene(b, c)
			d.SolvePanels()
			d.feedbackDelta(FeedbackQuadtree) // build the quadtree outside the timing
			r0 := d.Coefficients(nil)
			b.ResetTimer()
			c0 := cputime.Nanos()
			for i := 0; i < b.N; i++ {
				st.run(d)
			}
			b.ReportMetric(float64(cputime.Nanos()-c0)/float64(b.N), "cpu-ns/op")
			b.StopTimer()
			_ = d.SetCoefficients(r0)
		})
	}
}
