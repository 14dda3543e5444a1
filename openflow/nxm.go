package openflow

import "fmt"

// Nicira extensible match (NXM) fields, as Open vSwitch's lib/nx-match.c
// and meta-flow.xml number them. Over OpenFlow 1.2 and later an NXM field is
// an OXM of class OXMClassNXM0 (the NXM_OF_* fields, OpenFlow 1.0's fields
// under their Nicira names) or OXMClassNXM1 (the NXM_NX_* extensions);
// ovs-ofctl sends NXM_NX_* for the fields OpenFlow has no OXM for (nw_ttl,
// ip_frag, pkt_mark, tun_flags) and the basic OXM for the others. The
// payload is the value, then the mask when HasMask, in network byte order.
const (
	NXMOfInPort   OXMField = 0  // NXM_OF_IN_PORT: 16-bit OpenFlow 1.0 port
	NXMOfEthDst   OXMField = 1  // NXM_OF_ETH_DST
	NXMOfEthSrc   OXMField = 2  // NXM_OF_ETH_SRC
	NXMOfEthType  OXMField = 3  // NXM_OF_ETH_TYPE
	NXMOfVLANTCI  OXMField = 4  // NXM_OF_VLAN_TCI: 16-bit 802.1Q TCI, CFI set when tagged
	NXMOfIPTos    OXMField = 5  // NXM_OF_IP_TOS: the DSCP bits of the TOS byte (ECN bits zero)
	NXMOfIPProto  OXMField = 6  // NXM_OF_IP_PROTO
	NXMOfIPSrc    OXMField = 7  // NXM_OF_IP_SRC
	NXMOfIPDst    OXMField = 8  // NXM_OF_IP_DST
	NXMOfTCPSrc   OXMField = 9  // NXM_OF_TCP_SRC
	NXMOfTCPDst   OXMField = 10 // NXM_OF_TCP_DST
	NXMOfUDPSrc   OXMField = 11 // NXM_OF_UDP_SRC
	NXMOfUDPDst   OXMField = 12 // NXM_OF_UDP_DST
	NXMOfICMPType OXMField = 13 // NXM_OF_ICMP_TYPE
	NXMOfICMPCode OXMField = 14 // NXM_OF_ICMP_CODE
	NXMOfARPOp    OXMField = 15 // NXM_OF_ARP_OP
	NXMOfARPSPA   OXMField = 16 // NXM_OF_ARP_SPA
	NXMOfARPTPA   OXMField = 17 // NXM_OF_ARP_TPA

	// NXMNxReg0 is NXM_NX_REG0, the first of the sixteen 32-bit
	// registers NXM_NX_REG0 to REG15, fields 0 to 15, maskable.
	NXMNxReg0 OXMField = 0

	NXMNxTunID       OXMField = 16  // NXM_NX_TUN_ID
	NXMNxARPSHA      OXMField = 17  // NXM_NX_ARP_SHA
	NXMNxARPTHA      OXMField = 18  // NXM_NX_ARP_THA
	NXMNxIPv6Src     OXMField = 19  // NXM_NX_IPV6_SRC
	NXMNxIPv6Dst     OXMField = 20  // NXM_NX_IPV6_DST
	NXMNxICMPv6Type  OXMField = 21  // NXM_NX_ICMPV6_TYPE
	NXMNxICMPv6Code  OXMField = 22  // NXM_NX_ICMPV6_CODE
	NXMNxNDTarget    OXMField = 23  // NXM_NX_ND_TARGET
	NXMNxNDSLL       OXMField = 24  // NXM_NX_ND_SLL
	NXMNxNDTLL       OXMField = 25  // NXM_NX_ND_TLL
	NXMNxIPFrag      OXMField = 26  // NXM_NX_IP_FRAG: bit 0 any fragment, bit 1 a later one
	NXMNxIPv6Label   OXMField = 27  // NXM_NX_IPV6_LABEL
	NXMNxIPECN       OXMField = 28  // NXM_NX_IP_ECN
	NXMNxIPTTL       OXMField = 29  // NXM_NX_IP_TTL
	NXMNxTunIPv4Src  OXMField = 31  // NXM_NX_TUN_IPV4_SRC: a tunnel's outer IPv4 source
	NXMNxTunIPv4Dst  OXMField = 32  // NXM_NX_TUN_IPV4_DST: a tunnel's outer IPv4 destination
	NXMNxPktMark     OXMField = 33  // NXM_NX_PKT_MARK
	NXMNxTCPFlags    OXMField = 34  // NXM_NX_TCP_FLAGS
	NXMNxTunGbpID    OXMField = 38  // NXM_NX_TUN_GBP_ID: VXLAN Group Policy ID, 16 bits
	NXMNxTunGbpFlags OXMField = 39  // NXM_NX_TUN_GBP_FLAGS: VXLAN Group Policy flags, 8 bits
	NXMNxTunFlags    OXMField = 104 // NXM_NX_TUN_FLAGS: 16 bits, of which Open vSwitch matches bit 0 (oam)
	NXMNxTunIPv6Src  OXMField = 109 // NXM_NX_TUN_IPV6_SRC: a tunnel's outer IPv6 source
	NXMNxTunIPv6Dst  OXMField = 110 // NXM_NX_TUN_IPV6_DST: a tunnel's outer IPv6 destination
)

