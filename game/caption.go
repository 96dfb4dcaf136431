//go:build g3n && cgo

package game

import (
	"time"

	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
)

// CaptionInterval is the shortest wall time between two re-renderings of a Caption's text.
// A g3n label rasterises its text into a new image and re-uploads it as a mipmapped texture on
// every SetText; a game that sets a reading each frame would do that 60 times a second for
// text nobody can read that fast. The HUD's statistics use the same 4 Hz.
const CaptionInterval = 250 * time.Millisecond

// Caption is a GUI label for a game's own text (a score, a reading) that re-renders only when
// its text changes, at most every CaptionInterval, and always on the last frame of a run with
// Options.Frames, so a screenshot shows the final text.
type Caption struct {
	*gui.Label
	text  string
	at    time.Time
	clock func() time.Time // time.Now; a test's clock in tests
}

// NewCaption returns a white caption of the given font size (points) at window pixel (x, y).
func NewCaption(text string, size float64, x, y float32) *Caption {
	l := gui.NewLabel(text)
	l.SetFontSize(size)
	l.SetColor(&math32.Color{R: 1, G: 1, B: 1})
	l.SetPosition(x, y)
	return &Caption{Label: l, text: text, at: time.Now(), clock: time.Now}
}

// Show sets the caption's text for the frame c prepares (see Caption for when it re-renders).
func (cp *Caption) Show(c *Context, text string) {
	if text == cp.text {
		return
	}
	now := cp.clock()
	if now.Sub(cp.at) < CaptionInterval && !c.lastFrame() {
		return
	}
	cp.text, cp.at = text, now
	cp.SetText(text)
}
