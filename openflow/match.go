package openflow

import (
	"encoding/binary"
	"fmt"
	"net/netip"

	"github.com/ofswitch/ofswitch/internal/wire"
)

// OXMClass is oxm_class (OpenFlow 1.3.5 §7.2.3.2, enum ofp_oxm_class).
type OXMClass uint16

// OXM classes.
const (
	OXMClassNXM0         OXMClass = 0x0000 // OFPXMC_NXM_0 (Nicira, kept opaque)
	OXMClassNXM1         OXMClass = 0x0001 // OFPXMC_NXM_1 (Nicira, kept opaque)
	OXMClassOpenFlow     OXMClass = 0x8000 // OFPXMC_OPENFLOW_BASIC
	OXMClassExperimenter OXMClass = 0xffff // OFPXMC_EXPERIMENTER
)

// OXMField is oxm_field for class OXMClassOpenFlow (OpenFlow 1.3.5
// §7.2.3.7, enum oxm_ofb_match_fields).
type OXMField uint8

// OpenFlow basic match fields.
const (
	FieldInPort       OXMField = 0  // OFPXMT_OFB_IN_PORT
	FieldInPhyPort    OXMField = 1  // OFPXMT_OFB_IN_PHY_PORT
	FieldMetadata     OXMField = 2  // OFPXMT_OFB_METADATA
	FieldEthDst       OXMField = 3  // OFPXMT_OFB_ETH_DST
	FieldEthSrc       OXMField = 4  // OFPXMT_OFB_ETH_SRC
	FieldEthType      OXMField = 5  // OFPXMT_OFB_ETH_TYPE
	FieldVLANVID      OXMField = 6  // OFPXMT_OFB_VLAN_VID
	FieldVLANPCP      OXMField = 7  // OFPXMT_OFB_VLAN_PCP
	FieldIPDSCP       OXMField = 8  // OFPXMT_OFB_IP_DSCP
	FieldIPECN        OXMField = 9  // OFPXMT_OFB_IP_ECN
	FieldIPProto      OXMField = 10 // OFPXMT_OFB_IP_PROTO
	FieldIPv4Src      OXMField = 11 // OFPXMT_OFB_IPV4_SRC
	FieldIPv4Dst      OXMField = 12 // OFPXMT_OFB_IPV4_DST
	FieldTCPSrc       OXMField = 13 // OFPXMT_OFB_TCP_SRC
	FieldTCPDst       OXMField = 14 // OFPXMT_OFB_TCP_DST
	FieldUDPSrc       OXMField = 15 // OFPXMT_OFB_UDP_SRC
	FieldUDPDst       OXMField = 16 // OFPXMT_OFB_UDP_DST
	FieldSCTPSrc      OXMField = 17 // OFPXMT_OFB_SCTP_SRC
	FieldSCTPDst      OXMField = 18 // OFPXMT_OFB_SCTP_DST
	FieldICMPv4Type   OXMField = 19 // OFPXMT_OFB_ICMPV4_TYPE
	FieldICMPv4Code   OXMField = 20 // OFPXMT_OFB_ICMPV4_CODE
	FieldARPOp        OXMField = 21 // OFPXMT_OFB_ARP_OP
	FieldARPSPA       OXMField = 22 // OFPXMT_OFB_ARP_SPA
	FieldARPTPA       OXMField = 23 // OFPXMT_OFB_ARP_TPA
	FieldARPSHA       OXMField = 24 // OFPXMT_OFB_ARP_SHA
	FieldARPTHA       OXMField = 25 // OFPXMT_OFB_ARP_THA
	FieldIPv6Src      OXMField = 26 // OFPXMT_OFB_IPV6_SRC
	FieldIPv6Dst      OXMField = 27 // OFPXMT_OFB_IPV6_DST
	FieldIPv6FLabel   OXMField = 28 // OFPXMT_OFB_IPV6_FLABEL
	FieldICMPv6Type   OXMField = 29 // OFPXMT_OFB_ICMPV6_TYPE
	FieldICMPv6Code   OXMField = 30 // OFPXMT_OFB_ICMPV6_CODE
	FieldIPv6NDTarget OXMField = 31 // OFPXMT_OFB_IPV6_ND_TARGET
	FieldIPv6NDSLL    OXMField = 32 // OFPXMT_OFB_IPV6_ND_SLL
	FieldIPv6NDTLL    OXMField = 33 // OFPXMT_OFB_IPV6_ND_TLL
	FieldMPLSLabel    OXMField = 34 // OFPXMT_OFB_MPLS_LABEL
	FieldMPLSTC       OXMField = 35 // OFPXMT_OFB_MPLS_TC
	FieldMPLSBOS      OXMField = 36 // OFPXMT_OFB_MPLS_BOS
	FieldPBBISID      OXMField = 37 // OFPXMT_OFB_PBB_ISID
	FieldTunnelID     OXMField = 38 // OFPXMT_OFB_TUNNEL_ID
	FieldIPv6ExtHdr   OXMField = 39 // OFPXMT_OFB_IPV6_EXTHDR
	// FieldPBBUCA is OpenFlow 1.4's OFPXMT_OFB_PBB_UCA (field 40 is
	// unassigned); it is taken in any version, as the switch matches it.
	FieldPBBUCA OXMField = 41
	// FieldPacketType is OpenFlow 1.5's OFPXMT_OFB_PACKET_TYPE: a 32-bit
	// namespace and type, 0 for an Ethernet frame. ovs-ofctl sends
	// packet_type=0 over OpenFlow 1.3 when a match holds only bits that no
	// other OXM carries (vlan_tci=0x2000/0xe000: PCP bits without an id).
	FieldPacketType OXMField = 44

	numFields = 45
)

