//go:build !unix

package reduced

// cpuNanos is unavailable here; the benchmarks then report 0 CPU time.
func cpuNanos() int64 { return 0 }
