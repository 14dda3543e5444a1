package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Findings returns one sentence per finding, each computed from the
// summary's figures (medians over the repeats; a difference that the
// repeats' middle runs, Stat.Q1 to Q3, do not separate is called a tie,
// never a win; the lookup comparison, which picks the fastest of several
// filters, needs every round to agree and a difference of LookupMargin). Times are compared as ratios to
// filter none's in the same round (relate):
//
//   - the longest filter walk of plain cuckoo against Bloom-Cuckoo's;
//   - the ranking by burst apply time;
//   - the per-update tail (p99) of plain cuckoo against Bloom-Cuckoo and
//     no filter;
//   - lookups: with and without a filter, and during bursts against idle;
//   - the false-positive rate the Bloom part costs;
//   - what the slowest updates were: a long walk, or noise (host steal, a
//     garbage collection) or neither, seen in their burst.
//
// A finding whose configurations were not run is left out. m is the
// machine the replay ran on, named when bursts found the workers without
// a CPU.
func Findings(s []KindSummary, m Machine) []string {
	var out []string
	by := map[string]*KindSummary{}
	var bcf []*KindSummary
	for i := range s {
		k := &s[i]
		by[k.Filter] = k
		if strings.HasPrefix(k.Filter, "bcf") {
			bcf = append(bcf, k)
		}
	}
	cf, none := by["cf"], by["none"]
	// The best Bloom-Cuckoo configuration by its longest walk.
	var best *KindSummary
	for _, k := range bcf {
		if best == nil || k.IterationsMax.Median < best.IterationsMax.Median {
			best = k
		}
	}
	if cf != nil && best != nil && cf.IterationsMax.Median > 0 {
		var each []string
		for _, k := range bcf {
			each = append(each, fmt.Sprintf("%.0f (%s, %s)", k.IterationsMax.Median, k.Filter, usOf(k.Longest.Ns)))
		}
		out = append(out, fmt.Sprintf("Plain cuckoo's longest filter walk took %.0f iterations (%s); Bloom-Cuckoo's took %s: %.0f× fewer at best.",
			cf.IterationsMax.Median, usOf(cf.Longest.Ns), strings.Join(each, ", "),
			cf.IterationsMax.Median/max(best.IterationsMax.Median, 1)))
	}
	if len(s) > 1 && s[0].ApplyMs.Median > 0 {
		// Rank by the burst time relative to the baseline's in the same
		// round, which the host's slow and fast spells change far less
		// than the time itself; the controller's CPU time where it was
		// measured, which leaves out its waits for a CPU.
		what := "wall time"
		apply := func(k *KindSummary) Stat { return k.ApplyMs }
		if s[0].CPUMs.Median > 0 {
			what = "the controller's CPU time"
			apply = func(k *KindSummary) Stat { return k.CPUMs }
		}
		base := s[0].Filter
		if none != nil {
			base = none.Filter
		}
		ratio := func(k *KindSummary) Stat { return k.ApplyRatio }
		out = append(out, fmt.Sprintf("Bursts ranked by %s over %s's in the same round, fastest first (=: the middle runs overlap): %s.",
			what, base, ranking(s, ratio, "×")))
		if cf != nil && best != nil {
			fast := fastest(bcf, ratio)
			out = append(out, fmt.Sprintf("A burst took %s (%s) with %s against %s with plain cuckoo%s.",
				msOf(apply(fast).Median), what, fast.Filter, msOf(apply(cf).Median), times(ratio(cf), ratio(fast), "faster")))
		}
	}
	if cf != nil && best != nil {
		fast := fastest(bcf, func(k *KindSummary) Stat { return k.UpdateP99Ns })
		line := fmt.Sprintf("At p99 an update took %s with %s and %s with plain cuckoo%s",
			usOf(fast.UpdateP99Ns.Median), fast.Filter, usOf(cf.UpdateP99Ns.Median), times(cf.UpdateP99Ns, fast.UpdateP99Ns, "less"))
		if none != nil {
			line += fmt.Sprintf("; without a filter %s", usOf(none.UpdateP99Ns.Median))
		}
		out = append(out, line+".")
	}
	if none != nil {
		// Compared by each filter's lookup rate over none's in the same
		// round, as the bursts are; and, the fastest of several filters
		// being picked, a difference stands only if every round agrees.
		var top *KindSummary
		for i := range s {
			if k := &s[i]; k.Filter != "none" && (top == nil || k.IdleRatio.Median > top.IdleRatio.Median) {
				top = k
			}
		}
		if top != nil && top.IdleRatio.Median > 0 {
			r := top.IdleRatio
			switch {
			case r.Min <= 1 && 1 <= r.Max || math.Abs(r.Median-1) < LookupMargin:
				out = append(out, fmt.Sprintf("Lookups ran as fast with a filter as without: the fastest filter, %s, at %.2f× none's rate in the same round (%.2f Mpps idle against %.2f), a difference under %.0f%% or one the rounds do not agree on.",
					top.Filter, r.Median, top.IdleMpps.Median, none.IdleMpps.Median, 100*LookupMargin))
			case r.Max < 1:
				out = append(out, fmt.Sprintf("Lookups ran faster without a filter (%.2f Mpps idle) than with any: the fastest filter, %s, ran at %.2f× none's rate in the same round; in this table the filter's checks cost more than the hash probes they save.",
					none.IdleMpps.Median, top.Filter, r.Median))
			default:
				out = append(out, fmt.Sprintf("Lookups ran faster with a filter: %s at %.2f× none's rate in the same round (%.2f Mpps idle against %.2f); the filter saves more hash probes than its checks cost.",
					top.Filter, r.Median, top.IdleMpps.Median, none.IdleMpps.Median))
			}
		}
	}
	lo, hi := 0.0, 0.0
	for i := range s {
		if s[i].IdleMpps.Median <= 0 || s[i].BurstMpps.Median <= 0 {
			continue
		}
		r := s[i].BurstMpps.Median / s[i].IdleMpps.Median
		if lo == 0 || r < lo {
			lo = r
		}
		hi = max(hi, r)
	}
	if hi > 0 {
		out = append(out, fmt.Sprintf("During bursts lookups ran at %.0f-%.0f%% of their idle rate (medians of every configuration).", 100*lo, 100*hi))
	}
	if cf != nil && len(bcf) > 0 {
		worst := fastest(bcf, func(k *KindSummary) Stat { return Stat{Median: -k.FPRAfter.Median} })
		what, more := "The Bloom part costs false positives", ""
		if worst.FPRAfter.Overlaps(cf.FPRAfter) || worst.FPRAfter.Median <= cf.FPRAfter.Median {
			what = "The Bloom part cost no false positives the runs can tell from plain cuckoo's"
		} else if cf.FPRAfter.Median > 0 {
			more = fmt.Sprintf(", %.1f× as many", worst.FPRAfter.Median/cf.FPRAfter.Median)
		}
		out = append(out, fmt.Sprintf("%s: after a burst %.4f of random absent keys passed %s's filter, %.4f plain cuckoo's%s (before a burst %.4f and %.4f).",
			what, worst.FPRAfter.Median, worst.Filter, cf.FPRAfter.Median, more, worst.FPRBefore.Median, cf.FPRBefore.Median))
	}
	if n := noise(s); n != "" {
		out = append(out, n)
	}
	empty, bursts := 0, 0
	for _, k := range s {
		empty += k.EmptyWindows
		bursts += k.Bursts
	}
	if empty > 0 {
		line := fmt.Sprintf("In %d of %d bursts no worker made a lookup while the burst was applied, as when the workers lose their CPU; the burst Mpps counts those windows as 0", empty, bursts)
		if m.CPUs > 0 && m.LoadAvg > 0 {
			line += fmt.Sprintf(" (load average %.1f on %s, of which the replay's %s and controller make at most %d)",
				m.LoadAvg, plural(m.CPUs, "CPU"), plural(m.Workers, "worker"), m.Workers+1)
		}
		out = append(out, line+".")
	}
	return out
}

