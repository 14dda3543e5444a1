package dataplane

import (
	"encoding/binary"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

var (
	macA = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x0a}
	macB = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x0b}
	ip4A = net.IP{10, 0, 0, 1}
	ip4B = net.IP{192, 168, 7, 9}
	ip6A = net.ParseIP("2001:db8::1")
	ip6B = net.ParseIP("fe80::abcd:2")
)

// build serializes ls with gopacket (an encoder independent of the parser),
// fixing lengths and checksums.
func build(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	for _, l := range ls {
		switch l4 := l.(type) {
		case *layers.TCP:
			for _, n := range ls {
				if nl, ok := n.(gopacket.NetworkLayer); ok {
					_ = l4.SetNetworkLayerForChecksum(nl)
				}
			}
		case *layers.UDP:
			for _, n := range ls {
				if nl, ok := n.(gopacket.NetworkLayer); ok {
					_ = l4.SetNetworkLayerForChecksum(nl)
				}
			}
		case *layers.ICMPv6:
			for _, n := range ls {
				if nl, ok := n.(gopacket.NetworkLayer); ok {
					_ = l4.SetNetworkLayerForChecksum(nl)
				}
			}
		}
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		t.Fatalf("serialize %v: %v", ls, err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

func eth(t layers.EthernetType) *layers.Ethernet {
	return &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: t}
}

func ipv4(p layers.IPProtocol) *layers.IPv4 {
	return &layers.IPv4{Version: 4, TTL: 61, TOS: 0xb9, Protocol: p, SrcIP: ip4A, DstIP: ip4B, Id: 7}
}

func ipv6(next layers.IPProtocol) *layers.IPv6 {
	return &layers.IPv6{Version: 6, TrafficClass: 0x2e, FlowLabel: 0xabcde, NextHeader: next, HopLimit: 9, SrcIP: ip6A, DstIP: ip6B}
}

func tcp() *layers.TCP {
	return &layers.TCP{SrcPort: 4321, DstPort: 443, SYN: true, ACK: true, Window: 1000, DataOffset: 5}
}

func udp() *layers.UDP { return &layers.UDP{SrcPort: 53, DstPort: 33333} }

// Expected header skeletons.
func hEth(t uint16) Headers {
	var h Headers
	h.InPort = 3
	copy(h.EthSrc[:], macA)
	copy(h.EthDst[:], macB)
	h.EthType = t
	return h
}

func hIPv4(l3 uint16, proto uint8) Headers {
	h := hEth(EtherTypeIPv4)
	h.L3Off = l3
	h.IPProto, h.IPTTL, h.IPDSCP, h.IPECN = proto, 61, 0xb9>>2, 1
	h.IPv4Src, h.IPv4Dst = [4]byte{10, 0, 0, 1}, [4]byte{192, 168, 7, 9}
	return h
}

func hIPv6(l3 uint16, proto uint8) Headers {
	h := hEth(EtherTypeIPv6)
	h.L3Off = l3
	h.IPProto, h.IPTTL, h.IPDSCP, h.IPECN, h.IPv6Label = proto, 9, 0x2e>>2, 2, 0xabcde
	copy(h.IPv6Src[:], ip6A.To16())
	copy(h.IPv6Dst[:], ip6B.To16())
	return h
}

func with(h Headers, f func(*Headers)) Headers { f(&h); return h }

// ext returns an IPv6 extension header of 8*n bytes (n ≥ 1) in the
// hop-by-hop/routing/destination-options layout, padded with PadN.
func ext(next layers.IPProtocol, n int) []byte {
	b := make([]byte, 8*n)
	b[0], b[1] = byte(next), byte(n-1)
	b[2], b[3] = 1, byte(8*n-4) // PadN
	return b
}

func fragHdr(next layers.IPProtocol, off uint16, more bool) []byte {
	fo := off << 3
	if more {
		fo |= 1
	}
	return []byte{byte(next), 0, byte(fo >> 8), byte(fo), 0, 0, 0x12, 0x34}
}

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func TestParseFields(t *testing.T) {
	ipOpts := ipv4(layers.IPProtocolTCP)
	ipOpts.Options = []layers.IPv4Option{{OptionType: 7, OptionLength: 7, OptionData: []byte{4, 1, 2, 3, 4}}} // record route
	fragFirst := ipv4(layers.IPProtocolUDP)
	fragFirst.Flags = layers.IPv4MoreFragments
	fragLater := ipv4(layers.IPProtocolUDP)
	fragLater.FragOffset = 185
	tcpOpts := tcp()
	tcpOpts.Options = []layers.TCPOption{{OptionType: layers.TCPOptionKindMSS, OptionLength: 4, OptionData: []byte{5, 0xb4}}}
	tcpOpts.FIN, tcpOpts.PSH, tcpOpts.NS = true, true, true

	tests := []struct {
		name  string
		frame []byte
		link  layers.LinkType
		want  Headers
	}{{
		name:  "ipv4 tcp",
		frame: build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp(), gopacket.Payload("hello")),
		want: with(hIPv4(14, 6), func(h *Headers) {
			h.L4Off, h.L4Src, h.L4Dst, h.TCPFlags = 34, 4321, 443, 0x012
		}),
	}, {
		name:  "ipv4 options, tcp options and flags",
		frame: build(t, eth(layers.EthernetTypeIPv4), ipOpts, tcpOpts),
		want: with(hIPv4(14, 6), func(h *Headers) {
			h.L4Off, h.L4Src, h.L4Dst, h.TCPFlags = 42, 4321, 443, 0x11b
		}),
	}, {
		name: "802.1Q ipv4 udp",
		frame: build(t, eth(layers.EthernetTypeDot1Q),
			&layers.Dot1Q{Priority: 5, VLANIdentifier: 100, Type: layers.EthernetTypeIPv4},
			ipv4(layers.IPProtocolUDP), udp(), gopacket.Payload("x")),
		want: with(hIPv4(18, 17), func(h *Headers) {
			h.VLANs, h.VLANVID[0], h.VLANPCP[0], h.VLANTPID[0] = 1, 100, 5, EtherTypeVLAN
			h.L4Off, h.L4Src, h.L4Dst = 38, 53, 33333
		}),
	}, {
		name: "QinQ 802.1ad then 802.1Q, ARP",
		frame: build(t, eth(layers.EthernetTypeQinQ),
			&layers.Dot1Q{Priority: 1, VLANIdentifier: 2001, Type: layers.EthernetTypeDot1Q},
			&layers.Dot1Q{Priority: 6, VLANIdentifier: 7, Type: layers.EthernetTypeARP},
			&layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6,
				ProtAddressSize: 4, Operation: 2, SourceHwAddress: macA, SourceProtAddress: ip4A,
				DstHwAddress: macB, DstProtAddress: ip4B}),
		want: with(hEth(EtherTypeARP), func(h *Headers) {
			h.VLANs = 2
			h.VLANVID, h.VLANPCP, h.VLANTPID = [2]uint16{2001, 7}, [2]uint8{1, 6}, [2]uint16{EtherTypeQinQ, EtherTypeVLAN}
			h.L3Off, h.ARPOp = 22, 2
			copy(h.ARPSha[:], macA)
			copy(h.ARPTha[:], macB)
			h.ARPSpa, h.ARPTpa = [4]byte{10, 0, 0, 1}, [4]byte{192, 168, 7, 9}
		}),
	}, {
		name: "triple tag icmp",
		frame: build(t, eth(layers.EthernetTypeQinQ),
			&layers.Dot1Q{VLANIdentifier: 10, Type: layers.EthernetTypeQinQ},
			&layers.Dot1Q{VLANIdentifier: 20, Type: layers.EthernetTypeDot1Q},
			&layers.Dot1Q{VLANIdentifier: 30, Type: layers.EthernetTypeIPv4},
			ipv4(layers.IPProtocolICMPv4), &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(8, 0), Id: 1, Seq: 2}),
		want: with(hIPv4(26, 1), func(h *Headers) {
			h.VLANs = 3
			h.VLANVID, h.VLANTPID = [2]uint16{10, 20}, [2]uint16{EtherTypeQinQ, EtherTypeQinQ}
			h.L4Off, h.ICMPType = 46, 8
		}),
	}, {
		name:  "ipv4 first fragment has ports",
		frame: build(t, eth(layers.EthernetTypeIPv4), fragFirst, udp(), gopacket.Payload(make([]byte, 64))),
		want: with(hIPv4(14, 17), func(h *Headers) {
			h.Frag, h.L4Off, h.L4Src, h.L4Dst = FragAny, 34, 53, 33333
		}),
	}, {
		name:  "ipv4 later fragment has none",
		frame: build(t, eth(layers.EthernetTypeIPv4), fragLater, gopacket.Payload(make([]byte, 64))),
		want:  with(hIPv4(14, 17), func(h *Headers) { h.Frag = FragAny | FragLater }),
	}, {
		name:  "ipv4 other protocol (GRE)",
		frame: build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolGRE), gopacket.Payload(make([]byte, 8))),
		want:  hIPv4(14, 47),
	}, {
		name: "ipv4 sctp",
		frame: build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolSCTP),
			&layers.SCTP{SrcPort: 2905, DstPort: 2906, VerificationTag: 9}),
		want: with(hIPv4(14, 132), func(h *Headers) { h.L4Off, h.L4Src, h.L4Dst = 34, 2905, 2906 }),
	}, {
		name:  "ipv6 tcp",
		frame: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolTCP), tcp()),
		want:  with(hIPv6(14, 6), func(h *Headers) { h.L4Off, h.L4Src, h.L4Dst, h.TCPFlags = 54, 4321, 443, 0x012 }),
	}, {
		name: "ipv6 hop-by-hop, routing, destination options, udp",
		frame: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolIPv6HopByHop),
			gopacket.Payload(cat(ext(layers.IPProtocolIPv6Routing, 1), ext(layers.IPProtocolIPv6Destination, 3),
				ext(layers.IPProtocolUDP, 2))), udp()),
		want: with(hIPv6(14, 17), func(h *Headers) {
			h.L4Off, h.L4Src, h.L4Dst = 54+8+24+16, 53, 33333
			h.IPv6Exthdr = ExthdrHop | ExthdrRouter | ExthdrDest
		}),
	}, {
		name: "ipv6 first fragment icmpv6",
		frame: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolIPv6Fragment),
			gopacket.Payload(cat(fragHdr(layers.IPProtocolICMPv6, 0, true), []byte{128, 0, 0, 0, 0, 1, 0, 1}))),
		want: with(hIPv6(14, 58), func(h *Headers) { h.Frag, h.L4Off, h.ICMPType, h.IPv6Exthdr = FragAny, 62, 128, ExthdrFrag }),
	}, {
		name: "ipv6 later fragment",
		frame: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolIPv6Fragment),
			gopacket.Payload(cat(fragHdr(layers.IPProtocolTCP, 100, false), make([]byte, 40)))),
		want: with(hIPv6(14, 6), func(h *Headers) { h.Frag, h.IPv6Exthdr = FragAny|FragLater, ExthdrFrag }),
	}, {
		name: "ipv6 atomic fragment then hop-by-hop is walked",
		frame: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolIPv6Fragment),
			gopacket.Payload(fragHdr(layers.IPProtocolTCP, 0, false)), tcp()),
		want: with(hIPv6(14, 6), func(h *Headers) {
			h.Frag, h.L4Off, h.L4Src, h.L4Dst, h.TCPFlags, h.IPv6Exthdr = FragAny, 62, 4321, 443, 0x12, ExthdrFrag
		}),
	}, {
		name:  "ipv6 no next header",
		frame: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolNoNextHeader)),
		want:  with(hIPv6(14, 59), func(h *Headers) { h.IPv6Exthdr = ExthdrNoNext }),
	}, {
		name: "icmpv6 echo",
		frame: build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolICMPv6),
			&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(135, 0)}, gopacket.Payload(make([]byte, 20))),
		want: with(hIPv6(14, 58), func(h *Headers) { h.L4Off, h.ICMPType = 54, 135 }),
	}, {
		name: "ethernet padding after a short ipv4 packet is not L4",
		frame: cat(build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), udp()),
			[]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8}),
		want: with(hIPv4(14, 17), func(h *Headers) { h.L4Off, h.L4Src, h.L4Dst = 34, 53, 33333 }),
	}, {
		name:  "LLDP is L2 only",
		frame: build(t, eth(layers.EthernetTypeLinkLayerDiscovery), gopacket.Payload(make([]byte, 30))),
		want:  hEth(0x88cc),
	}, {
		name:  "802.3 length frame",
		frame: build(t, &layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: layers.EthernetTypeLLC, Length: 30}, gopacket.Payload(make([]byte, 30))),
		want:  hEth(EtherTypeNone),
	}, {
		name:  "BSD loopback (DLT_NULL, little endian) ipv6 tcp",
		frame: cat([]byte{30, 0, 0, 0}, build(t, ipv6(layers.IPProtocolTCP), tcp())),
		link:  layers.LinkTypeNull,
		want: with(hIPv6(4, 6), func(h *Headers) {
			h.EthSrc, h.EthDst = [6]byte{}, [6]byte{}
			h.L4Off, h.L4Src, h.L4Dst, h.TCPFlags = 44, 4321, 443, 0x12
		}),
	}, {
		name:  "OpenBSD loop (DLT_LOOP, big endian) ipv4 udp",
		frame: cat([]byte{0, 0, 0, 2}, build(t, ipv4(layers.IPProtocolUDP), udp())),
		link:  layers.LinkTypeLoop,
		want: with(hIPv4(4, 17), func(h *Headers) {
			h.EthSrc, h.EthDst = [6]byte{}, [6]byte{}
			h.L4Off, h.L4Src, h.L4Dst = 24, 53, 33333
		}),
	}}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			link := tt.link
			if link == 0 && tt.frame[0] != 30 && tt.frame[0] != 0 {
				link = layers.LinkTypeEthernet
			}
			before := p.Stats
			h, ok := p.Parse(tt.frame, link, 3)
			if !ok {
				t.Fatalf("Parse: not ok, reasons %v", diffReasons(&before, &p.Stats))
			}
			if diff := cmp.Diff(tt.want, *h); diff != "" {
				t.Errorf("Headers (-want +got):\n%s", diff)
			}
		})
	}
	if p.Stats.Read != uint64(len(tests)) || p.Stats.Parsed != p.Stats.Read {
		t.Errorf("Stats: read %d parsed %d, want %d each", p.Stats.Read, p.Stats.Parsed, len(tests))
	}
}

