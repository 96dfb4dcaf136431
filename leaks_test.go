package sluice_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/boundary"
)

// Leaks into bodies. A fluid particle has leaked into a body when its centre lies inside it:
//   - a rigid body: deeper than r/2 below its surface by the shape's exact signed distance
//     (grid distance for meshes). The body's first sample layer is r below its surface and a
//     fluid particle at rest sits about r above it; a centre past r/2 below the surface is
//     nearer the body's samples than the surface, which the pressure solve never allows;
//   - a solid wall (an obstacle box or a closed wall mesh): deeper than r/2 by the wall's
//     signed distance, the same argument with the wall's samples on its surface;
//   - an elastic body: surrounded by its particles — one within 1.5 spacings in each of the six
//     60° cones about ±x, ±y, ±z. A point inside the body has lattice neighbours within a
//     spacing on every side (a lattice cell's centre: its eight corners); a fluid particle
//     resting on the body's surface has none in the cone pointing away from it. Unlike a
//     convex hull this follows a bent or squashed body.
const (
	leakDepth     = 0.5 // × r below a rigid body's or a solid wall's surface
	enclosedReach = 1.5 // × spacing: an elastic neighbour this close on every side encloses
)

// bodyLeak is the number of fluid particles inside one body, and the deepest one (m below
// its surface; for elastic bodies the distance to the nearest elastic particle).
type bodyLeak struct {
	Body    string
	Count   int
	Depth   float64
	Elastic bool
}

// leaksIntoBodies counts the fluid particles inside every rigid body, solid wall and elastic
// body of the world, per body in ID order (bodies with none are left out).
func leaksIntoBodies(w *sluice.World) []bodyLeak {
	r := w.Settings().ParticleRadius
	sp := 2 * r
	var fluid []mgl64.Vec3
	for _, b := range w.Bodies() {
		if b.Body.Phase == components.Fluid {
			fluid = append(fluid, b.Particles.X...)
		}
	}
	var out []bodyLeak
	for _, b := range w.Bodies() {
		l := bodyLeak{Body: b.Body.Name}
		switch {
		case w.RigidBody(b.Entity) != nil:
			st := &w.RigidBody(b.Entity).State
			rot := st.Frame()
			for _, x := range fluid {
				if x.Sub(st.X).Len() > st.Reach+r {
					continue
				}
				if d, _ := st.Shape.Distance(rot.MulTVec(x.Sub(st.X))); d < -leakDepth*r {
					l.Count++
					l.Depth = max(l.Depth, -d)
				}
			}
		case b.Body.Phase == components.Boundary:
			for _, x := range fluid {
				d, solid := w.Sim().SolidDistance(b.Body.ID, x, w.Time())
				if !solid {
					break
				}
				if d < -leakDepth*r {
					l.Count++
					l.Depth = max(l.Depth, -d)
				}
			}
		case b.Body.Phase == components.Elastic:
			el := b.Particles.X
			for _, x := range fluid {
				var side [6]bool
				nearest := math.Inf(1)
				for _, y := range el {
					d := y.Sub(x)
					if n := d.Len(); n < enclosedReach*sp {
						nearest = min(nearest, n)
						for k := 0; k < 3; k++ {
							// the neighbour lies on the +k side (or −k side) within a 60° cone,
							// which takes in the diagonal neighbours of a lattice cell's centre
							if d[k] > 0.5*n {
								side[2*k] = true
							} else if -d[k] > 0.5*n {
								side[2*k+1] = true
							}
						}
					}
				}
				if side == [6]bool{true, true, true, true, true, true} {
					l.Count++
					l.Depth, l.Elastic = max(l.Depth, nearest), true
				}
			}
		}
		if l.Count > 0 {
			out = append(out, l)
		}
	}
	return out
}

