package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

var (
	blue  = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	red   = color.RGBA{R: 214, G: 39, B: 40, A: 255}
	green = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	grey  = color.RGBA{R: 120, G: 120, B: 120, A: 255}
)

// chart is one figure of CALIBRATION.md.
type chart struct {
	file, title string
	available   func(results) bool
	render      func(results) (*plot.Plot, error)
}

func hasRun(drive string, k kind) func(results) bool {
	return func(r results) bool { return r.get(drive, k) != nil }
}

var chartList = []chart{
	{"consistency-bp4-240.png", "Consistency, bp4-240, against the review's 2,500-5,000 IOPS baseline", hasRun("bp4-240", consistency), consistencyChart("bp4-240", 2500, 5000)},
	{"consistency-bp4-msata-240.png", "Consistency, bp4-msata-240, against the same baseline", hasRun("bp4-msata-240", consistency), consistencyChart("bp4-msata-240", 2500, 5000)},
	{"consistency-bp3-256.png", "Consistency, bp3-256, against the review's 100-1,000 IOPS between stalls", hasRun("bp3-256", consistency), consistencyChart("bp3-256", 100, 1000)},
	{"trim-validation.png", "TRIM validation: the Atlas's review figures, the simulated Atlas and the predicted Intel 525", hasRun("atlas-240", trimValidation), trimChart},
	{"hdtach-bp4-240.png", "HD Tach after a 60-minute torture, bp4-240, against the review's figures", hasRun("bp4-240", hdTach), hdTachChart("bp4-240")},
}

// chartFiles renders every chart whose runs were made, as PNG.
func chartFiles(r results) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, c := range chartList {
		if !c.available(r) {
			continue
		}
		p, err := c.render(r)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.file, err)
		}
		wt, err := p.WriterTo(8*vg.Inch, 4.5*vg.Inch, "png")
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.file, err)
		}
		var b bytes.Buffer
		if _, err := wt.WriteTo(&b); err != nil {
			return nil, fmt.Errorf("chart %s: %w", c.file, err)
		}
		out[c.file] = b.Bytes()
	}
	return out, nil
}

// ticks labels an axis every step from 0 to top, with minor ticks
// halfway.
func ticks(top, step float64) plot.ConstantTicks {
	var t []plot.Tick
	for v := 0.0; v <= top+step/2; v += step / 2 {
		label := ""
		if math.Mod(v, step) == 0 {
			label = fmt.Sprintf("%.0f", v)
		}
		t = append(t, plot.Tick{Value: v, Label: label})
	}
	return t
}

// hline draws a dashed horizontal line at y from x0 to x1.
func hline(p *plot.Plot, y, x0, x1 float64, label string) error {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	if err != nil {
		return err
	}
	l.Color, l.Dashes = grey, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	if label != "" {
		p.Legend.Add(label, l)
	}
	return nil
}

// consistencyChart plots IOPS each second of the whole run on a log scale,
// the drive's own spare area and 25 % spare, with the review's band.
func consistencyChart(drive string, lo, hi float64) func(results) (*plot.Plot, error) {
	return func(r results) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = drive + ": 4 KiB random writes, QD 32, IOPS each second"
		p.X.Label.Text = "time (s)"
		p.Y.Label.Text = "IOPS (0 drawn at 1)"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min = 1
		end := 0.0
		for i, k := range []kind{consistency, consistency25} {
			f := r.get(drive, k)
			if f == nil {
				continue
			}
			pts := make(plotter.XYs, len(f.IOPS))
			for j, y := range f.IOPS {
				pts[j] = plotter.XY{X: float64(j + 1), Y: math.Max(y, 1)}
			}
			end = math.Max(end, float64(len(f.IOPS)))
			s, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			s.GlyphStyle.Color = []color.Color{blue, red}[i]
			s.GlyphStyle.Radius = vg.Points(1.1)
			s.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(s)
			p.Legend.Add([]string{"drive's own spare area", "25 % spare area"}[i], s)
		}
		if err := hline(p, lo, 0, end, fmt.Sprintf("review: %.0f-%.0f IOPS", lo, hi)); err != nil {
			return nil, err
		}
		if err := hline(p, hi, 0, end, ""); err != nil {
			return nil, err
		}
		p.Legend.Top = false
		return p, nil
	}
}

// trimChart compares the TRIM validation's three figures: the review's
// Atlas, the simulated Atlas and the predicted Intel 525.
func trimChart(r results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "TRIM validation: 128 KiB sequential writes, incompressible, QD 1"
	p.Y.Label.Text = "MB/s"
	p.NominalX("clean", "dirty (60 min torture)", "after TRIM")
	series := []struct {
		name  string
		vals  plotter.Values
		color color.Color
	}{{"review: Atlas 240 GB", plotter.Values{189.2, 35.2, 106.6}, grey}}
	for _, x := range []struct {
		drive, name string
		c           color.Color
	}{{"atlas-240", "simulated atlas-240 (fitted)", blue}, {"intel-525-240", "simulated intel-525-240 (predicted)", green}} {
		if f := r.get(x.drive, trimValidation); f != nil {
			series = append(series, struct {
				name  string
				vals  plotter.Values
				color color.Color
			}{x.name, plotter.Values{f.Clean, f.Dirty, f.AfterTrim}, x.c})
		}
	}
	w := vg.Points(40)
	top := 0.0
	for i, s := range series {
		for _, v := range s.vals {
			top = math.Max(top, v)
		}
		b, err := plotter.NewBarChart(s.vals, w)
		if err != nil {
			return nil, err
		}
		b.Color = s.color
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(i)-float64(len(series)-1)/2)
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 1.45*top // room for the legend above the bars
	p.Y.Tick.Marker = ticks(p.Y.Max, 50)
	return p, nil
}

// hdTachChart plots the write curve after torture against GB written,
// with the review's two readings.
func hdTachChart(drive string) func(results) (*plot.Plot, error) {
	return func(r results) (*plot.Plot, error) {
		f := r.get(drive, hdTach)
		p := plot.New()
		p.Title.Text = drive + ": HD Tach full-span write after a 60-minute torture"
		p.X.Label.Text = "GB written"
		p.Y.Label.Text = "MB/s (each second)"
		pts := make(plotter.XYs, len(f.CurveGB))
		for i := range f.CurveGB {
			pts[i] = plotter.XY{X: f.CurveGB[i], Y: f.CurveMBps[i]}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color = blue
		p.Add(l)
		p.Legend.Add("simulated", l)
		rev, err := plotter.NewScatter(plotter.XYs{{X: 5, Y: 20}, {X: 150, Y: 300}})
		if err != nil {
			return nil, err
		}
		rev.GlyphStyle.Color, rev.GlyphStyle.Radius, rev.GlyphStyle.Shape = red, vg.Points(5), draw.TriangleGlyph{}
		p.Add(rev)
		p.Legend.Add("review: ~20 MB/s at the start, >300 MB/s after ~150 GB", rev)
		top := 0.0
		for _, v := range f.CurveMBps {
			top = math.Max(top, v)
		}
		p.Legend.Top, p.Legend.Left = true, true
		p.Y.Min, p.Y.Max = 0, 1.25*top // room for the legend above the curve
		p.Y.Tick.Marker = ticks(p.Y.Max, 100)
		p.X.Min, p.X.Max = 0, f.CurveGB[len(f.CurveGB)-1]
		p.X.Tick.Marker = ticks(p.X.Max, 50)
		return p, nil
	}
}