// fieldInfo is one row of the OXM table of OpenFlow 1.3.5 §7.2.3.7 (Table
// 12) and its prerequisites (Table 13).
type fieldInfo struct {
	name     string
	size     uint8
	maskable bool
	pre      prereq
}

// prereq names the prerequisite of a field.
type prereq uint8

const (
	preNone     prereq = iota
	preInPort          // IN_PORT present
	preVLAN            // VLAN_VID != NONE
	preIP              // ETH_TYPE = 0x0800 or 0x86dd
	preIPv4            // ETH_TYPE = 0x0800
	preIPv6            // ETH_TYPE = 0x86dd
	preARP             // ETH_TYPE = 0x0806
	preTCP             // IP_PROTO = 6
	preUDP             // IP_PROTO = 17
	preSCTP            // IP_PROTO = 132
	preICMPv4          // IP_PROTO = 1
	preICMPv6          // IP_PROTO = 58
	preNDTarget        // ICMPV6_TYPE = 135 or 136
	preNDSLL           // ICMPV6_TYPE = 135
	preNDTLL           // ICMPV6_TYPE = 136
	preMPLS            // ETH_TYPE = 0x8847 or 0x8848
	prePBB             // ETH_TYPE = 0x88e7
)

var fields = [numFields]fieldInfo{
	{"in_port", 4, false, preNone},
	{"in_phy_port", 4, false, preInPort},
	{"metadata", 8, true, preNone},
	{"eth_dst", 6, true, preNone},
	{"eth_src", 6, true, preNone},
	{"eth_type", 2, false, preNone},
	{"vlan_vid", 2, true, preNone},
	{"vlan_pcp", 1, false, preVLAN},
	{"ip_dscp", 1, false, preIP},
	{"ip_ecn", 1, false, preIP},
	{"ip_proto", 1, false, preIP},
	{"ipv4_src", 4, true, preIPv4},
	{"ipv4_dst", 4, true, preIPv4},
	{"tcp_src", 2, false, preTCP},
	{"tcp_dst", 2, false, preTCP},
	{"udp_src", 2, false, preUDP},
	{"udp_dst", 2, false, preUDP},
	{"sctp_src", 2, false, preSCTP},
	{"sctp_dst", 2, false, preSCTP},
	{"icmpv4_type", 1, false, preICMPv4},
	{"icmpv4_code", 1, false, preICMPv4},
	{"arp_op", 2, false, preARP},
	{"arp_spa", 4, true, preARP},
	{"arp_tpa", 4, true, preARP},
	{"arp_sha", 6, true, preARP},
	{"arp_tha", 6, true, preARP},
	{"ipv6_src", 16, true, preIPv6},
	{"ipv6_dst", 16, true, preIPv6},
	{"ipv6_flabel", 4, true, preIPv6},
	{"icmpv6_type", 1, false, preICMPv6},
	{"icmpv6_code", 1, false, preICMPv6},
	{"ipv6_nd_target", 16, false, preNDTarget},
	{"ipv6_nd_sll", 6, false, preNDSLL},
	{"ipv6_nd_tll", 6, false, preNDTLL},
	{"mpls_label", 4, false, preMPLS},
	{"mpls_tc", 1, false, preMPLS},
	{"mpls_bos", 1, false, preMPLS},
	{"pbb_isid", 3, true, prePBB},
	{"tunnel_id", 8, true, preNone},
	{"ipv6_exthdr", 2, true, preIPv6},
	{}, // 40: unassigned
	{"pbb_uca", 1, false, prePBB},
	{}, {}, // 42, 43: OpenFlow 1.5's tcp_flags and actset_output, not taken as basic OXMs
	{"packet_type", 4, false, preNone},
}

