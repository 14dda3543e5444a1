package rules_test

import (
	"errors"
	"fmt"
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
		return rules.SubfieldOf(r, ofs, bits)
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
		// Registers: 32-bit halves of the xreg fields.
		{"move reg0 to reg1", &none, move(sub("reg0", 0, 32), sub("reg1", 0, 32)), -1},
		{"move reg0 beyond reg1", &none, move(sub("reg0", 16, 16), sub("reg1", 24, 16)), rules.BadActionBadSetLen},
		{"move reg2 beyond", &none, move(sub("reg2", 20, 16), sub("pkt_mark", 0, 16)), rules.BadActionBadSetLen},
		{"move reg1's row below its half", &none, move(rules.Subfield{Field: rules.FieldXReg0, Ofs: 0, Bits: 8, Row: uint8(rules.SubfieldByName("reg0"))}, sub("pkt_mark", 0, 8)), rules.BadActionBadSetLen},
		{"load reg0", &none, load(rules.FieldXReg0, 0xffffffff<<32, 5<<32), -1},
		{"load reg1", &none, load(rules.FieldXReg0, 0xf0, 0x50), -1},
		{"load across reg0 and reg1: xreg0's", &none, load(rules.FieldXReg0, 0xffff<<24, 1<<24), -1},
		{"load xreg7", &none, load(rules.FieldXReg7, ^uint64(0), 1<<63), -1},
		{"move xreg1 to xreg2", &none, move(sub("xreg1", 0, 64), sub("OXM_OF_PKT_REG2", 0, 64)), -1},
		{"move xreg1 beyond", &none, move(sub("xreg1", 60, 8), sub("reg0", 0, 8)), rules.BadActionBadSetLen},
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

// TestRegRows: the registers' rows name NXM_NX_REG0-15 (class 1, fields
// 0-15), reg(2N) at bits 32-63 of xregN and reg(2N+1) at bits 0-31, and
// a Subfield of one reads and writes the register's bits of the key.
func TestRegRows(t *testing.T) {
	for n := range rules.NumRegs {
		r := rules.SubfieldByName(fmt.Sprintf("reg%d", n))
		if r < 0 || rules.SubfieldByHeader(1, uint8(n)) != r || rules.SubfieldByName(fmt.Sprintf("NXM_NX_REG%d", n)) != r {
			t.Fatalf("reg%d: row %d, by header %d", n, r, rules.SubfieldByHeader(1, uint8(n)))
		}
		f, sh := rules.RegField(n)
		row := &rules.SubfieldFields[r]
		if row.Field != f || uint(row.Shift) != sh || row.Bits != 32 || !row.Meta || !row.Writable {
			t.Fatalf("reg%d: %+v", n, row)
		}
		if got := rules.SubfieldForMask(f, 0, 0xff<<sh); got != r {
			t.Errorf("reg%d: SubfieldForMask %d, want %d", n, got, r)
		}
		var k rules.Key
		var m rules.Match
		m.SetReg(n, 0x12345678, 0xffffffff)
		k.Set(f, m.Key.Get(f))
		if got := k.GetBits(rules.SubfieldOf(r, 4, 8)); got != 0x67 {
			t.Errorf("reg%d: bits 4..11 of 0x12345678 read %#x", n, got)
		}
		if s := rules.SubfieldOf(r, 4, 8); s.RowOfs() != 4 || s.Mask() != 0xff0<<sh {
			t.Errorf("reg%d: %+v: row offset %d, mask %#x", n, s, s.RowOfs(), s.Mask())
		}
	}
	for n := range rules.NumRegs / 2 {
		f := rules.FieldXReg0 + rules.Field(n)
		r := rules.XRegRow(f)
		row := &rules.SubfieldFields[r]
		if r != rules.SubfieldByName(fmt.Sprintf("xreg%d", n)) || r != rules.SubfieldByHeader(0x8001, uint8(n)) || row.Field != f || row.Bits != 64 || row.Shift != 0 {
			t.Fatalf("xreg%d: row %d %+v", n, r, row)
		}
		if got := rules.SubfieldForMask(f, 0, 1<<31|1<<32); got != r {
			t.Errorf("a mask across both halves of xreg%d has row %d, want %d", n, got, r)
		}
		a := rules.Action{Kind: rules.ActionLoad, Field: f, Value: [2]uint64{0xf, 1}, Reason: rules.LoadXReg}
		if got := rules.LoadRow(&a, 0); got != r {
			t.Errorf("a load named xreg%d has row %d, want %d", n, got, r)
		}
	}
	if rules.XRegRow(rules.FieldPktMark) >= 0 {
		t.Error("pkt_mark has an xreg row")
	}
}
