package sweep

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ftlsim/ftlsim/internal/chart"
)

// This file draws a Grid: line charts (a line a series, min–max bars
// where points aggregate several results) and heatmaps (a cell an x and
// series value, its value written in it, a colour scale beside), in
// panels a facet value each that share their scales, with the legend
// or the colour scale in a strip at the right, never over the data. The
// look follows the report package's charts (Liberation Sans, the same
// colours); its helpers are unexported, so the few needed are here.

// seriesColor is series i's colour (the report's drive colours first).
func seriesColor(i int) color.Color {
	p := []color.RGBA{
		{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255},
		{148, 103, 189, 255}, {140, 86, 75, 255}, {188, 189, 34, 255},
		{255, 127, 14, 255}, {23, 190, 207, 255}, {227, 119, 194, 255},
		{127, 127, 127, 255},
	}
	return p[i%len(p)]
}

// seriesGlyph is series i's mark: with ten colours and six marks, a
// colour and mark pair repeats after thirty series.
func seriesGlyph(i int) draw.GlyphDrawer { return chart.Glyph(i) }

// valueLabel writes a value with three significant digits, and k and M
// from 10,000 on: 0.123, 1.23, 950, 9500, 95.2k, 1.2M.
func valueLabel(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return sig3(v/1e6) + "M"
	case a >= 1e4:
		return sig3(v/1e3) + "k"
	}
	return sig3(v)
}

func sig3(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// valueTicks are linear ticks (plot.DefaultTicks) labelled by
// valueLabel; when fewer than three are labelled (0 and 2.5 on a range
// of 0 to 2.6), every tick is.
type valueTicks struct{}

// Ticks implements plot.Ticker.
func (valueTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	labelled := 0
	for _, t := range ts {
		if t.Label != "" {
			labelled++
		}
	}
	for i := range ts {
		if ts[i].Label != "" || labelled < 3 {
			ts[i].Label = valueLabel(ts[i].Value)
		}
	}
	return ts
}

// fixedTicks are ticks at given values with given labels.
type fixedTicks []plot.Tick

// Ticks implements plot.Ticker.
func (t fixedTicks) Ticks(float64, float64) []plot.Tick { return t }

// panel is a new plot in the charts' style (chart.Panel, titles in 10
// points).
func panel(title, x, y string) *plot.Plot { return chart.Panel(title, x, y, 10) }

// figure is a chart: a title, a note under it, panels in a grid, and a
// legend or a colour scale in a strip at the right.
type figure struct {
	title, note string
	rows, cols  int
	panels      []*plot.Plot // row-major
	height      vg.Length
	legend      []chart.Entry
	scale       *plot.Plot // a heatmap's colour scale
}

// scaleWidth is the width of a heatmap's colour-scale strip.
const scaleWidth = 1.2 * vg.Inch

// draw draws the chart on c.
func (ch *figure) draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c.Max.Y -= vg.Points(4)
	for _, t := range []struct {
		s    string
		size float64
		col  color.Color
	}{{ch.title, 12, color.Black}, {ch.note, 9, color.Gray{Y: 80}}} {
		if t.s == "" {
			continue
		}
		sty := text.Style{Font: chart.Sans(t.size), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler, Color: t.col}
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, t.s)
		c.Max.Y -= sty.Height(t.s) + vg.Points(4)
	}
	c.Max.Y -= vg.Points(4)
	area := c
	switch {
	case len(ch.legend) > 0:
		area, _ = chart.Legend(c, ch.legend)
	case ch.scale != nil:
		ch.scale.Draw(draw.Crop(c, c.Size().X-scaleWidth+vg.Points(12), -vg.Points(4), vg.Points(30), -vg.Points(14)))
		area = draw.Crop(c, 0, -scaleWidth, 0, 0)
	}
	chart.Grid(area, ch.rows, ch.cols, ch.panels)
}