// LookupMargin is the smallest difference between a filter's lookup rate
// and none's that the findings call faster or slower, even when every
// round agrees: one replay process can put every round of a filter 4%
// above none's rate and the next every round 3% below, with the same
// binary and seeds (the rounds of a process share its memory placement,
// such as which of the table's pages are huge).
const LookupMargin = 0.05

// Machine is what Findings knows of the machine a replay ran on.
type Machine struct {
	CPUs    int     // GOMAXPROCS
	LoadAvg float64 // one-minute load average at the end, 0 if unknown
	Workers int     // the replay's workers
}

// noise explains the slowest update of each configuration: its filter
// walk, or what its burst saw of host steal and garbage collection.
func noise(s []KindSummary) string {
	var walk, index, wait, steal, gc, none []string
	for _, k := range s {
		o := k.Slowest
		if o.Ns == 0 {
			continue
		}
		name := fmt.Sprintf("%s's (%s)", k.Filter, usOf(o.Ns))
		switch {
		case o.RunDelaySeconds*1e9 >= o.Ns/2:
			wait = append(wait, fmt.Sprintf("%s, %s waiting", name, msOf(1e3*o.RunDelaySeconds)))
		case o.IndexRebuilds > 0:
			index = append(index, name)
		case o.HostStealSeconds > 0:
			steal = append(steal, fmt.Sprintf("%s, %s stolen", name, msOf(1e3*o.HostStealSeconds)))
		case o.GCCycles > 0:
			gc = append(gc, name)
		case o.Iterations > 0 && float64(o.Iterations)*perIteration(&k) >= o.Ns/2:
			walk = append(walk, fmt.Sprintf("%s, %d iterations", name, o.Iterations))
		default:
			none = append(none, name)
		}
	}
	var parts []string
	if len(walk) > 0 {
		parts = append(parts, "a long filter walk made the slowest update of "+strings.Join(walk, "; "))
	}
	if len(index) > 0 {
		parts = append(parts, "table 0's flow index was rebuilt (every flow rehashed) in the burst of "+strings.Join(index, ", "))
	}
	if len(wait) > 0 {
		parts = append(parts, "the controller's thread waited for a CPU in the burst of "+strings.Join(wait, "; "))
	}
	if len(steal) > 0 {
		parts = append(parts, "host steal hit the burst of "+strings.Join(steal, "; "))
	}
	if len(gc) > 0 {
		parts = append(parts, "a garbage collection ran in the burst of "+strings.Join(gc, ", "))
	}
	if len(none) > 0 {
		parts = append(parts, "neither a long walk, a wait for a CPU, host steal nor a garbage collection was seen for "+strings.Join(none, ", ")+
			" (the classifier's own work, or host steal below /proc/stat's 10 ms steps)")
	}
	if len(parts) == 0 {
		return ""
	}
	p := strings.Join(parts, "; ")
	return "Slowest updates: " + p + "."
}

