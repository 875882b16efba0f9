package content

import (
	"bytes"
	"encoding/binary"
	"image/png"
	"testing"
)

// TestFaviconICOIsOneDecodablePNG: the ICO's directory names one 32 × 32
// image whose size and offset point at a PNG that decodes to 32 × 32 with
// transparent corners, the blue background and the white atoms of
// static/assets/favicon.svg at their SVG coordinates.
func TestFaviconICOIsOneDecodablePNG(t *testing.T) {
	ico := FaviconICO()
	var dir struct {
		Reserved, Type, Count uint16
		W, H, Colours, Res    uint8
		Planes, Bits          uint16
		Size, Offset          uint32
	}
	if err := binary.Read(bytes.NewReader(ico), binary.LittleEndian, &dir); err != nil {
		t.Fatal(err)
	}
	if dir.Reserved != 0 || dir.Type != 1 || dir.Count != 1 || dir.W != 32 || dir.H != 32 || dir.Bits != 32 ||
		dir.Offset != 22 || int(dir.Offset+dir.Size) != len(ico) {
		t.Fatalf("ICO directory %+v for %d bytes", dir, len(ico))
	}
	img, err := png.Decode(bytes.NewReader(ico[dir.Offset:]))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 32 || b.Dy() != 32 {
		t.Fatalf("PNG is %v", b)
	}
	rgba := func(x, y int) [4]uint32 {
		r, g, b, a := img.At(x, y).RGBA()
		return [4]uint32{r >> 8, g >> 8, b >> 8, a >> 8}
	}
	for _, c := range []struct {
		x, y int
		want [4]uint32
	}{
		{0, 0, [4]uint32{0, 0, 0, 0}}, {31, 31, [4]uint32{0, 0, 0, 0}}, // outside the rounded corners
		{3, 16, [4]uint32{0x0b, 0x5c, 0xad, 0xff}},                                             // background
		{9, 9, [4]uint32{0xff, 0xff, 0xff, 0xff}}, {16, 17, [4]uint32{0xff, 0xff, 0xff, 0xff}}, // atoms
		{16, 26, [4]uint32{0x0b, 0x5c, 0xad, 0xff}}, // below the M
	} {
		if got := rgba(c.x, c.y); got != c.want {
			t.Errorf("pixel (%d, %d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if !bytes.Equal(ico, FaviconICO()) {
		t.Error("two calls give different bytes")
	}
}
