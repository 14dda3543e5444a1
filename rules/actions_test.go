package rules_test

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

var (
	errInconsistent = &rules.Error{Type: rules.ErrTypeBadAction, Code: rules.BadActionMatchInconsistent}
	errSetType      = &rules.Error{Type: rules.ErrTypeBadAction, Code: rules.BadActionBadSetType}
	errSetArg       = &rules.Error{Type: rules.ErrTypeBadAction, Code: rules.BadActionBadSetArg}
)

// TestCheckActionsRefusals builds the set_field actions that text cannot
// say: fields the switch does not write and values beyond a field.
func TestCheckActionsRefusals(t *testing.T) {
	var ip, vlan rules.Match
	ip.SetExact(rules.FieldEthType, rules.EthTypeIPv6)
	vlan.SetExact(rules.FieldVLANVID, rules.VIDPresent|5)
	for _, tt := range []struct {
		name string
		m    *rules.Match
		f    rules.Field
		v    uint64
		err  error
	}{
		{"eth_type", &ip, rules.FieldEthType, 0x800, nil},
		{"ip_proto", &ip, rules.FieldIPProto, 6, nil},
		{"ip_proto without IP", &vlan, rules.FieldIPProto, 6, errInconsistent},
		{"in_port", &ip, rules.FieldInPort, 1, errSetArg},
		{"ipv6_exthdr", &ip, rules.FieldIPv6Exthdr, 1, errSetType},
		{"tcp_flags", &ip, rules.FieldTCPFlags, 1, errSetType},
		{"ip_dscp 64", &ip, rules.FieldIPDSCP, 64, errSetArg},
		{"ip_dscp 63", &ip, rules.FieldIPDSCP, 63, nil},
		{"ip_ecn 4", &ip, rules.FieldIPECN, 4, errSetArg},
		{"ipv6_flabel 0x100000", &ip, rules.FieldIPv6FLabel, 0x100000, errSetArg},
		{"vlan_vid 0x2005", &vlan, rules.FieldVLANVID, 0x2005, errSetArg},
		{"vlan_vid 0x1fff", &vlan, rules.FieldVLANVID, 0x1fff, nil},
		{"vlan_pcp 8", &vlan, rules.FieldVLANPCP, 8, errSetArg},
		{"vlan_vid untagged", &ip, rules.FieldVLANVID, 0x1005, errInconsistent},
		{"ipv4_src under ipv6", &ip, rules.FieldIPv4Src, 1, errInconsistent},
		{"nd_target without icmpv6_type", &ip, rules.FieldNDTarget, 1, errInconsistent},
		{"tunnel_id", &ip, rules.FieldTunnelID, 1 << 63, nil},
	} {
		ins := []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionSetField, Field: tt.f, Value: [2]uint64{0, tt.v}}}}}
		if err := rules.CheckActions(tt.m, ins); !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("%s: CheckActions = %v, want %v", tt.name, err, tt.err)
		}
	}
}

// TestCheckActions: the set_field, set_nw_ttl and dec_nw_ttl actions a
// flow may hold given its match, with the answers Open vSwitch gives
// (controller's TestRefusalsAsOVS checks them against it).
func TestCheckActions(t *testing.T) {
	for _, tt := range []struct {
		flow string
		err  error
	}{
		{"actions=output:1", nil},
		{"ip,actions=set_field:10.0.0.1->ip_src", nil},
		{"actions=set_field:10.0.0.1->ip_src", errInconsistent},
		{"actions=write_actions(set_field:10.0.0.1->ip_dst)", errInconsistent},
		{"ipv6,actions=set_field:0x12345->ipv6_label", nil},
		{"ip,actions=set_field:0x12345->ipv6_label", errInconsistent},
		{"icmp6,icmp_type=135,actions=set_field:::1->nd_target,set_field:02:00:00:00:00:01->nd_sll", nil},
		{"icmp6,icmp_type=136,actions=set_field:02:00:00:00:00:01->nd_tll", nil},
		{"icmp6,icmp_type=136,actions=set_field:02:00:00:00:00:01->nd_sll", errInconsistent},
		{"icmp6,actions=set_field:::1->nd_target", errInconsistent},
		{"arp,actions=set_field:02:00:00:00:00:01->arp_sha", nil},
		{"actions=set_field:0x5->tun_id,set_field:0x6->metadata", nil},
		{"actions=set_field:5->vlan_vid", errInconsistent},
		{"actions=push_vlan:0x8100,set_field:4101->vlan_vid,set_field:3->vlan_pcp", nil},
		{"dl_vlan=5,actions=pop_vlan,set_field:3->vlan_pcp", errInconsistent},
		{"ip,actions=mod_nw_ttl:5,dec_ttl", nil},
		{"ipv6,actions=write_actions(mod_nw_ttl:5)", nil},
		{"actions=mod_nw_ttl:5", errInconsistent},
		{"arp,actions=dec_ttl", errInconsistent},
		{"ip,actions=write_actions(set_field:5->tcp_src)", errInconsistent},
		{"tcp,actions=set_field:1->icmp_type", errInconsistent},
		{"tcp,actions=set_field:17->ip_proto,output:2", nil},
		{"tcp,actions=set_field:17->ip_proto,set_field:5->tcp_src", nil},
		{"tcp,actions=set_field:1->ip_proto,set_field:1->icmp_type", nil},
		{"tcp,actions=set_field:17->ip_proto,set_field:1->icmp_type", errInconsistent},
		{"ip,actions=set_field:0x8848->eth_type,output:2", nil},
		{"ip,actions=set_field:0x86dd->eth_type,set_field:10.0.0.1->ip_src", errInconsistent},
		{"arp,actions=set_field:17->ip_proto", errInconsistent},
		// Outputs before the first action that is checked, in its
		// instruction and in one before it.
		{"actions=output:1,output:2,set_field:10.0.0.1->ip_src", errInconsistent},
		{"ip,actions=output:1,set_field:10.0.0.1->ip_src,output:2", nil},
		{"actions=output:1,write_actions(output:2,mod_nw_ttl:5)", errInconsistent},
		{"arp,actions=output:1,write_actions(output:2,dec_ttl)", errInconsistent},
		{"ip,actions=output:1,set_field:0x86dd->eth_type,write_actions(output:2,set_field:10.0.0.1->ip_src)", errInconsistent},
		{"ip,actions=output:1,push_vlan:0x8100,write_actions(output:2,set_field:4101->vlan_vid)", nil},
	} {
		u, err := ofctl.ParseFlow(tt.flow)
		if err != nil {
			t.Fatalf("%s: %v", tt.flow, err)
		}
		if err := rules.CheckActions(&u.Match, u.Instructions); !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("%s: CheckActions = %v, want %v", tt.flow, err, tt.err)
		}
	}
}