// OXMClassPacketRegs is OpenFlow 1.5's OFPXMC_PACKET_REGS, whose fields
// OXM_OF_PKT_REG0 to PKT_REG7 (0 to 7) are 64-bit registers, maskable:
// Open vSwitch's xreg0 to xreg7, each the pair of NXM_NX_REG(2N) (high
// half) and REG(2N+1). Open vSwitch takes them in any OpenFlow version and
// sends the register pairs as NXM_NX_REGs before OpenFlow 1.5. Its payload
// is kept in Data, as a Nicira class's.
const OXMClassPacketRegs OXMClass = 0x8001

// NXM returns the OXM of Nicira class class (OXMClassNXM0 or
// OXMClassNXM1) and field with the given value and, if mask is not nil, a
// mask of the same length.
func NXM(class OXMClass, field OXMField, value, mask []byte) OXM {
	o := OXM{Class: class, Field: field & 0x7f, HasMask: mask != nil}
	o.Data = append(make([]byte, 0, len(value)+len(mask)), value...)
	o.Data = append(o.Data, mask...)
	return o
}

// IsNXM reports whether o is of one of the Nicira classes or
// OXMClassPacketRegs, the classes whose payload Data holds and NXMPayload
// splits.
func (o *OXM) IsNXM() bool {
	return o.Class == OXMClassNXM0 || o.Class == OXMClassNXM1 || o.Class == OXMClassPacketRegs
}

// NXMPayload splits the payload of a Nicira-class OXM into its value and
// mask (nil when it has none), each size bytes. ok is false when o is not
// of a Nicira class or its payload is not size bytes, twice that with a
// mask: OFPBMC_BAD_LEN for a switch.
func (o *OXM) NXMPayload(size int) (value, mask []byte, ok bool) {
	if !o.IsNXM() || size <= 0 {
		return nil, nil, false
	}
	if !o.HasMask {
		if len(o.Data) != size {
			return nil, nil, false
		}
		return o.Data, nil, true
	}
	if len(o.Data) != 2*size {
		return nil, nil, false
	}
	return o.Data[:size], o.Data[size:], true
}

