package ofrules

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

func parseFlows(t *testing.T, text string) []rules.Update {
	t.Helper()
	ups, errs := ofctl.ParseFlows("test.flows", []byte(text), nil)
	if len(errs) != 0 {
		t.Fatalf("parse: %v", errs)
	}
	return ups
}

// TestMatchWireRoundTrip encodes matches of every kind of field (exact and
// masked, 8 to 128 bits, the L4 and ICMP fields under each protocol) as
// an Encoder and WireFlowMod do and decodes them with FlowMod: the match comes
// back unchanged, and so do set_field actions.
func TestMatchWireRoundTrip(t *testing.T) {
	ups := parseFlows(t, `
priority=1,in_port=3,dl_src=00:11:22:33:44:55,dl_dst=01:00:00:00:00:00/01:00:00:00:00:00,actions=drop
priority=2,dl_vlan=7,dl_vlan_pcp=3,dl_type=0x0800,nw_src=10.0.0.0/8,nw_dst=192.168.1.1,nw_tos=32,actions=drop
priority=3,tcp,tp_src=1024,tp_dst=0x50/0xfff0,actions=output:2
priority=4,udp,tp_dst=53,actions=set_field:10.1.2.3->ip_dst,output:1
priority=5,sctp,tp_src=9,actions=drop
priority=6,icmp,icmp_type=8,icmp_code=0,actions=drop
priority=7,icmp6,icmp_type=135,ipv6_src=2001:db8::/32,ipv6_dst=fe80::1,actions=drop
priority=8,arp,arp_op=1,arp_spa=10.0.0.1,arp_tpa=10.0.0.0/24,arp_sha=00:00:00:00:00:01,actions=drop
priority=9,ipv6,ipv6_src=2001:db8::1/ffff:ffff:ffff:ffff::,nw_proto=17,actions=drop
priority=10,metadata=0x5/0xff,actions=drop
priority=11,tcp6,tp_dst=443,actions=set_field:2001:db8::9->ipv6_dst,set_field:8080->tcp_dst,output:2
priority=12,tcp,tcp_flags=+syn-ack,actions=drop
priority=13,tcp6,tp_dst=22,tcp_flags=rst|ack,actions=drop
priority=14,icmp6,icmp_type=135,nd_target=2001:db8::1,nd_sll=02:00:00:00:00:01,actions=set_field:::2->nd_target,set_field:02:00:00:00:00:03->nd_sll
priority=15,icmp6,icmp_type=136,nd_target=fe80::/64,nd_tll=02:00:00:00:00:00/ff:00:00:00:00:00,actions=set_field:02:00:00:00:00:03->nd_tll
priority=16,ipv6,ipv6_label=0x12345,ipv6_exthdr=0x40/0x1f0,actions=set_field:0x54321->ipv6_label,mod_nw_ttl:9
priority=17,tun_id=0x1234/0xffff,actions=set_field:0x99->tun_id,set_field:0x5->metadata
priority=18,udp6,actions=set_field:53->udp_src,set_field:54->udp_dst
`)
	// Each flow twice with an Encoder's cache (the second time its
	// mask's plan is reused) and once without.
	var all []rules.Update
	for i := range ups {
		all = append(all, ups[i], ups[i], ups[i])
	}
	ups = all
	var fm openflow.FlowMod
	var cache wireInsCache
	for i := range ups {
		u := &ups[i]
		if i%3 == 2 {
			WireFlowMod(&fm, u)
		} else {
			encodeUpdate(u, &fm, &cache, nil)
		}
		fm.Version = openflow.Version13
		wire, err := fm.MarshalBinary()
		if err != nil {
			t.Fatalf("flow %d: encode: %v", i+1, err)
		}
		var back openflow.FlowMod
		if err := back.UnmarshalBinary(wire); err != nil {
			t.Fatalf("flow %d: decode: %v", i+1, err)
		}
		var got rules.Update
		if err := FlowMod(&got, &back, nil); err != nil {
			t.Fatalf("flow %d (%v): translate: %v", i+1, back.Match.String(), err)
		}
		if got.Match != u.Match {
			t.Errorf("flow %d: match %v came back as %v", i+1, u.Match, got.Match)
		}
		if len(got.Instructions) != len(u.Instructions) {
			t.Fatalf("flow %d: %d instructions came back as %d", i+1, len(u.Instructions), len(got.Instructions))
		}
		for j := range got.Instructions {
			a, b := u.Instructions[j].Actions, got.Instructions[j].Actions
			if len(a) != len(b) {
				t.Fatalf("flow %d: actions %v came back as %v", i+1, a, b)
			}
			for k := range a {
				if a[k] != b[k] {
					t.Errorf("flow %d: action %+v came back as %+v", i+1, a[k], b[k])
				}
			}
		}
	}
}

