package dataplane

import (
	"bytes"
	"encoding/hex"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// recPort records the frames transmitted on it.
type recPort struct{ frames [][]byte }

func (p *recPort) Transmit(f []byte) { p.frames = append(p.frames, append([]byte(nil), f...)) }

// testPipeline loads flows (ovs-ofctl add-flows syntax) into a pipeline
// of the given number of tables.
func testPipeline(t testing.TB, tables int, kind rules.FilterKind, flows string) *rules.Pipeline {
	t.Helper()
	p, err := rules.New(&rules.Config{Tables: tables, Filter: kind})
	if err != nil {
		t.Fatal(err)
	}
	ups, errs := ofctl.ParseFlows("test.flows", []byte(flows), nil)
	if len(errs) > 0 {
		t.Fatalf("parse flows: %v", errs)
	}
	res := p.ApplyBurst(ups, true)
	for i, err := range res.Errs {
		if err != nil {
			t.Fatalf("flow %d: %v", i, err)
		}
	}
	return p
}

func TestKeyMatchesFields(t *testing.T) {
	frame := build(t, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: 77, Priority: 5, Type: layers.EthernetTypeIPv4},
		ipv4(layers.IPProtocolTCP), tcp())
	p := NewParser()
	h, ok := p.Parse(frame, layers.LinkTypeEthernet, 9)
	if !ok {
		t.Fatal("not parsed")
	}
	var k rules.Key
	h.Key(&k)
	for _, c := range []struct {
		f    rules.Field
		want uint64
	}{
		{rules.FieldInPort, 9},
		{rules.FieldEthSrc, 0x02000000000a},
		{rules.FieldEthDst, 0x02000000000b},
		{rules.FieldEthType, 0x0800},
		{rules.FieldVLANVID, rules.VIDPresent | 77},
		{rules.FieldVLANPCP, 5},
		{rules.FieldIPDSCP, 0xb9 >> 2},
		{rules.FieldIPECN, 1},
		{rules.FieldIPProto, 6},
		{rules.FieldIPv4Src, 0x0a000001},
		{rules.FieldIPv4Dst, 0xc0a80709},
		{rules.FieldL4Src, 4321},
		{rules.FieldL4Dst, 443},
		{rules.FieldTCPFlags, 0x012},
		{rules.FieldICMPType, 0},
		{rules.FieldARPOp, 0},
		{rules.FieldMetadata, 0},
	} {
		if got := k.Get(c.f); got != c.want {
			t.Errorf("%v = %#x, want %#x", c.f, got, c.want)
		}
	}
	// IPv6 ICMPv6 and ARP.
	f6 := build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolICMPv6),
		&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(128, 0)}, gopacket.Payload(make([]byte, 8)))
	h, _ = p.Parse(f6, layers.LinkTypeEthernet, 1)
	h.Key(&k)
	hi, lo := k.Get128(rules.FieldIPv6Src)
	if hi != 0x20010db800000000 || lo != 1 || k.Get(rules.FieldICMPType) != 128 || k.Get(rules.FieldL4Src) != 0 {
		t.Errorf("IPv6 key %v", k)
	}
	arp := build(t, eth(layers.EthernetTypeARP), &layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
		HwAddressSize: 6, ProtAddressSize: 4, Operation: 2, SourceHwAddress: macA, SourceProtAddress: ip4A.To4(),
		DstHwAddress: macB, DstProtAddress: ip4B.To4()})
	h, _ = p.Parse(arp, layers.LinkTypeEthernet, 1)
	h.Key(&k)
	if k.Get(rules.FieldARPOp) != 2 || k.Get(rules.FieldARPSPA) != 0x0a000001 || k.Get(rules.FieldARPTHA) != 0x02000000000b || k.Get(rules.FieldIPProto) != 0 ||
		k.Get(rules.FieldARPSHA) != 0x02000000000a || k.Get(rules.FieldTCPFlags) != 0 {
		t.Errorf("ARP key %v", k)
	}
	if n := testing.AllocsPerRun(100, func() { h.Key(&k) }); n != 0 {
		t.Errorf("Key: %v allocs", n)
	}
}

