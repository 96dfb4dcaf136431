// Command splash runs the dissertation's Fig. 3.2 dam break over an obstacle with the
// mass-full FLIP liquid of physics/flip, once with the unilateral incompressibility solve
// (MPRGP, the chapter's method) and once with the bilateral (ordinary incompressible, PCG)
// solve, and prints what each did side by side every interval: the front (m), the highest
// point of the liquid in the 2 m past the obstacle (the splash, m), the solver's matrix
// products per step over the interval (its), the last step's residual (kg/m³), liquid cells,
// particles per liquid cell (ppc) and the wall time per 30 Hz frame (s).
//
// The tank is 8 m × 6 m × 4 m; a 2.4 m × 3.6 m column spanning its depth breaks over a
// 0.6 m × 1 m × 1.6 m box 4 m from the back wall.
//
// -scene fountain runs the chapter's Fig. 3.1 comparison instead: a jet shoots up from 0.3 m
// above the floor of a 2 m × 2 m × 1 m box at a ceiling for -jet seconds and stops; the command prints
// how much liquid is within a cell of the ceiling and the gap between the ceiling and the
// liquid below it. With the unilateral solve the liquid spreads, separates and falls; with the
// bilateral solve it clings to the ceiling.
//
//	go run ./examples/splash [-scene dambreak|fountain] [-h 0.2] [-duration 3] [-every 0.25] [-workers 0] [-jet 0.5]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/sluicephysics/sluice/physics/flip"
	"github.com/sluicephysics/sluice/physics/par"
)

func main() {
	scene := flag.String("scene", "dambreak", "dambreak (Fig. 3.2) or fountain (Fig. 3.1)")
	h := flag.Float64("h", 0.2, "dam break: cell size in m (0.2: 40×30×20 cells and 34560 particles; 0.1: the chapter's 80×60×40 grid); fountain: 0.05 unless set")
	jet := flag.Float64("jet", 0.5, "fountain: how long the jet runs (s)")
	duration := flag.Float64("duration", 3, "simulated time in s")
	every := flag.Float64("every", 0.25, "print interval in s")
	workers := flag.Int("workers", 0, "worker threads (0: all cores)")
	flag.Parse()
	var err error
	switch *scene {
	case "dambreak":
		err = run(*h, *duration, *every, *workers)
	case "fountain":
		hf := 0.05
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "h" {
				hf = *h
			}
		})
		err = fountain(hf, *duration, *every, *jet, *workers)
	default:
		err = fmt.Errorf("-scene %q: want dambreak or fountain", *scene)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "splash:", err)
		os.Exit(1)
	}
}

// obstacleX is the obstacle's far face (m): the splash height is measured over the 2 m past
// it, short of the far wall (at 8 m) so that the run-up along that wall does not count.
const (
	obstacleX = 4.6
	splashEnd = obstacleX + 2
)

// newScene builds the dam break.
func newScene(h float64, unilateral bool, pool *par.Pool) (*flip.Sim, error) {
	p := flip.DefaultParams()
	p.CellSize = h
	nx, ny, nz := int(8/h+0.5), int(6/h+0.5), int(4/h+0.5)
	p.Dims = [3]int{nx, ny, nz}
	p.Unilateral = unilateral
	obs := []flip.Obstacle{{Kind: flip.ObstacleBox, Min: flip.Vec3{4.0, 0, 1.2}, Max: flip.Vec3{obstacleX, 1.0, 2.8}}}
	s, err := flip.New(p, obs, pool)
	if err != nil {
		return nil, err
	}
	if _, err := s.AddBlock(flip.Vec3{0, 0, 0}, flip.Vec3{2.4, 3.6, 4}, flip.Vec3{}); err != nil {
		return nil, err
	}
	return s, nil
}

// row is what one solve did over one print interval.
type row struct {
	front, splash float64
	its, steps    int
	residual      float64
	cells         int
	perCell       float64
	wall          time.Duration
}

