package rules_test

import (
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
)

// TestMayResubmitFollowsRules: MayResubmit is true while an entry with a
// resubmit action is in the pipeline, and false again once the last one
// is gone, whichever way it went: delete, modify to other actions, hard
// timeout, a bundle taken back.
func TestMayResubmitFollowsRules(t *testing.T) {
	now := time.Unix(1000, 0)
	p, err := rules.New(&rules.Config{Tables: 2, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	apply := func(text string) {
		t.Helper()
		if res := p.ApplyBurst(flowMods(t, text), true); countErr(res.Errs) != 0 {
			t.Fatal(res.Errs)
		}
	}
	want := func(step string, v bool) {
		t.Helper()
		if got := p.MayResubmit(); got != v {
			t.Fatalf("%s: MayResubmit %v, want %v", step, got, v)
		}
	}
	want("empty", false)
	apply("add priority=1,in_port=1,actions=output:2")
	want("no resubmit", false)
	apply("add priority=2,in_port=2,actions=resubmit(,1)\nadd priority=3,in_port=3,actions=write_actions(resubmit(,1))")
	want("two entries with resubmit", true)
	apply("delete in_port=2")
	want("one left", true)
	apply("delete in_port=3")
	want("deleted", false)
	apply("add priority=2,in_port=2,actions=resubmit(,1)")
	want("added again", true)
	apply("modify in_port=2,actions=output:3")
	want("modified to an output", false)
	apply("modify in_port=2,actions=resubmit(,1)")
	want("modified to a resubmit", true)
	apply("add priority=2,in_port=2,actions=output:1")
	want("replaced by an add", false)
	apply("add priority=5,in_port=5,hard_timeout=1,actions=resubmit(,1)")
	want("with a timeout", true)
	now = now.Add(2 * time.Second)
	p.Expire()
	want("expired", false)

	// A bundle that fails is taken back: what it added goes, what it
	// deleted comes back, and the flag follows.
	var res rules.BurstResult
	if at := p.ApplyAllTo(&res, flowMods(t, "add priority=6,in_port=6,actions=resubmit(,1)\nadd table=1,priority=1,actions=goto_table:0"), nil, nil); at < 0 {
		t.Fatal("a bundle with a bad goto_table taken")
	}
	want("a bundle taken back", false)
	apply("add priority=7,in_port=7,actions=resubmit(,1)")
	if at := p.ApplyAllTo(&res, flowMods(t, "delete in_port=7\nadd table=1,priority=1,actions=goto_table:0"), nil, nil); at < 0 {
		t.Fatal("a bundle with a bad goto_table taken")
	}
	want("a delete taken back", true)
	apply("delete")
	want("all deleted", false)
}
