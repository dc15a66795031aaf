package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ftlsim/ftlsim/sim"
)

// EnduranceChart draws an endurance run (sim.Engine.Endurance) against
// the terabytes written: the share of flash reads that needed read
// retries, the 99th-percentile read latency, and the reads ECC could not
// correct, with a dashed line where the rated cycles end at the measured
// write amplification. format is "svg" or "png".
func EnduranceChart(title string, res *sim.EnduranceResult, format string) ([]byte, error) {
	if len(res.Rounds) == 0 {
		return nil, fmt.Errorf("endurance chart: the run has no rounds")
	}
	f, err := enduranceFigure("endurance", "", title, []string{""}, []*sim.EnduranceResult{res})
	if err != nil {
		return nil, err
	}
	if format == "png" {
		return f.png()
	}
	return f.svg()
}

// enduranceFigure draws endurance runs, one a drive (names[i] runs
// results[i], in drive i's colour), on three panels against the
// terabytes written, each with a dashed line where its rated cycles end
// at its mean write amplification. A single run's dashed line takes a
// colour no drive has; a run without a name (a single run) has no legend
// entry of its own.
func enduranceFigure(file, caption, title string, names []string, results []*sim.EnduranceResult) (*figure, error) {
	type series struct {
		retry, p99, unc plotter.XYs
	}
	ss := make([]series, len(results))
	for i, res := range results {
		for _, r := range res.Rounds {
			tb := float64(r.HostBytes) / 1e12
			ss[i].retry = append(ss[i].retry, plotter.XY{X: tb, Y: 100 * r.RetriedReadShare})
			ss[i].p99 = append(ss[i].p99, plotter.XY{X: tb, Y: float64(r.ReadP99Ns) / 1e3})
			ss[i].unc = append(ss[i].unc, plotter.XY{X: tb, Y: float64(r.UncorrectableReads)})
		}
	}
	f := newFigure(file, caption, title, 3, 1, 6.5*vg.Inch)
	for k, pn := range []struct {
		name, y string
		pts     func(series) plotter.XYs
		counts  bool // whole numbers, from zero
	}{
		{"reads needing read retry", "% of flash reads", func(s series) plotter.XYs { return s.retry }, false},
		{"99th-percentile read latency", "latency (µs)", func(s series) plotter.XYs { return s.p99 }, false},
		{"reads ECC could not correct", "reads per read pass", func(s series) plotter.XYs { return s.unc }, true},
	} {
		p := panel(pn.name, "TB written", pn.y)
		if k < 2 {
			p.X.Label.Text = "" // one label, under the last panel
		}
		// The rated-cycles lines span the panel's data.
		ymin, ymax, have := 0.0, 0.0, false
		for i := range results {
			pts := pn.pts(ss[i])
			if len(pts) == 0 {
				continue // retired before its first read pass
			}
			l, err := line(pts, driveColor(i), false)
			if err != nil {
				return nil, err
			}
			sc, err := scatter(pts, driveColor(i), glyph(i))
			if err != nil {
				return nil, err
			}
			p.Add(l, sc)
			if k == 0 && names[i] != "" {
				f.key(names[i], l, sc)
			}
			_, _, lo, hi := plotter.XYRange(pts)
			if !have || lo < ymin {
				ymin = lo
			}
			if !have || hi > ymax {
				ymax = hi
			}
			have = true
		}
		if ymax <= ymin {
			ymax = ymin + 1
		}
		for i, res := range results {
			rated := float64(res.RatedHostBytes) / 1e12
			if rated <= 0 || !have {
				continue
			}
			var c color.Color = driveColor(i)
			if len(results) == 1 {
				c = spareColor(1)
			}
			m, err := line(plotter.XYs{{X: rated, Y: ymin}, {X: rated, Y: ymax}}, c, true)
			if err != nil {
				return nil, err
			}
			p.Add(m)
			if k == 0 {
				name := "rated cycles at the measured WA"
				if names[i] != "" {
					name = fmt.Sprintf("%s: rated cycles at WA %.1f", names[i], meanWA(res))
				}
				f.key(name, m)
			}
		}
		p.X.Tick.Marker = plot.DefaultTicks{}
		p.X.Min = 0 // from the first byte written
		if k == 1 && ymin > 0 && ymax/ymin > 10 {
			// Latencies that differ by more than ten times between
			// drives or rounds (RAISE rebuilds, retries): a log axis,
			// so that the shorter ones are not flattened to zero.
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logTicks{latencyLabel}
			p.Y.Min, p.Y.Max = decades(ymin, ymax)
			p.Y.Label.Text = "latency"
		}
		if pn.counts {
			p.Y.Min, p.Y.Max = 0, math.Max(p.Y.Max, 1)
			p.Y.Tick.Marker = wholeTicks{}
		} else if k == 0 {
			p.Y.Min = 0
		}
		f.add(p)
	}
	return f, nil
}

// wholeTicks are linear ticks (plot.DefaultTicks) labelled at whole
// numbers only, for counts.
type wholeTicks struct{}

// Ticks implements plot.Ticker.
func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Value != math.Trunc(ts[i].Value) {
			ts[i].Label = ""
		} else if ts[i].Label != "" {
			ts[i].Label = si(ts[i].Value)
		}
	}
	return ts
}

// meanWA is the mean of an endurance run's rounds' write amplification,
// the one its RatedHostBytes is at.
func meanWA(res *sim.EnduranceResult) float64 {
	if len(res.Rounds) == 0 {
		return 0
	}
	var sum float64
	for _, r := range res.Rounds {
		sum += r.WA
	}
	return sum / float64(len(res.Rounds))
}
