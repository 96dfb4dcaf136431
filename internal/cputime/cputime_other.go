//go:build !unix

// Package cputime reads the CPU time the process has used (see cputime_unix.go); on this
// platform it is not measured.
package cputime

// Nanos returns 0: the CPU time is not measured on this platform.
func Nanos() int64 { return 0 }
