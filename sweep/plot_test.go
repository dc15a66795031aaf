package sweep

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The study the tests plot: op 7/12/25/28 × dies 16/8/32 (written out of
// numeric order, as a study may) × gc greedy/cost-benefit × 3
// repetitions, with metrics from formulas.
var (
	testOps   = []string{"7", "12", "25", "28"}
	testDies  = []string{"16", "8", "32"}
	testGCs   = []string{"greedy", "cost-benefit"}
	testAxes  = []string{"op", "nand.geometry.dies", "gc_policy", "rep"}
	testReps  = 3
	testSpare = 500.0 // cost-benefit's IOPS over greedy's
)

// testIOPS is the formula for iops: base plus 10 per repetition past the
// middle one, so that over the repetitions the mean is the base, the
// minimum base-10 and the maximum base+10.
func testIOPS(op, dies float64, gc string, rep int) float64 {
	v := 1000*op + 100*dies + 10*float64(rep-1)
	if gc == "cost-benefit" {
		v += testSpare
	}
	return v
}

// testWA is the formula for wa: 1 + 10/op, plus 0.01 per repetition.
func testWA(op float64, rep int) float64 { return 1 + 10/op + 0.01*float64(rep) }

// testTable builds the study's table by hand; drop, when set, decides
// which results lack iops.
func testTable(t *testing.T, drop func(op, dies, gc string, rep int) bool) *Table {
	t.Helper()
	var rs []Result
	for _, op := range testOps {
		for _, d := range testDies {
			for _, gc := range testGCs {
				for rep := range testReps {
					o, _ := strconv.ParseFloat(op, 64)
					n, _ := strconv.ParseFloat(d, 64)
					m := map[string]float64{"wa": testWA(o, rep), "erases": 1}
					if drop == nil || !drop(op, d, gc, rep) {
						m["iops"] = testIOPS(o, n, gc, rep)
					}
					rs = append(rs, Result{Point: len(rs), Hash: strconv.Itoa(len(rs)), Metrics: m,
						Coords: Coords{{"op", op}, {"nand.geometry.dies", d}, {"gc_policy", gc}, {"rep", strconv.Itoa(rep)}}})
				}
			}
		}
	}
	tab, err := NewTable(testAxes, rs)
	require.NoError(t, err)
	return tab
}

func TestPlotCheck(t *testing.T) {
	tab := testTable(t, nil)
	for _, c := range []struct {
		name string
		spec PlotSpec
		want []string // in the error
	}{
		{"no metric", PlotSpec{X: "op"}, []string{"no metric", "allowed: erases, iops, wa"}},
		{"unknown metric", PlotSpec{Metric: "steady_iops", X: "op"}, []string{`unknown metric "steady_iops"`, "allowed: erases, iops, wa"}},
		{"no x", PlotSpec{Metric: "iops"}, []string{"no x axis", "allowed: op, nand.geometry.dies, gc_policy, rep"}},
		{"unknown x", PlotSpec{Metric: "iops", X: "dies"}, []string{`unknown x axis "dies"`, "allowed: op, nand.geometry.dies, gc_policy, rep"}},
		{"unknown series", PlotSpec{Metric: "iops", X: "op", Series: "gc"}, []string{`unknown series axis "gc"`, "allowed: op,"}},
		{"unknown facet", PlotSpec{Metric: "iops", X: "op", Facet: "ops"}, []string{`unknown facet axis "ops"`}},
		{"x twice", PlotSpec{Metric: "iops", X: "op", Series: "op"}, []string{`axis "op" given twice (as x and as series)`}},
		{"facet twice", PlotSpec{Metric: "iops", X: "op", Series: "rep", Facet: "rep"}, []string{`axis "rep" given twice (as series and as facet)`}},
		{"heatmap without series", PlotSpec{Metric: "iops", X: "op", Heatmap: true}, []string{"heatmap needs a series axis"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := tab.Check(c.spec)
			require.ErrorIs(t, err, ErrStudy)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
			_, aerr := tab.Aggregate(c.spec)
			assert.Equal(t, err, aerr, "Aggregate checks the spec first")
			assert.Equal(t, err, tab.WritePlot(&bytes.Buffer{}, "svg", c.spec), "WritePlot checks the spec first")
		})
	}
	assert.NoError(t, tab.Check(PlotSpec{Metric: "iops", X: "op", Series: "gc_policy", Facet: "nand.geometry.dies", Heatmap: true}))
}

func TestAggregateMeansOverRepetitions(t *testing.T) {
	tab := testTable(t, nil)
	g, err := tab.Aggregate(PlotSpec{Metric: "iops", X: "op", Series: "gc_policy", Facet: "nand.geometry.dies"})
	require.NoError(t, err)
	assert.True(t, g.XNumeric)
	assert.Equal(t, []string{"7", "12", "25", "28"}, g.X)
	assert.Equal(t, []float64{7, 12, 25, 28}, g.XValues)
	assert.Equal(t, []string{"8", "16", "32"}, g.Facets, "numeric axes sort numerically")
	assert.Equal(t, []string{"greedy", "cost-benefit"}, g.Series, "categories keep the study's order")
	assert.Equal(t, []string{"rep"}, g.Over)
	assert.Equal(t, 3, g.MaxN())
	for _, op := range testOps {
		for _, d := range testDies {
			for _, gc := range testGCs {
				c, ok := g.At(d, gc, op)
				require.True(t, ok)
				o, _ := strconv.ParseFloat(op, 64)
				n, _ := strconv.ParseFloat(d, 64)
				base := testIOPS(o, n, gc, 1)
				assert.Equal(t, 3, c.N)
				assert.InDelta(t, base, c.Mean, 1e-9, "op=%s dies=%s gc=%s", op, d, gc)
				assert.Equal(t, base-10, c.Min)
				assert.Equal(t, base+10, c.Max)
			}
		}
	}
	lo, hi := g.Range()
	assert.Equal(t, testIOPS(7, 8, "greedy", 0), lo)
	assert.Equal(t, testIOPS(28, 32, "cost-benefit", 2), hi)
	_, ok := g.At("8", "greedy", "13")
	assert.False(t, ok)
}

func TestAggregateOverSeveralAxes(t *testing.T) {
	tab := testTable(t, nil)
	g, err := tab.Aggregate(PlotSpec{Metric: "iops", X: "gc_policy"})
	require.NoError(t, err)
	assert.False(t, g.XNumeric)
	assert.Nil(t, g.XValues)
	assert.Equal(t, []string{"greedy", "cost-benefit"}, g.X)
	assert.Equal(t, []string{""}, g.Series)
	assert.Equal(t, []string{""}, g.Facets)
	assert.Equal(t, []string{"op", "nand.geometry.dies", "rep"}, g.Over)
	for _, gc := range testGCs {
		var sum float64
		lo, hi := math.Inf(1), math.Inf(-1)
		n := 0
		for _, op := range []float64{7, 12, 25, 28} {
			for _, d := range []float64{8, 16, 32} {
				for rep := range testReps {
					v := testIOPS(op, d, gc, rep)
					sum, n = sum+v, n+1
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
		c, ok := g.At("", "", gc)
		require.True(t, ok)
		assert.Equal(t, n, c.N)
		assert.InDelta(t, sum/float64(n), c.Mean, 1e-9)
		assert.Equal(t, lo, c.Min)
		assert.Equal(t, hi, c.Max)
	}
}

func TestAggregateSkipsResultsWithoutTheMetric(t *testing.T) {
	// op 7 with 8 dies has no iops at all; op 12 has it in repetition 0 only.
	tab := testTable(t, func(op, dies, gc string, rep int) bool {
		return (op == "7" && dies == "8") || (op == "12" && rep > 0)
	})
	g, err := tab.Aggregate(PlotSpec{Metric: "iops", X: "op", Series: "nand.geometry.dies", Facet: "gc_policy"})
	require.NoError(t, err)
	c, _ := g.At("greedy", "8", "7")
	assert.Equal(t, 0, c.N)
	assert.True(t, math.IsNaN(c.Mean) && math.IsNaN(c.Min) && math.IsNaN(c.Max))
	c, _ = g.At("greedy", "16", "12")
	assert.Equal(t, Cell{N: 1, Mean: testIOPS(12, 16, "greedy", 0), Min: testIOPS(12, 16, "greedy", 0), Max: testIOPS(12, 16, "greedy", 0)}, c)
	c, _ = g.At("cost-benefit", "32", "25")
	assert.Equal(t, 3, c.N)
	assert.Equal(t, "mean over rep (1–3 results a point); bars: min–max", g.note())
	// Still drawable: the empty cell breaks greedy's 8-die line.
	require.NoError(t, tab.WritePlot(&bytes.Buffer{}, "svg", g.Spec))
	h := g.Spec
	h.Heatmap = true
	require.NoError(t, tab.WritePlot(&bytes.Buffer{}, "svg", h))
}

func TestAggregateHeatmapGrid(t *testing.T) {
	tab := testTable(t, nil)
	spec := PlotSpec{Metric: "wa", X: "op", Series: "nand.geometry.dies", Facet: "gc_policy", Heatmap: true}
	g, err := tab.Aggregate(spec)
	require.NoError(t, err)
	assert.Equal(t, []string{"greedy", "cost-benefit"}, g.Facets)
	assert.Equal(t, []string{"8", "16", "32"}, g.Series)
	require.Len(t, g.Cells, 2)
	for f := range g.Facets {
		require.Len(t, g.Cells[f], 3)
		for s := range g.Series {
			require.Len(t, g.Cells[f][s], 4)
			for i, op := range g.XValues {
				c := g.Cells[f][s][i]
				assert.Equal(t, 3, c.N)
				assert.InDelta(t, testWA(op, 1), c.Mean, 1e-12, "op=%g", op)
				assert.InDelta(t, testWA(op, 0), c.Min, 1e-12)
				assert.InDelta(t, testWA(op, 2), c.Max, 1e-12)
			}
		}
	}
	assert.Equal(t, "mean over rep (3 results a point)", g.note())
}

func TestAggregateNeedsCoordinates(t *testing.T) {
	tab := testTable(t, nil)
	tab.Results[5].Coords = tab.Results[5].Coords[:2] // no gc_policy, no rep
	_, err := tab.Aggregate(PlotSpec{Metric: "iops", X: "gc_policy"})
	require.ErrorIs(t, err, ErrStudy)
	assert.Contains(t, err.Error(), `point 5 has no coordinate on axis "gc_policy"`)
}

func TestDefaultPlots(t *testing.T) {
	tab := testTable(t, nil)
	assert.Equal(t, []PlotSpec{
		{Metric: "iops", X: "op", Series: "nand.geometry.dies", Facet: "gc_policy"},
		{Metric: "wa", X: "op", Series: "nand.geometry.dies", Facet: "gc_policy"},
		{Metric: "iops", X: "op", Series: "nand.geometry.dies", Facet: "gc_policy", Heatmap: true},
	}, DefaultPlots(tab))
	for _, s := range DefaultPlots(tab) {
		assert.NoError(t, tab.Check(s), "%v", s)
	}

	// The first numeric axis is x, even when a category axis comes first;
	// an axis with one value and the repetitions are aggregated;
	// steady_iops comes before iops; without wa there is no wa chart.
	one := func(axes []string, coords func(i int) Coords, metrics map[string]float64) *Table {
		var rs []Result
		for i := range 6 {
			rs = append(rs, Result{Point: i, Hash: strconv.Itoa(i), Coords: coords(i), Metrics: metrics})
		}
		tab, err := NewTable(axes, rs)
		require.NoError(t, err)
		return tab
	}
	tab = one([]string{"gc_policy", "drive", "op", "rep"}, func(i int) Coords {
		return Coords{{"gc_policy", testGCs[i%2]}, {"drive", "m4"}, {"op", strconv.Itoa(7 * (1 + i/2%3))}, {"rep", "0"}}
	}, map[string]float64{"iops": 1, "steady_iops": 2})
	assert.Equal(t, []PlotSpec{
		{Metric: "steady_iops", X: "op", Series: "gc_policy"},
		{Metric: "steady_iops", X: "op", Series: "gc_policy", Heatmap: true},
	}, DefaultPlots(tab))

	// Only categories: the first is x. A multi-job study's metrics count
	// by their name after the job's.
	tab = one([]string{"gc_policy", "drive"}, func(i int) Coords {
		return Coords{{"gc_policy", testGCs[i%2]}, {"drive", []string{"m4", "bp4", "atlas"}[i%3]}}
	}, map[string]float64{"fill/write_iops": 1, "fill/wa": 2})
	assert.Equal(t, []PlotSpec{
		{Metric: "fill/write_iops", X: "gc_policy", Series: "drive"},
		{Metric: "fill/wa", X: "gc_policy", Series: "drive"},
		{Metric: "fill/write_iops", X: "gc_policy", Series: "drive", Heatmap: true},
	}, DefaultPlots(tab))

	// One varying axis: no heatmap. Only repetitions: drawn against
	// them. Nothing to plot: none.
	tab = one([]string{"op", "drive"}, func(i int) Coords {
		return Coords{{"op", strconv.Itoa(i)}, {"drive", "m4"}}
	}, map[string]float64{"wa": 1})
	assert.Equal(t, []PlotSpec{{Metric: "wa", X: "op"}}, DefaultPlots(tab))
	tab = one([]string{"rep"}, func(i int) Coords { return Coords{{"rep", strconv.Itoa(i)}} }, map[string]float64{"erases": 3})
	assert.Equal(t, []PlotSpec{{Metric: "erases", X: "rep"}}, DefaultPlots(tab))
	assert.Empty(t, DefaultPlots(&Table{}))
}

func TestPlotSpecNames(t *testing.T) {
	s := PlotSpec{Metric: "fill/steady_iops", X: "op", Series: "nand.geometry.dies", Facet: "gc_policy", Heatmap: true}
	assert.Equal(t, "fill_steady_iops-op-nand.geometry.dies-gc_policy-heatmap", s.Name())
	assert.Equal(t, "fill/steady_iops by op and nand.geometry.dies, per gc_policy (heatmap)", s.String())
	assert.Equal(t, "wa-op", PlotSpec{Metric: "wa", X: "op"}.Name())
	assert.Equal(t, "wa by op", PlotSpec{Metric: "wa", X: "op"}.String())
}

// testSpecs are a chart of every kind.
var testSpecs = []PlotSpec{
	{Metric: "iops", X: "op", Series: "gc_policy", Facet: "nand.geometry.dies"},
	{Metric: "iops", X: "gc_policy", Series: "nand.geometry.dies", Title: "IOPS by GC policy"},
	{Metric: "wa", X: "op"},
	{Metric: "iops", X: "op", Series: "nand.geometry.dies", Facet: "gc_policy", Heatmap: true},
	{Metric: "iops", X: "gc_policy", Series: "op", Heatmap: true},
}

func TestWritePlotFormats(t *testing.T) {
	tab := testTable(t, nil)
	magic := map[string]string{"svg": "<?xml", "png": "\x89PNG\r\n\x1a\n", "pdf": "%PDF-"}
	for _, spec := range testSpecs {
		for _, format := range []string{"svg", "png", "pdf"} {
			t.Run(spec.Name()+"."+format, func(t *testing.T) {
				var b bytes.Buffer
				require.NoError(t, tab.WritePlot(&b, format, spec))
				assert.Greater(t, b.Len(), 1000)
				assert.True(t, strings.HasPrefix(b.String(), magic[format]), "starts %q", b.String()[:min(b.Len(), 16)])
				if format == "svg" {
					assert.Contains(t, b.String(), "<svg")
				}
			})
		}
	}
	err := tab.WritePlot(&bytes.Buffer{}, "jpeg", testSpecs[0])
	require.ErrorIs(t, err, ErrStudy)
	assert.Contains(t, err.Error(), `unknown format "jpeg"; allowed: svg, png, pdf`)
}

// TestWritePlotLabels checks the words on the charts: titles, the
// aggregation note, axis labels, panel titles and legend entries.
func TestWritePlotLabels(t *testing.T) {
	tab := testTable(t, nil)
	svg := func(spec PlotSpec) string {
		var b bytes.Buffer
		require.NoError(t, tab.WritePlot(&b, "svg", spec))
		return b.String()
	}
	s := svg(testSpecs[0])
	for _, w := range []string{">iops by op and gc_policy, per nand.geometry.dies<",
		">mean over rep (3 results a point); bars: min–max<", ">op<", ">iops<",
		">nand.geometry.dies=8<", ">nand.geometry.dies=16<", ">nand.geometry.dies=32<",
		">gc_policy=greedy<", ">gc_policy=cost-benefit<", ">28<", ">30k<"} {
		assert.Contains(t, s, w)
	}
	s = svg(testSpecs[1])
	assert.Contains(t, s, ">IOPS by GC policy<")
	assert.Contains(t, s, ">mean over op, rep (12 results a point); bars: min–max<")
	s = svg(testSpecs[3])
	base := testIOPS(28, 32, "cost-benefit", 1) // the largest cell, written in it
	for _, w := range []string{">gc_policy=greedy<", ">gc_policy=cost-benefit<", ">nand.geometry.dies<",
		">" + valueLabel(base) + "<", ">mean over rep (3 results a point)<"} {
		assert.Contains(t, s, w)
	}
	assert.NotContains(t, s, "bars:")
}

// TestWritePlotDeterministic renders every chart twice, from tables built
// twice: the SVG is the same bytes. PNG too, on this machine.
func TestWritePlotDeterministic(t *testing.T) {
	for _, format := range []string{"svg", "png"} {
		for _, spec := range testSpecs {
			var a, b bytes.Buffer
			require.NoError(t, testTable(t, nil).WritePlot(&a, format, spec))
			require.NoError(t, testTable(t, nil).WritePlot(&b, format, spec))
			assert.True(t, bytes.Equal(a.Bytes(), b.Bytes()), "%s %s differs between two renders", spec.Name(), format)
		}
	}
}

func TestSavePlot(t *testing.T) {
	tab := testTable(t, nil)
	dir := t.TempDir()
	for _, ext := range []string{"svg", "png", "PDF"} {
		file := filepath.Join(dir, "chart."+ext)
		require.NoError(t, tab.SavePlot(file, testSpecs[0]))
		fi, err := os.Stat(file)
		require.NoError(t, err)
		assert.Greater(t, fi.Size(), int64(1000))
	}
	err := tab.SavePlot(filepath.Join(dir, "chart.jpg"), testSpecs[0])
	require.ErrorIs(t, err, ErrStudy)
	assert.Contains(t, err.Error(), "allowed: .svg, .png, .pdf")
	err = tab.SavePlot(filepath.Join(dir, "bad.svg"), PlotSpec{Metric: "nope", X: "op"})
	require.ErrorIs(t, err, ErrStudy)
	_, serr := os.Stat(filepath.Join(dir, "bad.svg"))
	assert.True(t, os.IsNotExist(serr), "nothing written on an error")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "no temporary files left: %v", entries)
}

func TestValueLabel(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 0.123456: "0.123", 1.23456: "1.23", 12.345: "12.3",
		950: "950", 9500: "9500", 95234: "95.2k", 1234567: "1.23M", -20000: "-20k", 1.5: "1.5"} {
		assert.Equal(t, want, valueLabel(v), fmt.Sprint(v))
	}
}
