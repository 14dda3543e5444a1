package replay

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ofswitch/ofswitch/internal/figure"
)

// PlotFiles are the base names of the figures [Report.Plot] writes, each
// as NAME.svg and NAME.png.
var PlotFiles = []string{"lookup-latency", "update-cost", "throughput"}

// Plot writes three figures into dir (created if missing), each as SVG
// and PNG, and returns their paths:
//
//   - lookup-latency: per filter configuration, one panel on shared axes
//     of the p50 and p99 latency of a LookupBatch per time bin over the
//     whole run, the band between them shaded and the bursts shaded
//     behind (the runs of a repeated configuration overlaid);
//   - update-cost: the distribution of the cost of one update during
//     bursts, per run, as a CDF and as its tail (fraction of updates at
//     least as slow, log scale), one colour per configuration;
//   - throughput: lookup Mpps per configuration before, during and after
//     bursts (median over its bursts, one dot per burst) and over the
//     run (median over its runs).
//
// Every configuration has the same colour in every figure. Each figure
// summarises its data (at most a few thousand points) so that its SVG
// stays under 300 KB however long the run.
func (r *Report) Plot(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for i, build := range []func() (*figure.Figure, error){r.latencyFigure, r.updateCostFigure, r.throughputFigure} {
		f, err := build()
		if err != nil {
			return files, fmt.Errorf("plot %s: %w", PlotFiles[i], err)
		}
		out, err := f.Save(dir, PlotFiles[i])
		files = append(files, out...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// filterGroup is one filter configuration and its runs (Report.Kinds
// may repeat a configuration).
type filterGroup struct {
	name  string
	kinds []*KindReport
}

// groups returns the distinct filter configurations in the order of
// their first run; the i-th has colour i in every figure.
func (r *Report) groups() []filterGroup {
	var out []filterGroup
	idx := map[string]int{}
	for i := range r.Kinds {
		k := &r.Kinds[i]
		g, ok := idx[k.Filter]
		if !ok {
			g = len(out)
			idx[k.Filter] = g
			out = append(out, filterGroup{name: k.Filter})
		}
		out[g].kinds = append(out[g].kinds, k)
	}
	return out
}

// title is the group's panel title: its name, and the number of runs.
func (g *filterGroup) title() string {
	if len(g.kinds) > 1 {
		return fmt.Sprintf("%s (%d runs)", g.name, len(g.kinds))
	}
	return g.name
}

// burstSpans returns each burst's [start, end] in seconds.
func burstSpans(k *KindReport) [][2]float64 {
	var out [][2]float64
	for _, b := range k.Bursts {
		out = append(out, [2]float64{b.At, b.At + b.During.Seconds})
	}
	if len(k.Bursts) == 0 {
		for _, at := range k.BurstAt {
			out = append(out, [2]float64{at, at})
		}
	}
	return out
}

// latencyPoints bounds the points of all panels, and so the SVG.
const latencyPoints = 2400

func (r *Report) latencyFigure() (*figure.Figure, error) {
	groups := r.groups()
	n := len(groups)
	rows := min(max(n, 1), 6)
	cols := max((n+rows-1)/rows, 1)
	per := min(max(latencyPoints/max(len(r.Kinds), 1), 60), 400)
	pts := make(map[*KindReport][]LatencyPoint)
	xmax, ylo, yhi := 0.0, math.Inf(1), 0.0
	for i := range r.Kinds {
		k := &r.Kinds[i]
		pts[k] = k.Timeline.Points(per)
		xmax = max(xmax, k.Seconds)
		for _, p := range pts[k] {
			xmax = max(xmax, p.T+p.Seconds)
			ylo, yhi = min(ylo, max(p.P50, 1)), max(yhi, p.P99)
		}
	}
	if yhi == 0 {
		ylo, yhi = 10, 1e4
	}
	ylo, yhi = math.Log10(ylo/1.5), math.Log10(yhi*1.5) // log10 ns: the axis is figure.LogTicks
	// A burst narrower than this is drawn this wide, so that it shows.
	minSpan := xmax / 300
	xticks := figure.LinearTicks{N: max(8/cols, 3)}

	panels := make([][]*plot.Plot, rows)
	for j := range panels {
		panels[j] = make([]*plot.Plot, cols)
	}
	for gi, g := range groups {
		col, row := gi/rows, gi%rows
		last := row == rows-1 || gi == n-1
		xl := ""
		if last {
			xl = "time since the replay started (s)"
		}
		p := figure.New(g.title(), xl, "")
		p.X.Min, p.X.Max = 0, xmax
		p.X.Tick.Marker = xticks
		p.Y.Min, p.Y.Max = ylo, yhi
		p.Y.Tick.Marker = figure.LogTicks{Format: figure.FormatNs}
		if !last {
			p.X.Tick.Marker = unlabelled{xticks}
		}
		for _, k := range g.kinds {
			for _, s := range burstSpans(k) {
				lo, hi := s[0], max(s[1], s[0]+minSpan)
				poly, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: ylo}, {X: hi, Y: ylo}, {X: hi, Y: yhi}, {X: lo, Y: yhi}})
				if err != nil {
					return nil, err
				}
				poly.Color = figure.SpanColor
				poly.LineStyle.Width = 0
				p.Add(poly)
			}
		}
		// Repeated runs overlap, each band fainter so that they add up.
		c := figure.Color(gi)
		for _, k := range g.kinds {
			kp := pts[k]
			if len(kp) == 0 {
				continue
			}
			band := make(plotter.XYs, 0, 2*len(kp))
			p50 := make(plotter.XYs, len(kp))
			p99 := make(plotter.XYs, len(kp))
			for j, pt := range kp {
				x := pt.T + pt.Seconds/2
				p50[j] = plotter.XY{X: x, Y: max(math.Log10(max(pt.P50, 1)), ylo)}
				p99[j] = plotter.XY{X: x, Y: max(math.Log10(max(pt.P99, 1)), ylo)}
				band = append(band, p99[j])
			}
			for j := len(p50) - 1; j >= 0; j-- {
				band = append(band, p50[j])
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			poly.Color = figure.Faded(c, 0.25/float64(len(g.kinds)))
			poly.LineStyle.Width = 0
			l50, err := plotter.NewLine(p50)
			if err != nil {
				return nil, err
			}
			l50.LineStyle = p50Style(c)
			l99, err := plotter.NewLine(p99)
			if err != nil {
				return nil, err
			}
			l99.LineStyle = p99Style(c)
			p.Add(poly, l50, l99)
		}
		panels[row][col] = p
	}

	leg := figure.NewLegend()
	ink := color.NRGBA{0x33, 0x33, 0x33, 0xff}
	l50 := &plotter.Line{LineStyle: p50Style(ink)}
	l99 := &plotter.Line{LineStyle: p99Style(ink)}
	band := &plotter.Polygon{Color: figure.Faded(ink, 0.25)}
	span := &plotter.Polygon{Color: figure.SpanColor}
	leg.Add("p50", l50)
	leg.Add("p99", l99)
	leg.Add("p50 to p99", band)
	leg.Add("burst of updates", span)
	binMs := 0.0
	for _, p := range pts {
		if len(p) > 0 {
			binMs = max(binMs, 1e3*p[0].Seconds)
		}
	}

	title := "Lookup latency over time, per filter"
	if binMs > 0 {
		title += fmt.Sprintf(" (percentiles per %.3g ms)", binMs)
	}
	return &figure.Figure{Title: title, YLabel: "latency of one LookupBatch of ≤ 32 keys (log scale)", Panels: panels, Legend: leg,
		Width: 7.5 * vg.Inch, Height: vg.Length(rows)*1.25*vg.Inch + 1.1*vg.Inch}, nil
}

func p50Style(c color.Color) draw.LineStyle { return draw.LineStyle{Color: c, Width: vg.Points(1.2)} }

func p99Style(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(3), vg.Points(1.5)}}
}