// known reports whether f is a field this package knows: one of OpenFlow
// 1.3's, or pbb_uca.
func (f OXMField) known() bool { return int(f) < numFields && fields[f].size != 0 }

// String returns the field name in ovs-ofctl syntax, e.g. "ipv4_src".
func (f OXMField) String() string {
	if f.known() {
		return fields[f].name
	}
	return fmt.Sprintf("field%d", uint8(f))
}

// Size returns the width in bytes of the field's value, or 0 for a field
// this package does not know (one OpenFlow 1.3 does not define, other
// than pbb_uca).
func (f OXMField) Size() int {
	if int(f) < numFields {
		return int(fields[f].size)
	}
	return 0
}

// Maskable reports whether OpenFlow 1.3 allows a mask on the field.
func (f OXMField) Maskable() bool { return int(f) < numFields && fields[f].maskable }

// VLANPresent is OFPVID_PRESENT, set in a VLAN_VID value when a VLAN tag is
// present; VLANNone (OFPVID_NONE) matches packets without one.
const (
	VLANPresent uint16 = 0x1000
	VLANNone    uint16 = 0x0000
)

// OXM is one OpenFlow Extensible Match TLV (OpenFlow 1.3.5 §7.2.3.2). It is
// a fixed-size value: basic fields keep their value and mask left-aligned in
// Value and Mask (Field.Size() bytes each); experimenter OXMs and the
// Nicira classes keep their payload opaque in Data.
//
// The zero OXM is in_port=0 of class 0 (NXM_0); build OXMs with the
// constructors (InPort, EthType, IPv4Src, ...) or NewOXM.
type OXM struct {
	Class        OXMClass
	Field        OXMField // 7 bits
	HasMask      bool
	Value        [16]byte // basic class: the value, left-aligned
	Mask         [16]byte // basic class with HasMask: the mask, left-aligned
	Experimenter uint32   // OXMClassExperimenter: the experimenter id
	Data         []byte   // other classes: payload after the header (and experimenter id)
}

// ONFFieldTCPFlags is tcp_flags among the ONF experimenter's OXMs (ONF
// EXT-109; OXM_OF_TCP_FLAGS in OpenFlow 1.5): a 16-bit value whose low 12
// bits are the TCP header's flags, maskable. Open vSwitch sends tcp_flags
// this way over OpenFlow 1.3 and 1.4.
const ONFFieldTCPFlags OXMField = 42

// TCPFlags returns the ONF experimenter OXM that matches TCP flags value
// under mask; a mask of 0x0fff (all 12 flags) gives the unmasked form, as
// Open vSwitch sends an exact value.
func TCPFlags(value, mask uint16) OXM {
	o := OXM{Class: OXMClassExperimenter, Field: ONFFieldTCPFlags, Experimenter: ONFExperimenter}
	if mask == 0x0fff {
		o.Data = []byte{byte(value >> 8), byte(value)}
		return o
	}
	o.HasMask = true
	o.Data = []byte{byte(value >> 8), byte(value), byte(mask >> 8), byte(mask)}
	return o
}

// TCPFlags returns the value and mask of an ONF tcp_flags OXM (mask 0xffff
// when it has none), and whether o is one of the right length.
func (o *OXM) TCPFlags() (value, mask uint16, ok bool) {
	if o.Class != OXMClassExperimenter || o.Experimenter != ONFExperimenter || o.Field != ONFFieldTCPFlags {
		return 0, 0, false
	}
	switch {
	case !o.HasMask && len(o.Data) == 2:
		return binary.BigEndian.Uint16(o.Data), 0xffff, true
	case o.HasMask && len(o.Data) == 4:
		return binary.BigEndian.Uint16(o.Data), binary.BigEndian.Uint16(o.Data[2:]), true
	}
	return 0, 0, false
}

