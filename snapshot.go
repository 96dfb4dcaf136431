package sluice

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/diffuse"
	"github.com/sluicephysics/sluice/physics/rigid"
	"github.com/sluicephysics/sluice/systems"
)

// Snapshot format: the magic "SLUICEsn", a little-endian uint32 version, a uint64 payload
// length, the payload, and the SHA-256 of the payload. The payload holds the solver settings,
// the clock, every body (identity, material, particles, kinematic path) and the packed solver
// order with the goo's coefficients and connections, which is everything a substep reads that
// it does not recompute; so a restored world continues bit-identically. Systems a game
// inserted into the schedule are code, not state, and are not saved. Version 2 added the
// kinematic paths, emitters and the goo state; version 3 the elastic bodies' velocities and
// their rest shapes and rotations (the warm start of the rotation extraction); version 4 the
// rigid bodies (definition, mesh, pose, velocities, applied loads) and the contact solver's
// warm-start impulses; version 5 every dynamic particle's mass and the rest density the masses
// were made with (components.Particles.M and MassDensity, state since masses stopped being
// recomputed from ρ0). A version-4 snapshot is read with the masses that version implied,
// ρ0·V0 for every particle (what it recomputed at every step), so it continues exactly; older
// versions are refused. Version 6 added the insides of solid walls (box or mesh); a version-4
// or -5 snapshot has none, and its obstacle boxes and meshes are walls of samples only, as they
// were when it was written. Version 7 added the joints between rigid bodies with their
// accumulated impulses. Version 8 added the elastoplastic bodies' per-particle state (F,
// plastic strain, previous positions and the time since them; snapshot_elastoplastic.go);
// older versions have none. Version 9 added the joints' limits, their accumulated impulses, the
// hinges' reference directions and the motor schedules (older joints are unlimited), the rigid
// bodies' sleep state (older bodies are awake), an application's note (World.SetNote) and the
// sensors (sensor.go). Version 10 added the reduced air domains and wind boxes
// (snapshot_reduced.go); version 11 the FLIP liquid bodies' grids, parameters and solver state
// (snapshot_flip.go); older versions have none. Version 12 added the implicit viscosity's warm
// start (each packed particle's last velocity change, physics.FluidSet.VDiff); older
// versions restore it as zero. Version 13 added the diffuse particles (spray, foam, bubbles)
// and their update counter (diffuse.go); older versions have none. Version 14 added the cloth
// bodies' meshes (rest positions, triangles, pinned vertices; snapshot_cloth.go); older
// versions have none. Version 15 added every packed particle's micropolar angular velocity
// (physics.FluidSet.Omega, empty likewise); older versions restore it as zero. Version 16 added the meshes of
// the walls made by AddBoundaryMesh (World.WallMesh, for drawing; wallmesh.go); older versions
// have none, and a view draws those walls as their samples. Version 17 added the time the
// clock owes the frames (ecs.Clock.Owed, World.Behind: a world with alignFrames false);
// older versions restore it as zero. Version 18 added each emitter's time held by a blocked
// nozzle (components.Emitter.Held); older versions restore it as zero.
const (
	snapshotMagic   = "SLUICEsn"
	snapshotVersion = 18
	// snapshotMigrated is the oldest version still read (see the version notes above).
	snapshotMigrated = 4
)

// ErrSnapshot wraps every reason a snapshot is rejected; nothing is built from a rejected one.
var ErrSnapshot = errors.New("invalid snapshot")

type enc struct{ bytes.Buffer }

func (e *enc) u32(v uint32)  { binary.Write(&e.Buffer, binary.LittleEndian, v) }
func (e *enc) u64(v uint64)  { binary.Write(&e.Buffer, binary.LittleEndian, v) }
func (e *enc) f64(v float64) { e.u64(math.Float64bits(v)) }
func (e *enc) bytes(b []byte) {
	e.u64(uint64(len(b)))
	e.Write(b)
}
func (e *enc) vecs(v []mgl64.Vec3) {
	for _, x := range v {
		e.f64(x[0])
		e.f64(x[1])
		e.f64(x[2])
	}
}
func (e *enc) floats(v []float64) {
	for _, x := range v {
		e.f64(x)
	}
}