// TestTCPFlagsClassify: tcp_flags matches the flags of TCP segments, and
// nothing else: a SYN takes the +syn-ack flow, a SYN-ACK, an ACK and a UDP
// datagram do not.
func TestTCPFlagsClassify(t *testing.T) {
	pipe := testPipeline(t, 1, rules.FilterBloomCuckoo, `priority=30,tcp,tcp_flags=+syn-ack,actions=output:1
priority=20,tcp,tcp_flags=ack,actions=output:2
priority=10,ip,actions=output:3
`)
	seg := func(syn, ack bool) []byte {
		tc := tcp()
		tc.SYN, tc.ACK = syn, ack
		return build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tc)
	}
	dgram := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), udp())
	p := NewParser()
	for _, c := range []struct {
		name  string
		frame []byte
		want  uint16 // priority of the flow that matches
	}{
		{"SYN", seg(true, false), 30},
		{"SYN-ACK", seg(true, true), 10},
		{"ACK", seg(false, true), 20},
		{"UDP", dgram, 10},
	} {
		h, ok := p.Parse(c.frame, layers.LinkTypeEthernet, 1)
		if !ok {
			t.Fatalf("%s: not parsed", c.name)
		}
		var k rules.Key
		h.Key(&k)
		if r := pipe.Table(0).Lookup(&k); r == nil || r.Priority != c.want {
			t.Errorf("%s (tcp_flags %#x): matched %v, want the priority-%d flow", c.name, k.Get(rules.FieldTCPFlags), r, c.want)
		}
	}
}

