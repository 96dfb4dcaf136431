//go:build !race

package reduced

const raceEnabled = false
