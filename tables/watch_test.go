package tables

import (
	"testing"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

// TestWatch: while watched, Apply's changes name the updates of the burst
// as the caller passed them (those refused for a missing group skipped
// over), a group delete's removals carry OFPRR_GROUP_DELETE, and nothing
// is recorded once the watch ends.
func TestWatch(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 1})
	if err != nil {
		t.Fatal(err)
	}
	o := New(p, nil)
	o.Watch(func([]rules.Change) {})
	var res rules.BurstResult
	m := groups.Mod{Command: groups.Add, Type: groups.TypeAll, ID: 1,
		Buckets: []groups.Bucket{{WatchPort: groups.PortAny, WatchGroup: groups.Any, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: 1}}}}}
	if err := o.ApplyGroup(&res, &m); err != nil {
		t.Fatal(err)
	}
	got := applyNow(o, []rules.Update{groupFlow(1, 9, false), groupFlow(2, 1, false), groupFlow(3, 9, true), groupFlow(4, 1, true)})
	if len(got.Changes) != 2 || got.Changes[0].Update != 1 || got.Changes[1].Update != 3 ||
		got.Changes[0].Kind != rules.ChangeAdded || got.Changes[1].Rule.Priority != 4 {
		t.Fatalf("changes %+v, want the adds of updates 1 and 3", got.Changes)
	}
	if err := o.ApplyGroup(&res, &groups.Mod{Command: groups.Delete, ID: 1}); err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 2 {
		t.Fatalf("group delete: %+v", res.Changes)
	}
	for _, c := range res.Changes {
		if c.Kind != rules.ChangeRemoved || c.Reason != rules.RemovedGroupDelete {
			t.Errorf("group delete change %+v", c)
		}
	}
	o.Watch(nil)
	if got := applyNow(o, []rules.Update{{Command: rules.CmdAdd, Priority: 5}}); len(got.Changes) != 0 {
		t.Errorf("unwatched: %+v", got.Changes)
	}
}
