package replay

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ofswitch/ofswitch/rules"
)

// st is a Stat of three runs: median m and range lo..hi.
func st(m, lo, hi float64) Stat { return Stat{Median: m, Min: lo, Max: hi, Q1: lo, Q3: hi} }

// knownSummary is a summary with made-up figures whose findings the test
// knows: bcf t=0 bounds the walks and is faster than plain cuckoo by
// ranges that do not overlap; no filter looks up faster than any filter.
func knownSummary() []KindSummary {
	return []KindSummary{
		{Filter: "bcf t=0", Runs: 3, Bursts: 15, IdleMpps: st(1.8, 1.7, 1.9), BurstMpps: st(1.5, 1.4, 1.6),
			UpdateP99Ns: st(3500, 3000, 4000), IterationsP99: st(2, 2, 3), IterationsMax: st(5, 4, 6),
			ApplyMs: st(1.5, 1.2, 4.9), CPUMs: st(1.2, 1.1, 1.3), ApplyRatio: st(1.7, 1.6, 1.8), IdleRatio: st(0.82, 0.78, 0.85), FPRBefore: st(0.005, 0, 0.01), FPRAfter: st(0.015, 0.013, 0.02),
			Slowest: Outlier{Ns: 4.1e6, Iterations: 1, RunDelaySeconds: 4e-3}, Longest: Outlier{Ns: 2500, Iterations: 5}},
		{Filter: "cf", Runs: 3, Bursts: 15, EmptyWindows: 2, IdleMpps: st(1.85, 1.6, 1.95), BurstMpps: st(1.3, 1.2, 1.4),
			UpdateP99Ns: st(30000, 25000, 35000), IterationsP99: st(115, 100, 130), IterationsMax: st(204, 180, 250),
			ApplyMs: st(4.9, 4.5, 6), CPUMs: st(3.8, 3.5, 4.0), ApplyRatio: st(5.4, 5.0, 6.0), IdleRatio: st(0.84, 0.8, 0.9), FPRBefore: st(0.008, 0.006, 0.01), FPRAfter: st(0.01, 0.009, 0.011),
			Slowest: Outlier{Ns: 30000, Iterations: 180}, Longest: Outlier{Ns: 19000, Iterations: 204}},
		{Filter: "none", Runs: 3, Bursts: 15, IdleMpps: st(2.2, 2.15, 2.3), BurstMpps: st(1.1, 1.0, 2.0),
			UpdateP99Ns: st(2600, 2500, 2700), ApplyMs: st(1.0, 0.9, 1.1), CPUMs: st(0.7, 0.6, 0.8), ApplyRatio: st(1, 1, 1), IdleRatio: st(1, 1, 1),
			Slowest: Outlier{Ns: 200000, IndexRebuilds: 1}},
	}
}

