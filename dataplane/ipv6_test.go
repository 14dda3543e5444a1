package dataplane

import (
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/ofswitch/ofswitch/rules"
)

var (
	ndTarget = net.ParseIP("2001:db8::42")
	macND    = net.HardwareAddr{0x02, 0, 0, 0, 0, 0x5a}
)

// ns builds a neighbor solicitation for ndTarget with the given options.
func ns(t testing.TB, opts ...layers.ICMPv6Option) []byte {
	return build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolICMPv6),
		&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(135, 0)},
		&layers.ICMPv6NeighborSolicitation{TargetAddress: ndTarget, Options: opts})
}

// na builds a neighbor advertisement for ndTarget with the given options.
func na(t testing.TB, opts ...layers.ICMPv6Option) []byte {
	return build(t, eth(layers.EthernetTypeIPv6), ipv6(layers.IPProtocolICMPv6),
		&layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(136, 0)},
		&layers.ICMPv6NeighborAdvertisement{Flags: 0x60, TargetAddress: ndTarget, Options: opts})
}

func sll(mac net.HardwareAddr) layers.ICMPv6Option {
	return layers.ICMPv6Option{Type: layers.ICMPv6OptSourceAddress, Data: mac}
}

func tll(mac net.HardwareAddr) layers.ICMPv6Option {
	return layers.ICMPv6Option{Type: layers.ICMPv6OptTargetAddress, Data: mac}
}

// ah returns an authentication header of 16 bytes.
func ah(next layers.IPProtocol) []byte {
	return []byte{byte(next), 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}
}

// v6chain builds an IPv6 packet whose extension headers are hdrs (the
// first one's type is first) followed by a UDP datagram or nothing.
func v6chain(t testing.TB, first layers.IPProtocol, hdrs ...[]byte) []byte {
	return build(t, eth(layers.EthernetTypeIPv6), ipv6(first), gopacket.Payload(cat(hdrs...)))
}

// ndPart is what TestParseIPv6Fields compares: the IPv6 extension header
// flags, the flow label and the neighbor discovery fields.
type ndPart struct {
	Exthdr    uint16
	Label     uint32
	Proto     uint8
	Target    [16]byte
	SLL, TLL  [6]byte
	ICMPType  uint8
	HasL4, OK bool
}

