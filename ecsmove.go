package sluice

import (
	"runtime/metrics"

	"github.com/mlange-42/arche/generic"
	"github.com/sluicephysics/sluice/components"
)

// The ECS moves a component's bytes with a plain memory copy, without the write barrier of
// Go's garbage collector, when an entity gains a component (its components move to another
// archetype) and when an entity is removed (its archetype's last entity moves into the freed
// slot, and that slot is zeroed). Our components hold Go pointers: the particles' slices,
// names, fields. If a collection is marking while the bytes move, an object whose only
// reference moves into storage the collector has already scanned, or out of storage it has
// not scanned yet, is never marked. It is freed while the component still points to it, and
// the next allocation of its size overwrites the body's data, or the runtime stops with
// "found pointer to free object". TestBodiesSurviveECSMovesDuringCollection shows it:
// without moveBodies, a wall's particle position is overwritten within a few hundred moves.

// heldBody is a copy of one body's components, made with ordinary (typed) Go assignments.
type heldBody struct {
	b      components.Body
	m      components.Material
	p      components.Particles
	mo     components.Motion
	em     components.Emitter
	rb     components.RigidBody
	wm     components.WallMap
	hasMap bool
}

// heldMove keeps the copies of the bodies made before an ECS move until the collection that
// may have been marking during it has ended: until more than cycles collections have completed.
type heldMove struct {
	bodies []heldBody
	cycles uint64
}

var heldQuery = generic.NewFilter1[components.Body]()

// gcCyclesMetric is the runtime's count of completed collections.
const gcCyclesMetric = "/gc/cycles/total:gc-cycles"

// completedCollections returns the number of garbage collections completed so far (their
// marking ended).
func completedCollections() uint64 {
	s := []metrics.Sample{{Name: gcCyclesMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// holdBodies returns a copy of every body's components, made with typed assignments.
func (w *World) holdBodies() []heldBody {
	var out []heldBody
	q := heldQuery.Query(w.ecs.ECS)
	for q.Next() {
		out = append(out, heldBody{})
		e := q.Entity()
		b, m, p, mo, em, rb := w.bodies.Get(e)
		holdBody(&out[len(out)-1], b, m, p, mo, em, rb, w.wallMaps.Get(e))
	}
	return out
}

// holdBody stores a body's components into h. It is not inlined, so the compiler cannot tell
// that h lies in memory just allocated, and the stores run the write barrier (which it may
// leave out for stores into a new object) while a collection marks.
//
//go:noinline
func holdBody(h *heldBody, b *components.Body, m *components.Material, p *components.Particles, mo *components.Motion, em *components.Emitter, rb *components.RigidBody, wm *components.WallMap) {
	*h = heldBody{b: *b, m: *m, p: *p, mo: *mo, em: *em, rb: *rb}
	if wm != nil {
		h.wm, h.hasMap = *wm, true
	}
}

// moveBodies runs op, an operation of the ECS that moves bodies' components (see above).
// Before op it copies every body's components with typed assignments into the world, where
// they stay reachable until the collection that may have been marking during op has
// completed: storing them runs the write barrier on every pointer if a collection is marking,
// and a collection that starts later finds them through the world. Either way every object
// the moved bytes point to is marked by any collection that marks while they move. Copies
// whose collection has completed are dropped here and at each Step (releaseMoves), so a
// removed body's memory is freed after the next collection but one.
func (w *World) moveBodies(op func()) {
	w.releaseMoves()
	w.moves = append(w.moves, heldMove{bodies: w.holdBodies()})
	op()
	w.moves[len(w.moves)-1].cycles = completedCollections()
}

// releaseMoves drops the copies of moveBodies whose collection has completed.
func (w *World) releaseMoves() {
	if len(w.moves) == 0 {
		return
	}
	done := completedCollections()
	keep := w.moves[:0]
	for _, m := range w.moves {
		if done <= m.cycles {
			keep = append(keep, m)
		}
	}
	clear(w.moves[len(keep):])
	w.moves = keep
}