// measure returns the front (the 99.9th percentile of x) and the splash height (the
// 99.9th percentile of y among particles in the 2 m past the obstacle; 0 if none).
func measure(s *flip.Sim, xs, ys []float64) (front, splash float64) {
	xs = xs[:0]
	ys = ys[:0]
	for _, x := range s.X {
		xs = append(xs, x[0])
		if x[0] > obstacleX && x[0] < splashEnd {
			ys = append(ys, x[1])
		}
	}
	slices.Sort(xs)
	front = xs[len(xs)-1-len(xs)/1000]
	if len(ys) > 0 {
		slices.Sort(ys)
		splash = ys[len(ys)-1-len(ys)/1000]
	}
	return front, splash
}

func run(h, duration, every float64, workers int) error {
	if !(every > 0) || !(duration > 0) {
		return fmt.Errorf("-duration %g and -every %g must be positive", duration, every)
	}
	pool := par.NewPool(workers)
	defer pool.Close()
	names := []string{"unilateral (MPRGP)", "bilateral (PCG)"}
	var sims [2]*flip.Sim
	for i := range sims {
		s, err := newScene(h, i == 0, pool)
		if err != nil {
			return err
		}
		sims[i] = s
	}
	g := sims[0].Grid()
	fmt.Printf("grid %d×%d×%d cells of %g m, %d particles of %.4g kg, %d workers\n",
		g.N[0], g.N[1], g.N[2], g.H, len(sims[0].X), sims[0].ParticleMass(), pool.Workers())
	fmt.Printf("%6s | %-54s | %-54s\n", "", names[0], names[1])
	fmt.Printf("%6s |", "t (s)")
	for range sims {
		fmt.Printf(" %6s %6s %5s %8s %6s %5s %7s |", "front", "splash", "its", "residual", "cells", "ppc", "s/frame")
	}
	fmt.Println()
	xs := make([]float64, 0, len(sims[0].X))
	ys := make([]float64, 0, len(sims[0].X))
	var total [2]time.Duration
	frames := 0
	for t := every; t <= duration+1e-9; t += every {
		var rows [2]row
		for i, s := range sims {
			r := &rows[i]
			before := s.Totals()
			start := time.Now()
			n := 0 // 30 Hz frames up to t (the last one shortened to land on t)
			for ; s.Time() < t-1e-9; n++ {
				if _, err := s.Advance(min(1.0/30, t-s.Time())); err != nil {
					return err
				}
			}
			n = max(n, 1)
			r.wall = time.Since(start) / time.Duration(n)
			total[i] += time.Since(start)
			if i == 0 {
				frames += n
			}
			st := s.Totals()
			r.steps = st.Steps - before.Steps
			r.its = (st.SolveIterations - before.SolveIterations) / max(r.steps, 1)
			last := s.Stats()
			r.residual, r.cells, r.perCell = last.Solve.Residual, last.LiquidCells, last.PerCell
			r.front, r.splash = measure(s, xs, ys)
		}
		fmt.Printf("%6.2f |", t)
		for _, r := range rows {
			fmt.Printf(" %6.2f %6.2f %5d %8.1e %6d %5.1f %7.3f |", r.front, r.splash, r.its, r.residual, r.cells, r.perCell, r.wall.Seconds())
		}
		fmt.Println()
	}
	for i := range sims {
		fmt.Printf("%s: %.3f s per 30 Hz frame on average\n", names[i], total[i].Seconds()/float64(frames))
	}
	return nil
}

// The fountain: a 2 m × 2 m × 1 m box (x, y up, z), a 0.2 m × 0.2 m nozzle nozzleY above the
// middle of the floor shooting up at jetSpeed; the ceiling is the box's top at 2 m. The
// nozzle is a pipe end in the air, not a hole in the floor: the bilateral solve has no inflow
// boundary, and a stream starting at the closed floor would be a divergence it must remove.
const (
	boxW, boxH, boxD = 2.0, 2.0, 1.0
	nozzle           = 0.2
	nozzleY          = 0.3
	jetSpeed         = 7.0 // m/s: a free jet would rise v²/2g = 2.5 m, above the ceiling
)

// jetSim is one fountain with its emitter state.
type jetSim struct {
	s    *flip.Sim
	fill float64 // distance the stream has moved since the last emitted layer (m)
}

