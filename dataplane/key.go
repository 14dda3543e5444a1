package dataplane

import (
	"encoding/binary"

	"github.com/ofswitch/ofswitch/rules"
)

// Key fills k with the match fields of h in the word layout of rules.Key,
// leaving metadata (word 4), tunnel_id (word 13), pkt_mark and tun_flags
// (word 17's low bits: no tunnel delivers frames here, and the mark is
// metadata a frame starts without), the registers (words 18-25: every
// frame starts with them 0) and the tunnel fields (words 26-35) zero.
// Fields that the frame does not carry, or
// that OpenFlow's prerequisites make meaningless for it (L4 ports of a
// later fragment, ARP fields of an IP packet), are zero. It allocates
// nothing.
func (h *Headers) Key(k *rules.Key) {
	var vid, pcp uint64
	if h.VLANs > 0 {
		vid = rules.VIDPresent | uint64(h.VLANVID[0])
		pcp = uint64(h.VLANPCP[0] & 7)
	}
	k[0] = 0
	k[1] = uint64(h.InPort)<<32 | uint64(h.EthType)<<16 | vid
	k[2] = 0
	k[3] = mac48(&h.EthDst) << 16
	k[4], k[5], k[6], k[7], k[8] = 0, 0, 0, 0, 0
	k[9] = mac48(&h.EthSrc)<<16 | pcp<<8
	k[10], k[11], k[12] = 0, 0, 0
	k[13], k[14], k[15], k[16], k[17] = 0, 0, 0, 0, 0
	k[18], k[19], k[20], k[21], k[22], k[23], k[24], k[25], k[26] = 0, 0, 0, 0, 0, 0, 0, 0, 0
	k[27], k[28], k[29], k[30], k[31], k[32], k[33], k[34], k[35] = 0, 0, 0, 0, 0, 0, 0, 0, 0
	switch h.EthType {
	case EtherTypeIPv4:
		k[9] |= uint64(h.IPDSCP&0x3f)<<2 | uint64(h.IPECN&3)
		k[3] |= uint64(h.IPProto)
		k[0] = uint64(binary.BigEndian.Uint32(h.IPv4Src[:]))<<32 | uint64(binary.BigEndian.Uint32(h.IPv4Dst[:]))
		k[2] = h.l4Word()
		k[11] = h.tcpFlagsWord()
		k[17] = uint64(h.IPTTL)<<ttlShift | uint64(h.Frag&3)<<fragShift
	case EtherTypeIPv6:
		k[9] |= uint64(h.IPDSCP&0x3f)<<2 | uint64(h.IPECN&3)
		k[3] |= uint64(h.IPProto)
		k[5] = binary.BigEndian.Uint64(h.IPv6Src[:8])
		k[6] = binary.BigEndian.Uint64(h.IPv6Src[8:])
		k[7] = binary.BigEndian.Uint64(h.IPv6Dst[:8])
		k[8] = binary.BigEndian.Uint64(h.IPv6Dst[8:])
		k[2] = h.l4Word()
		k[11] = h.tcpFlagsWord()
		k[12] = uint64(h.IPv6Exthdr&0x1ff) << 48
		k[17] = uint64(h.IPv6Label&0xfffff)<<44 | uint64(h.IPTTL)<<ttlShift | uint64(h.Frag&3)<<fragShift
		if h.IPProto == ProtoICMPv6 && h.L4Off != 0 {
			// Neighbor discovery: the target and the link-layer address
			// options, which share arp_sha's and arp_tha's bits.
			k[11] |= mac48(&h.ARPSha)
			k[12] |= mac48(&h.ARPTha)
			k[14] = binary.BigEndian.Uint64(h.NDTarget[:8])
			k[15] = binary.BigEndian.Uint64(h.NDTarget[8:])
		}
	case EtherTypeMPLS, EtherTypeMPLSMC:
		k[16] = uint64(h.MPLSLabel&0xfffff)<<44 | uint64(h.MPLSTC&7)<<41 | uint64(h.MPLSBoS&1)<<40
	case EtherTypePBB:
		k[16] = uint64(h.PBBUCA&1)<<32 | uint64(h.PBBISID&0xffffff)
	case EtherTypeARP:
		k[2] = uint64(h.ARPOp)
		k[10] = uint64(binary.BigEndian.Uint32(h.ARPSpa[:]))<<32 | uint64(binary.BigEndian.Uint32(h.ARPTpa[:]))
		k[11] = mac48(&h.ARPSha)
		k[12] = mac48(&h.ARPTha)
	}
}

// Where nw_ttl and ip_frag sit in word 17 of a rules.Key. FragAny and
// FragLater are rules.IPFragAny and rules.IPFragLater.
const (
	ttlShift  = 36
	fragShift = 34
	// keepMask is the part of word 17 that a reparse keeps: pkt_mark
	// and tun_flags, which no header carries.
	keepMask = 1<<33 - 1
)

// l4Word returns word 2 of the key: ports or ICMP type and code, for a
// frame whose transport header was decoded.
func (h *Headers) l4Word() uint64 {
	if h.L4Off == 0 {
		return 0
	}
	switch h.IPProto {
	case ProtoTCP, ProtoUDP, ProtoSCTP:
		return uint64(h.L4Src)<<48 | uint64(h.L4Dst)<<32
	case ProtoICMPv4, ProtoICMPv6:
		return uint64(h.ICMPType)<<24 | uint64(h.ICMPCode)<<16
	}
	return 0
}

// tcpFlagsWord returns word 11 of the key for an IP frame: the TCP flags
// of a TCP segment whose header was decoded, else nothing.
func (h *Headers) tcpFlagsWord() uint64 {
	if h.L4Off == 0 || h.IPProto != ProtoTCP {
		return 0
	}
	return uint64(h.TCPFlags&0x0fff) << 48
}

func mac48(m *[6]byte) uint64 {
	return uint64(m[0])<<40 | uint64(m[1])<<32 | uint64(m[2])<<24 | uint64(m[3])<<16 | uint64(m[4])<<8 | uint64(m[5])
}

// FlowMatch returns an exact match on the 5-tuple of key k (EtherType,
// IP protocol, addresses, ports) for IPv4 and IPv6 TCP and UDP keys with
// ports, and false for other keys.
func FlowMatch(k *rules.Key) (rules.Match, bool) {
	var m rules.Match
	p := k.Get(rules.FieldIPProto)
	et := k.Get(rules.FieldEthType)
	if (et != rules.EthTypeIPv4 && et != rules.EthTypeIPv6) || (p != rules.IPProtoTCP && p != rules.IPProtoUDP) || k.Get(rules.FieldL4Src) == 0 {
		return m, false
	}
	for _, f := range []rules.Field{rules.FieldEthType, rules.FieldIPProto, rules.FieldL4Src, rules.FieldL4Dst} {
		m.SetExact(f, k.Get(f))
	}
	if et == rules.EthTypeIPv4 {
		m.SetExact(rules.FieldIPv4Src, k.Get(rules.FieldIPv4Src))
		m.SetExact(rules.FieldIPv4Dst, k.Get(rules.FieldIPv4Dst))
	} else {
		for _, f := range []rules.Field{rules.FieldIPv6Src, rules.FieldIPv6Dst} {
			hi, lo := k.Get128(f)
			m.Set128(f, hi, lo, ^uint64(0), ^uint64(0))
		}
	}
	return m, true
}
