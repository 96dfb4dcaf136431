package sluice

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/systems"
)

// SensorDef describes a sensor: a region that reports the bodies reaching into it and exerts
// no force (a goal zone, a trigger, a water gauge). It is fixed in the world, or carried by
// a rigid body (Attach) with its Shape's Center and Orientation given in the world as the
// body stands when the sensor is added.
type SensorDef struct {
	Name   string
	Shape  OverlapShape
	Attach Entity    // a rigid body that carries the sensor; the zero Entity: none
	Filter RayFilter // what the sensor sees, as for Overlap
}

// SensorID names a sensor of a World.
type SensorID uint32

// sensor is a sensor with its pose relative to the body carrying it and the bodies inside at
// the end of the last step, by body ID.
type sensor struct {
	id       SensorID
	name     string
	shape    OverlapShape // in the world for a fixed sensor, in the carrier's frame otherwise
	attach   uint32       // the carrier's body ID; 0: none
	filter   RayFilter
	inside   []uint32
	counts   []int // particles of the bodies inside, as inside
	carrierE Entity
}

// AddSensor adds a sensor. Its overlaps are evaluated after every Step (Overlap's cost, once
// per sensor) and reported by SensorOverlaps; bodies that begin or end reaching into it raise
// SensorBegin and SensorEnd events (Events; A is the body, Sensor the sensor). A sensor goes
// when the body carrying it is removed.
func (w *World) AddSensor(def SensorDef) (SensorID, error) {
	op := fmt.Sprintf("add sensor %q", def.Name)
	if def.Name == "" {
		return 0, fmt.Errorf("add sensor: a sensor needs a name")
	}
	for _, s := range w.sensors {
		if s.name == def.Name {
			return 0, fmt.Errorf("%s: the name is taken by sensor %d", op, s.id)
		}
	}
	sh := def.Shape
	if err := sh.check(op); err != nil {
		return 0, err
	}
	sn := sensor{name: def.Name, shape: sh, filter: def.Filter}
	if def.Attach != (Entity{}) {
		b, err := w.body(def.Attach, op)
		if err != nil {
			return 0, err
		}
		rb := w.RigidBody(def.Attach)
		if rb == nil {
			return 0, fmt.Errorf("%s: body %q is a %s body; a sensor rides on a rigid body", op, b.Name, b.Phase)
		}
		// the region in the carrier's frame: c = Rᵀ (c_w − x), q = q_bodyⁿ⁻¹ q_w
		st := &rb.State
		qb := mgl64.Quat{W: st.Q[0], V: mgl64.Vec3{st.Q[1], st.Q[2], st.Q[3]}}
		sn.shape.Center = qb.Conjugate().Rotate(sh.Center.Sub(st.X))
		sn.shape.Orientation = qb.Conjugate().Mul(sh.Orientation)
		sn.attach, sn.carrierE = b.ID, def.Attach
	}
	w.sensorSeq++
	sn.id = SensorID(w.sensorSeq)
	w.sensors = append(w.sensors, sn)
	return sn.id, nil
}

// RemoveSensor removes a sensor; an ID that names no sensor is an error.
func (w *World) RemoveSensor(id SensorID) error {
	k := slices.IndexFunc(w.sensors, func(s sensor) bool { return s.id == id })
	if k < 0 {
		return fmt.Errorf("remove sensor: no sensor %d (removed, or gone with the body carrying it)", id)
	}
	w.sensors = slices.Delete(w.sensors, k, k+1)
	return nil
}

// SensorOverlaps returns the bodies reaching into the sensor's region at the end of the last
// Step (or, before the first, none), as Overlap reports them.
func (w *World) SensorOverlaps(id SensorID) ([]OverlapHit, error) {
	k := slices.IndexFunc(w.sensors, func(s sensor) bool { return s.id == id })
	if k < 0 {
		return nil, fmt.Errorf("sensor overlaps: no sensor %d", id)
	}
	s := &w.sensors[k]
	out := make([]OverlapHit, 0, len(s.inside))
	for i, bid := range s.inside {
		e, ok := w.entityOf(bid)
		if !ok {
			continue
		}
		b := w.Body(e)
		out = append(out, OverlapHit{Body: e, Phase: b.Phase, Rigid: w.RigidBody(e) != nil, Particles: s.counts[i]})
	}
	return out, nil
}

// entityOf finds the entity of a body ID.
func (w *World) entityOf(id uint32) (Entity, bool) {
	for _, b := range w.Bodies() {
		if b.Body.ID == id {
			return b.Entity, true
		}
	}
	return Entity{}, false
}

// worldShape returns the sensor's region in the world, false when its carrier is gone.
func (w *World) worldShape(s *sensor) (OverlapShape, bool) {
	if s.attach == 0 {
		return s.shape, true
	}
	rb := w.RigidBody(s.carrierE)
	if rb == nil {
		return OverlapShape{}, false
	}
	st := &rb.State
	qb := mgl64.Quat{W: st.Q[0], V: mgl64.Vec3{st.Q[1], st.Q[2], st.Q[3]}}
	sh := s.shape
	sh.Center = st.X.Add(qb.Rotate(s.shape.Center))
	sh.Orientation = qb.Mul(s.shape.Orientation).Normalize()
	return sh, true
}

