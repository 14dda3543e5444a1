package paper

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/ofswitch/ofswitch/internal/figure"
)

// WriteText prints both experiments as aligned tables.
func (r *Result) WriteText(w io.Writer) error {
	c := r.Config
	fmt.Fprintf(w, "Bloom-Cuckoo paper experiments: m=%d buckets, f=%d, max %d iterations, %d trials, %d replacements to steady state, %d FPR queries per trial, seed %d\n",
		c.Buckets, c.FingerprintBits, c.MaxIterations, c.Trials, c.Replacements, c.Queries, c.Seed)
	titles := []string{
		1: "Experiment 1: a burst of 256 insertions at each occupancy (cuckoo at o and Bloom-Cuckoo at o·49/48 use the same bits per element)",
		2: "Experiment 2: bursts of 128 to 1024 insertions at the highest occupancy",
		3: "Experiment 3: two Bloom bits per bucket (future-work variant), burst of 1024; FPR ratio against the plain cuckoo row of experiment 2",
	}
	var base float64
	for exp := 1; exp < len(titles); exp++ {
		fmt.Fprintln(w, "\n"+titles[exp])
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "filter\tt\toccupancy\tburst\tmax iter\tmean max iter\tmean iter\tbloom elems\tfailed\tFPR\tFPR theory\tFPR/cuckoo\t")
		for _, row := range r.Rows {
			if row.Experiment != exp {
				continue
			}
			if row.T < 0 {
				base = row.FPR
			}
			t := "-"
			if row.T >= 0 {
				t = fmt.Sprint(row.T)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.4f\t%d\t%d\t%.1f\t%.3f\t%.1f\t%d\t%.5f\t%.5f\t%.2fx\t\n",
				row.Filter, t, row.Occupancy, row.Burst, row.MaxIterations, row.MeanMaxIterations,
				row.MeanIterations, row.BloomElements, row.Failed, row.FPR, row.FPRTheory, row.FPR/base)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

type series struct {
	name  string
	color int // palette index: bloom-cuckoo t in the order of Ts, cuckoo after them
	pts   plotter.XYs
}

// byFilter groups the rows of one experiment into one series per filter
// and t, with x and y taken from each row.
func (r *Result) byFilter(exp int, x, y func(Row) float64) []series {
	var out []series
	idx := map[int]int{}
	for _, row := range r.Rows {
		if row.Experiment != exp {
			continue
		}
		i, ok := idx[row.T]
		if !ok {
			s := series{name: "cuckoo", color: len(Ts)}
			if row.T >= 0 {
				s.name = fmt.Sprintf("bloom-cuckoo t=%d", row.T)
				s.color = len(Ts) + 1 + row.T // a t outside Ts
				for j, t := range Ts {
					if t == row.T {
						s.color = j
					}
				}
			}
			i = len(out)
			idx[row.T] = i
			out = append(out, s)
		}
		out[i].pts = append(out[i].pts, plotter.XY{X: x(row), Y: y(row)})
	}
	return out
}

// Plot writes one figure per figure of the paper's evaluation (figures 3
// to 8) into dir, each as SVG and PNG (internal/figure's look: legend
// outside the data, one colour and marker per filter), and returns the
// files written.
func (r *Result) Plot(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	occ := func(row Row) float64 { return row.Occupancy }
	burst := func(row Row) float64 { return float64(row.Burst) }
	const (
		occLabel   = "occupancy (fraction of the filter's slots filled)"
		burstLabel = "burst size (insertions, log scale)"
	)
	figs := []struct {
		file, title, xl, yl string
		exp                 int
		x, y                func(Row) float64
		logX, logY          bool
	}{
		{"fig3-max-iterations", "Figure 3: worst insertion of a burst of 256", occLabel, "max iterations (log scale)", 1, occ,
			func(r Row) float64 { return float64(r.MaxIterations) }, false, true},
		{"fig4-mean-iterations", "Figure 4: mean cost of an insertion, burst of 256", occLabel, "mean iterations per insertion", 1, occ,
			func(r Row) float64 { return r.MeanIterations }, false, false},
		{"fig5-fpr", "Figure 5: false-positive rate after a burst of 256", occLabel, "false-positive rate", 1, occ,
			func(r Row) float64 { return r.FPR }, false, false},
		{"fig6-max-iterations-burst", "Figure 6: worst insertion by burst size", burstLabel, "max iterations (log scale)", 2, burst,
			func(r Row) float64 { return float64(r.MaxIterations) }, true, true},
		{"fig7-bloom-elements", "Figure 7: elements in the Bloom part by burst size", burstLabel, "elements in the Bloom part", 2, burst,
			func(r Row) float64 { return r.BloomElements }, true, false},
		{"fig8-fpr-burst", "Figure 8: false-positive rate by burst size", burstLabel, "false-positive rate", 2, burst,
			func(r Row) float64 { return r.FPR }, true, false},
	}
	var files []string
	for _, fg := range figs {
		p := figure.New("", fg.xl, fg.yl)
		// A log axis holds log10 of the values (figure.LogTicks).
		if fg.logX {
			p.X.Tick.Marker = burstTicks{}
		}
		if fg.logY {
			p.Y.Tick.Marker = figure.LogTicks{}
		}
		leg := figure.NewLegend()
		ylo, yhi := math.Inf(1), math.Inf(-1)
		for _, s := range r.byFilter(fg.exp, fg.x, fg.y) {
			pts := slices.Clone(s.pts)
			for i := range pts {
				if fg.logX {
					pts[i].X = math.Log10(pts[i].X)
				}
				if fg.logY {
					pts[i].Y = figure.Log10(pts[i].Y, 1) // 0 iterations: drawn at 1
				}
			}
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return files, fmt.Errorf("plot %s: %w", fg.file, err)
			}
			l.LineStyle = figure.LineStyle(s.color)
			sc.GlyphStyle = figure.GlyphStyle(s.color)
			p.Add(l, sc)
			leg.Add(s.name, l, sc)
			for _, pt := range pts {
				ylo, yhi = min(ylo, pt.Y), max(yhi, pt.Y)
			}
		}
		// Room above and below the data, so that no marker sits on the frame.
		if !math.IsInf(ylo, 0) {
			if fg.logY {
				p.Y.Min, p.Y.Max = ylo-0.18, yhi+0.18
			} else {
				pad := max((yhi-ylo)*0.08, math.Abs(yhi)*0.02, 1e-9)
				p.Y.Min, p.Y.Max = max(ylo-pad, 0), yhi+pad
			}
		}
		pad := (p.X.Max - p.X.Min) * 0.05
		p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
		f := &figure.Figure{Title: fg.title, Panels: [][]*plot.Plot{{p}}, Legend: leg, Width: 6.5 * vg.Inch, Height: 3.6 * vg.Inch}
		out, err := f.Save(dir, fg.file)
		files = append(files, out...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// burstTicks labels an axis of log10 burst sizes at each size the paper
// uses.
type burstTicks struct{}

func (burstTicks) Ticks(lo, hi float64) []plot.Tick {
	var t []plot.Tick
	for _, n := range Bursts {
		if v := math.Log10(float64(n)); v >= lo && v <= hi {
			t = append(t, plot.Tick{Value: v, Label: fmt.Sprint(n)})
		}
	}
	return t
}
