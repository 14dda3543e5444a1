package replay

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// SummaryWidth is the widest line WriteSummary writes (findings are
// wrapped to it).
const SummaryWidth = 100

// WriteSummary writes what a person reads first: the setup in a few
// lines, one row per filter configuration with the medians over the
// repeats, the spread of the repeats, and the findings.
func (r *Report) WriteSummary(w io.Writer) error {
	var b strings.Builder
	names := make([]string, len(r.Captures))
	for i, c := range r.Captures {
		names[i] = filepath.Base(c)
	}
	fmt.Fprintf(&b, "replay: %d rules + %d synthetic flows in table 0, its filter %d buckets; %s\n",
		r.Rules, r.Prefill, r.FilterBuckets, plural(r.Workers, "worker"))
	fmt.Fprintf(&b, "traffic: %s (%d frames a pass)\n", strings.Join(names, ", "), r.Frames)
	if r.Burst > 0 && len(r.Kinds) > 0 {
		fmt.Fprintf(&b, "bursts: %d of %d updates (adds and deletes) per run; %s of each filter, interleaved\n",
			len(r.Kinds[0].Bursts), r.Burst, plural(r.Repeats, "run"))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%-8s  %-11s  %-27s  %-10s  %-11s  %s\n", "", "lookup Mpps", "per-update cost, µs", "iterations", "burst ms", "false pos. rate")
	fmt.Fprintf(&b, "%-8s  %5s %5s  %6s %6s %6s %6s  %4s %5s  %5s %5s  %7s %7s\n", "filter", "idle", "burst",
		"p50", "p99", "p99.9", "max", "p99", "max", "wall", "cpu", "before", "after")
	for _, k := range r.Summary {
		fmt.Fprintf(&b, "%-8s  %5.2f %5.2f  %6.2f %6.1f %6.1f %6.0f  %4.0f %5.0f  %5.2f %5.2f  %7.4f %7.4f\n", k.Filter,
			k.IdleMpps.Median, k.BurstMpps.Median, k.UpdateP50Ns.Median/1e3, k.UpdateP99Ns.Median/1e3,
			k.UpdateP999Ns.Median/1e3, k.UpdateMaxNs.Median/1e3, k.IterationsP99.Median, k.IterationsMax.Median,
			k.ApplyMs.Median, k.CPUMs.Median, k.FPRBefore.Median, k.FPRAfter.Median)
	}
	if r.Repeats > 1 {
		fmt.Fprintf(&b, "\nmedians of %d runs; spread of the runs, (max-min)/median:\n", r.Repeats)
		for _, k := range r.Summary {
			pc := func(s Stat) string { return fmt.Sprintf("%.0f%%", 100*s.Spread()) }
			fmt.Fprintf(&b, "%-8s  %5s %5s  %6s %6s %6s %6s  %4s %5s  %5s %5s\n", k.Filter, pc(k.IdleMpps), pc(k.BurstMpps),
				pc(k.UpdateP50Ns), pc(k.UpdateP99Ns), pc(k.UpdateP999Ns), pc(k.UpdateMaxNs), pc(k.IterationsP99),
				pc(k.IterationsMax), pc(k.ApplyMs), pc(k.CPUMs))
		}
	}
	b.WriteString("\n")
	for _, f := range r.Findings {
		b.WriteString(wrap("- "+f, "  ", SummaryWidth))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap breaks s into lines of at most width bytes at spaces, the lines
// after the first indented by indent.
func wrap(s, indent string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && line+1+len(word) > width {
			b.WriteString("\n" + indent)
			line = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	b.WriteByte('\n')
	return b.String()
}

// plural returns "1 worker", "2 workers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
