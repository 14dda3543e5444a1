package rules_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

func TestLoadSegments(t *testing.T) {
	for _, c := range []struct {
		mask uint64
		bits uint8
		want []rules.Segment
	}{
		{0xf0f, 32, []rules.Segment{{0, 4}, {8, 4}}},
		{0xffffffff, 32, []rules.Segment{{0, 32}}},
		{0x5, 32, []rules.Segment{{0, 1}, {2, 1}}},
		{^uint64(0), 64, []rules.Segment{{0, 64}}},
		{1 << 63, 64, []rules.Segment{{63, 1}}},
		{0, 32, nil},
	} {
		if got := rules.LoadSegments(c.mask, c.bits); !slices.Equal(got, c.want) {
			t.Errorf("LoadSegments(%#x, %d) = %v, want %v", c.mask, c.bits, got, c.want)
		}
	}
}

// TestCheckLoadMove: CheckActions checks loads and moves as Open vSwitch:
// the prerequisites of both ends against the match as the actions before
// left it, writable destinations, widths.
func TestCheckLoadMove(t *testing.T) {
	sub := func(name string, ofs, bits uint8) rules.Subfield {
		r := rules.SubfieldByName(name)
		if r < 0 {
			t.Fatalf("no field %s", name)
		}
		return rules.Subfield{Field: rules.SubfieldFields[r].Field, Ofs: ofs, Bits: bits, Row: uint8(r)}
	}
	move := func(s, d rules.Subfield) rules.Action {
		return rules.Action{Kind: rules.ActionMove, Ext: &rules.ActionExt{Src: s, Dst: d}}
	}
	load := func(f rules.Field, mk, v uint64) rules.Action {
		return rules.Action{Kind: rules.ActionLoad, Field: f, Value: [2]uint64{mk, v}}
	}
	var ip, none, vlan rules.Match
	ip.Set(rules.FieldEthType, rules.EthTypeIPv4, 0xffff)
	vlan.Set(rules.FieldVLANVID, rules.VIDPresent|5, 0x1fff)
	for _, c := range []struct {
		name string
		m    *rules.Match
		a    rules.Action
		code int // -1: accepted
	}{
		{"move eth", &none, move(sub("eth_src", 0, 48), sub("eth_dst", 0, 48)), -1},
		{"move ip_src without ip", &none, move(sub("ip_src", 0, 32), sub("pkt_mark", 0, 32)), rules.BadActionMatchInconsistent},
		{"move ip_src", &ip, move(sub("ip_src", 0, 32), sub("pkt_mark", 0, 32)), -1},
		{"move into eth_type", &none, move(sub("eth_src", 0, 16), sub("eth_type", 0, 16)), rules.BadActionBadSetArg},
		{"move widths differ", &none, move(sub("eth_src", 0, 16), sub("pkt_mark", 0, 8)), rules.BadActionBadSetLen},
		{"move beyond", &none, move(sub("eth_src", 40, 16), sub("pkt_mark", 0, 16)), rules.BadActionBadSetLen},
		{"load pkt_mark", &none, load(rules.FieldPktMark, 0xf0, 0x50), -1},
		{"load value outside mask", &none, load(rules.FieldPktMark, 0xf0, 0x5), rules.BadActionBadSetArg},
		{"load ip_dst without ip", &none, load(rules.FieldIPv4Dst, 0xff, 1), rules.BadActionMatchInconsistent},
		{"load in_port", &none, load(rules.FieldInPort, 0xff, 1), rules.BadActionBadSetArg},
		{"load ipv6_src", &none, load(rules.FieldIPv6Src, 0xff, 1), rules.BadActionBadSetType},
		{"load vlan_vid untagged", &none, load(rules.FieldVLANVID, 0xf, 3), rules.BadActionMatchInconsistent},
		{"load vlan_pcp untagged", &none, load(rules.FieldVLANPCP, 0x7, 3), rules.BadActionMatchInconsistent},
		{"load vlan_vid tagged", &vlan, load(rules.FieldVLANVID, 0xf, 3), -1},
		{"move vlan_vid to vlan_pcp", &vlan, move(sub("vlan_vid", 0, 3), sub("vlan_pcp", 0, 3)), -1},
	} {
		err := rules.CheckActions(c.m, []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{c.a}}})
		var re *rules.Error
		switch {
		case c.code < 0 && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.code >= 0 && (!errors.As(err, &re) || re.Code != c.code):
			t.Errorf("%s: %v, want code %d", c.name, err, c.code)
		}
	}
	// eth_type is read-only to a load, whatever the match (Open vSwitch).
	var arp rules.Match
	arp.Set(rules.FieldEthType, rules.EthTypeARP, 0xffff)
	acts := []rules.Action{load(rules.FieldEthType, 0xffff, rules.EthTypeIPv4)}
	if err := rules.CheckActions(&arp, []rules.Instruction{{Kind: rules.InstApplyActions, Actions: acts}}); err == nil {
		t.Error("a load into eth_type taken")
	}
}
