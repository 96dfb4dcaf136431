package sluice

import (
	"encoding/json"
	"fmt"

	"github.com/sluicephysics/sluice/components"
	"github.com/sluicephysics/sluice/physics/reduced"
)

// Reduced air domains and wind boxes in snapshots (version 10): per domain, in creation order,
// its name, its declared keys (JSON), its grid enrichment fields, and the reduced state
// (coefficients, clock, step count); then per wind box its name, keys, coefficients and clock
// (its fan's projections are rebuilt from the keys, bit for bit). The coupled bodies are the world's rigid bodies, restored with them,
// and panel strengths have no memory (§5.3.4), so the first step after a restore gathers the
// same bodies with the same states and continues bit-identically. An enrichment field given
// as a Go function is code, not state: a world holding one cannot be saved.

// saveReduced writes the domains.
func (w *World) saveReduced(e *enc) error {
	e.u32(uint32(len(w.red)))
	for _, r := range w.red {
		e.bytes([]byte(r.name))
		js, err := json.Marshal(r.def)
		if err != nil {
			return err
		}
		e.bytes(js)
		e.u32(uint32(len(r.def.Enrich)))
		for i, f := range r.def.Enrich {
			if f.Func != nil {
				return fmt.Errorf("save: reduced domain %q: enrichment field %d is a Go function, which a snapshot cannot hold (give it as grid samples U, V)", r.name, i)
			}
			e.u64(uint64(len(f.U)))
			e.floats(f.U)
			e.floats(f.V)
		}
		st := r.d.Save()
		e.u64(uint64(len(st.R)))
		e.floats(st.R)
		e.f64(st.Time)
		e.u64(uint64(st.Steps))
	}
	e.u32(uint32(len(w.wind)))
	for _, x := range w.wind {
		e.bytes([]byte(x.name))
		js, err := json.Marshal(x.def)
		if err != nil {
			return err
		}
		e.bytes(js)
		r := x.b.Coefficients(nil)
		e.u64(uint64(len(r)))
		e.floats(r)
		e.f64(x.b.Time())
	}
	return nil
}

// savedWind is one wind box read from a snapshot.
type savedWind struct {
	name string
	def  components.WindBox
	r    []float64
	time float64
}

// savedAir is what loadReduced reads: the domains and the wind boxes.
type savedAir struct {
	domains []savedReduced
	winds   []savedWind
}

// savedReduced is one domain read from a snapshot.
type savedReduced struct {
	name string
	def  components.ReducedDomain
	st   reduced.State
}

// loadReduced reads what saveReduced wrote.
func loadReduced(d *dec) (savedAir, error) {
	var air savedAir
	n := int(d.u32())
	var out []savedReduced
	for i := 0; i < n && d.err == nil; i++ {
		sr := savedReduced{name: string(d.bytes()), def: components.DefaultReducedDomain()}
		if err := json.Unmarshal(d.bytes(), &sr.def); d.err == nil && err != nil {
			return air, fmt.Errorf("%w: reduced domain %d: %v", ErrSnapshot, i, err)
		}
		ne := int(d.u32())
		for k := 0; k < ne && d.err == nil; k++ {
			m := d.count(16)
			sr.def.Enrich = append(sr.def.Enrich, reduced.Field{U: d.floats(m), V: d.floats(m)})
		}
		sr.st.R = d.floats(d.count(8))
		sr.st.Time = d.f64()
		sr.st.Steps = int64(d.u64())
		out = append(out, sr)
	}
	air.domains = out
	nw := int(d.u32())
	for i := 0; i < nw && d.err == nil; i++ {
		sw := savedWind{name: string(d.bytes()), def: components.DefaultWindBox()}
		if err := json.Unmarshal(d.bytes(), &sw.def); d.err == nil && err != nil {
			return air, fmt.Errorf("%w: wind box %d: %v", ErrSnapshot, i, err)
		}
		sw.r = d.floats(d.count(8))
		sw.time = d.f64()
		air.winds = append(air.winds, sw)
	}
	return air, d.err
}

// restoreReduced adds the saved domains to a restored world (after its rigid bodies) and sets
// their state.
func (w *World) restoreReduced(air savedAir) error {
	for _, sr := range air.domains {
		e, err := w.AddReducedDomain(sr.name, sr.def)
		if err != nil {
			return err
		}
		d := w.ReducedDomain(e)
		st := sr.st
		for _, b := range d.Bodies() {
			st.Bodies = append(st.Bodies, b.State())
		}
		if err := d.Restore(st); err != nil {
			return err
		}
	}
	for _, sw := range air.winds {
		e, err := w.AddWindBox(sw.name, sw.def)
		if err != nil {
			return err
		}
		if err := w.WindBox(e).Restore(sw.r, sw.time); err != nil {
			return err
		}
	}
	return nil
}
