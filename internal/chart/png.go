package chart

import (
	"bytes"
	"cmp"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"slices"

	"gonum.org/v1/plot/vg/vgimg"
)

// PNG encodes a drawn canvas as a paletted PNG: the 256 colours the chart
// uses most (ties broken by colour value, so the file is the same every
// time), every other pixel — the rim of an anti-aliased line or letter —
// as the nearest of them, at the best compression. A chart is a few flat
// colours and their blends, so this looks the same as the full-colour
// image at about a third of its size, which keeps committed reports small.
func PNG(c *vgimg.Canvas) ([]byte, error) {
	img := c.Image()
	b := img.Bounds()
	count := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	cols := make([]color.RGBA, 0, len(count))
	for c := range count {
		cols = append(cols, c)
	}
	key := func(c color.RGBA) uint32 { return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A) }
	slices.SortFunc(cols, func(a, b color.RGBA) int {
		if n := cmp.Compare(count[b], count[a]); n != 0 {
			return n
		}
		return cmp.Compare(key(a), key(b))
	})
	pal := make(color.Palette, 0, 256)
	for _, c := range cols[:min(len(cols), 256)] {
		pal = append(pal, c)
	}
	p := image.NewPaletted(b, pal)
	draw.Draw(p, b, img, b.Min, draw.Src)
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, p); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
