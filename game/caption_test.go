//go:build g3n && cgo

package game

import (
	"testing"
	"time"
)

// TestCaptionThrottles checks when a Caption re-renders: a changed text within CaptionInterval
// of the last rendering waits (and is shown by a later call once the interval has passed, even
// if the text has not changed since), a changed text after it is shown at once, and the last
// frame of a recorded run shows its text regardless of the interval.
func TestCaptionThrottles(t *testing.T) {
	now := time.Unix(1000, 0)
	cp := NewCaption("start", 12, 0, 0)
	cp.clock = func() time.Time { return now }
	cp.at = now
	c := &Context{Frame: 1, frames: 10}
	step := func(d time.Duration, text, want string) {
		t.Helper()
		now = now.Add(d)
		cp.Show(c, text)
		c.Frame++
		if got := cp.Text(); got != want {
			t.Fatalf("frame %d, %v after the previous call, Show(%q): the label reads %q, want %q", c.Frame-1, d, text, got, want)
		}
	}
	step(CaptionInterval/10, "a", "start")     // too soon: not re-rendered
	step(CaptionInterval, "a", "a")            // interval passed: the pending text appears
	step(CaptionInterval/10, "b", "a")         // too soon again
	step(CaptionInterval/10, "c", "a")         // still too soon
	step(CaptionInterval, "c", "c")            // shown, the skipped "b" never was
	step(2*CaptionInterval, "c", "c")          // unchanged: nothing to do
	c.Frame = 10                               // the recorded run's last frame
	step(CaptionInterval/10, "final", "final") // shown at once for the screenshot
}
