package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ftlsim/ftlsim/sim"
)

var colours = []color.Color{color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255}}

// plotAll draws the reviews' three consistency charts: the whole run on a
// log scale, and the steady-state window on log and linear scales.
func plotAll(dir string, outs []outcome, steadyFrom int64) error {
	charts := []struct {
		file   string
		title  string
		from   int64
		log    bool
		linMax float64
	}{
		{"consistency-log.png", "4 KiB random write, QD 32: whole run", 0, true, 0},
		{"consistency-steady-log.png", "steady state (log scale)", steadyFrom, true, 0},
		{"consistency-steady-linear.png", "steady state (linear scale)", steadyFrom, false, 40000},
	}
	for _, c := range charts {
		p := plot.New()
		p.Title.Text = c.title
		p.X.Label.Text = "time (s)"
		p.Y.Label.Text = "IOPS"
		if c.log {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		ymax := 0.0
		for i, o := range outs {
			var pts plotter.XYs
			for _, iv := range o.series {
				if iv.StartNs < c.from || iv.EndNs-iv.StartNs < sim.Second {
					continue
				}
				y := iv.IOPS
				if c.log {
					y = math.Max(y, 1) // 0 IOPS sits on the axis of a log chart
				}
				pts = append(pts, plotter.XY{X: float64(iv.EndNs) / 1e9, Y: y})
				ymax = math.Max(ymax, y)
			}
			s, err := plotter.NewScatter(pts)
			if err != nil {
				return err
			}
			s.GlyphStyle.Color = colours[i%len(colours)]
			s.GlyphStyle.Radius = vg.Points(1.2)
			s.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(s)
			p.Legend.Add(o.label, s)
		}
		p.Legend.Top = false // lower right: the log charts are empty there
		if c.log {
			p.Y.Min = 1
		} else {
			p.Y.Min = 0
			p.Y.Max = math.Max(c.linMax, ymax*1.05)
		}
		if err := p.Save(8*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, c.file)); err != nil {
			return fmt.Errorf("chart %s: %w", c.file, err)
		}
	}
	return nil
}
