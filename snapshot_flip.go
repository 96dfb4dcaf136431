package sluice

import (
	"encoding/json"
	"fmt"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/flip"
)

// savedFlip is one FLIP liquid body's state in a snapshot.
type savedFlip struct {
	id      uint32
	liq     components.FlipLiquid
	density float64
	st      flip.State
}

// saveFlip writes what every FLIP liquid body carries from one step to the next (snapshot
// version 11): its grid and solver parameters (FlipLiquid, as JSON), the density its Sim was
// made with, and the Sim's state (flip.State: particles, the pressure impulses and the two
// power-iteration vectors the next solves start from, the time, the last step and the seeding
// generator). The obstacles are not saved: they are the solid walls, restored before.
func (w *World) saveFlip(e *enc) error {
	e.u64(uint64(len(w.sim.Flip)))
	for _, fb := range w.sim.Flip {
		js, err := json.Marshal(fb.Liquid)
		if err != nil {
			return err
		}
		st := fb.Sim.Save()
		e.u32(fb.ID)
		e.bytes(js)
		e.f64(fb.Sim.Params().Density)
		e.u64(uint64(len(st.X)))
		e.vecs(st.X)
		e.vecs(st.V)
		e.u64(uint64(len(st.Pressure)))
		e.floats(st.Pressure)
		e.floats(st.Eig)
		e.floats(st.EigY)
		e.f64(st.Time)
		e.f64(st.Dt)
		e.u64(uint64(st.Steps))
		e.bytes(st.RNG)
	}
	return nil
}

// loadFlip reads what saveFlip wrote.
func loadFlip(d *dec) ([]savedFlip, error) {
	var out []savedFlip
	n := d.count(16)
	for k := 0; k < n && d.err == nil; k++ {
		s := savedFlip{id: d.u32(), liq: components.DefaultFlipLiquid()}
		if err := json.Unmarshal(d.bytes(), &s.liq); d.err == nil && err != nil {
			return nil, fmt.Errorf("%w: flip body ID %d parameters: %v", ErrSnapshot, s.id, err)
		}
		s.density = d.f64()
		np := d.count(48)
		s.st.X, s.st.V = d.vecs(np), d.vecs(np)
		nc := d.count(24)
		s.st.Pressure, s.st.Eig, s.st.EigY = d.floats(nc), d.floats(nc), d.floats(nc)
		s.st.Time, s.st.Dt, s.st.Steps = d.f64(), d.f64(), int(d.u64())
		s.st.RNG = append([]byte(nil), d.bytes()...)
		out = append(out, s)
	}
	return out, nil
}

// restoreFlip makes every restored flip body's Sim (after the solid walls, its obstacles, are
// restored) and gives it its saved state; the body's velocities and masses come from it.
// Every flip body must have a saved state, and every saved state a flip body with as many
// particles.
func (w *World) restoreFlip(bodies []savedBody, saved []savedFlip) error {
	for _, sf := range saved {
		var sb *savedBody
		for i := range bodies {
			if bodies[i].body.ID == sf.id && bodies[i].body.Phase == components.Flip {
				sb = &bodies[i]
			}
		}
		if sb == nil || len(sf.st.X) != sb.p.Len() {
			return fmt.Errorf("flip state of body ID %d matches no flip body", sf.id)
		}
		if err := w.sim.InitFlip(sf.id, sb.body.Name, sf.liq, sf.density); err != nil {
			return err
		}
		fb := w.sim.FlipByID(sf.id)
		if err := fb.Sim.Restore(sf.st); err != nil {
			return fmt.Errorf("body %q: %w", sb.body.Name, err)
		}
		e, _ := w.BodyByName(sb.body.Name)
		p := w.Particles(e)
		p.V = append(p.V[:0], sf.st.V...)
		p.M = make([]float64, len(p.X))
		for i := range p.M {
			p.M[i] = fb.Sim.ParticleMass()
		}
		p.MassDensity = sb.mat.RestDensity
	}
	for _, sb := range bodies {
		if sb.body.Phase == components.Flip && w.sim.FlipByID(sb.body.ID) == nil {
			return fmt.Errorf("flip body %q has no saved state", sb.body.Name)
		}
	}
	return nil
}
