//go:build !race

package pf

const raceEnabled = false