// TestNDPrereqs: arp_sha and arp_tha hold ipv6_nd_sll and ipv6_nd_tll
// under an ICMPv6 neighbor solicitation (sll) or advertisement (tll).
func TestNDPrereqs(t *testing.T) {
	for _, tt := range []struct {
		flow string
		ok   bool
	}{
		{"arp,arp_sha=02:00:00:00:00:01,arp_tha=02:00:00:00:00:02,actions=drop", true},
		{"icmp6,icmp_type=135,nd_sll=02:00:00:00:00:01,nd_target=::1,actions=drop", true},
		{"icmp6,icmp_type=136,nd_tll=02:00:00:00:00:01,nd_target=::1/64,actions=drop", true},
		{"icmp6,icmp_type=136,nd_sll=02:00:00:00:00:01,actions=drop", false},
		{"icmp6,icmp_type=135,nd_tll=02:00:00:00:00:01,actions=drop", false},
		{"icmp6,nd_sll=02:00:00:00:00:01,actions=drop", false},
		{"ipv6,nd_target=::1,actions=drop", false},
		{"ip,arp_sha=02:00:00:00:00:01,actions=drop", false},
		{"ipv6,ipv6_label=0x5/0xf,ipv6_exthdr=0x44/0x1f0,actions=drop", true},
		{"ip,ipv6_label=5,actions=drop", false},
		{"ipv6_exthdr=0x4,actions=drop", false},
		{"tun_id=0x5/0xff,actions=drop", true},
	} {
		_, err := ofctl.ParseFlow(tt.flow)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, rules.ErrBadPrereq) {
			t.Errorf("%s: %v, want ok=%v", tt.flow, err, tt.ok)
		}
	}
}

// TestExecActionSet: an action set keeps the last action of each kind and
// of set_field the last per field, runs them in the order of §5.10, a
// group instead of an output and either instead of a resubmit, and drops
// what an action set cannot hold.
func TestExecActionSet(t *testing.T) {
	out := func(p uint32) rules.Action { return rules.Action{Kind: rules.ActionOutput, Port: p} }
	set := func(f rules.Field, v uint64) rules.Action {
		return rules.Action{Kind: rules.ActionSetField, Field: f, Value: [2]uint64{0, v}}
	}
	grp := rules.Action{Kind: rules.ActionGroup, Group: 7}
	res := rules.Action{Kind: rules.ActionResubmit, Table: 1}
	dec := rules.Action{Kind: rules.ActionDecNwTTL}
	push := rules.Action{Kind: rules.ActionPushVLAN, EthType: rules.EthTypeVLAN}
	note := rules.Action{Kind: rules.ActionNote, Ext: &rules.ActionExt{Note: []byte{1}}}
	load := func(v uint64) rules.Action {
		return rules.Action{Kind: rules.ActionLoad, Field: rules.FieldPktMark, Value: [2]uint64{0xff, v}}
	}
	mark := uint8(rules.SubfieldByName("pkt_mark"))
	mv := rules.Action{Kind: rules.ActionMove, Ext: &rules.ActionExt{Src: rules.Subfield{Field: rules.FieldPktMark, Bits: 8, Row: mark},
		Dst: rules.Subfield{Field: rules.FieldPktMark, Ofs: 8, Bits: 8, Row: mark}}}
	for _, c := range []struct {
		name     string
		in, want []rules.Action
	}{
		{"last output", []rules.Action{out(1), out(2)}, []rules.Action{out(2)}},
		{"sets before output", []rules.Action{out(1), set(rules.FieldEthDst, 9), dec}, []rules.Action{dec, set(rules.FieldEthDst, 9), out(1)}},
		{"last set per field, first place", []rules.Action{set(rules.FieldEthDst, 1), set(rules.FieldEthSrc, 2), set(rules.FieldEthDst, 3)},
			[]rules.Action{set(rules.FieldEthDst, 3), set(rules.FieldEthSrc, 2)}},
		{"group over output", []rules.Action{out(1), grp}, []rules.Action{grp}},
		{"output over resubmit", []rules.Action{res, out(1)}, []rules.Action{out(1)}},
		{"resubmit alone", []rules.Action{res, push}, []rules.Action{push, res}},
		{"loads and moves all kept, in order with set_field", []rules.Action{load(1), out(1), set(rules.FieldEthDst, 9), load(2), mv, load(1)},
			[]rules.Action{load(1), set(rules.FieldEthDst, 9), load(2), mv, load(1), out(1)}},
		{"note and exit dropped", []rules.Action{note, {Kind: rules.ActionExit}, out(3)}, []rules.Action{out(3)}},
	} {
		got := rules.ExecActionSet(c.in)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if !got[i].Equal(&c.want[i]) {
				t.Errorf("%s: %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}
