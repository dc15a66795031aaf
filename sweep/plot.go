package sweep

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ftlsim/ftlsim/internal/atomicfile"
)

// This file holds what a study chart shows: its specification, its
// checks, and the table's metric aggregated into the chart's cells. The
// drawing is in plotdraw.go.

// PlotSpec says what a study chart draws.
//
// A line chart draws Metric against X, a line per value of Series, a
// panel per value of Facet. A heatmap (Heatmap) draws a grid of X
// against Series, each cell coloured by Metric and carrying its value,
// a panel per value of Facet. Every axis of the table not named is
// aggregated: a plotted value is the mean over the results that share
// the named coordinates (repetitions, or axes left out), and line charts
// draw the range from the smallest to the largest as an error bar where
// more than one result went into a point.
//
// Values of a numeric axis (every value a number) are sorted
// numerically, and a numeric X is a linear scale; other axes keep the
// order in which their values first appear in the table (the study's
// order), and X is then a scale of categories.
type PlotSpec struct {
	// Metric is the plotted value, a name in Table.Metrics; required.
	Metric string
	// X is the axis along the horizontal scale; required.
	X string
	// Series, when set, is the axis whose values are a line each (a
	// row each in a heatmap, where it is required).
	Series string
	// Facet, when set, is the axis whose values are a panel each, in a
	// grid; the panels share their scales.
	Facet string
	// Heatmap draws X against Series as a grid of coloured cells.
	Heatmap bool
	// Title is the chart's title (default: the metric and the axes).
	Title string
}

// String describes the chart in the words of its default title:
// "steady_iops by op and gc_policy, per dies (heatmap)".
func (s PlotSpec) String() string {
	var b strings.Builder
	b.WriteString(s.Metric + " by " + s.X)
	if s.Series != "" {
		b.WriteString(" and " + s.Series)
	}
	if s.Facet != "" {
		b.WriteString(", per " + s.Facet)
	}
	if s.Heatmap {
		b.WriteString(" (heatmap)")
	}
	return b.String()
}

// Name is a file name for the chart, without an extension, made of the
// metric and the axes: "steady_iops-op-gc_policy-dies", with "-heatmap"
// for a heatmap. Characters other than letters, digits, '.', '_' and
// '-' become '_'.
func (s PlotSpec) Name() string {
	parts := []string{s.Metric, s.X}
	for _, p := range []string{s.Series, s.Facet} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if s.Heatmap {
		parts = append(parts, "heatmap")
	}
	name := strings.Join(parts, "-")
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, name)
}

// Check reports whether the table can draw spec: a known metric, known
// and distinct axes, and a series for a heatmap. Its errors wrap
// ErrStudy and list the allowed names.
func (t *Table) Check(spec PlotSpec) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: plot: %s", ErrStudy, fmt.Sprintf(format, a...))
	}
	metrics := "none: the table has no metrics"
	if len(t.Metrics) > 0 {
		metrics = strings.Join(t.Metrics, ", ")
	}
	axes := "none: the table has no axes"
	if len(t.Axes) > 0 {
		axes = strings.Join(t.Axes, ", ")
	}
	switch {
	case spec.Metric == "":
		return bad("no metric given; allowed: %s", metrics)
	case !slices.Contains(t.Metrics, spec.Metric):
		return bad("unknown metric %q; allowed: %s", spec.Metric, metrics)
	case spec.X == "":
		return bad("no x axis given; allowed: %s", axes)
	case spec.Heatmap && spec.Series == "":
		return bad("a heatmap needs a series axis (its rows) besides x; allowed: %s", axes)
	}
	used := map[string]string{}
	for _, r := range []struct{ role, axis string }{{"x", spec.X}, {"series", spec.Series}, {"facet", spec.Facet}} {
		if r.axis == "" {
			continue
		}
		if !slices.Contains(t.Axes, r.axis) {
			return bad("unknown %s axis %q; allowed: %s", r.role, r.axis, axes)
		}
		if other, ok := used[r.axis]; ok {
			return bad("axis %q given twice (as %s and as %s); each axis may have one role", r.axis, other, r.role)
		}
		used[r.axis] = r.role
	}
	return nil
}

// Grid is a table's metric aggregated for a chart: the results that
// share a facet, series and x value make one cell.
type Grid struct {
	// Spec is the chart's specification.
	Spec PlotSpec
	// X are the x values in the chart's order; XNumeric says they are
	// all numbers (a linear scale), XValues gives them as numbers then.
	X        []string
	XNumeric bool
	XValues  []float64
	// Series and Facets are the series' and the panels' values in the
	// chart's order; [""] without a series or facet axis.
	Series []string
	Facets []string
	// Over are the axes aggregated over (those the spec does not name),
	// in the table's order.
	Over []string
	// Cells are indexed [facet][series][x].
	Cells [][][]Cell
}