// unlabelled keeps a ticker's marks and drops their labels (panels
// above the one that labels the shared x axis).
type unlabelled struct{ plot.Ticker }

func (u unlabelled) Ticks(lo, hi float64) []plot.Tick {
	t := u.Ticker.Ticks(lo, hi)
	for i := range t {
		t[i].Label = ""
	}
	return t
}

// cdfPoints bounds the points of all distributions, and so the SVG.
const cdfPoints = 1500

// quantileGrid returns up to m points (value, rank from 1 to n) of the
// sorted values v: evenly spaced ranks, the last few ranks all kept so
// that the tail is exact.
func quantileGrid(v []float64, m int) (vals []float64, ranks []int) {
	n := len(v)
	step := max(n/m, 1)
	for i := 0; i < n; i++ {
		if i%step == 0 || i >= n-m/4 {
			vals = append(vals, v[i])
			ranks = append(ranks, i+1)
		}
	}
	return vals, ranks
}

func (r *Report) updateCostFigure() (*figure.Figure, error) {
	colorOf := map[string]int{}
	for gi, g := range r.groups() {
		colorOf[g.name] = gi
	}
	cdf := figure.New("all updates (CDF)", "cost of one update", "fraction ≤ cost")
	tail := figure.New("the tail (log scale)", "cost of one update", "fraction ≥ cost")
	// Both x axes and the tail's y axis hold log10 (figure.LogTicks).
	for _, p := range []*plot.Plot{cdf, tail} {
		p.X.Tick.Marker = figure.LogTicks{Format: figure.FormatNs}
	}
	cdf.Y.Min, cdf.Y.Max = 0, 1.04
	tail.Y.Tick.Marker = figure.LogTicks{}
	leg := figure.NewLegend()
	named := map[string]bool{}
	lo, hi := math.Inf(1), 1.0
	minFrac := 1.0
	for _, k := range r.Kinds {
		if len(k.UpdateNs) == 0 {
			continue
		}
		v := slices.Clone(k.UpdateNs)
		slices.Sort(v)
		vals, ranks := quantileGrid(v, min(max(cdfPoints/len(r.Kinds), 60), 300))
		n := float64(len(v))
		up := make(plotter.XYs, len(vals))
		down := make(plotter.XYs, len(vals))
		for j, x := range vals {
			x = max(x, 1)
			lo, hi = min(lo, x), max(hi, x)
			above := (n - float64(ranks[j]) + 1) / n
			up[j] = plotter.XY{X: math.Log10(x), Y: float64(ranks[j]) / n}
			down[j] = plotter.XY{X: math.Log10(x), Y: math.Log10(above)}
			minFrac = min(minFrac, above)
		}
		var line *plotter.Line
		for _, pp := range []struct {
			p   *plot.Plot
			xys plotter.XYs
		}{{cdf, up}, {tail, down}} {
			l, err := plotter.NewLine(pp.xys)
			if err != nil {
				return nil, err
			}
			l.LineStyle = figure.LineStyle(colorOf[k.Filter])
			pp.p.Add(l)
			line = l
		}
		if !named[k.Filter] {
			named[k.Filter] = true
			leg.Add(k.Filter, line)
		}
	}
	if math.IsInf(lo, 1) {
		lo = 1
	}
	for _, p := range []*plot.Plot{cdf, tail} {
		p.X.Min, p.X.Max = math.Log10(lo/1.3), math.Log10(hi*1.3)
	}
	tail.Y.Min, tail.Y.Max = math.Log10(minFrac/2), math.Log10(1.25)
	return &figure.Figure{Title: "Cost of one update during bursts (applied and published on its own)",
		Panels: [][]*plot.Plot{{cdf, tail}}, Legend: leg, Width: 8 * vg.Inch, Height: 3.6 * vg.Inch}, nil
}