// updateSensors evaluates every sensor after a Step and records its begin and end events, in
// sensor order, then body ID order.
func (w *World) updateSensors() {
	keep := w.sensors[:0]
	for _, s := range w.sensors {
		sh, ok := w.worldShape(&s)
		if !ok {
			continue // its carrier is gone: so is the sensor
		}
		hits := w.overlap(&sh, s.filter, nil)
		ids := make([]uint32, 0, len(hits))
		counts := make([]int, 0, len(hits))
		for _, h := range hits {
			ids = append(ids, w.Body(h.Body).ID)
			counts = append(counts, h.Particles)
		}
		i, j := 0, 0
		for i < len(s.inside) || j < len(ids) {
			switch {
			case j == len(ids) || (i < len(s.inside) && s.inside[i] < ids[j]):
				w.worldEvents = append(w.worldEvents, worldEvent{kind: systems.SensorEnd, sensor: s.id, body: s.inside[i]})
				i++
			case i == len(s.inside) || ids[j] < s.inside[i]:
				w.worldEvents = append(w.worldEvents, worldEvent{kind: systems.SensorBegin, sensor: s.id, body: ids[j]})
				j++
			default:
				i++
				j++
			}
		}
		s.inside, s.counts = ids, counts
		keep = append(keep, s)
	}
	w.sensors = keep
}

// worldEvent is an event the World itself raised in the last step: particles that left the
// domain, an emitter done, a sensor's begin or end.
type worldEvent struct {
	kind   systems.EventKind
	sensor SensorID
	body   uint32
	count  int
}

// SetNote keeps an application's bytes in the world's snapshots (Save writes them, Restore
// gives them back through Note): the command-line tool keeps its frame length, frame index
// and output name there, so a resumed run continues both. The world does not read them.
func (w *World) SetNote(b []byte) { w.note = slices.Clone(b) }

// Note returns the bytes SetNote kept (a restored world's, those of the world saved).
func (w *World) Note() []byte { return w.note }

// saveSensors writes the application's note (SetNote) and the sensors (version 9): the last
// ID given, then per sensor its ID,
// name, region, carrier, filter (ignored bodies by ID) and the bodies inside with their
// counts, so a restored world raises the same events.
func (w *World) saveSensors(e *enc) error {
	e.bytes(w.note)
	e.u32(w.sensorSeq)
	e.u64(uint64(len(w.sensors)))
	for _, s := range w.sensors {
		e.u32(uint32(s.id))
		e.bytes([]byte(s.name))
		e.bytes([]byte(s.shape.Kind))
		o := s.shape.Orientation
		e.vecs([]mgl64.Vec3{s.shape.Center, s.shape.HalfExtents, o.V})
		e.floats([]float64{s.shape.Radius, o.W})
		e.u32(s.attach)
		f := s.filter
		flags := uint32(0)
		for k, on := range []bool{f.SkipRigid, f.SkipWalls, f.SkipFluid} {
			if on {
				flags |= 1 << k
			}
		}
		e.u32(flags)
		e.u32(f.Mask)
		e.u64(uint64(len(f.Ignore)))
		for _, ig := range f.Ignore {
			id := uint32(0)
			if b := w.Body(ig); b != nil {
				id = b.ID
			}
			e.u32(id)
		}
		e.u64(uint64(len(s.inside)))
		for i, id := range s.inside {
			e.u32(id)
			e.u64(uint64(s.counts[i]))
		}
	}
	return nil
}

// savedSensors is what saveSensors wrote, the ignored bodies and carrier by ID.
type savedSensors struct {
	note    []byte
	seq     uint32
	sensors []sensor
	ignore  [][]uint32
}

// readSensors reads what saveSensors wrote.
func readSensors(d *dec) savedSensors {
	out := savedSensors{note: slices.Clone(d.bytes())}
	out.seq = d.u32()
	n := d.count(8)
	for i := 0; i < n && d.err == nil; i++ {
		s := sensor{id: SensorID(d.u32()), name: string(d.bytes())}
		s.shape.Kind = string(d.bytes())
		v := d.vecs(3)
		f := d.floats(2)
		if d.err != nil {
			break
		}
		s.shape.Center, s.shape.HalfExtents = v[0], v[1]
		s.shape.Radius, s.shape.Orientation = f[0], mgl64.Quat{W: f[1], V: v[2]}
		s.attach = d.u32()
		flags := d.u32()
		s.filter = RayFilter{SkipRigid: flags&1 != 0, SkipWalls: flags&2 != 0, SkipFluid: flags&4 != 0, Mask: d.u32()}
		ni := d.count(4)
		var ig []uint32
		for k := 0; k < ni && d.err == nil; k++ {
			ig = append(ig, d.u32())
		}
		nb := d.count(12)
		for k := 0; k < nb && d.err == nil; k++ {
			s.inside = append(s.inside, d.u32())
			s.counts = append(s.counts, int(d.u64()))
		}
		out.sensors = append(out.sensors, s)
		out.ignore = append(out.ignore, ig)
	}
	return out
}

// restoreSensors gives a restored world its sensors once its bodies are there.
func (w *World) restoreSensors(saved savedSensors) error {
	w.note = saved.note
	w.sensorSeq = saved.seq
	for i, s := range saved.sensors {
		if err := s.shape.check(fmt.Sprintf("sensor %q", s.name)); err != nil {
			return fmt.Errorf("%w: %v", ErrSnapshot, err)
		}
		if s.attach != 0 {
			e, ok := w.entityOf(s.attach)
			if !ok || w.RigidBody(e) == nil {
				return fmt.Errorf("%w: sensor %q rides on body ID %d, which is not a rigid body of the snapshot", ErrSnapshot, s.name, s.attach)
			}
			s.carrierE = e
		}
		for _, id := range saved.ignore[i] {
			if e, ok := w.entityOf(id); ok {
				s.filter.Ignore = append(s.filter.Ignore, e)
			}
		}
		w.sensors = append(w.sensors, s)
	}
	return nil
}
