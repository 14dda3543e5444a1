package replay

import (
	"fmt"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/internal/figure"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

const maxSVGBytes = 300 << 10

// checkFigures checks that Plot wrote each figure as an SVG under
// maxSVGBytes and a PNG of the figure's size that is not blank, and
// returns the PNGs' measures by base name.
func checkFigures(t *testing.T, files []string, want ...string) map[string]figure.PNGStats {
	t.Helper()
	if len(files) != 2*len(PlotFiles) {
		t.Fatalf("Plot wrote %v, want an SVG and a PNG of each of %v", files, PlotFiles)
	}
	stats := map[string]figure.PNGStats{}
	for i, name := range PlotFiles {
		svg, png := files[2*i], files[2*i+1]
		if filepath.Base(svg) != name+".svg" || filepath.Base(png) != name+".png" {
			t.Fatalf("files %d, %d: %s, %s; want %s.svg, .png", 2*i, 2*i+1, svg, png, name)
		}
		data, err := os.ReadFile(svg)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > maxSVGBytes || len(data) < 4<<10 || !strings.Contains(string(data), "<svg") {
			t.Errorf("%s: %d bytes, want an SVG of 4 KB to %d KB", name, len(data), maxSVGBytes>>10)
		}
		for _, w := range want {
			if !strings.Contains(string(data), w) {
				t.Errorf("%s.svg does not name %q", name, w)
			}
		}
		st, err := figure.InspectPNG(png)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(png); err != nil || fi.Size() > 400<<10 {
			t.Errorf("%s.png: %v bytes (%v), want under 400 KB", name, fi.Size(), err)
		}
		if st.Width < 6*figure.DPI || st.Width > 9*figure.DPI || st.Height < 3*figure.DPI || st.Height > 12*figure.DPI {
			t.Errorf("%s.png is %dx%d pixels", name, st.Width, st.Height)
		}
		if st.Ink < 0.03 || st.Ink > 0.7 || st.Colors < 8 {
			t.Errorf("%s.png: %.1f%% ink, %d colours: blank or a blot", name, 100*st.Ink, st.Colors)
		}
		stats[name] = st
	}
	return stats
}

// yellowish counts pixels of the burst spans' colour (figure.SpanColor
// over white or over a light band).
func yellowish(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 235 && g>>8 > 225 && bl>>8 > 90 && bl>>8 < 160 {
				n++
			}
		}
	}
	return n
}

func TestPlotRun(t *testing.T) {
	ups, _ := ofctl.ParseFlows("demo.flows", DemoFlows(), nil)
	specs, _ := ParseFilters([]string{"bcf,none"}, []int{0})
	rep, err := Run(t.Context(), &Config{Rules: ups, Tables: 2, Filters: specs,
		Captures: []*dataplane.Capture{DemoCapture()}, Workers: 2, Burst: 32, Bursts: 3, Loops: 2,
		Every: 10 * time.Millisecond, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := rep.Plot(dir)
	if err != nil {
		t.Fatal(err)
	}
	checkFigures(t, files, "bcf t=0", "none")
	// The bursts are shaded in the latency figure and nowhere else.
	if n := yellowish(t, filepath.Join(dir, "lookup-latency.png")); n < 200 {
		t.Errorf("lookup-latency.png: %d pixels of burst shading", n)
	}
	if n := yellowish(t, filepath.Join(dir, "update-cost.png")); n > 0 {
		t.Errorf("update-cost.png: %d pixels of burst shading", n)
	}
}

// bigReport is a report as long runs with repeats make it: many
// configurations, full timelines of noisy latency, many updates.
func bigReport(kinds int) *Report {
	rng := rand.New(rand.NewPCG(1, 2))
	r := &Report{}
	for i := range kinds {
		k := KindReport{Filter: fmt.Sprintf("bcf t=%d", i%5), Seconds: 3, PPS: 4e6}
		acc := newTimelineAcc()
		for j := range int64(200_000) {
			acc.observe(j*15_000, int64(200+rng.ExpFloat64()*float64(1+rng.IntN(3)*1000)))
		}
		k.Timeline = mergeTimelines([]*timelineAcc{&acc})
		for b := range 10 {
			br := BurstReport{Index: b, At: 0.1 + 0.28*float64(b)}
			br.During.Seconds = 0.002
			br.Before.Mpps, br.During.Mpps, br.After.Mpps = 4+rng.Float64(), 2+rng.Float64(), 4+rng.Float64()
			k.Bursts = append(k.Bursts, br)
		}
		for range 10_000 {
			k.UpdateNs = append(k.UpdateNs, 300+rng.ExpFloat64()*2000*float64(1+rng.IntN(50)))
		}
		r.Kinds = append(r.Kinds, k)
	}
	return r
}

// TestPlotBounded checks that the figures stay small as the data grows:
// 15 configurations of 200,000 lookups and 10,000 updates each.
func TestPlotBounded(t *testing.T) {
	files, err := bigReport(15).Plot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkFigures(t, files, "bcf t=4")
}

func TestPlotEmptyReport(t *testing.T) {
	r := &Report{Kinds: []KindReport{{Filter: "none"}, {Filter: "cf"}}}
	files, err := r.Plot(t.TempDir())
	if err != nil || len(files) != 2*len(PlotFiles) {
		t.Fatalf("Plot of a report without data: %v, %v", files, err)
	}
}

func TestSegments(t *testing.T) {
	var pts []LatencyPoint
	for _, at := range []float64{0, 1, 2, 5, 6, 9} {
		pts = append(pts, LatencyPoint{T: at, Seconds: 1})
	}
	got := segments(pts)
	if len(got) != 3 || len(got[0]) != 3 || len(got[1]) != 2 || len(got[2]) != 1 || got[1][0].T != 5 {
		t.Errorf("segments = %v, want [0 1 2] [5 6] [9]", got)
	}
	if segments(nil) != nil {
		t.Error("segments(nil) not empty")
	}
}
