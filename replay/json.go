package replay

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/ofswitch/ofswitch/dataplane"
)

// SchemaVersion is the version of the JSON document [Report.WriteJSON]
// writes, in its schema_version field. It grows when a key is renamed,
// removed or changes its type or unit; a key added does not change it.
const SchemaVersion = 2

// JSONReport is the document `ofswitch replay --json` prints: one object
// per run, the schema documented key by key in docs/replay-json.md.
//
// Every key of the document is snake_case (^[a-z][a-z0-9_]*$), map keys
// included: the names of parse kinds and malformed reasons are
// [dataplane.Kind] and [dataplane.Reason] names with '-' written '_'
// ("frag_first", "ipv4_header"). A number whose unit is not a count
// carries its unit in its key: _ns, _seconds, _bytes, _per_second, _mpps
// (10^6 packets per second), _ratio (0 to 1). A percentile object
// ([JSONPercentiles]) takes its unit from the key that holds it
// ("update_ns": {"p50": ...} is in ns).
//
// Named things are labelled, never positional: parse kinds and malformed
// reasons are objects keyed by name, every name present (0 if none); the
// histogram of filter insertion iterations is a list of {iterations,
// insertions} pairs. The lists that remain are ordered collections of
// labelled objects (filters in run order, each with its "filter" name;
// bursts with their "index"; ports with their "port") or
// mpps_per_worker, indexed by worker number.
type JSONReport struct {
	SchemaVersion int      `json:"schema_version"`  // SchemaVersion
	Captures      []string `json:"captures"`        // capture file names (the demo: "demo.pcap")
	FramesPerPass int      `json:"frames_per_pass"` // frames in one pass over all captures
	Rules         int      `json:"rules"`           // rules loaded (all tables)
	Workers       int      `json:"workers"`         // worker goroutines
	BurstUpdates  int      `json:"burst_updates"`   // rule updates per burst (0: no bursts)
	FilterBuckets int      `json:"filter_buckets"`  // table 0's filter, every configuration
	PrefillFlows  int      `json:"prefill_flows"`   // synthetic flows pre-installed in table 0
	Repeats       int      `json:"repeats"`         // runs of each configuration
	CPUs          int      `json:"cpus"`            // GOMAXPROCS
	LoadAverage   float64  `json:"load_average"`    // one-minute load average at the end (0: unknown)
	// Summary holds each configuration's figures over its runs, in run
	// order; Findings the sentences computed from them.
	Summary  []JSONSummary `json:"summary"`
	Findings []string      `json:"findings"`
	// Filters holds the detail of each configuration's first run.
	Filters []JSONFilter `json:"filters"`
}

// JSONStat is one figure over a configuration's runs; the key that holds
// it names the unit.
type JSONStat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Q1     float64 `json:"q1"` // lower quartile (nearest rank)
	Q3     float64 `json:"q3"` // upper quartile
}

// JSONOutlier is one slow update and the noise of its burst.
type JSONOutlier struct {
	Ns               float64 `json:"ns"`
	Iterations       int     `json:"iterations"` // filter iterations; 0: no insertion into the filter
	Burst            int     `json:"burst"`      // index of its burst in its run
	HostStealSeconds float64 `json:"host_steal_seconds"`
	GCCycles         int     `json:"gc_cycles"`
	IndexRebuilds    int     `json:"index_rebuilds"`
	RunDelaySeconds  float64 `json:"run_delay_seconds"`
}

// JSONSummary is a filter configuration's figures over its runs (see
// [KindSummary]).
type JSONSummary struct {
	Filter            string      `json:"filter"`
	Runs              int         `json:"runs"`
	Bursts            int         `json:"bursts"`        // all runs
	EmptyWindows      int         `json:"empty_windows"` // bursts during which no lookup was made
	IdleMpps          JSONStat    `json:"idle_mpps"`
	BurstMpps         JSONStat    `json:"burst_mpps"`
	UpdateP50Ns       JSONStat    `json:"update_p50_ns"`
	UpdateP99Ns       JSONStat    `json:"update_p99_ns"`
	UpdateP999Ns      JSONStat    `json:"update_p999_ns"`
	UpdateMaxNs       JSONStat    `json:"update_max_ns"`
	IterationsP99     JSONStat    `json:"iterations_p99"`
	IterationsMax     JSONStat    `json:"iterations_max"`
	ApplyWallNs       JSONStat    `json:"apply_wall_ns"`
	ApplyCPUNs        JSONStat    `json:"apply_cpu_ns"`
	ApplyRatio        JSONStat    `json:"apply_ratio"` // over the baseline's in the same round
	IdleRatio         JSONStat    `json:"idle_ratio"`  // idle_mpps over the baseline's in the same round
	FPRBeforeRatio    JSONStat    `json:"false_positive_before_ratio"`
	FPRAfterRatio     JSONStat    `json:"false_positive_after_ratio"`
	BloomRatio        JSONStat    `json:"bloom_ratio"`
	OccupancyRatio    JSONStat    `json:"occupancy_ratio"`
	HostStealSeconds  JSONStat    `json:"host_steal_seconds"`
	SlowestUpdate     JSONOutlier `json:"slowest_update"`
	LongestFilterWalk JSONOutlier `json:"longest_filter_walk"`
}

