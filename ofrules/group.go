package ofrules

import (
	"time"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// GroupMod translates the GROUP_MOD gm into *m (OpenFlow 1.3.5
// §7.3.4.2): the command, type and id as they are (the group table
// checks them, groups.Table.Apply) and each bucket's actions as Actions
// translates them. m.Desc keeps gm's buckets for GroupDesc. A failure is
// the OFPT_ERROR to answer gm with. A bucket's set_field, load, move or
// output:field of tun_metadata0-63 is NXFMFC_INVALID_TLV_FIELD here:
// GroupModTLV translates them.
func GroupMod(m *groups.Mod, gm *openflow.GroupMod) error { return GroupModTLV(m, gm, nil) }

// GroupModTLV is GroupMod with the switch's TLV table t, which maps the
// fields tun_metadata0-63 that the buckets' actions name. The buckets
// keep the option space places t gives those fields (rules.Action does
// not name a field through the table), so the switch refuses to delete a
// mapping while a group uses it (UsesTLVBuckets), where Open vSwitch,
// which resolves the field when a packet runs the bucket, deletes it.
func GroupModTLV(m *groups.Mod, gm *openflow.GroupMod, t *TLVTable) error {
	*m = groups.Mod{Command: groups.Command(gm.Command), Type: groups.Type(gm.Type), ID: gm.GroupID}
	if gm.Command > openflow.GroupDelete {
		return openflow.ErrorMsg{Type: openflow.ErrTypeGroupModFailed, Code: uint16(openflow.GroupModFailedBadCommand)}
	}
	if gm.Command == openflow.GroupDelete {
		return nil // buckets are ignored
	}
	if gm.Type > openflow.GroupTypeFF {
		return openflow.ErrorMsg{Type: openflow.ErrTypeGroupModFailed, Code: uint16(openflow.GroupModFailedBadType)}
	}
	m.Buckets = make([]groups.Bucket, len(gm.Buckets))
	desc := make([]openflow.Bucket, len(gm.Buckets))
	for i := range gm.Buckets {
		b := &gm.Buckets[i]
		as, err := actions(b.Actions, t)
		if err != nil {
			return err
		}
		m.Buckets[i] = groups.Bucket{Weight: b.Weight, WatchPort: b.WatchPort, WatchGroup: b.WatchGroup, Actions: as}
		desc[i] = openflow.Bucket{Weight: b.Weight, WatchPort: b.WatchPort, WatchGroup: b.WatchGroup,
			Actions: append([]openflow.Action(nil), b.Actions...)}
	}
	m.Desc = desc
	return nil
}

// WireGroupMod is GroupMod backwards, for a client that sends groups: the
// GROUP_MOD of m, each bucket's actions translated as a flow's are for an
// entry that matches everything (a set_field of a field that protocols
// share, such as a transport port, goes out under its TCP name). A
// DELETE carries no buckets.
func WireGroupMod(m *groups.Mod) openflow.GroupMod {
	gm := openflow.GroupMod{Command: uint16(m.Command), Type: uint8(m.Type), GroupID: m.ID}
	if m.Command == groups.Delete {
		return gm
	}
	gm.Buckets = make([]openflow.Bucket, len(m.Buckets))
	for i := range m.Buckets {
		b := &m.Buckets[i]
		gm.Buckets[i] = openflow.Bucket{Weight: b.Weight, WatchPort: b.WatchPort, WatchGroup: b.WatchGroup,
			Actions: actionsToWire(b.Actions, &rules.Match{}, nil)}
	}
	return gm
}

// GroupDesc describes g for an OFPMP_GROUP_DESC reply: its buckets as
// they came (GroupMod's Desc), or translated back from rules actions for
// a group that was added otherwise.
func GroupDesc(g *groups.Group) openflow.GroupDesc {
	d := openflow.GroupDesc{Type: uint8(g.Type), GroupID: g.ID}
	if bs, ok := g.Desc.([]openflow.Bucket); ok {
		d.Buckets = bs
		return d
	}
	d.Buckets = make([]openflow.Bucket, len(g.Buckets))
	for i := range g.Buckets {
		b := &g.Buckets[i]
		d.Buckets[i] = openflow.Bucket{Weight: b.Weight, WatchPort: b.WatchPort, WatchGroup: b.WatchGroup,
			Actions: actionsToWire(b.Actions, &rules.Match{}, nil)}
	}
	return d
}

// GroupStats returns g's statistics for an OFPMP_GROUP reply as of now,
// with refs, the number of flow entries that send packets to it.
func GroupStats(g *groups.Group, refs uint32, now time.Time) openflow.GroupStats {
	d := max(now.Sub(g.Created()), 0)
	s := openflow.GroupStats{GroupID: g.ID, RefCount: refs,
		DurationSec: uint32(d / time.Second), DurationNsec: uint32(d % time.Second)}
	s.PacketCount, s.ByteCount = g.Stats()
	s.BucketStats = make([]openflow.Counter, len(g.Buckets))
	for i := range g.Buckets {
		s.BucketStats[i].PacketCount, s.BucketStats[i].ByteCount = g.BucketStats(i)
	}
	return s
}

// Group capabilities (enum ofp_group_capabilities).
const (
	groupCapSelectWeight   = 1 << 0 // OFPGFC_SELECT_WEIGHT
	groupCapSelectLiveness = 1 << 1 // OFPGFC_SELECT_LIVENESS
	groupCapChaining       = 1 << 2 // OFPGFC_CHAINING
	groupCapChainingChecks = 1 << 3 // OFPGFC_CHAINING_CHECKS
)

// actionProbes are one valid action of each OpenFlow 1.3 action type, to
// learn which ones Actions accepts.
var actionProbes = []openflow.Action{
	openflow.Output(1, 0),
	{Type: openflow.ActionCopyTTLOut}, {Type: openflow.ActionCopyTTLIn},
	{Type: openflow.ActionSetMPLSTTL, TTL: 64}, {Type: openflow.ActionDecMPLSTTL},
	{Type: openflow.ActionPushVLAN, EtherType: 0x8100}, {Type: openflow.ActionPopVLAN},
	{Type: openflow.ActionPushMPLS, EtherType: 0x8847}, {Type: openflow.ActionPopMPLS, EtherType: 0x0800},
	{Type: openflow.ActionSetQueue, QueueID: 1}, {Type: openflow.ActionGroup, GroupID: 1},
	{Type: openflow.ActionSetNWTTL, TTL: 64}, {Type: openflow.ActionDecNWTTL},
	openflow.SetField(openflow.OXM{Class: openflow.OXMClassOpenFlow, Field: openflow.FieldEthDst}),
	{Type: openflow.ActionPushPBB, EtherType: 0x88e7}, {Type: openflow.ActionPopPBB},
}

// GroupFeatures describes the group table for an OFPMP_GROUP_FEATURES
// reply: all four types; weighted and liveness-aware SELECT, chaining and
// its checks (loops are refused); groups.MaxGroups of each type; and in
// every type's buckets exactly the actions Actions accepts.
func GroupFeatures() openflow.GroupFeatures {
	var acts uint32
	for _, a := range actionProbes {
		if _, err := Actions([]openflow.Action{a}); err == nil {
			acts |= 1 << a.Type
		}
	}
	f := openflow.GroupFeatures{
		Types:        1<<openflow.GroupTypeAll | 1<<openflow.GroupTypeSelect | 1<<openflow.GroupTypeIndirect | 1<<openflow.GroupTypeFF,
		Capabilities: groupCapSelectWeight | groupCapSelectLiveness | groupCapChaining | groupCapChainingChecks,
	}
	for i := range f.MaxGroups {
		f.MaxGroups[i] = groups.MaxGroups
		f.Actions[i] = acts
	}
	return f
}
