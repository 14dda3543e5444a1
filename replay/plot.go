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
var PlotFiles = []string{"bursts", "lookup-latency", "update-cost", "throughput"}

// Plot writes four figures into dir (created if missing), each as SVG
// and PNG, and returns their paths:
//
//   - bursts: what a burst does, per filter configuration, in one row of
//     panels: lookup p99 and Mpps before, during and after bursts
//     (medians over bursts) and the cost of one update at p50, p99,
//     p99.9 and max;
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
	for i, build := range []func() (*figure.Figure, error){r.burstFigure, r.latencyFigure, r.updateCostFigure, r.throughputFigure} {
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
	per := min(max(latencyPoints/max(len(r.Kinds), 1), 60), 300)
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
			for _, kp := range segments(pts[k]) {
				if err := addBand(p, kp, c, ylo, 0.25/float64(len(g.kinds))); err != nil {
					return nil, err
				}
			}
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

// segments splits a timeline's points where bins without lookups
// leave a gap, so that no line bridges the gap.
func segments(pts []LatencyPoint) [][]LatencyPoint {
	var out [][]LatencyPoint
	start := 0
	for i := 1; i <= len(pts); i++ {
		if i == len(pts) || pts[i].T > pts[i-1].T+1.5*pts[i-1].Seconds {
			if i > start {
				out = append(out, pts[start:i])
			}
			start = i
		}
	}
	return out
}

// addBand draws the p50 and p99 lines of pts in colour c and shades the
// band between them; y is log10 ns, at least ylo.
func addBand(p *plot.Plot, pts []LatencyPoint, c color.NRGBA, ylo, opacity float64) error {
	band := make(plotter.XYs, 0, 2*len(pts))
	p50 := make(plotter.XYs, len(pts))
	p99 := make(plotter.XYs, len(pts))
	for j, pt := range pts {
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
		return err
	}
	poly.Color = figure.Faded(c, opacity)
	poly.LineStyle.Width = 0
	l50, err := plotter.NewLine(p50)
	if err != nil {
		return err
	}
	l50.LineStyle = p50Style(c)
	l99, err := plotter.NewLine(p99)
	if err != nil {
		return err
	}
	l99.LineStyle = p99Style(c)
	p.Add(poly, l50, l99)
	return nil
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

// burstFigure is the figure for a README: what a burst does to lookups
// and what its updates cost, one line per filter configuration across
// categories (phases, percentiles), each line nudged sideways so that
// markers do not hide one another.
func (r *Report) burstFigure() (*figure.Figure, error) {
	groups := r.groups()
	phases := []string{"before", "during", "after"}
	lat := figure.New("lookup latency, p99", "", "one LookupBatch (log scale)")
	mpps := figure.New("lookup throughput", "", "Mpps, all workers")
	upd := figure.New("cost of one update", "", "per update (log scale)")
	lat.Y.Tick.Marker = figure.LogTicks{Format: figure.FormatNs}
	upd.Y.Tick.Marker = figure.LogTicks{Format: figure.FormatNs}
	leg := figure.NewLegend()
	nudge := func(gi int) float64 { return 0.08 * (float64(gi) - float64(len(groups)-1)/2) }
	add := func(p *plot.Plot, gi int, xys plotter.XYs) (*plotter.Line, *plotter.Scatter, error) {
		if len(xys) == 0 {
			return nil, nil, nil
		}
		l, sc, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, nil, err
		}
		l.LineStyle, sc.GlyphStyle = figure.LineStyle(gi), figure.GlyphStyle(gi)
		p.Add(l, sc)
		return l, sc, nil
	}
	ulo, uhi, llo, lhi, mhi := math.Inf(1), 0.0, math.Inf(1), 0.0, 0.0
	for gi, g := range groups {
		var latXY, mppsXY, updXY plotter.XYs
		for ph := range phases {
			var p99, mp []float64
			for _, k := range g.kinds {
				for bi := range k.Bursts {
					b := &k.Bursts[bi]
					w := [...]*Phase{&b.Before, &b.During, &b.After}[ph]
					if w.LookupNs.N > 0 {
						p99 = append(p99, w.LookupNs.P99)
					}
					if w.Seconds > 0 {
						mp = append(mp, w.Mpps)
					}
				}
			}
			x := float64(ph) + nudge(gi)
			if len(p99) > 0 {
				v := median(p99)
				latXY = append(latXY, plotter.XY{X: x, Y: figure.Log10(v, 1)})
				llo, lhi = min(llo, max(v, 1)), max(lhi, v)
			}
			if len(mp) > 0 {
				v := median(mp)
				mppsXY = append(mppsXY, plotter.XY{X: x, Y: v})
				mhi = max(mhi, v)
			}
		}
		var costs []float64
		for _, k := range g.kinds {
			costs = append(costs, k.UpdateNs...)
		}
		if len(costs) > 0 {
			slices.Sort(costs)
			for qi, q := range updateQuantiles {
				v := costs[min(int(math.Ceil(q*float64(len(costs))))-1, len(costs)-1)]
				if q == 1 {
					v = costs[len(costs)-1]
				}
				updXY = append(updXY, plotter.XY{X: float64(qi) + nudge(gi), Y: figure.Log10(v, 1)})
				ulo, uhi = min(ulo, max(v, 1)), max(uhi, v)
			}
		}
		var thumbs []plot.Thumbnailer
		for _, pp := range []struct {
			p   *plot.Plot
			xys plotter.XYs
		}{{lat, latXY}, {mpps, mppsXY}, {upd, updXY}} {
			l, sc, err := add(pp.p, gi, pp.xys)
			if err != nil {
				return nil, err
			}
			if l != nil && thumbs == nil {
				thumbs = []plot.Thumbnailer{l, sc}
			}
		}
		if thumbs != nil {
			leg.Add(g.title(), thumbs...)
		}
	}
	lat.NominalX(phases...)
	mpps.NominalX(phases...)
	upd.NominalX(updateQuantileNames...)
	lat.X.Min, lat.X.Max = -0.5, float64(len(phases))-0.5
	mpps.X.Min, mpps.X.Max = lat.X.Min, lat.X.Max
	upd.X.Min, upd.X.Max = -0.5, float64(len(updateQuantiles))-0.5
	if lhi > 0 {
		lat.Y.Min, lat.Y.Max = math.Log10(llo/1.5), math.Log10(lhi*1.5)
	}
	if uhi > 0 {
		upd.Y.Min, upd.Y.Max = math.Log10(ulo/1.5), math.Log10(uhi*1.5)
	}
	mpps.Y.Min, mpps.Y.Max = 0, max(mhi*1.1, 0.1)
	return &figure.Figure{Title: "What a burst of updates does, per filter (medians over bursts)",
		Panels: [][]*plot.Plot{{lat, mpps, upd}}, Legend: leg, Width: 9 * vg.Inch, Height: 3.4 * vg.Inch}, nil
}

var (
	updateQuantiles     = []float64{0.5, 0.99, 0.999, 1}
	updateQuantileNames = []string{"p50", "p99", "p99.9", "max"}
)
