package rules_test

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestNXFieldRules: nw_ttl and ip_frag need an IP eth_type
// (OFPBMC_BAD_PREREQ), and FixPrereqs gives them 0x0800; nw_ttl takes no
// partial mask; pkt_mark and tun_flags need nothing; the four share word
// 17 with ipv6_flabel without overlapping it.
func TestNXFieldRules(t *testing.T) {
	for _, f := range []rules.Field{rules.FieldNwTTL, rules.FieldIPFrag} {
		var m rules.Match
		m.Set(f, 1, f.FullMask())
		var re *rules.Error
		if err := m.Validate(); !errors.As(err, &re) || re.Type != rules.ErrTypeBadMatch || re.Code != rules.BadMatchBadPrereq {
			t.Errorf("%s without eth_type: %v, want OFPBMC_BAD_PREREQ", f, err)
		}
		fixed, err := m.FixPrereqs()
		if err != nil || len(fixed) != 1 || !fixed[0].Exact(rules.FieldEthType, rules.EthTypeIPv4) {
			t.Errorf("%s: FixPrereqs %v, %v; want eth_type=0x0800", f, fixed, err)
		}
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv6)
		if err := m.Validate(); err != nil {
			t.Errorf("%s under ipv6: %v", f, err)
		}
	}
	var m rules.Match
	m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	m.Set(rules.FieldNwTTL, 0, 0xf0)
	var re *rules.Error
	if err := m.Validate(); !errors.As(err, &re) || re.Code != rules.BadMatchBadMask {
		t.Errorf("nw_ttl/0xf0: %v, want OFPBMC_BAD_MASK", err)
	}
	m = rules.Match{}
	m.Set(rules.FieldPktMark, 0x10, 0xf0)
	m.SetExact(rules.FieldTunFlags, rules.TunFlagOAM)
	if err := m.Validate(); err != nil {
		t.Errorf("pkt_mark and tun_flags: %v", err)
	}
	var k rules.Key
	for _, f := range []rules.Field{rules.FieldIPv6FLabel, rules.FieldNwTTL, rules.FieldIPFrag, rules.FieldTunFlags, rules.FieldPktMark} {
		k.Set(f, f.FullMask())
	}
	if k[17] != 0xffff_fffd_ffff_ffff {
		t.Errorf("word 17 with every field all ones: %#x", k[17])
	}
	for _, f := range []rules.Field{rules.FieldIPv6FLabel, rules.FieldNwTTL, rules.FieldIPFrag, rules.FieldTunFlags, rules.FieldPktMark} {
		if k.Get(f) != f.FullMask() {
			t.Errorf("%s reads %#x", f, k.Get(f))
		}
	}
}
