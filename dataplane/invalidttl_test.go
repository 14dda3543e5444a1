package dataplane

import (
	"bytes"
	"fmt"
	"net"
	"sync/atomic"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/meters"
	"github.com/ofswitch/ofswitch/rules"
)

// ttlFrame is a UDP frame whose IPv4 TTL, IPv6 hop limit or (kind "mpls",
// one label over IPv4 of TTL 64) MPLS TTL is ttl, with Ethernet source
// src.
func ttlFrame(t testing.TB, kind string, ttl uint8, src net.HardwareAddr) []byte {
	t.Helper()
	switch kind {
	case "ip":
		ip := ipv4(layers.IPProtocolUDP)
		ip.TTL = ttl
		e := eth(layers.EthernetTypeIPv4)
		e.SrcMAC = src
		return build(t, e, ip, udp(), payload)
	case "ipv6":
		ip := ipv6(layers.IPProtocolUDP)
		ip.HopLimit = ttl
		e := eth(layers.EthernetTypeIPv6)
		e.SrcMAC = src
		return build(t, e, ip, udp(), payload)
	case "mpls":
		ip := ipv4(layers.IPProtocolUDP)
		ip.TTL = 64
		e := eth(layers.EthernetTypeMPLSUnicast)
		e.SrcMAC = src
		return build(t, e, mplsLSE(100, 0, true, ttl), ip, udp(), payload)
	}
	t.Fatalf("no frame kind %q", kind)
	return nil
}

// gotPacketIn is a PacketIn with its own copy of the frame.
type gotPacketIn struct {
	Reason, Table    uint8
	Cookie, Metadata uint64
	InPort           uint32
	MaxLen           uint16
	Frame            []byte
}

// ttlSwitch is a switch of ports 1-4 that record what they send, with
// flows, the groups of tbl (nil: none) and a packet-in callback that
// appends to *pins.
func ttlSwitch(t testing.TB, tables int, flows string, tbl *groups.Table, pins *[]gotPacketIn) (*Switch, map[uint32]*recPort) {
	t.Helper()
	pipe := testPipeline(t, tables, rules.FilterBloomCuckoo, flows)
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}, 4: {}}
	devs := map[uint32]Port{}
	for n, p := range ports {
		devs[n] = p
	}
	return NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3, 4}, Devices: devs, Groups: tbl, PacketIn: func(p *PacketIn) {
		*pins = append(*pins, gotPacketIn{Reason: p.Reason, Table: p.Table, Cookie: p.Cookie, Metadata: p.Metadata,
			InPort: p.InPort, MaxLen: p.MaxLen, Frame: bytes.Clone(p.Frame)})
	}}), ports
}

// processOne runs frame in, received on port 1, through sw's worker 0.
func processOne(t *testing.T, sw *Switch, in []byte) {
	t.Helper()
	frame := bytes.Clone(in)
	vec := &Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = frame, layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	if !bytes.Equal(frame, in) {
		t.Error("the input frame was modified")
	}
}

// sent returns what each port of ports transmitted.
func sent(ports map[uint32]*recPort) map[uint32][][]byte {
	out := map[uint32][][]byte{}
	for n, p := range ports {
		if len(p.frames) > 0 {
			out[n] = p.frames
		}
	}
	return out
}

func checkSent(t *testing.T, ports map[uint32]*recPort, want map[uint32][]byte) {
	t.Helper()
	got := sent(ports)
	for n, w := range want {
		if len(got[n]) != 1 || !bytes.Equal(got[n][0], w) {
			t.Errorf("port %d sent %x, want %x", n, got[n], w)
		}
	}
	for n, fs := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("port %d sent %d frames, want none", n, len(fs))
		}
	}
}

