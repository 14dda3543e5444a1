package figure

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// LogTicks marks a log axis. The axis holds log10 of the values: plot
// log10(v) (see Log10) on a linear scale rather than v with
// plot.LogScale, whose axis label gonum lays out at the arithmetic middle
// of the range, near one end, so that panels misalign. Decades are
// labelled (with Format of the value, %g if nil); if at most three
// decades are in range, 2× and 5× are labelled too, and beyond four
// decades only decades are marked.
type LogTicks struct{ Format func(float64) string }

// Ticks implements plot.Ticker.
func (t LogTicks) Ticks(lo, hi float64) []plot.Tick {
	f := t.Format
	if f == nil {
		f = func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	}
	ticks := logTicks(math.Pow(10, lo), math.Pow(10, hi), f)
	for i := range ticks {
		ticks[i].Value = math.Log10(ticks[i].Value)
	}
	return ticks
}

// Log10 is the position of v on an axis marked by LogTicks; values ≤ 0
// are drawn at floor.
func Log10(v, floor float64) float64 { return math.Log10(max(v, floor)) }

func logTicks(lo, hi float64, label func(float64) string) []plot.Tick {
	lo, hi = max(lo, 1e-12), max(hi, 1e-12)
	first := math.Floor(math.Log10(lo))
	last := math.Ceil(math.Log10(hi))
	dense, sparse := last-first <= 3, last-first > 4
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		dec := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * dec
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) || sparse && m != 1 {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || dense && (m == 2 || m == 5) {
				t.Label = label(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// LinearTicks marks a linear axis with about N labelled ticks (default
// 6) at steps of 1, 2 or 5 times a power of ten, and unlabelled ticks
// halfway.
type LinearTicks struct{ N int }

// Ticks implements plot.Ticker.
func (t LinearTicks) Ticks(lo, hi float64) []plot.Tick {
	n := t.N
	if n <= 0 {
		n = 6
	}
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step * 2); i/2*step <= hi*(1+1e-9); i++ {
		v := i / 2 * step
		tk := plot.Tick{Value: v}
		if int(i)%2 == 0 {
			tk.Label = strconv.FormatFloat(v, 'f', max(0, -int(math.Floor(math.Log10(step)))), 64)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// FormatNs formats a duration in ns with the largest unit that keeps
// the number ≥ 1: 250 ns, 1.5 µs, 20 ms.
func FormatNs(ns float64) string {
	unit, div := "ns", 1.0
	switch a := math.Abs(ns); {
	case a >= 1e9:
		unit, div = "s", 1e9
	case a >= 1e6:
		unit, div = "ms", 1e6
	case a >= 1e3:
		unit, div = "µs", 1e3
	}
	return strconv.FormatFloat(ns/div, 'g', 3, 64) + " " + unit
}
