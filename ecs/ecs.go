// Package ecs is sluice's thin layer over the arche ECS (github.com/mlange-42/arche): the
// world with its resources, the ordered Schedule of named stages that makes up a substep
// (DESIGN §4), the fixed-step Clock, and the deterministic parallel-for. It and systems/ are
// the only packages that touch arche, so a move to another ECS stays mechanical.
package ecs

import (
	"fmt"
	"math"
	"strings"
	"time"

	arche "github.com/mlange-42/arche/ecs"
	"github.com/sluicephysics/sluice/physics/par"
)

// Pool is the deterministic block-parallel loop runner (see physics/par): physics/ may not
// import this package, so the type lives there and is re-exported here for systems and games.
type Pool = par.Pool

// NewPool starts a pool with the given number of workers (≤ 0: GOMAXPROCS).
func NewPool(workers int) *Pool { return par.NewPool(workers) }

// Entity is an arche entity: one body (a fluid block, a wall, later a rigid body).
type Entity = arche.Entity

// World is the ECS world of one simulation: the arche world holding bodies as entities and
// solver state as resources, the substep schedule, the clock and the worker pool.
type World struct {
	ECS      *arche.World
	Schedule Schedule
	Clock    Clock
	Pool     *Pool
}

// NewWorld creates an empty world whose parallel loops use the given number of workers.
func NewWorld(workers int) *World {
	w := arche.NewWorld()
	return &World{ECS: &w, Pool: par.NewPool(workers)}
}

// Close stops the worker pool.
func (w *World) Close() { w.Pool.Close() }

// Context is what a system sees when it runs: the world, the pool and the substep's time.
type Context struct {
	World   *World
	Dt      float64 // substep length (s)
	Time    float64 // simulated time at the start of the substep (s)
	Substep int     // index of the substep within the current Step call
}

// System is one stage of the substep. Run must leave the world consistent; an error stops the
// step and is returned to the caller of World.Step.
type System interface {
	Run(ctx *Context) error
}

// SystemFunc adapts a function to System.
type SystemFunc func(ctx *Context) error

// Run calls f.
func (f SystemFunc) Run(ctx *Context) error { return f(ctx) }

type stage struct {
	name     string
	sys      System
	disabled bool
	elapsed  time.Duration
}

// Schedule is the ordered list of named stages run each substep. Games insert their own
// systems before or after a named stage, replace a stage or disable it; stage order is data.
type Schedule struct {
	stages []stage
	times  []StageTime
}

// Add appends a stage. Names must be unique.
func (s *Schedule) Add(name string, sys System) error {
	if s.index(name) >= 0 {
		return fmt.Errorf("schedule: stage %q already exists", name)
	}
	s.stages = append(s.stages, stage{name: name, sys: sys})
	return nil
}

func (s *Schedule) index(name string) int {
	for i := range s.stages {
		if s.stages[i].name == name {
			return i
		}
	}
	return -1
}

func (s *Schedule) find(name string) (int, error) {
	i := s.index(name)
	if i < 0 {
		return -1, fmt.Errorf("schedule: no stage %q (stages: %s)", name, strings.Join(s.Names(), ", "))
	}
	return i, nil
}

func (s *Schedule) insert(at int, name string, sys System) error {
	if s.index(name) >= 0 {
		return fmt.Errorf("schedule: stage %q already exists", name)
	}
	s.stages = append(s.stages, stage{})
	copy(s.stages[at+1:], s.stages[at:])
	s.stages[at] = stage{name: name, sys: sys}
	return nil
}

// InsertBefore inserts a new stage immediately before the named one.
func (s *Schedule) InsertBefore(before, name string, sys System) error {
	i, err := s.find(before)
	if err != nil {
		return err
	}
	return s.insert(i, name, sys)
}

// InsertAfter inserts a new stage immediately after the named one.
func (s *Schedule) InsertAfter(after, name string, sys System) error {
	i, err := s.find(after)
	if err != nil {
		return err
	}
	return s.insert(i+1, name, sys)
}

// Replace swaps the system of a named stage, keeping its place.
func (s *Schedule) Replace(name string, sys System) error {
	i, err := s.find(name)
	if err != nil {
		return err
	}
	s.stages[i].sys = sys
	return nil
}

// SetEnabled enables or disables a named stage; a disabled stage is skipped.
func (s *Schedule) SetEnabled(name string, on bool) error {
	i, err := s.find(name)
	if err != nil {
		return err
	}
	s.stages[i].disabled = !on
	return nil
}

// Names lists the stage names in run order.
func (s *Schedule) Names() []string {
	out := make([]string, len(s.stages))
	for i := range s.stages {
		out[i] = s.stages[i].name
	}
	return out
}

// Run runs every enabled stage in order, adding each one's wall time to its timer.
func (s *Schedule) Run(ctx *Context) error {
	for i := range s.stages {
		st := &s.stages[i]
		if st.disabled {
			continue
		}
		t0 := time.Now()
		err := st.sys.Run(ctx)
		st.elapsed += time.Since(t0)
		if err != nil {
			return fmt.Errorf("stage %s: %w", st.name, err)
		}
	}
	return nil
}

