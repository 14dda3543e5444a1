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
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the project's measurements",
	}
	cmd.AddCommand(newBenchPaperCmd())
	return cmd
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
