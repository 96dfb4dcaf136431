//go:build !purego

package volumemap

import "github.com/sluicephysics/sluice/physics/internal/vec"

// useAVX2 selects layerSumsAVX where the processor has AVX2; tests clear it to compare.
var useAVX2 = vec.HasAVX2

// layerSumsAVX is layerSums's loop with AVX2 (stencil_amd64.s): f points at the stencil's first
// node value, sb and sc are the byte strides of a row (y) and of a layer (z), tab the weights.
//
//go:noescape
func layerSumsAVX(f *float64, sb, sc int, tab *[10][4]float64, sums *[4][4]float64)