func diffReasons(a, b *Stats) map[string]uint64 {
	m := map[string]uint64{}
	for r := Reason(0); r < NumReasons; r++ {
		if d := b.Malformed[r] - a.Malformed[r]; d != 0 {
			m[r.String()] = d
		}
	}
	return m
}

func TestParseMalformed(t *testing.T) {
	good4 := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp())
	good6 := build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolUDP), udp())
	arp := build(t, eth(layers.EthernetTypeARP), &layers.ARP{AddrType: layers.LinkTypeEthernet,
		Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4, Operation: 1,
		SourceHwAddress: macA, SourceProtAddress: ip4A, DstHwAddress: macB, DstProtAddress: ip4B})
	mod := func(b []byte, f func([]byte)) []byte {
		b = append([]byte(nil), b...)
		f(b)
		return b
	}
	tags := func(n int) []byte {
		b := mod(good4[:12], func([]byte) {})
		for i := 0; i < n; i++ {
			b = append(b, 0x81, 0x00, 0, byte(i))
		}
		return append(b, good4[12:]...)
	}
	ext6 := func(n int) []byte {
		b := mod(good6, func(b []byte) { b[14+6] = 60 })
		b = append(b[:54:54], nil...)
		for i := 0; i < n; i++ {
			b = append(b, ext(layers.IPProtocolIPv6Destination, 1)...)
		}
		b[len(b)-8] = 17
		b = append(b, good6[54:]...)
		binary.BigEndian.PutUint16(b[18:], uint16(len(b)-54))
		return b
	}
	tests := []struct {
		name   string
		frame  []byte
		link   layers.LinkType
		reason Reason
	}{
		{"empty", nil, layers.LinkTypeEthernet, ReasonEthernet},
		{"13 bytes", good4[:13], layers.LinkTypeEthernet, ReasonEthernet},
		{"unsupported link type", good4, layers.LinkTypeLinuxSLL, ReasonEthernet},
		{"short loopback", []byte{2, 0}, layers.LinkTypeNull, ReasonLoopback},
		{"ipv4 type, no payload", good4[:14], layers.LinkTypeEthernet, ReasonIPv4Header},
		{"ipv4 19 bytes", good4[:14+19], layers.LinkTypeEthernet, ReasonIPv4Header},
		{"ipv4 ihl 4", mod(good4, func(b []byte) { b[14] = 0x44 }), layers.LinkTypeEthernet, ReasonIPv4Header},
		{"ipv4 ihl beyond data", mod(good4[:14+24], func(b []byte) { b[14] = 0x4f }), layers.LinkTypeEthernet, ReasonIPv4Header},
		{"ipv4 version 6", mod(good4, func(b []byte) { b[14] = 0x65 }), layers.LinkTypeEthernet, ReasonIPv4Version},
		{"ipv4 total length 19", mod(good4, func(b []byte) { b[16], b[17] = 0, 19 }), layers.LinkTypeEthernet, ReasonIPv4Length},
		{"ipv4 no room for tcp", mod(good4[:34], func(b []byte) { b[16], b[17] = 0, 20 }), layers.LinkTypeEthernet, ReasonTCP},
		{"tcp 19 bytes", good4[:34+19], layers.LinkTypeEthernet, ReasonTCP},
		{"tcp data offset 4", mod(good4, func(b []byte) { b[34+12] = 0x40 }), layers.LinkTypeEthernet, ReasonTCP},
		{"tcp data offset beyond data", mod(good4, func(b []byte) { b[34+12] = 0x60 }), layers.LinkTypeEthernet, ReasonTCP},
		{"udp 7 bytes", good6[:54+7], layers.LinkTypeEthernet, ReasonUDP},
		{"ipv6 39 bytes", good6[:14+39], layers.LinkTypeEthernet, ReasonIPv6Header},
		{"ipv6 version 4", mod(good6, func(b []byte) { b[14] = 0x40 }), layers.LinkTypeEthernet, ReasonIPv6Version},
		{"ipv6 ext cut short", ext6(3)[:54+20], layers.LinkTypeEthernet, ReasonIPv6Ext},
		{"ipv6 ext length beyond data", mod(ext6(1), func(b []byte) { b[55] = 200 }), layers.LinkTypeEthernet, ReasonIPv6Ext},
		{"ipv6 ext chain too long", ext6(MaxIPv6Ext + 1), layers.LinkTypeEthernet, ReasonIPv6ExtDepth},
		{"vlan tag cut short", tags(1)[:16], layers.LinkTypeEthernet, ReasonVLAN},
		{"vlan type, no tag", tags(1)[:14], layers.LinkTypeEthernet, ReasonVLAN},
		{"too many tags", tags(MaxVLANs + 1), layers.LinkTypeEthernet, ReasonVLANDepth},
		{"arp 7 bytes", arp[:14+7], layers.LinkTypeEthernet, ReasonARP},
		{"arp addresses cut", arp[:14+27], layers.LinkTypeEthernet, ReasonARP},
		{"arp huge hlen", mod(arp, func(b []byte) { b[14+4] = 200 }), layers.LinkTypeEthernet, ReasonARP},
		{"sctp 11 bytes", mod(good4[:34+11], func(b []byte) { b[23] = 132; b[16], b[17] = 0, 31 }), layers.LinkTypeEthernet, ReasonSCTP},
		{"icmpv4 3 bytes", mod(good4[:34+3], func(b []byte) { b[23] = 1; b[16], b[17] = 0, 23 }), layers.LinkTypeEthernet, ReasonICMPv4},
		{"icmpv6 3 bytes", mod(good6[:54+3], func(b []byte) { b[20] = 58 }), layers.LinkTypeEthernet, ReasonICMPv6},
	}
	p := NewParser()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := p.Stats
			if _, ok := p.Parse(tt.frame, tt.link, 1); ok {
				t.Fatalf("Parse: ok, want malformed %v", tt.reason)
			}
			if got := diffReasons(&before, &p.Stats); len(got) != 1 || got[tt.reason.String()] != 1 {
				t.Errorf("malformed counters changed by %v, want %s: 1", got, tt.reason)
			}
		})
	}
	if p.Stats.Read != uint64(len(tests)) || p.Stats.Parsed != 0 || p.Stats.MalformedTotal() != p.Stats.Read {
		t.Errorf("Stats: read %d parsed %d malformed %d", p.Stats.Read, p.Stats.Parsed, p.Stats.MalformedTotal())
	}
	// Deeper tags than the two recorded are fine up to MaxVLANs.
	if h, ok := p.Parse(tags(MaxVLANs), layers.LinkTypeEthernet, 1); !ok || h.VLANs != MaxVLANs || h.L4Src != 4321 {
		t.Errorf("%d tags: ok=%v VLANs=%d L4Src=%d", MaxVLANs, ok, h.VLANs, h.L4Src)
	}
	if h, ok := p.Parse(ext6(MaxIPv6Ext), layers.LinkTypeEthernet, 1); !ok || h.L4Dst != 33333 {
		t.Errorf("%d ext headers: ok=%v L4Dst=%d", MaxIPv6Ext, ok, h.L4Dst)
	}
}