// render draws the chart as format: svg, png or pdf.
func (ch *figure) render(format string) ([]byte, error) {
	var cw vg.CanvasWriterTo
	switch format {
	case "svg":
		cw = vgsvg.New(chart.Width, ch.height)
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(chart.Width, ch.height), vgimg.UseDPI(chart.DPI))
		ch.draw(draw.New(c))
		return chart.PNG(c)
	case "pdf":
		cw = vgpdf.New(chart.Width, ch.height)
	default:
		panic("sweep: unknown chart format " + format)
	}
	ch.draw(draw.New(cw))
	var b bytes.Buffer
	if _, err := cw.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// figure lays the grid out as a line chart or a heatmap.
func (g *Grid) figure() *figure {
	n := len(g.Facets)
	ch := &figure{title: g.Spec.Title, cols: n}
	switch {
	case n == 4:
		ch.cols = 2
	case n > 9:
		ch.cols = 4
	case n > 3:
		ch.cols = 3
	}
	ch.rows = (n + ch.cols - 1) / ch.cols
	if ch.title == "" {
		ch.title = PlotSpec{Metric: g.Spec.Metric, X: g.Spec.X, Series: g.Spec.Series, Facet: g.Spec.Facet}.String()
	}
	ch.note = g.note()
	if g.Spec.Heatmap {
		g.heatmap(ch)
	} else {
		g.lines(ch)
	}
	return ch
}

// note says what a plotted value is when it aggregates several results.
func (g *Grid) note() string {
	lo, hi := math.MaxInt, 0
	for _, f := range g.Cells {
		for _, s := range f {
			for _, c := range s {
				if c.N > 0 {
					lo, hi = min(lo, c.N), max(hi, c.N)
				}
			}
		}
	}
	if hi <= 1 {
		return ""
	}
	n := strconv.Itoa(hi)
	if lo != hi {
		n = strconv.Itoa(lo) + "–" + n
	}
	s := fmt.Sprintf("mean over %s (%s results a point)", strings.Join(g.Over, ", "), n)
	if g.Spec.Heatmap {
		return s
	}
	return s + "; bars: min–max"
}

// facetTitle is panel f's title: "axis=value", or none without facets.
func (g *Grid) facetTitle(f int) string {
	if g.Spec.Facet == "" {
		return ""
	}
	return g.Spec.Facet + "=" + g.Facets[f]
}

// lines fills ch with a line chart: a panel a facet value, a line a
// series value, sharing the x and y ranges; the y range starts at zero.
func (g *Grid) lines(ch *figure) {
	panelH := 3 * vg.Inch
	if ch.rows == 1 {
		panelH = 4 * vg.Inch
	}
	ch.height = vg.Inch + vg.Length(ch.rows)*panelH
	lo, hi := g.Range()
	ylo, yhi := math.Min(0, lo), math.Max(0, hi)
	if yhi == ylo || math.IsNaN(lo) {
		ylo, yhi = 0, 1
	}
	pad := 0.05 * (yhi - ylo)
	yhi += pad
	if ylo < 0 {
		ylo -= pad
	}
	bars := g.MaxN() > 1
	ns := len(g.Series)
	dodge := 0.0 // categories only: the series side by side
	if !g.XNumeric && ns > 1 && bars {
		dodge = math.Min(0.08, 0.5/float64(ns))
	}
	for f := range g.Facets {
		p := panel(g.facetTitle(f), g.Spec.X, g.Spec.Metric)
		for s := range g.Series {
			col, shape := seriesColor(s), seriesGlyph(s)
			var all, seg plotter.XYs
			var errs errPoints
			flush := func() {
				if len(seg) >= 2 {
					p.Add(newLine(seg, col))
				}
				seg = nil
			}
			for i, c := range g.Cells[f][s] {
				if c.N == 0 {
					flush()
					continue
				}
				x := g.xPos(i) + dodge*(float64(s)-float64(ns-1)/2)
				pt := plotter.XY{X: x, Y: c.Mean}
				all, seg = append(all, pt), append(seg, pt)
				if c.N > 1 {
					errs = append(errs, errPoint{pt, c.Mean - c.Min, c.Max - c.Mean})
				}
			}
			flush()
			if len(errs) > 0 {
				eb, err := plotter.NewYErrorBars(errs)
				if err != nil {
					panic("sweep: " + err.Error()) // the points are finite
				}
				eb.Color, eb.Width, eb.CapWidth = col, vg.Points(1), vg.Points(5)
				p.Add(eb)
			}
			if len(all) > 0 {
				p.Add(newScatter(all, col, shape))
			}
		}
		g.xAxis(p)
		p.Y.Min, p.Y.Max = ylo, yhi
		p.Y.Tick.Marker = valueTicks{}
		ch.panels = append(ch.panels, p)
	}
	if g.Spec.Series != "" {
		for s, v := range g.Series {
			ch.legend = append(ch.legend, chart.Entry{Name: g.Spec.Series + "=" + v, Thumbs: []plot.Thumbnailer{
				newLine(plotter.XYs{{}, {X: 1}}, seriesColor(s)), newScatter(plotter.XYs{{}}, seriesColor(s), seriesGlyph(s))}})
		}
	}
}

