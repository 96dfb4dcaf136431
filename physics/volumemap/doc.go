// Package volumemap builds volume maps for SPH wall boundaries.
package volumemap
