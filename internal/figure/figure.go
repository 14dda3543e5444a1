package figure

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution of the PNG files: a 7-inch figure is 840 pixels wide.
const DPI = 120

// palette is the Okabe–Ito colour-blind-safe palette without its yellow,
// which is too light on white.
var palette = [...]color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
}

// Color returns the i-th colour of the palette (cycling).
func Color(i int) color.NRGBA {
	return palette[((i%len(palette))+len(palette))%len(palette)]
}

// Faded returns c with the given opacity (0..1), for bands and spans.
func Faded(c color.NRGBA, opacity float64) color.NRGBA {
	c.A = uint8(math.Round(255 * min(max(opacity, 0), 1)))
	return c
}

// SpanColor is the colour of shaded spans (bursts) behind the data: the
// palette's yellow, which no series uses.
var SpanColor = color.NRGBA{0xF0, 0xE4, 0x42, 0xb0}

var glyphs = [...]draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.CrossGlyph{}, draw.RingGlyph{}, draw.PlusGlyph{}, draw.BoxGlyph{}}

// Glyph returns the i-th marker shape (cycling), so that series stay
// apart in grey print.
func Glyph(i int) draw.GlyphDrawer {
	return glyphs[((i%len(glyphs))+len(glyphs))%len(glyphs)]
}

// LineStyle is the style of the i-th series' line.
func LineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: Color(i), Width: vg.Points(1.5)}
}

// GlyphStyle is the style of the i-th series' markers.
func GlyphStyle(i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: Color(i), Radius: vg.Points(3), Shape: Glyph(i)}
}

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// New returns a panel with the project's fonts and a light grid: title
// (may be empty) and axis labels, which should name their units.
func New(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 11)
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
		a.Padding = vg.Points(2)
		a.Tick.Marker = LinearTicks{}
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{0xe4}
	g.Horizontal.Color = color.Gray{0xe4}
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
	p.Add(g)
	return p
}

// NewLegend returns an empty legend in the project's font, for a Figure.
func NewLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, 10)
	l.ThumbnailWidth = vg.Points(22)
	l.Padding = vg.Points(3)
	l.Top, l.Left = true, true
	return l
}

// Figure is a grid of panels with one title above and one legend to the
// right, outside every data area.
type Figure struct {
	Title string
	// YLabel, if set, is one label for the y axes of all panels, drawn
	// left of them (a panel's own label must fit its height: gonum
	// pads a panel whose rotated label is taller than its data area).
	YLabel string
	Panels [][]*plot.Plot // rows of panels; every row as long as the first
	Legend plot.Legend    // from NewLegend; drawn only if it has entries
	Width  vg.Length
	Height vg.Length
}

const pad = vg.Length(6)

// layout is where Draw puts things: the title's anchor, the legend's
// canvas (zero if there is no legend) and each panel's canvas.
type layout struct {
	title  vg.Point
	ylabel vg.Point
	legend draw.Canvas
	panels [][]draw.Canvas
}

func (f *Figure) layout(dc draw.Canvas) layout {
	var out layout
	c := draw.Crop(dc, pad, -pad, pad, -pad)
	if f.Title != "" {
		out.title = vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y}
		c = draw.Crop(c, 0, 0, 0, -(f.titleStyle().Height(f.Title) + pad))
	}
	if r := f.Legend.Rectangle(c); r.Max.X-r.Min.X > 0 {
		w := r.Max.X - r.Min.X
		out.legend = c
		out.legend.Min.X = c.Max.X - w
		out.legend.Max.Y -= 2 * pad // level with the first panel's title
		c = draw.Crop(c, 0, -(w + 2*pad), 0, 0)
	}
	if f.YLabel != "" {
		out.ylabel = vg.Point{X: c.Min.X, Y: (c.Min.Y + c.Max.Y) / 2}
		c = draw.Crop(c, f.ylabelStyle().Height(f.YLabel)+pad/2, 0, 0, 0)
	}
	if len(f.Panels) > 0 && len(f.Panels[0]) > 0 {
		tiles := draw.Tiles{Rows: len(f.Panels), Cols: len(f.Panels[0]), PadX: 3 * pad, PadY: pad}
		out.panels = plot.Align(f.Panels, tiles, c)
	}
	return out
}

func (f *Figure) titleStyle() text.Style {
	sty := f.Legend.TextStyle
	sty.Font = font.From(sans, 12)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	return sty
}

func (f *Figure) ylabelStyle() text.Style {
	sty := f.Legend.TextStyle
	sty.Font = font.From(sans, 10)
	sty.Rotation = math.Pi / 2
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
	return sty
}

// Draw draws the figure onto dc: white background, title, legend right
// of the panels, the common y label, the panels.
func (f *Figure) Draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	lay := f.layout(dc)
	if f.Title != "" {
		dc.FillText(f.titleStyle(), lay.title, f.Title)
	}
	if lay.legend.Canvas != nil {
		l := f.Legend
		l.Top, l.Left = true, true
		l.Draw(lay.legend)
	}
	if f.YLabel != "" {
		dc.FillText(f.ylabelStyle(), lay.ylabel, f.YLabel)
	}
	for j, row := range f.Panels {
		for i, p := range row {
			if p != nil {
				p.Draw(lay.panels[j][i])
			}
		}
	}
}

// Save writes the figure as dir/name.svg and dir/name.png and returns
// both paths.
func (f *Figure) Save(dir, name string) ([]string, error) {
	svg := vgsvg.New(f.Width, f.Height)
	f.Draw(draw.New(svg))
	png := vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(DPI))
	f.Draw(draw.New(png))
	var files []string
	for _, out := range []struct {
		ext string
		w   io.WriterTo
	}{{".svg", svg}, {".png", vgimg.PngCanvas{Canvas: png}}} {
		path := filepath.Join(dir, name+out.ext)
		if err := writeFile(path, out.w); err != nil {
			return files, fmt.Errorf("figure %s: %w", name, err)
		}
		files = append(files, path)
	}
	return files, nil
}

func writeFile(path string, w io.WriterTo) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