// JSONFilter is the result of one filter configuration.
type JSONFilter struct {
	Filter             string    `json:"filter"`               // "bcf t=0", "cf", "none"
	DurationSeconds    float64   `json:"duration_seconds"`     // wall time of the replay
	Packets            uint64    `json:"packets"`              // frames replayed (all passes)
	PacketsPerSecond   float64   `json:"packets_per_second"`   // packets over duration_seconds, all workers
	MppsPerWorker      []float64 `json:"mpps_per_worker"`      // indexed by worker number
	TableMissRatio     float64   `json:"table_miss_ratio"`     // table-0 misses per packet classified
	FalsePositiveRatio float64   `json:"false_positive_ratio"` // filter false positives over queries of absent keys
	// HostStealSeconds is the CPU time the hypervisor took while the
	// configuration ran, summed over CPUs (0 where not counted).
	HostStealSeconds float64          `json:"host_steal_seconds"`
	Parse            JSONParse        `json:"parse"`
	Lookup           JSONLookup       `json:"lookup"`
	Counters         JSONCounters     `json:"counters"`
	Ports            []JSONPort       `json:"ports"`
	TopRules         []JSONRuleHits   `json:"top_rules"` // by packets, most first
	Bursts           []JSONBurst      `json:"bursts"`
	Table            JSONTable        `json:"table"` // table 0 at the end of the run
	FilterStats      *JSONFilterStats `json:"filter_stats"`
}

// JSONParse is the parser's counters.
type JSONParse struct {
	Read   uint64 `json:"read"`   // frames handed to the parser
	Parsed uint64 `json:"parsed"` // frames parsed; read = parsed + the sum of malformed
	// Kinds counts parsed frames by kind (a frame counts in several:
	// see [dataplane.Kind]); Malformed counts skipped frames by reason.
	Kinds     map[string]uint64 `json:"kinds"`
	Malformed map[string]uint64 `json:"malformed"`
}

// JSONLookup is the classifier's counters over all tables.
type JSONLookup struct {
	Lookups              uint64 `json:"lookups"`                // keys looked up
	SubtablesVisited     uint64 `json:"subtables_visited"`      // filter consulted, or probed without filter
	SubtablesGuarded     uint64 `json:"subtables_guarded"`      // passed over: the key fails their guard words
	FilterNegatives      uint64 `json:"filter_negatives"`       // subtables skipped: the filter said absent
	FilterFalsePositives uint64 `json:"filter_false_positives"` // the filter said present, the subtable had no such key
	Probes               uint64 `json:"probes"`                 // hash-table probes
	Retries              uint64 `json:"retries"`                // lookups redone: a rule they could see was unlinked
}

// JSONCounters is the data path's counters (see [dataplane.Counters]).
type JSONCounters struct {
	Packets      uint64 `json:"packets"`        // frames parsed and classified
	Bytes        uint64 `json:"bytes"`          // their captured bytes
	Hits         uint64 `json:"hits"`           // lookups that found an entry
	Misses       uint64 `json:"misses"`         // lookups that found none
	MissesTable0 uint64 `json:"misses_table_0"` // of which in table 0
	Drops        uint64 `json:"drops"`          // packets that left the pipeline with no output
	Outputs      uint64 `json:"outputs"`        // frames output to a port
	NoPort       uint64 `json:"no_port"`        // outputs to a port the switch does not have
	PacketIns    uint64 `json:"packet_ins"`     // frames sent to the controller
	TTLExpired   uint64 `json:"ttl_expired"`    // dec_ttl at TTL <= 1
	Rewrites     uint64 `json:"rewrites"`       // header-changing actions applied
	Skipped      uint64 `json:"skipped"`        // actions that did not apply to the frame
	Panics       uint64 `json:"panics"`         // packets whose actions panicked (a bug)
	RxErrors     uint64 `json:"rx_errors"`      // live ports only
	PortDrops    uint64 `json:"port_drops"`     // dropped by a port's config
	MeterDrops   uint64 `json:"meter_drops"`    // dropped by a meter band
	GroupDrops   uint64 `json:"group_drops"`    // group actions that ran no bucket
}

