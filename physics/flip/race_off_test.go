//go:build !race

package flip

const raceEnabled = false
