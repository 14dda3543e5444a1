package rules_test

import (
	"testing"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestImportance: OpenFlow 1.4's importance as the pipeline keeps it: set
// by ADD, kept by MODIFY, replaced by an ADD of the same match and priority
// (as Open vSwitch does: only an ADD sets it). (Its text form is ofctl's
// TestImportance.)
func TestImportance(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 1})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(line string, cmd rules.Command) {
		t.Helper()
		u, err := ofctl.ParseFlow(line)
		if err != nil {
			t.Fatal(err)
		}
		u.Command = cmd
		if res := p.ApplyBurst([]rules.Update{u}, false); res.Errs[0] != nil {
			t.Fatalf("%s: %v", line, res.Errs[0])
		}
	}
	importance := func() (uint16, string) {
		t.Helper()
		rs := p.Rules(0)
		if len(rs) != 1 {
			t.Fatalf("%d rules, want 1", len(rs))
		}
		return rs[0].Importance, ofctl.FormatActions(rs[0].Instructions)
	}
	apply("importance=7,priority=5,ip,actions=output:1", rules.CmdAdd)
	if imp, _ := importance(); imp != 7 {
		t.Fatalf("after ADD importance=7: %d", imp)
	}
	apply("priority=5,ip,actions=output:3", rules.CmdModifyStrict)
	if imp, act := importance(); imp != 7 || act != "output:3" {
		t.Fatalf("after MODIFY_STRICT: importance %d, actions %s; want 7, output:3", imp, act)
	}
	apply("importance=9,ip,actions=output:4", rules.CmdModify) // a modify's importance is not used
	if imp, act := importance(); imp != 7 || act != "output:4" {
		t.Fatalf("after MODIFY: importance %d, actions %s; want 7, output:4", imp, act)
	}
	apply("importance=2,priority=5,ip,actions=output:5", rules.CmdAdd)
	if imp, act := importance(); imp != 2 || act != "output:5" {
		t.Fatalf("after a replacing ADD: importance %d, actions %s; want 2, output:5", imp, act)
	}
}

// TestAddFlagsKept: an add's check_overlap and reset_counts stay with the
// rule, as Open vSwitch keeps them, and an identical rule is no overlap
// for check_overlap: the add replaces it.
func TestAddFlagsKept(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range []string{
		"priority=5,tcp,tp_dst=25,check_overlap,reset_counts,actions=drop",
		"priority=5,tcp,tp_dst=25,check_overlap,actions=output:1", // identical: replaces
	} {
		u, err := ofctl.ParseFlow(line)
		if err != nil {
			t.Fatal(err)
		}
		if res := p.ApplyBurst([]rules.Update{u}, false); res.Errs[0] != nil {
			t.Fatalf("add %d: %v", i+1, res.Errs[0])
		}
	}
	rs := p.Rules(0)
	if len(rs) != 1 || rs[0].Flags != rules.FlagCheckOverlap || ofctl.FormatActions(rs[0].Instructions) != "output:1" {
		t.Fatalf("rules after the replacing add: %d, flags %#x", len(rs), rs[0].Flags)
	}
	u, _ := ofctl.ParseFlow("priority=5,tcp,check_overlap,actions=drop") // overlaps, not identical
	if res := p.ApplyBurst([]rules.Update{u}, false); res.Errs[0] == nil {
		t.Fatal("an overlapping add with check_overlap was accepted")
	}
}