// NewOXM returns a basic-class OXM with the given value (its length must
// be field.Size()); with a mask (same length) it is a masked OXM.
func NewOXM(field OXMField, value []byte, mask []byte) OXM {
	o := OXM{Class: OXMClassOpenFlow, Field: field}
	copy(o.Value[:], value)
	if mask != nil {
		o.HasMask = true
		copy(o.Mask[:], mask)
	}
	return o
}

func oxm32(f OXMField, v uint32) OXM {
	o := OXM{Class: OXMClassOpenFlow, Field: f}
	binary.BigEndian.PutUint32(o.Value[:], v)
	return o
}

func oxm16(f OXMField, v uint16) OXM {
	o := OXM{Class: OXMClassOpenFlow, Field: f}
	binary.BigEndian.PutUint16(o.Value[:], v)
	return o
}

func oxm8(f OXMField, v uint8) OXM {
	o := OXM{Class: OXMClassOpenFlow, Field: f}
	o.Value[0] = v
	return o
}

func oxmPrefix(f OXMField, p netip.Prefix) OXM {
	a := p.Masked().Addr()
	o := OXM{Class: OXMClassOpenFlow, Field: f}
	n := copy(o.Value[:], a.AsSlice())
	if p.Bits() >= 0 && p.Bits() < n*8 {
		o.HasMask = true
		for i := 0; i < p.Bits(); i++ {
			o.Mask[i/8] |= 0x80 >> (i % 8)
		}
	}
	return o
}

// InPort matches the ingress port (OXM_OF_IN_PORT).
func InPort(port uint32) OXM { return oxm32(FieldInPort, port) }

// EthType matches the Ethernet type (OXM_OF_ETH_TYPE).
func EthType(t uint16) OXM { return oxm16(FieldEthType, t) }

// EthDst matches the Ethernet destination (OXM_OF_ETH_DST).
func EthDst(mac [6]byte) OXM { return NewOXM(FieldEthDst, mac[:], nil) }

// EthSrc matches the Ethernet source (OXM_OF_ETH_SRC).
func EthSrc(mac [6]byte) OXM { return NewOXM(FieldEthSrc, mac[:], nil) }

// VLANVID matches the VLAN id (OXM_OF_VLAN_VID); or VLANPresent into vid to
// match tagged packets, or pass VLANNone for untagged ones.
func VLANVID(vid uint16) OXM { return oxm16(FieldVLANVID, vid) }

// IPProto matches the IP protocol (OXM_OF_IP_PROTO).
func IPProto(p uint8) OXM { return oxm8(FieldIPProto, p) }

// IPv4Src matches an IPv4 source prefix (OXM_OF_IPV4_SRC); a /32 is exact.
func IPv4Src(p netip.Prefix) OXM { return oxmPrefix(FieldIPv4Src, p) }

// IPv4Dst matches an IPv4 destination prefix (OXM_OF_IPV4_DST).
func IPv4Dst(p netip.Prefix) OXM { return oxmPrefix(FieldIPv4Dst, p) }

// IPv6Src matches an IPv6 source prefix (OXM_OF_IPV6_SRC).
func IPv6Src(p netip.Prefix) OXM { return oxmPrefix(FieldIPv6Src, p) }

// IPv6Dst matches an IPv6 destination prefix (OXM_OF_IPV6_DST).
func IPv6Dst(p netip.Prefix) OXM { return oxmPrefix(FieldIPv6Dst, p) }

// TCPSrc matches the TCP source port (OXM_OF_TCP_SRC).
func TCPSrc(port uint16) OXM { return oxm16(FieldTCPSrc, port) }

// TCPDst matches the TCP destination port (OXM_OF_TCP_DST).
func TCPDst(port uint16) OXM { return oxm16(FieldTCPDst, port) }

// UDPSrc matches the UDP source port (OXM_OF_UDP_SRC).
func UDPSrc(port uint16) OXM { return oxm16(FieldUDPSrc, port) }

// UDPDst matches the UDP destination port (OXM_OF_UDP_DST).
func UDPDst(port uint16) OXM { return oxm16(FieldUDPDst, port) }

// Metadata matches pipeline metadata under a mask (OXM_OF_METADATA); a
// mask of all ones is an exact match.
func Metadata(v, mask uint64) OXM {
	o := OXM{Class: OXMClassOpenFlow, Field: FieldMetadata}
	binary.BigEndian.PutUint64(o.Value[:], v)
	if mask != ^uint64(0) {
		o.HasMask = true
		binary.BigEndian.PutUint64(o.Mask[:], mask)
	}
	return o
}