func TestParseIPv6Fields(t *testing.T) {
	var tgt [16]byte
	copy(tgt[:], ndTarget.To16())
	var mac [6]byte
	copy(mac[:], macND)
	nsCode1 := ns(t, sll(macND))
	nsCode1[14+40+1] = 1 // code 1: not neighbor discovery (checksum left stale: not checked)
	nsZeroOpt := cat(ns(t), []byte{1, 0, 0, 0, 0, 0, 0, 0})
	nsZeroOpt[14+5] += 8 // payload length
	for _, tt := range []struct {
		name  string
		frame []byte
		want  ndPart
	}{
		{"ns with sll", ns(t, sll(macND)), ndPart{Label: 0xabcde, Proto: 58, Target: tgt, SLL: mac, ICMPType: 135, HasL4: true, OK: true}},
		{"ns with a tll option only", ns(t, tll(macND)), ndPart{Label: 0xabcde, Proto: 58, Target: tgt, ICMPType: 135, HasL4: true, OK: true}},
		{"na with tll", na(t, tll(macND)), ndPart{Label: 0xabcde, Proto: 58, Target: tgt, TLL: mac, ICMPType: 136, HasL4: true, OK: true}},
		{"na with nd options first", na(t, layers.ICMPv6Option{Type: layers.ICMPv6OptMTU, Data: make([]byte, 6)}, tll(macND)),
			ndPart{Label: 0xabcde, Proto: 58, Target: tgt, TLL: mac, ICMPType: 136, HasL4: true, OK: true}},
		{"ns without options", ns(t), ndPart{Label: 0xabcde, Proto: 58, Target: tgt, ICMPType: 135, HasL4: true, OK: true}},
		{"ns with an option of length 0", nsZeroOpt, ndPart{Label: 0xabcde, Proto: 58, ICMPType: 135, HasL4: true, OK: true}},
		{"ns code 1", nsCode1, ndPart{Label: 0xabcde, Proto: 58, ICMPType: 135, HasL4: true, OK: true}},
		{"ns cut short", ns(t)[:14+40+20], ndPart{Label: 0xabcde, Proto: 58, ICMPType: 135, HasL4: true, OK: true}},
		{"hop-by-hop, auth", v6chain(t, layers.IPProtocolIPv6HopByHop, ext(layers.IPProtocolAH, 1), ah(layers.IPProtocolNoNextHeader)),
			ndPart{Exthdr: ExthdrHop | ExthdrAuth | ExthdrNoNext, Label: 0xabcde, Proto: 59, OK: true}},
		{"routing before hop-by-hop", v6chain(t, layers.IPProtocolIPv6Routing, ext(layers.IPProtocolIPv6HopByHop, 1), ext(layers.IPProtocolNoNextHeader, 1)),
			ndPart{Exthdr: ExthdrRouter | ExthdrHop | ExthdrUnseq | ExthdrNoNext, Label: 0xabcde, Proto: 59, OK: true}},
		{"hop-by-hop twice", v6chain(t, layers.IPProtocolIPv6HopByHop, ext(layers.IPProtocolIPv6HopByHop, 1), ext(layers.IPProtocolNoNextHeader, 1)),
			ndPart{Exthdr: ExthdrHop | ExthdrUnrep | ExthdrUnseq | ExthdrNoNext, Label: 0xabcde, Proto: 59, OK: true}},
		{"dest, routing, dest", v6chain(t, layers.IPProtocolIPv6Destination, ext(layers.IPProtocolIPv6Routing, 1),
			ext(layers.IPProtocolIPv6Destination, 1), ext(layers.IPProtocolNoNextHeader, 1)),
			ndPart{Exthdr: ExthdrDest | ExthdrRouter | ExthdrNoNext, Label: 0xabcde, Proto: 59, OK: true}},
		{"dest, dest, routing", v6chain(t, layers.IPProtocolIPv6Destination, ext(layers.IPProtocolIPv6Destination, 1),
			ext(layers.IPProtocolIPv6Routing, 1), ext(layers.IPProtocolNoNextHeader, 1)),
			ndPart{Exthdr: ExthdrDest | ExthdrRouter | ExthdrUnseq | ExthdrNoNext, Label: 0xabcde, Proto: 59, OK: true}},
		{"dest three times", v6chain(t, layers.IPProtocolIPv6Destination, ext(layers.IPProtocolIPv6Destination, 1),
			ext(layers.IPProtocolIPv6Destination, 1), ext(layers.IPProtocolNoNextHeader, 1)),
			ndPart{Exthdr: ExthdrDest | ExthdrUnrep | ExthdrNoNext, Label: 0xabcde, Proto: 59, OK: true}},
		{"fragment, auth, esp", v6chain(t, layers.IPProtocolIPv6Fragment, fragHdr(layers.IPProtocolAH, 0, false), ah(layers.IPProtocolESP), make([]byte, 16)),
			ndPart{Exthdr: ExthdrFrag | ExthdrAuth | ExthdrESP, Label: 0xabcde, Proto: 50, OK: true}},
		{"auth before fragment", v6chain(t, layers.IPProtocolAH, ah(layers.IPProtocolIPv6Fragment), fragHdr(layers.IPProtocolNoNextHeader, 0, false)),
			ndPart{Exthdr: ExthdrAuth | ExthdrFrag | ExthdrUnseq | ExthdrNoNext, Label: 0xabcde, Proto: 59, OK: true}},
		{"hop-by-hop, later fragment", v6chain(t, layers.IPProtocolIPv6HopByHop, ext(layers.IPProtocolIPv6Fragment, 1),
			fragHdr(layers.IPProtocolIPv6Destination, 8, false), make([]byte, 16)),
			ndPart{Exthdr: ExthdrHop | ExthdrFrag, Label: 0xabcde, Proto: 60, OK: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := NewParser()
			h, ok := p.Parse(tt.frame, layers.LinkTypeEthernet, 3)
			got := ndPart{Exthdr: h.IPv6Exthdr, Label: h.IPv6Label, Proto: h.IPProto, Target: h.NDTarget,
				SLL: h.ARPSha, TLL: h.ARPTha, ICMPType: h.ICMPType, HasL4: h.HasL4(), OK: ok}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var k rules.Key
			h.Key(&k)
			hi, lo := k.Get128(rules.FieldNDTarget)
			var kt [16]byte
			for i := range 8 {
				kt[i], kt[8+i] = byte(hi>>(56-8*i)), byte(lo>>(56-8*i))
			}
			if k.Get(rules.FieldIPv6Exthdr) != uint64(got.Exthdr) || k.Get(rules.FieldIPv6FLabel) != uint64(got.Label) ||
				kt != got.Target || k.Get(rules.FieldARPSHA) != mac48(&got.SLL) || k.Get(rules.FieldARPTHA) != mac48(&got.TLL) ||
				k.Get(rules.FieldTunnelID) != 0 {
				t.Errorf("key %v disagrees with the headers %+v", k, got)
			}
		})
	}
}