// xPos is x value i's position: the number, or i for categories.
func (g *Grid) xPos(i int) float64 {
	if g.XNumeric {
		return g.XValues[i]
	}
	return float64(i)
}

// xAxis sets p's x range and ticks: the study's values (up to twelve of
// them, else linear ticks) on a numeric scale, each category otherwise.
func (g *Grid) xAxis(p *plot.Plot) {
	if !g.XNumeric {
		var ts fixedTicks
		for i, v := range g.X {
			ts = append(ts, plot.Tick{Value: float64(i), Label: v})
		}
		p.X.Min, p.X.Max = -0.5, float64(len(g.X))-0.5
		p.X.Tick.Marker = ts
		return
	}
	lo, hi := g.XValues[0], g.XValues[len(g.XValues)-1]
	pad := 0.04 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	p.X.Min, p.X.Max = lo-pad, hi+pad
	if len(g.X) <= 12 {
		var ts fixedTicks
		for i, v := range g.X {
			ts = append(ts, plot.Tick{Value: g.XValues[i], Label: v})
		}
		p.X.Tick.Marker = ts
	}
}

func newLine(pts plotter.XYs, col color.Color) *plotter.Line {
	l, err := plotter.NewLine(pts)
	if err != nil {
		panic("sweep: " + err.Error()) // the points are finite
	}
	l.Color, l.Width = col, vg.Points(1.5)
	return l
}

func newScatter(pts plotter.XYs, col color.Color, shape draw.GlyphDrawer) *plotter.Scatter {
	s, err := plotter.NewScatter(pts)
	if err != nil {
		panic("sweep: " + err.Error()) // the points are finite
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = col, vg.Points(2.5), shape
	return s
}

// errPoint is a plotted mean and its distances down to the smallest and
// up to the largest result.
type errPoint struct {
	plotter.XY
	down, up float64
}

// errPoints implement plotter.XYer and plotter.YErrorer.
type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].X, e[i].Y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].down, e[i].up }