// StageTime is the accumulated wall time of one stage.
type StageTime struct {
	Name    string
	Elapsed time.Duration
}

// TakeTimes returns each stage's wall time since the last call, in run order, and resets them.
// Wall times are reported, never fed back into the simulation. The slice is reused by the next
// call.
func (s *Schedule) TakeTimes() []StageTime {
	s.times = s.times[:0]
	for i := range s.stages {
		s.times = append(s.times, StageTime{s.stages[i].name, s.stages[i].elapsed})
		s.stages[i].elapsed = 0
	}
	return s.times
}

// Clock is the fixed-step clock: one Advance covers one frame of simulated time with as many
// substeps as the CFL condition requires.
type Clock struct {
	Time  float64 // simulated time (s)
	Steps int     // substeps taken so far
	// Owed is the time the frames have asked for that AdvanceCarry has not simulated yet
	// (s): less than one substep after each call, 0 when every frame was advanced exactly.
	Owed float64
}

// Advance runs substeps until frameDt of simulated time has passed. next() proposes the next
// substep's length (the CFL step); each substep takes the rest of the frame divided into the
// fewest equal parts no longer than that, so a frame's substeps are as equal as the proposals
// allow and the last one lands exactly on the frame end. (Cutting only the last substeps
// short — 5, 5, 3.3, 3.3 ms for a 1/60 s frame — made every frame end on short substeps,
// where a pressure solve's correction of the residual compression, ∝ 1/Δt², is largest: a
// 2D resting column failed its hydrostatic bound at frame ends while meeting it averaged
// over substeps.)
func (c *Clock) Advance(frameDt float64, next func() float64, run func(dt float64) error) (int, error) {
	return c.AdvanceVar(frameDt, next, func(dt float64) (float64, error) { return dt, run(dt) })
}

// AdvanceVar is Advance for substeps that may end early: run returns the length it actually
// took (at most the proposed dt, above 0), as when the elastic stage re-estimates the CFL step
// from its new velocities (Peer et al. 2018, Algorithm 3).
func (c *Clock) AdvanceVar(frameDt float64, next func() float64, run func(dt float64) (float64, error)) (int, error) {
	if !(frameDt > 0) {
		return 0, fmt.Errorf("frame time %g s must be > 0", frameDt)
	}
	remaining := frameDt
	n := 0
	for remaining > 1e-12*frameDt {
		dt := next()
		if !(dt > 0) {
			return n, fmt.Errorf("substep length %g s is not positive", dt)
		}
		if dt >= remaining*(1-1e-9) { // a remainder over dt by round-off only is one substep
			dt = remaining
		} else {
			// the rest of the frame in equal substeps no longer than dt
			dt = remaining / math.Ceil(remaining/dt*(1-1e-9))
		}
		took, err := c.substep(dt, run)
		if err != nil {
			return n, err
		}
		remaining -= took
		n++
	}
	return n, nil
}

// substep runs one substep of at most dt and advances the clock by the length it reports.
func (c *Clock) substep(dt float64, run func(dt float64) (float64, error)) (float64, error) {
	took, err := run(dt)
	if err != nil {
		return 0, err
	}
	if !(took > 0 && took <= dt) {
		return 0, fmt.Errorf("substep of %g s reports %g s taken", dt, took)
	}
	c.Time += took
	c.Steps++
	return took, nil
}

// AdvanceCarry runs whole substeps of the proposed length for as long as they fit into the
// time owed to the frames, the frame's frameDt added to what earlier calls left over, and
// carries the rest (less than the next proposal) into the next call in Owed. The substeps are
// not aligned with the frames, as in a simulator that takes CFL steps and shows the state
// after the last one that has begun: over many frames the substeps number ∫dt/Δt_CFL, where
// Advance rounds each frame's count up (a 1/60 s frame at a 5 ms step takes four substeps of
// 4.17 ms with Advance, and 3⅓ on average here). Time trails the sum of the frames by Owed.
// Every substep takes the proposed length unchanged, also one that exceeds Owed by round-off
// only (which then leaves nothing owed), so the substeps' lengths, and with them the run, do
// not depend on how the time is cut into frames: the frames decide only after which substep
// each call returns. A call may run no substep at all when the frame is shorter than the
// step.
func (c *Clock) AdvanceCarry(frameDt float64, next func() float64, run func(dt float64) (float64, error)) (int, error) {
	if !(frameDt > 0) {
		return 0, fmt.Errorf("frame time %g s must be > 0", frameDt)
	}
	c.Owed += frameDt
	n := 0
	for c.Owed > 1e-12*frameDt {
		dt := next()
		if !(dt > 0) {
			return n, fmt.Errorf("substep length %g s is not positive", dt)
		}
		if dt > c.Owed*(1+1e-9) {
			break // the step does not fit: it waits for the next frame
		}
		took, err := c.substep(dt, run)
		if err != nil {
			return n, err
		}
		// A step longer than the owed time by round-off only leaves nothing owed.
		c.Owed = max(0, c.Owed-took)
		n++
	}
	if c.Owed <= 1e-12*frameDt {
		c.Owed = 0
	}
	return n, nil
}