func (r *Report) throughputFigure() (*figure.Figure, error) {
	p := figure.New("", "", "lookup throughput, all workers (Mpps)")
	groups := r.groups()
	names := make([]string, len(groups))
	for gi, g := range groups {
		names[gi] = g.title()
	}
	phases := []struct {
		name  string
		color color.NRGBA
		get   func(*BurstReport) float64
	}{
		{"before bursts", figure.Color(5), func(b *BurstReport) float64 { return b.Before.Mpps }},
		{"during bursts", figure.Color(1), func(b *BurstReport) float64 { return b.During.Mpps }},
		{"after bursts", figure.Color(0), func(b *BurstReport) float64 { return b.After.Mpps }},
		{"whole run", color.NRGBA{0x99, 0x99, 0x99, 0xff}, nil},
	}
	hasBursts := false
	for _, k := range r.Kinds {
		hasBursts = hasBursts || len(k.Bursts) > 0
	}
	if !hasBursts {
		phases = phases[3:]
	}
	leg := figure.NewLegend()
	// The bars of a group take 80% of its share of about 5.5 inches.
	width := min(vg.Points(16), 5.5*vg.Inch*0.8/vg.Length(len(groups)*len(phases)))
	for pi, ph := range phases {
		vals := make(plotter.Values, len(groups))
		var dots plotter.XYs
		for gi, g := range groups {
			var v []float64
			for _, k := range g.kinds {
				if ph.get == nil {
					v = append(v, k.PPS/1e6)
					continue
				}
				for bi := range k.Bursts {
					v = append(v, ph.get(&k.Bursts[bi]))
				}
			}
			vals[gi] = median(v)
			if ph.get != nil || len(g.kinds) > 1 {
				for _, y := range v {
					dots = append(dots, plotter.XY{X: float64(gi), Y: y})
				}
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		bars.Color = ph.color
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(float64(pi)-float64(len(phases)-1)/2)
		p.Add(bars)
		leg.Add(ph.name, bars)
		if len(dots) > 0 {
			s, err := plotter.NewScatter(dots)
			if err != nil {
				return nil, err
			}
			s.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}
			// Dots sit on their bar: shift them as the bar is shifted.
			p.Add(offsetScatter{s, bars.Offset})
		}
	}
	if hasBursts {
		leg.Add("one burst or run", &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(1.3), Shape: draw.CircleGlyph{}}})
	}
	p.NominalX(names...)
	p.Y.Min = 0
	p.X.Tick.Label.Rotation = 0
	return &figure.Figure{Title: "Lookup throughput per filter (bars: medians)",
		Panels: [][]*plot.Plot{{p}}, Legend: leg, Width: 7.5 * vg.Inch, Height: 3.6 * vg.Inch}, nil
}

// offsetScatter draws a scatter shifted right by a fixed length, to put
// dots on a bar of a grouped bar chart.
type offsetScatter struct {
	*plotter.Scatter
	off vg.Length
}

func (o offsetScatter) Plot(c draw.Canvas, p *plot.Plot) {
	c.Push()
	c.Translate(vg.Point{X: o.off})
	o.Scatter.Plot(c, p)
	c.Pop()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
