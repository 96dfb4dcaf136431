package flip

import (
	"runtime"
	"testing"

	"github.com/sluicephysics/sluice/internal/cputime"
	"github.com/sluicephysics/sluice/physics/par"
)

// BenchmarkFLIPDamBreak times 30 Hz frames of the dissertation's Fig. 3.2 dam break over an
// obstacle (the scene of examples/splash at h = 0.2 m: 40×30×20 cells, 34560 particles,
// unilateral solve), after 0.5 s of warm-up so the flow is splashing. It reports seconds per
// frame, nanoseconds per particle per step and the MPRGP's matrix products per step.
func BenchmarkFLIPDamBreak(b *testing.B) {
	pool := par.NewPool(0)
	defer pool.Close()
	p := DefaultParams()
	p.CellSize = 0.2
	p.Dims = [3]int{40, 30, 20}
	obs := []Obstacle{{Kind: ObstacleBox, Min: Vec3{4.0, 0, 1.2}, Max: Vec3{4.6, 1.0, 2.8}}}
	s, err := New(p, obs, pool)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.AddBlock(Vec3{}, Vec3{2.4, 3.6, 4}, Vec3{}); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Advance(0.5); err != nil {
		b.Fatal(err)
	}
	before := s.Totals()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Advance(1.0 / 30); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	tot := s.Totals()
	steps := float64(tot.Steps - before.Steps)
	sec := b.Elapsed().Seconds()
	b.ReportMetric(sec/float64(b.N), "s/frame")
	b.ReportMetric(sec*1e9/(steps*float64(len(s.X))), "ns/particle/step")
	b.ReportMetric(float64(tot.SolveIterations-before.SolveIterations)/steps, "MPRGP-its/step")
	reportStages(b, before, tot)
	b.ReportMetric(steps/float64(b.N), "steps/frame")
	b.ReportMetric(float64(tot.CorrectionIterations-before.CorrectionIterations)/steps, "correction-its/step")
	b.ReportMetric(float64(tot.PowerIterations-before.PowerIterations)/steps, "power-its/step")
}

// BenchmarkFLIPChapterScale times 30 Hz frames on one core at the scale of the chapter's
// Fig. 3.1 (Table 3.1-3.2: 104,988 particles on a 50×100×50 grid took 7.8 s per frame): a
// 1.25 m × 1.05 m × 1.25 m block dropped from 2 m into a 2.5 m × 5 m × 2.5 m box, timed from
// 0.4 s (falling) to the splash. h=0.05 is the chapter's grid (105,000 particles); h=0.035
// has 2.9 times the cells and particles, for the scaling (ns per particle per step should
// not grow if the cost is linear). Each runs with the multigrid solver (multigrid,
// preconditioned expansion: "mg") and with the chapter's
// (MIC(0), Dostál's fixed-length expansion). It reports wall and CPU seconds per frame.
func BenchmarkFLIPChapterScale(b *testing.B) {
	bothSolvers(b, []string{"h=0.05", "h=0.035"}, []float64{0.05, 0.035}, chapterScale)
}

// bothSolvers runs run(b, h, chapter) as sub-benchmarks NAME/mg (the multigrid solver) and
// NAME/chapter (MIC(0) and Dostál's expansion) for each cell size.
func bothSolvers(b *testing.B, names []string, hs []float64, run func(b *testing.B, h float64, chapter bool)) {
	for i, name := range names {
		for _, chapter := range []bool{false, true} {
			sub := name + "/mg"
			if chapter {
				sub = name + "/chapter"
			}
			b.Run(sub, func(b *testing.B) { run(b, hs[i], chapter) })
		}
	}
}

