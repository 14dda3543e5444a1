package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/spf13/cobra"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/classbench"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func newRulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Check flow files and ClassBench rule sets",
	}
	cmd.AddCommand(newRulesLintCmd(), newRulesCheckCmd(), newRulesConvertCmd())
	return cmd
}

func newRulesLintCmd() *cobra.Command {
	var (
		fix, noActions, strictPorts bool
		tables                      int
		tlvMap                      string
	)
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Check files of flows, groups and meters as ofswitch push reads them",
		Long: `Reads each FILE as ofswitch push does (flows in ovs-ofctl add-flows syntax,
groups in add-groups syntax, meters in add-meter syntax, ovs-ofctl bundle
lines; see ofswitch push --help) and checks them in order, the files one after
the other, as one switch would take them: every line must parse, every match
meet the OpenFlow 1.3 prerequisites, every flow load into the tables (table
ids, goto_table, output ports, actions the match cannot promise), every group
into the group table (buckets per type, weights, watch ports and groups,
chaining to groups defined before, loops: OFPGMFC_LOOP; bucket actions checked
as a flow's), every meter into the meter table, and each fit in one OpenFlow
message (65535 bytes: a flow of thousands of actions does not).

A flow that sends to a group no line before it defines is an error
(OFPBAC_BAD_OUT_GROUP), as is one that names a meter no line before it
defines (OFPMMFC_INVALID_METER), but only when the files define at least one
group (for groups) or one meter (for meters): a file of flows alone may name
the groups and meters pushed to the switch apart, so lint groups.txt
meters.txt flows.txt checks the names and lint flows.txt does not.

Fields tun_metadata0-63 are read as --tlv-map maps them (ovs-ofctl
add-tlv-map's syntax: "{class=0xffff,type=0,len=4}->tun_metadata0,...");
without it a line that names one is an error ("not mapped").

Prints each error as file:line:column: message and a summary of the flows,
groups and meters; exits non-zero if any line fails.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files := make([]ofctl.LintFile, len(args))
			for i, name := range args {
				data, err := os.ReadFile(name)
				if err != nil {
					return err
				}
				files[i] = ofctl.LintFile{Name: name, Data: data}
			}
			opt := &ofctl.ParseOptions{FixPrereqs: fix, NoActions: noActions, Check: fitsOneMessage(false)}
			if tlvMap != "" {
				t, err := tlvTableOf(tlvMap)
				if err != nil {
					return err
				}
				opt.TunMetadata = t
			}
			return lint(cmd.OutOrStdout(), files, opt,
				&rules.Config{Tables: tables, StrictPorts: strictPorts, Filter: rules.FilterNone})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fix, "fix-prereqs", false, "add missing match prerequisites instead of reporting OFPBMC_BAD_PREREQ")
	f.BoolVar(&noActions, "no-actions", false, "accept lines without actions= (ClassBench-ng OpenFlow sets)")
	f.BoolVar(&strictPorts, "strict-ports", false, "reject masked TCP/UDP/SCTP ports (OFPBMC_BAD_MASK) as strict OpenFlow 1.3 does")
	f.IntVar(&tables, "tables", 254, "number of flow tables of the switch the flows are meant for")
	f.StringVar(&tlvMap, "tlv-map", "", "the switch's TLV table, as ovs-ofctl add-tlv-map takes it, for tun_metadata0-63")
	return cmd
}

func lint(w io.Writer, files []ofctl.LintFile, opt *ofctl.ParseOptions, cfg *rules.Config) error {
	rep, err := ofctl.LintFiles(files, opt, cfg)
	if err != nil {
		return err
	}
	for _, err := range rep.Errors {
		fmt.Fprintln(w, err)
	}
	name := files[0].Name
	if len(files) > 1 {
		name = fmt.Sprintf("%s and %d more", name, len(files)-1)
	}
	// A file of flows alone gets the summary it always had.
	summary := func(n, ok int, what string) string {
		if len(rep.Errors) > 0 {
			return fmt.Sprintf("%d of %d %s fail", n-ok, n, what)
		}
		return fmt.Sprintf("%d %s ok", ok, what)
	}
	s := summary(rep.Flows, rep.OK, "flows")
	if rep.Groups+rep.Meters > 0 {
		s += ", " + summary(rep.Groups, rep.GroupsOK, "groups") + ", " + summary(rep.Meters, rep.MetersOK, "meters")
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("%s: %s", name, s)
	}
	fmt.Fprintf(w, "%s: %s\n", name, s)
	return nil
}

func newRulesCheckCmd() *cobra.Command {
	var (
		rulesPath, tracePath, filterName string
		bloomAfter, show                 int
		noMerge                          bool
	)
	cmd := &cobra.Command{
		Use:   "check --classbench RULES --trace TRACE",
		Short: "Classify a ClassBench trace and check every answer",
		Long: `Loads a ClassBench filter file (port ranges become masked ports) and
classifies every header of its trace. Each answer must equal the first match
of a linear scan over the original ranges, and the trace's label (the rule
that generated the header) must match the header and must not come before
the answer. Prints the number checked, the number that fail and the first
failures; exits non-zero on any failure.

