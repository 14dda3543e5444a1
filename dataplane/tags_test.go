package dataplane

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"net"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// mplsLSE returns a label stack entry, written by gopacket.
func mplsLSE(label uint32, tc uint8, bos bool, ttl uint8) *layers.MPLS {
	return &layers.MPLS{Label: label, TrafficClass: tc, StackBottom: bos, TTL: ttl}
}

var payload = gopacket.Payload("hello, a payload long enough")

// pbbFrame returns a backbone frame (optionally B-tagged) around customer.
func pbbFrame(t testing.TB, btag bool, pcp uint8, uca bool, isid uint32, customer []byte) []byte {
	var ls []gopacket.SerializableLayer
	if btag {
		ls = append(ls, eth(layers.EthernetTypeQinQ), &layers.Dot1Q{VLANIdentifier: 10, Type: EtherTypePBB})
	} else {
		ls = append(ls, eth(EtherTypePBB))
	}
	ls = append(ls, gopacket.Payload(append(binary.BigEndian.AppendUint32(nil, uint32(pcp)<<29|isid|map[bool]uint32{true: 1 << 27}[uca]), customer[12:]...)))
	b := build(t, ls...)
	// The customer addresses follow the TCI: customer[:12].
	i := len(b) - len(customer[12:]) - 4
	return append(append(append([]byte(nil), b[:i+4]...), customer[:12]...), b[i+4:]...)
}

func TestParseMPLSPBB(t *testing.T) {
	cust := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload)
	for _, tt := range []struct {
		name  string
		frame []byte
		want  Headers
		match string // an ovs-ofctl match the key must satisfy
	}{
		{"mpls-ipv4", build(t, eth(layers.EthernetTypeMPLSUnicast), mplsLSE(100, 3, true, 64), ipv4(layers.IPProtocolTCP), tcp()),
			with(hEth(EtherTypeMPLS), func(h *Headers) { h.MPLSLabel, h.MPLSTC, h.MPLSBoS, h.MPLSTTL = 100, 3, 1, 64 }),
			"mpls,mpls_label=100,mpls_tc=3,mpls_bos=1"},
		{"mplsm-two-labels", build(t, eth(layers.EthernetTypeMPLSMulticast), mplsLSE(0xfffff, 7, false, 1), mplsLSE(5, 0, true, 2), payload),
			with(hEth(EtherTypeMPLSMC), func(h *Headers) { h.MPLSLabel, h.MPLSTC, h.MPLSTTL = 0xfffff, 7, 1 }),
			"mplsm,mpls_label=1048575,mpls_tc=7,mpls_bos=0"},
		{"vlan-mpls", build(t, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: 7, Priority: 2, Type: layers.EthernetTypeMPLSUnicast},
			mplsLSE(16, 1, true, 9), payload),
			with(hEth(EtherTypeMPLS), func(h *Headers) {
				h.VLANs, h.VLANVID[0], h.VLANPCP[0], h.VLANTPID[0] = 1, 7, 2, EtherTypeVLAN
				h.MPLSLabel, h.MPLSTC, h.MPLSBoS, h.MPLSTTL = 16, 1, 1, 9
			}),
			"mpls,dl_vlan=7,mpls_label=16,mpls_bos=1"},
		{"pbb", pbbFrame(t, false, 3, true, 100, cust),
			with(hEth(EtherTypePBB), func(h *Headers) { h.PBBISID, h.PBBUCA = 100, 1 }),
			"dl_type=0x88e7,pbb_isid=100,pbb_uca=1"},
		{"btag-pbb", pbbFrame(t, true, 0, false, 0xabcdef, cust),
			with(hEth(EtherTypePBB), func(h *Headers) {
				h.VLANs, h.VLANVID[0], h.VLANTPID[0] = 1, 10, EtherTypeQinQ
				h.PBBISID = 0xabcdef
			}),
			"dl_type=0x88e7,dl_vlan=10,pbb_isid=0xabcd00/0xffff00,pbb_uca=0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser()
			h, ok := p.Parse(tt.frame, layers.LinkTypeEthernet, 3)
			if !ok {
				t.Fatalf("not parsed: %v", p.Stats.String())
			}
			if *h != tt.want {
				t.Errorf("headers\n got %+v\nwant %+v", *h, tt.want)
			}
			var k rules.Key
			h.Key(&k)
			u, err := ofctl.ParseFlow(tt.match + ",actions=drop")
			if err != nil {
				t.Fatal(err)
			}
			if !u.Match.Matches(&k) {
				t.Errorf("key %v does not match %s", k, tt.match)
			}
			if p.Stats.Kinds[KindOtherL2] != 1 {
				t.Errorf("kinds: %v", p.Stats.String())
			}
		})
	}
	for _, tt := range []struct {
		name   string
		frame  []byte
		reason Reason
	}{
		// (build pads to 60 bytes: cut the frames after what they carry.)
		{"mpls-3-bytes", build(t, eth(layers.EthernetTypeMPLSUnicast), gopacket.Payload{1, 2, 3})[:17], ReasonMPLS},
		{"mpls-empty", build(t, eth(layers.EthernetTypeMPLSMulticast))[:14], ReasonMPLS},
		{"vlan-mpls-short", build(t, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{Type: layers.EthernetTypeMPLSUnicast}, gopacket.Payload{0})[:19], ReasonMPLS},
		{"pbb-tci-only", build(t, eth(EtherTypePBB), gopacket.Payload{0, 0, 0, 1})[:18], ReasonPBB},
		{"pbb-15-bytes", build(t, eth(EtherTypePBB), gopacket.Payload(make([]byte, 15)))[:29], ReasonPBB},
	} {
		p := NewParser()
		if _, ok := p.Parse(tt.frame, layers.LinkTypeEthernet, 3); ok || p.Stats.Malformed[tt.reason] != 1 {
			t.Errorf("%s: ok=%v, stats %v; want malformed:%v", tt.name, ok, p.Stats.String(), tt.reason)
		}
	}
}

