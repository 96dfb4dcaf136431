//go:build race

package flip

// raceEnabled: the race detector slows the solver tenfold; the long validations skip under
// it (the short tests run the same stages).
const raceEnabled = true