// benchSim makes a one-worker Sim with p and the chapter's solver or the multigrid one, seeds
// the block [lo, hi] at velocity v and advances it by warm seconds; it returns the Sim and the
// heap it holds then (grid, system and solver scratch at their working size, particles), in
// bytes.
func benchSim(b *testing.B, p Params, chapter bool, pool *par.Pool, lo, hi, v Vec3, warm float64) (*Sim, float64) {
	p.Multigrid, p.PreconditionedExpansion = !chapter, !chapter
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	s, err := New(p, nil, pool)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.AddBlock(lo, hi, v); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Advance(warm); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	return s, float64(m1.HeapAlloc - m0.HeapAlloc)
}

func chapterScale(b *testing.B, h float64, chapter bool) {
	pool := par.NewPool(1)
	defer pool.Close()
	p := DefaultParams()
	p.CellSize = h
	p.Dims = [3]int{int(2.5/h + 0.5), int(5/h + 0.5), int(2.5/h + 0.5)}
	s, heap := benchSim(b, p, chapter, pool, Vec3{0.625, 2, 0.625}, Vec3{1.875, 3.05, 1.875}, Vec3{}, 0.4)
	// Heap held by the Sim after its first steps (grid, system and solver scratch at their
	// working size, particles), per cell of the grid.
	heapPerCell := heap / float64(s.g.NumCells())
	before := s.Totals()
	cpu0 := cputime.Nanos()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Advance(1.0 / 30); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := float64(cputime.Nanos()-cpu0) * 1e-9
	tot := s.Totals()
	steps := float64(tot.Steps - before.Steps)
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(len(s.X)), "particles")
	b.ReportMetric(float64(s.g.NumCells()), "cells")
	b.ReportMetric(heapPerCell, "heap-B/cell")
	b.ReportMetric(sec/float64(b.N), "s/frame")
	// CPU time of the process (one worker, plus the runtime's own threads): on a shared
	// machine a better measure of the work than the wall clock.
	b.ReportMetric(cpu/float64(b.N), "cpu-s/frame")
	b.ReportMetric(sec*1e9/(steps*float64(len(s.X))), "ns/particle/step")
	b.ReportMetric(float64(tot.SolveIterations-before.SolveIterations)/steps, "MPRGP-its/step")
	reportStages(b, before, tot)
	b.ReportMetric(steps/float64(b.N), "steps/frame")
}

// reportStages reports each stage's share of the step's wall time between two Totals, and the
// share of the two LCP solves (correction and velocity solve, assembly included).
func reportStages(b *testing.B, before, after Totals) {
	t0, t1 := before.Time, after.Time
	total := float64(t1.Total() - t0.Total())
	if total <= 0 {
		return
	}
	b.ReportMetric(float64(t1.Correction-t0.Correction+t1.Solve-t0.Solve)/total, "solve-share")
	b.ReportMetric(float64(t1.Rasterise-t0.Rasterise)/total, "rasterise-share")
	b.ReportMetric(float64(t1.Move-t0.Move)/total, "move-share")
}

// BenchmarkFLIPScaling times single steps of one impact scene at 10⁵, 10⁶ and 10⁷ particles
// on one worker, for the cost per particle and step as the grid is refined (linear cost: a flat
// ns/particle/step). A 0.5 m × 1 m × 1 m column against the +x wall of a 2 m × 1.5 m × 1 m box
// moves into that wall at 2 m/s under gravity, so the pressure solves are active from the
// first step (the impact, then the run-up along the wall); each sub-benchmark first advances
// 0.02 s, then times b.N steps of the CFL length. Particles: 8 per full cell, 4/h³ in all.
// Each size runs with the multigrid solver (multigrid, preconditioned expansion: "mg") and with the
// chapter's (MIC(0), Dostál's fixed-length expansion). The 10⁷ runs need about 3 GB of heap
// (5.5 GB resident) and most of a minute per step; select them explicitly
// (-bench 'FLIPScaling/1e7' -benchtime 1x).
func BenchmarkFLIPScaling(b *testing.B) {
	bothSolvers(b, []string{"1e5", "1e6", "1e7"}, []float64{0.034, 0.016, 0.0074}, scalingRun)
}