// tagRun sends frame in through a switch with flows on ports 1-3 and
// returns what each port transmitted and the counters.
func tagRun(t *testing.T, tables int, flows string, in []byte) (map[uint32][][]byte, Counters) {
	t.Helper()
	pipe := testPipeline(t, tables, rules.FilterBloomCuckoo, flows)
	ports := map[uint32]*recPort{1: {}, 2: {}, 3: {}}
	devs := map[uint32]Port{}
	for n, p := range ports {
		devs[n] = p
	}
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}, Devices: devs})
	frame := append([]byte(nil), in...)
	vec := &Vector{N: 1}
	vec.Frames[0], vec.Link[0], vec.InPort[0] = frame, layers.LinkTypeEthernet, 1
	sw.Worker(0).Process(vec)
	if !bytes.Equal(frame, in) {
		t.Error("the input frame was modified")
	}
	out := map[uint32][][]byte{}
	for n, p := range ports {
		if len(p.frames) > 0 {
			out[n] = p.frames
		}
	}
	return out, sw.Stats()
}

// TestMPLSPBBActions runs every MPLS, PBB and TTL-copy action on frames
// like those of Ryu's test suite and compares the bytes that leave with
// frames gopacket builds (with valid checksums), in apply-actions, across
// tables (a push or pop changes what the next table matches) and in the
// action set, whose order is §5.10's.
func TestMPLSPBBActions(t *testing.T) {
	v4 := func(ttl uint8) []gopacket.SerializableLayer {
		ip := ipv4(layers.IPProtocolTCP)
		ip.TTL = ttl
		return []gopacket.SerializableLayer{ip, tcp(), payload}
	}
	v6 := func(hl uint8) []gopacket.SerializableLayer {
		ip := ipv6(layers.IPProtocolTCP)
		ip.HopLimit = hl
		return []gopacket.SerializableLayer{ip, tcp(), payload}
	}
	arp := []gopacket.SerializableLayer{&layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4,
		HwAddressSize: 6, ProtAddressSize: 4, Operation: 1, SourceHwAddress: macA, SourceProtAddress: ip4A,
		DstHwAddress: macB, DstProtAddress: ip4B}, gopacket.Payload(make([]byte, 18))}
	f := func(et layers.EthernetType, lses []*layers.MPLS, rest []gopacket.SerializableLayer) []byte {
		ls := []gopacket.SerializableLayer{eth(et)}
		for _, l := range lses {
			ls = append(ls, l)
		}
		return build(t, append(ls, rest...)...)
	}
	mpls := layers.EthernetTypeMPLSUnicast
	lse := mplsLSE
	one := func(l *layers.MPLS) []*layers.MPLS { return []*layers.MPLS{l} }
	two := func(a, b *layers.MPLS) []*layers.MPLS { return []*layers.MPLS{a, b} }
	plain4 := f(layers.EthernetTypeIPv4, nil, v4(64))
	vlan4 := build(t, append([]gopacket.SerializableLayer{eth(layers.EthernetTypeDot1Q),
		&layers.Dot1Q{VLANIdentifier: 7, Priority: 5, Type: layers.EthernetTypeIPv4}}, v4(64)...)...)
	vlanMPLS := build(t, append([]gopacket.SerializableLayer{eth(layers.EthernetTypeDot1Q),
		&layers.Dot1Q{VLANIdentifier: 7, Priority: 5, Type: layers.EthernetTypeMPLSUnicast}, lse(0, 0, true, 64)}, v4(64)...)...)
	// A PBB frame around a C-tagged customer frame, as Ryu's pop_pbb sends.
	cust := build(t, append([]gopacket.SerializableLayer{eth(layers.EthernetTypeDot1Q),
		&layers.Dot1Q{VLANIdentifier: 100, Priority: 3, Type: layers.EthernetTypeIPv4}}, v4(64)...)...)
	pushed := func(pcp uint8, isid uint32, c []byte) []byte {
		b := append(append([]byte(nil), c[:12]...), 0x88, 0xe7)
		b = binary.BigEndian.AppendUint32(b, uint32(pcp)<<29|isid)
		return append(b, c...)
	}

	for _, tt := range []struct {
		name   string
		tables int
		flows  string
		in     []byte
		want   []byte // on port 2; nil: nothing sent
		check  func(t *testing.T, c *Counters)
	}{
		{name: "push_mpls-ipv4", flows: "ip,actions=push_mpls:0x8847,output:2", in: plain4,
			want: f(mpls, one(lse(0, 0, true, 64)), v4(64))},
		{name: "push_mpls-ipv6", flows: "ipv6,actions=push_mpls:0x8847,output:2", in: f(layers.EthernetTypeIPv6, nil, v6(33)),
			want: f(mpls, one(lse(0, 0, true, 33)), v6(33))},
		{name: "push_mpls-arp-ttl-0", flows: "arp,actions=push_mpls:0x8848,output:2", in: f(layers.EthernetTypeARP, nil, arp),
			want: f(layers.EthernetTypeMPLSMulticast, one(lse(0, 0, true, 0)), arp)},
		{name: "push_mpls-on-label", flows: "mpls,actions=push_mpls:0x8847,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v4(64)),
			want: f(mpls, two(lse(100, 3, false, 64), lse(100, 3, true, 64)), v4(64))},
		{name: "push_mpls-after-vlan", flows: "ip,actions=push_mpls:0x8847,output:2", in: vlan4, want: vlanMPLS},
		{name: "pop_mpls-ipv4", flows: "mpls,actions=pop_mpls:0x0800,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v4(64)), want: plain4},
		{name: "pop_mpls-ipv6", flows: "mpls,actions=pop_mpls:0x86dd,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v6(9)),
			want: f(layers.EthernetTypeIPv6, nil, v6(9))},
		{name: "pop_mpls-arp", flows: "mpls,actions=pop_mpls:0x0806,output:2", in: f(mpls, one(lse(100, 3, true, 64)), arp),
			want: f(layers.EthernetTypeARP, nil, arp)},
		{name: "pop_mpls-vlan", flows: "mpls,actions=pop_mpls:0x0800,output:2", in: vlanMPLS, want: vlan4},
		{name: "pop_mpls-not-mpls", flows: "ip,actions=pop_mpls:0x0800,set_mpls_ttl(3),dec_mpls_ttl,copy_ttl_in,copy_ttl_out," +
			"pop_pbb,output:2", in: plain4, want: plain4,
			check: func(t *testing.T, c *Counters) {
				if c.Skipped != 6 || c.Rewrites != 0 {
					t.Errorf("skipped %d rewrites %d, want 6 and 0", c.Skipped, c.Rewrites)
				}
			}},
		{name: "pop-then-next-table", tables: 2, flows: "table=0,mpls,actions=pop_mpls:0x0800,goto_table:1\n" +
			"table=1,tcp,nw_src=10.0.0.1,tp_dst=443,actions=set_field:9.9.9.9->ip_dst,output:2\ntable=1,priority=0,actions=output:3",
			in: f(mpls, one(lse(1, 0, true, 64)), v4(64)), want: func() []byte {
				ip := ipv4(layers.IPProtocolTCP)
				ip.TTL, ip.DstIP = 64, net.IP{9, 9, 9, 9}
				return build(t, eth(layers.EthernetTypeIPv4), ip, tcp(), payload)
			}()},
		{name: "push-then-next-table", tables: 2, flows: "table=0,ip,actions=push_mpls:0x8847,goto_table:1\n" +
			"table=1,mpls,mpls_label=0,mpls_bos=1,actions=set_field:77->mpls_label,set_field:5->mpls_tc,output:2\ntable=1,priority=0,actions=output:3",
			in: plain4, want: f(mpls, one(lse(77, 5, true, 64)), v4(64))},
		{name: "set_mpls_ttl", flows: "mpls,actions=set_mpls_ttl(127),output:2", in: f(mpls, one(lse(100, 3, true, 64)), arp),
			want: f(mpls, one(lse(100, 3, true, 127)), arp)},
		{name: "dec_mpls_ttl", flows: "mpls,actions=dec_mpls_ttl,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v6(64)),
			want: f(mpls, one(lse(100, 3, true, 63)), v6(64))},
		{name: "dec_mpls_ttl-expired", flows: "mpls,actions=dec_mpls_ttl,output:2", in: f(mpls, one(lse(100, 3, true, 1)), v4(64)),
			check: func(t *testing.T, c *Counters) {
				if c.TTLExpired != 1 || c.Drops != 1 {
					t.Errorf("ttl expired %d drops %d", c.TTLExpired, c.Drops)
				}
			}},
		{name: "dec_mpls_ttl-zero", flows: "mpls,actions=dec_mpls_ttl,output:2", in: f(mpls, one(lse(100, 3, true, 0)), v4(64)),
			check: func(t *testing.T, c *Counters) {
				if c.TTLExpired != 1 {
					t.Errorf("ttl expired %d", c.TTLExpired)
				}
			}},
		{name: "set_field-mpls", flows: "mpls,mpls_label=100,actions=set_field:203->mpls_label,set_field:5->mpls_tc,set_field:0->mpls_bos,output:2",
			in: f(mpls, one(lse(100, 3, true, 64)), v4(64)), want: f(mpls, one(lse(203, 5, false, 64)), v4(64))},
		{name: "copy_ttl_out-ipv4", flows: "mpls,actions=copy_ttl_out,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v4(32)),
			want: f(mpls, one(lse(100, 3, true, 32)), v4(32))},
		{name: "copy_ttl_out-ipv6", flows: "mpls,actions=copy_ttl_out,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v6(32)),
			want: f(mpls, one(lse(100, 3, true, 32)), v6(32))},
		{name: "copy_ttl_out-label", flows: "mpls,actions=copy_ttl_out,output:2", in: f(mpls, two(lse(1, 0, false, 64), lse(2, 0, true, 9)), v4(32)),
			want: f(mpls, two(lse(1, 0, false, 9), lse(2, 0, true, 9)), v4(32))},
		{name: "copy_ttl_in-ipv4", flows: "mpls,actions=copy_ttl_in,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v4(32)),
			want: f(mpls, one(lse(100, 3, true, 64)), v4(64))},
		{name: "copy_ttl_in-ipv6", flows: "mpls,actions=copy_ttl_in,output:2", in: f(mpls, one(lse(100, 3, true, 64)), v6(32)),
			want: f(mpls, one(lse(100, 3, true, 64)), v6(64))},
		{name: "copy_ttl_in-label", flows: "mpls,actions=copy_ttl_in,output:2", in: f(mpls, two(lse(1, 0, false, 64), lse(2, 0, true, 9)), v4(32)),
			want: f(mpls, two(lse(1, 0, false, 64), lse(2, 0, true, 64)), v4(32))},
		{name: "copy_ttl-arp-skipped", flows: "mpls,actions=copy_ttl_in,copy_ttl_out,output:2", in: f(mpls, one(lse(100, 3, true, 64)), arp),
			want: f(mpls, one(lse(100, 3, true, 64)), arp)},
		{name: "push_pbb", flows: "ip,actions=push_pbb:0x88e7,output:2", in: plain4, want: pushed(0, 0, plain4)},
		{name: "push_pbb-twice", flows: "ip,actions=push_pbb:0x88e7,set_field:0xabcdef->pbb_isid,push_pbb:0x88e7,output:2", in: plain4,
			want: pushed(0, 0xabcdef, pushed(0, 0xabcdef, plain4))},
		{name: "push_pbb-vlan-pcp", flows: "ip,actions=push_pbb:0x88e7,output:2", in: vlan4, want: pushed(5, 0, vlan4)},
		{name: "pop_pbb", flows: "dl_type=0x88e7,actions=pop_pbb,output:2", in: pbbFrame(t, false, 0, false, 100, cust), want: cust},
		{name: "pop_pbb-btag", flows: "dl_type=0x88e7,actions=pop_pbb,output:2", in: pbbFrame(t, true, 0, false, 100, cust), want: cust},
		{name: "set_field-pbb_isid", flows: "dl_type=0x88e7,pbb_isid=100,actions=set_field:203->pbb_isid,output:2",
			in: pbbFrame(t, true, 3, true, 100, cust), want: pbbFrame(t, true, 3, true, 203, cust)},
		{name: "set_field-pbb_uca", tables: 2, flows: "table=0,dl_type=0x88e7,pbb_uca=1,actions=set_field:0->pbb_uca,goto_table:1\n" +
			"table=1,dl_type=0x88e7,pbb_uca=0,pbb_isid=100,actions=output:2",
			in: pbbFrame(t, false, 3, true, 100, cust), want: pbbFrame(t, false, 3, false, 100, cust)},
		{name: "pbb-then-next-table", tables: 2, flows: "table=0,dl_type=0x88e7,actions=pop_pbb,goto_table:1\n" +
			"table=1,ip,dl_vlan=100,actions=pop_vlan,output:2\ntable=1,priority=0,actions=output:3",
			in: pbbFrame(t, false, 0, false, 100, cust), want: plain4},
		// The action set: copy TTL in, pop, push MPLS, push PBB, push
		// VLAN, copy TTL out, decrement, set, output (§5.10), whatever
		// order write_actions lists them in.
		{name: "action-set-order", flows: "mpls,actions=write_actions(output:2,set_mpls_ttl(200),dec_mpls_ttl,push_mpls:0x8847,copy_ttl_in)",
			in: f(mpls, one(lse(100, 3, true, 64)), v4(32)), want: f(mpls, two(lse(100, 3, false, 200), lse(100, 3, true, 64)), v4(64))},
		{name: "action-set-push-order", flows: "ip,actions=write_actions(output:2,push_vlan:0x8100,push_pbb:0x88e7,push_mpls:0x8847,set_field:9->mpls_label,copy_ttl_out)",
			in: plain4, want: func() []byte {
				inner := f(mpls, one(lse(0, 0, true, 64)), v4(64))
				p := pushed(0, 0, inner)
				// push_vlan after push_pbb tags the backbone frame; then
				// set_field on mpls_label finds no label: the outer header is PBB.
				return append(append(append([]byte(nil), p[:12]...), 0x81, 0x00, 0, 0), p[12:]...)
			}()},
		{name: "action-set-pops", flows: "dl_type=0x88e7,actions=write_actions(pop_mpls:0x0800,pop_pbb,pop_vlan,output:2)",
			in: pbbFrame(t, true, 0, false, 100, f(mpls, one(lse(1, 0, true, 5)), v4(64))), want: plain4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, c := tagRun(t, max(tt.tables, 1), tt.flows, tt.in)
			var want map[uint32][][]byte
			if tt.want != nil {
				want = map[uint32][][]byte{2: {tt.want}}
			}
			if len(out) != len(want) || (tt.want != nil && (len(out[2]) != 1 || !bytes.Equal(out[2][0], tt.want))) {
				t.Errorf("sent %d ports", len(out))
				for n, fs := range out {
					for _, fr := range fs {
						t.Errorf("port %d: %s", n, hex.EncodeToString(fr))
					}
				}
				if tt.want != nil {
					t.Errorf("want 2: %s", hex.EncodeToString(tt.want))
				}
			}
			if c.Panics != 0 {
				t.Errorf("%d panics", c.Panics)
			}
			if tt.check != nil {
				tt.check(t, &c)
			}
		})
	}
}

