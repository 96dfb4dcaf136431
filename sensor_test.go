package sluice_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/systems"
)

// sensorWorld is a tank with water in its left half and a crate above its dry right half; a
// goal sensor on the dry floor under the crate, a gauge in the water and a halo carried by the
// crate (a sphere of 0.12 m about it) are added when sensors is true.
func sensorWorld(t *testing.T, sensors bool) (*sluice.World, sluice.Entity, sluice.Entity, []sluice.SensorID) {
	t.Helper()
	return sensorWorldWith(t, components.DefaultSolver(), sensors)
}

// sensorWorldWith is sensorWorld with the solver settings s.
func sensorWorldWith(t *testing.T, s components.Solver, sensors bool) (*sluice.World, sluice.Entity, sluice.Entity, []sluice.SensorID) {
	t.Helper()
	w := rigidWorldWith(t, s)
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.4, 0.2}, true); err != nil {
		t.Fatal(err)
	}
	water, err := w.AddFluidBlock("water", components.DefaultMaterial(), mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.2, 0.15, 0.2}, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	c := components.DefaultRigidBody()
	c.Size, c.Density, c.Position = mgl64.Vec3{0.06, 0.06, 0.06}, 600, mgl64.Vec3{0.45, 0.3, 0.1}
	crate := mustRigid(t, w, "crate", c)
	var ids []sluice.SensorID
	if sensors {
		for _, d := range []sluice.SensorDef{
			// the goal reaches 0.2 m up, so the crate's bounces on landing stay inside it
			{Name: "goal", Shape: sluice.OverlapShape{Kind: "box", Center: mgl64.Vec3{0.45, 0.1, 0.1}, HalfExtents: mgl64.Vec3{0.08, 0.1, 0.08}}, Filter: sluice.RayFilter{SkipWalls: true}},
			{Name: "gauge", Shape: sluice.OverlapShape{Kind: "sphere", Center: mgl64.Vec3{0.1, 0.05, 0.1}, Radius: 0.04}, Filter: sluice.RayFilter{SkipWalls: true}},
			{Name: "halo", Shape: sluice.OverlapShape{Kind: "sphere", Center: c.Position, Radius: 0.12}, Attach: crate, Filter: sluice.RayFilter{SkipWalls: true, Ignore: []sluice.Entity{crate}}},
		} {
			id, err := w.AddSensor(d)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
	}
	return w, crate, water, ids
}