// panicLayer stands in for a decoder with a bug.
type panicLayer struct{}

func (panicLayer) CanDecode() gopacket.LayerClass    { return layers.LayerTypeARP }
func (panicLayer) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }
func (panicLayer) LayerPayload() []byte              { return nil }
func (panicLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	return gopacket.DecodeFeedback(nil).(error) // nil interface conversion: panics
}

func TestParseVectorRecoversPerPacket(t *testing.T) {
	p := NewParser()
	p.ethDLP.AddDecodingLayer(panicLayer{}) // ARP now panics
	good := build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolUDP), udp())
	arp := build(t, eth(layers.EthernetTypeARP), &layers.ARP{AddrType: layers.LinkTypeEthernet,
		Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4, Operation: 1,
		SourceHwAddress: macA, SourceProtAddress: ip4A, DstHwAddress: macB, DstProtAddress: ip4B})
	var vec Vector
	pattern := []bool{true, false, false, true, true, false, true} // false: ARP (panics)
	for i, g := range pattern {
		vec.Frames[i], vec.Link[i], vec.InPort[i] = arp, layers.LinkTypeEthernet, uint32(i)
		if g {
			vec.Frames[i] = good
		}
	}
	vec.N = len(pattern)
	if n := p.ParseVector(&vec); n != 4 {
		t.Errorf("ParseVector = %d, want 4", n)
	}
	for i, g := range pattern {
		if vec.OK[i] != g {
			t.Errorf("OK[%d] = %v, want %v", i, vec.OK[i], g)
		}
		if g && (vec.Hdr[i].L4Dst != 33333 || vec.Hdr[i].InPort != uint32(i)) {
			t.Errorf("Hdr[%d]: L4Dst %d InPort %d", i, vec.Hdr[i].L4Dst, vec.Hdr[i].InPort)
		}
	}
	if p.Stats.Malformed[ReasonPanic] != 3 || p.Stats.Read != 7 || p.Stats.Parsed != 4 {
		t.Errorf("Stats: panic %d read %d parsed %d, want 3, 7, 4", p.Stats.Malformed[ReasonPanic], p.Stats.Read, p.Stats.Parsed)
	}
}