// TestMPLSPBBActionsAllocateNothing: pushes, pops and TTL rewrites of a
// vector of frames allocate nothing once the worker's buffers exist.
func TestMPLSPBBActionsAllocateNothing(t *testing.T) {
	pipe := testPipeline(t, 2, rules.FilterBloomCuckoo, "table=0,ip,actions=push_mpls:0x8847,copy_ttl_out,dec_mpls_ttl,push_pbb:0x88e7,goto_table:1\n"+
		"table=0,mpls,actions=copy_ttl_in,pop_mpls:0x0800,set_field:7->ip_dscp,output:2\n"+
		"table=1,dl_type=0x88e7,actions=set_field:5->pbb_isid,pop_pbb,write_actions(pop_mpls:0x0800,output:3)")
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3}})
	ip := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload)
	lbl := build(t, eth(layers.EthernetTypeMPLSUnicast), mplsLSE(3, 0, true, 9), ipv4(layers.IPProtocolTCP), tcp(), payload)
	if n := vectorAllocs(sw.Worker(0), [][]byte{ip, lbl}); n != 0 {
		t.Errorf("%v allocs per vector, want 0", n)
	}
	c := sw.Stats()
	// One run, AllocsPerRun's warm-up and 20.
	if c.Outputs != 22*VectorSize || c.Skipped != 0 || c.Panics != 0 {
		t.Errorf("counters %+v", c)
	}
}