// TestActions runs one frame through flows and compares what each port
// got with frames built by gopacket with the rewritten fields (and its own
// checksums): every rewrite must leave valid checksums.
func TestActions(t *testing.T) {
	v4tcp := func(mod func(*layers.Ethernet, *layers.IPv4, *layers.TCP)) []byte {
		e, ip, tc := eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp()
		if mod != nil {
			mod(e, ip, tc)
		}
		return build(t, e, ip, tc, gopacket.Payload("hello, a payload long enough"))
	}
	v6udp := func(mod func(*layers.IPv6, *layers.UDP)) []byte {
		ip, u := ipv6(layers.IPProtocolUDP), udp()
		if mod != nil {
			mod(ip, u)
		}
		return build(t, eth(layers.EthernetTypeIPv6), ip, u, gopacket.Payload("hi there"))
	}
	tagged := func(vid uint16, pcp uint8) []byte {
		e := eth(layers.EthernetTypeDot1Q)
		return build(t, e, &layers.Dot1Q{VLANIdentifier: vid, Priority: pcp, Type: layers.EthernetTypeIPv4},
			ipv4(layers.IPProtocolTCP), tcp(), gopacket.Payload("hello, a payload long enough"))
	}
	for _, tt := range []struct {
		name   string
		tables int
		flows  string
		in     []byte
		want   map[uint32][]byte // port → frame
		pins   int
		check  func(t *testing.T, c *Counters)
	}{
		{name: "output", flows: "priority=1,actions=output:2", in: v4tcp(nil), want: map[uint32][]byte{2: v4tcp(nil)}},
		{name: "in_port", flows: "in_port=1,actions=in_port", in: v4tcp(nil), want: map[uint32][]byte{1: v4tcp(nil)}},
		// Only IN_PORT sends a frame back where it came from.
		{name: "output-to-in_port", flows: "in_port=1,actions=output:1,output:2,output:1", in: v4tcp(nil), want: map[uint32][]byte{2: v4tcp(nil)}},
		{name: "flood", flows: "actions=flood", in: v4tcp(nil), want: map[uint32][]byte{2: v4tcp(nil), 3: v4tcp(nil)}},
		{name: "all", flows: "actions=all", in: v4tcp(nil), want: map[uint32][]byte{2: v4tcp(nil), 3: v4tcp(nil)}},
		{name: "drop", flows: "tcp,actions=drop", in: v4tcp(nil), want: map[uint32][]byte{},
			check: func(t *testing.T, c *Counters) {
				if c.Drops != 1 || c.Hits != 1 {
					t.Errorf("drops %d hits %d", c.Drops, c.Hits)
				}
			}},
		{name: "miss", flows: "udp,actions=output:2", in: v4tcp(nil), want: map[uint32][]byte{},
			check: func(t *testing.T, c *Counters) {
				if c.Misses != 1 || c.MissTable0 != 1 || c.Drops != 1 {
					t.Errorf("misses %d drops %d", c.Misses, c.Drops)
				}
			}},
		{name: "controller", flows: "priority=0,actions=controller:64", in: v4tcp(nil), want: map[uint32][]byte{}, pins: 1},
		{name: "set-macs-ips-ports", flows: "tcp,actions=set_field:02:00:00:00:00:99->eth_dst,set_field:02:00:00:00:00:98->eth_src," +
			"set_field:172.16.0.1->ip_src,set_field:8.8.4.4->ip_dst,set_field:1111->tcp_src,set_field:2222->tcp_dst,output:3",
			in: v4tcp(nil), want: map[uint32][]byte{3: v4tcp(func(e *layers.Ethernet, ip *layers.IPv4, tc *layers.TCP) {
				e.DstMAC = net.HardwareAddr{2, 0, 0, 0, 0, 0x99}
				e.SrcMAC = net.HardwareAddr{2, 0, 0, 0, 0, 0x98}
				ip.SrcIP, ip.DstIP = net.IP{172, 16, 0, 1}, net.IP{8, 8, 4, 4}
				tc.SrcPort, tc.DstPort = 1111, 2222
			})}},
		{name: "dscp-ecn-dec_ttl", flows: "ip,actions=set_field:10->ip_dscp,set_field:2->ip_ecn,dec_ttl,output:2",
			in: v4tcp(nil), want: map[uint32][]byte{2: v4tcp(func(_ *layers.Ethernet, ip *layers.IPv4, _ *layers.TCP) {
				ip.TOS, ip.TTL = 10<<2|2, 60
			})}},
		{name: "ipv6-udp", flows: "udp6,actions=set_field:2001:db8::77->ipv6_dst,set_field:5353->udp_src,dec_ttl,output:2",
			in: v6udp(nil), want: map[uint32][]byte{2: v6udp(func(ip *layers.IPv6, u *layers.UDP) {
				ip.DstIP, u.SrcPort, ip.HopLimit = net.ParseIP("2001:db8::77"), 5353, 8
			})}},
		{name: "push_vlan", flows: "actions=push_vlan:0x8100,set_field:4196->vlan_vid,output:2", in: v4tcp(nil),
			want: map[uint32][]byte{2: tagged(100, 0)}},
		{name: "pop_vlan", flows: "dl_vlan=7,actions=pop_vlan,output:2", in: tagged(7, 3), want: map[uint32][]byte{2: v4tcp(nil)}},
		{name: "vlan_pcp", flows: "dl_vlan=7,actions=set_field:6->vlan_pcp,output:2", in: tagged(7, 3), want: map[uint32][]byte{2: tagged(7, 6)}},
		{name: "ttl-expired", flows: "ip,actions=dec_ttl,output:2", in: v4tcp(func(_ *layers.Ethernet, ip *layers.IPv4, _ *layers.TCP) { ip.TTL = 1 }),
			want: map[uint32][]byte{}, pins: 1, check: func(t *testing.T, c *Counters) {
				if c.TTLExpired != 1 {
					t.Errorf("ttl expired %d", c.TTLExpired)
				}
			}},
		{name: "goto-write-actions-metadata", tables: 3, flows: "table=0,actions=write_actions(output:3),write_metadata:0x5/0xff,goto_table:1\n" +
			"table=1,tcp,metadata=0x5,actions=set_field:1->tcp_dst,goto_table:2\n" +
			"table=1,priority=0,actions=drop\n" +
			"table=2,tcp,tp_dst=1,actions=write_actions(output:2),dec_ttl\n",
			in: v4tcp(nil), want: map[uint32][]byte{2: v4tcp(func(_ *layers.Ethernet, ip *layers.IPv4, tc *layers.TCP) {
				tc.DstPort, ip.TTL = 1, 60
			})}},
		{name: "clear-actions", tables: 2, flows: "table=0,actions=write_actions(output:3),goto_table:1\ntable=1,actions=clear_actions",
			in: v4tcp(nil), want: map[uint32][]byte{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pipe := testPipeline(t, max(tt.tables, 1), rules.FilterBloomCuckoo, tt.flows)
			ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}}
			devs := map[uint32]Port{}
			for n, p := range ports {
				devs[n] = p
			}
			pins := 0
			sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Devices: devs, PacketIn: func(pi *PacketIn) {
				pins++
				reason, n := uint8(PacketInNoMatch), min(64, len(tt.in))
				if tt.name == "ttl-expired" {
					reason, n = PacketInInvalidTTL, len(tt.in)
				}
				if pi.Reason != reason || len(pi.Frame) != n {
					t.Errorf("packet-in %+v", pi)
				}
			}})
			w := sw.Worker(0)
			in := append([]byte(nil), tt.in...)
			vec := &Vector{N: 1}
			vec.Frames[0], vec.Link[0], vec.InPort[0] = in, layers.LinkTypeEthernet, 1
			w.Process(vec)
			if !bytes.Equal(in, tt.in) {
				t.Error("the input frame was modified")
			}
			for n, p := range ports {
				want, ok := tt.want[n]
				switch {
				case !ok && len(p.frames) != 0:
					t.Errorf("port %d got %d frames, want none", n, len(p.frames))
				case ok && len(p.frames) != 1:
					t.Errorf("port %d got %d frames, want 1", n, len(p.frames))
				case ok && !bytes.Equal(p.frames[0], want):
					t.Errorf("port %d:\n got %s\nwant %s", n, hex.EncodeToString(p.frames[0]), hex.EncodeToString(want))
				}
			}
			if pins != tt.pins {
				t.Errorf("%d packet-ins, want %d", pins, tt.pins)
			}
			c := sw.Stats()
			if c.Packets != 1 || c.Outputs != uint64(len(tt.want)) {
				t.Errorf("packets %d outputs %d", c.Packets, c.Outputs)
			}
			if tt.check != nil {
				tt.check(t, &c)
			}
			ps := sw.PortStats()
			if ps[0].RxPackets != 1 || ps[0].RxBytes != uint64(len(tt.in)) {
				t.Errorf("port stats %v", ps[0])
			}
		})
	}
}

