// Command vtkcompression reads a folder of legacy binary VTK particle files, as SPlisHSPlasH
// writes them with "enableVTKExport" and a "density" entry in "particleAttributes", and prints
// the compression the density field shows: per particle max(0, ρ/ρ0 − 1), averaged over the
// particles of a file, then over the files; and per file the largest particle's compression,
// of which it prints the median over the files and the largest, naming the file that holds it.
// -first N leaves out the files numbered below N (the reference's IISPH and DFSPH export, at
// the start of a step, the density of the step before, so their file 1 holds the initial
// state's).
//
// The reference computes the exported density at the start of the step that precedes the export,
// from the positions the step before left; a file thus shows the density of the positions one
// step produced, which is what sluice's stats call "measured after the substep".
//
//	go run ./bench/vtkcompression -rho0 1000 [-first N] [-v] DIR
//
// With -heap it prints instead, per file, what a viscous rope falling onto a plate has become
// (docs/viscosity.md, the coiling scenes): the particles' highest y, their median horizontal
// distance from the vertical axis through their mean x and z, and their angular momentum about
// that axis per particle, Σ (Δz v_x − Δx v_z)/n, from the POINTS and a 3-component "velocity"
// array (the reference's "particleAttributes": "velocity").
//
//	go run ./bench/vtkcompression -heap DIR
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	rho0 := flag.Float64("rho0", 1000, "rest density in kg/m³")
	field := flag.String("field", "density", "name of the density array in the files' FIELD block")
	verbose := flag.Bool("v", false, "print one line per file")
	first := flag.Int("first", 0, "leave out the files whose number (the last in the name) is below this")
	heapMode := flag.Bool("heap", false, "print per file the particles' height, median distance from their vertical axis and angular momentum about it per particle")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: vtkcompression [-rho0 R] [-field NAME] [-first N] [-v] DIR")
		os.Exit(2)
	}
	files, err := vtkFiles(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "vtkcompression:", err)
		os.Exit(1)
	}
	files = fromNumber(files, *first)
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "vtkcompression: no .vtk files numbered", *first, "or more in", flag.Arg(0))
		os.Exit(1)
	}
	if *heapMode {
		for _, name := range files {
			h, err := readHeap(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "vtkcompression:", err)
				os.Exit(1)
			}
			fmt.Printf("%s  particles %d  top %.3f m  median distance from the axis %.3f m  angular momentum about it %.5f m²/s per particle\n",
				filepath.Base(name), h.n, h.top, h.median, h.spin)
		}
		return
	}
	stats := make([]fileStats, 0, len(files))
	for _, name := range files {
		rho, err := readField(name, *field)
		if err != nil {
			fmt.Fprintln(os.Stderr, "vtkcompression:", err)
			os.Exit(1)
		}
		s := compression(rho, *rho0)
		stats = append(stats, s)
		if *verbose {
			fmt.Printf("%s  particles %d  average %.4f %%  largest %.4f %%\n",
				filepath.Base(name), s.n, 100*s.avg, 100*s.max)
		}
	}
	o := summarize(stats)
	fmt.Printf("files %d (%s to %s)  average compression %.4f %% (of the files' averages: %.4f–%.4f %%)  largest per file: median %.4f %%, at most %.4f %% (%s)\n",
		o.files, filepath.Base(files[0]), filepath.Base(files[len(files)-1]), 100*o.avg, 100*o.minAvg, 100*o.maxAvg,
		100*o.medianMax, 100*o.maxMax, filepath.Base(files[o.argMax]))
}

// fileStats is the compression of one file: its particle count, average and largest.
type fileStats struct {
	n        int
	avg, max float64
}

// compression returns the average and largest of max(0, ρ/ρ0 − 1) over the densities rho.
func compression(rho []float64, rho0 float64) fileStats {
	s := fileStats{n: len(rho)}
	sum := 0.0
	for _, r := range rho {
		c := math.Max(0, r/rho0-1)
		sum += c
		s.max = math.Max(s.max, c)
	}
	if len(rho) > 0 {
		s.avg = sum / float64(len(rho))
	}
	return s
}

// overall is the summary over the files: the mean of the files' averages, their range, and the
// median and largest of the files' largest compressions, and the index of the file with the
// largest.
type overall struct {
	files               int
	avg, minAvg, maxAvg float64
	medianMax, maxMax   float64
	argMax              int
}

func summarize(stats []fileStats) overall {
	o := overall{files: len(stats), minAvg: math.Inf(1)}
	if len(stats) == 0 {
		return overall{}
	}
	maxes := make([]float64, len(stats))
	for i, s := range stats {
		o.avg += s.avg
		o.minAvg = math.Min(o.minAvg, s.avg)
		o.maxAvg = math.Max(o.maxAvg, s.avg)
		maxes[i] = s.max
		if s.max > stats[o.argMax].max {
			o.argMax = i
		}
	}
	o.avg /= float64(len(stats))
	sort.Float64s(maxes)
	o.maxMax = maxes[len(maxes)-1]
	if m := len(maxes); m%2 == 1 {
		o.medianMax = maxes[m/2]
	} else {
		o.medianMax = (maxes[m/2-1] + maxes[m/2]) / 2
	}
	return o
}

