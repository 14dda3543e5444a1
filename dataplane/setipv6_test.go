package dataplane

import (
	"bytes"
	"encoding/hex"
	"errors"
	"net"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

// runFrame loads flows into a pipeline of tables tables, sends in from port
// 1 and returns what each port transmitted and the switch's counters.
func runFrame(t *testing.T, tables int, flows string, in []byte) (map[uint32][]byte, Counters) {
	t.Helper()
	pipe := testPipeline(t, tables, rules.FilterBloomCuckoo, flows)
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}}
	devs := map[uint32]Port{}
	for n, p := range ports {
		devs[n] = p
	}
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Devices: devs})
	vec := &Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = append([]byte(nil), in...), layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	out := map[uint32][]byte{}
	for n, p := range ports {
		if len(p.frames) > 1 {
			t.Errorf("port %d sent %d frames", n, len(p.frames))
		}
		if len(p.frames) > 0 {
			out[n] = p.frames[0]
		}
	}
	return out, sw.Stats()
}

// TestIPv6TTLTunnelActions runs the set_field actions of the IPv6 fields,
// tunnel_id and metadata and set_nw_ttl through a switch: each frame leaves
// as gopacket builds the expected one, checksums included.
func TestIPv6TTLTunnelActions(t *testing.T) {
	macNew := net.HardwareAddr{0x02, 0, 0, 0, 0, 0x77}
	v4 := func(ttl uint8) []byte {
		ip := ipv4(layers.IPProtocolTCP)
		ip.TTL = ttl
		return build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), gopacket.Payload("payload"))
	}
	v6 := func(label uint32, hop uint8) []byte {
		ip := ipv6(layers.IPProtocolUDP)
		ip.FlowLabel, ip.HopLimit = label, hop
		return build(t, eth(layers.EthernetTypeIPv6), ip, udp(), gopacket.Payload("payload"))
	}
	nsTo := func(target net.IP, opts ...layers.ICMPv6Option) []byte {
		return build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolICMPv6),
			&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(135, 0)},
			&layers.ICMPv6NeighborSolicitation{TargetAddress: target, Options: opts})
	}
	for _, tt := range []struct {
		name   string
		tables int
		flows  string
		in     []byte
		want   map[uint32][]byte
	}{
		{name: "ipv6_label", flows: "ipv6,ipv6_label=0xabcde,actions=set_field:0x12345->ipv6_label,output:2",
			in: v6(0xabcde, 9), want: map[uint32][]byte{2: v6(0x12345, 9)}},
		{name: "ipv6_label masked miss", flows: "ipv6,ipv6_label=0x10000/0xf0000,actions=output:2\npriority=0,actions=output:3",
			in: v6(0xabcde, 9), want: map[uint32][]byte{3: v6(0xabcde, 9)}},
		{name: "nd_target nd_sll", flows: "icmp6,icmp_type=135,nd_target=2001:db8::42,nd_sll=02:00:00:00:00:5a," +
			"actions=set_field:2001:db8::99->nd_target,set_field:02:00:00:00:00:77->nd_sll,output:2",
			in: ns(t, sll(macND)), want: map[uint32][]byte{2: nsTo(net.ParseIP("2001:db8::99"), sll(macNew))}},
		{name: "nd_tll", flows: "icmp6,icmp_type=136,nd_tll=02:00:00:00:00:5a,actions=set_field:02:00:00:00:00:77->nd_tll,output:2",
			in: na(t, tll(macND)), want: map[uint32][]byte{2: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolICMPv6),
				&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(136, 0)},
				&layers.ICMPv6NeighborAdvertisement{Flags: 0x60, TargetAddress: ndTarget, Options: layers.ICMPv6Options{tll(macNew)}})}},
		{name: "nd_sll absent is not added", flows: "icmp6,icmp_type=135,actions=set_field:02:00:00:00:00:77->nd_sll,output:2",
			in: ns(t), want: map[uint32][]byte{2: ns(t)}},
		{name: "set_nw_ttl ipv4", flows: "ip,actions=mod_nw_ttl:7,output:2", in: v4(61), want: map[uint32][]byte{2: v4(7)}},
		{name: "set_nw_ttl ipv6", flows: "ipv6,actions=mod_nw_ttl:200,output:2", in: v6(0xabcde, 9), want: map[uint32][]byte{2: v6(0xabcde, 200)}},
		{name: "dec_ttl ipv6", flows: "ipv6,actions=dec_ttl,output:2", in: v6(0xabcde, 9), want: map[uint32][]byte{2: v6(0xabcde, 8)}},
		{name: "dec_ttl ipv6 expires", flows: "ipv6,actions=dec_ttl,output:2", in: v6(0xabcde, 1), want: map[uint32][]byte{}},
		// The action set decrements before it sets (OpenFlow 1.3.5 §5.10).
		{name: "action set order", flows: "ip,actions=write_actions(mod_nw_ttl:9,dec_ttl,output:2)", in: v4(61), want: map[uint32][]byte{2: v4(9)}},
		{name: "apply order", flows: "ip,actions=mod_nw_ttl:9,dec_ttl,output:2", in: v4(61), want: map[uint32][]byte{2: v4(8)}},
		{name: "tun_id", tables: 2, flows: "table=0,tun_id=0,actions=set_field:0x1234->tun_id,goto_table:1\n" +
			"table=1,tun_id=0x1234,actions=output:2\ntable=1,priority=0,actions=output:3",
			in: v4(61), want: map[uint32][]byte{2: v4(61)}},
		{name: "tun_id masked", tables: 2, flows: "table=0,actions=write_actions(set_field:0x1234->tun_id),goto_table:1\n" +
			"table=1,tun_id=0x1234/0xff00,actions=output:3\ntable=1,priority=0,actions=output:2",
			in: v4(61), want: map[uint32][]byte{2: v4(61)}}, // the action set runs after table 1
		{name: "metadata", tables: 2, flows: "table=0,actions=set_field:0x77->metadata,goto_table:1\n" +
			"table=1,metadata=0x77,actions=output:2\ntable=1,priority=0,actions=output:3",
			in: v4(61), want: map[uint32][]byte{2: v4(61)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := runFrame(t, max(tt.tables, 1), tt.flows, tt.in)
			if len(got) != len(tt.want) {
				t.Errorf("sent on %d ports, want %d", len(got), len(tt.want))
			}
			for n, want := range tt.want {
				if !bytes.Equal(got[n], want) {
					t.Errorf("port %d:\n got %s\nwant %s", n, hex.EncodeToString(got[n]), hex.EncodeToString(want))
				}
			}
		})
	}
}

