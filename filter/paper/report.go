package paper

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
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
	name string
	pts  plotter.XYs
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
			name := "cuckoo"
			if row.T >= 0 {
				name = fmt.Sprintf("bloom-cuckoo t=%d", row.T)
			}
			i = len(out)
			idx[row.T] = i
			out = append(out, series{name: name})
		}
		out[i].pts = append(out[i].pts, plotter.XY{X: x(row), Y: y(row)})
	}
	return out
}

// Plot writes one SVG per figure of the paper's evaluation (figures 3 to 8)
// into dir and returns the files written.
func (r *Result) Plot(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	occ := func(row Row) float64 { return row.Occupancy }
	burst := func(row Row) float64 { return float64(row.Burst) }
	figs := []struct {
		file, title, xl, yl string
		exp                 int
		x, y                func(Row) float64
		logY                bool
	}{
		{"fig3-max-iterations.svg", "Max iterations, burst of 256", "occupancy", "max iterations", 1, occ, func(r Row) float64 { return float64(r.MaxIterations) }, true},
		{"fig4-mean-iterations.svg", "Mean iterations, burst of 256", "occupancy", "mean iterations", 1, occ, func(r Row) float64 { return r.MeanIterations }, false},
		{"fig5-fpr.svg", "False-positive rate after a burst of 256", "occupancy", "FPR", 1, occ, func(r Row) float64 { return r.FPR }, false},
		{"fig6-max-iterations-burst.svg", "Max iterations by burst size", "burst size", "max iterations", 2, burst, func(r Row) float64 { return float64(r.MaxIterations) }, true},
		{"fig7-bloom-elements.svg", "Elements in the Bloom part by burst size", "burst size", "elements", 2, burst, func(r Row) float64 { return r.BloomElements }, false},
		{"fig8-fpr-burst.svg", "False-positive rate by burst size", "burst size", "FPR", 2, burst, func(r Row) float64 { return r.FPR }, false},
	}
	var files []string
	for _, fg := range figs {
		p := plot.New()
		p.Title.Text = fg.title
		p.X.Label.Text = fg.xl
		p.Y.Label.Text = fg.yl
		if fg.logY {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		p.Legend.Top = true
		p.Legend.Left = true
		var args []any
		for _, s := range r.byFilter(fg.exp, fg.x, fg.y) {
			args = append(args, s.name, s.pts)
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return files, fmt.Errorf("plot %s: %w", fg.file, err)
		}
		path := filepath.Join(dir, fg.file)
		if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
			return files, fmt.Errorf("plot %s: %w", fg.file, err)
		}
		files = append(files, path)
	}
	return files, nil
}
