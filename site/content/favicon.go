package content

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
)

// FaviconICO returns the site's icon as a 32 × 32 ICO file (one PNG
// image), the raster twin of static/assets/favicon.svg: a blue rounded
// square with a white "M" of five atoms. It is served at the site root
// (/favicon.ico), which browsers ask for when a page links no icon (the
// pages of releases cut before the icon existed). The bytes are a pure
// function of this code.
func FaviconICO() []byte {
	const n = 32
	blue, white := color.RGBA{0x0b, 0x5c, 0xad, 0xff}, color.RGBA{0xff, 0xff, 0xff, 0xff}
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	type pt struct{ x, y float64 }
	path := []pt{{9, 23}, {9, 9}, {16, 17}, {23, 9}, {23, 23}} // the SVG's stroke
	segDist := func(p, a, b pt) float64 {
		dx, dy := b.x-a.x, b.y-a.y
		t := math.Max(0, math.Min(1, ((p.x-a.x)*dx+(p.y-a.y)*dy)/(dx*dx+dy*dy)))
		return math.Hypot(p.x-a.x-t*dx, p.y-a.y-t*dy)
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			p := pt{float64(x) + .5, float64(y) + .5}
			// rounded square, corner radius 6
			cx, cy := math.Max(6, math.Min(n-6, p.x)), math.Max(6, math.Min(n-6, p.y))
			if math.Hypot(p.x-cx, p.y-cy) > 6 {
				continue
			}
			c := blue
			for i := 1; i < len(path); i++ {
				if segDist(p, path[i-1], path[i]) <= 1 {
					c = white
				}
			}
			for _, a := range path {
				if math.Hypot(p.x-a.x, p.y-a.y) <= 2.5 {
					c = white
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		panic(err) // encoding an in-memory RGBA image does not fail
	}
	var b bytes.Buffer
	// ICONDIR (reserved, type 1 = icon, 1 image), then its ICONDIRENTRY:
	// width, height, colours, reserved, planes, bits per pixel, size, offset.
	binary.Write(&b, binary.LittleEndian, []uint16{0, 1, 1})
	b.Write([]byte{n, n, 0, 0})
	binary.Write(&b, binary.LittleEndian, []uint16{1, 32})
	binary.Write(&b, binary.LittleEndian, []uint32{uint32(pngBuf.Len()), 6 + 16})
	b.Write(pngBuf.Bytes())
	return b.Bytes()
}