// runCountingLeaks steps the world for the given time in frames of 1/60 s and returns the
// largest leak count of any frame, with the frame's leaks, the deepest leak (m) and the
// particles removed.
func runCountingLeaks(t *testing.T, w *sluice.World, seconds float64) (worst int, at string, deepest float64, removed int) {
	t.Helper()
	for i := 0; i < int(seconds*60+0.5); i++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range st.Removed {
			removed += r.Count
		}
		n := 0
		leaks := leaksIntoBodies(w)
		for _, l := range leaks {
			n += l.Count
			if !l.Elastic {
				deepest = max(deepest, l.Depth)
			}
		}
		if n > worst {
			worst, at = n, fmt.Sprintf("t = %.3f s: %+v", w.Time(), leaks)
		}
	}
	return worst, at, deepest, removed
}

// leakWorld is a world at r = 1 cm and CFL 1.0 (the largest the solver accepts: the longest
// substeps, the hardest case for keeping the fluid out of bodies).
func leakWorld(t *testing.T) *sluice.World {
	t.Helper()
	s := components.DefaultSolver()
	s.ParticleRadius, s.CFL = 0.01, 1.0
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return w
}

// dambreakLeaks: no bound on the count of particles between r/2 and r below a crate's surface
// in the dam break. At CFL 1.0 the dam's front hits the crates at about 2 m/s and moves a full
// spacing (2r) per substep, so a particle of the front can end a substep past r/2 before the
// next pressure solve stops it (measured: one per crate in a frame, 0.69 r deep at most);
// what must hold, and is asserted, is that none gets past the crates' samples at r.
const dambreakLeaks = math.MaxInt

// TestNoLeaksIntoPaddleAndCrates: at CFL 1.0, no fluid particle ever ends a frame inside a
// kinematic paddle sweeping through a tank or a floating crate in a sloshing tank, and none
// gets past the samples of the crates (a box, a ball and a capsule, light to heavy) and into
// the solid obstacle that a dam break throws together (see dambreakLeaks).
func TestNoLeaksIntoPaddleAndCrates(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("three 2 s tanks of 2000–5000 particles: skipped in -short and under -race")
	}
	t.Run("paddle", func(t *testing.T) {
		w := leakWorld(t)
		mustBox(t, w, "tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.3, 0.2}, true)
		mustBlock(t, w, "water", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.12, 0.2})
		p := components.DefaultRigidBody()
		p.Type, p.Size, p.Position = "kinematic", mgl64.Vec3{0.03, 0.2, 0.18}, mgl64.Vec3{0.14, 0.12, 0.1}
		paddle := mustRigid(t, w, "paddle", p)
		if err := w.SetMotion(paddle, components.Motion{Path: sweep(0.5, 4, 0.25)}); err != nil {
			t.Fatal(err)
		}
		checkNoLeaks(t, w, 2, 0)
	})
	t.Run("slosh", func(t *testing.T) {
		w := leakWorld(t)
		tank := mustBox(t, w, "tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.3, 0.2}, true)
		mustBlock(t, w, "water", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.4, 0.12, 0.2})
		c := components.DefaultRigidBody()
		c.Size, c.Density, c.Position = mgl64.Vec3{0.06, 0.06, 0.06}, 600, mgl64.Vec3{0.2, 0.13, 0.1}
		mustRigid(t, w, "crate", c)
		if err := w.SetMotion(tank, components.Motion{Path: sweep(0.5, 4, 0.1)}); err != nil {
			t.Fatal(err)
		}
		checkNoLeaks(t, w, 2, 0)
	})
	t.Run("dambreak", func(t *testing.T) {
		w := leakWorld(t)
		mustBox(t, w, "tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.6, 0.4, 0.15}, true)
		mustBlock(t, w, "water", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.15, 0.3, 0.15})
		mustBox(t, w, "step", mgl64.Vec3{0.42, 0, 0}, mgl64.Vec3{0.48, 0.06, 0.15}, false)
		for _, c := range []struct {
			name, shape string
			rho         float64
			x, y        float64 // centre: on the floor, one particle radius above it
		}{{"box", "box", 400, 0.25, 0.04}, {"ball", "sphere", 900, 0.33, 0.04}, {"capsule", "capsule", 1500, 0.54, 0.06}} {
			d := components.DefaultRigidBody()
			d.Shape, d.Density, d.Position = c.shape, c.rho, mgl64.Vec3{c.x, c.y, 0.075}
			d.Size, d.Radius, d.Length = mgl64.Vec3{0.06, 0.06, 0.06}, 0.03, 0.04
			mustRigid(t, w, c.name, d)
		}
		checkNoLeaks(t, w, 2, dambreakLeaks)
	})
}