// perIteration is what one filter iteration cost in k's longest walk, ns:
// a walk explains a slow update only if its iterations at that rate make
// up half its time.
func perIteration(k *KindSummary) float64 {
	if k.Longest.Iterations == 0 {
		return 0
	}
	return k.Longest.Ns / float64(k.Longest.Iterations)
}

// ranking lists the configurations by a figure, least first, joining
// neighbours whose middle runs overlap with "=" and the others with "<".
// A run of ties is listed in the configurations' own order, so that a tie
// reads the same whichever median came out lower.
func ranking(s []KindSummary, get func(*KindSummary) Stat, unit string) string {
	idx := make([]int, len(s))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(get(&s[a]).Median, get(&s[b]).Median) })
	var b strings.Builder
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && get(&s[idx[end-1]]).Overlaps(get(&s[idx[end]])) {
			end++
		}
		group := idx[start:end]
		slices.Sort(group)
		for n, i := range group {
			switch {
			case n > 0:
				b.WriteString(" = ")
			case start > 0:
				b.WriteString(" < ")
			}
			fmt.Fprintf(&b, "%s %.2f", s[i].Filter, get(&s[i]).Median)
			if unit == "×" {
				b.WriteString(unit)
			}
		}
		start = end
	}
	if unit != "×" {
		b.WriteString(" " + unit)
	}
	return b.String()
}

// fastest returns the configuration with the least median of get.
func fastest(ks []*KindSummary, get func(*KindSummary) Stat) *KindSummary {
	var best *KindSummary
	for _, k := range ks {
		if best == nil || get(k).Median < get(best).Median {
			best = k
		}
	}
	return best
}

// times says how many times a's median is b's, or that the repeats do
// not separate them.
func times(a, b Stat, word string) string {
	if a.Overlaps(b) || b.Median <= 0 {
		return " (the runs do not separate them)"
	}
	return fmt.Sprintf(", %.1f× %s", a.Median/b.Median, word)
}

func usOf(ns float64) string {
	if ns >= 1e4 {
		return fmt.Sprintf("%.0f µs", ns/1e3)
	}
	return fmt.Sprintf("%.1f µs", ns/1e3)
}

func msOf(ms float64) string { return fmt.Sprintf("%.2f ms", ms) }
