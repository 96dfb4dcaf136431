//go:build !race

package iisph

const raceEnabled = false