// FuzzMPLSPBB feeds arbitrary frames to the parser and, through a switch
// whose flows (one per ingress port) use every MPLS, PBB and TTL-copy
// action, to the actions. The parser must report a label or I-TAG that is
// where the frame has it, and the actions must never panic, never modify
// the input, and leave frames that still start with an Ethernet header.
func FuzzMPLSPBB(f *testing.F) {
	cust := build(f, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload)
	for _, fr := range [][]byte{
		build(f, eth(layers.EthernetTypeMPLSUnicast), mplsLSE(100, 3, true, 64), ipv4(layers.IPProtocolTCP), tcp(), payload),
		build(f, eth(layers.EthernetTypeMPLSMulticast), mplsLSE(1, 7, false, 1), mplsLSE(2, 0, true, 0), ipv6(layers.IPProtocolUDP), udp()),
		build(f, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: 7, Type: layers.EthernetTypeMPLSUnicast}, mplsLSE(16, 1, true, 9)),
		pbbFrame(f, false, 3, true, 100, cust),
		pbbFrame(f, true, 0, false, 0xabcdef, cust),
		cust,
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x88, 0x47, 0, 0, 1},
	} {
		for port := range byte(8) {
			f.Add(port, fr)
		}
	}
	flows := []string{
		"in_port=1,actions=push_mpls:0x8847,copy_ttl_out,copy_ttl_in,dec_mpls_ttl,output:2",
		"in_port=2,actions=pop_mpls:0x0800,pop_mpls:0x8847,output:3",
		"in_port=3,actions=push_pbb:0x88e7,push_pbb:0x88e7,pop_pbb,output:2",
		"in_port=4,actions=pop_pbb,pop_pbb,output:2",
		"in_port=5,mpls,actions=set_mpls_ttl(0),set_field:0->mpls_bos,copy_ttl_in,copy_ttl_out,output:2",
		"in_port=5,dl_type=0x88e7,actions=set_field:3->pbb_isid,set_field:1->pbb_uca,output:2",
		"in_port=6,actions=pop_vlan,pop_mpls:0x86dd,push_vlan:0x88a8,push_mpls:0x8848,output:2",
		"in_port=7,actions=write_actions(pop_pbb,pop_mpls:0x0800,dec_ttl,push_mpls:0x8847,push_pbb:0x88e7,push_vlan:0x8100,copy_ttl_in,copy_ttl_out,dec_mpls_ttl,output:2)",
		"in_port=8,actions=pop_mpls:0x0800,dec_ttl,set_field:10.0.0.9->ip_dst,output:2",
	}
	pipe := testPipeline(f, 1, rules.FilterBloomCuckoo, strings.Join(flows, "\n"))
	sent := &recPort{}
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2, 3, 4, 5, 6, 7, 8}, Devices: map[uint32]Port{2: sent, 3: sent}})
	w := sw.Worker(0)
	p := NewParser()
	vec := &Vector{N: 1}
	f.Fuzz(func(t *testing.T, port byte, frame []byte) {
		h, ok := p.Parse(frame, layers.LinkTypeEthernet, 7)
		if ok {
			off := 14 + 4*int(h.VLANs)
			switch h.EthType {
			case EtherTypeMPLS, EtherTypeMPLSMC:
				lse := binary.BigEndian.Uint32(frame[off:])
				if h.MPLSLabel != lse>>12 || h.MPLSTTL != uint8(lse) || h.MPLSBoS != uint8(lse>>8)&1 || h.MPLSTC != uint8(lse>>9)&7 {
					t.Fatalf("label %+v, frame has %08x at %d", h, lse, off)
				}
			case EtherTypePBB:
				if tci := binary.BigEndian.Uint32(frame[off:]); h.PBBISID != tci&0xffffff || len(frame) < off+16 {
					t.Fatalf("I-TAG %+v, frame has %08x at %d (%d bytes)", h, tci, off, len(frame))
				}
			}
		}
		in := append([]byte(nil), frame...)
		sent.frames = sent.frames[:0]
		before := sw.Stats()
		vec.Frames[0], vec.Link[0], vec.InPort[0] = in, layers.LinkTypeEthernet, uint32(port%8)+1
		w.Process(vec)
		if !bytes.Equal(in, frame) {
			t.Fatal("the input frame was modified")
		}
		if c := sw.Stats(); c.Panics != before.Panics {
			t.Fatal("an action panicked")
		}
		for _, out := range sent.frames {
			if len(out) < 14 || (len(out)-len(frame))%2 != 0 {
				t.Fatalf("sent %d bytes for %d: %x", len(out), len(frame), out)
			}
		}
	})
}