// tris writes a triangle list: its length, then three uint32 vertex indices a triangle.
func (e *enc) tris(ts [][3]int32) {
	e.u64(uint64(len(ts)))
	for _, t := range ts {
		e.u32(uint32(t[0]))
		e.u32(uint32(t[1]))
		e.u32(uint32(t[2]))
	}
}

// Save writes the world's complete simulation state. The world must not be stepping.
func (w *World) Save(out io.Writer) error {
	var e enc
	settings, err := json.Marshal(w.sim.Settings)
	if err != nil {
		return err
	}
	e.bytes(settings)
	e.f64(w.ecs.Clock.Time)
	e.u64(uint64(w.ecs.Clock.Steps))
	e.u32(w.nextID)
	bodies := w.Bodies()
	e.u32(uint32(len(bodies)))
	for _, b := range bodies {
		e.u32(b.Body.ID)
		e.bytes([]byte(b.Body.Name))
		e.u32(uint32(b.Body.Phase))
		mat, err := json.Marshal(b.Material)
		if err != nil {
			return err
		}
		e.bytes(mat)
		var path []components.MotionKey
		if m := w.Motion(b.Entity); m != nil {
			path = m.Path
		}
		js, err := json.Marshal(path)
		if err != nil {
			return err
		}
		e.bytes(js)
		em := w.Emitter(b.Entity)
		js, err = json.Marshal(em)
		if err != nil {
			return err
		}
		e.bytes(js)
		if em != nil {
			e.u64(uint64(em.Layers))
			e.u64(uint64(em.Emitted))
			e.f64(em.Held)
		}
		p := b.Particles
		n := p.Len()
		e.u64(uint64(n))
		e.vecs(p.X)
		if b.Body.Phase.Dynamic() {
			e.vecs(fitVecs(p.V, n))
			e.floats(fitFloats(p.Density, n))
			e.floats(fitFloats(p.Pressure, n))
			e.f64(p.MassDensity)
			e.floats(fitFloats(p.M, n))
		}
	}
	ps := w.sim.PackState()
	e.u64(uint64(len(ps.Owner)))
	for k := range ps.Owner {
		e.u32(uint32(ps.Owner[k]))
		e.u32(uint32(ps.Origin[k]))
	}
	e.u64(uint64(ps.SinceSort))
	e.vecs([]mgl64.Vec3{ps.DomainMin, ps.DomainMax})
	e.u32(flags(ps.DomainSet, ps.Repack))
	e.u64(uint64(len(ps.GooC)))
	e.floats(ps.GooC)
	e.u64(uint64(len(ps.GooCount)))
	for _, c := range ps.GooCount {
		e.u32(uint32(c))
	}
	e.u64(uint64(len(ps.GooJ)))
	for _, j := range ps.GooJ {
		e.u32(uint32(j))
	}
	e.u64(uint64(len(ps.GooR)))
	e.floats(ps.GooR)
	e.u64(uint64(len(w.sim.Elastic)))
	for _, st := range w.sim.Elastic {
		e.u32(st.ID)
		e.u64(uint64(len(st.Rest)))
		e.vecs(st.Rest)
		for _, q := range st.Body.Quaternions() {
			e.floats(q[:])
		}
	}
	if err := w.saveRigid(&e); err != nil {
		return err
	}
	w.saveSolids(&e)
	w.saveJoints(&e)
	w.saveElastoplastic(&e)
	w.saveJointLimits(&e)
	w.saveRigidSleep(&e)
	if err := w.saveSensors(&e); err != nil {
		return err
	}
	if err := w.saveReduced(&e); err != nil {
		return err
	}
	if err := w.saveFlip(&e); err != nil {
		return err
	}
	vd := w.sim.Fluid.VDiff
	if ps.Repack {
		vd = nil
	}
	e.u64(uint64(len(vd)))
	e.vecs(vd)
	w.saveDiffuse(&e)
	w.saveCloth(&e)
	om := w.sim.Fluid.Omega
	if ps.Repack {
		om = nil
	}
	e.u64(uint64(len(om)))
	e.vecs(om)
	w.saveWallMeshes(&e)
	e.f64(w.ecs.Clock.Owed)
	payload := e.Bytes()
	sum := sha256.Sum256(payload)
	var head [20]byte
	copy(head[:8], snapshotMagic)
	binary.LittleEndian.PutUint32(head[8:], snapshotVersion)
	binary.LittleEndian.PutUint64(head[12:], uint64(len(payload)))
	for _, part := range [][]byte{head[:], payload, sum[:]} {
		if _, err := out.Write(part); err != nil {
			return err
		}
	}
	return nil
}

