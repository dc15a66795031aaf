package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ftlsim/ftlsim/sim"
)

var palette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{214, 39, 40, 255}, color.RGBA{44, 160, 44, 255},
	color.RGBA{148, 103, 189, 255}, color.RGBA{255, 127, 14, 255}, color.RGBA{23, 190, 207, 255},
}

// chart is a drawn chart: its file stem and caption.
type chart struct {
	File, Caption string
}

func save(p *plot.Plot, dir, stem string) error {
	// Headroom above the data for the legend, which sits at the top.
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		p.Y.Max *= 8
	} else {
		p.Y.Max = p.Y.Min + (p.Y.Max-p.Y.Min)*1.4
	}
	p.Legend.Top = true
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(9*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, stem+ext)); err != nil {
			return fmt.Errorf("chart %s: %w", stem, err)
		}
	}
	return nil
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	return p
}

func logY(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
}

func scatter(p *plot.Plot, label string, pts plotter.XYs, c color.Color, shape draw.GlyphDrawer) error {
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = c, vg.Points(1.3), shape
	p.Add(s)
	p.Legend.Add(label, s)
	return nil
}

func line(p *plot.Plot, label string, pts plotter.XYs, c color.Color, dashed bool) error {
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color, l.Width = c, vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

// series returns a run's per-second IOPS from fromNs on (log charts show
// 0 IOPS on their axis, at 1).
func series(r *sim.Result, fromNs int64, log bool) plotter.XYs {
	var pts plotter.XYs
	for _, iv := range r.Intervals {
		if iv.StartNs < fromNs || iv.EndNs-iv.StartNs < int64(sim.Second) {
			continue
		}
		y := iv.IOPS
		if log {
			y = math.Max(y, 1)
		}
		pts = append(pts, plotter.XY{X: float64(iv.EndNs) / 1e9, Y: y})
	}
	return pts
}

// drawCharts draws every chart into dir. A series missing from a drive's
// runs is an error (ErrMissingSeries).
func drawCharts(dir string, drives []Drive) ([]chart, error) {
	var out []chart
	add := func(p *plot.Plot, stem, caption string) error {
		if err := save(p, dir, stem); err != nil {
			return err
		}
		out = append(out, chart{stem, caption})
		return nil
	}
	// Four corners: sequential MB/s and random IOPS, bars per drive.
	for _, kind := range []struct {
		stem, title, unit string
		labels            []Label
		value             func(*sim.Result) float64
	}{
		{"four-corners-seq", "128 KiB sequential, QD 1", "MB/s", []Label{LabelSeqRead128kQD1, LabelSeqWrite128kQD1}, mbps},
		{"four-corners-random", "4 KiB random over 8 GB, QD 32", "IOPS", []Label{LabelRandRead4kQD32, LabelRandWrite4kQD32}, iops},
	} {
		p := newPlot(kind.title, "", kind.unit)
		w := vg.Points(14)
		for i, d := range drives {
			rs, err := d.results(RunFourCorners, kind.labels...)
			if err != nil {
				return nil, err
			}
			var vals plotter.Values
			for _, r := range rs {
				vals = append(vals, kind.value(r))
			}
			b, err := plotter.NewBarChart(vals, w)
			if err != nil {
				return nil, err
			}
			b.Color = palette[i%len(palette)]
			b.Offset = w * vg.Length(float64(i)-float64(len(drives)-1)/2)
			p.Add(b)
			p.Legend.Add(d.Name, b)
		}
		p.NominalX("read", "write")
		p.X.Min, p.X.Max = -0.8, 1.8
		if err := add(p, kind.stem, kind.title); err != nil {
			return nil, err
		}
	}
	// ATTO: throughput against transfer size.
	p := newPlot("ATTO: sequential transfers, QD 4", "transfer size (KiB, log scale)", "MB/s")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	for i, d := range drives {
		for _, dir := range []string{"read", "write"} {
			var pts plotter.XYs
			for k, s := range attoSizes {
				r, err := d.Result(RunATTO, attoLabel(dir, s))
				if err != nil {
					return nil, err
				}
				pts = append(pts, plotter.XY{X: 0.5 * math.Pow(2, float64(k)), Y: mbps(r)})
			}
			if err := line(p, d.Name+" "+dir, pts, palette[i%len(palette)], dir == "write"); err != nil {
				return nil, err
			}
		}
	}
	if err := add(p, "atto", "ATTO: read (solid) and write (dashed) throughput by transfer size"); err != nil {
		return nil, err
	}
	// HD Tach: full-span transfer-rate curves.
	p = newPlot("HD Tach: full-span 64 KiB sequential transfers", "position (% of the drive)", "MB/s")
	for i, d := range drives {
		for _, dir := range []struct {
			name  string
			label Label
		}{{"read", LabelReadCurve}, {"write", LabelWriteCurve}} {
			r, err := d.Result(RunHDTach, dir.label)
			if err != nil {
				return nil, err
			}
			var pts plotter.XYs
			n := float64(len(r.Intervals))
			for k, iv := range r.Intervals {
				pts = append(pts, plotter.XY{X: 100 * (float64(k) + 0.5) / n, Y: iv.MBps})
			}
			if err := line(p, d.Name+" "+dir.name, pts, palette[i%len(palette)], dir.name == "write"); err != nil {
				return nil, err
			}
		}
	}
	p.Y.Min = 0
	if err := add(p, "hdtach", "HD Tach: read (solid) and write (dashed) across the drive"); err != nil {
		return nil, err
	}
	// Consistency: the whole run (log), the steady state (log and linear).
	for _, c := range []struct {
		stem, title string
		steady, log bool
	}{
		{"consistency-log", "4 KiB random writes, QD 32: whole run", false, true},
		{"consistency-steady-log", "steady state (log scale)", true, true},
		{"consistency-steady-linear", "steady state (linear scale)", true, false},
	} {
		p := newPlot(c.title, "time (s)", "IOPS")
		if c.log {
			logY(p)
			p.Y.Min = 1
		} else {
			p.Y.Min = 0
		}
		for i, d := range drives {
			for k, run := range []RunName{RunConsistency, RunConsistency25} {
				r, err := d.Result(run, LabelConsistency)
				if err != nil {
					return nil, err
				}
				from := int64(0)
				if c.steady {
					from = (r.EndNs - r.StartNs) * 7 / 10
				}
				label := d.Name
				var shape draw.GlyphDrawer = draw.CircleGlyph{}
				if k == 1 {
					label += " (25 % spare)"
					shape = draw.TriangleGlyph{}
				}
				if err := scatter(p, label, series(r, from, c.log), palette[i%len(palette)], shape); err != nil {
					return nil, err
				}
			}
		}
		if err := add(p, c.stem, "performance consistency: "+c.title); err != nil {
			return nil, err
		}
	}
	// Latency CDF of the consistency run's writes.
	p = newPlot("4 KiB random write latency (consistency run)", "latency (µs, log scale)", "fraction of writes at or below")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	for i, d := range drives {
		r, err := d.Result(RunConsistency, LabelConsistency)
		if err != nil {
			return nil, err
		}
		var ps []float64
		for q := range r.Write.Latency.Percentiles {
			ps = append(ps, q)
		}
		sort.Float64s(ps)
		var pts plotter.XYs
		for _, q := range ps {
			if v := r.Write.Latency.Percentiles[q]; v > 0 {
				pts = append(pts, plotter.XY{X: float64(v) / 1e3, Y: q / 100})
			}
		}
		if err := line(p, d.Name, pts, palette[i%len(palette)], false); err != nil {
			return nil, err
		}
	}
	p.Legend.Left = true
	if err := add(p, "latency-cdf", "latency CDF of the consistency run's writes"); err != nil {
		return nil, err
	}
	return out, nil
}

func f0(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
