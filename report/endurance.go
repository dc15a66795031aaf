package report

import (
	"fmt"

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
	retry, p99, unc := plotter.XYs{}, plotter.XYs{}, plotter.XYs{}
	for _, r := range res.Rounds {
		tb := float64(r.HostBytes) / 1e12
		retry = append(retry, plotter.XY{X: tb, Y: 100 * r.RetriedReadShare})
		p99 = append(p99, plotter.XY{X: tb, Y: float64(r.ReadP99Ns) / 1e3})
		unc = append(unc, plotter.XY{X: tb, Y: float64(r.UncorrectableReads)})
	}
	rated := float64(res.RatedHostBytes) / 1e12
	f := newFigure("endurance", "", title, 3, 1, 6.5*vg.Inch)
	for i, s := range []struct {
		name, y string
		pts     plotter.XYs
	}{
		{"reads needing read retry", "% of flash reads", retry},
		{"99th-percentile read latency", "µs", p99},
		{"reads ECC could not correct", "reads per read pass", unc},
	} {
		p := panel(s.name, "TB written", s.y)
		l, err := line(s.pts, driveColor(0), false)
		if err != nil {
			return nil, err
		}
		pts, err := scatter(s.pts, driveColor(0), glyph(0))
		if err != nil {
			return nil, err
		}
		p.Add(l, pts)
		if rated > 0 {
			_, _, ymin, ymax := plotter.XYRange(s.pts)
			if ymax <= ymin {
				ymax = ymin + 1
			}
			m, err := line(plotter.XYs{{X: rated, Y: ymin}, {X: rated, Y: ymax}}, spareColor(1), true)
			if err != nil {
				return nil, err
			}
			p.Add(m)
			if i == 0 {
				f.key("rated cycles at the measured WA", m)
			}
		}
		p.X.Tick.Marker = plot.DefaultTicks{}
		f.add(p)
	}
	if format == "png" {
		return f.png()
	}
	return f.svg()
}
