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
	// 128 bits: a run is cut after 64 bits, as Open vSwitch's
	// next_load_segment cuts it.
	for _, c := range []struct {
		hi, lo uint64
		want   []rules.Segment
	}{
		{^uint64(0), ^uint64(0), []rules.Segment{{0, 64}, {64, 64}}},
		{0xffff, 0xffff << 48, []rules.Segment{{48, 32}}},
		{0xff, 0xfffffffffffffff0, []rules.Segment{{4, 64}, {68, 4}}},
		{1 << 63, 0, []rules.Segment{{127, 1}}},
	} {
		if got := rules.LoadSegments128(c.hi, c.lo, 128); !slices.Equal(got, c.want) {
			t.Errorf("LoadSegments128(%#x, %#x) = %v, want %v", c.hi, c.lo, got, c.want)
		}
	}
}

// TestSubfield128: the subfields of a 128-bit field read, place and mask
// bits across the boundary of its two words.
func TestSubfield128(t *testing.T) {
	r := rules.SubfieldByName("NXM_NX_IPV6_SRC")
	if r < 0 || rules.SubfieldByHeader(1, 19) != r || rules.SubfieldByName("ipv6_src") != r {
		t.Fatalf("ipv6_src: row %d", r)
	}
	var k rules.Key
	k.Set128(rules.FieldIPv6Src, 0x20010db812345678, 0x9abcdef0deadbeef)
	for _, c := range []struct {
		ofs, bits uint8
		hi, lo    uint64 // the bits read
		mhi, mlo  uint64 // the mask
	}{
		{0, 128, 0x20010db812345678, 0x9abcdef0deadbeef, ^uint64(0), ^uint64(0)},
		{0, 64, 0, 0x9abcdef0deadbeef, 0, 0xffffffffffffffff},
		{64, 64, 0, 0x20010db812345678, ^uint64(0), 0},
		{32, 64, 0, 0x123456789abcdef0, 0xffffffff, 0xffffffff00000000},
		{16, 96, 0x0db81234, 0x56789abcdef0dead, 0xffffffffffff, 0xffffffffffff0000},
		{127, 1, 0, 0, 1 << 63, 0},
		{4, 4, 0, 0xe, 0, 0xf0},
	} {
		s := rules.SubfieldOf(r, c.ofs, c.bits)
		if hi, lo := k.GetBits128(s); hi != c.hi || lo != c.lo {
			t.Errorf("bits %d+%d read %#x %#x, want %#x %#x", c.ofs, c.bits, hi, lo, c.hi, c.lo)
		}
		if hi, lo := s.Mask128(); hi != c.mhi || lo != c.mlo {
			t.Errorf("bits %d+%d: mask %#x %#x, want %#x %#x", c.ofs, c.bits, hi, lo, c.mhi, c.mlo)
		}
		// What a subfield reads, placed back, is the key's bits there.
		hi, lo := s.Place128(k.GetBits128(s))
		khi, klo := k.Get128(rules.FieldIPv6Src)
		if hi != khi&c.mhi || lo != klo&c.mlo {
			t.Errorf("bits %d+%d placed back: %#x %#x", c.ofs, c.bits, hi, lo)
		}
		if err := rules.CheckSubfield(s, true); err != nil {
			t.Errorf("bits %d+%d: %v", c.ofs, c.bits, err)
		}
	}
	if err := rules.CheckSubfield(rules.SubfieldOf(r, 100, 29), true); err == nil {
		t.Error("bits 100..128 of ipv6_src taken")
	}
	// A narrower field read wide.
	k.Set(rules.FieldPktMark, 0xabcd)
	if hi, lo := k.GetBits128(rules.SubfieldOf(rules.SubfieldByName("pkt_mark"), 8, 8)); hi != 0 || lo != 0xab {
		t.Errorf("pkt_mark[8..15] read %#x %#x", hi, lo)
	}
	a := rules.NewLoad(rules.FieldNDTarget, [2]uint64{1, 2}, [2]uint64{1, 0}, 0)
	if m, v := a.Load128(); a.Ext == nil || m != [2]uint64{1, 2} || v != [2]uint64{1, 0} {
		t.Errorf("NewLoad of nd_target: %+v", a)
	}
	b := rules.NewLoad(rules.FieldPktMark, [2]uint64{0, 0xff}, [2]uint64{0, 5}, 0)
	if m, v := b.Load128(); b.Ext != nil || b.Value != [2]uint64{0xff, 5} || m != [2]uint64{0, 0xff} || v != [2]uint64{0, 5} {
		t.Errorf("NewLoad of pkt_mark: %+v", b)
	}
	if c := rules.NewLoad(rules.FieldNDTarget, [2]uint64{1, 2}, [2]uint64{1, 2}, 0); c.Equal(&a) {
		t.Error("loads of different values are Equal")
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
	load128 := func(f rules.Field, mhi, mlo, vhi, vlo uint64) rules.Action {
		return rules.NewLoad(f, [2]uint64{mhi, mlo}, [2]uint64{vhi, vlo}, 0)
	}
	var ip, ip6, ns, none, vlan rules.Match
	ip.Set(rules.FieldEthType, rules.EthTypeIPv4, 0xffff)
	ip6.Set(rules.FieldEthType, rules.EthTypeIPv6, 0xffff)
	ns = ip6
	ns.Set(rules.FieldIPProto, rules.IPProtoICMPv6, 0xff)
	ns.Set(rules.FieldICMPType, 135, 0xff)
	ns.Set(rules.FieldICMPCode, 0, 0xff)
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
		{"load ipv6_src without ipv6", &none, load128(rules.FieldIPv6Src, 0, 0xff, 0, 1), rules.BadActionMatchInconsistent},
		{"load ipv6_src", &ip6, load128(rules.FieldIPv6Src, 0xff, 1<<63, 0x80, 1<<63), -1},
		{"load ipv6_dst value outside mask", &ip6, load128(rules.FieldIPv6Dst, 0xff, 0, 0x100, 0), rules.BadActionBadSetArg},
		{"load nd_target without nd", &ip6, load128(rules.FieldNDTarget, 0, 1, 0, 1), rules.BadActionMatchInconsistent},
		{"load nd_target", &ns, load128(rules.FieldNDTarget, 0, 1, 0, 1), -1},
		{"move ipv6_src to ipv6_dst", &ip6, move(sub("ipv6_src", 0, 128), sub("ipv6_dst", 0, 128)), -1},
		{"move across ipv6_src's words", &ip6, move(sub("ipv6_src", 32, 64), sub("NXM_NX_IPV6_DST", 16, 64)), -1},
		{"move ipv6_src beyond", &ip6, move(sub("ipv6_src", 100, 32), sub("reg0", 0, 32)), rules.BadActionBadSetLen},
		{"move ipv6_src to eth_dst without ipv6", &none, move(sub("ipv6_src", 0, 48), sub("eth_dst", 0, 48)), rules.BadActionMatchInconsistent},
		{"move 65 bits into reg0", &ip6, move(sub("ipv6_src", 0, 65), sub("xreg0", 0, 64)), rules.BadActionBadSetLen},
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
	// A load of vlan_tci leaves the tag as its value's CFI bit says,
	// whatever its mask (Open vSwitch's check_SET_FIELD): a set_field of
	// vlan_vid after one that clears it is refused, after one that sets
	// it taken.
	setVID := rules.Action{Kind: rules.ActionSetField, Field: rules.FieldVLANVID, Value: [2]uint64{0, 5}}
	for _, c := range []struct {
		m    *rules.Match
		load rules.Action
		ok   bool
	}{
		{&vlan, rules.LoadOf(sub("vlan_tci", 12, 1), 0, 0, 0), false},
		{&vlan, rules.LoadOf(sub("vlan_tci", 0, 12), 0, 3, 0), false},
		{&none, rules.LoadOf(sub("NXM_OF_VLAN_TCI", 12, 1), 0, 1, 0), true},
		{&none, rules.LoadOf(sub("vlan_tci", 0, 16), 0, 0x1005, 0), true},
	} {
		err := rules.CheckActions(c.m, []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{c.load, setVID}}})
		if (err == nil) != c.ok {
			t.Errorf("%+v then set_field of vlan_vid: %v", c.load.Ext, err)
		}
	}
	if err := rules.CheckActions(&none, []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{rules.LoadOf(sub("nw_tos", 2, 6), 0, 1, 0)}}}); err == nil {
		t.Error("a load of nw_tos without ip taken")
	}
	if a := rules.LoadOf(sub("nw_tos", 2, 6), 0, 1, 0); rules.LoadRow(&a, 0) != rules.SubfieldByName("NXM_OF_IP_TOS") || rules.LoadRow(&a, 0) == rules.SubfieldFor(rules.FieldIPDSCP, 0) {
		t.Errorf("a load of nw_tos has row %d", rules.LoadRow(&a, 0))
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
