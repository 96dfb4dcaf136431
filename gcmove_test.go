package sluice_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/volumemap"
)

// gcSink receives the garbage of TestBodiesSurviveECSMovesDuringCollection, so that the
// compiler keeps its allocations.
var gcSink atomic.Pointer[[]mgl64.Vec3]

// TestBodiesSurviveECSMovesDuringCollection: a wall's one-particle position slice (24 bytes)
// survives the ECS moving its components while the garbage collector marks. A goroutine runs
// collections without pause; each round builds 64 one-particle walls, gives every second one
// a wall field (its components move to another archetype) and removes every fourth, then
// allocates 20 000 slices of the same size holding (−7, −7, −7). Every remaining wall must
// still hold exactly the position it was given. Without the world's copies of the bodies
// around the move (ecsmove.go), a slice freed while its wall still pointed to it was handed
// out again and read (−7, −7, −7) within 1 to 178 rounds in each of ten runs; the runtime also
// stops with "found pointer to free object".
func TestBodiesSurviveECSMovesDuringCollection(t *testing.T) {
	if raceEnabled {
		t.Skip("200 worlds built beside a collector running without pause: skipped under -race")
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			runtime.GC()
		}
	}()
	defer func() { stop.Store(true); wg.Wait() }()
	const rounds, bodies, garbage = 200, 64, 20000
	o := volumemap.DefaultOptions(0.04, 0.01)
	for r := 0; r < rounds; r++ {
		s := components.DefaultSolver()
		s.ParticleRadius = 0.01
		w, err := sluice.NewWorld(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		es := make([]sluice.Entity, bodies)
		for i := range es {
			es[i], err = w.AddBoundaryParticles(fmt.Sprintf("wall %d", i), []mgl64.Vec3{{float64(i), float64(r), 1}})
			if err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < bodies; i += 2 {
			if err := sluice.SetWallField(w, es[i], &floorField{o}); err != nil {
				t.Fatal(err)
			}
		}
		for i := 1; i < bodies; i += 4 {
			if err := w.Remove(es[i]); err != nil {
				t.Fatal(err)
			}
		}
		for k := 0; k < garbage; k++ {
			g := []mgl64.Vec3{{-7, -7, -7}}
			gcSink.Store(&g)
		}
		for i, e := range es {
			if i%4 == 1 {
				continue
			}
			p := w.Particles(e)
			if want := (mgl64.Vec3{float64(i), float64(r), 1}); len(p.X) != 1 || p.X[0] != want {
				t.Fatalf("round %d: wall %d holds %v, want [%v]", r, i, p.X, want)
			}
		}
		w.Close()
	}
}
