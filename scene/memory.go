package scene

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Memory a world needs, estimated before anything is allocated, so a scene that cannot fit
// is refused with the estimate rather than killed by the operating system. The per-particle
// figures are measured (TestMemoryEstimateBoundsTheHeap asserts that the estimate bounds the
// live heap of a built and stepped world, and is within a factor of four of it).
const (
	// bytesPerFluid is the live heap per fluid particle: its body's slices, the packed
	// solver arrays, neighbour lists (~40 pairs of index, weight and gradient) and the grid.
	bytesPerFluid = 1500
	// bytesPerWall is the live heap per wall sample: positions, volumes, the wall grid and
	// the fluid–wall neighbour lists.
	bytesPerWall = 1000
	// gcHeadroom: Go's collector lets the heap grow to twice the live data (GOGC = 100)
	// before it collects, so the process needs about twice the live heap.
	gcHeadroom = 2
)

// Estimate returns the fluid (and goo, elastic and elastoplastic) particles and the wall samples the scene
// will have, from the geometry of its blocks, balls and walls (volume or surface over the
// spacing's cube or square) and what its emitters add over the scene's duration. Bodies read from files (particle models, fluid
// and wall meshes, mesh rigid bodies) are not counted: their size is known once read.
func (s *Scene) Estimate() (fluid, wall float64) {
	sp := s.Solver.Spacing()
	if !(sp > 0) {
		return 0, 0
	}
	vol := func(lo, hi [3]float64) float64 {
		return math.Max(0, hi[0]-lo[0]) * math.Max(0, hi[1]-lo[1]) * math.Max(0, hi[2]-lo[2])
	}
	ball := func(r float64) float64 { return 4.0 / 3 * math.Pi * r * r * r }
	for _, f := range s.Fluids {
		fluid += vol(f.Min, f.Max) / (sp * sp * sp)
	}
	for _, f := range s.Spheres {
		fluid += ball(f.Radius) / (sp * sp * sp)
	}
	for _, e := range s.Emitters {
		// the layers due over the scene's duration, up to the budget
		w, h := e.Width/sp, e.Height/sp
		if h == 0 || e.Shape == "circle" {
			h = w
		}
		per := w * h
		if e.Shape == "circle" {
			per *= math.Pi / 4
		}
		layers := math.Max(0, math.Min(e.Stop, s.Duration)-e.Start)*e.Speed/sp + 1
		fluid += math.Min(float64(e.Budget), layers*per)
	}
	for _, e := range s.Elastic {
		if e.Shape == "sphere" {
			fluid += ball(e.Radius) / (sp * sp * sp)
		} else {
			fluid += vol(e.Min, e.Max) / (sp * sp * sp)
		}
	}
	for _, e := range s.Elastoplastic {
		if e.Shape == "sphere" {
			fluid += ball(e.Radius) / (sp * sp * sp)
		} else {
			fluid += vol(e.Min, e.Max) / (sp * sp * sp)
		}
	}
	layers := float64(max(1, s.Solver.BoundaryLayers))
	for _, b := range s.Boundaries {
		d := b.Max.Sub(b.Min)
		area := 2 * (math.Abs(d[0]*d[1]) + math.Abs(d[1]*d[2]) + math.Abs(d[2]*d[0]))
		wall += layers * area / (sp * sp)
	}
	for _, r := range s.Rigid {
		var area float64
		switch r.Shape {
		case "box":
			area = 2 * (r.Size[0]*r.Size[1] + r.Size[1]*r.Size[2] + r.Size[2]*r.Size[0])
		case "sphere":
			area = 4 * math.Pi * r.Radius * r.Radius
		case "capsule":
			area = 4*math.Pi*r.Radius*r.Radius + 2*math.Pi*r.Radius*r.Length
		}
		wall += layers * area / (sp * sp)
	}
	return fluid, wall
}

// MemoryNeeded returns the bytes the process will need for the scene's world: the live heap
// of Estimate's particles with the collector's headroom.
func (s *Scene) MemoryNeeded() float64 {
	f, w := s.Estimate()
	return gcHeadroom * (bytesPerFluid*f + bytesPerWall*w + s.flipMemory())
}

// checkMemory refuses a scene whose estimated memory exceeds what the machine has available
// (Linux's MemAvailable; elsewhere the check is skipped).
func (s *Scene) checkMemory() error {
	avail := availableMemory()
	need := s.MemoryNeeded()
	if avail <= 0 || need <= avail {
		return nil
	}
	f, w := s.Estimate()
	return fmt.Errorf("the scene needs about %.3g GB (%.3g fluid particles, %.3g wall samples at spacing %g m), the machine has %.3g GB available: raise solver.particleRadius or shrink the bodies",
		need/1e9, f, w, s.Solver.Spacing(), avail/1e9)
}

// availableMemory returns MemAvailable from /proc/meminfo in bytes, or 0 when it cannot be
// read.
func availableMemory() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			fields := strings.Fields(rest)
			if len(fields) >= 1 {
				if kb, err := strconv.ParseFloat(fields[0], 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}
