//go:build g3n && cgo

package game

import (
	"fmt"
	"image"
	"math"
	"sort"
	"strings"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
	"github.com/sluicephysics/sluice/physics/rigid"
)

// hudKeys is the key help line of the HUD.
const hudKeys = "space pause · N step · +/− speed · 0 real time · C colour · F fluid look · B body samples · W wall samples · A ellipsoids · R reload · mouse/arrows orbit · Esc quit"

// legendSwatches is the number of colour samples in the field legend's bar.
const legendSwatches = 48

// HUD draws the statistics panel (top left) and the colour legend (bottom left) with g3n's gui
// labels. Labels re-render their text into a texture, so Update is throttled by the caller.
type HUD struct {
	Node   *core.Node
	stats  *gui.Label
	legend *gui.Panel
	title  *gui.Label
	lo, hi *gui.Label
	bar    []*gui.Panel
	keys   []*gui.Panel // phase swatches
	names  []*gui.Label
	height float32 // window height the legend is placed for
}

// Legend layout (pixels).
const (
	legendX, legendW, legendH = 8, 4 * legendSwatches, 64
	swatchW, barH             = 4, 14
	keyW                      = 96 // a key entry: swatch and name
)

// NewHUD builds the panels; keys are the colours of the world's particle bodies (LegendKeys).
func NewHUD(keys []LegendKey) *HUD {
	h := &HUD{Node: core.NewNode()}
	h.stats = gui.NewLabel("sluice")
	h.stats.SetFontSize(14)
	h.stats.SetColor(&math32.Color{R: 0.95, G: 0.95, B: 0.95})
	h.stats.SetBgColor4(&math32.Color4{R: 0, G: 0, B: 0, A: 0.55})
	h.stats.SetPaddings(4, 6, 4, 6)
	h.stats.SetPosition(8, 8)
	h.Node.Add(h.stats)

	h.legend = gui.NewPanel(legendW+12, legendH)
	h.legend.SetColor4(&math32.Color4{R: 0, G: 0, B: 0, A: 0.55})
	h.Node.Add(h.legend)
	h.title = gui.NewLabel("")
	h.title.SetFontSize(13)
	h.title.SetColor(&math32.Color{R: 0.95, G: 0.95, B: 0.95})
	h.title.SetPosition(6, 4)
	h.legend.Add(h.title)
	for i := 0; i < legendSwatches; i++ {
		p := gui.NewPanel(swatchW, barH)
		p.SetPosition(6+float32(i*swatchW), 24)
		h.legend.Add(p)
		h.bar = append(h.bar, p)
	}
	h.lo, h.hi = gui.NewLabel(""), gui.NewLabel("")
	for _, l := range []*gui.Label{h.lo, h.hi} {
		l.SetFontSize(12)
		l.SetColor(&math32.Color{R: 0.9, G: 0.9, B: 0.9})
		h.legend.Add(l)
	}
	for i, k := range keys {
		h.addKey(i, 0, k.Color, k.Label)
	}
	h.legend.SetWidth(max(h.legend.Width(), float32(6+len(keys)*keyW)))
	return h
}

// AddRigidKeys adds the key of the rigid bodies' mesh colours (RigidColor), one entry per kind
// of motion present, on the legend's second row, widening the legend to fit. Like the phase
// key it is shown while colouring by phase; the meshes keep their colours under a field too.
func (h *HUD) AddRigidKeys(kinds []rigid.Motion) {
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] > kinds[j] }) // dynamic first
	for i, k := range kinds {
		h.addKey(i, 1, RigidColor(k), k.String()+" body")
	}
	h.legend.SetWidth(max(h.legend.Width(), float32(6+len(kinds)*keyW)))
}

// addKey adds a colour swatch and its name at column col of the legend's row (0: phases, 1:
// rigid bodies).
func (h *HUD) addKey(col, row int, c Color, label string) {
	y := float32(24 + 20*row)
	sw := gui.NewPanel(12, 12)
	sw.SetColor4(&math32.Color4{R: c.R, G: c.G, B: c.B, A: 1})
	sw.SetPosition(6+float32(col*keyW), y+2)
	name := gui.NewLabel(label)
	name.SetFontSize(12)
	name.SetColor(&math32.Color{R: 0.9, G: 0.9, B: 0.9})
	name.SetPosition(22+float32(col*keyW), y)
	h.legend.Add(sw)
	h.legend.Add(name)
	h.keys = append(h.keys, sw)
	h.names = append(h.names, name)
}

// Resize places the legend at the bottom of a window of the given height.
func (h *HUD) Resize(height int) {
	h.height = float32(height)
	h.legend.SetPosition(legendX, h.height-legendH-8)
}

// SetStats replaces the statistics text.
func (h *HUD) SetStats(lines []string) { h.stats.SetText(strings.Join(lines, "\n")) }

// SetLegend shows the phase key, or for a field its name, unit, colour bar and range.
func (h *HUD) SetLegend(v *View) {
	name, unit, lo, hi, field := v.ColorMode()
	if field {
		title := fmt.Sprintf("%s (%s), 1st–99th percentile", name, unit)
		if flo, fhi := v.FullRange(); !math.IsNaN(flo) {
			title = fmt.Sprintf("%s (%s), all %.3g–%.3g", name, unit, flo, fhi)
		}
		h.title.SetText(title)
		cm := v.ColorMap()
		for i, p := range h.bar {
			c := cm.At((float32(i) + 0.5) / legendSwatches)
			p.SetColor4(&math32.Color4{R: c.R, G: c.G, B: c.B, A: 1})
		}
		h.lo.SetText(fmt.Sprintf("%.4g", lo))
		h.hi.SetText(fmt.Sprintf("%.4g", hi))
		h.lo.SetPosition(6, 42)
		h.hi.SetPosition(6+legendW-h.hi.Width(), 42)
	} else {
		h.title.SetText("colour: phase")
	}
	for _, p := range h.bar {
		p.SetVisible(field)
	}
	h.lo.SetVisible(field)
	h.hi.SetVisible(field)
	for i := range h.keys {
		h.keys[i].SetVisible(!field)
		h.names[i].SetVisible(!field)
	}
}

// Rects returns the HUD's rectangles in window pixels (for excluding them from image checks).
func (h *HUD) Rects() []image.Rectangle {
	r := func(p *gui.Panel) image.Rectangle {
		pos := p.Position()
		return image.Rect(int(pos.X), int(pos.Y), int(pos.X+p.Width())+1, int(pos.Y+p.Height())+1)
	}
	return []image.Rectangle{r(&h.stats.Panel), r(h.legend)}
}