var lastNumber = regexp.MustCompile(`(\d+)\D*$`)

// fileNumber is the last number in a file's name, math.MaxInt for a name without one.
func fileNumber(name string) int {
	m := lastNumber.FindStringSubmatch(filepath.Base(name))
	if m == nil {
		return math.MaxInt
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return math.MaxInt
	}
	return n
}

// fromNumber keeps the files numbered first or more, in their order.
func fromNumber(files []string, first int) []string {
	var kept []string
	for _, f := range files {
		if fileNumber(f) >= first {
			kept = append(kept, f)
		}
	}
	return kept
}

// vtkFiles lists the .vtk files of dir in the order of the last number in their names (the
// reference numbers its exports ParticleData_Fluid_1.vtk, _2, …), names without one last.
func vtkFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".vtk") {
			names = append(names, e.Name())
		}
	}
	sort.SliceStable(names, func(i, j int) bool {
		a, b := fileNumber(names[i]), fileNumber(names[j])
		if a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	for i, n := range names {
		names[i] = filepath.Join(dir, n)
	}
	return names, nil
}

// readField returns the values of the one-component array called name in the FIELD block of a
// legacy binary VTK file (big-endian, as the format prescribes), as float64.
func readField(path, name string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := parseField(bufio.NewReader(f), name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// heapStats is what -heap prints for one file.
type heapStats struct {
	n                 int
	top, median, spin float64
}

// readHeap reads a file's points and velocities and returns the highest y, the median
// horizontal distance from the vertical axis through the mean x and z, and the angular
// momentum about that axis per particle.
func readHeap(path string) (heapStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return heapStats{}, err
	}
	defer f.Close()
	x, v, err := parseArrays(bufio.NewReader(f), "velocity", 3, true)
	if err != nil {
		return heapStats{}, fmt.Errorf("%s: %w", path, err)
	}
	n := len(x) / 3
	if n == 0 || len(v) != len(x) {
		return heapStats{}, fmt.Errorf("%s: %d points and %d velocities", path, n, len(v)/3)
	}
	var cx, cz float64
	h := heapStats{n: n, top: math.Inf(-1)}
	for i := 0; i < n; i++ {
		cx += x[3*i] / float64(n)
		cz += x[3*i+2] / float64(n)
		h.top = max(h.top, x[3*i+1])
	}
	d := make([]float64, n)
	for i := 0; i < n; i++ {
		dx, dz := x[3*i]-cx, x[3*i+2]-cz
		d[i] = math.Hypot(dx, dz)
		h.spin += dz*v[3*i] - dx*v[3*i+2]
	}
	h.spin /= float64(n)
	sort.Float64s(d)
	h.median = d[n/2]
	return h, nil
}

// typeSize is the byte size of a legacy VTK data type name.
func typeSize(t string) (int, error) {
	switch t {
	case "float", "int", "unsigned_int":
		return 4, nil
	case "double", "long", "unsigned_long":
		return 8, nil
	case "short", "unsigned_short":
		return 2, nil
	case "char", "unsigned_char", "bit":
		return 1, nil
	}
	return 0, fmt.Errorf("unknown data type %q", t)
}

// parseField walks the sections of a legacy binary VTK unstructured grid of points (header,
// POINTS, CELLS, CELL_TYPES, POINT_DATA with SCALARS and FIELD arrays) and decodes the
// one-component float or double array (a FIELD array or SCALARS) called name.
func parseField(r *bufio.Reader, name string) ([]float64, error) {
	_, v, err := parseArrays(r, name, 1, false)
	return v, err
}

// parseArrays is parseField for an array of want components (its values in tuple order),
// and with points the POINTS too (x, y, z per point), which come before it.
func parseArrays(r *bufio.Reader, name string, want int64, points bool) (pts, arr []float64, err error) {
	line := func() ([]string, error) {
		// Binary blocks end in a newline before the next keyword; blank lines are skipped.
		for {
			s, err := r.ReadString('\n')
			if err != nil && (err != io.EOF || s == "") {
				return nil, err
			}
			if f := strings.Fields(s); len(f) > 0 {
				return f, nil
			}
			if err == io.EOF {
				return nil, io.EOF
			}
		}
	}
	skip := func(n int64) error {
		_, err := io.CopyN(io.Discard, r, n)
		return err
	}
	atoi := func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }

	head := make([]string, 0, 4)
	for i := 0; i < 3; i++ {
		s, err := r.ReadString('\n')
		if err != nil {
			return nil, nil, fmt.Errorf("header: %w", err)
		}
		head = append(head, strings.TrimSpace(s))
	}
	if !strings.HasPrefix(head[0], "# vtk DataFile") {
		return nil, nil, errors.New("not a legacy VTK file")
	}
	if head[2] != "BINARY" {
		return nil, nil, fmt.Errorf("format %q, want BINARY", head[2])
	}
	fieldArrays := int64(-1) // arrays left in the current FIELD block, -1 outside one
	pointData := int64(-1)   // the POINT_DATA count, -1 before that line
	for {
		f, err := line()
		if err == io.EOF {
			return nil, nil, fmt.Errorf("no array %q", name)
		}
		if err != nil {
			return nil, nil, err
		}
		if fieldArrays > 0 {
			// An array of a FIELD block: NAME COMPONENTS TUPLES TYPE.
			if len(f) != 4 {
				return nil, nil, fmt.Errorf("field array line %q", strings.Join(f, " "))
			}
			comps, err1 := atoi(f[1])
			tuples, err2 := atoi(f[2])
			size, err3 := typeSize(f[3])
			if err := errors.Join(err1, err2, err3); err != nil {
				return nil, nil, err
			}
			fieldArrays--
			if f[0] != name {
				if err := skip(comps * tuples * int64(size)); err != nil {
					return nil, nil, err
				}
				continue
			}
			if comps != want {
				return nil, nil, fmt.Errorf("array %q has %d components, want %d", name, comps, want)
			}
			arr, err := decode(r, comps*tuples, f[3])
			return pts, arr, err
		}
		switch f[0] {
		case "DATASET", "CELL_DATA":
		case "POINT_DATA":
			if len(f) != 2 {
				return nil, nil, fmt.Errorf("POINT_DATA line %q", strings.Join(f, " "))
			}
			if pointData, err = atoi(f[1]); err != nil {
				return nil, nil, err
			}
		case "POINTS":
			if len(f) != 3 {
				return nil, nil, fmt.Errorf("POINTS line %q", strings.Join(f, " "))
			}
			n, err := atoi(f[1])
			size, err2 := typeSize(f[2])
			if err := errors.Join(err, err2); err != nil {
				return nil, nil, err
			}
			if points {
				if pts, err = decode(r, 3*n, f[2]); err != nil {
					return nil, nil, err
				}
			} else if err := skip(3 * n * int64(size)); err != nil {
				return nil, nil, err
			}
		case "CELLS":
			if len(f) != 3 {
				return nil, nil, fmt.Errorf("CELLS line %q", strings.Join(f, " "))
			}
			size, err := atoi(f[2])
			if err != nil {
				return nil, nil, err
			}
			if err := skip(4 * size); err != nil {
				return nil, nil, err
			}
		case "CELL_TYPES":
			n, err := atoi(f[1])
			if err != nil {
				return nil, nil, err
			}
			if err := skip(4 * n); err != nil {
				return nil, nil, err
			}
		case "SCALARS":
			// SCALARS NAME TYPE [COMPONENTS], then a LOOKUP_TABLE line, then POINT_DATA tuples.
			if len(f) < 3 || len(f) > 4 || pointData < 0 {
				return nil, nil, fmt.Errorf("SCALARS line %q (or no POINT_DATA before it)", strings.Join(f, " "))
			}
			comps := int64(1)
			if len(f) == 4 {
				if comps, err = atoi(f[3]); err != nil {
					return nil, nil, err
				}
			}
			size, err := typeSize(f[2])
			if err != nil {
				return nil, nil, err
			}
			if t, err := line(); err != nil || t[0] != "LOOKUP_TABLE" {
				return nil, nil, fmt.Errorf("SCALARS %s: no LOOKUP_TABLE line", f[1])
			}
			if f[1] == name && comps == want {
				arr, err := decode(r, comps*pointData, f[2])
				return pts, arr, err
			}
			if err := skip(comps * pointData * int64(size)); err != nil {
				return nil, nil, err
			}
		case "FIELD":
			if len(f) != 3 {
				return nil, nil, fmt.Errorf("FIELD line %q", strings.Join(f, " "))
			}
			if fieldArrays, err = atoi(f[2]); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("unexpected line %q", strings.Join(f, " "))
		}
	}
}

// decode reads n big-endian values of type t ("float" or "double") from r.
func decode(r io.Reader, n int64, t string) ([]float64, error) {
	out := make([]float64, n)
	switch t {
	case "float":
		buf := make([]byte, 4*n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.BigEndian.Uint32(buf[4*i:])))
		}
	case "double":
		buf := make([]byte, 8*n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = math.Float64frombits(binary.BigEndian.Uint64(buf[8*i:]))
		}
	default:
		return nil, fmt.Errorf("array of type %q, want float or double", t)
	}
	return out, nil
}