// TestPacketOutMPLSPBB: a PACKET_OUT's actions may push, pop and rewrite
// labels and I-TAGs as a flow's may; the frame given is not modified.
func TestPacketOutMPLSPBB(t *testing.T) {
	pipe := testPipeline(t, 1, rules.FilterBloomCuckoo, "priority=0,actions=drop")
	sent := &recPort{}
	sw := NewSwitch(pipe, &Config{Ports: []uint32{1, 2}, Devices: map[uint32]Port{2: sent}})
	in := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), payload)
	keep := append([]byte(nil), in...)
	acts := []rules.Action{{Kind: rules.ActionPushMPLS, EthType: EtherTypeMPLS}, {Kind: rules.ActionSetMPLSTTL, TTL: 7},
		{Kind: rules.ActionSetField, Field: rules.FieldMPLSLabel, Value: [2]uint64{0, 99}}, {Kind: rules.ActionCopyTTLIn},
		{Kind: rules.ActionPushPBB, EthType: EtherTypePBB}, {Kind: rules.ActionPopPBB}, {Kind: rules.ActionOutput, Port: 2}}
	if err := sw.PacketOut(rules.PortController, acts, in); err != nil {
		t.Fatal(err)
	}
	ip := ipv4(layers.IPProtocolTCP)
	ip.TTL = 7
	want := build(t, eth(layers.EthernetTypeMPLSUnicast), mplsLSE(99, 0, true, 7), ip, tcp(), payload)
	if len(sent.frames) != 1 || !bytes.Equal(sent.frames[0], want) {
		t.Errorf("sent %x\nwant %x", sent.frames, want)
	}
	if !bytes.Equal(in, keep) {
		t.Error("the frame given was modified")
	}
}
