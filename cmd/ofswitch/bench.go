package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cheggaaa/pb/v3"
	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/filter/paper"
	"github.com/ofswitch/ofswitch/rules/classbench"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the project's measurements",
	}
	cmd.AddCommand(newBenchPaperCmd(), newBenchTraceCmd())
	return cmd
}

func newBenchTraceCmd() *cobra.Command {
	var (
		rulesPath string
		n         int
		seed      uint64
	)
	cmd := &cobra.Command{
		Use:   "trace --classbench RULES [-n HEADERS] [--seed S]",
		Short: "Write a ClassBench trace of a filter set's headers",
		Long: `Draws headers from a ClassBench filter file as ClassBench's trace
generator does (Taylor and Turner): a rule at random, a random corner of it
(the low or the high end of each field's range), repeated a Pareto number of
times in a row (a = 1, b = 0.1: nine runs in ten are one header, and the
tail is long), until there are HEADERS; the last run is cut there. Writes
them to stdout in ClassBench's trace format (source, destination, ports,
protocol, flags 0 and the label, the index of the rule drawn), which
ofswitch rules check --trace, BenchmarkClassBench and TupleMerge's driver
(p=FILE) read. The same file, -n and --seed write the same trace; the
default -n is 10 headers a rule, the scale of ClassBench's own traces.
The count of headers and the share that repeat the header before them go
to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rd, err := os.ReadFile(rulesPath)
			if err != nil {
				return err
			}
			return writeTrace(cmd.OutOrStdout(), cmd.ErrOrStderr(), rulesPath, rd, n, seed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&rulesPath, "classbench", "", "ClassBench filter file (required)")
	f.IntVarP(&n, "headers", "n", 0, "headers to write (0: 10 a rule, as ClassBench's traces)")
	f.Uint64Var(&seed, "seed", 1, "seed of every random choice")
	_ = cmd.MarkFlagRequired("classbench")
	return cmd
}

// writeTrace writes n headers drawn from the set rd (named name) with
// seed to w, and a summary to ew.
func writeTrace(w, ew io.Writer, name string, rd []byte, n int, seed uint64) error {
	rs, err := classbench.Parse(name, rd)
	if err != nil {
		return err
	}
	if len(rs) == 0 {
		return fmt.Errorf("%s: no rules", name)
	}
	if n < 0 {
		return fmt.Errorf("-n %d: want 0 or more headers", n)
	}
	if n == 0 {
		n = classbench.TraceScale * len(rs)
	}
	hs := classbench.GenerateTrace(rs, n, seed)
	if err := classbench.WriteTrace(w, hs); err != nil {
		return err
	}
	repeats := 0
	for i := 1; i < len(hs); i++ {
		a, b := &hs[i-1], &hs[i]
		if a.Src == b.Src && a.Dst == b.Dst && a.Sport == b.Sport && a.Dport == b.Dport && a.Proto == b.Proto {
			repeats++
		}
	}
	fmt.Fprintf(ew, "%s: %d headers from %d rules (seed %d), %.1f%% repeat the header before them\n",
		name, len(hs), len(rs), seed, 100*float64(repeats)/float64(len(hs)))
	return nil
}

func newBenchPaperCmd() *cobra.Command {
	var (
		cfg     paper.Config
		quick   bool
		asJSON  bool
		plotDir string
	)
	cmd := &cobra.Command{
		Use:   "paper",
		Short: "Reproduce the Bloom-Cuckoo paper's burst-insertion experiments",
		Long: `Runs both experiments of the Bloom-Cuckoo paper on ofswitch's filter:
m = 32768 buckets, f = 12, at most 1000 iterations per insertion. The plain
cuckoo filter at occupancy 0.92/0.94/0.95 is set against the Bloom-Cuckoo
filter at 0.9392/0.9596/0.9698 (the same bits per element); each trial fills
the filter, reaches steady state by replacements, then inserts a burst
(256 for t = 0, 5, 10; then 128 to 1024) and records the iterations of each
insertion, the Bloom part and the measured false-positive rate.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if quick {
				q := paper.Quick()
				if !cmd.Flags().Changed("trials") {
					cfg.Trials = q.Trials
				}
				if !cmd.Flags().Changed("queries") {
					cfg.Queries = q.Queries
				}
				if !cmd.Flags().Changed("replacements") {
					cfg.Replacements = q.Replacements
				}
			}
			cfg.Progress = progress(cmd.ErrOrStderr(), "trials")
			res, err := paper.Run(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				err = enc.Encode(res)
			} else {
				err = res.WriteText(out)
			}
			if err != nil {
				return err
			}
			if plotDir != "" {
				files, err := res.Plot(plotDir)
				if err != nil {
					return err
				}
				for _, f := range files {
					fmt.Fprintln(cmd.ErrOrStderr(), "wrote", f)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Trials, "trials", 100, "trials per configuration")
	f.IntVar(&cfg.Buckets, "buckets", 32768, "buckets m (a power of two)")
	f.IntVar(&cfg.Queries, "queries", 1<<18, "non-member lookups per trial to measure the false-positive rate")
	f.IntVar(&cfg.Replacements, "replacements", 0, "replacements to steady state per trial (0: one per bucket)")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of every random choice")
	f.IntVar(&cfg.Workers, "workers", 0, "trials run in parallel (0: one per core)")
	f.BoolVar(&quick, "quick", false, "10 trials, fewer replacements and FPR queries: seconds, not minutes")
	f.BoolVar(&asJSON, "json", false, "print the results as JSON")
	f.StringVar(&plotDir, "plot", "", "write figures 3 to 8 into this directory, each as SVG and PNG")
	return cmd
}

// progress returns a progress callback that draws a bar on w when w is a
// terminal, and nil otherwise.
func progress(w io.Writer, unit string) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	var (
		once sync.Once
		bar  *pb.ProgressBar
		mu   sync.Mutex
	)
	return func(done, total int) {
		once.Do(func() {
			bar = pb.New(total).SetWriter(f).Set("suffix", " "+unit)
			bar.Start()
		})
		mu.Lock()
		defer mu.Unlock()
		bar.SetCurrent(int64(done))
		if done == total {
			bar.Finish()
		}
	}
}
