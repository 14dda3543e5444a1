// Package replay replays captures through the data path while a synthetic
// controller bursts rule updates into the tables, side by side for several
// filters, and reports what the bursts cost: a summary with findings, the
// detail, JSON and plots.
//
// It is the laboratory behind `ofswitch replay`. [LoadRules] and
// [LoadCaptures] (or [LoadTrace], a ClassBench trace) make its inputs (with no file given, the built-in demo:
// [DemoFlows] and [DemoCapture]); [Run] measures; the [Report] prints as
// a summary ([Report.WriteSummary]), the summary and the detail
// ([Report.WriteText]), JSON ([Report.WriteJSON]) or plots
// ([Report.Plot]); [WriteOutput] records what the switch outputs in one
// pass without bursts.
//
// # An experiment with a conclusion
//
// The Bloom-Cuckoo filter's point shows only where a plain cuckoo filter
// struggles: a large table whose filter is nearly full, updated in
// bursts. Config.TableFlows sizes table 0's filter for a realistic table
// (the demo: 100,000 flows; at Config.Occupancy 0.95 that is 32,768
// buckets holding 124,505 exact flows beside the rule set) and
// Config.TableTraffic replays frames of those flows after the captures, so
// that lookups go through the large table too. Every configuration runs
// Config.Repeats times, interleaved (each configuration once, then again),
// with the same table and traffic; repeat r seeds the filter and the
// bursts with Seed+r. The table's flows are made once and shared by the
// runs; only the pipeline is built anew.
//
// [Report.Summary] holds each configuration's figures ([RunFigures],
// reduced to medians and ranges in a [KindSummary]) and [Findings] turns
// them into sentences: the longest filter walks, the ranking of burst
// times, the update tail, lookups with and without a filter, false
// positives and what made the slowest updates slow. A difference the
// runs' ranges do not separate is reported as a tie ("="), never as a
// win, so that the ranking a replay prints is the one its repeats
// support.
//
// # Noise
//
// A shared two-CPU machine makes a millisecond of noise out of anything,
// so the replay measures it rather than guessing: for each burst the time
// the controller's thread waited for a CPU (Linux schedstat; the
// controller keeps its thread, runtime.LockOSThread) and ran on one
// (CLOCK_THREAD_CPUTIME_ID), host steal (/proc/stat), garbage collections
// completed (runtime/metrics) and rebuilds of table 0's flow index
// (rules.TableStats.IndexRebuilds). Bursts are ranked by the controller's
// CPU time, which leaves out its waits. The controller waits between
// bursts by spinning, not sleeping: a thread woken from a sleep may wait a
// scheduler tick for its CPU, which would be charged to the first update.
// A burst window in which no worker made a lookup (the workers had no
// CPU) is counted and named with the load average.
//
// # Figures
//
// [Report.Plot] writes bursts (lookup p99 and Mpps before, during and
// after bursts and update cost percentiles, per filter configuration: the
// figure for a README), lookup-latency (per filter configuration a panel
// of p50 and p99 per time bin of the [Timeline], bursts shaded),
// update-cost (CDF and tail of one update's cost) and throughput (Mpps
// before, during and after bursts), each as SVG and PNG in
// internal/figure's look. It summarises before it draws, so that each
// SVG stays under 300 KB however long the run or many the runs.
//
// # JSON schema
//
// [Report.WriteJSON] writes a [JSONReport], the one schema of
// `ofswitch replay --json`, documented key by key in docs/replay-json.md
// and versioned by [SchemaVersion]. It is a view of the Report made for
// readers and scripts, separate from the Report's Go types: every key is
// snake_case (map keys too), counters of named things (parse kinds,
// malformed reasons) are objects keyed by name rather than arrays indexed
// by an enum, and a number's unit is in its key (_ns, _seconds, _bytes,
// _per_second, mpps, _ratio). A test decodes the output of a replay into
// JSONReport with unknown keys refused, checks every key's style and that
// the document lists it, and round-trips it.
//
// # Update latency during bursts
//
// [Run] replays the captures on N workers (dataplane.Switch, flows sharded
// by hash) once per [Filter] (bcf with several t, cf, none) while a
// synthetic controller applies bursts of rule updates: adds of new flows,
// some of them flows of the capture that later packets match, and deletes
// of flows it added before. The configurations run one after the other on
// the same captures and, the controller being seeded, the same sequence of
// updates. For every burst it records what DESIGN.md asks: apply latency,
// per-update cost in ns and filter iterations, LookupBatch latency
// (HdrHistogram, one sample per table-0 LookupBatch of a vector, up to 32
// keys) and throughput before, during and after the burst, Bloom part,
// occupancy, and the filter's false-positive rate just before and just
// after the burst, sampled with FPRQueries random absent keys (the rate
// of the windows' own lookups is kept too, but the traffic repeats a few
// absent keys, so it moves by whole keys from run to run).
//
// Table 0's filter gets the fewest buckets that hold the rule set's
// elements (distinct subtable and masked key, counted by loading it once),
// or Config.TableFlows if that is more, plus one burst at
// [Config].Occupancy, and the controller pre-installs
// synthetic flows up to that occupancy (the same number for every filter
// kind), so that insertions kick and, with bcf, use the Bloom part, as in
// the Bloom-Cuckoo paper's experiments.
//
// # Phases
//
// Each burst has three windows. "Before" is half of Config.Every (or
// AtPackets/2 frames); "during" runs from the first update applied to the
// last one visible, each update applied and published on its own as a
// FLOW_MOD stream without a bundle is (rules.Pipeline.ApplyBurstTo, not
// atomic, which records each update's time and filter iterations);
// "after" is the other half. The controller announces the window (burst
// and phase) in one atomic word that each probe reads once per lookup.
// It collects garbage once before the first burst, and between bursts,
// outside every window, lets the Bloom part drain back into cuckoo slots
// (rules.Pipeline.Rebalance), as it does once after loading the table.
//
// # How lookups are timed
//
// Each worker gets a probe as its dataplane.LookupObserver: the worker
// reads the clock around its table-0 LookupBatch and the probe records the
// duration, the keys and that lookup's classifier counters into its own
// histogram and counters for the current window, and every sample into
// its timeline: per time bin a histogram with 4 log buckets per power of
// two, 1024 bins whose width doubles (adjacent bins merged) whenever the
// run outlasts them, so that the [Timeline] covers the whole run in
// bounded memory (about 400 KB per worker) at the cost of a shift, a
// bits.Len64 and an increment per lookup. Probes are owned by one worker
// each and merged only after the workers stop, so measuring adds no
// writes shared between workers. A worker without a probe pays a nil
// check before each LookupBatch.
//
// The host's steal time (/proc/stat) is read around each configuration:
// on a shared virtual machine a stolen millisecond shows as a burst window
// in which a worker processed nothing, and the report says so.
//
// # ClassBench traces
//
// A ClassBench trace (LoadTrace) is replayed through the packet path rather
// than fed to the classifier as keys, so that a trace is
// measured as a capture is (parse, key, classify, actions): TraceCapture
// synthesizes one 54-byte Ethernet/IPv4 frame per header, its ports in a
// TCP, UDP or SCTP header, an ICMP echo request under ICMP and plain
// payload under other protocols, where OpenFlow sees no ports. Against the
// rule set's flows (LoadRules, classbench.UpdatesWith, ports as ranges)
// each frame takes the rule classbench.FirstPacket answers for its
// header; the tests check it per rule. With Config.BurstFromRules the synthetic controller's flows
// are drawn from the rule set (each with a random rule's mask and random
// values under it, at priority 0, below every ClassBench rule), so the
// bursts churn the subtables the set uses and never take a packet that a
// rule matches. LoadCaptures recognizes a ClassBench trace or filter set
// given as a capture and names the flag that reads it.
package replay
