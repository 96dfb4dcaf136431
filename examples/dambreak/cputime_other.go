//go:build !unix

package main

// cpuSeconds is not measured on this platform; the example then prints no CPU figure.
func cpuSeconds() float64 { return 0 }