// payloadLen returns oxm_length, the bytes after the 4-byte OXM header.
func (o *OXM) payloadLen() int {
	switch o.Class {
	case OXMClassOpenFlow:
		n := o.Field.Size()
		if o.HasMask {
			n *= 2
		}
		return n
	case OXMClassExperimenter:
		return 4 + len(o.Data)
	}
	return len(o.Data)
}

// Len returns the encoded size of o, header included.
func (o *OXM) Len() int { return 4 + o.payloadLen() }

// Header returns the 32-bit OXM header (class, field, hasmask, length).
func (o *OXM) Header() uint32 {
	h := uint32(o.Class)<<16 | uint32(o.Field&0x7f)<<9 | uint32(o.payloadLen()&0xff)
	if o.HasMask {
		h |= 1 << 8
	}
	return h
}

// Bytes returns the value of a basic-class OXM, Field.Size() bytes.
func (o *OXM) Bytes() []byte { return o.Value[:o.Field.Size()] }

// MaskBytes returns the mask of a masked basic-class OXM, or nil.
func (o *OXM) MaskBytes() []byte {
	if !o.HasMask {
		return nil
	}
	return o.Mask[:o.Field.Size()]
}

// Uint returns the value of a basic-class field of at most 8 bytes as an
// integer (e.g. a port, an EtherType, a VLAN id).
func (o *OXM) Uint() uint64 {
	var v uint64
	for _, c := range o.Bytes() {
		v = v<<8 | uint64(c)
	}
	return v
}

// Addr returns the value of an IPv4 or IPv6 address field.
func (o *OXM) Addr() netip.Addr {
	switch o.Field.Size() {
	case 4:
		return netip.AddrFrom4([4]byte(o.Value[:4]))
	case 16:
		return netip.AddrFrom16(o.Value)
	}
	return netip.Addr{}
}

// AppendBinary appends the OXM TLV.
func (o *OXM) AppendBinary(dst []byte) ([]byte, error) {
	if o.Class == OXMClassOpenFlow {
		if !o.Field.known() {
			return dst, &EncodeError{Field: "oxm.field", Err: ErrBadField}
		}
		n := int(fields[o.Field].size)
		if o.HasMask {
			dst = append(dst, 0x80, 0, byte(o.Field)<<1|1, byte(2*n))
			dst = append(dst, o.Value[:n]...)
			return append(dst, o.Mask[:n]...), nil
		}
		dst = append(dst, 0x80, 0, byte(o.Field)<<1, byte(n))
		return append(dst, o.Value[:n]...), nil
	}
	if o.payloadLen() > 0xff {
		return dst, &EncodeError{Field: "oxm.length", Err: ErrBadMatchLength}
	}
	dst = binary.BigEndian.AppendUint32(dst, o.Header())
	if o.Class == OXMClassExperimenter {
		dst = binary.BigEndian.AppendUint32(dst, o.Experimenter)
	}
	return append(dst, o.Data...), nil
}

// checkOXM validates the OXM TLV at the start of b and returns its length.
// It reads in place and allocates only on error; the error's Field and
// Offset are relative to b.
func checkOXM(b []byte) (int, *DecodeError) {
	if len(b) < 4 {
		return 0, &DecodeError{Field: "length", Offset: 0, Err: ErrBadMatchLength}
	}
	n := int(b[3])
	if 4+n > len(b) {
		return 0, &DecodeError{Field: "length", Offset: 3, Err: ErrBadMatchLength}
	}
	switch OXMClass(binary.BigEndian.Uint16(b)) {
	case OXMClassOpenFlow:
		size := OXMField(b[2] >> 1).Size()
		if size == 0 {
			return 0, &DecodeError{Field: "field", Offset: 2, Err: ErrBadField}
		}
		if b[2]&1 != 0 {
			size *= 2
		}
		if n != size {
			return 0, &DecodeError{Field: "length", Offset: 3, Err: ErrBadMatchLength}
		}
	case OXMClassExperimenter:
		if n < 4 {
			return 0, &DecodeError{Field: "experimenter", Offset: 4, Err: ErrBadMatchLength}
		}
	}
	return 4 + n, nil
}

