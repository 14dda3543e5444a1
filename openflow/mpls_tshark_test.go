package openflow

import (
	"testing"
)

// TestTsharkMPLSPBB has Wireshark's OpenFlow 1.3 dissector read a
// FLOW_MOD with every MPLS, PBB and TTL-copy action and the MPLS and PBB
// match fields, which ovs-ofctl cannot send (it has no PBB nor TTL
// copies): no malformed or error marks, and the action types, arguments
// and OXM fields it decodes are those encoded.
func TestTsharkMPLSPBB(t *testing.T) {
	isid := NewOXM(FieldPBBISID, []byte{0xab, 0xcd, 0xef}, []byte{0xff, 0xff, 0x00})
	fm := ovsFlowMod(9, 900, []OXM{EthType(0x88e7), isid},
		ApplyActions(Action{Type: ActionCopyTTLOut}, Action{Type: ActionCopyTTLIn},
			Action{Type: ActionSetMPLSTTL, TTL: 77}, Action{Type: ActionDecMPLSTTL},
			Action{Type: ActionPushMPLS, EtherType: 0x8848}, Action{Type: ActionPopMPLS, EtherType: 0x86dd},
			Action{Type: ActionPushPBB, EtherType: 0x88e7}, Action{Type: ActionPopPBB},
			SetField(NewOXM(FieldPBBISID, []byte{0, 0, 203}, nil)), SetField(NewOXM(FieldMPLSBOS, []byte{1}, nil)),
			Output(2, 0)),
		Instruction{Type: InstructionWriteActions, Actions: []Action{{Type: ActionPopPBB}, {Type: ActionPushMPLS, EtherType: 0x8847}}})
	run := tsharkStream(t, 40002, fm)
	tsharkFields(t, run, [][2]string{
		{"openflow_v4.action.type", "11,12,15,16,19,20,26,27,25,25,0,27,19"},
		{"openflow_v4.action.set_mpls_ttl.ttl", "77"},
		{"openflow_v4.action.push_mpls.ethertype", "0x8848,0x8847"},
		{"openflow_v4.action.pop_mpls.ethertype", "0x86dd"},
		{"openflow_v4.action.push_pbb.ethertype", "0x88e7"},
		{"openflow_v4.oxm.field", "5,37,37,36"},
		{"openflow_v4.oxm.hm", "0,1,0,0"},
		{"openflow_v4.oxm.value", "abcdef,0000cb,01"}, // eth_type decodes as value_ethertype,
		{"openflow_v4.oxm.mask", "ffff00"},
	})
}