func checkPacketIns(t *testing.T, got, want []gotPacketIn) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d packet-ins %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Reason != w.Reason || g.Table != w.Table || g.Cookie != w.Cookie || g.Metadata != w.Metadata ||
			g.InPort != 1 || g.MaxLen != w.MaxLen || !bytes.Equal(g.Frame, w.Frame) {
			t.Errorf("packet-in %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

// TestInvalidTTL: dec_ttl (IPv4 TTL, IPv6 hop limit) and dec_mpls_ttl at
// TTL 0 or 1 send the frame to the controller as a packet-in of reason
// OFPR_INVALID_TTL, whole, as the actions before left it and with its TTL
// unchanged, with the entry's table and cookie; the rest of the action
// list does not run. At TTL 2 the decrement happens and the actions
// after it run. This is what Open vSwitch 3.1 does (TestOvsInvalidTTL in
// package controller runs the same flows on it).
func TestInvalidTTL(t *testing.T) {
	src := net.HardwareAddr{2, 0, 0, 0, 0, 0x99}
	for _, k := range []struct{ kind, match, dec string }{
		{"ip", "ip", "dec_ttl"}, {"ipv6", "ipv6", "dec_ttl"}, {"mpls", "mpls", "dec_mpls_ttl"},
	} {
		for _, ttl := range []uint8{0, 1, 2} {
			t.Run(fmt.Sprintf("%s-ttl-%d", k.kind, ttl), func(t *testing.T) {
				var pins []gotPacketIn
				sw, ports := ttlSwitch(t, 1, fmt.Sprintf("cookie=0x11,%s,actions=set_field:%s->eth_src,%s,output:2,controller:200",
					k.match, src, k.dec), nil, &pins)
				processOne(t, sw, ttlFrame(t, k.kind, ttl, macA))
				c := sw.Stats()
				if ttl == 2 {
					out := ttlFrame(t, k.kind, 1, src)
					checkSent(t, ports, map[uint32][]byte{2: out})
					checkPacketIns(t, pins, []gotPacketIn{{Reason: PacketInAction, Cookie: 0x11, MaxLen: 200, Frame: out}})
					if c.TTLExpired != 0 || c.Rewrites != 2 || c.PacketIns != 1 {
						t.Errorf("counters %+v", c)
					}
					return
				}
				checkSent(t, ports, nil)
				checkPacketIns(t, pins, []gotPacketIn{{Reason: PacketInInvalidTTL, Cookie: 0x11, MaxLen: rules.ControllerMaxLenNoBuffer,
					Frame: ttlFrame(t, k.kind, ttl, src)}})
				if c.TTLExpired != 1 || c.Drops != 1 || c.PacketIns != 1 || c.Outputs != 0 || c.Rewrites != 1 {
					t.Errorf("counters %+v", c)
				}
			})
		}
	}
}

// TestInvalidTTLInstructions: what runs after a failed decrement, in
// apply-actions, in the action set, in a group bucket and in a
// PACKET_OUT, as in Open vSwitch 3.1.
func TestInvalidTTLInstructions(t *testing.T) {
	in := ttlFrame(t, "ip", 1, macA)
	dec := func(ttl uint8) []byte { return ttlFrame(t, "ip", ttl, macA) }
	src := net.HardwareAddr{2, 0, 0, 0, 0, 0x99}
	for _, tt := range []struct {
		name   string
		tables int
		flows  string
		group  []groups.Bucket
		in     []byte
		want   map[uint32][]byte
		pins   []gotPacketIn
		check  func(t *testing.T, c *Counters)
	}{
		// The entry's write-actions, write-metadata and goto-table do
		// not run: the frame leaves the pipeline there.
		{name: "apply-skips-write-and-goto", tables: 2,
			flows: "table=0,cookie=0x11,ip,actions=dec_ttl,write_actions(output:3),write_metadata:0x5,goto_table:1\ntable=1,actions=output:2",
			in:    in, pins: []gotPacketIn{{Reason: PacketInInvalidTTL, Cookie: 0x11, MaxLen: 0xffff, Frame: in}},
			check: func(t *testing.T, c *Counters) {
				if c.Drops != 1 || c.Hits != 1 {
					t.Errorf("drops %d hits %d, want 1 and 1 (table 1 not reached)", c.Drops, c.Hits)
				}
			}},
		// The action set that earlier tables wrote still executes,
		// with the frame as it was when the decrement failed.
		{name: "apply-then-earlier-action-set", tables: 2,
			flows: "table=0,cookie=0x11,ip,actions=write_actions(output:3),goto_table:1\n" +
				"table=1,cookie=0x22,ip,actions=controller:300,set_field:" + src.String() + "->eth_src,dec_ttl,controller:300,write_actions(output:2)",
			in: in, want: map[uint32][]byte{3: ttlFrame(t, "ip", 1, src)},
			pins: []gotPacketIn{{Reason: PacketInAction, Table: 1, Cookie: 0x22, MaxLen: 300, Frame: in},
				{Reason: PacketInInvalidTTL, Table: 1, Cookie: 0x22, MaxLen: 0xffff, Frame: ttlFrame(t, "ip", 1, src)}},
			check: func(t *testing.T, c *Counters) {
				if c.Drops != 0 || c.TTLExpired != 1 || c.Outputs != 1 {
					t.Errorf("counters %+v", c)
				}
			}},
		// In the action set: table 0xff and cookie -1 as for its
		// output to CONTROLLER, the pipeline's metadata, the sets
		// applied before it (set_field after dec_ttl in §5.10's order
		// does not run).
		{name: "action-set", tables: 2,
			flows: "table=0,cookie=0x11,ip,actions=write_actions(dec_ttl,set_field:" + src.String() + "->eth_src,output:2),write_metadata:0x5,goto_table:1\n" +
				"table=1,ip,actions=set_field:11->ip_dscp",
			in: in, pins: []gotPacketIn{{Reason: PacketInInvalidTTL, Table: 0xff, Cookie: ^uint64(0), Metadata: 5, MaxLen: 0xffff, Frame: func() []byte {
				ip := ipv4(layers.IPProtocolUDP)
				ip.TTL, ip.TOS = 1, 11<<2|ip.TOS&3
				return build(t, eth(layers.EthernetTypeIPv4), ip, udp(), payload)
			}()}}},
		{name: "action-set-ttl-2", tables: 2,
			flows: "table=0,cookie=0x11,ip,actions=write_actions(dec_ttl,output:2),goto_table:1\ntable=1,ip,actions=drop",
			in:    dec(2), want: map[uint32][]byte{2: dec(1)}},
		// A group bucket stops at the failed decrement; the other
		// buckets and the entry's actions after the group run.
		{name: "group-bucket", tables: 1, flows: "cookie=0x11,ip,actions=group:1,output:4",
			group: []groups.Bucket{bucket(rules.Action{Kind: rules.ActionDecNwTTL}, rules.Action{Kind: rules.ActionOutput, Port: 2}),
				bucket(rules.Action{Kind: rules.ActionOutput, Port: 3})},
			in: in, want: map[uint32][]byte{3: in, 4: in},
			pins: []gotPacketIn{{Reason: PacketInInvalidTTL, Cookie: 0x11, MaxLen: 0xffff, Frame: in}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var tbl *groups.Table
			if tt.group != nil {
				tbl = groups.New(nil)
				addGroup(t, tbl, groups.TypeAll, 1, tt.group...)
			}
			var pins []gotPacketIn
			sw, ports := ttlSwitch(t, tt.tables, tt.flows, tbl, &pins)
			processOne(t, sw, tt.in)
			checkSent(t, ports, tt.want)
			checkPacketIns(t, pins, tt.pins)
			if tt.check != nil {
				c := sw.Stats()
				tt.check(t, &c)
			}
		})
	}
}

// TestInvalidTTLPacketOut: a PACKET_OUT's dec_ttl at TTL 1 sends the
// packet-in (table 0xff, cookie -1, as its output to CONTROLLER) and stops
// its actions.
func TestInvalidTTLPacketOut(t *testing.T) {
	var pins []gotPacketIn
	sw, ports := ttlSwitch(t, 1, "priority=0,actions=drop", nil, &pins)
	in := ttlFrame(t, "ipv6", 1, macA)
	err := sw.PacketOut(1, []rules.Action{{Kind: rules.ActionDecNwTTL}, {Kind: rules.ActionOutput, Port: 2}}, in)
	if err != nil {
		t.Fatal(err)
	}
	checkSent(t, ports, nil)
	checkPacketIns(t, pins, []gotPacketIn{{Reason: PacketInInvalidTTL, Table: 0xff, Cookie: ^uint64(0), MaxLen: 0xffff, Frame: in}})
	if c := sw.Stats(); c.TTLExpired != 1 {
		t.Errorf("ttl expired %d, want 1", c.TTLExpired)
	}
}

// TestInvalidTTLNoPacketIn: a port with OFPPC_NO_PACKET_IN gets no
// packet-in for an expired TTL either; the frame is still dropped.
func TestInvalidTTLNoPacketIn(t *testing.T) {
	var pins []gotPacketIn
	sw, ports := ttlSwitch(t, 1, "ip,actions=dec_ttl,output:2", nil, &pins)
	sw.SetPortConfig(1, PortNoPacketIn)
	processOne(t, sw, ttlFrame(t, "ip", 1, macA))
	checkSent(t, ports, nil)
	checkPacketIns(t, pins, nil)
	if c := sw.Stats(); c.TTLExpired != 1 || c.PortDrops != 1 || c.PacketIns != 0 || c.Drops != 1 {
		t.Errorf("counters %+v", c)
	}
}

// TestInvalidTTLAllocatesNothing: expired and valid TTLs mixed in a
// vector, with a packet-in callback, allocate nothing.
func TestInvalidTTLAllocatesNothing(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, "table=0,ip,actions=dec_ttl,goto_table:1\n"+
		"table=0,mpls,actions=dec_mpls_ttl,output:2\ntable=1,ip,actions=write_actions(dec_ttl,output:3)")
	pins := 0
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, PacketIn: func(p *PacketIn) {
		if p.Reason == PacketInInvalidTTL {
			pins++
		}
	}})
	frames := [][]byte{ttlFrame(t, "ip", 1, macA), ttlFrame(t, "ip", 2, macA), ttlFrame(t, "ip", 64, macA),
		ttlFrame(t, "mpls", 1, macA), ttlFrame(t, "mpls", 9, macA)}
	if n := vectorAllocs(sw.Worker(0), frames); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
	if pins == 0 {
		t.Error("no invalid-ttl packet-in")
	}
}

// TestInvalidTTLMetered: the Controller meter limits invalid-TTL
// packet-ins as it limits the others: 2 of a vector of 10 go to the
// controller, and every frame counts as expired.
func TestInvalidTTLMetered(t *testing.T) {
	var clk atomic.Int64
	pins := 0
	sw, _ := meterSwitch(t, &clk, []meters.Config{{ID: meters.Controller, Flags: meters.FlagPKTPS | meters.FlagBurst,
		Bands: []meters.Band{{Type: meters.BandDrop, Rate: 1, BurstSize: 2}}}},
		"ip,actions=dec_ttl,output:2", &Config{PacketIn: func(p *PacketIn) {
			if p.Reason == PacketInInvalidTTL {
				pins++
			}
		}})
	w := sw.Worker(0)
	w.Process(frames(10, ttlFrame(t, "ip", 1, macA)))
	if st := w.Stats(); pins != 2 || st.PacketIns != 2 || st.MeterDrops != 8 || st.TTLExpired != 10 || st.Outputs != 0 {
		t.Errorf("packet-ins %d, stats %+v", pins, st)
	}
}