The five fields are independent, as in ClassBench: a header carries ports
whatever its protocol, and a rule may constrain the ports of ICMP or of any
protocol. Such rules are classified as ClassBench defines them; what their
OpenFlow flows (rules convert) do instead is printed as notes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kind, err := rules.ParseFilterKind(filterName)
			if err != nil {
				return err
			}
			rd, err := os.ReadFile(rulesPath)
			if err != nil {
				return err
			}
			td, err := os.ReadFile(tracePath)
			if err != nil {
				return err
			}
			return check(cmd.OutOrStdout(), rulesPath, rd, tracePath, td,
				&rules.Config{Filter: kind, BloomAfter: bloomAfter, NoMerge: noMerge, Seed: 1}, show)
		},
	}
	f := cmd.Flags()
	f.StringVar(&rulesPath, "classbench", "", "ClassBench filter file (required)")
	f.StringVar(&tracePath, "trace", "", "ClassBench trace file (required)")
	f.StringVar(&filterName, "filter", "bcf", "filter in front of the subtables: bcf, cf or none")
	f.IntVar(&bloomAfter, "bloom-after", 0, "the Bloom-Cuckoo filter's t")
	f.BoolVar(&noMerge, "no-merge", false, "one subtable per mask (no TupleMerge-style merging)")
	f.IntVar(&show, "show", 5, "failures to print")
	_ = cmd.MarkFlagRequired("classbench")
	_ = cmd.MarkFlagRequired("trace")
	return cmd
}

// errCheckFailed is returned when some header failed the check.
var errCheckFailed = errors.New("rules check failed")

func check(w io.Writer, rulesName string, rd []byte, traceName string, td []byte, cfg *rules.Config, show int) error {
	rs, err := classbench.Parse(rulesName, rd)
	if err != nil {
		return err
	}
	hs, err := classbench.ParseTrace(traceName, td)
	if err != nil {
		return err
	}
	rep, err := classbench.Check(rs, hs, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", rulesName, err)
	}
	ex := rep.Expansion
	fmt.Fprintf(w, "%s: %d rules -> %d entries (expansion x%.2f, max %d per rule), %d subtables, filter %s\n",
		rulesName, ex.Rules, ex.Entries, ex.Factor(), ex.MaxPer, rep.Subtables, rep.Filter)
	for i, m := range rep.Mismatches {
		if i >= show {
			break
		}
		fmt.Fprintf(w, "%s:%d: %s\n", traceName, m.Line, m.Why)
	}
	visited, probes, fps := rep.PerLookup()
	fmt.Fprintf(w, "checked %d, failed %d; per lookup: %.2f subtables visited, %.2f probes, %.3f filter false positives\n",
		rep.Checked, len(rep.Mismatches), visited, probes, fps)
	if len(rep.Notes) > 0 {
		fmt.Fprintf(w, "%d rules OpenFlow cannot express as written, classified here over the five fields; their flows (rules convert), which answer %d of %d headers otherwise:\n",
			len(rep.Notes), rep.FlowsDiffer, rep.Checked)
		for i, n := range rep.Notes {
			if i >= show {
				break
			}
			fmt.Fprintf(w, "%s:%d: %s\n", rulesName, n.Line, n.Text)
		}
		if len(rep.Notes) > show {
			fmt.Fprintf(w, "and %d more (rules convert writes them all)\n", len(rep.Notes)-show)
		}
	}
	if len(rep.Mismatches) > 0 {
		return fmt.Errorf("%w: %d of %d headers", errCheckFailed, len(rep.Mismatches), rep.Checked)
	}
	return nil
}

