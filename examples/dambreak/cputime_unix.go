//go:build unix

package main

import "syscall"

// cpuSeconds returns the CPU time (user + system) the process has used: on a machine shared
// with other jobs it measures a one-worker run's work better than the wall clock does.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) * 1e-9
}
