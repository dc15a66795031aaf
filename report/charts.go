package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ftlsim/ftlsim/internal/chart"
)

// This file holds the charts' building blocks: colours and fonts,
// figures of one or more panels with the legend beside them (never over
// the data), bars that carry their values, and tick markers with units.

// driveColor is drive i's colour in every chart.
func driveColor(i int) color.Color {
	p := []color.RGBA{
		{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255},
		{148, 103, 189, 255}, {140, 86, 75, 255}, {188, 189, 34, 255},
	}
	return p[i%len(p)]
}

// spareColor is the colour of drive i's run with 25 % spare area: a hue
// no drive has, so that a drive and its spare-area run never share one.
func spareColor(i int) color.Color {
	p := []color.RGBA{
		{255, 127, 14, 255}, {23, 190, 207, 255}, {227, 119, 194, 255},
		{127, 127, 127, 255}, {255, 187, 120, 255}, {0, 0, 0, 255},
	}
	return p[i%len(p)]
}

// panel is a new plot styled as the report's (chart.Panel, titles in 11
// points).
func panel(title, x, y string) *plot.Plot { return chart.Panel(title, x, y, 11) }

// figure is a chart: one or more panels in a grid, and one legend in a
// strip at the right, outside every panel's data area.
type figure struct {
	file, caption string
	title         string
	rows, cols    int
	panels        []*plot.Plot // row-major
	height        vg.Length    // of the whole figure
	legend        []chart.Entry
}

// newFigure is a figure of rows × cols panels, height tall.
func newFigure(file, caption, title string, rows, cols int, height vg.Length) *figure {
	return &figure{file: file, caption: caption, title: title, rows: rows, cols: cols, height: height}
}

// add adds a panel (row-major order).
func (f *figure) add(p *plot.Plot) { f.panels = append(f.panels, p) }

// key adds a legend entry.
func (f *figure) key(name string, thumbs ...plot.Thumbnailer) {
	f.legend = append(f.legend, chart.Entry{Name: name, Thumbs: thumbs})
}

// layout is where a drawn figure put its legend and its panels' data
// areas.
type layout struct {
	legend vg.Rectangle   // empty without a legend
	data   []vg.Rectangle // each panel's, in order
}

// draw draws the figure on c and returns where its parts went.
func (f *figure) draw(c draw.Canvas) layout {
	var out layout
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	if f.title != "" {
		sty := text.Style{Font: chart.Sans(12), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler, Color: color.Black}
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(4)}, f.title)
		c.Max.Y -= sty.Height(f.title) + vg.Points(8)
	}
	area := c
	if len(f.legend) > 0 {
		// The legend takes a strip at the right, beside the panels.
		area, out.legend = chart.Legend(c, f.legend)
	}
	out.data = chart.Grid(area, f.rows, f.cols, f.panels)
	return out
}

// png renders the figure as PNG.
func (f *figure) png() ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(chart.Width, f.height), vgimg.UseDPI(chart.DPI))
	f.draw(draw.New(c))
	b, err := chart.PNG(c)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", f.file, err)
	}
	return b, nil
}

// svg renders the figure as SVG.
func (f *figure) svg() ([]byte, error) {
	c := vgsvg.New(chart.Width, f.height)
	f.draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("chart %s: %w", f.file, err)
	}
	return b.Bytes(), nil
}

// swatch is a legend thumbnail: a filled square.
type swatch struct{ color color.Color }

// Thumbnail implements plot.Thumbnailer.
func (s swatch) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	x := c.Min.X + (c.Max.X-c.Min.X-h)/2
	c.FillPolygon(s.color, []vg.Point{{X: x, Y: c.Min.Y}, {X: x + h, Y: c.Min.Y}, {X: x + h, Y: c.Max.Y}, {X: x, Y: c.Max.Y}})
}

// bars is a grouped bar chart that writes each bar's value above it:
// one bar a series in each group, groups at x = 0, 1, 2 ... (name them
// with Plot.NominalX).
type bars struct {
	values [][]float64 // [series][group]
	colors []color.Color
	label  func(float64) string
}

// barSlot is the share of a group's width its bars take.
const barSlot = 0.8

// DataRange implements plot.DataRanger: the groups, and from zero to the
// tallest bar with room for its label.
func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	groups := 0
	for _, s := range b.values {
		groups = max(groups, len(s))
		for _, v := range s {
			ymax = math.Max(ymax, v)
		}
	}
	if ymax == 0 {
		ymax = 1
	}
	return -0.5, float64(groups) - 0.5, 0, ymax * 1.15
}

