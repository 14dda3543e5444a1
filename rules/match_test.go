package rules_test

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

func TestKeyFields(t *testing.T) {
	var k rules.Key
	vals := map[rules.Field]uint64{}
	for f := rules.Field(0); int(f) < rules.NumFields; f++ {
		if f.Bits() == 128 {
			k.Set128(f, uint64(f)<<56|1, uint64(f))
			continue
		}
		v := (0x0123456789abcdef * uint64(f+1)) & f.FullMask()
		k.Set(f, v)
		vals[f] = v
	}
	for f, v := range vals {
		if got := k.Get(f); got != v {
			t.Errorf("%v = %#x, want %#x (fields overlap?)", f, got, v)
		}
	}
	for _, f := range []rules.Field{rules.FieldIPv6Src, rules.FieldIPv6Dst} {
		if hi, lo := k.Get128(f); hi != uint64(f)<<56|1 || lo != uint64(f) {
			t.Errorf("%v = %x %x", f, hi, lo)
		}
	}
}

func TestValidate(t *testing.T) {
	tcp := func() rules.Match {
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
		return m
	}
	for _, tt := range []struct {
		name   string
		m      func() rules.Match
		err    error
		strict error
	}{
		{"empty", func() rules.Match { return rules.Match{} }, nil, nil},
		{"tcp_dst", func() rules.Match { m := tcp(); m.SetExact(rules.FieldL4Dst, 80); return m }, nil, nil},
		{"masked tcp_dst", func() rules.Match { m := tcp(); m.Set(rules.FieldL4Dst, 0x400, 0xfc00); return m }, nil, rules.ErrBadMask},
		{"tcp_dst without ip_proto", func() rules.Match {
			var m rules.Match
			m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
			m.SetExact(rules.FieldL4Dst, 80)
			return m
		}, rules.ErrBadPrereq, rules.ErrBadPrereq},
		{"nw_src without eth_type", func() rules.Match { var m rules.Match; m.SetPrefix(rules.FieldIPv4Src, 10<<24, 8); return m }, rules.ErrBadPrereq, rules.ErrBadPrereq},
		{"arp_spa under ipv4", func() rules.Match { m := tcp(); m.SetExact(rules.FieldARPSPA, 1); return m }, rules.ErrBadPrereq, rules.ErrBadPrereq},
		{"icmp_type under tcp", func() rules.Match { m := tcp(); m.SetExact(rules.FieldICMPType, 8); return m }, rules.ErrBadPrereq, rules.ErrBadPrereq},
		{"vlan_pcp without vid", func() rules.Match { var m rules.Match; m.SetExact(rules.FieldVLANPCP, 3); return m }, rules.ErrBadPrereq, rules.ErrBadPrereq},
		{"masked ip_proto", func() rules.Match { m := tcp(); m.Set(rules.FieldIPProto, 6, 0xf); return m }, rules.ErrBadMask, rules.ErrBadMask},
		{"value outside mask", func() rules.Match { m := tcp(); m.Key[4] = 1; return m }, rules.ErrBadWildcards, rules.ErrBadWildcards},
		{"ipv6 prefix", func() rules.Match {
			var m rules.Match
			m.SetExact(rules.FieldEthType, rules.EthTypeIPv6)
			m.SetPrefix128(rules.FieldIPv6Src, 0x20010db8<<32, 0, 32)
			return m
		}, nil, nil},
	} {
		m := tt.m()
		if err := m.Validate(); !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("%s: Validate = %v, want %v", tt.name, err, tt.err)
		}
		if err := m.ValidateStrict(); !errors.Is(err, tt.strict) || (tt.strict == nil) != (err == nil) {
			t.Errorf("%s: ValidateStrict = %v, want %v", tt.name, err, tt.strict)
		}
	}
	var m rules.Match
	m.SetPrefix(rules.FieldIPv4Src, 10<<24, 8)
	err := m.Validate()
	var e *rules.Error
	if !errors.As(err, &e) || e.Type != 4 || e.Code != 9 || e.Field != "ipv4_src" {
		t.Fatalf("error %v: want OFPET_BAD_MATCH(4)/OFPBMC_BAD_PREREQ(9) on ipv4_src", err)
	}
}

