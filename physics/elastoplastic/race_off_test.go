//go:build !race

package elastoplastic

const raceEnabled = false