// decode reads one OXM TLV from the start of b and returns its length. The
// error's Field and Offset are relative to b.
func (o *OXM) decode(b []byte) (int, error) {
	k, derr := checkOXM(b)
	if derr != nil {
		return 0, derr
	}
	h := binary.BigEndian.Uint32(b)
	o.Class = OXMClass(h >> 16)
	o.Field = OXMField(h >> 9 & 0x7f)
	o.HasMask = h&(1<<8) != 0
	body := b[4:k]
	o.Value, o.Mask = [16]byte{}, [16]byte{}
	o.Experimenter = 0
	switch o.Class {
	case OXMClassOpenFlow:
		size := o.Field.Size()
		copy(o.Value[:], body[:size])
		if o.HasMask {
			copy(o.Mask[:], body[size:])
		}
		o.Data = nil
	case OXMClassExperimenter:
		o.Experimenter = binary.BigEndian.Uint32(body)
		o.Data = append(o.Data[:0], body[4:]...)
	default:
		o.Data = append(o.Data[:0], body...)
	}
	return k, nil
}

// String formats o in ovs-ofctl style: "ipv4_src=10.0.0.0/ff000000".
func (o *OXM) String() string {
	switch o.Class {
	case OXMClassOpenFlow:
		s := o.Field.String() + "="
		switch o.Field {
		case FieldIPv4Src, FieldIPv4Dst, FieldARPSPA, FieldARPTPA, FieldIPv6Src, FieldIPv6Dst, FieldIPv6NDTarget:
			s += o.Addr().String()
		case FieldEthDst, FieldEthSrc, FieldARPSHA, FieldARPTHA, FieldIPv6NDSLL, FieldIPv6NDTLL:
			v := o.Value
			s += fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", v[0], v[1], v[2], v[3], v[4], v[5])
		case FieldEthType:
			s += fmt.Sprintf("0x%04x", o.Uint())
		default:
			s += fmt.Sprint(o.Uint())
		}
		if o.HasMask {
			s += fmt.Sprintf("/%x", o.MaskBytes())
		}
		return s
	case OXMClassExperimenter:
		return fmt.Sprintf("experimenter(0x%08x,field=%d,data=%x)", o.Experimenter, o.Field, o.Data)
	case OXMClassNXM0, OXMClassNXM1, OXMClassPacketRegs:
		return o.nxmString()
	}
	return fmt.Sprintf("oxm(class=0x%04x,field=%d,hasmask=%t,data=%x)", uint16(o.Class), o.Field, o.HasMask, o.Data)
}

// Match types (OpenFlow 1.3.5 §7.2.3.1, enum ofp_match_type).
const (
	MatchTypeStandard uint16 = 0 // OFPMT_STANDARD (deprecated, rejected)
	MatchTypeOXM      uint16 = 1 // OFPMT_OXM
)

// MatchHeaderLen is the size of ofp_match's fixed part, its type and
// length; the OXM TLVs follow it.
const MatchHeaderLen = 4

// MatchHeader returns the type and length fields of the ofp_match at the
// start of m, which holds at least MatchHeaderLen bytes. The length counts
// the fixed part and the OXMs, not the padding (MatchPaddedLen).
func MatchHeader(m []byte) (typ, length uint16) {
	return binary.BigEndian.Uint16(m), binary.BigEndian.Uint16(m[2:])
}

// MatchPaddedLen returns the bytes an ofp_match whose length field says
// length takes on the wire: length rounded up to a multiple of 8.
func MatchPaddedLen(length int) int { return (length + 7) &^ 7 }

// Match is ofp_match (OpenFlow 1.3.5 §7.2.3.1): a list of OXM TLVs. The
// zero Match matches every packet and encodes as the 8-byte empty OXM
// match.
type Match struct {
	Fields []OXM
}

// Len returns the encoded size of m, padding included.
func (m *Match) Len() int { return wire.Align8(m.unpaddedLen()) }

func (m *Match) unpaddedLen() int {
	n := 4
	for i := range m.Fields {
		n += m.Fields[i].Len()
	}
	return n
}

// AppendBinary appends ofp_match with its padding.
func (m *Match) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, byte(MatchTypeOXM), 0, 0)
	var err error
	for i := range m.Fields {
		if dst, err = m.Fields[i].AppendBinary(dst); err != nil {
			return dst[:start], err
		}
	}
	n := len(dst) - start
	if n > 0xffff {
		return dst[:start], &EncodeError{Field: "match.length", Err: ErrBadMatchLength}
	}
	dst[start+2], dst[start+3] = byte(n>>8), byte(n)
	return wire.PadTo8(dst, start), nil
}

