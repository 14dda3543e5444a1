package main

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/replay"
)

// replayFlags are the flags of `ofswitch replay`.
type replayFlags struct {
	rulesFile  string
	classbench string
	trace      string
	filters    []string
	ts         string
	burst      int
	bursts     int
	every      time.Duration
	at         uint64
	workers    int
	speed      string
	loops      int
	top        int
	seed       uint64
	occupancy  float64
	tableFlows int
	traffic    int
	repeats    int
	verbose    bool
	asJSON     bool
	plotDir    string
	out        string
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay [PCAP...]",
		Short: "Replay captures through the classifier while rule bursts are applied",
		Long: `Replays pcap/pcapng files from memory (or paced at their timing, --speed)
through parse, classify and actions on --workers workers, once per filter
configuration (--filter bcf,cf,none; bcf once per --t) and --repeats times,
interleaved, while a synthetic controller applies bursts of --burst rule
updates (adds of new flows, some that later packets match, and deletes of
old ones) every --burst-every or every --burst-at packets. Table 0's filter
is sized for the rule set (or --table-flows, if more) and filled with exact
flows to --occupancy before the bursts, where plain cuckoo insertions walk
long kick chains and Bloom-Cuckoo's stay short.

It prints a summary first: per configuration the medians over the runs of
lookup Mpps outside and during bursts, per-update cost (p50, p99, p99.9,
max), filter iterations, burst apply time (wall and the controller's CPU
time) and false-positive rate before and after bursts; the spread of the
runs; and findings computed from those figures, naming the noise (the
controller waiting for a CPU, host steal, garbage collection, flow index
rebuilds) where it explains a slow update. --verbose adds the detail of
each configuration's first run: counters, ports, the top rules with their
actions and one line per burst. --json prints all of it (docs/replay-json.md).

With --classbench RULES --trace TRACE it replays a ClassBench trace instead
of captures: one Ethernet/IPv4 frame per header (TCP, UDP and SCTP carry the
header's ports) through the same parse, classify and actions path, against
the rule set's OpenFlow flows, which classify each frame as a linear scan
of the rules in packet semantics does. With --classbench the bursts are
drawn from the rule set: flows shaped like its rules (same fields and
masks, random values under them) at priority 0, below every rule, so they
churn its subtables without changing the answer for a packet that some
rule matches.

With no arguments it replays the built-in demo: a capture of 3,000 frames
against a two-table rule set, in a table 0 of 100,000 flows or more at 95%
filter occupancy (--table-flows 100000) with 65,536 frames of those flows
(--table-traffic), five bursts of 1,024 updates per run, five runs of each
of bcf t=0, 5, 10, cf and none. A capture that cannot be read completely is
reported with its file name and byte offset; the others still replay, and
the exit status is non-zero.`,
		Example: `  ofswitch replay
  ofswitch replay --verbose --repeats 1 --filter bcf,cf
  ofswitch replay --rules acl.flows --burst 512 --burst-at 100000 capture.pcap
  ofswitch replay --classbench acl1_1k --trace acl1_1k_trace --filter bcf --t 0,5,10 --json
  ofswitch replay --plot plots/ --out switched.pcapng`,
		RunE: func(cmd *cobra.Command, args []string) error { return runReplay(cmd, &f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rulesFile, "rules", "", "flow file in ovs-ofctl add-flows syntax (default: the built-in demo rules)")
	fl.StringVar(&f.classbench, "classbench", "", "ClassBench filter file, loaded into table 0 with output:2")
	fl.StringVar(&f.trace, "trace", "", "ClassBench trace replayed instead of captures (needs --classbench)")
	fl.StringSliceVar(&f.filters, "filter", []string{"bcf", "cf", "none"}, "filter kinds to compare: bcf, cf, none (repeatable or a comma list)")
	fl.StringVar(&f.ts, "t", "0,5,10", "Bloom-Cuckoo thresholds t, one bcf run each (comma list)")
	fl.IntVar(&f.burst, "burst", 1024, "rule updates per burst (0: no bursts)")
	fl.IntVar(&f.bursts, "bursts", 5, "bursts per filter configuration")
	fl.DurationVar(&f.every, "burst-every", 20*time.Millisecond, "time from one burst to the next")
	fl.Uint64Var(&f.at, "burst-at", 0, "burst every this many packets instead of --burst-every")
	fl.IntVar(&f.workers, "workers", max(1, runtime.NumCPU()-1), "worker goroutines (flows are sharded by hash; the default leaves a CPU to the controller)")
	fl.StringVar(&f.speed, "speed", "max", "max, or a multiple of the capture's timing such as 1x or 10x")
	fl.IntVar(&f.loops, "loops", 1, "least number of passes over the captures")
	fl.IntVar(&f.top, "top", 10, "rules listed by hits")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the synthetic controller")
	fl.Float64Var(&f.occupancy, "occupancy", 0.95, "filter occupancy of table 0 when the bursts start (synthetic flows fill it up)")
	fl.IntVar(&f.tableFlows, "table-flows", 0, "size table 0's filter for at least this many flows and fill it with exact flows (default 100000 with the built-in demo)")
	fl.IntVar(&f.traffic, "table-traffic", 0, "frames of the table's exact flows replayed after the captures (default 65536 with the built-in demo)")
	fl.IntVar(&f.repeats, "repeats", 5, "runs of each filter configuration, interleaved; the summary gives medians and spreads")
	fl.BoolVar(&f.verbose, "verbose", false, "print the detail of each configuration after the summary: counters, ports, top rules, bursts")
	fl.BoolVar(&f.asJSON, "json", false, "print the report as JSON (schema: docs/replay-json.md)")
	fl.StringVar(&f.plotDir, "plot", "", "write the figures into this directory, each as SVG and PNG")
	fl.StringVar(&f.out, "out", "", "write what the switch outputs in one pass (first filter, no bursts) to this pcapng file")
	cmd.MarkFlagsMutuallyExclusive("rules", "classbench")
	cmd.MarkFlagsMutuallyExclusive("burst-every", "burst-at")
	return cmd
}

func runReplay(cmd *cobra.Command, f *replayFlags, args []string) error {
	ts, err := replay.ParseInts(f.ts)
	if err != nil {
		return fmt.Errorf("--t: %w", err)
	}
	filters, err := replay.ParseFilters(f.filters, ts)
	if err != nil {
		return fmt.Errorf("--filter: %w", err)
	}
	speed, err := dataplane.ParseSpeed(f.speed)
	if err != nil {
		return fmt.Errorf("--speed: %w", err)
	}
	if f.workers < 1 || f.burst < 0 || f.bursts < 0 || f.loops < 1 || f.every <= 0 {
		return errors.New("--workers and --loops must be positive, --burst and --bursts not negative, --burst-every positive")
	}
	ups, tables, err := replay.LoadRules(f.rulesFile, f.classbench)
	if err != nil {
		return err
	}
	var caps []*dataplane.Capture
	var frames int
	var loadErr error
	if f.trace != "" {
		if f.classbench == "" || len(args) > 0 {
			return errors.New("--trace replays a ClassBench trace against its rule set: give --classbench RULES and no capture")
		}
		c, _, err := replay.LoadTrace(f.trace)
		if err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		caps, frames, args = []*dataplane.Capture{c}, c.Len(), []string{f.trace}
	} else {
		caps, frames, loadErr = replay.LoadCaptures(args)
	}
	if loadErr != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "ofswitch replay:", loadErr)
	}
	if frames == 0 {
		if loadErr != nil {
			return fmt.Errorf("no frames to replay: %w", loadErr)
		}
		return fmt.Errorf("no frames to replay: %s holds none", strings.Join(args, ", "))
	}
	if demo := f.rulesFile == "" && f.classbench == "" && len(args) == 0; demo {
		if !cmd.Flags().Changed("table-flows") {
			f.tableFlows = 100_000
		}
		if !cmd.Flags().Changed("table-traffic") {
			f.traffic = 65536
		}
	}
	if f.tableFlows < 0 || f.traffic < 0 || f.repeats < 1 {
		return errors.New("--table-flows and --table-traffic must not be negative, --repeats positive")
	}
	cfg := &replay.Config{
		Rules: ups, Tables: tables, Filters: filters, Captures: caps, Workers: f.workers, Speed: speed,
		Burst: f.burst, Bursts: f.bursts, Every: f.every, AtPackets: f.at, Loops: f.loops, Seed: f.seed,
		TopN: f.top, Occupancy: f.occupancy, TableFlows: f.tableFlows, TableTraffic: f.traffic, Repeats: f.repeats, BurstFromRules: f.classbench != "", Progress: progress(cmd.ErrOrStderr(), "runs"),
	}
	if f.out != "" {
		n, err := replay.WriteOutput(cmd.Context(), f.out, cfg)
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d frames)\n", f.out, n)
	}
	rep, err := replay.Run(cmd.Context(), cfg)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	switch {
	case f.asJSON:
		err = rep.WriteJSON(out)
	case f.verbose:
		err = rep.WriteText(out)
	default:
		err = rep.WriteSummary(out)
	}
	if err != nil {
		return err
	}
	if f.plotDir != "" {
		files, err := rep.Plot(f.plotDir)
		if err != nil {
			return err
		}
		for _, p := range files {
			fmt.Fprintln(cmd.ErrOrStderr(), "wrote", p)
		}
	}
	if loadErr != nil {
		return fmt.Errorf("some captures could not be read completely (see above); the rest were replayed")
	}
	return nil
}
