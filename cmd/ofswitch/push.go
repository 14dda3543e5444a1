package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func newPushCmd() *cobra.Command {
	var (
		target string
		cfg    push.Config
		strict bool
		asJSON bool
		fix    bool
	)
	cmd := &cobra.Command{
		Use:   "push [flags] FILE|-",
		Short: "Push a flow file to a switch in barrier-delimited batches",
		Long: `Reads flows in ovs-ofctl add-flows syntax (a line may start with "add",
"modify" or "delete", as ovs-ofctl --bundle accepts; --strict makes modify and
delete strict; a delete without table= deletes from every table, and "delete"
alone deletes every flow) and sends them as FLOW_MODs, a BARRIER_REQUEST after every
--batch flows, with up to --window batches in flight (the next batch goes out
while the switch applies the one before). With --bundle each batch is one
bundle, committed atomically: applied whole or not at all; --batch 0 makes
the whole file one batch, as ovs-ofctl --bundle sends it. Prints flows/s and the barrier
latency of the batches, each from its write to its barrier reply (a batch is
encoded before, while the switch applies the one ahead of it); every error the switch sends is printed with the line
of the file that caused it, and the exit status is non-zero.

An add line may set importance=N, OpenFlow 1.4's eviction precedence: push
then offers OpenFlow 1.4 as well as 1.3, and says so when the switch speaks
only 1.3, which has no field for it (ovs-ofctl -O OpenFlow13 drops it
silently).

Works against ofswitch and Open vSwitch alike.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, data, err := readInput(cmd.InOrStdin(), args[0])
			if err != nil {
				return err
			}
			ups, lines, err := ofctl.ParseFlowMods(name, data, &ofctl.ParseOptions{Strict: strict, FixPrereqs: fix})
			if err != nil {
				return err
			}
			cfg.Lines = lines
			if cfg.Batch < 0 {
				return fmt.Errorf("--batch %d: want 0 (one batch) or more", cfg.Batch)
			}
			if cfg.Batch == 0 {
				cfg.Batch = max(len(ups), 1)
			}
			res, err := push.Flows(cmd.Context(), target, ups, &cfg)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if res.ImportanceDropped {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: the switch speaks OpenFlow 1.3, which has no importance: the flows were added without it\n")
			}
			for _, e := range res.Errors {
				fmt.Fprintln(cmd.ErrOrStderr(), e.Error())
			}
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(w, "pushed %d flows in %d batches in %v: %.0f flows/s\n", res.Flows, res.Batches, res.Elapsed.Round(1e5), res.PerSec)
				fmt.Fprintf(w, "barrier latency per batch: p50 %v, p99 %v, max %v\n", res.LatencyP50, res.LatencyP99, res.LatencyMax)
				fmt.Fprintf(w, "errors: %d\n", len(res.Errors))
			}
			if len(res.Errors) > 0 {
				return fmt.Errorf("the switch refused %d of %d flows", res.NotApplied, res.Flows)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "switch", "tcp:127.0.0.1:6653", "the switch's OpenFlow target, tcp:IP[:PORT]")
	f.IntVar(&cfg.Batch, "batch", 1024, "FLOW_MODs between barriers (0: the whole file in one batch)")
	f.BoolVar(&cfg.Bundle, "bundle", false, "send each batch as one atomic, ordered bundle (OpenFlow 1.4, or the ONF extension over 1.3), as ovs-ofctl --bundle does")
	f.IntVar(&cfg.Window, "window", 4, "batches in flight before waiting for a barrier reply (1: stop and wait)")
	f.BoolVar(&strict, "strict", false, "modify and delete lines are strict (MODIFY_STRICT, DELETE_STRICT)")
	f.BoolVar(&fix, "fix-prereqs", false, "add missing match prerequisites instead of refusing the flow")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// readInput reads a file, or standard input for "-".
func readInput(stdin io.Reader, path string) (string, []byte, error) {
	if path == "-" {
		b, err := io.ReadAll(stdin)
		return "<stdin>", b, err
	}
	b, err := os.ReadFile(path)
	return path, b, err
}
