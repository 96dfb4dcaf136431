package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// writeVTK writes a legacy binary VTK file laid out as the reference's particle exporter lays it
// out (points, one cell per particle, an id SCALARS array, then a FIELD block of velocity and
// density), every binary value big-endian; real is "float" or "double".
func writeVTK(t *testing.T, path, real string, density []float64) {
	t.Helper()
	writeParticles(t, path, real, density, nil, nil)
}

// writeParticles is writeVTK with the given positions and velocities (nil: writeVTK's).
func writeParticles(t *testing.T, path, real string, density []float64, pos, vel [][3]float64) {
	t.Helper()
	n := len(density)
	var b bytes.Buffer
	put := func(v any) {
		if err := binary.Write(&b, binary.BigEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	putReal := func(v float64) {
		if real == "float" {
			put(float32(v))
		} else {
			put(v)
		}
	}
	b.WriteString("# vtk DataFile Version 4.1\nSPlisHSPlasH particle data\nBINARY\nDATASET UNSTRUCTURED_GRID\n")
	fmt.Fprintf(&b, "POINTS %d %s\n", n, real)
	for i := 0; i < n; i++ {
		// Positions whose bytes include newlines and blanks, to catch a reader that scans
		// binary data for text.
		if pos != nil {
			putReal(pos[i][0])
			putReal(pos[i][1])
			putReal(pos[i][2])
			continue
		}
		putReal(float64(i) + 10.0/256)
		putReal(32)
		putReal(-1)
	}
	fmt.Fprintf(&b, "\nCELLS %d %d\n", n, 2*n)
	for i := 0; i < n; i++ {
		put(uint32(1))
		put(uint32(i))
	}
	fmt.Fprintf(&b, "\nCELL_TYPES %d\n", n)
	for i := 0; i < n; i++ {
		put(int32(1))
	}
	fmt.Fprintf(&b, "\nPOINT_DATA %d\nSCALARS id unsigned_int 1\nLOOKUP_TABLE id_table\n", n)
	for i := 0; i < n; i++ {
		put(uint32(i))
	}
	fmt.Fprintf(&b, "\nFIELD FieldData 2\nvelocity 3 %d %s\n", n, real)
	for i := 0; i < 3*n; i++ {
		if vel != nil {
			putReal(vel[i/3][i%3])
			continue
		}
		putReal(2000) // a velocity that, read as a density, would count as compressed
	}
	fmt.Fprintf(&b, "\ndensity 1 %d %s\n", n, real)
	for _, d := range density {
		putReal(d)
	}
	b.WriteString("\n")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadsDensityAndCompression writes two small files and checks that the density array comes
// back exactly and that the compression figures are those computed by hand.
func TestReadsDensityAndCompression(t *testing.T) {
	// Densities exact in float32, so the values must come back bit for bit (tolerance 0); a
	// wrong byte order, a wrong offset or the wrong array gives other values.
	a := []float64{1000, 1010, 995, 1002.5}
	b := []float64{1020, 1000, 1000, 990}
	for _, real := range []string{"float", "double"} {
		dir := t.TempDir()
		// Named so that lexical order (…_10 before …_9) differs from step order.
		writeVTK(t, filepath.Join(dir, "ParticleData_Fluid_9.vtk"), real, a)
		writeVTK(t, filepath.Join(dir, "ParticleData_Fluid_10.vtk"), real, b)
		files, err := vtkFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2 || filepath.Base(files[0]) != "ParticleData_Fluid_9.vtk" {
			t.Fatalf("%s: files %v, want _9 then _10", real, files)
		}
		var stats []fileStats
		for k, want := range [][]float64{a, b} {
			got, err := readField(files[k], "density")
			if err != nil {
				t.Fatalf("%s: %v", real, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s file %d: %d values, want %d", real, k, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s file %d: density[%d] = %v, want %v", real, k, i, got[i], want[i])
				}
			}
			stats = append(stats, compression(got, 1000))
		}
		// By hand: file a compresses 0, 1 %, 0, 0.25 % -> average 0.3125 %, largest 1 %;
		// file b 2 %, 0, 0, 0 -> average 0.5 %, largest 2 %. Tolerance: a few ulps of
		// the float64 arithmetic on these sums.
		const tol = 1e-15
		o := summarize(stats)
		checks := []struct {
			name      string
			got, want float64
		}{
			{"average of a", stats[0].avg, 0.003125},
			{"largest of a", stats[0].max, 0.01},
			{"average of b", stats[1].avg, 0.005},
			{"largest of b", stats[1].max, 0.02},
			{"overall average", o.avg, (0.003125 + 0.005) / 2},
			{"median of the largest", o.medianMax, 0.015},
			{"largest", o.maxMax, 0.02},
		}
		for _, c := range checks {
			if math.Abs(c.got-c.want) > tol {
				t.Errorf("%s: %s = %v, want %v", real, c.name, c.got, c.want)
			}
		}
	}
}

// TestMissingArrayIsAnError checks that asking for an array the file lacks fails rather than
// reading some other array.
func TestMissingArrayIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p_1.vtk")
	writeVTK(t, path, "float", []float64{1000, 1001})
	if _, err := readField(path, "pressure"); err == nil {
		t.Fatal("reading a missing array succeeded")
	}
	// "id" is an unsigned_int array: decoding it as reals must be refused.
	if v, err := readField(path, "id"); err == nil {
		t.Fatalf("the unsigned_int array id was decoded as reals: %v", v)
	}
}

// TestFirstLeavesOutEarlierFilesAndNamesTheLargest checks -first's selection by the number in
// the name (not by lexical order) and that the summary points at the file holding the largest
// compression.
func TestFirstLeavesOutEarlierFilesAndNamesTheLargest(t *testing.T) {
	dir := t.TempDir()
	// File 1 (the initial state) holds the largest compression, 5 %; of the rest, file 10
	// holds 3 %, file 2 holds 1 %.
	writeVTK(t, filepath.Join(dir, "ParticleData_Fluid_1.vtk"), "float", []float64{1050, 1000})
	writeVTK(t, filepath.Join(dir, "ParticleData_Fluid_2.vtk"), "float", []float64{1010, 1000})
	writeVTK(t, filepath.Join(dir, "ParticleData_Fluid_10.vtk"), "float", []float64{1000, 1030})
	files, err := vtkFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept := fromNumber(files, 2)
	if len(kept) != 2 || filepath.Base(kept[0]) != "ParticleData_Fluid_2.vtk" ||
		filepath.Base(kept[1]) != "ParticleData_Fluid_10.vtk" {
		t.Fatalf("-first 2 kept %v, want _2 then _10", kept)
	}
	if all := fromNumber(files, 0); len(all) != 3 {
		t.Fatalf("-first 0 kept %d files, want 3", len(all))
	}
	summary := func(names []string) overall {
		var stats []fileStats
		for _, n := range names {
			rho, err := readField(n, "density")
			if err != nil {
				t.Fatal(err)
			}
			stats = append(stats, compression(rho, 1000))
		}
		return summarize(stats)
	}
	// The densities are exact in float32 and the compressions are differences of them
	// divided by 1000: a few ulps of float64.
	const tol = 1e-15
	o := summary(kept)
	if filepath.Base(kept[o.argMax]) != "ParticleData_Fluid_10.vtk" || math.Abs(o.maxMax-0.03) > tol {
		t.Errorf("files 2 and 10: largest %v in %s, want 0.03 in _10", o.maxMax, kept[o.argMax])
	}
	if math.Abs(o.medianMax-0.02) > tol {
		t.Errorf("files 2 and 10: median of the largest %v, want 0.02", o.medianMax)
	}
	if o = summary(files); filepath.Base(files[o.argMax]) != "ParticleData_Fluid_1.vtk" || math.Abs(o.maxMax-0.05) > tol {
		t.Errorf("all files: largest %v in %s, want 0.05 in _1", o.maxMax, files[o.argMax])
	}
}

// TestHeapOfARotatingRing: particles on a ring of radius 0.25 m about the vertical axis
// through (1, ·, −2), heights 0.1…0.8 m, turning about that axis at ω = 2 rad/s
// (v = ω (Δz, 0, −Δx)): -heap reads the top 0.8 m, the median distance 0.25 m and the angular
// momentum ω R² = 0.125 m²/s per particle (float round-off: 1e-6).
func TestHeapOfARotatingRing(t *testing.T) {
	const n, r, om = 8, 0.25, 2.0
	pos := make([][3]float64, n)
	vel := make([][3]float64, n)
	for i := range pos {
		a := 2 * math.Pi * float64(i) / n
		dx, dz := r*math.Cos(a), r*math.Sin(a)
		pos[i] = [3]float64{1 + dx, 0.1 * float64(i+1), -2 + dz}
		vel[i] = [3]float64{om * dz, 0.3, -om * dx}
	}
	path := filepath.Join(t.TempDir(), "ring_1.vtk")
	writeParticles(t, path, "float", make([]float64, n), pos, vel)
	h, err := readHeap(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"top", h.top, 0.8}, {"median distance", h.median, r}, {"angular momentum", h.spin, om * r * r}} {
		if math.Abs(c.got-c.want) > 1e-6 {
			t.Errorf("%s %v, want %v", c.what, c.got, c.want)
		}
	}
	if h.n != n {
		t.Errorf("%d particles, want %d", h.n, n)
	}
}
