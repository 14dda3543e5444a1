package replay

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot writes three SVG files into dir (created if missing) and returns
// their paths: lookup latency over time with the bursts marked, the CDF
// of per-update cost for each filter configuration, and Mpps per worker.
func (r *Report) Plot(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	save := func(p *plot.Plot, name string) error {
		path := filepath.Join(dir, name)
		if err := p.Save(7*vg.Inch, 4*vg.Inch, path); err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		files = append(files, path)
		return nil
	}

	// 1. Lookup latency over time.
	p := plot.New()
	p.Title.Text = "Lookup latency (p50 of one batch of ≤ 32 keys per time bin); bursts marked"
	p.X.Label.Text = "seconds since replay start"
	p.Y.Label.Text = "ns per batch"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	lo, hi := 1e18, 1.0
	for _, k := range r.Kinds {
		for _, pt := range k.Timeline.Points(0) {
			lo, hi = min(lo, max(pt.P50, 1)), max(hi, pt.P50)
		}
	}
	for i, k := range r.Kinds {
		tl := k.Timeline.Points(0)
		if len(tl) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(tl))
		for j, pt := range tl {
			pts[j] = plotter.XY{X: pt.T, Y: max(pt.P50, 1)}
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return files, err
		}
		s.GlyphStyle.Color = plotutil.Color(i)
		s.GlyphStyle.Radius = vg.Points(1)
		p.Add(s)
		p.Legend.Add(k.Filter, s)
		for _, at := range k.BurstAt {
			l, err := plotter.NewLine(plotter.XYs{{X: at, Y: lo}, {X: at, Y: hi}})
			if err != nil {
				return files, err
			}
			l.Color = plotutil.Color(i)
			l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			p.Add(l)
		}
	}
	if err := save(p, "lookup-latency.svg"); err != nil {
		return files, err
	}

	// 2. Per-update cost CDF.
	p = plot.New()
	p.Title.Text = "Per-update cost during bursts"
	p.X.Label.Text = "ns per update"
	p.Y.Label.Text = "fraction of updates"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	var args []any
	for _, k := range r.Kinds {
		if len(k.UpdateNs) == 0 {
			continue
		}
		v := slices.Clone(k.UpdateNs)
		slices.Sort(v)
		pts := make(plotter.XYs, len(v))
		for j, x := range v {
			pts[j] = plotter.XY{X: max(x, 1), Y: float64(j+1) / float64(len(v))}
		}
		args = append(args, k.Filter, pts)
	}
	if len(args) > 0 {
		if err := plotutil.AddLines(p, args...); err != nil {
			return files, err
		}
	}
	if err := save(p, "update-cost-cdf.svg"); err != nil {
		return files, err
	}

	// 3. Mpps per worker.
	p = plot.New()
	p.Title.Text = "Parse + classify + act, Mpps per worker"
	p.Y.Label.Text = "Mpps"
	p.Legend.Top = true
	nw := 0
	for _, k := range r.Kinds {
		nw = max(nw, len(k.MppsPerWorker))
	}
	width := vg.Points(40 / float64(max(nw, 1)))
	for wi := range nw {
		vals := make(plotter.Values, len(r.Kinds))
		for i, k := range r.Kinds {
			if wi < len(k.MppsPerWorker) {
				vals[i] = k.MppsPerWorker[wi]
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return files, err
		}
		bars.Color = plotutil.Color(wi)
		bars.LineStyle.Color = color.Black
		bars.Offset = width * vg.Length(float64(wi)-float64(nw-1)/2)
		p.Add(bars)
		p.Legend.Add(fmt.Sprintf("worker %d", wi), bars)
	}
	names := make([]string, len(r.Kinds))
	for i, k := range r.Kinds {
		names[i] = k.Filter
	}
	p.NominalX(names...)
	if err := save(p, "mpps-per-worker.svg"); err != nil {
		return files, err
	}
	return files, nil
}