// emit advances the emitter by dt: whenever the stream has moved one particle spacing, a new
// layer of particles at jetSpeed is seeded at the nozzle (the lattice positions of
// AddBlock), so the stream keeps the rest density of a full cell.
func (j *jetSim) emit(dt float64) error {
	p := j.s.Params()
	sp := p.CellSize / float64(p.ParticlesPerAxis)
	j.fill += jetSpeed * dt
	for j.fill >= sp {
		j.fill -= sp
		x0, z0 := 0.5*(boxW-nozzle), 0.5*(boxD-nozzle)
		if _, err := j.s.AddBlock(flip.Vec3{x0, nozzleY, z0}, flip.Vec3{x0 + nozzle, nozzleY + sp, z0 + nozzle}, flip.Vec3{0, jetSpeed, 0}); err != nil {
			return err
		}
	}
	return nil
}

func fountain(h, duration, every, jet float64, workers int) error {
	if !(every > 0) || !(duration > 0) || !(jet >= 0) {
		return fmt.Errorf("-duration %g, -every %g and -jet %g must be positive", duration, every, jet)
	}
	pool := par.NewPool(workers)
	defer pool.Close()
	var sims [2]*jetSim
	for i := range sims {
		p := flip.DefaultParams()
		p.CellSize = h
		p.Dims = [3]int{int(boxW/h + 0.5), int(boxH/h + 0.5), int(boxD/h + 0.5)}
		p.Unilateral = i == 0
		s, err := flip.New(p, nil, pool)
		if err != nil {
			return err
		}
		sims[i] = &jetSim{s: s}
	}
	g := sims[0].s.Grid()
	fmt.Printf("fountain: grid %d×%d×%d cells of %g m, jet %g m × %g m at %g m/s for %g s, ceiling at %g m, %d workers\n",
		g.N[0], g.N[1], g.N[2], g.H, nozzle, nozzle, jetSpeed, jet, boxH, pool.Workers())
	fmt.Printf("%6s | %-44s | %-44s\n", "", "unilateral (MPRGP)", "bilateral (PCG)")
	fmt.Printf("%6s |", "t (s)")
	for range sims {
		fmt.Printf(" %9s %8s %7s %5s %8s |", "particles", "at ceil", "gap", "its", "s/frame")
	}
	fmt.Println()
	const frame = 1.0 / 60
	for t := every; t <= duration+1e-9; t += every {
		type row struct {
			n, atCeil, its int
			gap            float64
			wall           time.Duration
		}
		var rows [2]row
		for i, j := range sims {
			before := j.s.Totals()
			start := time.Now()
			n := 0 // frames up to t
			for ; j.s.Time() < t-1e-9; n++ {
				// Steps short enough for the jet's speed, emitting before each.
				left := min(frame, t-j.s.Time())
				for left > 1e-12 {
					dt := min(left, 0.5*h/jetSpeed)
					if j.s.Time() < jet {
						if err := j.emit(dt); err != nil {
							return err
						}
					}
					if _, err := j.s.Advance(dt); err != nil {
						return err
					}
					left -= dt
				}
			}
			r := &rows[i]
			r.wall = time.Since(start) / time.Duration(max(n, 1))
			tot := j.s.Totals()
			r.its = (tot.SolveIterations - before.SolveIterations) / max(tot.Steps-before.Steps, 1)
			r.n = len(j.s.X)
			// Liquid within a cell of the ceiling, and the gap between the ceiling and the
			// highest liquid within the nozzle's width of the axis (the 99.9th percentile).
			var ys []float64
			for _, x := range j.s.X {
				if x[1] > boxH-h {
					r.atCeil++
				}
				if x[0] > 0.5*(boxW-nozzle) && x[0] < 0.5*(boxW+nozzle) {
					ys = append(ys, x[1])
				}
			}
			r.gap = boxH
			if len(ys) > 0 {
				slices.Sort(ys)
				r.gap = boxH - ys[len(ys)-1-len(ys)/1000]
			}
		}
		fmt.Printf("%6.2f |", t)
		for _, r := range rows {
			fmt.Printf(" %9d %8d %7.3f %5d %8.3f |", r.n, r.atCeil, r.gap, r.its, r.wall.Seconds())
		}
		fmt.Println()
	}
	return nil
}