// countObserver sums what a worker reports of its table-0 lookups.
type countObserver struct {
	calls, keys int
	lookups     rules.Counters
	slow        time.Duration
}

func (o *countObserver) ObserveLookup(_ time.Time, d time.Duration, keys int, c *rules.Counters) {
	o.calls++
	o.keys += keys
	o.lookups.Add(c)
	o.slow = max(o.slow, d)
}

// TestLookupObserver replays a capture through a worker with a lookup
// observer: it is told of every table-0 lookup, its counters add up to the
// worker's, and observing allocates nothing.
func TestLookupObserver(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, "table=0,priority=10,tcp,actions=goto_table:1\ntable=0,priority=1,actions=output:2\ntable=1,actions=output:1\n")
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2}})
	c := mustLoad(t, "mix.pcap")
	shard := c.Shard(1)[0]
	w := sw.Worker(0)
	var o countObserver
	w.SetLookupObserver(&o)
	run := func() { _ = w.ReplayShard(t.Context(), c, shard, nil, timeZero) }
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("replaying %d frames through an observed worker: %v allocs, want 0", c.Len(), n)
	}
	st := w.Stats()
	t1 := pipe.Rules(1)[0].Packets()
	if o.calls == 0 || uint64(o.keys) != st.Packets || o.lookups.Lookups != st.Lookup.Lookups-t1 || o.slow <= 0 {
		t.Errorf("observed %d calls, %d keys, %d lookups (max %v); worker: %d packets, %d lookups, %d in table 1",
			o.calls, o.keys, o.lookups.Lookups, o.slow, st.Packets, st.Lookup.Lookups, t1)
	}
	w.SetLookupObserver(nil)
	calls := o.calls
	run()
	if o.calls != calls {
		t.Errorf("observer removed, still called %d times", o.calls-calls)
	}
}