// TestFindings feeds summaries with known figures to Findings and checks
// the sentences it computes, word for word.
func TestFindings(t *testing.T) {
	got := Findings(knownSummary(), Machine{CPUs: 2, LoadAvg: 2.5, Workers: 1})
	want := []string{
		"Plain cuckoo's longest filter walk took 204 iterations (19 µs); Bloom-Cuckoo's took 5 (bcf t=0, 2.5 µs): 41× fewer at best.",
		"Bursts ranked by the controller's CPU time over none's in the same round, fastest first (=: the middle runs overlap): none 1.00× < bcf t=0 1.70× < cf 5.40×.",
		"A burst took 1.20 ms (the controller's CPU time) with bcf t=0 against 3.80 ms with plain cuckoo, 3.2× faster.",
		"At p99 an update took 3.5 µs with bcf t=0 and 30 µs with plain cuckoo, 8.6× less; without a filter 2.6 µs.",
		"Lookups ran faster without a filter (2.20 Mpps idle) than with any: the fastest filter, cf, ran at 0.84× none's rate in the same round; in this table the filter's checks cost more than the hash probes they save.",
		"During bursts lookups ran at 50-83% of their idle rate (medians of every configuration).",
		"The Bloom part costs false positives: after a burst 0.0150 of random absent keys passed bcf t=0's filter, 0.0100 plain cuckoo's, 1.5× as many (before a burst 0.0050 and 0.0080).",
		"Slowest updates: a long filter walk made the slowest update of cf's (30 µs), 180 iterations; table 0's flow index was rebuilt (every flow rehashed) in the burst of none's (200 µs); the controller's thread waited for a CPU in the burst of bcf t=0's (4100 µs), 4.00 ms waiting.",
		"In 2 of 45 bursts no worker made a lookup while the burst was applied, as when the workers lose their CPU; the burst Mpps counts those windows as 0 (load average 2.5 on 2 CPUs, of which the replay's 1 worker and controller make at most 2).",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

// TestFindingsTies: where the runs' ranges overlap, the findings say the
// runs do not separate the configurations instead of ranking them.
func TestFindingsTies(t *testing.T) {
	s := knownSummary()
	s[1].CPUMs = st(1.4, 1.25, 2.0)
	s[1].ApplyRatio = st(2.0, 1.75, 2.5)    // overlaps bcf t=0's 1.6..1.8
	s[1].UpdateP99Ns = st(3900, 3800, 5000) // overlaps 3000..4000
	s[2].IdleMpps = st(1.95, 1.9, 2.3)
	s[1].IdleRatio = Stat{Median: 0.95, Min: 0.9, Max: 1.05, Q1: 0.92, Q3: 0.97} // one round had cf faster
	s[1].EmptyWindows = 0
	got := strings.Join(Findings(s, Machine{}), "\n")
	for _, want := range []string{
		"overlap): none 1.00× < bcf t=0 1.70× = cf 2.00×.",
		"A burst took 1.20 ms (the controller's CPU time) with bcf t=0 against 1.40 ms with plain cuckoo (the runs do not separate them).",
		"At p99 an update took 3.5 µs with bcf t=0 and 3.9 µs with plain cuckoo (the runs do not separate them)",
		"Lookups ran as fast with a filter as without: the fastest filter, cf, at 0.95× none's rate in the same round (1.85 Mpps idle against 1.95), a difference under 5% or one the rounds do not agree on.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	s[1].FPRAfter = st(0.016, 0.012, 0.02)
	if got := strings.Join(Findings(s, Machine{}), "\n"); !strings.Contains(got, "The Bloom part cost no false positives the runs can tell from plain cuckoo's: after a burst 0.0150") {
		t.Errorf("false positives within the runs' spread:\n%s", got)
	}
	// Every round agrees, but by less than LookupMargin: as fast.
	s[0].IdleRatio = st(1.04, 1.02, 1.06)
	if got := strings.Join(Findings(s, Machine{}), "\n"); !strings.Contains(got, "Lookups ran as fast with a filter as without: the fastest filter, bcf t=0, at 1.04×") {
		t.Errorf("a filter faster than none by less than the margin:\n%s", got)
	}
	s[0].IdleRatio = st(1.3, 1.2, 1.4)
	if got := strings.Join(Findings(s, Machine{}), "\n"); !strings.Contains(got, "Lookups ran faster with a filter: bcf t=0 at 1.30× none's rate in the same round (1.80 Mpps idle against 1.95)") {
		t.Errorf("a filter faster than none:\n%s", got)
	}
	if strings.Contains(got, "no worker made a lookup") {
		t.Errorf("an empty-window finding without empty windows:\n%s", got)
	}
	// Without plain cuckoo or Bloom-Cuckoo, the findings that compare
	// them are left out; wall time ranks where CPU time is not measured.
	only := []KindSummary{s[2]}
	only[0].CPUMs = Stat{}
	for _, f := range Findings(only, Machine{}) {
		if strings.Contains(f, "cuckoo") || strings.Contains(f, "ranked") {
			t.Errorf("finding %q with only filter none", f)
		}
	}
	two := []KindSummary{s[0], s[2]}
	two[0].CPUMs, two[1].CPUMs = Stat{}, Stat{}
	if got := strings.Join(Findings(two, Machine{}), "\n"); !strings.Contains(got, "Bursts ranked by wall time over none's in the same round, fastest first (=: the middle runs overlap): none 1.00× < bcf t=0 1.70×.") {
		t.Errorf("wall-time ranking missing:\n%s", got)
	}
}

// TestWriteSummary: the summary fits a 100-column terminal, has a row
// per configuration and the findings, wrapped.
func TestWriteSummary(t *testing.T) {
	r := &Report{Captures: []string{"demo.pcap", tableCaptureName}, Frames: 68536, Rules: 20, Workers: 1, Burst: 1024,
		FilterBuckets: 32768, Prefill: 124502, Repeats: 3, Summary: knownSummary(), Kinds: make([]KindReport, 3)}
	for i := range r.Kinds {
		r.Kinds[i].Bursts = make([]BurstReport, 5)
	}
	r.Findings = Findings(r.Summary, Machine{CPUs: 2, LoadAvg: 2.5, Workers: 1})
	var b strings.Builder
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > SummaryWidth {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	for _, want := range []string{"124502 synthetic flows", "32768 buckets", "1 worker\n", "5 of 1024 updates",
		"medians of 3 runs", "bcf t=0    1.80  1.50", "19%   15%", "- Plain cuckoo's longest", "\n  "} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Count(out, "\n"); lines > 40 {
		t.Errorf("summary is %d lines, want a screen (<= 40):\n%s", lines, out)
	}
}

// TestStatQuartiles: with five runs the quartiles leave out the extremes,
// so one slow run does not make a tie; a walk explains a slow update only
// if its iterations, at the cost per iteration of the longest walk, make
// up half of its time.
func TestStatQuartiles(t *testing.T) {
	a := summarize("a", []RunFigures{{ApplyMs: 1.0}, {ApplyMs: 1.1}, {ApplyMs: 1.2}, {ApplyMs: 1.05}, {ApplyMs: 9}})
	b := summarize("b", []RunFigures{{ApplyMs: 2.0}, {ApplyMs: 0.9}, {ApplyMs: 2.2}, {ApplyMs: 2.1}, {ApplyMs: 2.05}})
	if want := (Stat{Median: 1.1, Min: 1.0, Max: 9, Q1: 1.05, Q3: 1.2}); a.ApplyMs != want {
		t.Errorf("a: %+v, want %+v", a.ApplyMs, want)
	}
	if a.ApplyMs.Overlaps(b.ApplyMs) {
		t.Errorf("%+v and %+v overlap: one run each decides", a.ApplyMs, b.ApplyMs)
	}
	three := summarize("c", []RunFigures{{ApplyMs: 3}, {ApplyMs: 1}, {ApplyMs: 2}})
	if three.ApplyMs.Q1 != 1 || three.ApplyMs.Q3 != 3 || three.ApplyMs.Median != 2 {
		t.Errorf("three runs: %+v", three.ApplyMs)
	}
	k := KindSummary{Filter: "cf", Longest: Outlier{Ns: 20000, Iterations: 200}, // 100 ns an iteration
		Slowest: Outlier{Ns: 3e6, Iterations: 31}}
	if got := noise([]KindSummary{k}); !strings.Contains(got, "neither a long walk") {
		t.Errorf("31 iterations explain 3 ms: %q", got)
	}
	k.Slowest = Outlier{Ns: 15000, Iterations: 150}
	if got := noise([]KindSummary{k}); !strings.Contains(got, "a long filter walk made the slowest update of cf's (15 µs), 150 iterations") {
		t.Errorf("150 iterations do not explain 15 µs: %q", got)
	}
}

// TestRelate: each run's burst time over the baseline's of its round, CPU
// time where both have it, else wall time.
func TestRelate(t *testing.T) {
	runs := [][]RunFigures{
		{{CPUMs: 4, ApplyMs: 5}, {CPUMs: 9, ApplyMs: 9}},
		{{CPUMs: 2, ApplyMs: 3}, {CPUMs: 3, ApplyMs: 3}},
		{{ApplyMs: 6}, {ApplyMs: 6}},
	}
	relate(runs, 1)
	got := [][]float64{}
	for _, rs := range runs {
		var row []float64
		for _, r := range rs {
			row = append(row, r.ApplyRatio)
		}
		got = append(got, row)
	}
	if d := cmp.Diff([][]float64{{2, 3}, {1, 1}, {2, 2}}, got); d != "" {
		t.Errorf("ratios (-want +got):\n%s", d)
	}
	if b := baseline([]Filter{{Kind: rules.FilterCuckoo}, {Kind: rules.FilterNone}}); b != 1 {
		t.Errorf("baseline %d, want none's 1", b)
	}
	if b := baseline([]Filter{{Kind: rules.FilterCuckoo}}); b != 0 {
		t.Errorf("baseline %d without none, want 0", b)
	}
}

// TestRankingTies: a run of overlapping configurations is listed in the
// configurations' order, joined by "=".
func TestRankingTies(t *testing.T) {
	s := []KindSummary{
		{Filter: "a", ApplyMs: st(2.1, 2.0, 2.3)},
		{Filter: "b", ApplyMs: st(2.0, 1.9, 2.2)},
		{Filter: "c", ApplyMs: st(1.0, 0.9, 1.1)},
		{Filter: "d", ApplyMs: st(5, 4, 6)},
	}
	got := ranking(s, func(k *KindSummary) Stat { return k.ApplyMs }, "ms")
	if want := "c 1.00 < a 2.10 = b 2.00 < d 5.00 ms"; got != want {
		t.Errorf("ranking %q, want %q", got, want)
	}
}
