package sluice

import (
	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/diffuse"
	"github.com/sluicephysics/sluice/systems"
)

// DiffuseParticles are the spray, foam and air bubbles of the world's fluid after the last
// Step (solver.diffuse; physics/diffuse after Ihmsen et al. 2012). The slices are the world's
// own, valid until the next Step: read them, do not keep or change them.
type DiffuseParticles struct {
	X    []mgl64.Vec3   // position (m)
	V    []mgl64.Vec3   // velocity (m/s)
	Life []float64      // remaining lifetime (s); only foam counts it down
	Kind []diffuse.Kind // spray, foam or bubble, from the fluid neighbours at the last Step
}

// Len returns the number of diffuse particles.
func (d DiffuseParticles) Len() int { return len(d.X) }

// Diffuse returns the diffuse particles after the last Step (none while
// solver.diffuse.enabled is false).
func (w *World) Diffuse() DiffuseParticles {
	s := &w.diff.set
	return DiffuseParticles{X: s.X, V: s.V, Life: s.Life, Kind: s.Kind}
}

// diffuseState is the world's diffuse particles and the scratch of their update.
type diffuseState struct {
	set  diffuse.Set
	emit []bool
	p    diffuse.Params
	in   diffuse.Input
}

// stepDiffuse runs the diffuse post-process over the dt the step just advanced, with the
// fluid as the step left it (the packed state, still current after Scatter).
func (w *World) stepDiffuse(dt float64) (*systems.DiffuseStats, error) {
	cfg := &w.sim.Settings.Diffuse
	if !cfg.Enabled || !(dt > 0) {
		return nil, nil
	}
	t0 := time.Now()
	s := w.sim
	w.diff.emit = s.DiffuseSources(w.diff.emit)
	w.diff.p = cfg.Params(s.Settings.Gravity, s.DomainMin, s.DomainMax)
	in := &w.diff.in
	*in = diffuse.Input{X: s.Fluid.X, V: s.Fluid.V, Emit: w.diff.emit, Kernel: &s.Kernel, R: s.Settings.ParticleRadius, Vol: s.Volume0}
	in.WallX, in.Walls = s.Walls()
	st, err := w.diff.set.Update(&w.diff.p, in, dt, w.ecs.Pool)
	*in = diffuse.Input{}
	if err != nil {
		return nil, err
	}
	return &systems.DiffuseStats{Spray: st.Spray, Foam: st.Foam, Bubbles: st.Bubbles, Generated: st.Generated,
		Dissolved: st.Dissolved, Left: st.Left, Absorbed: st.Absorbed, Capped: st.Capped, Ms: float64(time.Since(t0).Nanoseconds()) / 1e6}, nil
}

// saveDiffuse writes the diffuse particles and the update counter that seeds the next
// generation (snapshot version 13).
func (w *World) saveDiffuse(e *enc) {
	s := &w.diff.set
	e.u64(s.Updates)
	e.u64(uint64(s.Len()))
	e.vecs(s.X)
	e.vecs(s.V)
	e.floats(s.Life)
	kinds := make([]byte, s.Len())
	for i, k := range s.Kind {
		kinds[i] = byte(k)
	}
	e.bytes(kinds)
}

// loadDiffuse reads what saveDiffuse wrote into set.
func loadDiffuse(d *dec, set *diffuse.Set) error {
	set.Updates = d.u64()
	n := d.count(56)
	set.X, set.V, set.Life = d.vecs(n), d.vecs(n), d.floats(n)
	kinds := d.bytes()
	if d.err != nil {
		return d.err
	}
	if len(kinds) != n {
		return fmt.Errorf("%w: %d diffuse particles, %d kinds", ErrSnapshot, n, len(kinds))
	}
	set.Kind = make([]diffuse.Kind, n)
	for i, k := range kinds {
		if k > byte(diffuse.Bubble) {
			return fmt.Errorf("%w: diffuse particle %d has kind %d", ErrSnapshot, i, k)
		}
		set.Kind[i] = diffuse.Kind(k)
	}
	return nil
}

// SetDiffuse replaces the diffuse settings between steps (turning spray and foam on or off,
// or changing their rates); the particles already made keep going. It fails, naming the key,
// on a setting out of range.
func (w *World) SetDiffuse(d components.Diffuse) error {
	s := w.sim.Settings
	s.Diffuse = d
	if err := s.Validate("solver"); err != nil {
		return err
	}
	w.sim.Settings.Diffuse = d
	return nil
}
