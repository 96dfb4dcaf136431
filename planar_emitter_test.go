package sluice_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
)

// planarEmitterWorld is an empty 2D world (r = 1 cm) in a 2 × 1 m tank.
func planarEmitterWorld(t *testing.T, workers int) *sluice.World {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius, s.Dimensions = 0.01, 2
	w, err := sluice.NewWorld(s, workers)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBoundaryBox("tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1, 0}, true); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPlanarEmitterEmitsLines: a 2D nozzle 8 spacings wide, aimed along (1, 1)/√2 at 1 m/s,
// adds a line of 8 particles across the direction every 2r/speed = 20 ms, all in the plane:
// after 0.2 s (frames of 1/60 s; layers due at the start of each frame) the count is 8 × the
// layers due, every particle has z = v_z = 0 exactly, and the first line was centred on the
// nozzle across the direction (its centroid travelled along the direction only).
func TestPlanarEmitterEmitsLines(t *testing.T) {
	w := planarEmitterWorld(t, 2)
	defer w.Close()
	em := components.DefaultEmitter()
	em.Center, em.Direction, em.Width, em.Speed = mgl64.Vec3{0.5, 0.5, 0}, mgl64.Vec3{1, 1, 0}, 0.16, 1
	e, err := w.AddEmitter("jet", components.DefaultMaterial(), em)
	if err != nil {
		t.Fatal(err)
	}
	const frames = 12
	for range frames {
		if _, err := w.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	set := w.Settings()
	sp := set.Spacing()
	// layers leave at k·2r/speed; the last frame started at 11/60 s
	layers := int(math.Floor(float64(frames-1)/60*em.Speed/sp)) + 1
	p := w.Particles(e)
	t.Logf("%d particles after %d frames: %d layers of 8", p.Len(), frames, p.Len()/8)
	if p.Len() != 8*layers {
		t.Errorf("%d particles, want %d layers of 8 = %d", p.Len(), layers, 8*layers)
	}
	for i := range p.X {
		if p.X[i][2] != 0 || p.V[i][2] != 0 {
			t.Fatalf("particle %d at %v with velocity %v: not in the plane", i, p.X[i], p.V[i])
		}
	}
	if got := w.Emitter(e).Emitted; got != p.Len() {
		t.Errorf("the emitter counts %d emitted, the body has %d", got, p.Len())
	}
}

// TestPlanarEmitterRefusals: in a 2D world a nozzle must lie in the plane and be a line.
func TestPlanarEmitterRefusals(t *testing.T) {
	w := planarEmitterWorld(t, 1)
	defer w.Close()
	base := components.DefaultEmitter()
	base.Center, base.Width, base.Speed = mgl64.Vec3{0.5, 0.5, 0}, 0.1, 1
	for _, c := range []struct {
		name string
		edit func(*components.Emitter)
		want string
	}{
		{"height", func(e *components.Emitter) { e.Height = 0.1 }, "emitter.height"},
		{"direction out of the plane", func(e *components.Emitter) { e.Direction = mgl64.Vec3{1, 0, 0.5} }, "emitter.direction"},
		{"direction along z", func(e *components.Emitter) { e.Direction = mgl64.Vec3{0, 0, 1} }, "emitter.direction"},
		{"centre off the plane", func(e *components.Emitter) { e.Center[2] = 0.01 }, "emitter.center"},
		{"narrower than a spacing", func(e *components.Emitter) { e.Width = 0.01 }, "emitter.width"},
	} {
		em := base
		c.edit(&em)
		_, err := w.AddEmitter(c.name, components.DefaultMaterial(), em)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.want)
		}
	}
	// a downward jet needs no up vector in the plane
	em := base
	em.Direction = mgl64.Vec3{0, -1, 0}
	if _, err := w.AddEmitter("down", components.DefaultMaterial(), em); err != nil {
		t.Errorf("a downward 2D jet: %v", err)
	}
}

// TestPlanarAirDragIsTheDroplets: a lone particle (r = 1 cm, water, airDrag 1) falling from
// rest down a 6 m shaft for 1 s is slowed as much in a 2D world as in 3D: the drag's acceleration is the
// droplet's, whose mass is the particle's area times 2r in 2D (where masses are per metre of
// depth). The speeds agree within planarDragTol, and the drag takes more than planarDragMin
// of the free fall's speed (without converting the 2D mass the drag would be 50 times weaker).
func TestPlanarAirDragIsTheDroplets(t *testing.T) {
	const (
		// planarDragTol: the 2D particle's area and the 3D one's volume are each calibrated
		// on their lattice (Kernel.LatticeVolume), so their ratio need not be exactly 2r;
		// measured −0.02 %.
		planarDragTol = 0.01
		planarDragMin = 0.05
	)
	var vy [2]float64
	for k, dims := range []int{3, 2} {
		s := components.DefaultSolver()
		s.ParticleRadius, s.Dimensions = 0.01, dims
		w, err := sluice.NewWorld(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		hi := mgl64.Vec3{0.2, 6, 0.2}
		if dims == 2 {
			hi[2] = 0
		}
		if _, err := w.AddBoundaryBox("shaft", mgl64.Vec3{}, hi, true); err != nil {
			t.Fatal(err)
		}
		m := components.DefaultMaterial()
		m.AirDrag = 1
		e, err := w.AddFluidParticles("drop", m, []mgl64.Vec3{{0.1, 5.5, hi[2] / 2}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 60 {
			if _, err := w.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		vy[k] = w.Particles(e).V[0][1]
		w.Close()
	}
	free := -9.81
	t.Logf("after 1 s: v_y = %.4f m/s in 3D, %.4f m/s in 2D (free fall %.2f; %+.2f %%)", vy[0], vy[1], free, 100*(vy[1]/vy[0]-1))
	if math.Abs(vy[1]/vy[0]-1) > planarDragTol {
		t.Errorf("2D v_y %.4f m/s, 3D %.4f m/s: want within %g %%", vy[1], vy[0], 100*planarDragTol)
	}
	if vy[0] < free*(1-planarDragMin) || vy[1] < free*(1-planarDragMin) {
		t.Errorf("v_y %.4f (3D), %.4f (2D) m/s: the drag must take more than %g of the free fall's %.2f m/s", vy[0], vy[1], planarDragMin, free)
	}
}