// decode reads ofp_match from the start of b and returns its padded length.
// Errors are relative to b with Field under "match".
func (m *Match) decode(b []byte) (int, error) {
	if len(b) < 4 {
		return 0, &DecodeError{Field: "match", Offset: 0, Err: ErrBadMatchLength}
	}
	typ := binary.BigEndian.Uint16(b)
	n := int(binary.BigEndian.Uint16(b[2:]))
	if typ != MatchTypeOXM {
		return 0, &DecodeError{Field: "match.type", Offset: 0, Err: ErrBadMatchType}
	}
	padded := wire.Align8(n)
	if n < 4 || padded > len(b) {
		return 0, &DecodeError{Field: "match.length", Offset: 2, Err: ErrBadMatchLength}
	}
	m.Fields = m.Fields[:0]
	for off, i := 4, 0; off < n; i++ {
		if cap(m.Fields) > len(m.Fields) {
			m.Fields = m.Fields[:len(m.Fields)+1]
		} else {
			m.Fields = append(m.Fields, OXM{})
		}
		k, err := m.Fields[len(m.Fields)-1].decode(b[off:n])
		if err != nil {
			de := err.(*DecodeError)
			de.Field = fmt.Sprintf("match.oxm[%d].%s", i, de.Field)
			de.Offset += off
			return 0, err
		}
		off += k
	}
	if len(m.Fields) == 0 {
		m.Fields = m.Fields[:0]
	}
	return padded, nil
}

// Field returns the first OXM of the basic class with the given field, or
// nil.
func (m *Match) Field(f OXMField) *OXM {
	for i := range m.Fields {
		if m.Fields[i].Class == OXMClassOpenFlow && m.Fields[i].Field == f {
			return &m.Fields[i]
		}
	}
	return nil
}

// Validate checks m as a switch must before accepting a flow entry
// (OpenFlow 1.3.5 §7.2.3.6 and §7.2.3.8): no basic field twice
// (BAD_MATCH/DUP_FIELD), no value bit set outside its mask
// (BAD_MATCH/BAD_WILDCARDS), and every field's prerequisite present with the
// required value (BAD_MATCH/BAD_PREREQ). Masks on fields the spec lists as
// not maskable are accepted (Open vSwitch accepts them); ValidateStrict
// rejects them. The error is a *DecodeError whose ErrorMsg is the OFPT_ERROR
// to send; its Offset is relative to the start of the match.
func (m *Match) Validate() error { return m.validate(false) }

// ValidateStrict is Validate that also rejects a mask on a field that
// OpenFlow 1.3 does not allow to be masked (BAD_MATCH/BAD_MASK).
func (m *Match) ValidateStrict() error { return m.validate(true) }

func (m *Match) validate(strict bool) error {
	facts := m.facts()
	var seen uint64
	off := 4
	for i := range m.Fields {
		o := &m.Fields[i]
		at := off
		off += o.Len()
		if o.Class != OXMClassOpenFlow {
			continue
		}
		f := o.Field
		if !f.known() {
			return m.verr(i, at, "field", ErrBadField)
		}
		if seen&(1<<f) != 0 {
			return m.verr(i, at, "field", ErrDuplicateField)
		}
		seen |= 1 << f
		if o.HasMask {
			if strict && !f.Maskable() {
				return m.verr(i, at, "mask", ErrBadMask)
			}
			for j := 0; j < f.Size(); j++ {
				if o.Value[j]&^o.Mask[j] != 0 {
					return m.verr(i, at, "value", ErrBadWildcards)
				}
			}
		}
		if !facts.met(fields[f].pre) {
			return m.verr(i, at, "prerequisite", ErrBadPrereq)
		}
	}
	return nil
}

func (m *Match) verr(i, off int, what string, err error) error {
	return &DecodeError{Field: fmt.Sprintf("match.oxm[%d].%s", i, what), Offset: off, Err: err}
}

// matchFacts holds what the prerequisites of a match's fields test, read in
// one pass over the match: for each field, the first basic-class OXM that
// has it, as Field returns.
type matchFacts struct {
	eth, proto, icmp6         uint64 // exact values
	hasEth, hasProto, hasICMP bool   // present without a mask
	inPort                    bool   // IN_PORT present
	vlan                      *OXM   // VLAN_VID, or nil
}