func TestRuleHitsAndNoAllocs(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, strings.Join([]string{
		"table=0,priority=10,tcp,actions=set_field:7->tcp_dst,goto_table:1",
		"table=0,priority=5,udp,actions=push_vlan:0x8100,output:2",
		"table=0,priority=3,icmp,actions=controller:64,set_field:02:00:00:00:00:01->eth_src,in_port",
		"table=0,priority=1,actions=flood",
		"table=1,ip,actions=dec_ttl,write_actions(output:3)",
	}, "\n"))
	pins := 0
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Workers: 1, PacketIn: func(*PacketIn) { pins++ }})
	c := mustLoad(t, "mix.pcap")
	shard := c.Shard(1)[0]
	w := sw.Worker(0)
	run := func() { _ = w.ReplayShard(t.Context(), c, shard, nil, timeZero) }
	run()
	if n := testing.AllocsPerRun(5, run); n != 0 {
		t.Errorf("replaying %d frames through the switch: %v allocs, want 0", c.Len(), n)
	}
	st := sw.Stats()
	var hits uint64
	for _, r := range pipe.Rules(0) {
		hits += r.Packets()
	}
	if hits != st.Hits-pipe.Rules(1)[0].Packets() || st.Packets != st.Parse.Parsed || st.Parse.Read != 7*uint64(c.Len()) { // one run, AllocsPerRun warm-up and 5
		t.Errorf("table-0 hits %d, counters %+v", hits, st)
	}
	if st.Rewrites == 0 || st.Outputs == 0 || pins == 0 || uint64(pins) != st.PacketIns {
		t.Errorf("no rewrites or outputs: %+v", st)
	}
}

// TestShardBalanced checks that Shard spreads the flows' buckets so that
// the workers' shares differ by no more than the heaviest bucket.
func TestShardBalanced(t *testing.T) {
	c := mustLoad(t, "mix.pcap")
	p := NewParser()
	var load [shardBuckets]int
	for i := 0; i < c.Len(); i++ {
		if h, ok := p.Parse(c.Frame(i), c.Link(i), uint32(c.Iface[i])+1); ok {
			load[h.FlowHash()%shardBuckets]++
		}
	}
	heaviest := slices.Max(load[:])
	for _, n := range []int{2, 3, 4} {
		shards := c.Shard(n)
		lo, hi := c.Len(), 0
		for _, s := range shards {
			lo, hi = min(lo, len(s)), max(hi, len(s))
		}
		if hi-lo > heaviest+n { // + n: malformed frames go round-robin
			t.Errorf("%d workers: shares from %d to %d frames, heaviest bucket %d", n, lo, hi, heaviest)
		}
	}
}

func TestReplayWorkersShardByFlow(t *testing.T) {
	c := mustLoad(t, "vlan-2if.pcapng")
	shards := c.Shard(3)
	owner := map[uint64]int{}
	total := 0
	p := NewParser()
	for w, idx := range shards {
		total += len(idx)
		for _, i := range idx {
			h, ok := p.Parse(c.Frame(int(i)), c.Link(int(i)), uint32(c.Iface[i])+1)
			if !ok {
				continue
			}
			fh := h.FlowHash()
			if o, seen := owner[fh]; seen && o != w {
				t.Fatalf("flow %x on workers %d and %d", fh, o, w)
			}
			owner[fh] = w
		}
	}
	if total != c.Len() {
		t.Fatalf("shards hold %d frames, capture %d", total, c.Len())
	}
	flows := "priority=2,ip,actions=output:2\npriority=1,actions=output:1\n"
	one := NewSwitch(testPipeline(t, 1, rules.FilterCuckoo, flows), &Config{Ports: []uint32{1, 2}})
	three := NewSwitch(testPipeline(t, 1, rules.FilterCuckoo, flows), &Config{Ports: []uint32{1, 2}, Workers: 3})
	for _, sw := range []*Switch{one, three} {
		if err := sw.Replay(t.Context(), []*Capture{c, nil, c}, nil); err != nil {
			t.Fatal(err)
		}
	}
	a, b := one.Stats(), three.Stats()
	if a != b || a.Parse.Read != 2*uint64(c.Len()) || three.Processed() != a.Parse.Read {
		t.Errorf("1 worker %+v\n3 workers %+v", a, b)
	}
	pa, pb := one.PortStats(), three.PortStats()
	if pa[0] != pb[0] || pa[1] != pb[1] || pa[0].RxPackets+pa[1].RxPackets != a.Packets {
		t.Errorf("port stats %v vs %v", pa, pb)
	}
	busy := 0
	for i := range 3 {
		if st := three.Worker(i).Stats(); st.Packets > 0 {
			busy++
		}
	}
	if busy < 2 {
		t.Errorf("only %d of 3 workers got packets", busy)
	}
}

