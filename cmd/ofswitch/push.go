package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
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
			ups, lines, err := parsePushFile(name, data, strict, fix)
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
			if res.Version < openflow.Version14 && slices.ContainsFunc(ups, func(u rules.Update) bool { return u.Importance != 0 }) {
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

// verb matches the command word a line of an ovs-ofctl --bundle file may
// start with.
var verb = regexp.MustCompile(`^\s*(add|modify|delete)(\s+|$)`)

// tableSet matches a table= field of a flow.
var tableSet = regexp.MustCompile(`(^|[\s,])table=`)

// importanceSet matches an importance= field, which only adds may have
// (ovs-ofctl: "unknown keyword importance" on the others).
var importanceSet = regexp.MustCompile(`(^|[\s,])importance=`)

// parsePushFile parses a flow file whose lines may start with add, modify
// or delete. The word is blanked out, not removed, so that error columns
// still point into the line as written. As in ovs-ofctl, a delete without
// table= deletes from every table, and "delete" alone deletes every flow.
func parsePushFile(name string, data []byte, strict, fix bool) ([]rules.Update, []string, error) {
	lines := strings.SplitAfter(string(data), "\n")
	cmds := make([]rules.Command, len(lines)+1) // by 1-based line number
	var all []rules.Update                      // deletes with nothing after the word
	for i, l := range lines {
		m := verb.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		switch l[m[2]:m[3]] {
		case "modify":
			cmds[i+1] = rules.CmdModify
			if strict {
				cmds[i+1] = rules.CmdModifyStrict
			}
		case "delete":
			cmds[i+1] = rules.CmdDelete
			if strict {
				cmds[i+1] = rules.CmdDeleteStrict
			}
		}
		if c := cmds[i+1]; c != rules.CmdAdd {
			if at := importanceSet.FindStringIndex(l); at != nil {
				col := at[0] + strings.Index(l[at[0]:], "importance") + 1
				return nil, nil, fmt.Errorf("%s:%d:%d: importance is for add lines only (a %s keeps the flow's)", name, i+1, col, l[m[2]:m[3]])
			}
		}
		lines[i] = strings.Repeat(" ", m[3]) + l[m[3]:]
		if c := cmds[i+1]; (c == rules.CmdDelete || c == rules.CmdDeleteStrict) && strings.TrimSpace(l[m[3]:]) == "" {
			all = append(all, rules.Update{Command: c, Table: rules.TableAll, ID: i + 1})
		}
	}
	// Deletes need no actions; adds and modifies do, as in ovs-ofctl.
	// Each pass sees the other's lines as blank, so line numbers hold.
	var dels, rest []string
	for i, l := range lines {
		isDel := cmds[i+1] == rules.CmdDelete || cmds[i+1] == rules.CmdDeleteStrict
		blank := strings.Repeat(" ", len(strings.TrimRight(l, "\n"))) + l[len(strings.TrimRight(l, "\n")):]
		if isDel {
			dels, rest = append(dels, l), append(rest, blank)
		} else {
			dels, rest = append(dels, blank), append(rest, l)
		}
	}
	ups, errs := ofctl.ParseFlows(name, []byte(strings.Join(rest, "")), &ofctl.ParseOptions{FixPrereqs: fix})
	dups, derrs := ofctl.ParseFlows(name, []byte(strings.Join(dels, "")), &ofctl.ParseOptions{FixPrereqs: fix, NoActions: true})
	if errs = append(errs, derrs...); len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	ups = append(append(ups, dups...), all...)
	slices.SortStableFunc(ups, func(a, b rules.Update) int { return a.ID - b.ID })
	where := make([]string, len(ups))
	for i := range ups {
		if c := cmds[ups[i].ID]; c != rules.CmdAdd {
			// A modify keeps its actions: they are what it sets.
			ups[i].Command = c
			if c == rules.CmdDelete || c == rules.CmdDeleteStrict {
				ups[i].Instructions = nil
				if !tableSet.MatchString(lines[ups[i].ID-1]) {
					ups[i].Table = rules.TableAll
				}
			}
		}
		where[i] = fmt.Sprintf("%s:%d", name, ups[i].ID)
	}
	return ups, where, nil
}