// nxmNames names the Nicira fields that this package's String knows.
var nxmNames = map[uint32]string{
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfInPort):   "NXM_OF_IN_PORT",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfEthDst):   "NXM_OF_ETH_DST",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfEthSrc):   "NXM_OF_ETH_SRC",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfEthType):  "NXM_OF_ETH_TYPE",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfVLANTCI):  "NXM_OF_VLAN_TCI",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfIPTos):    "NXM_OF_IP_TOS",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfIPProto):  "NXM_OF_IP_PROTO",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfIPSrc):    "NXM_OF_IP_SRC",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfIPDst):    "NXM_OF_IP_DST",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfTCPSrc):   "NXM_OF_TCP_SRC",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfTCPDst):   "NXM_OF_TCP_DST",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfUDPSrc):   "NXM_OF_UDP_SRC",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfUDPDst):   "NXM_OF_UDP_DST",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfICMPType): "NXM_OF_ICMP_TYPE",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfICMPCode): "NXM_OF_ICMP_CODE",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfARPOp):    "NXM_OF_ARP_OP",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfARPSPA):   "NXM_OF_ARP_SPA",
	uint32(OXMClassNXM0)<<8 | uint32(NXMOfARPTPA):   "NXM_OF_ARP_TPA",

	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunID):       "NXM_NX_TUN_ID",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxARPSHA):      "NXM_NX_ARP_SHA",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxARPTHA):      "NXM_NX_ARP_THA",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxIPv6Src):     "NXM_NX_IPV6_SRC",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxIPv6Dst):     "NXM_NX_IPV6_DST",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxICMPv6Type):  "NXM_NX_ICMPV6_TYPE",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxICMPv6Code):  "NXM_NX_ICMPV6_CODE",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxNDTarget):    "NXM_NX_ND_TARGET",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxNDSLL):       "NXM_NX_ND_SLL",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxNDTLL):       "NXM_NX_ND_TLL",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxIPFrag):      "NXM_NX_IP_FRAG",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxIPv6Label):   "NXM_NX_IPV6_LABEL",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxIPECN):       "NXM_NX_IP_ECN",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxIPTTL):       "NXM_NX_IP_TTL",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunIPv4Src):  "NXM_NX_TUN_IPV4_SRC",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunIPv4Dst):  "NXM_NX_TUN_IPV4_DST",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxPktMark):     "NXM_NX_PKT_MARK",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTCPFlags):    "NXM_NX_TCP_FLAGS",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunFlags):    "NXM_NX_TUN_FLAGS",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunGbpID):    "NXM_NX_TUN_GBP_ID",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunGbpFlags): "NXM_NX_TUN_GBP_FLAGS",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunIPv6Src):  "NXM_NX_TUN_IPV6_SRC",
	uint32(OXMClassNXM1)<<8 | uint32(NXMNxTunIPv6Dst):  "NXM_NX_TUN_IPV6_DST",
}

// NXMName returns Open vSwitch's name of the Nicira field (e.g.
// "NXM_NX_IP_TTL"), or "" if this package does not know it.
func NXMName(class OXMClass, field OXMField) string {
	switch {
	case class == OXMClassNXM1 && field < NXMNxReg0+16:
		return fmt.Sprintf("NXM_NX_REG%d", field-NXMNxReg0)
	case class == OXMClassPacketRegs && field < 8:
		return fmt.Sprintf("OXM_OF_PKT_REG%d", field)
	case class != OXMClassNXM0 && class != OXMClassNXM1:
		return ""
	}
	return nxmNames[uint32(class)<<8|uint32(field)]
}

// nxmString formats a Nicira-class OXM: its name (or class and field)
// and its payload in hex, value/mask.
func (o *OXM) nxmString() string {
	name := NXMName(o.Class, o.Field)
	if name == "" {
		name = fmt.Sprintf("NXM(0x%04x,%d)", uint16(o.Class), o.Field)
	}
	if o.HasMask && len(o.Data)%2 == 0 {
		n := len(o.Data) / 2
		return fmt.Sprintf("%s(%x/%x)", name, o.Data[:n], o.Data[n:])
	}
	return fmt.Sprintf("%s(%x)", name, o.Data)
}