func TestParseAllocatesNothing(t *testing.T) {
	ip6ext := build(t, eth(layers.EthernetTypeDot1Q), &layers.Dot1Q{VLANIdentifier: 5, Type: layers.EthernetTypeIPv6},
		ipv6(layers.IPProtocolIPv6HopByHop), gopacket.Payload(cat(ext(layers.IPProtocolIPv6Fragment, 1),
			fragHdr(layers.IPProtocolUDP, 0, true))), udp())
	frames := [][]byte{
		build(t, eth(layers.EthernetTypeIPv4), ipv4(layers.IPProtocolTCP), tcp()),
		ip6ext,
		ip6ext[:40], // malformed
		build(t, eth(0x88cc), gopacket.Payload(make([]byte, 46))), // other
		nil,               // malformed
		ns(t, sll(macND)), // neighbor discovery
	}
	p := NewParser()
	var vec Vector
	for i := range vec.Frames {
		vec.Frames[i], vec.Link[i] = frames[i%len(frames)], layers.LinkTypeEthernet
	}
	vec.N = VectorSize
	if n := testing.AllocsPerRun(100, func() { p.ParseVector(&vec) }); n != 0 {
		t.Errorf("ParseVector: %v allocs per run, want 0", n)
	}
	for i, f := range frames {
		if n := testing.AllocsPerRun(100, func() { p.Parse(f, layers.LinkTypeEthernet, 1) }); n != 0 {
			t.Errorf("Parse(frame %d): %v allocs per run, want 0", i, n)
		}
	}
}