// TestPacketInContext: a packet-in reports the metadata and tunnel_id the
// pipeline gave the packet before it was sent.
func TestPacketInContext(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo,
		"table=0,actions=set_field:0x1234->tun_id,write_metadata:0x5/0xff,goto_table:1\ntable=1,actions=controller")
	var got []PacketIn
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2}, PacketIn: func(p *PacketIn) {
		q := *p
		q.Frame = nil
		got = append(got, q)
	}})
	frame := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), udp())
	vec := &Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = frame, layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	if len(got) != 1 || got[0].TunnelID != 0x1234 || got[0].Metadata != 5 || got[0].Table != 1 || got[0].InPort != 1 {
		t.Fatalf("packet-ins %+v", got)
	}
}

// TestPacketOutChecks: a PACKET_OUT's actions are checked against its
// frame, as Open vSwitch checks them (controller's packetOutRefusals, run
// against it, lists the same answers): fields no switch writes and values
// out of range, and fields the frame lacks.
func TestPacketOutChecks(t *testing.T) {
	s, _ := newTestSwitch(t, "", 2)
	frame := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), udp())
	setf := func(f rules.Field, v uint64) rules.Action {
		return rules.Action{Kind: rules.ActionSetField, Field: f, Value: [2]uint64{0, v}}
	}
	for _, tt := range []struct {
		act  rules.Action
		code int // OFPBAC_*, or -1 for accepted
	}{
		{setf(rules.FieldEthType, 0x86dd), -1},
		{setf(rules.FieldIPProto, 6), -1},
		{setf(rules.FieldInPort, 3), rules.BadActionBadSetArg},
		{setf(rules.FieldVLANPCP, 8), rules.BadActionBadSetArg},
		{setf(rules.FieldIPDSCP, 64), rules.BadActionBadSetArg},
		{setf(rules.FieldIPv6FLabel, 5), rules.BadActionMatchInconsistent},
		{setf(rules.FieldARPSPA, 5), rules.BadActionMatchInconsistent},
		{setf(rules.FieldVLANVID, 0x1005), rules.BadActionMatchInconsistent},
		{rules.Action{Kind: rules.ActionSetNwTTL, TTL: 7}, -1},
		{setf(rules.FieldTunnelID, 5), -1},
		{setf(rules.FieldIPv4Src, 5), -1},
	} {
		err := s.PacketOut(1, []rules.Action{tt.act, {Kind: rules.ActionOutput, Port: 2}}, frame)
		var re *rules.Error
		var pe *PacketOutError
		switch {
		case tt.code < 0 && err != nil:
			t.Errorf("%+v: %v", tt.act, err)
		case tt.code >= 0 && (!errors.As(err, &re) || !errors.As(err, &pe) || re.Type != rules.ErrTypeBadAction || re.Code != tt.code):
			t.Errorf("%+v: %v, want OFPBAC code %d", tt.act, err, tt.code)
		}
	}
}