// Cell is the metric over the results at one facet, series and x value.
type Cell struct {
	// N is the number of results that have the metric; with none, the
	// other fields are NaN.
	N int
	// Mean, Min and Max are the metric's mean, smallest and largest.
	Mean, Min, Max float64
}

// At returns the cell at the given values ("" for an axis the spec does
// not have), and whether those values are in the grid.
func (g *Grid) At(facet, series, x string) (Cell, bool) {
	f, s, i := slices.Index(g.Facets, facet), slices.Index(g.Series, series), slices.Index(g.X, x)
	if f < 0 || s < 0 || i < 0 {
		return Cell{}, false
	}
	return g.Cells[f][s][i], true
}

// Range returns the smallest Min and the largest Max of the cells that
// have results (NaN, NaN when none has).
func (g *Grid) Range() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, f := range g.Cells {
		for _, s := range f {
			for _, c := range s {
				if c.N > 0 {
					lo, hi = math.Min(lo, c.Min), math.Max(hi, c.Max)
				}
			}
		}
	}
	if lo > hi {
		return math.NaN(), math.NaN()
	}
	return lo, hi
}

// MaxN is the largest number of results in one cell.
func (g *Grid) MaxN() int {
	n := 0
	for _, f := range g.Cells {
		for _, s := range f {
			for _, c := range s {
				n = max(n, c.N)
			}
		}
	}
	return n
}

// Aggregate checks spec (Check) and returns the table's metric in the
// chart's cells. A result without the metric, or with a value that is
// not finite, counts in no cell; a result without a coordinate on a
// named axis is an error.
func (t *Table) Aggregate(spec PlotSpec) (*Grid, error) {
	if err := t.Check(spec); err != nil {
		return nil, err
	}
	g := &Grid{Spec: spec, Series: []string{""}, Facets: []string{""}}
	g.X, g.XNumeric = t.axisValues(spec.X)
	if g.XNumeric {
		for _, v := range g.X {
			f, _ := strconv.ParseFloat(v, 64)
			g.XValues = append(g.XValues, f)
		}
	}
	if spec.Series != "" {
		g.Series, _ = t.axisValues(spec.Series)
	}
	if spec.Facet != "" {
		g.Facets, _ = t.axisValues(spec.Facet)
	}
	for _, a := range t.Axes {
		if a != spec.X && a != spec.Series && a != spec.Facet {
			g.Over = append(g.Over, a)
		}
	}
	type acc struct {
		n             int
		sum, min, max float64
	}
	accs := make([]acc, len(g.Facets)*len(g.Series)*len(g.X))
	for _, r := range t.Results {
		v, ok := r.Metrics[spec.Metric]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		idx := [3]int{}
		for k, a := range []struct {
			axis   string
			values []string
		}{{spec.Facet, g.Facets}, {spec.Series, g.Series}, {spec.X, g.X}} {
			if a.axis == "" {
				continue
			}
			c, ok := r.Coords.Get(a.axis)
			if !ok {
				return nil, fmt.Errorf("%w: plot: point %d has no coordinate on axis %q", ErrStudy, r.Point, a.axis)
			}
			idx[k] = slices.Index(a.values, c)
		}
		p := &accs[(idx[0]*len(g.Series)+idx[1])*len(g.X)+idx[2]]
		if p.n == 0 {
			p.min, p.max = v, v
		}
		p.n++
		p.sum += v
		p.min, p.max = math.Min(p.min, v), math.Max(p.max, v)
	}
	g.Cells = make([][][]Cell, len(g.Facets))
	for f := range g.Facets {
		g.Cells[f] = make([][]Cell, len(g.Series))
		for s := range g.Series {
			row := make([]Cell, len(g.X))
			for i := range row {
				a := accs[(f*len(g.Series)+s)*len(g.X)+i]
				row[i] = Cell{N: a.n, Mean: math.NaN(), Min: math.NaN(), Max: math.NaN()}
				if a.n > 0 {
					row[i].Mean, row[i].Min, row[i].Max = a.sum/float64(a.n), a.min, a.max
				}
			}
			g.Cells[f][s] = row
		}
	}
	return g, nil
}

// axisValues returns axis's distinct values in the table: sorted
// numerically when every one is a number (numeric), else in the order
// in which they first appear.
func (t *Table) axisValues(axis string) (values []string, numeric bool) {
	seen := map[string]bool{}
	for _, r := range t.Results {
		if v, ok := r.Coords.Get(axis); ok && !seen[v] {
			seen[v] = true
			values = append(values, v)
		}
	}
	nums := make(map[string]float64, len(values))
	for _, v := range values {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return values, false
		}
		nums[v] = f
	}
	slices.SortStableFunc(values, func(a, b string) int {
		switch {
		case nums[a] < nums[b]:
			return -1
		case nums[a] > nums[b]:
			return 1
		}
		return 0
	})
	return values, len(values) > 0
}