func TestFixPrereqs(t *testing.T) {
	var m rules.Match
	m.SetPrefix(rules.FieldIPv4Dst, 0x04cf7334, 32)
	m.SetExact(rules.FieldL4Dst, 8)
	ms, err := m.FixPrereqs()
	if err != nil || len(ms) != 2 {
		t.Fatalf("FixPrereqs = %v, %v; want a TCP and a UDP match", ms, err)
	}
	for i, proto := range []uint64{6, 17} {
		if err := ms[i].Validate(); err != nil {
			t.Errorf("fixed match %d: %v", i, err)
		}
		if !ms[i].Exact(rules.FieldIPProto, proto) || !ms[i].Exact(rules.FieldEthType, rules.EthTypeIPv4) {
			t.Errorf("fixed match %d lacks ip_proto=%d,eth_type=0x800", i, proto)
		}
	}
	// tcp_flags alone implies TCP over IPv4; with L4 ports too, only TCP.
	var flags rules.Match
	flags.Set(rules.FieldTCPFlags, 0x002, 0x012)
	flags.SetExact(rules.FieldL4Dst, 22)
	if ms, err := flags.FixPrereqs(); err != nil || len(ms) != 1 || !ms[0].Exact(rules.FieldIPProto, 6) ||
		!ms[0].Exact(rules.FieldEthType, rules.EthTypeIPv4) || ms[0].Validate() != nil {
		t.Errorf("FixPrereqs of tcp_flags and tp_dst = %v, %v; want one TCP/IPv4 match", ms, err)
	}
	var bad rules.Match
	bad.SetPrefix(rules.FieldIPv4Dst, 1, 32)
	bad.SetPrefix128(rules.FieldIPv6Src, 1, 1, 128)
	if _, err := bad.FixPrereqs(); !errors.Is(err, rules.ErrBadPrereq) {
		t.Errorf("IPv4+IPv6 fields: err = %v, want BAD_PREREQ", err)
	}
}

func TestMatchRelations(t *testing.T) {
	var wide, narrow, other rules.Match
	wide.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	wide.SetPrefix(rules.FieldIPv4Src, 10<<24, 8)
	narrow = wide
	narrow.SetPrefix(rules.FieldIPv4Src, 10<<24|1<<16, 16)
	other = wide
	other.SetPrefix(rules.FieldIPv4Src, 11<<24, 8)
	if !wide.Covers(&narrow) || narrow.Covers(&wide) {
		t.Error("Covers: /8 must cover /16 inside it, not the reverse")
	}
	if !wide.Overlaps(&narrow) || wide.Overlaps(&other) {
		t.Error("Overlaps wrong")
	}
	var k rules.Key
	k.Set(rules.FieldEthType, rules.EthTypeIPv4)
	k.Set(rules.FieldIPv4Src, 10<<24|1<<16|5)
	if !narrow.Matches(&k) || other.Matches(&k) {
		t.Error("Matches wrong")
	}
}

func TestWalk(t *testing.T) {
	p, err := rules.New(&rules.Config{Tables: 3})
	if err != nil {
		t.Fatal(err)
	}
	var ip, md rules.Match
	ip.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	md.Set(rules.FieldMetadata, 0x5, 0xf)
	out := func(port uint32) rules.Instruction {
		return rules.Instruction{Kind: rules.InstApplyActions, Actions: []rules.Action{{Kind: rules.ActionOutput, Port: port}}}
	}
	res := p.ApplyBurst([]rules.Update{
		{Table: 0, Match: ip, Priority: 10, Instructions: []rules.Instruction{{Kind: rules.InstWriteMetadata, Metadata: 0x15, MetadataMask: 0xff}, {Kind: rules.InstGotoTable, Table: 2}}},
		{Table: 2, Match: md, Priority: 5, Instructions: []rules.Instruction{out(7)}},
		{Table: 0, Priority: 0, Instructions: []rules.Instruction{out(rules.PortController)}},
	}, true)
	for _, err := range res.Errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var k rules.Key
	k.Set(rules.FieldEthType, rules.EthTypeIPv4)
	var c rules.Counters
	hits := p.Walk(&k, make([]*rules.Rule, 0, 4), &c)
	if len(hits) != 2 || hits[0].Priority != 10 || hits[1] == nil || hits[1].Table() != 2 || k.Get(rules.FieldMetadata) != 0x15 {
		t.Fatalf("walk = %v, metadata %#x", hits, k.Get(rules.FieldMetadata))
	}
	var arp rules.Key
	arp.Set(rules.FieldEthType, rules.EthTypeARP)
	hits = p.Walk(&arp, nil, &c)
	if len(hits) != 1 || hits[0].Priority != 0 {
		t.Fatalf("arp walk = %v, want the table-miss entry", hits)
	}
	// Metadata that table 2 does not accept: a miss there.
	p.ApplyBurst([]rules.Update{{Command: rules.CmdModifyStrict, Table: 0, Match: ip, Priority: 10,
		Instructions: []rules.Instruction{{Kind: rules.InstWriteMetadata, Metadata: 0x3, MetadataMask: 0xff}, {Kind: rules.InstGotoTable, Table: 2}}}}, true)
	k.Set(rules.FieldMetadata, 0)
	hits = p.Walk(&k, nil, &c)
	if len(hits) != 2 || hits[1] != nil {
		t.Fatalf("walk after modify = %v, want a miss in table 2", hits)
	}
}
