//go:build !unix

package physics

// cpuNanos is not measured on this platform.
func cpuNanos() int64 { return 0 }