// DefaultPlots returns the charts a study's table is first looked at
// with. For the first of steady_iops, iops, write_iops and read_iops the
// table has (else its first metric), and for wa when it has it: a line
// chart against the first axis with numeric values (else the first
// axis), a line per value of the next axis and a panel per value of the
// one after; and, when two or more axes have two or more values each, a
// heatmap of the first metric over the line chart's x and series. Axes
// with one value and repetitions ("rep") are left to the aggregation
// when other axes vary. A metric of a multi-job study, "job/name",
// counts as name when no metric is called name exactly.
func DefaultPlots(t *Table) []PlotSpec {
	var metrics []string
	for _, m := range []string{"steady_iops", "iops", "write_iops", "read_iops"} {
		if n, ok := t.findMetric(m); ok {
			metrics = append(metrics, n)
			break
		}
	}
	if len(metrics) == 0 && len(t.Metrics) > 0 {
		metrics = append(metrics, t.Metrics[0])
	}
	if n, ok := t.findMetric("wa"); ok && !slices.Contains(metrics, n) {
		metrics = append(metrics, n)
	}
	// The axes to draw along: those that vary, repetitions last resort.
	var varying, others []string
	numeric := map[string]bool{}
	for _, a := range t.Axes {
		vs, num := t.axisValues(a)
		numeric[a] = num
		switch {
		case a == "rep":
		case len(vs) >= 2:
			varying = append(varying, a)
		default:
			others = append(others, a)
		}
	}
	axes := varying
	if len(axes) == 0 {
		axes = others
	}
	if len(axes) == 0 && slices.Contains(t.Axes, "rep") {
		axes = []string{"rep"}
	}
	if len(metrics) == 0 || len(axes) == 0 {
		return nil
	}
	x := axes[0]
	for _, a := range axes {
		if numeric[a] {
			x = a
			break
		}
	}
	rest := slices.DeleteFunc(slices.Clone(axes), func(a string) bool { return a == x })
	line := PlotSpec{X: x}
	if len(rest) > 0 {
		line.Series = rest[0]
	}
	if len(rest) > 1 {
		line.Facet = rest[1]
	}
	var specs []PlotSpec
	for _, m := range metrics {
		s := line
		s.Metric = m
		specs = append(specs, s)
	}
	if len(varying) >= 2 {
		h := line
		h.Metric, h.Heatmap = metrics[0], true
		specs = append(specs, h)
	}
	return specs
}

// findMetric returns the table's metric called name, or else the first
// called "job/name".
func (t *Table) findMetric(name string) (string, bool) {
	if slices.Contains(t.Metrics, name) {
		return name, true
	}
	for _, m := range t.Metrics {
		if strings.HasSuffix(m, "/"+name) {
			return m, true
		}
	}
	return "", false
}

// plotFormats are the formats WritePlot draws.
var plotFormats = []string{"svg", "png", "pdf"}

// WritePlot draws spec as format ("svg", "png" or "pdf") to w. The chart
// is drawn in memory first: on an error nothing is written. SVG is the
// same bytes for the same table and spec; PNG is on one machine (its
// pixels come from floating-point rasterisation), and PDF never is (the
// PDF library stamps the time of writing).
func (t *Table) WritePlot(w io.Writer, format string, spec PlotSpec) error {
	if !slices.Contains(plotFormats, format) {
		return fmt.Errorf("%w: plot: unknown format %q; allowed: %s", ErrStudy, format, strings.Join(plotFormats, ", "))
	}
	g, err := t.Aggregate(spec)
	if err != nil {
		return err
	}
	b, err := g.figure().render(format)
	if err != nil {
		return fmt.Errorf("plot %s: %w", spec.Name(), err)
	}
	_, err = w.Write(b)
	return err
}

// SavePlot draws spec to file, in the format its extension names (.svg,
// .png or .pdf). The file is written whole or not at all
// (internal/atomicfile).
func (t *Table) SavePlot(file string, spec PlotSpec) error {
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(file), "."))
	if !slices.Contains(plotFormats, format) {
		return fmt.Errorf("%w: plot: %s: unknown extension; allowed: .%s", ErrStudy, file, strings.Join(plotFormats, ", ."))
	}
	var b bytes.Buffer
	if err := t.WritePlot(&b, format, spec); err != nil {
		return err
	}
	return atomicfile.WriteFile(file, b.Bytes())
}