// Plot implements plot.Plotter.
func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := float64(len(b.values))
	w := barSlot / n
	outline := draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.5)}
	for s, vals := range b.values {
		for g, v := range vals {
			x0 := float64(g) - barSlot/2 + float64(s)*w
			l, r := trX(x0), trX(x0+w)
			bot, top := trY(0), trY(v)
			pts := []vg.Point{{X: l, Y: bot}, {X: r, Y: bot}, {X: r, Y: top}, {X: l, Y: top}}
			c.FillPolygon(b.colors[s], pts)
			c.StrokeLines(outline, append(pts, pts[0]))
			txt := b.label(v)
			sty := text.Style{Color: color.Black, Font: chart.Sans(8), XAlign: draw.XCenter, YAlign: draw.YBottom, Handler: p.TextHandler}
			for sty.Font.Size > vg.Points(6) && sty.Width(txt) > r-l {
				sty.Font.Size -= vg.Points(0.5)
			}
			at := vg.Point{X: (l + r) / 2, Y: top + vg.Points(2)}
			if sty.Width(txt) > r-l {
				sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/2, draw.XLeft, draw.YCenter
			}
			c.FillText(sty, at, txt)
		}
	}
}

// barFigure is a figure of one panel of grouped bars: groups along x,
// one series a drive (coloured as the drive), each bar labelled.
func barFigure(file, caption, title, ylabel string, groups []string, names []string, values [][]float64, label func(float64) string) *figure {
	f := newFigure(file, caption, "", 1, 1, 4*vg.Inch)
	p := panel(title, "", ylabel)
	b := &bars{values: values, label: label}
	for i, n := range names {
		b.colors = append(b.colors, driveColor(i))
		f.key(n, swatch{driveColor(i)})
	}
	p.Add(b)
	p.NominalX(groups...)
	p.X.Tick.Label.Font = chart.Sans(10)
	p.Y.Tick.Marker = siTicks{}
	f.add(p)
	return f
}

// line is a line plotter in colour c, dashed or not.
func line(pts plotter.XYs, c color.Color, dashed bool) (*plotter.Line, error) {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = c, vg.Points(1.5)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return l, nil
}

// scatter is a scatter plotter of small glyphs in colour c.
func scatter(pts plotter.XYs, c color.Color, shape draw.GlyphDrawer) (*plotter.Scatter, error) {
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = c, vg.Points(1.4), shape
	return s, nil
}

// si writes a count with k and M from 10,000 on: 950, 9500, 95k, 1.2M.
func si(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3) + "k"
	}
	return trim(v)
}

// trim writes v with three significant digits at most, without trailing
// zeros.
func trim(v float64) string {
	a := math.Abs(v)
	prec := 0
	switch {
	case a == 0:
	case a < 10:
		prec = 2
	case a < 100:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if prec > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	return s
}

// siTicks are linear ticks (plot.DefaultTicks) labelled with si.
type siTicks struct{}

// Ticks implements plot.Ticker.
func (siTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = si(ts[i].Value)
		}
	}
	return ts
}

// logTicks are a log axis's ticks: a labelled tick at each power of ten
// (and at 2× and 5× when the axis spans at most three decades), minor
// ticks between, labelled by label.
type logTicks struct{ label func(float64) string }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	fine := math.Log10(hi/lo) <= 3+1e-9
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		dec := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := dec * float64(m)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || (fine && (m == 2 || m == 5)) {
				tk.Label = t.label(v)
			}
			out = append(out, tk)
		}
	}
	return out
}

// decades returns the powers of ten around lo and hi (lo > 0).
func decades(lo, hi float64) (float64, float64) {
	return math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
}

// fixedTicks are ticks at given values with given labels.
type fixedTicks []plot.Tick

// Ticks implements plot.Ticker.
func (t fixedTicks) Ticks(float64, float64) []plot.Tick { return t }

// latencyLabel writes a latency given in µs with its unit: 10 µs, 1 ms.
func latencyLabel(us float64) string {
	switch {
	case us >= 1e6:
		return trim(us/1e6) + " s"
	case us >= 1e3:
		return trim(us/1e3) + " ms"
	}
	return trim(us) + " µs"
}

// sizeLabel writes a transfer size in bytes: 512, 4K, 1M.
func sizeLabel(b float64) string {
	switch {
	case b >= 1<<20:
		return trim(b/(1<<20)) + "M"
	case b >= 1<<10:
		return trim(b/(1<<10)) + "K"
	}
	return trim(b)
}
