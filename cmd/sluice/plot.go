package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// defaultPlotKeys are the statistics `sluice plot` draws when --keys is not given: the density
// error as the solver estimates it and as measured, the pressure iterations, the substeps and
// their length, the kinetic energy, the fastest particle and the step's wall time, and the
// stages' times (stageMs, one line per stage).
var defaultPlotKeys = []string{"densityErrorAvg", "densityErrorMeasuredAvg", "pressureIterations", "substeps", "dt", "kineticEnergy", "maxSpeed", "wallMs", "stageMs"}

// plotSeries is one chart's lines: a name per line and its values, one per stats line.
type plotSeries struct {
	key   string
	names []string
	ys    [][]float64
}

// cmdPlot reads a stats file (JSON lines, as `sluice run --stats` writes them) and writes an
// SVG with one chart per key against the simulated time t.
func cmdPlot(args []string, stdout, stderr io.Writer) error {
	pos, flagArgs := splitArgs(args)
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "the SVG file to write (default: the stats file with .svg)")
	keyList := fs.String("keys", "", "the statistics to draw, comma-separated (numbers, or stageMs; default "+strings.Join(defaultPlotKeys, ",")+")")
	if err := fs.Parse(flagArgs); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if len(pos) != 1 {
		return errors.New("plot takes one stats file (JSON lines from sluice run --stats)")
	}
	keys := defaultPlotKeys
	if *keyList != "" {
		keys = nil
		for _, k := range strings.Split(*keyList, ",") {
			if k = strings.TrimSpace(k); k != "" {
				keys = append(keys, k)
			}
		}
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	var ts []float64
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return fmt.Errorf("%s:%d: %v", pos[0], n, err)
		}
		t, ok := m["t"].(float64)
		if !ok {
			return fmt.Errorf("%s:%d: no time t: not a line of sluice run --stats", pos[0], n)
		}
		ts = append(ts, t)
		lines = append(lines, m)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("%s: no statistics in it", pos[0])
	}
	var series []plotSeries
	for _, k := range keys {
		s, err := seriesOf(k, lines)
		if err != nil {
			return err
		}
		series = append(series, s)
	}
	path := *out
	if path == "" {
		path = strings.TrimSuffix(pos[0], ".jsonl") + ".svg"
	}
	if err := makeParent(path, stderr); err != nil {
		return err
	}
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	writeSVG(bw, pos[0], ts, series)
	if err := bw.Flush(); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d charts of %d steps (t = %g to %g s)\n", path, len(series), len(ts), ts[0], ts[len(ts)-1])
	return nil
}

// seriesOf collects key over the lines: a number (a missing value, as omitempty leaves it,
// counts as 0) or, for stageMs, one line per stage.
func seriesOf(key string, lines []map[string]any) (plotSeries, error) {
	s := plotSeries{key: key}
	if key == "stageMs" {
		var names []string
		for _, m := range lines {
			if st, ok := m["stageMs"].(map[string]any); ok {
				for name := range st {
					if !slices.Contains(names, name) {
						names = append(names, name)
					}
				}
			}
		}
		slices.Sort(names)
		for _, name := range names {
			ys := make([]float64, len(lines))
			for i, m := range lines {
				if st, ok := m["stageMs"].(map[string]any); ok {
					ys[i], _ = st[name].(float64)
				}
			}
			s.names, s.ys = append(s.names, name), append(s.ys, ys)
		}
		return s, nil
	}
	ys := make([]float64, len(lines))
	seen := false
	for i, m := range lines {
		v, ok := m[key]
		if !ok {
			continue
		}
		x, isNum := v.(float64)
		if !isNum {
			return s, fmt.Errorf("--keys: %q is not a number in the statistics (got %v)", key, v)
		}
		ys[i], seen = x, true
	}
	if !seen {
		var have []string
		for k, v := range lines[0] {
			if _, ok := v.(float64); ok {
				have = append(have, k)
			}
		}
		slices.Sort(have)
		return s, fmt.Errorf("--keys: no statistic %q in the file (numbers there: %s, and stageMs)", key, strings.Join(have, ", "))
	}
	s.names, s.ys = []string{key}, [][]float64{ys}
	return s, nil
}

// Chart geometry (SVG user units).
const (
	plotW, plotH   = 720.0, 160.0 // a chart's plotting area
	plotLeft       = 90.0
	plotTop        = 40.0
	plotGap        = 60.0 // between charts (their titles)
	plotRightSpace = 160.0
)

// plotColors are the lines' colours in order.
var plotColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

// writeSVG draws the charts stacked: each with its title, its y range (the lines' min and
// max, written at the axis) and the time range, a polyline per line, a legend.
func writeSVG(w io.Writer, title string, ts []float64, series []plotSeries) {
	height := plotTop + float64(len(series))*(plotH+plotGap)
	fmt.Fprintf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\" font-size=\"12\">\n", plotLeft+plotW+plotRightSpace, height)
	fmt.Fprintf(w, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%g\" y=\"20\" font-size=\"14\">%s</text>\n", plotLeft, xmlText(title))
	t0, t1 := ts[0], ts[len(ts)-1]
	if t1 <= t0 {
		t1 = t0 + 1
	}
	for k, s := range series {
		top := plotTop + float64(k)*(plotH+plotGap) + 20
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, ys := range s.ys {
			for _, y := range ys {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
		if len(s.ys) == 0 {
			lo, hi = 0, 1
		}
		if hi <= lo {
			hi = lo + 1
		}
		fmt.Fprintf(w, "<g class=\"chart\" data-key=\"%s\" data-min=\"%s\" data-max=\"%s\">\n", xmlText(s.key), num(lo), num(hi))
		fmt.Fprintf(w, "<text x=\"%g\" y=\"%g\" font-size=\"13\">%s</text>\n", plotLeft, top-8, xmlText(s.key))
		fmt.Fprintf(w, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#999\"/>\n", plotLeft, top, plotW, plotH)
		fmt.Fprintf(w, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%s</text>\n", plotLeft-6, top+10, num(hi))
		fmt.Fprintf(w, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%s</text>\n", plotLeft-6, top+plotH, num(lo))
		fmt.Fprintf(w, "<text x=\"%g\" y=\"%g\">t = %s s</text>\n", plotLeft, top+plotH+16, num(t0))
		fmt.Fprintf(w, "<text x=\"%g\" y=\"%g\" text-anchor=\"end\">%s s</text>\n", plotLeft+plotW, top+plotH+16, num(t1))
		for i, ys := range s.ys {
			color := plotColors[i%len(plotColors)]
			fmt.Fprintf(w, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" data-name=\"%s\" points=\"", color, xmlText(s.names[i]))
			for j, y := range ys {
				x := plotLeft + (ts[j]-t0)/(t1-t0)*plotW
				yy := top + plotH - (y-lo)/(hi-lo)*plotH
				fmt.Fprintf(w, "%.2f,%.2f ", x, yy)
			}
			fmt.Fprint(w, "\"/>\n")
			fmt.Fprintf(w, "<text x=\"%g\" y=\"%g\" fill=\"%s\">%s</text>\n", plotLeft+plotW+10, top+14+float64(i)*15, color, xmlText(s.names[i]))
		}
		fmt.Fprint(w, "</g>\n")
	}
	fmt.Fprint(w, "</svg>\n")
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\"", "&quot;").Replace(s)
}