// scalingSim builds BenchmarkFLIPScaling's scene at cell size h on pool, warmed up for 0.02 s,
// and returns it with its heap in bytes.
func scalingSim(b *testing.B, h float64, chapter bool, pool *par.Pool) (*Sim, float64) {
	p := DefaultParams()
	p.CellSize = h
	p.Dims = [3]int{int(2/h + 0.5), int(1.5/h + 0.5), int(1/h + 0.5)}
	p.MaxGridBytes = 16 << 30
	return benchSim(b, p, chapter, pool, Vec3{1.5, 0, 0}, Vec3{2, 1, 1}, Vec3{2, 0, 0}, 0.02)
}

func scalingRun(b *testing.B, h float64, chapter bool) {
	pool := par.NewPool(1)
	defer pool.Close()
	s, heap := scalingSim(b, h, chapter, pool)
	before := s.Totals()
	cpu0 := cputime.Nanos()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(s.MaxStep()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := float64(cputime.Nanos()-cpu0) * 1e-9
	tot := s.Totals()
	steps := float64(tot.Steps - before.Steps)
	np := float64(len(s.X))
	b.ReportMetric(np, "particles")
	b.ReportMetric(float64(s.g.NumCells()), "cells")
	b.ReportMetric(heap/np, "heap-B/particle")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/(steps*np), "ns/particle/step")
	b.ReportMetric(cpu*1e9/(steps*np), "cpu-ns/particle/step")
	b.ReportMetric(float64(tot.SolveIterations-before.SolveIterations)/steps, "MPRGP-its/step")
	b.ReportMetric(float64(tot.CorrectionIterations-before.CorrectionIterations)/steps, "correction-its/step")
	reportStages(b, before, tot)
}

// BenchmarkFLIPCorrectionProportioning compares the density correction's two proportioning
// steps on BenchmarkFLIPScaling's scene (10⁵ and 10⁶ particles, one worker, each solver):
// every timed step is taken twice from the same saved state, once with Dostál's step along β
// and once with the preconditioned step (MPRGP.PreconditionedProportioning), in alternating
// order so that neither always runs second, and the run continues from the second. It reports
// the correction stage's time (assembly, MPRGP, Eq. 3.9) and matrix products per step of each
// (suffix -dostal and -prec); on a loaded machine the two times move together, so their ratio
// is the figure to read.
func BenchmarkFLIPCorrectionProportioning(b *testing.B) {
	bothSolvers(b, []string{"1e5", "1e6"}, []float64{0.034, 0.016}, func(b *testing.B, h float64, chapter bool) {
		pool := par.NewPool(1)
		defer pool.Close()
		s, _ := scalingSim(b, h, chapter, pool)
		var tm [2]float64
		var its [2]int
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			st := s.Save()
			for k := 0; k < 2; k++ {
				dostal := (k+i)%2 == 0
				if k == 1 {
					if err := s.Restore(st); err != nil {
						b.Fatal(err)
					}
				}
				s.dostalCorrection = dostal
				t0 := s.Totals()
				if err := s.Step(s.MaxStep()); err != nil {
					b.Fatal(err)
				}
				t1 := s.Totals()
				v := 0
				if !dostal {
					v = 1
				}
				tm[v] += float64(t1.Time.Correction - t0.Time.Correction)
				its[v] += t1.CorrectionIterations - t0.CorrectionIterations
			}
		}
		b.StopTimer()
		n := float64(b.N)
		b.ReportMetric(tm[0]*1e-6/n, "correction-ms-dostal")
		b.ReportMetric(tm[1]*1e-6/n, "correction-ms-prec")
		b.ReportMetric(tm[1]/tm[0], "time-ratio")
		b.ReportMetric(float64(its[0])/n, "products-dostal")
		b.ReportMetric(float64(its[1])/n, "products-prec")
	})
}
