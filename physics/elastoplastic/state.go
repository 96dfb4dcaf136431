package elastoplastic

import "fmt"

// State is the part of a Body that carries over between steps: the elastic deformation
// gradient F and accumulated plastic strain α of every particle, the positions the next fit
// starts from and the time since them. Everything else is rebuilt each Step, so a Body restored from a State (with
// the same material and the same positions and velocities) continues bit-identically.
type State struct {
	F       [][9]float64
	Alpha   []float64
	XPrev   []Vec3
	HasPrev bool
	DtPrev  float64 // time between XPrev and the next Step's positions (s)
}

// Save returns a copy of the body's state.
func (b *Body) Save() State {
	st := State{F: make([][9]float64, b.n), Alpha: make([]float64, b.n), XPrev: make([]Vec3, b.n), HasPrev: b.hasPrev, DtPrev: b.dtPrev}
	copy(st.F, b.f)
	copy(st.Alpha, b.alpha)
	copy(st.XPrev, b.xPrev)
	return st
}

// Restore sets the body's state from st, which must hold one entry per particle.
func (b *Body) Restore(st State) error {
	if len(st.F) != b.n || len(st.Alpha) != b.n || len(st.XPrev) != b.n {
		return fmt.Errorf("elastoplastic: state of %d/%d/%d entries (F/alpha/previous positions) for %d particles", len(st.F), len(st.Alpha), len(st.XPrev), b.n)
	}
	copy(b.f, st.F)
	copy(b.alpha, st.Alpha)
	copy(b.xPrev, st.XPrev)
	b.hasPrev, b.dtPrev = st.HasPrev, st.DtPrev
	return nil
}
