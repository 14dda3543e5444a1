package rules_test

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
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
		{"eth_type", &ip, rules.FieldEthType, 0x800, errSetArg},
		{"ip_proto", &ip, rules.FieldIPProto, 6, errSetArg},
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
