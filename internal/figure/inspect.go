package figure

import (
	"fmt"
	"image/png"
	"os"
)

// PNGStats describes a rendered PNG, for tests that a figure is not empty.
type PNGStats struct {
	Width, Height int
	// Ink is the fraction of pixels that are not (nearly) white.
	Ink float64
	// Colors counts distinct colours, each channel rounded to 4 bits.
	Colors int
}

// InspectPNG decodes the PNG file at path and measures it.
func InspectPNG(path string) (PNGStats, error) {
	f, err := os.Open(path)
	if err != nil {
		return PNGStats{}, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return PNGStats{}, fmt.Errorf("%s: %w", path, err)
	}
	b := img.Bounds()
	st := PNGStats{Width: b.Dx(), Height: b.Dy()}
	colors := map[uint32]bool{}
	var ink int
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
			colors[r>>12<<8|g>>12<<4|bl>>12] = true
		}
	}
	st.Colors = len(colors)
	if n := st.Width * st.Height; n > 0 {
		st.Ink = float64(ink) / float64(n)
	}
	return st, nil
}
