package dataplane

import (
	"encoding/binary"
	"errors"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// errMalformed is what every decoding layer returns on bad input; the
// reason is kept in state.reason so that no error is built per packet.
var errMalformed = errors.New("dataplane: malformed packet")

// state is shared by the decoding layers of one Parser: the Headers being
// filled, the offset of the layer being decoded and the reason of a failure.
type state struct {
	h         *Headers
	off       int // offset from the start of the frame of the current layer
	reason    Reason
	truncated bool // IP length beyond the captured bytes
}

func (s *state) fail(r Reason) error {
	s.reason = r
	return errMalformed
}

// etherType records t as the frame's EtherType and returns the layer that
// decodes what follows. A layer we decode with nothing after it is a
// truncated frame.
func (s *state) etherType(t uint16, payload []byte) (gopacket.LayerType, error) {
	if t < 0x0600 { // 802.3 length field
		s.h.EthType = EtherTypeNone
		return gopacket.LayerTypePayload, nil
	}
	s.h.EthType = t
	var next gopacket.LayerType
	var r Reason
	switch t {
	case EtherTypeVLAN, EtherTypeQinQ, EtherTypeQinQOld:
		next, r = layers.LayerTypeDot1Q, ReasonVLAN
	case EtherTypeARP:
		next, r = layers.LayerTypeARP, ReasonARP
	case EtherTypeIPv4:
		next, r = layers.LayerTypeIPv4, ReasonIPv4Header
	case EtherTypeIPv6:
		next, r = layers.LayerTypeIPv6, ReasonIPv6Header
	case EtherTypeMPLS, EtherTypeMPLSMC:
		return gopacket.LayerTypePayload, s.mpls(payload)
	case EtherTypePBB:
		return gopacket.LayerTypePayload, s.pbb(payload)
	default:
		return gopacket.LayerTypePayload, nil
	}
	if len(payload) == 0 {
		return next, s.fail(r)
	}
	return next, nil
}

// mpls records the outermost label stack entry (RFC 3032: label 20 bits,
// traffic class 3, bottom of stack 1, TTL 8), which starts the payload of
// an MPLS EtherType. The parse stops there, as Open vSwitch's does not
// look behind the labels either: what follows has no EtherType of its own.
func (s *state) mpls(p []byte) error {
	if len(p) < 4 {
		return s.fail(ReasonMPLS)
	}
	lse := binary.BigEndian.Uint32(p)
	h := s.h
	h.MPLSLabel = lse >> 12
	h.MPLSTC = uint8(lse>>9) & 7
	h.MPLSBoS = uint8(lse>>8) & 1
	h.MPLSTTL = uint8(lse)
	return nil
}

// pbb records the I-TAG (IEEE 802.1ah) that starts the payload of the PBB
// EtherType: a TCI of I-PCP 3 bits, I-DEI 1, UCA 1, reserved 3 and I-SID
// 24, then the customer's destination and source addresses. The parse
// stops there: the frame's L2 fields are the backbone's.
func (s *state) pbb(p []byte) error {
	if len(p) < 16 {
		return s.fail(ReasonPBB)
	}
	tci := binary.BigEndian.Uint32(p)
	h := s.h
	h.PBBISID = tci & 0xffffff
	h.PBBUCA = uint8(tci>>27) & 1
	return nil
}

// ipProto returns the layer that decodes IP protocol p; a decoded
// protocol with no bytes after the IP header is a truncated packet.
func (s *state) ipProto(p uint8, payload []byte) (gopacket.LayerType, error) {
	var next gopacket.LayerType
	var r Reason
	switch p {
	case ProtoTCP:
		next, r = layers.LayerTypeTCP, ReasonTCP
	case ProtoUDP:
		next, r = layers.LayerTypeUDP, ReasonUDP
	case ProtoSCTP:
		next, r = layers.LayerTypeSCTP, ReasonSCTP
	case ProtoICMPv4:
		next, r = layers.LayerTypeICMPv4, ReasonICMPv4
	case ProtoICMPv6:
		next, r = layers.LayerTypeICMPv6, ReasonICMPv6
	default:
		return gopacket.LayerTypePayload, nil
	}
	if len(payload) == 0 {
		return next, s.fail(r)
	}
	return next, nil
}

// base holds what every decoding layer returns to the DecodingLayerParser.
type base struct {
	s       *state
	next    gopacket.LayerType
	payload []byte
}

func (b *base) NextLayerType() gopacket.LayerType { return b.next }
func (b *base) LayerPayload() []byte              { return b.payload }

// done ends the chain after a header whose payload is not decoded.
func (b *base) done() {
	b.next = gopacket.LayerTypeZero
	b.payload = nil
}

type ethLayer struct{ base }

func (*ethLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeEthernet }

func (l *ethLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	if len(data) < 14 {
		return s.fail(ReasonEthernet)
	}
	h := s.h
	copy(h.EthDst[:], data[0:6])
	copy(h.EthSrc[:], data[6:12])
	l.payload = data[14:]
	s.off += 14
	var err error
	l.next, err = s.etherType(binary.BigEndian.Uint16(data[12:14]), l.payload)
	return err
}

// loopLayer decodes the 4-byte address-family header of BSD loopback
// (DLT_NULL, host byte order) and OpenBSD loop (DLT_LOOP, network order).
type loopLayer struct {
	base
	network bool // DLT_LOOP: big endian
}

func (*loopLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeLoopback }

func (l *loopLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	if len(data) < 4 {
		return s.fail(ReasonLoopback)
	}
	af := binary.BigEndian.Uint32(data)
	if !l.network && af > 0xff { // DLT_NULL is in the capturing host's order
		af = binary.LittleEndian.Uint32(data)
	}
	l.payload = data[4:]
	s.off += 4
	var t uint16
	switch af {
	case 2: // AF_INET
		t = EtherTypeIPv4
	case 10, 24, 28, 30: // AF_INET6: Linux, NetBSD/OpenBSD, FreeBSD, Darwin
		t = EtherTypeIPv6
	default:
		l.done()
		return nil
	}
	var err error
	l.next, err = s.etherType(t, l.payload)
	return err
}

type vlanLayer struct{ base }

func (*vlanLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeDot1Q }

func (l *vlanLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	h := s.h
	if len(data) < 4 {
		return s.fail(ReasonVLAN)
	}
	d := h.VLANs
	if d >= MaxVLANs {
		return s.fail(ReasonVLANDepth)
	}
	if d < 2 {
		tci := binary.BigEndian.Uint16(data[0:2])
		h.VLANTPID[d] = h.EthType
		h.VLANVID[d] = tci & 0x0fff
		h.VLANPCP[d] = uint8(tci >> 13)
	}
	h.VLANs = d + 1
	l.payload = data[4:]
	s.off += 4
	var err error
	l.next, err = s.etherType(binary.BigEndian.Uint16(data[2:4]), l.payload)
	return err
}

type arpLayer struct{ base }

func (*arpLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeARP }

func (l *arpLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	if len(data) < 8 {
		return s.fail(ReasonARP)
	}
	hlen, plen := int(data[4]), int(data[5])
	if len(data) < 8+2*hlen+2*plen {
		return s.fail(ReasonARP)
	}
	h := s.h
	h.L3Off = uint16(s.off)
	// Like Open vSwitch, take the fields only from Ethernet/IPv4 ARP.
	if binary.BigEndian.Uint16(data[0:2]) == 1 && binary.BigEndian.Uint16(data[2:4]) == EtherTypeIPv4 &&
		hlen == 6 && plen == 4 {
		h.ARPOp = binary.BigEndian.Uint16(data[6:8])
		copy(h.ARPSha[:], data[8:14])
		copy(h.ARPSpa[:], data[14:18])
		copy(h.ARPTha[:], data[18:24])
		copy(h.ARPTpa[:], data[24:28])
	}
	l.done()
	return nil
}

type ipv4Layer struct{ base }

func (*ipv4Layer) CanDecode() gopacket.LayerClass { return layers.LayerTypeIPv4 }

func (l *ipv4Layer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	if len(data) < 20 {
		return s.fail(ReasonIPv4Header)
	}
	if data[0]>>4 != 4 {
		return s.fail(ReasonIPv4Version)
	}
	ihl := int(data[0]&0x0f) * 4
	if ihl < 20 || len(data) < ihl {
		return s.fail(ReasonIPv4Header)
	}
	end := int(binary.BigEndian.Uint16(data[2:4]))
	if end < ihl {
		return s.fail(ReasonIPv4Length)
	}
	if end > len(data) {
		s.truncated = true
		end = len(data)
	}
	h := s.h
	h.L3Off = uint16(s.off)
	h.IPDSCP = data[1] >> 2
	h.IPECN = data[1] & 3
	h.IPTTL = data[8]
	h.IPProto = data[9]
	copy(h.IPv4Src[:], data[12:16])
	copy(h.IPv4Dst[:], data[16:20])
	s.off += ihl
	l.payload = data[ihl:end]
	frag := binary.BigEndian.Uint16(data[6:8])
	if frag&0x1fff != 0 {
		h.Frag = FragAny | FragLater
		l.done() // only the first fragment carries the L4 header
		return nil
	}
	if frag&0x2000 != 0 {
		h.Frag = FragAny
	}
	var err error
	l.next, err = s.ipProto(h.IPProto, l.payload)
	return err
}

type ipv6Layer struct{ base }

func (*ipv6Layer) CanDecode() gopacket.LayerClass { return layers.LayerTypeIPv6 }

// DecodeFromBytes decodes the fixed IPv6 header and walks the extension
// headers (hop-by-hop, routing, fragment, destination options, AH) up to
// the upper-layer header.
func (l *ipv6Layer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	if len(data) < 40 {
		return s.fail(ReasonIPv6Header)
	}
	w := binary.BigEndian.Uint32(data[0:4])
	if w>>28 != 6 {
		return s.fail(ReasonIPv6Version)
	}
	end := 40 + int(binary.BigEndian.Uint16(data[4:6]))
	if end == 40 { // jumbogram or empty: take what was captured
		end = len(data)
	}
	if end > len(data) {
		s.truncated = true
		end = len(data)
	}
	h := s.h
	h.L3Off = uint16(s.off)
	tc := uint8(w >> 20)
	h.IPDSCP = tc >> 2
	h.IPECN = tc & 3
	h.IPv6Label = w & 0xfffff
	h.IPTTL = data[7]
	copy(h.IPv6Src[:], data[8:24])
	copy(h.IPv6Dst[:], data[24:40])
	next := data[6]
	p := data[40:end]
	off := s.off + 40
	var x exthdrs
	for n := 0; ; n++ {
		var hl int
		x.add(next)
		switch next {
		case 0, 43, 60: // hop-by-hop, routing, destination options
			if len(p) < 8 {
				return s.fail(ReasonIPv6Ext)
			}
			hl = (int(p[1]) + 1) * 8
		case 51: // authentication header
			if len(p) < 8 {
				return s.fail(ReasonIPv6Ext)
			}
			hl = (int(p[1]) + 2) * 4
		case 44: // fragment
			if len(p) < 8 {
				return s.fail(ReasonIPv6Ext)
			}
			hl = 8
			h.Frag = FragAny
			if binary.BigEndian.Uint16(p[2:4])&0xfff8 != 0 {
				h.Frag = FragAny | FragLater
				h.IPProto = p[0]
				h.IPv6Exthdr = x.flags
				s.off = off + hl
				l.done()
				return nil
			}
		default:
			h.IPv6Exthdr = x.flags
			h.IPProto = next
			s.off = off
			l.payload = p
			var err error
			l.next, err = s.ipProto(next, p)
			return err
		}
		if n >= MaxIPv6Ext {
			return s.fail(ReasonIPv6ExtDepth)
		}
		if len(p) < hl {
			return s.fail(ReasonIPv6Ext)
		}
		next = p[0]
		p = p[hl:]
		off += hl
	}
}

// exthdrs gathers the OFPIEH_* flags of an IPv6 packet (see ExthdrHop)
// as its parser walks the next-header chain, one add per header.
type exthdrs struct {
	flags uint16
	rank  uint8 // highest rank in RFC 8200's order so far (0: none)
	n     uint8 // extension headers so far
	dests uint8 // destination options headers so far
}

// add records next header nh: an extension header, ESP, "no next header"
// or an upper-layer protocol (which changes nothing).
func (x *exthdrs) add(nh uint8) {
	var bit uint16
	var rank uint8
	switch nh {
	case 0: // hop-by-hop options: only right after the IPv6 header
		bit, rank = ExthdrHop, 1
		if x.n > 0 {
			x.flags |= ExthdrUnseq
		}
	case 60: // destination options: before a routing header, or last
		bit, rank = ExthdrDest, 2
		if x.dests > 0 || x.rank > 2 {
			rank = 7
		}
		if x.dests++; x.dests > 2 {
			x.flags |= ExthdrUnrep
		}
	case 43:
		bit, rank = ExthdrRouter, 3
	case 44:
		bit, rank = ExthdrFrag, 4
	case 51:
		bit, rank = ExthdrAuth, 5
	case 50: // the rest is encrypted: the walk ends here
		bit, rank = ExthdrESP, 6
	case 59:
		x.flags |= ExthdrNoNext
		return
	default:
		return
	}
	if bit != ExthdrDest && x.flags&bit != 0 {
		x.flags |= ExthdrUnrep
	}
	if rank < x.rank {
		x.flags |= ExthdrUnseq
	}
	x.flags |= bit
	x.rank = max(x.rank, rank)
	x.n++
}

type tcpLayer struct{ base }

func (*tcpLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeTCP }

func (l *tcpLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	if len(data) < 20 {
		return s.fail(ReasonTCP)
	}
	if doff := int(data[12]>>4) * 4; doff < 20 || doff > len(data) {
		return s.fail(ReasonTCP)
	}
	h := s.h
	h.L4Off = uint16(s.off)
	h.L4Src = binary.BigEndian.Uint16(data[0:2])
	h.L4Dst = binary.BigEndian.Uint16(data[2:4])
	h.TCPFlags = binary.BigEndian.Uint16(data[12:14]) & 0x0fff
	l.done()
	return nil
}

type udpLayer struct{ base }

func (*udpLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeUDP }

func (l *udpLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	return l.ports(data, 8, ReasonUDP)
}

// ports records the source and destination ports that open a UDP or SCTP
// header of at least minLen bytes.
func (b *base) ports(data []byte, minLen int, r Reason) error {
	s := b.s
	if len(data) < minLen {
		return s.fail(r)
	}
	h := s.h
	h.L4Off = uint16(s.off)
	h.L4Src = binary.BigEndian.Uint16(data[0:2])
	h.L4Dst = binary.BigEndian.Uint16(data[2:4])
	b.done()
	return nil
}

type sctpLayer struct{ base }

func (*sctpLayer) CanDecode() gopacket.LayerClass { return layers.LayerTypeSCTP }

func (l *sctpLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	return l.ports(data, 12, ReasonSCTP)
}

// icmpLayer decodes the type and code of ICMPv4 or ICMPv6.
type icmpLayer struct {
	base
	typ    gopacket.LayerType
	reason Reason
}

func (l *icmpLayer) CanDecode() gopacket.LayerClass { return l.typ }

func (l *icmpLayer) DecodeFromBytes(data []byte, _ gopacket.DecodeFeedback) error {
	s := l.s
	if len(data) < 4 {
		return s.fail(l.reason)
	}
	h := s.h
	h.L4Off = uint16(s.off)
	h.ICMPType = data[0]
	h.ICMPCode = data[1]
	if l.typ == layers.LayerTypeICMPv6 && (data[0] == 135 || data[0] == 136) && data[1] == 0 {
		neighborDiscovery(h, data)
	}
	l.done()
	return nil
}

// neighborDiscovery reads the target address of an ICMPv6 neighbor
// solicitation (type 135) or advertisement (136) and its source (in a
// solicitation) or target (in an advertisement) link-layer address option
// (RFC 4861 §4.3, §4.4, §4.6.1) into h. Like Open vSwitch, it takes the
// first option of the kind, and a message cut short, or with an option of
// length 0, yields no ND fields at all.
func neighborDiscovery(h *Headers, data []byte) {
	if len(data) < 24 {
		return
	}
	want, mac := uint8(1), &h.ARPSha // source link-layer address
	if data[0] == 136 {
		want, mac = 2, &h.ARPTha // target link-layer address
	}
	opts := data[24:]
	var found bool
	for len(opts) >= 8 {
		n := int(opts[1]) * 8
		if n == 0 || n > len(opts) {
			*mac = [6]byte{}
			return
		}
		if opts[0] == want && n == 8 && !found {
			copy(mac[:], opts[2:8])
			found = true
		}
		opts = opts[n:]
	}
	copy(h.NDTarget[:], data[8:24])
}