func (m *Match) facts() (f matchFacts) {
	var seen uint8
	for i := range m.Fields {
		o := &m.Fields[i]
		if o.Class != OXMClassOpenFlow {
			// The NXM names of the fields prerequisites test, as a
			// controller that speaks NXM may send them beside basic
			// OXMs: NXM_OF_ETH_TYPE, NXM_OF_IP_PROTO, NXM_NX_ICMPV6_TYPE
			// (exact, the length right) and NXM_OF_IN_PORT.
			var bit uint8
			var v uint64
			switch {
			case o.Class == OXMClassNXM0 && o.Field == NXMOfEthType && !o.HasMask && len(o.Data) == 2:
				bit, v = 1, uint64(binary.BigEndian.Uint16(o.Data))
			case o.Class == OXMClassNXM0 && o.Field == NXMOfIPProto && !o.HasMask && len(o.Data) == 1:
				bit, v = 2, uint64(o.Data[0])
			case o.Class == OXMClassNXM1 && o.Field == NXMNxICMPv6Type && !o.HasMask && len(o.Data) == 1:
				bit, v = 4, uint64(o.Data[0])
			case o.Class == OXMClassNXM0 && o.Field == NXMOfInPort:
				bit = 8
			}
			if bit == 0 || seen&bit != 0 {
				continue
			}
			seen |= bit
			switch bit {
			case 1:
				f.eth, f.hasEth = v, true
			case 2:
				f.proto, f.hasProto = v, true
			case 4:
				f.icmp6, f.hasICMP = v, true
			case 8:
				f.inPort = true
			}
			continue
		}
		var bit uint8
		switch o.Field {
		case FieldEthType:
			bit = 1
		case FieldIPProto:
			bit = 2
		case FieldICMPv6Type:
			bit = 4
		case FieldInPort:
			bit = 8
		case FieldVLANVID:
			bit = 16
		default:
			continue
		}
		if seen&bit != 0 {
			continue
		}
		seen |= bit
		switch o.Field {
		case FieldEthType:
			f.eth, f.hasEth = o.Uint(), !o.HasMask
		case FieldIPProto:
			f.proto, f.hasProto = o.Uint(), !o.HasMask
		case FieldICMPv6Type:
			f.icmp6, f.hasICMP = o.Uint(), !o.HasMask
		case FieldInPort:
			f.inPort = true
		case FieldVLANVID:
			f.vlan = o
		}
	}
	return f
}

func (f *matchFacts) ethTypeIs(a, b uint16) bool {
	return f.hasEth && (f.eth == uint64(a) || f.eth == uint64(b))
}

func (f *matchFacts) protoIs(p uint8) bool {
	return f.hasProto && f.proto == uint64(p) && f.ethTypeIs(0x0800, 0x86dd)
}

// met reports whether the match satisfies prerequisite p.
func (f *matchFacts) met(p prereq) bool {
	switch p {
	case preNone:
		return true
	case preInPort:
		return f.inPort
	case preVLAN:
		o := f.vlan
		if o == nil {
			return false
		}
		v := binary.BigEndian.Uint16(o.Value[:])
		if o.HasMask {
			return v&VLANPresent != 0 && binary.BigEndian.Uint16(o.Mask[:])&VLANPresent != 0
		}
		return v&VLANPresent != 0
	case preIP:
		return f.ethTypeIs(0x0800, 0x86dd)
	case preIPv4:
		return f.ethTypeIs(0x0800, 0x0800)
	case preIPv6:
		return f.ethTypeIs(0x86dd, 0x86dd)
	case preARP:
		return f.ethTypeIs(0x0806, 0x0806)
	case preTCP:
		return f.protoIs(6)
	case preUDP:
		return f.protoIs(17)
	case preSCTP:
		return f.protoIs(132)
	case preICMPv4:
		return f.protoIs(1) && f.ethTypeIs(0x0800, 0x0800)
	case preICMPv6:
		return f.protoIs(58) && f.ethTypeIs(0x86dd, 0x86dd)
	case preNDTarget, preNDSLL, preNDTLL:
		if !f.hasICMP || !f.met(preICMPv6) {
			return false
		}
		v := f.icmp6
		return (p != preNDSLL && v == 136) || (p != preNDTLL && v == 135)
	case preMPLS:
		return f.ethTypeIs(0x8847, 0x8848)
	case prePBB:
		return f.ethTypeIs(0x88e7, 0x88e7)
	}
	return false
}

// String formats m in ovs-ofctl style, fields separated by commas.
func (m *Match) String() string {
	s := ""
	for i := range m.Fields {
		if i > 0 {
			s += ","
		}
		s += m.Fields[i].String()
	}
	return s
}
