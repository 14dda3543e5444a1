package replay

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
)

// Percentiles summarises a distribution.
type Percentiles struct {
	N    int64   `json:"n"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Phase is what lookups did in one window around a burst.
type Phase struct {
	Seconds float64 `json:"seconds"`
	Packets uint64  `json:"packets"`
	Mpps    float64 `json:"mpps"` // packets over the window, all workers
	// LookupNs is the latency of one LookupBatch of up to 32 keys, in ns.
	LookupNs Percentiles `json:"lookup_ns"`
	FPR      float64     `json:"fpr"` // filter false-positive rate of the window's lookups
}

// BurstReport holds the figures of DESIGN.md "Update latency during
// bursts" for one burst.
type BurstReport struct {
	Index   int     `json:"index"`
	At      float64 `json:"at_seconds"` // since the replay started
	Updates int     `json:"updates"`
	Adds    int     `json:"adds"`
	Deletes int     `json:"deletes"`
	Errors  int     `json:"errors"`
	// ApplyNs is from the first update applied to the last one visible.
	ApplyNs int64 `json:"apply_ns"`
	// CPUNs is the time the controller's thread ran on a CPU during the
	// burst (Linux schedstat; 0 elsewhere): ApplyNs without the waits for
	// a CPU, and the less noisy measure of what a burst costs.
	CPUNs int64 `json:"cpu_ns"`
	// UpdateNs is the cost of each update (applied and published as it
	// arrives, as a FLOW_MOD stream without a bundle is).
	UpdateNs Percentiles `json:"update_ns"`
	// Iterations is the filter iterations of each insertion into the
	// filter during the burst (none for filter none, or if the filter was
	// rebuilt during the burst).
	Iterations Percentiles `json:"iterations"`
	Rebuilt    bool        `json:"filter_rebuilt"`
	Before     Phase       `json:"before"`
	During     Phase       `json:"during"`
	After      Phase       `json:"after"`
	// FilterFPRBefore and FilterFPRAfter are the false-positive rate of
	// table 0's filter just before the burst and just after it, measured
	// with FPRQueries random absent keys (rules.Table.FilterFPR); 0 for
	// filter none. The rate of the windows' lookups (Phase.FPR) counts
	// the few absent keys the traffic repeats, so it moves by a key.
	FilterFPRBefore float64 `json:"filter_fpr_before"`
	FilterFPRAfter  float64 `json:"filter_fpr_after"`
	// Filter state after the burst.
	FilterLen      int     `json:"filter_len"`
	FilterBloomLen int     `json:"filter_bloom_len"`
	BloomShare     float64 `json:"bloom_share"` // Bloom part / elements
	Occupancy      float64 `json:"occupancy"`
	// The noise of the burst window: CPU time the hypervisor took
	// (hostSteal, in 10 ms steps) and garbage collections that completed.
	HostSteal float64 `json:"host_steal_seconds"`
	GCCycles  int     `json:"gc_cycles"`
	// IndexRebuilds is the times the burst rebuilt table 0's flow index
	// (rules.TableStats.IndexRebuilds), rehashing every flow.
	IndexRebuilds int `json:"index_rebuilds"`
	// RunDelay is the time the controller's thread was runnable but
	// waited for a CPU during the burst (Linux schedstat; 0 elsewhere).
	RunDelay float64 `json:"run_delay_seconds"`
}

// RuleHits is one rule of a top-N list.
type RuleHits struct {
	Table uint8 `json:"table"`
	// ID is the line number (flow files) or the rule index (ClassBench);
	// the synthetic controller's flows have negative ids, -1, -2, ... in
	// the order it added them.
	ID      int    `json:"id"`
	Flow    string `json:"flow"` // match and actions, as ovs-ofctl writes a flow
	Packets uint64 `json:"packets"`
}

// LatencyPoint summarises lookup latency in one time bin of a
// [Timeline]: the latency of one table-0 LookupBatch (up to 32 keys), in
// ns, at the middle of its histogram bucket.
type LatencyPoint struct {
	T       float64 // start of the bin, seconds since the replay started
	Seconds float64 // width of the bin
	Lookups uint64  // LookupBatch calls in the bin
	P50     float64
	P99     float64
	Max     float64
}

// KindReport is the result of one filter configuration.
type KindReport struct {
	Filter        string                `json:"filter"`
	Seconds       float64               `json:"seconds"`
	Packets       uint64                `json:"packets"`
	PPS           float64               `json:"packets_per_second"`
	MppsPerWorker []float64             `json:"mpps_per_worker"`
	MissRate      float64               `json:"table_miss_rate"` // table-0 misses per packet classified
	FPR           float64               `json:"fpr"`
	Counters      dataplane.Counters    `json:"counters"`
	Ports         []dataplane.PortStats `json:"ports"`
	Top           []RuleHits            `json:"top_rules"`
	Bursts        []BurstReport         `json:"bursts"`
	Table         rules.TableStats      `json:"table"`
	// HostSteal is the CPU time the hypervisor took from the machine
	// while the configuration ran, summed over CPUs (Linux; /proc/stat
	// counts it in 10 ms steps, so a few milliseconds may show as 0; 0
	// where it is not counted). A burst window of a millisecond that a
	// steal hits shows a worker that processed nothing.
	HostSteal float64   `json:"host_steal_seconds"`
	Timeline  *Timeline `json:"-"` // lookup latency over the whole run
	BurstAt   []float64 `json:"-"` // burst start times, seconds
	UpdateNs  []float64 `json:"-"` // every update's cost, for the CDF
	// UpdateIter and UpdateBurst go with UpdateNs: each update's filter
	// iterations and the burst it belongs to.
	UpdateIter  []int32 `json:"-"`
	UpdateBurst []int32 `json:"-"`
}

// Report is the result of Run. `ofswitch replay --json` prints it through
// [Report.WriteJSON] as a [JSONReport], whose schema is documented; the
// tags of Report and the types it holds are not that schema.
type Report struct {
	Captures []string `json:"captures"`
	Frames   int      `json:"frames"` // frames per replay of all captures
	Rules    int      `json:"rules"`
	Workers  int      `json:"workers"`
	Burst    int      `json:"burst"`
	// Table 0's filter as every configuration gets it: buckets, and the
	// synthetic flows pre-installed to reach Config.Occupancy.
	FilterBuckets int `json:"filter_buckets"`
	Prefill       int `json:"prefill"`
	Repeats       int `json:"repeats"`
	// The machine: CPUs the replay could use (GOMAXPROCS) and the
	// one-minute load average when it ended (Linux; 0 elsewhere), which
	// counts the replay's own workers and controller too.
	CPUs    int     `json:"cpus"`
	LoadAvg float64 `json:"load_average"`
	// Kinds holds the detail of each configuration's first run; Summary
	// its figures over all Repeats, in the same order; Findings the
	// sentences computed from Summary (see Findings).
	Kinds    []KindReport  `json:"kinds"`
	Summary  []KindSummary `json:"summary"`
	Findings []string      `json:"findings"`
}

// WriteText writes the whole report for people: the summary
// (WriteSummary), then the detail of each configuration's first run: one
// line per configuration side by side, then per configuration the
// counters, the top rules and one line per burst.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if err := r.WriteSummary(&b); err != nil {
		return err
	}
	b.WriteString("\ndetail of each configuration's first run:\n\n")
	names := make([]string, len(r.Captures))
	for i, c := range r.Captures {
		names[i] = filepath.Base(c)
	}
	fmt.Fprintf(&b, "replay of %s (%d frames per pass) against %d rules on %s", strings.Join(names, ", "), r.Frames, r.Rules, plural(r.Workers, "worker"))
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
			fmt.Fprintf(&b, "  top %d rules by packets (id: the flow file's line; < 0: a flow the synthetic controller added):\n", len(k.Top))
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
