package tables

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/rules"
)

func groupFlow(prio uint16, group uint32, write bool) rules.Update {
	kind := rules.InstApplyActions
	if write {
		kind = rules.InstWriteActions
	}
	u := rules.Update{Command: rules.CmdAdd, Priority: prio,
		Instructions: []rules.Instruction{{Kind: kind, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: group}}}}}
	u.Match.SetExact(rules.FieldInPort, uint64(prio))
	return u
}

// TestGroupFlows: a flow naming a missing group is refused with
// OFPBAC_BAD_OUT_GROUP while the others of its burst go in; deleting a
// group removes the flows that use it, and only those, with reason
// OFPRR_GROUP_DELETE.
func TestGroupFlows(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 2})
	if err != nil {
		t.Fatal(err)
	}
	o := New(p, nil)
	var res rules.BurstResult
	out := []rules.Action{{Kind: rules.ActionOutput, Port: 1}}
	for _, id := range []uint32{1, 2} {
		m := groups.Mod{Command: groups.Add, Type: groups.TypeAll, ID: id,
			Buckets: []groups.Bucket{{WatchPort: groups.PortAny, WatchGroup: groups.Any, Actions: out}}}
		if err := o.ApplyGroup(&res, &m); err != nil {
			t.Fatal(err)
		}
	}
	ups := []rules.Update{groupFlow(1, 1, false), groupFlow(2, 9, false), groupFlow(3, 2, true), groupFlow(4, 1, true)}
	ups[3].Flags = rules.FlagSendFlowRem
	got := applyNow(o, ups)
	for i, want := range []error{nil, groups.ErrBadOutGroup, nil, nil} {
		if !errors.Is(got.Errs[i], want) && got.Errs[i] != want {
			t.Errorf("update %d: err %v, want %v", i, got.Errs[i], want)
		}
	}
	if n := p.Table(0).Stats().Flows; n != 3 {
		t.Fatalf("table 0 holds %d flows, want 3", n)
	}
	if err := o.ApplyGroup(&res, &groups.Mod{Command: groups.Delete, ID: 1}); err != nil {
		t.Fatal(err)
	}
	if n := p.Table(0).Stats().Flows; n != 1 {
		t.Errorf("after deleting group 1, table 0 holds %d flows, want 1", n)
	}
	if len(res.Removed) != 1 || res.Removed[0].Reason != rules.RemovedGroupDelete {
		t.Errorf("removed %+v, want the one with send_flow_rem, reason OFPRR_GROUP_DELETE", res.Removed)
	}
	if err := o.ApplyGroup(&res, &groups.Mod{Command: groups.Delete, ID: groups.All}); err != nil {
		t.Fatal(err)
	}
	if n := p.Table(0).Stats().Flows; n != 0 || o.Groups().Load().Len() != 0 {
		t.Errorf("after deleting every group: %d flows, %d groups", n, o.Groups().Load().Len())
	}
}