// TestNoLeaksIntoElasticBody: at CFL 1.0, an elastic cube (0.2 m, G = K = 2e5 Pa, 500 kg/m³)
// dropped into a pool from 4 cm above it never has a fluid particle inside it.
func TestNoLeaksIntoElasticBody(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a 1.5 s pool of 8000 particles: skipped in -short and under -race")
	}
	s := components.DefaultSolver()
	s.ParticleRadius, s.CFL = 0.02, 1.0
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	mustBox(t, w, "tank", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.8, 0.8, 0.8}, true)
	mustBlock(t, w, "water", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.8, 0.3, 0.8})
	mat := elasticMaterial(500, 2e5)
	mat.Viscosity = 0.01
	if _, err := w.AddElasticBlock("cube", mat, mgl64.Vec3{0.28, 0.34, 0.28}, mgl64.Vec3{0.52, 0.58, 0.52}, mgl64.Vec3{0, -1, 0}); err != nil {
		t.Fatal(err)
	}
	checkNoLeaks(t, w, 1.5, 0)
}

// checkNoLeaks runs the world and fails on more than allowed fluid particles inside bodies in
// any frame, on any particle deeper than r below a rigid body's surface (past its first layer
// of samples) and on any removed particle.
func checkNoLeaks(t *testing.T, w *sluice.World, seconds float64, allowed int) {
	t.Helper()
	worst, at, deepest, removed := runCountingLeaks(t, w, seconds)
	r := w.Settings().ParticleRadius
	if worst > allowed || removed > 0 {
		t.Errorf("%d fluid particles inside bodies at worst (%s), %d allowed; %d removed", worst, at, allowed, removed)
	}
	if deepest >= r {
		t.Errorf("a fluid particle got %.4f m deep into a body, past its first sample layer (%g m)", deepest, r)
	}
	t.Logf("worst frame: %d particles inside bodies (%s); deepest %.4f m; %d removed", worst, at, deepest, removed)
}

// sweep is a back-and-forth path along x: n legs of the given duration at ±v.
func sweep(leg float64, n int, v float64) []components.MotionKey {
	var path []components.MotionKey
	for k := 0; k < n; k++ {
		s := v
		if k%2 == 1 {
			s = -v
		}
		path = append(path, components.MotionKey{Until: leg * float64(k+1), Velocity: mgl64.Vec3{s, 0, 0}})
	}
	return path
}

