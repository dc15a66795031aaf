// Package chart holds what the report's and the sweep's charts share
// with gonum/plot: the typeface, the marks, the panels' style, the legend
// in a strip at the right (never over the data) and panels laid out in a
// grid. It draws nothing on its own.
package chart

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Width is every chart's width; DPI is the PNG charts' resolution.
const (
	Width = 9 * vg.Inch
	DPI   = 120
)

// Sans is the charts' typeface at size points.
func Sans(size float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)}
}

// Glyph is series i's mark, for line charts whose lines may coincide.
func Glyph(i int) draw.GlyphDrawer {
	g := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}}
	return g[i%len(g)]
}

// Panel is a new plot in the charts' style: its title in titleSize
// points, axis labels in 10 and tick labels in 9.
func Panel(title, x, y string, titleSize float64) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	p.Title.TextStyle.Font = Sans(titleSize)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = Sans(10)
		a.Tick.Label.Font = Sans(9)
	}
	return p
}

// Entry is one line of a legend.
type Entry struct {
	Name   string
	Thumbs []plot.Thumbnailer
}

// Legend draws entries in a strip at the right of c and returns the
// canvas left for the panels and where the legend's text went.
func Legend(c draw.Canvas, entries []Entry) (area draw.Canvas, where vg.Rectangle) {
	l := plot.NewLegend()
	l.TextStyle.Font = Sans(9)
	l.Top, l.Left = true, true
	l.Padding = vg.Points(2)
	for _, e := range entries {
		l.Add(e.Name, e.Thumbs...)
	}
	size := l.Rectangle(c).Size()
	w := size.X + vg.Points(16)
	strip := draw.Crop(c, c.Size().X-w+vg.Points(8), 0, 0, -vg.Points(14))
	l.Draw(strip)
	where = vg.Rectangle{Min: vg.Point{X: strip.Min.X, Y: strip.Max.Y - size.Y}, Max: vg.Point{X: strip.Min.X + size.X, Y: strip.Max.Y}}
	return draw.Crop(c, 0, -w, 0, 0), where
}

// Grid draws panels (row-major; fewer than rows × cols leave the last
// cells empty) aligned in a grid on area, and returns each panel's data
// area, in order.
func Grid(area draw.Canvas, rows, cols int, panels []*plot.Plot) []vg.Rectangle {
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for k := range cols {
			if i := r*cols + k; i < len(panels) {
				grid[r][k] = panels[i]
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(18), PadY: vg.Points(14),
		PadTop: vg.Points(2), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4)}
	cs := plot.Align(grid, tiles, area)
	var data []vg.Rectangle
	for r := range grid {
		for k, p := range grid[r] {
			if p != nil {
				p.Draw(cs[r][k])
				data = append(data, p.DataCanvas(cs[r][k]).Rectangle)
			}
		}
	}
	return data
}
