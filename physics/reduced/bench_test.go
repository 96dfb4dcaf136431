package reduced

import (
	"testing"
)

// BenchmarkGameStep steps the dissertation's game scene (73 modes, 65×65 grid, 15 bodies, 147
// panels; Table 5.1) on one worker with the default feedback and reports each stage's time per
// step. The scene is restored every 60 steps (0.5 s) so the bodies stay in the air.
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
			for i := 0; i < b.N; i++ {
				if i%60 == 0 {
					b.StopTimer()
					_ = d.Restore(start)
					b.StartTimer()
				}
				_ = d.Step(1.0 / 120)
			}
			tm := d.Timing()
			n := float64(tm.Steps)
			b.ReportMetric(float64(tm.Advect)/n, "advect-ns/step")
			b.ReportMetric(float64(tm.Panels)/n, "panels-ns/step")
			b.ReportMetric(float64(tm.Feedback)/n, "feedback-ns/step")
			b.ReportMetric(float64(tm.Bodies)/n, "bodies-ns/step")
			b.ReportMetric(float64(len(d.cp.sg)), "sources")
		})
	}
}

// BenchmarkGameFeedback times one feedback of the game scene's panels per mode.
//
//	go test -run '^$' -bench GameFeedback ./physics/reduced
func BenchmarkGameFeedback(b *testing.B) {
	for _, fb := range []FeedbackMode{FeedbackGalerkin, FeedbackQuadtree, FeedbackNaive} {
		b.Run(fb.String(), func(b *testing.B) {
			c := gameConfig()
			c.FeedbackError = gameFeedbackError
			d := gameScene(b, c)
			d.SolvePanels()
			d.feedbackDelta(fb)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				d.feedbackDelta(fb)
			}
		})
	}
}
