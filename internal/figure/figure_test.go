package figure

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// testFigure is two rows of two panels whose data fills every data area
// to its corners, with a legend of long names.
func testFigure(t *testing.T) *Figure {
	t.Helper()
	f := &Figure{Title: "test figure", YLabel: "common y label", Legend: NewLegend(), Width: 7 * vg.Inch, Height: 4 * vg.Inch}
	for j := range 2 {
		var row []*plot.Plot
		for i := range 2 {
			p := New("panel", "x (s)", "")
			xys := plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}, {X: 1, Y: 0}, {X: 0, Y: 1}}
			l, s, err := plotter.NewLinePoints(xys)
			if err != nil {
				t.Fatal(err)
			}
			n := 2*j + i
			l.LineStyle, s.GlyphStyle = LineStyle(n), GlyphStyle(n)
			p.Add(l, s)
			if j == 0 {
				f.Legend.Add("a rather long series name "+string(rune('A'+n)), l, s)
			}
			row = append(row, p)
		}
		f.Panels = append(f.Panels, row)
	}
	return f
}

func TestLegendOutsideData(t *testing.T) {
	f := testFigure(t)
	c := draw.New(vgimg.New(f.Width, f.Height))
	lay := f.layout(c)
	if lay.legend.Canvas == nil {
		t.Fatal("no legend laid out")
	}
	leg := f.Legend.Rectangle(lay.legend)
	if leg.Max.X > c.Max.X || leg.Min.X < c.Min.X {
		t.Errorf("legend %v outside the figure %v", leg, c.Rectangle)
	}
	for j, row := range f.Panels {
		for i, p := range row {
			d := p.DataCanvas(lay.panels[j][i]).Rectangle
			if d.Max.X > leg.Min.X && d.Min.X < leg.Max.X && d.Max.Y > leg.Min.Y && d.Min.Y < leg.Max.Y {
				t.Errorf("panel %d,%d: data area %v overlaps the legend %v", j, i, d, leg)
			}
			if d.Max.X-d.Min.X < vg.Inch || d.Max.Y-d.Min.Y < vg.Inch/2 {
				t.Errorf("panel %d,%d: data area %v too small", j, i, d)
			}
		}
	}
	// Panels of a row share their data area's height, of a column its width.
	a := f.Panels[0][0].DataCanvas(lay.panels[0][0]).Rectangle
	b := f.Panels[0][1].DataCanvas(lay.panels[0][1]).Rectangle
	d := f.Panels[1][0].DataCanvas(lay.panels[1][0]).Rectangle
	if math.Abs(float64(a.Min.Y-b.Min.Y)) > 0.5 || math.Abs(float64(a.Max.Y-b.Max.Y)) > 0.5 ||
		math.Abs(float64(a.Min.X-d.Min.X)) > 0.5 || math.Abs(float64(a.Max.X-d.Max.X)) > 0.5 {
		t.Errorf("panels not aligned: %v %v %v", a, b, d)
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	files, err := testFigure(t).Save(dir, "fig")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "fig.svg" || filepath.Base(files[1]) != "fig.png" {
		t.Fatalf("files %v", files)
	}
	svg, err := os.ReadFile(files[0])
	if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "a rather long series name B") {
		t.Errorf("%s: not the figure's SVG (%v)", files[0], err)
	}
	st, err := InspectPNG(files[1])
	if err != nil {
		t.Fatal(err)
	}
	if st.Width != 7*DPI || st.Height != 4*DPI {
		t.Errorf("PNG %dx%d, want %dx%d", st.Width, st.Height, 7*DPI, 4*DPI)
	}
	if st.Ink < 0.03 || st.Ink > 0.6 || st.Colors < 6 {
		t.Errorf("PNG %+v: want some ink and the series' colours", st)
	}
	// An empty figure is white: the measure can fail.
	empty, err := (&Figure{Legend: NewLegend(), Width: vg.Inch, Height: vg.Inch}).Save(dir, "empty")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := InspectPNG(empty[1]); err != nil || st.Ink != 0 || st.Colors != 1 {
		t.Errorf("empty figure: %+v, %v", st, err)
	}
}

func TestTicks(t *testing.T) {
	for _, tt := range []struct {
		ns   float64
		want string
	}{{250, "250 ns"}, {1500, "1.5 µs"}, {2e7, "20 ms"}, {3e9, "3 s"}, {0, "0 ns"}} {
		if got := FormatNs(tt.ns); got != tt.want {
			t.Errorf("FormatNs(%v) = %q, want %q", tt.ns, got, tt.want)
		}
	}
	labels := func(ts []plot.Tick) (out []string) {
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := strings.Join(labels(LogTicks{Format: FormatNs}.Ticks(2, 7)), ","); got != "100 ns,1 µs,10 µs,100 µs,1 ms,10 ms" {
		t.Errorf("ns log ticks 100 ns..10 ms: %s", got)
	}
	if got := strings.Join(labels(LogTicks{}.Ticks(0, 2)), ","); got != "1,2,5,10,20,50,100" {
		t.Errorf("log ticks 1..100: %s", got)
	}
	for _, tk := range (LogTicks{}).Ticks(0, 6) {
		if math.Abs(tk.Value-math.Round(tk.Value)) > 1e-9 {
			t.Errorf("6 decades: a tick at 10^%v, want decades only", tk.Value)
		}
	}
	if got := strings.Join(labels(LinearTicks{}.Ticks(0, 2.2)), ","); got != "0.0,0.5,1.0,1.5,2.0" {
		t.Errorf("linear ticks 0..2.2: %s", got)
	}
	if got := strings.Join(labels(LinearTicks{N: 4}.Ticks(0.92, 0.97)), ","); got != "0.92,0.94,0.96" {
		t.Errorf("linear ticks 0.92..0.97: %s", got)
	}
}
