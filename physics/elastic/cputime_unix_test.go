//go:build unix

package elastic

import "syscall"

// cpuNanos returns the CPU time (user + system) the process has used, in ns: on a machine
// shared with other jobs it measures the work of a one-worker benchmark better than the wall
// clock does.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
