//go:build race

package sluice_test

// raceEnabled: the race detector slows the solver tenfold; the long validation scenes skip
// under it (the short tests still run the same code paths).
const raceEnabled = true
