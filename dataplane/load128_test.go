package dataplane

import (
	"net"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// load128Flows load and move bits of the 128-bit fields (ipv6_src,
// ipv6_dst, nd_target), told apart by the UDP destination port: bit
// ranges within one 64-bit word of the address, across the boundary of
// its two words, whole, to and from a register, a masked set_field, an
// output to the port in an address's low bits, and the action set.
const load128Flows = `table=0,priority=60,udp6,tp_dst=1001,actions=load:0xabcd->NXM_NX_IPV6_SRC[0..63],output:2
table=0,priority=60,udp6,tp_dst=1002,actions=move:NXM_NX_IPV6_SRC[]->NXM_NX_IPV6_DST[],output:2
table=0,priority=60,udp6,tp_dst=1003,actions=move:NXM_NX_IPV6_SRC[32..95]->NXM_NX_IPV6_DST[16..79],output:2
table=0,priority=60,udp6,tp_dst=1004,actions=load:0x1->NXM_NX_IPV6_SRC[60..67],output:2
table=0,priority=60,udp6,tp_dst=1005,actions=move:ipv6_src[0..31]->reg0[],goto_table:1
table=0,priority=60,udp6,tp_dst=1006,actions=set_field:::1/::ffff->ipv6_src,load:0x20010db8000000000000000000000002->ipv6_dst[],output:2
table=0,priority=60,udp6,tp_dst=1007,actions=load:3->ipv6_src[0..15],output:NXM_NX_IPV6_SRC[0..15]
table=0,priority=60,udp6,tp_dst=1008,actions=write_actions(load:0xffff->ipv6_dst[56..71],move:ipv6_dst[]->ipv6_src[],output:2)
table=0,priority=60,icmp6,icmp_type=135,actions=load:0x5->nd_target[60..67],move:nd_target[]->ipv6_src[],output:2
table=1,priority=10,ipv6,reg0=0x55556666,actions=move:reg0[]->ipv6_dst[96..127],output:3
table=1,priority=1,actions=drop
`

// load128Src is the source address of load128Cases' UDP frames: every
// 16-bit group different, so that a bit range misplaced shows.
var load128Src = net.ParseIP("2001:db8:1111:2222:3333:4444:5555:6666")

// load128Cases are frames for load128Flows, the addresses Open vSwitch
// leaves in them worked out by hand.
func load128Cases(t *testing.T) []frameCase {
	udp6 := func(dst uint16, src, to net.IP) []byte {
		ip, l4 := ipv6(layers.IPProtocolUDP), udp()
		ip.SrcIP, ip.DstIP = src, to
		l4.DstPort = layers.UDPPort(dst)
		return build(t, eth(layers.EthernetTypeIPv6), ip, l4, payload)
	}
	in := func(dst uint16) []byte { return udp6(dst, load128Src, ip6B) }
	ip := net.ParseIP
	ns := func(src, target net.IP) []byte {
		v6 := ipv6(layers.IPProtocolICMPv6)
		v6.SrcIP = src
		return build(t, eth(layers.EthernetTypeIPv6), v6, &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(135, 0)},
			&layers.ICMPv6NeighborSolicitation{TargetAddress: target})
	}
	return []frameCase{
		{"load into ipv6_src's low word", in(1001), []uint32{2}, udp6(1001, ip("2001:db8:1111:2222::abcd"), ip6B)},
		{"move ipv6_src to ipv6_dst", in(1002), []uint32{2}, udp6(1002, load128Src, load128Src)},
		{"move 64 bits across both words", in(1003), []uint32{2}, udp6(1003, load128Src, ip("fe80::1111:2222:3333:4444:2"))},
		{"load 8 bits across the words", in(1004), []uint32{2}, udp6(1004, ip("2001:db8:1111:2220:1333:4444:5555:6666"), ip6B)},
		{"ipv6_src's low bits through reg0 into ipv6_dst's high bits", in(1005), []uint32{3}, udp6(1005, load128Src, ip("5555:6666::abcd:2"))},
		{"masked set_field and a load of a whole address", in(1006), []uint32{2}, udp6(1006, ip("2001:db8:1111:2222:3333:4444:5555:1"), ip("2001:db8::2"))},
		{"output to the port in ipv6_src's low bits", in(1007), []uint32{3}, udp6(1007, ip("2001:db8:1111:2222:3333:4444:5555:3"), ip6B)},
		{"the action set's load and move", in(1008), []uint32{2}, udp6(1008, ip("fe80::ff:ff00:0:abcd:2"), ip("fe80::ff:ff00:0:abcd:2"))},
		{"nd_target loaded across its words and moved to ipv6_src", ns(ip6A, ip("fe80::1:2:3:4")), []uint32{2}, ns(ip("fe80::5001:2:3:4"), ip("fe80::5001:2:3:4"))},
	}
}

// TestLoadMove128 runs load128Cases through load128Flows: the frames
// leave on the ports expected and as gopacket builds them with the
// addresses rewritten, the UDP and ICMPv6 checksums included.
func TestLoadMove128(t *testing.T) { runFrameCases(t, load128Flows, load128Cases(t)) }

// TestLoadMove128AgainstOVS traces load128Cases through load128Flows in
// Open vSwitch 3.1: each frame must leave on the ports TestLoadMove128
// expects of ofswitch, and Open vSwitch's final flow must have the
// addresses of the frame it expects.
func TestLoadMove128AgainstOVS(t *testing.T) {
	traceFrameCases(t, load128Flows, load128Cases(t), checkFinalFlow)
}

// TestLoadMove128NoAllocs: vectors of load128Cases' frames allocate
// nothing.
func TestLoadMove128NoAllocs(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, load128Flows)
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}})
	var frames [][]byte
	for _, c := range load128Cases(t) {
		frames = append(frames, c.frame)
	}
	if n := vectorAllocs(sw.Worker(0), frames); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
	if st := sw.Stats(); st.Rewrites == 0 {
		t.Errorf("no rewrites: %+v", st)
	}
}
