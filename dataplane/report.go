package dataplane

import (
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// WriteText writes the report for people: one line per filter
// configuration side by side, then per configuration the counters, the
// top rules and one line per burst.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	names := make([]string, len(r.Captures))
	for i, c := range r.Captures {
		names[i] = filepath.Base(c)
	}
	fmt.Fprintf(&b, "replay of %s (%d frames per pass) against %d rules on %d workers", strings.Join(names, ", "), r.Frames, r.Rules, r.Workers)
	if r.Burst > 0 {
		fmt.Fprintf(&b, ", bursts of %d updates", r.Burst)
	}
	b.WriteString("\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "filter\tpackets\tpackets/s\tMpps/worker\ttable miss\tFPR\tfilter elems\tBloom part\toccupancy\t")
	for _, k := range r.Kinds {
		mw := make([]string, len(k.MppsPerWorker))
		for i, m := range k.MppsPerWorker {
			mw[i] = fmt.Sprintf("%.2f", m)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%.2f%%\t%.4f\t%d\t%d\t%.3f\t\n", k.Filter, k.Packets, k.PPS, strings.Join(mw, " "),
			100*k.MissRate, k.FPR, k.Table.FilterLen, k.Table.FilterBloomLen, k.Table.Occupancy)
	}
	tw.Flush()
	for _, k := range r.Kinds {
		c := &k.Counters
		fmt.Fprintf(&b, "\n%s: %s\n", k.Filter, c.Parse.String())
		if k.HostSteal > 0 {
			fmt.Fprintf(&b, "  host steal: %.0f ms of CPU time taken by the hypervisor in %.2f s (a burst window it hits shows fewer packets)\n",
				1e3*k.HostSteal, k.Seconds)
		}
		fmt.Fprintf(&b, "  classified=%d hits=%d misses=%d drops=%d outputs=%d packet-ins=%d rewrites=%d ttl-expired=%d lookups=%d filter-negatives=%d false-positives=%d probes=%d retries=%d\n",
			c.Packets, c.Hits, c.Misses, c.Drops, c.Outputs, c.PacketIns, c.Rewrites, c.TTLExpired,
			c.Lookup.Lookups, c.Lookup.FilterNegatives, c.Lookup.FalsePositives, c.Lookup.Probes, c.Lookup.Retries)
		for _, p := range k.Ports {
			fmt.Fprintf(&b, "  %v\n", p)
		}
		if len(k.Top) > 0 {
			fmt.Fprintf(&b, "  top %d rules by packets:\n", len(k.Top))
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "    packets\ttable\tid\tflow")
			for _, t := range k.Top {
				fmt.Fprintf(tw, "    %d\t%d\t%d\t%s\n", t.Packets, t.Table, t.ID, t.Flow)
			}
			tw.Flush()
		}
		if len(k.Bursts) == 0 {
			continue
		}
		fmt.Fprintf(&b, "  bursts (apply: first update to last visible; update cost in ns and filter iterations; lookup: one batch of up to 32, ns; Mpps and lookup p50/p99 before | during | after):\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "    #\tat s\tadd/del\tapply µs\tns p50/p99/max\titer p50/p99/max\tMpps b|d|a\tlookup p50 b|d|a\tlookup p99 b|d|a\tBloom part\toccupancy\tFPR after\t")
		for _, br := range k.Bursts {
			iter := "-"
			if br.Iterations.N > 0 {
				iter = fmt.Sprintf("%.0f/%.0f/%.0f", br.Iterations.P50, br.Iterations.P99, br.Iterations.Max)
			} else if br.Rebuilt {
				iter = "rebuilt"
			}
			ph := [3]*Phase{&br.Before, &br.During, &br.After}
			three := func(f func(*Phase) string) string {
				s := make([]string, 3)
				for i, p := range ph {
					s[i] = "-"
					if p.LookupNs.N > 0 {
						s[i] = f(p)
					}
				}
				return strings.Join(s, "|")
			}
			fmt.Fprintf(tw, "    %d\t%.3f\t%d/%d\t%.0f\t%.0f/%.0f/%.0f\t%s\t%s\t%s\t%s\t%d (%.1f%%)\t%.3f\t%.4f\t\n",
				br.Index, br.At, br.Adds, br.Deletes, float64(br.ApplyNs)/1e3,
				br.UpdateNs.P50, br.UpdateNs.P99, br.UpdateNs.Max, iter,
				three(func(p *Phase) string { return fmt.Sprintf("%.2f", p.Mpps) }),
				three(func(p *Phase) string { return fmt.Sprintf("%.0f", p.LookupNs.P50) }),
				three(func(p *Phase) string { return fmt.Sprintf("%.0f", p.LookupNs.P99) }),
				br.FilterBloomLen, 100*br.BloomShare, br.Occupancy, br.After.FPR)
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

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
	p.Title.Text = "Lookup latency (one batch of ≤ 32 keys); bursts marked"
	p.X.Label.Text = "seconds since replay start"
	p.Y.Label.Text = "ns per batch"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	lo, hi := 1e18, 1.0
	for _, k := range r.Kinds {
		for _, pt := range k.Timeline {
			lo, hi = min(lo, max(pt.Ns, 1)), max(hi, pt.Ns)
		}
	}
	for i, k := range r.Kinds {
		if len(k.Timeline) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(k.Timeline))
		for j, pt := range k.Timeline {
			pts[j] = plotter.XY{X: pt.T, Y: max(pt.Ns, 1)}
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