func fitVecs(v []mgl64.Vec3, n int) []mgl64.Vec3 {
	if len(v) == n {
		return v
	}
	return make([]mgl64.Vec3, n)
}

func fitFloats(v []float64, n int) []float64 {
	if len(v) == n {
		return v
	}
	return make([]float64, n)
}

type dec struct {
	b   []byte
	err error
}

func (d *dec) take(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		if d.err == nil {
			d.err = fmt.Errorf("%w: truncated payload", ErrSnapshot)
		}
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}
func (d *dec) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}
func (d *dec) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
func (d *dec) f64() float64  { return math.Float64frombits(d.u64()) }
func (d *dec) bytes() []byte { return d.take(d.u64()) }
func (d *dec) count(per uint64) int {
	n := d.u64()
	if d.err == nil && (per == 0 || n > uint64(len(d.b))/per) {
		d.err = fmt.Errorf("%w: count %d exceeds the payload", ErrSnapshot, n)
		return 0
	}
	return int(n)
}
func (d *dec) vecs(n int) []mgl64.Vec3 {
	v := make([]mgl64.Vec3, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		v = append(v, mgl64.Vec3{d.f64(), d.f64(), d.f64()})
	}
	return v
}
func (d *dec) floats(n int) []float64 {
	v := make([]float64, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		v = append(v, d.f64())
	}
	return v
}

// tris reads what enc.tris wrote. Every index must name one of nv vertices; owner names the
// list's owner in the error.
func (d *dec) tris(nv int, owner string) [][3]int32 {
	nt := d.count(12)
	ts := make([][3]int32, 0, nt)
	for k := 0; k < nt && d.err == nil; k++ {
		t := [3]int32{int32(d.u32()), int32(d.u32()), int32(d.u32())}
		for _, j := range t {
			if (j < 0 || int(j) >= nv) && d.err == nil {
				d.err = fmt.Errorf("%w: %s: triangle names vertex %d of %d", ErrSnapshot, owner, j, nv)
			}
		}
		ts = append(ts, t)
	}
	return ts
}

type savedBody struct {
	body components.Body
	mat  components.Material
	path []components.MotionKey
	em   *components.Emitter
	p    components.Particles
}

