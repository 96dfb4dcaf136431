package sluice

import (
	"fmt"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/elastoplastic"
)

// savedElastoplastic is one elastoplastic body's per-particle state in a snapshot.
type savedElastoplastic struct {
	id uint32
	st elastoplastic.State
}

// saveElastoplastic writes the state every elastoplastic body carries from one substep to the
// next (snapshot version 8): per particle the elastic deformation gradient F, the accumulated
// plastic strain α and the positions the next fit starts from, whether there are any, and the
// time since them. A
// body that lost particles in its last step is written as it will be rebuilt (the kept
// particles' state); one left too small to fit an affine motion, with no entries.
func (w *World) saveElastoplastic(e *enc) {
	e.u64(uint64(len(w.sim.Elastoplastic)))
	for _, sb := range w.sim.Elastoplastic {
		var st elastoplastic.State
		switch {
		case sb.Stale():
			st = sb.Kept()
			st.DtPrev += sb.Paused()
		case sb.Body != nil:
			st = sb.Body.Save()
		}
		e.u32(sb.ID)
		e.u64(uint64(len(st.F)))
		for _, f := range st.F {
			e.floats(f[:])
		}
		e.floats(st.Alpha)
		for _, x := range st.XPrev {
			e.floats(x[:])
		}
		e.u32(flags(st.HasPrev, false))
		e.f64(st.DtPrev)
	}
}

// loadElastoplastic reads what saveElastoplastic wrote.
func loadElastoplastic(d *dec) []savedElastoplastic {
	var out []savedElastoplastic
	n := d.count(16)
	for k := 0; k < n && d.err == nil; k++ {
		s := savedElastoplastic{id: d.u32()}
		np := d.count(13 * 8)
		for i := 0; i < np && d.err == nil; i++ {
			var f [9]float64
			for q := range f {
				f[q] = d.f64()
			}
			s.st.F = append(s.st.F, f)
		}
		s.st.Alpha = d.floats(np)
		s.st.XPrev = d.vecs(np)
		s.st.HasPrev = d.u32()&1 != 0
		s.st.DtPrev = d.f64()
		out = append(out, s)
	}
	return out
}

// restoreElastoplastic gives every restored elastoplastic body its saved state; every such
// body must have one, and every saved state a body.
func (w *World) restoreElastoplastic(bodies []savedBody, saved []savedElastoplastic) error {
	for _, se := range saved {
		var sb *savedBody
		for i := range bodies {
			if bodies[i].body.ID == se.id && bodies[i].body.Phase == components.Elastoplastic {
				sb = &bodies[i]
			}
		}
		if sb == nil || (len(se.st.F) != 0 && len(se.st.F) != sb.p.Len()) {
			return fmt.Errorf("elastoplastic state of body ID %d matches no elastoplastic body", se.id)
		}
		m := 0.0 // the body's particle mass (they share one); none when all were removed
		if len(sb.p.M) > 0 {
			m = sb.p.M[0]
		}
		if err := w.sim.RestoreElastoplastic(se.id, sb.body.Name, &sb.mat, sb.p.Len(), m, se.st); err != nil {
			return err
		}
	}
	for _, sb := range bodies {
		if sb.body.Phase == components.Elastoplastic && w.sim.ElastoplasticByID(sb.body.ID) == nil {
			return fmt.Errorf("elastoplastic body %q has no saved state", sb.body.Name)
		}
	}
	return nil
}
