package controller

import (
	"encoding/binary"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// isNXMessage reports whether msg is a Nicira experimenter message of
// type typ.
func isNXMessage(msg []byte, typ uint32) bool {
	return len(msg) >= 16 && binary.BigEndian.Uint32(msg[8:]) == openflow.NXExperimenter &&
		binary.BigEndian.Uint32(msg[12:]) == typ
}

// onTLVTableMod serves NXT_TLV_TABLE_MOD as Open vSwitch's
// handle_tlv_table_mod: refused to a slave (OFPBRC_IS_SLAVE), then the
// errors of ofrules.TLVTables.Mod. It answers nothing when it succeeds.
func (c *conn) onTLVTableMod(msg []byte) error {
	if c.isSlave() {
		return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestIsSlave)}
	}
	var m openflow.TLVTableMod
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	return c.a.tlv.Mod(&m, c.a.tlvInUse)
}

// onTLVTableRequest answers NXT_TLV_TABLE_REQUEST with the table and the
// switch's limits: ofrules.OptionSpace bytes (Open vSwitch: 256) shared by
// 64 fields.
func (c *conn) onTLVTableRequest(msg []byte) error {
	var m openflow.TLVTableRequest
	if err := m.UnmarshalBinary(msg); err != nil {
		return err
	}
	rep := openflow.TLVTableReply{
		Header:         openflow.Header{Version: c.version, XID: m.XID},
		MaxOptionSpace: ofrules.OptionSpace,
		MaxFields:      openflow.TLVMaxFields,
		Maps:           c.a.tlv.Load().Maps(),
	}
	return out(c.send(&rep))
}

// tlvInUse reports whether a flow or group of the switch uses one of the
// fields tun_metadata<removed> as old maps them: a flow's match tests a
// byte of one, or a flow's or bucket's action sets, moves or outputs one.
// Open vSwitch counts the flows that name the field (vl_mff_map's
// ref_cnt) but not the groups, whose buckets it translates without the
// table and resolves when a packet runs them; a group here keeps the
// places the table gave when it went in (ofrules.GroupModTLV), which a
// deleted mapping's next owner could take. It reads every flow table and
// the group table once; TLV table mods are rare.
func (a *Agent) tlvInUse(old *ofrules.TLVTable, removed []int) bool {
	for _, g := range a.tables.Groups().Load().Groups() {
		if ofrules.UsesTLVBuckets(g.Buckets, removed) {
			return true
		}
	}
	used := false
	a.tables.Read(func(p *rules.Pipeline) {
		for id := range a.pipe.NumTables() {
			for _, r := range p.Rules(uint8(id)) {
				if ofrules.UsesTLVFields(&r.Match, old, removed) || ofrules.UsesTLVAction(r.Instructions, removed) {
					used = true
					return
				}
			}
		}
	})
	return used
}
