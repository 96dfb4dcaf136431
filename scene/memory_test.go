package scene

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMemoryEstimateBoundsTheHeap(t *testing.T) {
	// The live heap of a built world after one step (fluid block, tank, crate) lies below the
	// estimate without the collector's headroom, and above a quarter of it: the per-particle
	// figures are an upper bound that does not refuse scenes four times too early.
	sc, err := Parse([]byte(strings.Replace(good, `"particleRadius": 0.05`, `"particleRadius": 0.0125`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	w, err := sc.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Step(1.0 / 200); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	live := float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
	est := sc.MemoryNeeded() / gcHeadroom
	f, wall := sc.Estimate()
	t.Logf("estimate %.0f fluid, %.0f wall: %.1f MB; live heap %.1f MB", f, wall, est/1e6, live/1e6)
	if live > est || live < est/4 {
		t.Errorf("live heap %.1f MB, estimate %.1f MB (must bound it, within 4x)", live/1e6, est/1e6)
	}
}

func TestSceneTooBigForMemoryIsRefused(t *testing.T) {
	// A block of 5e7 particles (under the sampler's 1e8 limit) needs ~150 GB: refused at
	// once, with the estimate and what the machine has (this test assumes less than that).
	if availableMemory() == 0 {
		t.Skip("no /proc/meminfo here: the check is skipped on this system")
	}
	sc, err := Parse([]byte(strings.Replace(good, `"max": [0.5,0.5,0.5]`, `"max": [5000,5,2]`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = sc.Build(1)
	if err == nil || !strings.Contains(err.Error(), "GB available") {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refused after %v, not before allocating", d)
	}
}
