//go:build unix

// Package cputime reads the CPU time the process has used. On a machine shared with other
// jobs it measures the work of a one-worker run better than the wall clock does, so the
// benchmarks and the examples report it beside their wall times.
package cputime

import "syscall"

// Nanos returns the CPU time (user + system) the process has used, in ns; 0 if it cannot be
// read.
func Nanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
