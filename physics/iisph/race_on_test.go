//go:build race

package iisph

// raceEnabled: the race detector slows the solver about twentyfold, and the solves run to a
// tight η (thousands of sweeps) skip under it; the looser solves of the other tests run the
// same parallel passes.
const raceEnabled = true