// Restore reads a snapshot written by Save and builds a world that continues exactly where
// the saved one stopped. A file with the wrong magic, an unknown version, a checksum mismatch
// or an inconsistent payload is rejected with an error wrapping ErrSnapshot, before any world
// is built.
func Restore(in io.Reader, workers int) (*World, error) {
	var head [20]byte
	if _, err := io.ReadFull(in, head[:]); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrSnapshot, err)
	}
	if string(head[:8]) != snapshotMagic {
		return nil, fmt.Errorf("%w: not a sluice snapshot", ErrSnapshot)
	}
	version := binary.LittleEndian.Uint32(head[8:])
	if version < snapshotMigrated || version > snapshotVersion {
		return nil, fmt.Errorf("%w: version %d, this sluice reads versions %d to %d", ErrSnapshot, version, snapshotMigrated, snapshotVersion)
	}
	n := binary.LittleEndian.Uint64(head[12:])
	if n > 1<<40 {
		return nil, fmt.Errorf("%w: payload length %d", ErrSnapshot, n)
	}
	payload := make([]byte, 0, min(n, 1<<26))
	buf := bytes.NewBuffer(payload)
	if _, err := io.CopyN(buf, in, int64(n)); err != nil {
		return nil, fmt.Errorf("%w: payload: %v", ErrSnapshot, err)
	}
	payload = buf.Bytes()
	var sum [32]byte
	if _, err := io.ReadFull(in, sum[:]); err != nil {
		return nil, fmt.Errorf("%w: checksum: %v", ErrSnapshot, err)
	}
	if sha256.Sum256(payload) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch (the file is corrupt)", ErrSnapshot)
	}

	d := &dec{b: payload}
	// Settings and materials are decoded over the defaults, so a key that an older version did
	// not have yet (a parameter added since) takes its default instead of an invalid zero.
	settings := components.DefaultSolver()
	if err := json.Unmarshal(d.bytes(), &settings); d.err == nil && err != nil {
		return nil, fmt.Errorf("%w: settings: %v", ErrSnapshot, err)
	}
	clockT, clockSteps, nextID := d.f64(), d.u64(), d.u32()
	nb := int(d.u32())
	var bodies []savedBody
	for i := 0; i < nb && d.err == nil; i++ {
		var sb savedBody
		sb.body.ID = d.u32()
		sb.body.Name = string(d.bytes())
		sb.body.Phase = components.Phase(d.u32())
		sb.mat = components.DefaultMaterial()
		if err := json.Unmarshal(d.bytes(), &sb.mat); d.err == nil && err != nil {
			return nil, fmt.Errorf("%w: body %d material: %v", ErrSnapshot, i, err)
		}
		if err := json.Unmarshal(d.bytes(), &sb.path); d.err == nil && err != nil {
			return nil, fmt.Errorf("%w: body %d motion: %v", ErrSnapshot, i, err)
		}
		if err := json.Unmarshal(d.bytes(), &sb.em); d.err == nil && err != nil {
			return nil, fmt.Errorf("%w: body %d emitter: %v", ErrSnapshot, i, err)
		}
		if sb.em != nil {
			sb.em.Layers, sb.em.Emitted = int(d.u64()), int(d.u64())
			if version >= 18 {
				sb.em.Held = d.f64()
			}
		}
		np := d.count(24)
		sb.p.X = d.vecs(np)
		if sb.body.Phase.Dynamic() {
			sb.p.V = d.vecs(np)
			sb.p.Density = d.floats(np)
			sb.p.Pressure = d.floats(np)
			if version >= 5 {
				sb.p.MassDensity = d.f64()
				sb.p.M = d.floats(np)
			}
		}
		bodies = append(bodies, sb)
	}
	var ps systems.PackState
	np := d.count(8)
	for k := 0; k < np && d.err == nil; k++ {
		ps.Owner = append(ps.Owner, int32(d.u32()))
		ps.Origin = append(ps.Origin, int32(d.u32()))
	}
	ps.SinceSort = int(d.u64())
	dom := d.vecs(2)
	fl := d.u32()
	ps.DomainSet, ps.Repack = fl&1 != 0, fl&2 != 0
	ps.GooC = d.floats(d.count(8))
	nc := d.count(4)
	for k := 0; k < nc && d.err == nil; k++ {
		ps.GooCount = append(ps.GooCount, int32(d.u32()))
	}
	nj := d.count(4)
	for k := 0; k < nj && d.err == nil; k++ {
		ps.GooJ = append(ps.GooJ, int32(d.u32()))
	}
	ps.GooR = d.floats(d.count(8))
	type savedElastic struct {
		id   uint32
		rest []mgl64.Vec3
		q    [][4]float64
	}
	var elastics []savedElastic
	ne := d.count(12)
	for k := 0; k < ne && d.err == nil; k++ {
		se := savedElastic{id: d.u32()}
		n := d.count(56)
		se.rest = d.vecs(n)
		for i := 0; i < n && d.err == nil; i++ {
			se.q = append(se.q, [4]float64{d.f64(), d.f64(), d.f64(), d.f64()})
		}
		elastics = append(elastics, se)
	}
	rigids, rkeys, rimp, err := loadRigid(d)
	if err != nil {
		return nil, err
	}
	var solids []systems.Solid
	if version >= 6 {
		solids = loadSolids(d)
	}
	var joints []systems.SimJoint
	var jointSeq uint32
	if version >= 7 {
		if joints, jointSeq, err = readJoints(d); err != nil {
			return nil, err
		}
	}
	var eps []savedElastoplastic
	if version >= 8 {
		eps = loadElastoplastic(d)
	}
	var sleeps []savedSleep
	var sensors savedSensors
	if version >= 9 {
		if err := readJointLimits(d, joints); err != nil {
			return nil, err
		}
		sleeps = readRigidSleep(d)
		sensors = readSensors(d)
	}
	var reds savedAir
	if version >= 10 {
		if reds, err = loadReduced(d); err != nil {
			return nil, err
		}
	}
	var flips []savedFlip
	if version >= 11 {
		if flips, err = loadFlip(d); err != nil {
			return nil, err
		}
	}
	var vdiff []mgl64.Vec3
	if version >= 12 {
		vdiff = d.vecs(d.count(24))
	}
	var diff diffuse.Set
	if version >= 13 {
		if err := loadDiffuse(d, &diff); err != nil {
			return nil, err
		}
	}
	var cloths []savedCloth
	if version >= 14 {
		cloths = loadCloth(d)
	}
	var omega []mgl64.Vec3
	if version >= 15 {
		omega = d.vecs(d.count(24))
	}
	var wallMeshes []wallMeshEntry
	if version >= 16 {
		wallMeshes = loadWallMeshes(d)
	}
	owed := 0.0
	if version >= 17 {
		if owed = d.f64(); d.err == nil && !(owed >= 0 && owed < math.Inf(1)) {
			return nil, fmt.Errorf("%w: the clock owes %g s to the frames (must be finite and ≥ 0)", ErrSnapshot, owed)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes in the payload", ErrSnapshot, len(d.b))
	}
	ps.DomainMin, ps.DomainMax = dom[0], dom[1]

	w, err := NewWorld(settings, workers)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	for _, sb := range bodies {
		var x extras
		err := error(nil)
		if sb.path != nil {
			m := components.Motion{Path: sb.path}
			if sb.body.Phase != components.Boundary {
				err = fmt.Errorf("body %q: a motion path on a %s body", sb.body.Name, sb.body.Phase)
			} else if err = m.Validate(fmt.Sprintf("bodies[%q].motion", sb.body.Name)); err == nil {
				x.motion = &m
			}
		}
		if err == nil && sb.em != nil {
			if err = sb.em.Validate(fmt.Sprintf("bodies[%q].emitter", sb.body.Name), settings.Spacing()); err == nil {
				x.em = sb.em
			}
		}
		if err == nil {
			x.rigid, err = w.restoredRigid(rigids, sb.body, len(sb.p.X))
		}
		if err == nil {
			if sb.body.Phase.Dynamic() {
				w.setMasses(&sb.p, sb.mat, sb.body.Phase) // version 4: ρ0·V0, the masses it recomputed
			}
			_, err = w.addWithID(sb.body, sb.mat, sb.p, x)
		}
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
		}
	}
	w.nextID = nextID
	if n := w.rigidCount(); n != len(rigids) {
		w.Close()
		return nil, fmt.Errorf("%w: %d rigid bodies saved, %d match a body", ErrSnapshot, len(rigids), n)
	}
	w.sim.Rigid.SetCache(rkeys, rimp)
	if err := w.restoreRigidSleep(sleeps); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.restoreSensors(sensors); err != nil {
		w.Close()
		return nil, err
	}
	if err := w.restoreJoints(joints, jointSeq); err != nil {
		w.Close()
		return nil, err
	}
	for _, so := range solids {
		found := false
		for _, sb := range bodies {
			found = found || (sb.body.ID == so.ID && sb.body.Phase == components.Boundary)
		}
		err := fmt.Errorf("solid of body ID %d matches no boundary body", so.ID)
		if found {
			err = w.sim.AddSolid(so.ID, so.Shape, so.Center)
		}
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
		}
	}
	for _, se := range elastics {
		var sb *savedBody
		for i := range bodies {
			if bodies[i].body.ID == se.id && bodies[i].body.Phase == components.Elastic {
				sb = &bodies[i]
			}
		}
		if sb == nil || len(se.rest) != sb.p.Len() {
			w.Close()
			return nil, fmt.Errorf("%w: elastic state of body ID %d matches no elastic body", ErrSnapshot, se.id)
		}
		if err := w.sim.RestoreElastic(se.id, sb.body.Name, &sb.mat, se.rest); err != nil {
			w.Close()
			return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
		}
		w.sim.ElasticByID(se.id).Body.SetQuaternions(se.q)
	}
	if err := w.restoreElastoplastic(bodies, eps); err != nil {
		w.Close()
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if err := w.restoreFlip(bodies, flips); err != nil {
		w.Close()
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if err := w.restoreCloth(bodies, cloths); err != nil {
		w.Close()
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if err := w.restoreWallMeshes(bodies, wallMeshes); err != nil {
		w.Close()
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	w.diff.set = diff
	if err := w.sim.RestorePack(w.ecs, ps); err != nil {
		w.Close()
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if len(vdiff) > 0 {
		if len(vdiff) != w.sim.Fluid.Len() {
			w.Close()
			return nil, fmt.Errorf("%w: viscosity warm start for %d particles, %d packed", ErrSnapshot, len(vdiff), w.sim.Fluid.Len())
		}
		w.sim.Fluid.EnsureVDiff()
		copy(w.sim.Fluid.VDiff, vdiff)
	}
	clear(w.sim.Fluid.Omega)
	if len(omega) > 0 {
		if len(omega) != w.sim.Fluid.Len() {
			w.Close()
			return nil, fmt.Errorf("%w: angular velocities for %d particles, %d packed", ErrSnapshot, len(omega), w.sim.Fluid.Len())
		}
		w.sim.Fluid.EnsureOmega()
		copy(w.sim.Fluid.Omega, omega)
	}
	if err := w.restoreReduced(reds); err != nil {
		w.Close()
		return nil, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	w.ecs.Clock.Time, w.ecs.Clock.Steps, w.ecs.Clock.Owed = clockT, int(clockSteps), owed
	return w, nil
}

func flags(domainSet, repack bool) uint32 {
	var f uint32
	if domainSet {
		f |= 1
	}
	if repack {
		f |= 2
	}
	return f
}

// saveSolids writes the insides of the solid walls: body ID, shape kind, centre, half extents
// (a box) or vertices and triangles (a mesh).
func (w *World) saveSolids(e *enc) {
	e.u64(uint64(len(w.sim.Solids)))
	for _, so := range w.sim.Solids {
		e.u32(so.ID)
		e.u32(uint32(so.Shape.Kind))
		e.vecs([]mgl64.Vec3{so.Center, so.Shape.HalfExtents})
		e.u64(uint64(len(so.Shape.V)))
		e.vecs(so.Shape.V)
		e.tris(so.Shape.Tris)
	}
}

// loadSolids reads what saveSolids wrote; AddSolid checks the shapes when they are restored.
func loadSolids(d *dec) []systems.Solid {
	var out []systems.Solid
	n := d.count(64)
	for i := 0; i < n && d.err == nil; i++ {
		id := d.u32()
		sh := &rigid.Shape{Kind: rigid.ShapeKind(d.u32())}
		cv := d.vecs(2)
		if d.err != nil {
			break
		}
		sh.HalfExtents = cv[1]
		sh.V = d.vecs(d.count(24))
		sh.Tris = d.tris(len(sh.V), fmt.Sprintf("solid %d", id))
		if sh.Kind != rigid.Box && sh.Kind != rigid.Mesh && d.err == nil {
			d.err = fmt.Errorf("%w: solid %d has shape kind %d", ErrSnapshot, id, sh.Kind)
		}
		out = append(out, systems.Solid{ID: id, Shape: sh, Center: cv[0]})
	}
	return out
}
