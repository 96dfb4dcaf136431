//go:build !unix

package sluice_test

// cpuNanos is not measured on this platform.
func cpuNanos() int64 { return 0 }