// JSONPort is one port's counters.
type JSONPort struct {
	Port      uint32 `json:"port"`
	RxPackets uint64 `json:"rx_packets"`
	RxBytes   uint64 `json:"rx_bytes"`
	TxPackets uint64 `json:"tx_packets"`
	TxBytes   uint64 `json:"tx_bytes"`
}

// JSONRuleHits is one rule of the top list.
type JSONRuleHits struct {
	Table   uint8  `json:"table"`
	ID      int    `json:"id"` // line number (flow files), rule index (ClassBench); < 0: a flow the synthetic controller added
	Flow    string `json:"flow"`
	Packets uint64 `json:"packets"`
}

// JSONPercentiles summarises a distribution; the key that holds it names
// the unit.
type JSONPercentiles struct {
	Count int64   `json:"count"` // samples; 0: the other fields are 0
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// JSONPhase is what lookups did in one window around a burst.
type JSONPhase struct {
	DurationSeconds    float64         `json:"duration_seconds"`
	Packets            uint64          `json:"packets"`
	Mpps               float64         `json:"mpps"`                 // 10^6 packets per second, all workers
	LookupNs           JSONPercentiles `json:"lookup_ns"`            // one table-0 LookupBatch of up to 32 keys
	FalsePositiveRatio float64         `json:"false_positive_ratio"` // of the window's lookups
}

// JSONBurst is one burst (DESIGN.md, "Update latency during bursts").
type JSONBurst struct {
	Index         int             `json:"index"`
	AtSeconds     float64         `json:"at_seconds"` // since the replay started
	Updates       int             `json:"updates"`
	Adds          int             `json:"adds"`
	Deletes       int             `json:"deletes"`
	Errors        int             `json:"errors"`
	ApplyNs       int64           `json:"apply_ns"`   // first update applied to last one visible
	UpdateNs      JSONPercentiles `json:"update_ns"`  // each update, applied and published on its own
	Iterations    JSONPercentiles `json:"iterations"` // filter iterations per insertion (count 0: filter none, or rebuilt)
	FilterRebuilt bool            `json:"filter_rebuilt"`
	Before        JSONPhase       `json:"before"`
	During        JSONPhase       `json:"during"`
	After         JSONPhase       `json:"after"`
	// The filter's false-positive rate just before and just after the
	// burst, from queries of random absent keys (0: filter none).
	FalsePositiveBeforeRatio float64 `json:"false_positive_before_ratio"`
	FalsePositiveAfterRatio  float64 `json:"false_positive_after_ratio"`
	// The filter after the burst.
	FilterLen      int     `json:"filter_len"`       // elements
	FilterBloomLen int     `json:"filter_bloom_len"` // elements in the Bloom part
	BloomRatio     float64 `json:"bloom_ratio"`      // filter_bloom_len / filter_len
	OccupancyRatio float64 `json:"occupancy_ratio"`  // elements / slots
	// The burst window's noise and the controller's own time.
	ApplyCPUNs       int64   `json:"apply_cpu_ns"`       // the controller's time on a CPU (0: not measured)
	RunDelaySeconds  float64 `json:"run_delay_seconds"`  // the controller waited for a CPU
	HostStealSeconds float64 `json:"host_steal_seconds"` // 10 ms steps
	GCCycles         int     `json:"gc_cycles"`          // garbage collections completed
	IndexRebuilds    int     `json:"index_rebuilds"`     // table 0's flow index rebuilt
}

// JSONTable is table 0's shape (see [rules.TableStats]).
type JSONTable struct {
	Flows          int     `json:"flows"`     // visible
	Rules          int     `json:"rules"`     // physically present
	Subtables      int     `json:"subtables"` // distinct masks
	Keys           int     `json:"keys"`      // filter elements
	Filter         string  `json:"filter"`    // bcf, cf or none
	FilterBuckets  int     `json:"filter_buckets"`
	FilterLen      int     `json:"filter_len"`
	FilterBloomLen int     `json:"filter_bloom_len"`
	OccupancyRatio float64 `json:"occupancy_ratio"`
	Rebuilds       int     `json:"rebuilds"` // times the filter was rebuilt larger
}

// JSONFilterStats is table 0's filter's own counters (see
// [filter.Stats]); null for filter none.
type JSONFilterStats struct {
	Buckets         int    `json:"buckets"`
	FingerprintBits int    `json:"fingerprint_bits"`
	BloomAfter      int    `json:"bloom_after"` // t; < 0: plain cuckoo
	Len             int    `json:"len"`
	CuckooLen       int    `json:"cuckoo_len"`
	BloomLen        int    `json:"bloom_len"`
	StashLen        int    `json:"stash_len"`
	Inserts         uint64 `json:"inserts"`
	Kicks           uint64 `json:"kicks"`
	Rebalanced      uint64 `json:"rebalanced"` // Bloom elements moved back to cuckoo slots
	Failed          uint64 `json:"failed"`     // insertions that went to the stash or failed
	MaxIterations   int    `json:"max_iterations"`
	// IterationsHistogram lists, for each iteration count that
	// occurred, how many insertions took it, by iterations ascending.
	IterationsHistogram []JSONIterationCount `json:"iterations_histogram"`
}

// JSONIterationCount is one bar of the insertion-iterations histogram.
type JSONIterationCount struct {
	Iterations int    `json:"iterations"`
	Insertions uint64 `json:"insertions"`
}

// snakeName writes a report name ("frag-first") as a JSON key.
func snakeName(s string) string { return strings.ReplaceAll(s, "-", "_") }

func jsonPercentiles(p Percentiles) JSONPercentiles {
	return JSONPercentiles{Count: p.N, P50: p.P50, P99: p.P99, Max: p.Max, Mean: p.Mean}
}

func jsonPhase(p *Phase) JSONPhase {
	return JSONPhase{DurationSeconds: p.Seconds, Packets: p.Packets, Mpps: p.Mpps, LookupNs: jsonPercentiles(p.LookupNs), FalsePositiveRatio: p.FPR}
}

// JSON returns r as the document --json prints.
func (r *Report) JSON() *JSONReport {
	j := &JSONReport{SchemaVersion: SchemaVersion, Captures: r.Captures, FramesPerPass: r.Frames, Rules: r.Rules,
		Workers: r.Workers, BurstUpdates: r.Burst, FilterBuckets: r.FilterBuckets, PrefillFlows: r.Prefill,
		Repeats: r.Repeats, CPUs: r.CPUs, LoadAverage: r.LoadAvg, Summary: make([]JSONSummary, len(r.Summary)),
		Findings: append([]string{}, r.Findings...), Filters: make([]JSONFilter, len(r.Kinds))}
	for i := range r.Summary {
		j.Summary[i] = jsonSummary(&r.Summary[i])
	}
	for i := range r.Kinds {
		j.Filters[i] = jsonFilter(&r.Kinds[i])
	}
	return j
}

func jsonSummary(k *KindSummary) JSONSummary {
	st := func(s Stat) JSONStat { return JSONStat(s) }
	ns := func(ms Stat) JSONStat {
		return JSONStat{Median: ms.Median * 1e6, Min: ms.Min * 1e6, Max: ms.Max * 1e6, Q1: ms.Q1 * 1e6, Q3: ms.Q3 * 1e6}
	}
	out := func(o Outlier) JSONOutlier { return JSONOutlier(o) }
	return JSONSummary{Filter: k.Filter, Runs: k.Runs, Bursts: k.Bursts, EmptyWindows: k.EmptyWindows,
		IdleMpps: st(k.IdleMpps), BurstMpps: st(k.BurstMpps), UpdateP50Ns: st(k.UpdateP50Ns), UpdateP99Ns: st(k.UpdateP99Ns),
		UpdateP999Ns: st(k.UpdateP999Ns), UpdateMaxNs: st(k.UpdateMaxNs), IterationsP99: st(k.IterationsP99),
		IterationsMax: st(k.IterationsMax), ApplyWallNs: ns(k.ApplyMs), ApplyCPUNs: ns(k.CPUMs), ApplyRatio: st(k.ApplyRatio), IdleRatio: st(k.IdleRatio),
		FPRBeforeRatio: st(k.FPRBefore), FPRAfterRatio: st(k.FPRAfter), BloomRatio: st(k.BloomShare),
		OccupancyRatio: st(k.Occupancy), HostStealSeconds: st(k.HostSteal),
		SlowestUpdate: out(k.Slowest), LongestFilterWalk: out(k.Longest)}
}

func jsonFilter(k *KindReport) JSONFilter {
	c := &k.Counters
	f := JSONFilter{
		Filter: k.Filter, DurationSeconds: k.Seconds, Packets: k.Packets, PacketsPerSecond: k.PPS,
		MppsPerWorker: k.MppsPerWorker, TableMissRatio: k.MissRate, FalsePositiveRatio: k.FPR, HostStealSeconds: k.HostSteal,
		Parse: JSONParse{Read: c.Parse.Read, Parsed: c.Parse.Parsed,
			Kinds: make(map[string]uint64, dataplane.NumKinds), Malformed: make(map[string]uint64, dataplane.NumReasons)},
		Lookup: JSONLookup{Lookups: c.Lookup.Lookups, SubtablesVisited: c.Lookup.Visited, SubtablesGuarded: c.Lookup.Guarded,
			FilterNegatives: c.Lookup.FilterNegatives, FilterFalsePositives: c.Lookup.FalsePositives,
			Probes: c.Lookup.Probes, Retries: c.Lookup.Retries},
		Counters: JSONCounters{Packets: c.Packets, Bytes: c.Bytes, Hits: c.Hits, Misses: c.Misses, MissesTable0: c.MissTable0,
			Drops: c.Drops, Outputs: c.Outputs, NoPort: c.NoPort, PacketIns: c.PacketIns, TTLExpired: c.TTLExpired,
			Rewrites: c.Rewrites, Skipped: c.Skipped, Panics: c.Panics, RxErrors: c.RxErrors, PortDrops: c.PortDrops,
			MeterDrops: c.MeterDrops, GroupDrops: c.GroupDrops},
		Ports:    make([]JSONPort, len(k.Ports)),
		TopRules: make([]JSONRuleHits, len(k.Top)),
		Bursts:   make([]JSONBurst, len(k.Bursts)),
		Table: JSONTable{Flows: k.Table.Flows, Rules: k.Table.Rules, Subtables: k.Table.Subtables, Keys: k.Table.Keys,
			Filter: k.Table.Filter, FilterBuckets: k.Table.FilterBuckets, FilterLen: k.Table.FilterLen,
			FilterBloomLen: k.Table.FilterBloomLen, OccupancyRatio: k.Table.Occupancy, Rebuilds: k.Table.Rebuilds},
	}
	for i := dataplane.Kind(0); i < dataplane.NumKinds; i++ {
		f.Parse.Kinds[snakeName(i.String())] = c.Parse.Kinds[i]
	}
	for i := dataplane.Reason(0); i < dataplane.NumReasons; i++ {
		f.Parse.Malformed[snakeName(i.String())] = c.Parse.Malformed[i]
	}
	for i, p := range k.Ports {
		f.Ports[i] = JSONPort{Port: p.Port, RxPackets: p.RxPackets, RxBytes: p.RxBytes, TxPackets: p.TxPackets, TxBytes: p.TxBytes}
	}
	for i, t := range k.Top {
		f.TopRules[i] = JSONRuleHits(t)
	}
	for i := range k.Bursts {
		b := &k.Bursts[i]
		f.Bursts[i] = JSONBurst{Index: b.Index, AtSeconds: b.At, Updates: b.Updates, Adds: b.Adds, Deletes: b.Deletes,
			Errors: b.Errors, ApplyNs: b.ApplyNs, UpdateNs: jsonPercentiles(b.UpdateNs), Iterations: jsonPercentiles(b.Iterations),
			FilterRebuilt: b.Rebuilt, Before: jsonPhase(&b.Before), During: jsonPhase(&b.During), After: jsonPhase(&b.After),
			FalsePositiveBeforeRatio: b.FilterFPRBefore, FalsePositiveAfterRatio: b.FilterFPRAfter,
			FilterLen: b.FilterLen, FilterBloomLen: b.FilterBloomLen, BloomRatio: b.BloomShare, OccupancyRatio: b.Occupancy,
			ApplyCPUNs: b.CPUNs, RunDelaySeconds: b.RunDelay, HostStealSeconds: b.HostSteal, GCCycles: b.GCCycles,
			IndexRebuilds: b.IndexRebuilds}
	}
	if s := k.Table.FilterStats; s != nil {
		fs := &JSONFilterStats{Buckets: s.Buckets, FingerprintBits: s.FingerprintBits, BloomAfter: s.BloomAfter,
			Len: s.Len, CuckooLen: s.CuckooLen, BloomLen: s.BloomLen, StashLen: s.StashLen, Inserts: s.Inserts,
			Kicks: s.Kicks, Rebalanced: s.Rebalanced, Failed: s.Failed, MaxIterations: s.MaxIterationsSeen,
			IterationsHistogram: []JSONIterationCount{}}
		for it, n := range s.Iterations {
			if n != 0 {
				fs.IterationsHistogram = append(fs.IterationsHistogram, JSONIterationCount{Iterations: it, Insertions: n})
			}
		}
		f.FilterStats = fs
	}
	return f
}

// WriteJSON writes r as one indented JSON document ([JSONReport], schema
// version [SchemaVersion]) followed by a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}