func TestSensorsReportAndExertNoForce(t *testing.T) {
	// The crate falls into the goal: one SensorBegin for the crate, and the crate falls
	// bit-identically as in a world without sensors (a sensor exerts no force). The gauge in
	// the water reports the water from the first step, with the particles its scan counts. The
	// halo the crate carries sees the water once the crate lands near it. Removing the crate
	// ends its goal overlap and takes the halo with it; a snapshot keeps the sensors, so a
	// restored run raises the same events.
	w, crate, water, ids := sensorWorld(t, true)
	ref, refCrate, _, _ := sensorWorld(t, false)
	begins := map[string]int{}
	name := map[sluice.SensorID]string{ids[0]: "goal", ids[1]: "gauge", ids[2]: "halo"}
	record := func(w *sluice.World, log *strings.Builder) {
		for _, e := range w.Events() {
			if e.Kind == systems.SensorBegin || e.Kind == systems.SensorEnd {
				b := w.Body(e.A)
				who := "removed"
				if b != nil {
					who = b.Name
				}
				if e.Kind == systems.SensorBegin {
					begins[name[e.Sensor]+"/"+who]++
				}
				log.WriteString(e.Kind.String() + " " + name[e.Sensor] + " " + who + "; ")
			}
		}
	}
	var log, logR strings.Builder
	var snap bytes.Buffer
	for f := 1; f <= 40; f++ {
		steps(t, w, 1, nil)
		steps(t, ref, 1, nil)
		record(w, &log)
		if f == 5 {
			if err := w.Save(&snap); err != nil {
				t.Fatal(err)
			}
			log.WriteString("| ")
		}
	}
	if a, b := w.RigidBody(crate).State, ref.RigidBody(refCrate).State; a.X != b.X || a.V != b.V {
		t.Errorf("with sensors the crate is at %v, without at %v", a.X, b.X)
	}
	if begins["goal/crate"] != 1 || begins["gauge/water"] != 1 {
		t.Errorf("begin events %v: want one goal/crate and one gauge/water (log: %s)", begins, log.String())
	}
	hits, err := w.SensorOverlaps(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	g := sluice.OverlapShape{Kind: "sphere", Center: mgl64.Vec3{0.1, 0.05, 0.1}, Radius: 0.04}
	direct, _ := w.Overlap(g, sluice.RayFilter{SkipWalls: true})
	if len(hits) != 1 || hits[0].Body != water || len(direct) != 1 || hits[0].Particles != direct[0].Particles {
		t.Errorf("gauge: %+v, Overlap now: %+v", hits, direct)
	}
	t.Logf("events: %s", log.String())

	r, err := sluice.Restore(&snap, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for f := 6; f <= 40; f++ {
		steps(t, r, 1, nil)
		record(r, &logR)
	}
	if after := strings.SplitN(log.String(), "| ", 2)[1]; logR.String() != after {
		t.Errorf("restored run's sensor events %q, uninterrupted %q", logR.String(), after)
	}

	if err := w.Remove(crate); err != nil {
		t.Fatal(err)
	}
	steps(t, w, 1, nil)
	var end strings.Builder
	record(w, &end)
	if !strings.Contains(end.String(), "sensorEnd goal removed") {
		t.Errorf("after removing the crate: %q, want the goal's end for a removed body", end.String())
	}
	if err := w.RemoveSensor(ids[2]); err == nil {
		t.Error("the halo outlived the crate carrying it")
	}
	for _, c := range []struct {
		def  sluice.SensorDef
		want string
	}{
		{sluice.SensorDef{Name: "", Shape: g}, "name"},
		{sluice.SensorDef{Name: "goal", Shape: g}, "taken"},
		{sluice.SensorDef{Name: "s", Shape: sluice.OverlapShape{Kind: "box"}}, "half extents"},
		{sluice.SensorDef{Name: "s", Shape: g, Attach: water}, "rigid body"},
	} {
		if _, err := w.AddSensor(c.def); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.def, err, c.want)
		}
	}
}

func TestLeftDomainAndEmitterDoneEvents(t *testing.T) {
	// An emitter with a budget of 5 layers raises one EmitterDone, at the step its last layer
	// leaves the nozzle; its stream falls out of the domain's bottom and every particle that
	// goes raises LeftDomain counts that add up to the removals the stats report and to the
	// particles the body lost.
	s := components.DefaultSolver()
	s.ParticleRadius = 0.02
	s.DomainMin, s.DomainMax = mgl64.Vec3{-0.5, 0, -0.5}, mgl64.Vec3{0.5, 1, 0.5}
	w, err := sluice.NewWorld(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	em := components.DefaultEmitter()
	em.Center, em.Direction, em.Up = mgl64.Vec3{0, 0.5, 0}, mgl64.Vec3{0, -1, 0}, mgl64.Vec3{1, 0, 0}
	em.Width, em.Speed = 0.12, 1
	layer := len(em.Layer(s.Spacing()))
	em.Budget = 5 * layer
	jet, err := w.AddEmitter("jet", components.DefaultMaterial(), em)
	if err != nil {
		t.Fatal(err)
	}
	done, left, removed := 0, 0, 0
	var doneAt float64
	for f := 0; f < 60; f++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Removed {
			removed += r.Count
		}
		for _, e := range w.Events() {
			switch {
			case e.Kind == systems.EmitterDone && e.A == jet:
				done++
				doneAt = w.Time()
			case e.Kind == systems.LeftDomain && e.A == jet:
				left += e.Count
			}
		}
	}
	// the 5th layer (k = 4) is due at 4·2r/speed = 0.16 s and emitted at the start of the
	// first step starting after it (10/60 s), which ends at 11/60 s
	if start := doneAt - 1.0/60; done != 1 || start < 0.16 || start > 0.16+1.0/60 {
		t.Errorf("EmitterDone raised %d times, in the step ending at t = %.3f s (want once, in the first step starting after 0.16 s)", done, doneAt)
	}
	n := len(w.Particles(jet).X)
	if left == 0 || left != removed || left+n != 5*layer {
		t.Errorf("LeftDomain counted %d, the stats %d removals; %d particles remain of %d emitted", left, removed, n, 5*layer)
	}
}
