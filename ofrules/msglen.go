package ofrules

import (
	"fmt"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// BundleAddLen is the most bytes a bundle add message puts around the
// message it carries: 24 for the ONF extension over OpenFlow 1.3 (EXT-230:
// experimenter header, bundle id, flags), 16 for OpenFlow 1.4's
// OFPT_BUNDLE_ADD_MESSAGE. A mod sent inside a bundle has that much less
// room than openflow.MaxMessageLen.
const BundleAddLen = 24

// MsgRoom is the most bytes a FLOW_MOD, GROUP_MOD or METER_MOD may take:
// openflow.MaxMessageLen (an ofp_header's length field is 16 bits), less
// BundleAddLen when it goes inside a bundle add message.
func MsgRoom(bundled bool) int {
	if bundled {
		return openflow.MaxMessageLen - BundleAddLen
	}
	return openflow.MaxMessageLen
}

// FlowModLen returns the length of the FLOW_MOD of u as WireFlowMod and
// Encoder encode it, the same for OpenFlow 1.3 and 1.4. It translates u
// to its wire form and sums the lengths of its parts, without encoding.
func FlowModLen(u *rules.Update) int {
	var fm openflow.FlowMod
	WireFlowMod(&fm, u)
	n := openflow.FlowModMatchOffset + fm.Match.Len()
	for i := range fm.Instructions {
		n += fm.Instructions[i].Len()
	}
	return n
}

// GroupModLen returns the length of the GROUP_MOD of m as WireGroupMod
// gives it.
func GroupModLen(m *groups.Mod) int {
	gm := WireGroupMod(m)
	n := groupModFixed
	for i := range gm.Buckets {
		n += bucketFixed
		for j := range gm.Buckets[i].Actions {
			n += gm.Buckets[i].Actions[j].Len()
		}
	}
	return n
}

// MeterModLen returns the length of the METER_MOD of m as WireMeterMod
// gives it: its bands are ofp_meter_band_drop and _dscp_remark, 16 bytes
// each.
func MeterModLen(m *meters.Mod) int { return meterModFixed + meterBandLen*len(m.Bands) }

// Fixed parts of the messages (OpenFlow 1.3.5 §7.3.4.2, §7.3.4.4).
const (
	groupModFixed = 16 // ofp_group_mod: header, command, type, group_id
	bucketFixed   = 16 // ofp_bucket before its actions
	meterModFixed = 16 // ofp_meter_mod: header, command, flags, meter_id
	meterBandLen  = 16 // ofp_meter_band_drop, ofp_meter_band_dscp_remark
)

// Upper bounds for the quick test of CheckFlowMod and CheckGroupMod: no
// rules action encodes to more than maxActionLen (a set_field of a
// 128-bit field is 24 bytes), no instruction header to more than
// maxInsLen (write_metadata), and no match to more than maxMatchLen
// (every field, masked at 16 bytes, behind an experimenter header).
const (
	maxActionLen = 32
	maxInsLen    = 24
	maxMatchLen  = 8 + rules.NumFields*(8+2*16)
)

// CheckFlowMod returns nil if the FLOW_MOD of u fits in one OpenFlow
// message, inside a bundle add message if bundled (MsgRoom), and
// otherwise an error that says its length and unwraps to
// openflow.ErrTooLong. A flow with fewer than about two thousand actions
// fits whatever they are: CheckFlowMod counts them, and computes the
// length (FlowModLen) only beyond.
func CheckFlowMod(u *rules.Update, bundled bool) error {
	room := MsgRoom(bundled)
	bound := openflow.FlowModMatchOffset + maxMatchLen
	for i := range u.Instructions {
		bound += maxInsLen + maxActionLen*len(u.Instructions[i].Actions)
		for j := range u.Instructions[i].Actions {
			if x := u.Instructions[i].Actions[j].Ext; x != nil {
				bound += len(x.Note) + 2*len(x.IDs) // beyond maxActionLen's bound
			}
		}
	}
	if bound <= room {
		return nil
	}
	return tooLong("FLOW_MOD", FlowModLen(u), bundled)
}

// CheckGroupMod is CheckFlowMod for the GROUP_MOD of m: its buckets and
// their actions.
func CheckGroupMod(m *groups.Mod, bundled bool) error {
	room := MsgRoom(bundled)
	bound := groupModFixed
	for i := range m.Buckets {
		bound += bucketFixed + maxActionLen*len(m.Buckets[i].Actions)
		for j := range m.Buckets[i].Actions {
			if x := m.Buckets[i].Actions[j].Ext; x != nil {
				bound += len(x.Note) + 2*len(x.IDs)
			}
		}
	}
	if bound <= room {
		return nil
	}
	return tooLong("GROUP_MOD", GroupModLen(m), bundled)
}

// CheckMeterMod is CheckFlowMod for the METER_MOD of m: its bands.
func CheckMeterMod(m *meters.Mod, bundled bool) error {
	return tooLong("METER_MOD", MeterModLen(m), bundled)
}

// tooLong returns the error of a message of n bytes, nil if it fits.
func tooLong(what string, n int, bundled bool) error {
	room := MsgRoom(bundled)
	if n <= room {
		return nil
	}
	holds := "one OpenFlow message holds"
	if bundled {
		holds = "a bundle add message holds"
	}
	return fmt.Errorf("its %s would be %d bytes, more than %s (%d): %w", what, n, holds, room, openflow.ErrTooLong)
}
