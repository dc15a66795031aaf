package report

import (
	"image/color"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ftlsim/ftlsim/internal/chart"
	"github.com/ftlsim/ftlsim/sim"
)

// overlaps reports whether two rectangles share any area.
func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// TestLegendsBesideTheData draws every chart of a three-drive report and
// checks that each legend lies inside the figure and clear of every
// panel's data area, and that each panel has no legend of its own.
func TestLegendsBesideTheData(t *testing.T) {
	d := fakeDrive(t, func(RunName, Label) bool { return false })
	d.Endurance = fakeEndurance(3)
	drives := []Drive{d, {Name: "second", Config: d.Config, Runs: d.Runs, Endurance: fakeEndurance(5)},
		{Name: "a-drive-with-a-long-name", Config: d.Config, Runs: d.Runs, Endurance: fakeEndurance(7)}}
	figs, err := buildCharts(drives, paramsOf(true))
	require.NoError(t, err)
	require.Equal(t, "endurance", figs[len(figs)-1].file)
	for _, f := range figs {
		c := vgimg.New(chart.Width, f.height)
		l := f.draw(draw.New(c))
		require.Len(t, l.data, len(f.panels), f.file)
		require.NotEmpty(t, f.legend, "%s names its series", f.file)
		whole := vg.Rectangle{Max: vg.Point{X: chart.Width, Y: f.height}}
		require.True(t, l.legend.Min.X >= 0 && l.legend.Min.Y >= 0 && l.legend.Max.X <= whole.Max.X && l.legend.Max.Y <= whole.Max.Y,
			"%s: legend %v inside the figure", f.file, l.legend)
		for i, r := range l.data {
			require.False(t, overlaps(l.legend, r), "%s: legend %v over panel %d's data %v", f.file, l.legend, i, r)
			require.Positive(t, r.Size().X, f.file)
			require.Positive(t, r.Size().Y, f.file)
		}
		for _, p := range f.panels {
			require.Zero(t, p.Legend.Rectangle(draw.New(c)).Size().Y, "%s: no legend inside a panel", f.file)
		}
	}
}

// TestSpareRunColours checks that no drive's colour is any drive's
// spare-area colour, and that drives' colours differ among themselves.
func TestSpareRunColours(t *testing.T) {
	const n = 6
	same := func(a, b color.Color) bool {
		r1, g1, b1, a1 := a.RGBA()
		r2, g2, b2, a2 := b.RGBA()
		return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
	}
	for i := range n {
		for j := range n {
			require.False(t, same(driveColor(i), spareColor(j)), "drive %d and spare run %d", i, j)
			if i != j {
				require.False(t, same(driveColor(i), driveColor(j)), "drives %d and %d", i, j)
				require.False(t, same(spareColor(i), spareColor(j)), "spare runs %d and %d", i, j)
			}
		}
	}
}

// TestLatencyCDFAxis checks that the CDF ends at exactly 1, that its
// chart's y axis is [0, 1] with 1 labelled, and that its log x axis is
// labelled in decades with units.
func TestLatencyCDFAxis(t *testing.T) {
	pts := cdf(sim.LatencyStats{Bins: []sim.LatencyBin{{Ns: 30e3, Count: 3}, {Ns: 400e3, Count: 5}, {Ns: 7e6, Count: 1}}})
	require.Len(t, pts, 3)
	require.Equal(t, 1.0, pts[2].Y)
	require.InDelta(t, 3.0/9, pts[0].Y, 1e-12)
	require.Equal(t, 7000.0, pts[2].X, "µs")

	d := fakeDrive(t, func(RunName, Label) bool { return false })
	figs, err := latencyCDFChart([]Drive{d}, paramsOf(true))
	require.NoError(t, err)
	p := figs[0].panels[0]
	require.Equal(t, 0.0, p.Y.Min)
	require.Equal(t, 1.0, p.Y.Max)
	ylabels := labels(p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max))
	require.Equal(t, "1", ylabels[len(ylabels)-1])
	// The fake latencies run from 50 µs to 2 ms: the axis from 10 µs to
	// 10 ms, labelled at each decade.
	require.Equal(t, 10.0, p.X.Min)
	require.Equal(t, 10000.0, p.X.Max)
	xlabels := labels(p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max))
	require.Equal(t, []string{"10 µs", "20 µs", "50 µs", "100 µs", "200 µs", "500 µs", "1 ms", "2 ms", "5 ms", "10 ms"}, xlabels)
	require.Equal(t, []string{"1", "10", "100", "1000", "10k", "100k"}, labels(logTicks{si}.Ticks(1, 1e5)))
}

// labels are the labelled ticks' labels.
func labels(ts []plot.Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}