// TestMatchShape checks the shortcut a connection takes for a match with
// the shape of the last one that passed: same result as the full checks,
// and a match of that shape whose prerequisite values or wildcards are
// wrong is still refused as the full checks refuse it.
func TestMatchShape(t *testing.T) {
	oxm := func(f openflow.OXMField, v ...byte) openflow.OXM { return openflow.NewOXM(f, v, nil) }
	masked := func(f openflow.OXMField, v, m []byte) openflow.OXM { return openflow.NewOXM(f, v, m) }
	tcp := func(eth0, eth1, proto byte, dst []byte, mask []byte) openflow.Match {
		return openflow.Match{Fields: []openflow.OXM{
			oxm(openflow.FieldEthType, eth0, eth1), oxm(openflow.FieldIPProto, proto),
			masked(openflow.FieldIPv4Dst, dst, mask), oxm(openflow.FieldTCPDst, 0, 80),
		}}
	}
	var shape matchShape
	cases := []struct {
		name string
		m    openflow.Match
		err  error
	}{
		{"first", tcp(0x08, 0x00, 6, []byte{10, 0, 0, 0}, []byte{255, 0, 0, 0}), nil},
		{"same shape", tcp(0x08, 0x00, 6, []byte{10, 1, 0, 0}, []byte{255, 255, 0, 0}), nil},
		{"bad wildcards", tcp(0x08, 0x00, 6, []byte{10, 1, 0, 1}, []byte{255, 255, 0, 0}), badMatch(openflow.BadMatchBadWildcards)},
		{"ARP with ip_proto", tcp(0x08, 0x06, 6, []byte{10, 0, 0, 0}, []byte{255, 0, 0, 0}), openflow.ErrBadPrereq},
		{"UDP with tcp_dst", tcp(0x08, 0x00, 17, []byte{10, 0, 0, 0}, []byte{255, 0, 0, 0}), openflow.ErrBadPrereq},
		{"again", tcp(0x08, 0x00, 6, []byte{10, 2, 0, 0}, []byte{255, 255, 0, 0}), nil},
	}
	for _, c := range cases {
		var want, got rules.Match
		wantErr := Match(&want, &c.m, nil)
		err := matchInto(&got, &c.m, false, true, &shape, nil)
		if (err == nil) != (c.err == nil) || (wantErr == nil) != (c.err == nil) {
			t.Fatalf("%s: err %v, full checks %v, want %v", c.name, err, wantErr, c.err)
		}
		if err != nil {
			if !errors.Is(err, c.err) && err.Error() != c.err.Error() {
				t.Errorf("%s: err %v, want %v", c.name, err, c.err)
			}
			if err.Error() != wantErr.Error() {
				t.Errorf("%s: err %v, full checks give %v", c.name, err, wantErr)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: match %v, full checks give %v", c.name, got, want)
		}
	}
}

// TestTCPFlagsWire: the FLOW_MOD ovs-ofctl 3.1 sent for
// "tcp,tcp_flags=+syn-ack,actions=drop" over OpenFlow 1.3 (captured on
// loopback) carries tcp_flags as an ONF experimenter OXM; it translates to
// the rules field and back to the same bytes. Malformed ones get the
// OFPET_BAD_MATCH code for what is wrong.
func TestTCPFlagsWire(t *testing.T) {
	msg, err := hex.DecodeString("040e005000000006000000000000000000000000000000000000000000008000" +
		"ffffffffffffffffffffffff000000000001001b80000a0208008000140106ff" +
		"ff55084f4e4600000200120000000000")
	if err != nil {
		t.Fatal(err)
	}
	var fm openflow.FlowMod
	if err := fm.UnmarshalBinary(msg); err != nil {
		t.Fatal(err)
	}
	var m rules.Match
	if err := Match(&m, &fm.Match, nil); err != nil {
		t.Fatal(err)
	}
	if v, mk := m.Get(rules.FieldTCPFlags); v != 0x002 || mk != 0x012 {
		t.Fatalf("tcp_flags %#x/%#x, want 0x2/0x12", v, mk)
	}
	back := WireMatch(&m)
	enc, err := back.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := msg[48 : 48+0x1b]; !bytes.Equal(enc[:len(want)], want) {
		t.Errorf("encoded %x, Open vSwitch sent %x", enc, want)
	}

	tcpMatch := func(flags ...openflow.OXM) *openflow.Match {
		return &openflow.Match{Fields: append([]openflow.OXM{openflow.EthType(0x0800), openflow.IPProto(6)}, flags...)}
	}
	raw := func(masked bool, data ...byte) openflow.OXM {
		return openflow.OXM{Class: openflow.OXMClassExperimenter, Field: openflow.ONFFieldTCPFlags, HasMask: masked,
			Experimenter: openflow.ONFExperimenter, Data: data}
	}
	for _, c := range []struct {
		name string
		m    *openflow.Match
		code openflow.BadMatchCode
	}{
		{"value beyond 12 bits", tcpMatch(openflow.TCPFlags(0x1002, 0x0fff)), openflow.BadMatchBadValue},
		{"mask beyond 12 bits", tcpMatch(openflow.TCPFlags(0x0002, 0xf002)), openflow.BadMatchBadMask},
		{"value outside mask", tcpMatch(openflow.TCPFlags(0x0003, 0x0001)), openflow.BadMatchBadWildcards},
		{"twice", tcpMatch(openflow.TCPFlags(2, 0x0fff), openflow.TCPFlags(2, 0x0fff)), openflow.BadMatchDupField},
		{"three bytes", tcpMatch(raw(false, 0, 2, 0)), openflow.BadMatchBadLen},
		{"UDP", &openflow.Match{Fields: []openflow.OXM{openflow.EthType(0x0800), openflow.IPProto(17), openflow.TCPFlags(2, 0x0fff)}}, openflow.BadMatchBadPrereq},
	} {
		var m rules.Match
		err := Match(&m, c.m, nil)
		var em openflow.ErrorMsg
		if !errors.As(err, &em) || em.Type != openflow.ErrTypeBadMatch || em.Code != uint16(c.code) {
			t.Errorf("%s: %v, want OFPET_BAD_MATCH/%v", c.name, err, c.code)
		}
	}
	if err := Match(&m, tcpMatch(raw(true, 0, 2, 0, 0x12)), nil); err != nil {
		t.Errorf("masked +syn-ack: %v", err)
	}
}
