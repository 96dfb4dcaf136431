//go:build race

package elastoplastic

// raceEnabled: the race detector slows the passes tenfold; the squash and volume runs skip
// under it, the short tests run the same passes.
const raceEnabled = true
