//go:build race

package reduced

// raceEnabled: the race detector slows the numerics tenfold; the heavy benchmarks-as-tests
// (the game scene's timing comparison, the drafting run) skip under it.
const raceEnabled = true
