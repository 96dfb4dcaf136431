//go:build race

package elastic

// raceEnabled: the race detector slows the solver tenfold; the long validations (static
// beams, the stability ladder) skip under it, the short tests run the same passes.
const raceEnabled = true