// TestPortConfig: OFPPC_NO_RECV drops what a port receives (counted as
// received and as PortDrops), OFPPC_NO_FWD what is output to it (FLOOD
// copies too), OFPPC_NO_PACKET_IN the packet-ins of frames it received;
// clearing the bits restores each, and unknown ports are refused.
func TestPortConfig(t *testing.T) {
	frame := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), gopacket.Payload("hello, a payload long enough"))
	pipe := testPipeline(t, 1, rules.FilterBloomCuckoo, "priority=2,tcp,actions=flood,controller:64\npriority=1,actions=drop")
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}}
	devs := map[uint32]Port{}
	for n, p := range ports {
		devs[n] = p
	}
	pins := 0
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Devices: devs, PacketIn: func(*PacketIn) { pins++ }})
	send := func() {
		vec := &Vector{N: 1}
		vec.Frames[0], vec.Link[0], vec.InPort[0] = append([]byte(nil), frame...), layers.LinkTypeEthernet, 1
		sw.Worker(0).Process(vec)
	}
	got := func() (int, int, int) {
		n2, n3, p := len(ports[2].frames), len(ports[3].frames), pins
		ports[2].frames, ports[3].frames, pins = nil, nil, 0
		return n2, n3, p
	}
	for _, c := range []struct {
		name        string
		port, bits  uint32
		n2, n3, pin int
		drops       uint64 // PortDrops added
	}{
		{"none", 1, 0, 1, 1, 1, 0},
		{"port 3 NO_FWD", 3, PortNoFwd, 1, 0, 1, 1},
		{"port 1 NO_PACKET_IN", 1, PortNoPacketIn, 1, 0, 0, 2}, // port 3 still NO_FWD
		{"port 3 cleared", 3, 0, 1, 1, 0, 1},
		{"port 1 NO_RECV", 1, PortNoRecv | PortNoPacketIn, 0, 0, 0, 1},
		{"port 1 cleared", 1, 0, 1, 1, 1, 0},
	} {
		if !sw.SetPortConfig(c.port, c.bits) || sw.PortConfig(c.port) != c.bits {
			t.Fatalf("%s: SetPortConfig(%d, %#x) not taken", c.name, c.port, c.bits)
		}
		before := sw.Stats()
		send()
		after := sw.Stats()
		if n2, n3, p := got(); n2 != c.n2 || n3 != c.n3 || p != c.pin || after.PortDrops-before.PortDrops != c.drops {
			t.Errorf("%s: port 2 %d, port 3 %d frames, %d packet-ins, %d port drops; want %d, %d, %d, %d",
				c.name, n2, n3, p, after.PortDrops-before.PortDrops, c.n2, c.n3, c.pin, c.drops)
		}
	}
	if ps := sw.PortStats(); ps[0].RxPackets != 6 {
		t.Errorf("port 1 received %d frames, want 6 (NO_RECV drops after counting)", ps[0].RxPackets)
	}
	if sw.SetPortConfig(9, PortNoFwd) || sw.PortConfig(9) != 0 {
		t.Error("SetPortConfig of a port the switch lacks was taken")
	}
}
