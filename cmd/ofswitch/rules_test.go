package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules/classbench"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func TestRulesLint(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.flows")
	os.WriteFile(good, []byte("priority=5,ip,nw_src=10.0.0.0/8,actions=output:1\ntable=1,priority=1,actions=drop\n"), 0o644)
	out, err := run(t, "rules", "lint", good)
	if err != nil || !strings.Contains(out, "2 flows ok") {
		t.Fatalf("lint good: %v\n%s", err, out)
	}
	bad := filepath.Join(dir, "bad.flows")
	os.WriteFile(bad, []byte("priority=5,ip,actions=output:1\nip,nw_src=10.0.0.300,actions=drop\ntp_dst=80,actions=drop\ntable=1,actions=goto_table:1\n"), 0o644)
	out, err = run(t, "rules", "lint", bad)
	if err == nil {
		t.Fatalf("lint accepted a bad file:\n%s", out)
	}
	for _, want := range []string{bad + ":2:11: expected an IPv4 address", bad + ":3:1: rules: OFPET_BAD_MATCH/OFPBMC_BAD_PREREQ", bad + ":4:1: rules: OFPET_BAD_INSTRUCTION/OFPBIC_BAD_TABLE_ID"} {
		if !strings.Contains(out, want) {
			t.Errorf("lint output lacks %q:\n%s", want, out)
		}
	}
	out, err = run(t, "rules", "lint", "--fix-prereqs", bad)
	if err == nil || strings.Contains(out, "BAD_PREREQ") {
		t.Errorf("--fix-prereqs still reports the prerequisite (or accepts the rest): %v\n%s", err, out)
	}
}

func TestRulesCheck(t *testing.T) {
	rs := testutil.SharedData(t, "classbench", "lyxocs-ruleSet", "fw1_1k")
	tr := testutil.SharedData(t, "classbench", "lyxocs-ruleSet", "fw1_1k_trace")
	for _, f := range []string{"bcf", "cf", "none"} {
		out, err := run(t, "rules", "check", "--classbench", rs, "--trace", tr, "--filter", f)
		if err != nil || !strings.Contains(out, "checked 7610, failed 0") || !strings.Contains(out, "761 rules -> 761 entries (expansion x1.00") {
			t.Fatalf("check --filter %s: %v\n%s", f, err, out)
		}
	}
	// A trace whose label is wrong must fail: label 0 on a header rule 0 does not match.
	bad := filepath.Join(t.TempDir(), "bad_trace")
	os.WriteFile(bad, []byte("1\t2\t3\t4\t6\t0\t0\n"), 0o644)
	out, err := run(t, "rules", "check", "--classbench", rs, "--trace", bad)
	if !errors.Is(err, errCheckFailed) || !strings.Contains(out, "checked 1, failed 1") || !strings.Contains(out, "bad_trace:1:") {
		t.Fatalf("bad trace: %v\n%s", err, out)
	}
}

func TestRulesConvert(t *testing.T) {
	rs := testutil.SharedData(t, "classbench", "lyxocs-ruleSet", "fw1_1k")
	out, err := run(t, "rules", "convert", "--classbench", rs, "--actions", "output:2")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2591 {
		t.Fatalf("%d lines, want 2591 (fw1_1k's prefix expansion)", len(lines))
	}
	if !strings.HasPrefix(lines[0], "priority=65535,udp,nw_src=91.89.244.16/29,nw_dst=245.66.202.32/28,tp_src=88,tp_dst=69,actions=output:2") {
		t.Errorf("first line %q", lines[0])
	}
	// The printed flows parse back to the same matches.
	ups, errs := ofctl.ParseFlows("converted", []byte(out), nil)
	data, _ := os.ReadFile(rs)
	cb, _ := classbench.Parse(rs, data)
	want, _ := classbench.Updates(cb, 0, nil)
	if len(errs) > 0 || len(ups) != len(want) {
		t.Fatalf("reparse: %d flows, errors %v", len(ups), errs)
	}
	for i := range ups {
		if ups[i].Match != want[i].Match || ups[i].Priority != want[i].Priority {
			t.Fatalf("line %d reparses to a different flow", i+1)
		}
	}
}

// TestRulesLintGroupsMeters: rules lint takes several files as one
// pipeline, checks their groups and meters, and counts them.
func TestRulesLintGroupsMeters(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	groups := write("groups.txt", "group_id=1,type=all,bucket=output:1,bucket=output:2\ngroup add group_id=2,type=indirect,bucket=actions=group:1\n")
	meters := write("meters.txt", "meter=1,kbps,bands=type=drop,rate=1000\n")
	flows := write("flows.txt", "priority=5,ip,actions=meter:1,group:2\nflow priority=6,udp,actions=group:1\n")
	out, err := run(t, "rules", "lint", groups, meters, flows)
	if err != nil || !strings.Contains(out, groups+" and 2 more: 2 flows ok, 2 groups ok, 1 meters ok") {
		t.Fatalf("lint groups meters flows: %v\n%s", err, out)
	}
	// The flows alone: their groups and meters are pushed apart.
	if out, err := run(t, "rules", "lint", flows); err != nil || !strings.Contains(out, "2 flows ok") {
		t.Errorf("lint flows alone: %v\n%s", err, out)
	}
	// Flows before the groups they use; a loop; a missing meter.
	bad := write("bad.txt", "modify group_id=1,type=all,bucket=group:2\npriority=7,tcp,actions=meter:5,output:1\n")
	out, err = run(t, "rules", "lint", flows, groups, meters, bad)
	for _, want := range []string{
		flows + ":1:1: rules: OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP",
		flows + ":2:1: rules: OFPET_BAD_ACTION/OFPBAC_BAD_OUT_GROUP",
		bad + ":1:1: rules: OFPET_GROUP_MOD_FAILED/OFPGMFC_LOOP",
		bad + ":2:1: rules: OFPET_METER_MOD_FAILED/OFPMMFC_INVALID_METER",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint output lacks %q:\n%s", want, out)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "3 of 3 flows fail, 1 of 3 groups fail, 0 of 1 meters fail") {
		t.Errorf("lint of bad files: %v", err)
	}
}
