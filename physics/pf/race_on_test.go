//go:build race

package pf

// raceEnabled: the race detector slows the solver tenfold; the long validation (the settling
// column) skips under it, the short tests run the same passes.
const raceEnabled = true
