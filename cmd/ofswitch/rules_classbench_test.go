package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules/classbench"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestRulesClassBenchPorts: a ClassBench set with ports under ICMP, GRE
// and any protocol passes rules check (over the five fields) and prints
// what its flows cannot express; rules convert writes those notes as
// comment lines before each rule's flows, and the flows lint clean and
// parse back to Updates.
func TestRulesClassBenchPorts(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "rules", "classbench", "testdata")
	rs, tr := filepath.Join(dir, "ports_any_proto"), filepath.Join(dir, "ports_any_proto_trace")
	out, err := run(t, "rules", "check", "--classbench", rs, "--trace", tr)
	if err != nil || !strings.Contains(out, "checked 12, failed 0") ||
		!strings.Contains(out, "5 rules OpenFlow cannot express as written") || !strings.Contains(out, "answer 5 of 12 headers otherwise") ||
		!strings.Contains(out, rs+":1: protocol 1 (icmp): no ports in OpenFlow") {
		t.Fatalf("check: %v\n%s", err, out)
	}
	out, err = run(t, "rules", "convert", "--classbench", rs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// Each comment comes right before its rule's first flow (priority
	// 65535 - rule), or before the next rule's when the rule has none.
	var comments []string
	for i, l := range lines {
		if !strings.HasPrefix(l, "# ") {
			continue
		}
		comments = append(comments, l)
		if i+1 == len(lines) || strings.HasPrefix(lines[i+1], "# ") {
			continue
		}
		want := map[string]string{"# rule 1 ": "priority=65534,tcp,", "# rule 3 ": "priority=65532,tcp,", "# rule 5 ": "priority=65530,tcp,"}
		for k, v := range want {
			if strings.HasPrefix(l, k) && !strings.HasPrefix(lines[i+1], v) {
				t.Errorf("after %q: %q, want %s...", l, lines[i+1], v)
			}
		}
	}
	if len(comments) != 5 || !strings.HasPrefix(lines[0], "# rule 0 (line 1): ") || !slices.ContainsFunc(comments, func(c string) bool {
		return strings.HasPrefix(c, "# rule 1 (line 2): any protocol with destination port 1000 : 2000: one copy per tcp, udp and sctp")
	}) {
		t.Errorf("comments:\n%s", strings.Join(comments, "\n"))
	}
	flows := filepath.Join(t.TempDir(), "p.flows")
	if err := os.WriteFile(flows, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "rules", "lint", flows); err != nil || !strings.Contains(out, "55 flows ok") {
		t.Errorf("lint of the converted flows: %v\n%s", err, out)
	}
	ups, errs := ofctl.ParseFlows("converted", []byte(out), nil)
	data, _ := os.ReadFile(rs)
	cb, _ := classbench.Parse(rs, data)
	want, _ := classbench.Updates(cb, 0, nil)
	if len(errs) > 0 || len(ups) != len(want) {
		t.Fatalf("reparse: %d flows, want %d; errors %v", len(ups), len(want), errs)
	}
	for i := range ups {
		if ups[i].Match != want[i].Match || ups[i].Priority != want[i].Priority {
			t.Fatalf("flow %d reparses to a different flow", i)
		}
	}
}

// TestRulesClassBenchOpenFlowSet: an ovs-ofctl file (ClassBench-ng's of1)
// given to rules check says where such files are read.
func TestRulesClassBenchOpenFlowSet(t *testing.T) {
	f := filepath.Join(t.TempDir(), "of1")
	os.WriteFile(f, []byte("nw_dst=4.207.115.52/32, tp_src=67, tp_dst=8\n"), 0o644)
	_, err := run(t, "rules", "convert", "--classbench", f)
	if err == nil || !strings.Contains(err.Error(), "rules lint --no-actions") {
		t.Fatalf("convert of an ovs-ofctl file: %v", err)
	}
}