// heatmap fills ch with heatmaps: a panel a facet value, x across and
// the series down (the first at the top), every panel coloured on one
// scale, drawn at the right.
func (g *Grid) heatmap(ch *figure) {
	panelH := min(max(0.4*vg.Inch*vg.Length(len(g.Series))+1.2*vg.Inch, 2.5*vg.Inch), 6*vg.Inch)
	ch.height = vg.Inch + vg.Length(ch.rows)*panelH
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, f := range g.Cells {
		for _, s := range f {
			for _, c := range s {
				if c.N > 0 {
					lo, hi = math.Min(lo, c.Mean), math.Max(hi, c.Mean)
				}
			}
		}
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	if lo == hi {
		d := math.Max(math.Abs(lo)*0.05, 1)
		lo, hi = lo-d, hi+d
	}
	cm := heatColors()
	cm.SetMin(lo)
	cm.SetMax(hi)
	var xt, yt fixedTicks
	for i, v := range g.X {
		xt = append(xt, plot.Tick{Value: float64(i), Label: v})
	}
	ny := len(g.Series)
	for s, v := range g.Series {
		yt = append(yt, plot.Tick{Value: float64(ny - 1 - s), Label: v})
	}
	for f := range g.Facets {
		p := panel(g.facetTitle(f), g.Spec.X, g.Spec.Series)
		p.Add(&heatCells{cells: g.Cells[f], cm: cm})
		p.X.Min, p.X.Max = -0.5, float64(len(g.X))-0.5
		p.Y.Min, p.Y.Max = -0.5, float64(ny)-0.5
		p.X.Padding, p.Y.Padding = 0, 0
		p.X.Tick.Marker, p.Y.Tick.Marker = xt, yt
		ch.panels = append(ch.panels, p)
	}
	sc := panel("", "", g.Spec.Metric)
	sc.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true, Colors: 128})
	sc.HideX()
	sc.Y.Padding = 0
	sc.Y.Tick.Marker = valueTicks{}
	ch.scale = sc
}

// heatColors is the heatmaps' colour scale: viridis's ends and middle,
// interpolated at a lightness that grows linearly with the value.
func heatColors() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{
		color.NRGBA{68, 1, 84, 255}, color.NRGBA{59, 82, 139, 255}, color.NRGBA{33, 145, 140, 255},
		color.NRGBA{94, 201, 98, 255}, color.NRGBA{253, 231, 37, 255},
	})
	if err != nil {
		panic("sweep: " + err.Error()) // the controls' lightness grows
	}
	return cm
}

// heatCells draws one panel's cells: [series][x], the first series at
// the top, each filled by its mean's colour and carrying its value; a
// cell without results is light grey and carries "–".
type heatCells struct {
	cells [][]Cell
	cm    palette.ColorMap
}

// Plot implements plot.Plotter.
func (h *heatCells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ny := len(h.cells)
	for s, row := range h.cells {
		y := float64(ny - 1 - s)
		for i, cell := range row {
			x := float64(i)
			l, r, b, t := trX(x-0.5), trX(x+0.5), trY(y-0.5), trY(y+0.5)
			fill, label := color.Color(color.Gray{Y: 225}), "–"
			if cell.N > 0 {
				v := math.Min(math.Max(cell.Mean, h.cm.Min()), h.cm.Max())
				col, err := h.cm.At(v)
				if err != nil {
					panic("sweep: " + err.Error()) // v is clamped to the map's range
				}
				fill, label = col, valueLabel(cell.Mean)
			}
			pts := []vg.Point{{X: l, Y: b}, {X: r, Y: b}, {X: r, Y: t}, {X: l, Y: t}}
			c.FillPolygon(fill, pts)
			c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1)}, append(pts, pts[0]))
			sty := text.Style{Color: inkOn(fill), Font: chart.Sans(9), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: p.TextHandler}
			for sty.Font.Size > vg.Points(5) && sty.Width(label) > r-l-vg.Points(2) {
				sty.Font.Size -= vg.Points(0.5)
			}
			c.FillText(sty, vg.Point{X: (l + r) / 2, Y: (b + t) / 2}, label)
		}
	}
}

// DataRange implements plot.DataRanger.
func (h *heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	nx := 0
	if len(h.cells) > 0 {
		nx = len(h.cells[0])
	}
	return -0.5, float64(nx) - 0.5, -0.5, float64(len(h.cells)) - 0.5
}

// inkOn is the text colour that reads on fill: white on dark, black on
// light.
func inkOn(fill color.Color) color.Color {
	r, g, b, _ := fill.RGBA()
	if (0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(b))/0xffff < 0.45 {
		return color.White
	}
	return color.Black
}