func newRulesConvertCmd() *cobra.Command {
	var (
		rulesPath, actions string
		table              uint8
	)
	cmd := &cobra.Command{
		Use:   "convert --classbench RULES",
		Short: "Print a ClassBench set in ovs-ofctl add-flows syntax",
		Long: `Prints every entry of a ClassBench filter file's prefix expansion as an
ovs-ofctl add-flows line (priority 65535 - rule index; port ranges as masked
tp_src/tp_dst), so the set can be loaded into Open vSwitch or pushed to
ofswitch. The expansion factor goes to stderr.

In OpenFlow only TCP, UDP and SCTP packets have ports. A rule that constrains
ports under any protocol becomes tcp, udp and sctp copies; one that
constrains ports of another protocol (ICMP with source port 21) has no flow
for it; a partial protocol mask becomes one copy per protocol. Each such
rule gets a comment line ("# rule N (line L): ...") before its flows saying
what they do; the flows then match a packet exactly when the rule does with
a packet without ports meeting only the full ranges 0 : 65535.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rd, err := os.ReadFile(rulesPath)
			if err != nil {
				return err
			}
			return convert(cmd.OutOrStdout(), cmd.ErrOrStderr(), rulesPath, rd, table, actions)
		},
	}
	f := cmd.Flags()
	f.StringVar(&rulesPath, "classbench", "", "ClassBench filter file (required)")
	f.StringVar(&actions, "actions", "drop", "actions of every flow, in ovs-ofctl syntax")
	f.Uint8Var(&table, "table", 0, "table of every flow")
	_ = cmd.MarkFlagRequired("classbench")
	return cmd
}

func convert(w, ew io.Writer, name string, rd []byte, table uint8, actions string) error {
	rs, err := classbench.Parse(name, rd)
	if err != nil {
		return err
	}
	inst, err := ofctl.ParseActions(actions)
	if err != nil {
		return fmt.Errorf("--actions: %w", err)
	}
	ups, ex := classbench.Updates(rs, table, inst)
	if err := writeNotedFlows(w, ups, classbench.Notes(rs)); err != nil {
		return err
	}
	fmt.Fprintf(ew, "%s: %d rules -> %d flows (expansion x%.2f, max %d per rule)", name, ex.Rules, ex.Entries, ex.Factor(), ex.MaxPer)
	if ex.Noted > 0 {
		fmt.Fprintf(ew, ", %d rules noted (# lines)", ex.Noted)
	}
	fmt.Fprintln(ew)
	return nil
}

// writeNotedFlows writes ups (in rule order, ID the rule index) with each
// note as a comment line before its rule's flows, or where they would be
// when it has none.
func writeNotedFlows(w io.Writer, ups []rules.Update, notes []classbench.Note) error {
	bw := bufio.NewWriter(w)
	j := 0
	notesUpTo := func(rule int) {
		for ; j < len(notes) && notes[j].Rule <= rule; j++ {
			fmt.Fprintf(bw, "# %s\n", notes[j])
		}
	}
	for i := 0; i < len(ups); {
		k := i + 1
		for k < len(ups) && ups[k].ID == ups[i].ID {
			k++
		}
		notesUpTo(ups[i].ID)
		if err := ofctl.WriteFlows(bw, ups[i:k]); err != nil {
			return err
		}
		i = k
	}
	notesUpTo(math.MaxInt)
	return bw.Flush()
}
