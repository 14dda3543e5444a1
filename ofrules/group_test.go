package ofrules

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

func TestGroupModRoundTrip(t *testing.T) {
	tcpDst := openflow.OXM{Class: openflow.OXMClassOpenFlow, Field: openflow.FieldTCPDst}
	tcpDst.Value[0], tcpDst.Value[1] = 0, 80
	gm := openflow.GroupMod{Command: openflow.GroupAdd, Type: openflow.GroupTypeSelect, GroupID: 5, Buckets: []openflow.Bucket{
		{Weight: 2, WatchPort: 3, WatchGroup: groups.Any, Actions: []openflow.Action{openflow.SetField(tcpDst), openflow.Output(3, 0)}},
		{Weight: 1, WatchPort: groups.PortAny, WatchGroup: groups.Any, Actions: []openflow.Action{{Type: openflow.ActionGroup, GroupID: 9}}},
	}}
	var m groups.Mod
	if err := GroupMod(&m, &gm); err != nil {
		t.Fatal(err)
	}
	want := []groups.Bucket{
		{Weight: 2, WatchPort: 3, WatchGroup: groups.Any, Actions: []rules.Action{
			{Kind: rules.ActionSetField, Field: rules.FieldL4Dst, Value: [2]uint64{0, 80}}, {Kind: rules.ActionOutput, Port: 3}}},
		{Weight: 1, WatchPort: groups.PortAny, WatchGroup: groups.Any, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: 9}}},
	}
	if diff := cmp.Diff(want, m.Buckets); diff != "" {
		t.Errorf("buckets (-want +got):\n%s", diff)
	}
	tbl := groups.New(nil)
	if _, err := tbl.Apply(&groups.Mod{Command: groups.Add, Type: groups.TypeAll, ID: 9}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Apply(&m); err != nil {
		t.Fatal(err)
	}
	d := GroupDesc(tbl.Load().Get(5))
	if diff := cmp.Diff(openflow.GroupDesc{Type: gm.Type, GroupID: 5, Buckets: gm.Buckets}, d); diff != "" {
		t.Errorf("GroupDesc (-want +got):\n%s", diff)
	}
	// Errors: a reserved group in an action, a bad type, a bad command.
	for _, tt := range []struct {
		gm   openflow.GroupMod
		want openflow.ErrorMsg
	}{
		{openflow.GroupMod{Buckets: []openflow.Bucket{{Actions: []openflow.Action{{Type: openflow.ActionGroup, GroupID: groups.All}}}}},
			openflow.ErrorMsg{Type: openflow.ErrTypeBadAction, Code: uint16(openflow.BadActionBadOutGroup)}},
		{openflow.GroupMod{Type: 4}, openflow.ErrorMsg{Type: openflow.ErrTypeGroupModFailed, Code: uint16(openflow.GroupModFailedBadType)}},
		{openflow.GroupMod{Command: 3}, openflow.ErrorMsg{Type: openflow.ErrTypeGroupModFailed, Code: uint16(openflow.GroupModFailedBadCommand)}},
	} {
		err := GroupMod(&m, &tt.gm)
		var em openflow.ErrorMsg
		if !errors.As(err, &em) || em.Type != tt.want.Type || em.Code != tt.want.Code {
			t.Errorf("GroupMod(%+v) = %v, want %v", tt.gm, err, tt.want)
		}
	}
}

func TestGroupFeatures(t *testing.T) {
	f := GroupFeatures()
	if f.Types != 0xf || f.Capabilities != 0xf {
		t.Errorf("types %#x capabilities %#x, want 0xf 0xf", f.Types, f.Capabilities)
	}
	// Every action a FLOW_MOD may use is allowed in every group type,
	// nothing more: output, push/pop_vlan, set_queue, group, dec_nw_ttl
	// and set_field at least.
	need := uint32(1<<openflow.ActionOutput | 1<<openflow.ActionPushVLAN | 1<<openflow.ActionPopVLAN |
		1<<openflow.ActionSetQueue | 1<<openflow.ActionGroup | 1<<openflow.ActionDecNWTTL | 1<<openflow.ActionSetField)
	for i, a := range f.Actions {
		if a&need != need || f.MaxGroups[i] != groups.MaxGroups {
			t.Errorf("type %d: actions %#x max %d", i, a, f.MaxGroups[i])
		}
		for _, p := range actionProbes {
			_, err := Actions([]openflow.Action{p})
			if (err == nil) != (a&(1<<p.Type) != 0) {
				t.Errorf("type %d: action %v reported %v, accepted %v", i, p.Type, a&(1<<p.Type) != 0, err == nil)
			}
		}
	}
}

// FuzzGroupMod: any GROUP_MOD the codec decodes translates and applies to
// a group table without a panic, and a group the table takes describes
// itself (GROUP_DESC) with the buckets it came with.
func FuzzGroupMod(f *testing.F) {
	seed := openflow.GroupMod{Header: openflow.Header{Version: openflow.Version13, XID: 1}, Type: openflow.GroupTypeSelect, GroupID: 3,
		Buckets: []openflow.Bucket{{Weight: 1, WatchPort: 1, WatchGroup: groups.Any, Actions: []openflow.Action{openflow.Output(1, 0)}},
			{Weight: 2, WatchPort: groups.PortAny, WatchGroup: 1, Actions: []openflow.Action{{Type: openflow.ActionGroup, GroupID: 2}}}}}
	b, err := seed.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, in []byte) {
		var gm openflow.GroupMod
		if gm.UnmarshalBinary(in) != nil {
			return
		}
		tbl := groups.New(nil)
		for _, id := range []uint32{1, 2} {
			if _, err := tbl.Apply(&groups.Mod{Command: groups.Add, Type: groups.TypeAll, ID: id}); err != nil {
				t.Fatal(err)
			}
		}
		var m groups.Mod
		if GroupMod(&m, &gm) != nil {
			return
		}
		if _, err := tbl.Apply(&m); err != nil || gm.Command != openflow.GroupAdd {
			return
		}
		d := GroupDesc(tbl.Load().Get(gm.GroupID))
		if diff := cmp.Diff(gm.Buckets, d.Buckets, cmpopts.EquateEmpty()); diff != "" || d.Type != gm.Type {
			t.Fatalf("GROUP_DESC differs from the GROUP_MOD (-mod +desc):\n%s", diff)
		}
	})
}

// TestWireGroupMod: a group mod goes to the wire and back unchanged; a
// delete carries no buckets.
func TestWireGroupMod(t *testing.T) {
	m := groups.Mod{Command: groups.Modify, Type: groups.TypeFF, ID: 7, Buckets: []groups.Bucket{
		{WatchPort: 2, WatchGroup: groups.Any, Actions: []rules.Action{{Kind: rules.ActionPushVLAN, EthType: 0x8100}, {Kind: rules.ActionOutput, Port: 2}}},
		{WatchPort: groups.PortAny, WatchGroup: 3, Actions: []rules.Action{{Kind: rules.ActionGroup, Group: 3}}},
	}}
	gm := WireGroupMod(&m)
	var back groups.Mod
	if err := GroupMod(&back, &gm); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(m, back, cmpopts.IgnoreFields(groups.Mod{}, "Desc")); diff != "" {
		t.Errorf("group mod (-sent +read back):\n%s", diff)
	}
	if del := WireGroupMod(&groups.Mod{Command: groups.Delete, Type: groups.TypeAll, ID: groups.All, Buckets: m.Buckets}); del.Buckets != nil || del.GroupID != groups.All || del.Command != openflow.GroupDelete {
		t.Errorf("delete: %+v", del)
	}
}