// FuzzParseIPv6 parses IPv6 packets whose next-header chain and ICMPv6
// body the fuzzer writes: the exthdr flags only name headers of the
// chain, ND fields only come with a neighbor solicitation or
// advertisement, and the key agrees with the headers.
func FuzzParseIPv6(f *testing.F) {
	f.Add(uint8(58), ns(f, sll(macND))[14+40:])
	f.Add(uint8(58), na(f, tll(macND))[14+40:])
	f.Add(uint8(0), cat(ext(layers.IPProtocolAH, 1), ah(layers.IPProtocolTCP), make([]byte, 20)))
	f.Add(uint8(60), cat(ext(layers.IPProtocolIPv6Destination, 1), ext(layers.IPProtocolIPv6Routing, 1), ext(layers.IPProtocolNoNextHeader, 1)))
	f.Add(uint8(44), cat(fragHdr(layers.IPProtocolESP, 0, false), make([]byte, 8)))
	p := NewParser()
	f.Fuzz(func(t *testing.T, next uint8, body []byte) {
		ip := ipv6(layers.IPProtocol(next))
		frame := build(t, eth(layers.EthernetTypeIPv6), ip, gopacket.Payload(body))
		h, ok := p.Parse(frame, layers.LinkTypeEthernet, 7)
		if !ok {
			return
		}
		checkHeaders(t, h, len(frame))
		if h.IPv6Exthdr&^0x1ff != 0 || h.IPv6Label != 0xabcde {
			t.Fatalf("exthdr %#x label %#x", h.IPv6Exthdr, h.IPv6Label)
		}
		chain := h.IPv6Exthdr&^(ExthdrNoNext|ExthdrUnrep|ExthdrUnseq) != 0
		if !chain && h.IPv6Exthdr&(ExthdrUnrep|ExthdrUnseq) != 0 {
			t.Fatalf("exthdr %#x: repeats or order without a header", h.IPv6Exthdr)
		}
		if chain == (next != 0 && next != 43 && next != 44 && next != 50 && next != 51 && next != 60) {
			t.Fatalf("exthdr %#x after next header %d", h.IPv6Exthdr, next)
		}
		nd := h.HasL4() && h.IPProto == ProtoICMPv6 && (h.ICMPType == 135 || h.ICMPType == 136) && h.ICMPCode == 0
		if !nd && (h.NDTarget != [16]byte{} || h.ARPSha != [6]byte{} || h.ARPTha != [6]byte{}) {
			t.Fatalf("ND fields without neighbor discovery: %+v", h)
		}
		if h.ICMPType == 135 && h.ARPTha != [6]byte{} || h.ICMPType == 136 && h.ARPSha != [6]byte{} {
			t.Fatalf("wrong link-layer option: %+v", h)
		}
		var k rules.Key
		h.Key(&k)
		if k.Get(rules.FieldIPv6Exthdr) != uint64(h.IPv6Exthdr) || k.Get(rules.FieldARPSHA) != mac48(&h.ARPSha) ||
			k.Get(rules.FieldARPTHA) != mac48(&h.ARPTha) || k.Get(rules.FieldTunnelID) != 0 {
			t.Fatalf("key %v, headers %+v", k, h)
		}
	})
}
