package dataplane

import (
	"slices"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/internal/testutil"
	"github.com/ofswitch/ofswitch/rules"
)

// ttlFragFlows match nw_ttl and nw_frag, in table 0 and, after a dec_ttl,
// in table 1: the key must carry the decremented TTL there.
const ttlFragFlows = `table=0,priority=30,ip,nw_ttl=1,actions=output:2
table=0,priority=25,ip,nw_frag=first,actions=output:3
table=0,priority=24,ip,nw_frag=later,actions=drop
table=0,priority=10,ip,actions=dec_ttl,goto_table:1
table=0,priority=30,ipv6,nw_ttl=1,actions=output:3
table=0,priority=10,ipv6,actions=dec_ttl,goto_table:1
table=1,priority=20,ip,nw_ttl=63,actions=output:3,output:2
table=1,priority=10,ip,nw_frag=no,actions=output:2
table=1,priority=20,ipv6,nw_ttl=254,nw_frag=no,actions=output:2,output:3
table=1,priority=5,ip,actions=drop
table=1,priority=15,ipv6,nw_frag=first,actions=output:3
table=1,priority=15,ipv6,nw_frag=later,actions=output:2
`

// ttlFragFrames are frames for ttlFragFlows with the ports they leave on
// (Open vSwitch's choices: TestTTLFragAgainstOVS).
func ttlFragFrames(t *testing.T) []struct {
	name  string
	frame []byte
	ports []uint32
} {
	v4 := func(ttl uint8, flags layers.IPv4Flag, off uint16) []byte {
		ip := ipv4(layers.IPProtocolTCP)
		ip.TTL, ip.Flags, ip.FragOffset = ttl, flags, off
		if off != 0 {
			return build(t, eth(layers.EthernetTypeIPv4), ip, payload)
		}
		return build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), payload)
	}
	v6 := func(hl uint8) []byte {
		ip := ipv6(layers.IPProtocolUDP)
		ip.HopLimit = hl
		return build(t, eth(layers.EthernetTypeIPv6), ip, udp(), payload)
	}
	// v6frag is an IPv6 fragment: a fragment header (next header UDP,
	// offset off in 8-byte units, more fragments if more) and bytes.
	v6frag := func(off uint16, more bool) []byte {
		ip := ipv6(layers.IPProtocolIPv6Fragment)
		ip.HopLimit = 255
		fo := off << 3
		if more {
			fo |= 1
		}
		fh := []byte{byte(layers.IPProtocolUDP), 0, byte(fo >> 8), byte(fo), 0, 0, 0x12, 0x34}
		return build(t, eth(layers.EthernetTypeIPv6), ip, gopacket.Payload(append(fh, make([]byte, 24)...)))
	}
	return []struct {
		name  string
		frame []byte
		ports []uint32
	}{
		{"ipv6 first fragment", v6frag(0, true), []uint32{3}},
		{"ipv6 later fragment", v6frag(100, false), []uint32{2}},
		{"ttl 1", v4(1, 0, 0), []uint32{2}},
		{"ttl 64, 63 after dec_ttl", v4(64, 0, 0), []uint32{2, 3}},
		{"ttl 10", v4(10, 0, 0), []uint32{2}},
		{"first fragment", v4(64, layers.IPv4MoreFragments, 0), []uint32{3}},
		{"later fragment", v4(64, layers.IPv4MoreFragments, 100), nil},
		{"last fragment", v4(64, 0, 100), nil},
		{"later fragment, ttl 1", v4(1, 0, 100), []uint32{2}},
		{"hop limit 1", v6(1), []uint32{3}},
		{"hop limit 255, 254 after dec_ttl", v6(255), []uint32{2, 3}},
		{"hop limit 9", v6(9), nil},
	}
}

// sentPorts returns the ports out has frames on, in order.
func sentPorts(out map[uint32][][]byte) []uint32 {
	var ps []uint32
	for p := range out {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// TestTTLFragMatch: nw_ttl and nw_frag (ip_frag) select flows by the
// frame's TTL or hop limit and fragment bits, and a table after dec_ttl
// sees the decremented TTL.
func TestTTLFragMatch(t *testing.T) {
	for _, c := range ttlFragFrames(t) {
		t.Run(c.name, func(t *testing.T) {
			out, _ := tagRun(t, 2, ttlFragFlows, c.frame)
			if got := sentPorts(out); !slices.Equal(got, c.ports) {
				t.Fatalf("sent on ports %v, want %v", got, c.ports)
			}
		})
	}
}

// TestTTLKeyFollowsRewrites: mod_nw_ttl and dec_ttl write the new TTL into
// the key, and a frame's key carries its TTL and fragment bits where
// rules.Key has them.
func TestTTLKeyFollowsRewrites(t *testing.T) {
	flows := `table=0,ip,actions=mod_nw_ttl:7,goto_table:1
table=1,priority=9,ip,nw_ttl=7,actions=dec_ttl,goto_table:2
table=2,priority=9,ip,nw_ttl=6,actions=output:3
table=2,priority=1,actions=output:2
`
	ip := ipv4(layers.IPProtocolTCP)
	ip.TTL = 200
	out, _ := tagRun(t, 3, flows, build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), payload))
	if got := sentPorts(out); !slices.Equal(got, []uint32{3}) {
		t.Fatalf("sent on ports %v, want [3]", got)
	}
	if ttl := out[3][0][14+8]; ttl != 6 {
		t.Fatalf("left with TTL %d, want 6", ttl)
	}
	ip.TTL, ip.Flags, ip.FragOffset = 33, layers.IPv4MoreFragments, 0
	h, ok := NewParser().Parse(build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), payload), layers.LinkTypeEthernet, 1)
	if !ok {
		t.Fatal("parse")
	}
	var k rules.Key
	h.Key(&k)
	if k.Get(rules.FieldNwTTL) != 33 || k.Get(rules.FieldIPFrag) != rules.IPFragAny ||
		k.Get(rules.FieldPktMark) != 0 || k.Get(rules.FieldTunFlags) != 0 {
		t.Fatalf("key: nw_ttl %d ip_frag %d pkt_mark %d tun_flags %d, want 33 1 0 0", k.Get(rules.FieldNwTTL),
			k.Get(rules.FieldIPFrag), k.Get(rules.FieldPktMark), k.Get(rules.FieldTunFlags))
	}
}

// TestTTLFragAgainstOVS runs ttlFragFrames through ttlFragFlows in Open
// vSwitch 3.1 (ovs-appctl ofproto/trace) and checks that it sends each
// on the ports TestTTLFragMatch expects of ofswitch.
func TestTTLFragAgainstOVS(t *testing.T) {
	if testing.Short() && !testutil.InCI() {
		t.Skip("starts Open vSwitch")
	}
	ovs := startOVSPorts(t, 3)
	ovsReplaceFlows(t, ovs, ttlFragFlows)
	for _, c := range ttlFragFrames(t) {
		t.Run(c.name, func(t *testing.T) {
			ports, out := ovsTracePorts(t, ovs, c.frame)
			if !slices.Equal(ports, c.ports) {
				t.Fatalf("Open vSwitch sends on %v, ofswitch's test expects %v:\n%s", ports, c.ports, out)
			}
		})
	}
}
