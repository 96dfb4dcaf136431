//go:build !amd64 || purego

package volumemap

// Where no assembly is built useAVX2 stays false and layerSumsAVX is never called.
var useAVX2 = false

func layerSumsAVX(f *float64, sb, sc int, tab *[10][4]float64, sums *[4][4]float64) {
	panic("volumemap: no assembly in this build")
}