func mustBox(t *testing.T, w *sluice.World, name string, lo, hi mgl64.Vec3, tank bool) sluice.Entity {
	t.Helper()
	e, err := w.AddBoundaryBox(name, lo, hi, tank)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustBlock(t *testing.T, w *sluice.World, name string, lo, hi mgl64.Vec3) sluice.Entity {
	t.Helper()
	e, err := w.AddFluidBlock(name, components.DefaultMaterial(), lo, hi, mgl64.Vec3{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// boxMesh is the closed triangle mesh of the box [lo, hi], counter-clockwise seen from outside.
func boxMesh(lo, hi mgl64.Vec3) ([]mgl64.Vec3, [][3]int32) {
	var v []mgl64.Vec3
	for i := 0; i < 8; i++ {
		p := lo
		for d := 0; d < 3; d++ {
			if i>>d&1 == 1 {
				p[d] = hi[d]
			}
		}
		v = append(v, p)
	}
	// corner i has x = bit 0, y = bit 1, z = bit 2
	quads := [][4]int32{{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}}
	var tris [][3]int32
	for _, q := range quads {
		tris = append(tris, [3]int32{q[0], q[1], q[2]}, [3]int32{q[0], q[2], q[3]})
	}
	return v, tris
}

// crownPool is a stand-in for the reference's SurfaceTension_Crown_ZR2020 scene at its
// resolution (r = 2 cm) and with its geometry, narrower: a pool 1 m deep standing 5 cm inside
// four wall slabs 10 cm (2.5 spacings) thick and 1 m high, which stand 5 cm deep in a floor
// slab 30 cm thick, falls the reference's 10 cm onto the floor. solid: the walls are closed
// meshes with an inside (AddBoundaryMesh); otherwise only their samples
// (AddBoundaryParticles). It returns the largest fluid speed, the largest number of particles
// inside the walls in any frame and the particles moved out of them, over 0.3 s (the impact
// comes at 0.14 s).
func crownPool(t *testing.T, solid bool) (vmax float64, inside int, corrections int) {
	s := components.DefaultSolver()
	s.ParticleRadius, s.CFL, s.DtMax = 0.02, 0.4, 0.005 // the scene's cflFactor 1 and cflMaxTimeStepSize
	w, err := sluice.NewWorld(s, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	slabs := [][2]mgl64.Vec3{
		{{-1, -0.3, -1}, {1, 0, 1}}, // floor
		{{0.5, -0.05, -0.6}, {0.6, 0.95, 0.6}}, {{-0.6, -0.05, -0.6}, {-0.5, 0.95, 0.6}},
		{{-0.5, -0.05, 0.5}, {0.5, 0.95, 0.6}}, {{-0.5, -0.05, -0.6}, {0.5, 0.95, -0.5}},
	}
	var walls []sluice.Entity
	for i, b := range slabs {
		v, tris := boxMesh(b[0], b[1])
		name := fmt.Sprintf("slab%d", i)
		var e sluice.Entity
		if solid {
			e, err = w.AddBoundaryMesh(name, v, tris, false)
		} else {
			e, err = w.AddBoundaryParticles(name, boundary.Mesh(v, tris, s.Spacing(), s.BoundaryLayers, 0, false))
		}
		if err != nil {
			t.Fatal(err)
		}
		walls = append(walls, e)
	}
	mustBlock(t, w, "pool", mgl64.Vec3{-0.45, 0.1, -0.45}, mgl64.Vec3{0.45, 1.1, 0.45})
	in := func(x mgl64.Vec3) bool {
		for _, b := range slabs[1:] {
			if x[0] > b[0][0] && x[1] > b[0][1] && x[2] > b[0][2] && x[0] < b[1][0] && x[1] < b[1][1] && x[2] < b[1][2] {
				return true
			}
		}
		return x[1] < 0
	}
	for i := 0; i < 18; i++ {
		st, err := w.Step(1.0 / 60)
		if err != nil {
			t.Fatal(err)
		}
		vmax = max(vmax, st.MaxSpeed)
		corrections += st.WallCorrections
		n := 0
		for _, b := range w.Bodies() {
			if b.Body.Phase == components.Fluid {
				for _, x := range b.Particles.X {
					if in(x) {
						n++
					}
				}
			}
		}
		inside = max(inside, n)
	}
	return vmax, inside, corrections
}

// crownSpeedBound: a jet driven by the pool's head H = 1.1 m reaches √(2gH) = 4.6 m/s, plus
// the 1.4 m/s the pool hits the floor with; the flat impact focuses the squirt along the floor
// into the corners, which a few times that covers. The reference scene's particles trapped
// inside the slabs reached 50.6 m/s, eleven times √(2gH).
var crownSpeedBound = 4*math.Sqrt(2*9.81*1.1) + math.Sqrt(2*9.81*0.1)

// TestCrownPoolStaysOutOfWalls: in the Crown stand-in, no particle ever ends a frame inside a
// solid wall slab or the floor, and no particle is faster than crownSpeedBound. The same walls
// given as samples only (no inside) let particles in: the check sees them.
func TestCrownPoolStaysOutOfWalls(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("two 0.3 s pools of 12 700 particles: skipped in -short and under -race")
	}
	v, in, c := crownPool(t, true)
	t.Logf("solid walls: max speed %.2f m/s (bound %.1f), at most %d particles inside the walls, %d moved out", v, crownSpeedBound, in, c)
	if in > 0 || !(v <= crownSpeedBound) {
		t.Errorf("solid walls: %d particles inside the walls at worst, max speed %.2f m/s (bound %.1f m/s)", in, v, crownSpeedBound)
	}
	v, in, _ = crownPool(t, false)
	t.Logf("sampled walls: max speed %.2f m/s, at most %d particles inside the walls", v, in)
	if in == 0 {
		t.Errorf("walls of samples only: no particle got inside; the stand-in no longer exercises the leak")
	}
}

// TestLeakCounterSeesLeaks: the leak counter finds a fluid particle placed inside a rigid box,
// one inside a solid obstacle and one inside an elastic block, each once, and none of the
// particles placed just outside them (a rigid body's and a wall's surface r away, an elastic
// block's face one spacing away).
func TestLeakCounterSeesLeaks(t *testing.T) {
	w := leakWorld(t)
	d := components.DefaultRigidBody()
	d.Size, d.Position = mgl64.Vec3{0.1, 0.1, 0.1}, mgl64.Vec3{0, 0, 0}
	mustRigid(t, w, "crate", d)
	mustBox(t, w, "block", mgl64.Vec3{0.2, -0.05, -0.05}, mgl64.Vec3{0.3, 0.05, 0.05}, false)
	mat := elasticMaterial(1000, 2e5)
	if _, err := w.AddElasticBlock("jelly", mat, mgl64.Vec3{0.4, -0.05, -0.05}, mgl64.Vec3{0.5, 0.05, 0.05}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	in := []mgl64.Vec3{{0.01, 0.03, 0}, {0.25, 0, 0.02}, {0.45, 0, 0}}
	out := []mgl64.Vec3{{0, 0.06, 0}, {0.25, 0.06, 0}, {0.45, 0.07, 0}}
	if _, err := w.AddFluidParticles("drops", components.DefaultMaterial(), append(in, out...), nil); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, l := range leaksIntoBodies(w) {
		got[l.Body] = l.Count
	}
	if got["crate"] != 1 || got["block"] != 1 || got["jelly"] != 1 || len(got) != 3 {
		t.Errorf("leaks %v, want one each in crate, block and jelly", got)
	}
}

// TestSolidsSurviveSnapshot: an obstacle box and a closed obstacle mesh (the L prism) are
// solid in a restored world exactly as in the saved one: the same signed distances at points
// inside, on and outside them.
func TestSolidsSurviveSnapshot(t *testing.T) {
	w := leakWorld(t)
	box := mustBox(t, w, "block", mgl64.Vec3{0.2, 0, 0}, mgl64.Vec3{0.3, 0.1, 0.1}, false)
	l := lShape()
	mesh, err := w.AddBoundaryMesh("L", l.V, l.Tris, false)
	if err != nil {
		t.Fatal(err)
	}
	mustBlock(t, w, "water", mgl64.Vec3{0.35, 0, 0}, mgl64.Vec3{0.45, 0.1, 0.1})
	steps(t, w, 2, nil)
	r := saveRestore(t, w, 1)
	defer r.Close()
	pts := []mgl64.Vec3{{0.25, 0.05, 0.05}, {0.3, 0.05, 0.05}, {0.35, 0.05, 0.05}, {0.05, 0.2, 0.05}, {0.2, 0.05, 0.05}, {0.2, 0.2, 0.05}}
	for _, e := range []sluice.Entity{box, mesh} {
		id := w.Body(e).ID
		for _, p := range pts {
			d0, ok0 := w.Sim().SolidDistance(id, p, w.Time())
			d1, ok1 := r.Sim().SolidDistance(id, p, r.Time())
			if !ok0 || !ok1 || d0 != d1 {
				t.Errorf("body %q at %v: distance %g (solid %v) saved, %g (solid %v) restored", w.Body(e).Name, p, d0, ok0, d1, ok1)
			}
		}
	}
	if d, _ := w.Sim().SolidDistance(w.Body(box).ID, pts[0], 0); math.Abs(d+0.05) > 1e-12 { // round-off of 0.3 − 0.2
		t.Errorf("the box's centre is %g m from its surface, want −0.05", d)
	}
	if d, _ := w.Sim().SolidDistance(w.Body(mesh).ID, pts[3], 0); !(d < 0) {
		t.Errorf("a point inside the L's upright arm is %g m from its surface, want inside", d)
	}
}
