package rules

import (
	"fmt"
	"strings"
)

// KeyWords is the number of 64-bit words in a Key.
const KeyWords = 36

// Key is the flow key the data plane extracts from a packet: every field a
// Match can test, packed into a fixed-size comparable value. A masked match
// against a Key is a handful of AND and compare operations.
//
// The zero Key has every field zero (no VLAN tag, in_port 0).
//
// Layout (word: fields, high bits first):
//
//	0: ipv4_src(32) ipv4_dst(32)
//	1: in_port(32) eth_type(16) vlan_vid(16, OFPVID_PRESENT included)
//	2: l4_src(16) l4_dst(16) icmp_type(8) icmp_code(8) arp_op(16)
//	3: eth_dst(48) unused(8) ip_proto(8)
//	4: metadata
//	5-6: ipv6_src
//	7-8: ipv6_dst
//	9: eth_src(48) vlan_pcp(8) ip_dscp(6) ip_ecn(2)
//	10: arp_spa(32) arp_tpa(32)
//	11: unused(4) tcp_flags(12) arp_sha or ipv6_nd_sll(48)
//	12: unused(7) ipv6_exthdr(9) arp_tha or ipv6_nd_tll(48)
//	13: tunnel_id
//	14-15: ipv6_nd_target
//	16: mpls_label(20) mpls_tc(3) mpls_bos(1) unused(7) pbb_uca(1) unused(8) pbb_isid(24)
//	17: ipv6_flabel(20) nw_ttl(8) ip_frag(2) unused(1) tun_flags(1) pkt_mark(32)
//	18-25: xreg0 to xreg7, xregN = reg(2N)(32) reg(2N+1)(32)
//	26: tun_src(32) tun_dst(32)
//	27-28: tun_ipv6_src
//	29-30: tun_ipv6_dst
//	31: unused(40) tun_gbp_flags(8) tun_gbp_id(16)
//	32-35: tunnel metadata option space (tun_metadata0-63 as an NXT_TLV_TABLE_MOD maps them)
//
// The fields of an IPv4 5-tuple (eth_type, ip_proto, the addresses, the
// ports) are in words 0-3, the first 32 bytes: a Key is 4.5 cache lines,
// so in an array of Keys every other one starts in the middle of a line,
// and only the first four words are on one line in either case. The
// guard, hash and compare of an IPv4 5-tuple subtable then read one line
// of the key, where words 1, 3, 4 and 9 were on two; the check of a
// merged rule reads word 10 (the ARP addresses) too, on the next line.
//
// Words 18-35 are packet metadata that no header carries: registers, which
// start at 0 for every packet, and the fields of a tunnel, which no packet
// of this switch comes from. A register pair in one word is Open
// vSwitch's flow_get_xreg, so a 64-bit xreg mask is one word mask. A
// subtable whose mask leaves these words zero packs, hashes and compares
// no more words than before they existed.
//
// One field may hold several OXM fields that no packet carries together, as
// the transport ports hold TCP, UDP or SCTP ports: FieldARPSHA and
// FieldARPTHA hold the ARP hardware addresses of an ARP packet and the
// link-layer address options (OXM_OF_IPV6_ND_SLL, IPV6_ND_TLL) of an IPv6
// neighbor solicitation or advertisement; which one follows from eth_type
// and icmpv6_type, and the prerequisites keep a match from testing both.
// Every other field has bits of its own, so that the set of fields a mask
// tests (and with it the prerequisites) follows from the mask alone.
type Key [KeyWords]uint64

// Field names one match field of a Key.
type Field uint8

// Fields, with the OXM field each corresponds to. L4Src and L4Dst hold the
// TCP, UDP or SCTP port (which one follows from ip_proto); ICMPType and
// ICMPCode hold ICMPv4 or ICMPv6 values (following ip_proto 1 or 58).
const (
	FieldInPort      Field = iota // OXM_OF_IN_PORT
	FieldMetadata                 // OXM_OF_METADATA
	FieldEthDst                   // OXM_OF_ETH_DST
	FieldEthSrc                   // OXM_OF_ETH_SRC
	FieldEthType                  // OXM_OF_ETH_TYPE
	FieldVLANVID                  // OXM_OF_VLAN_VID (with OFPVID_PRESENT 0x1000)
	FieldVLANPCP                  // OXM_OF_VLAN_PCP
	FieldIPDSCP                   // OXM_OF_IP_DSCP
	FieldIPECN                    // OXM_OF_IP_ECN
	FieldIPProto                  // OXM_OF_IP_PROTO
	FieldIPv4Src                  // OXM_OF_IPV4_SRC
	FieldIPv4Dst                  // OXM_OF_IPV4_DST
	FieldIPv6Src                  // OXM_OF_IPV6_SRC (128 bits)
	FieldIPv6Dst                  // OXM_OF_IPV6_DST (128 bits)
	FieldL4Src                    // OXM_OF_TCP_SRC, UDP_SRC, SCTP_SRC
	FieldL4Dst                    // OXM_OF_TCP_DST, UDP_DST, SCTP_DST
	FieldICMPType                 // OXM_OF_ICMPV4_TYPE, ICMPV6_TYPE
	FieldICMPCode                 // OXM_OF_ICMPV4_CODE, ICMPV6_CODE
	FieldARPOp                    // OXM_OF_ARP_OP
	FieldARPSPA                   // OXM_OF_ARP_SPA
	FieldARPTPA                   // OXM_OF_ARP_TPA
	FieldARPSHA                   // OXM_OF_ARP_SHA
	FieldARPTHA                   // OXM_OF_ARP_THA
	FieldTCPFlags                 // ONF EXT-109 tcp_flags (OXM_OF_TCP_FLAGS in OpenFlow 1.5): 12 bits
	FieldIPv6Exthdr               // OXM_OF_IPV6_EXTHDR: 9 bits of OFPIEH_* flags
	FieldTunnelID                 // OXM_OF_TUNNEL_ID: metadata of a packet's tunnel (64 bits)
	FieldNDTarget                 // OXM_OF_IPV6_ND_TARGET (128 bits)
	FieldMPLSLabel                // OXM_OF_MPLS_LABEL: 20 bits of the outermost MPLS label
	FieldMPLSTC                   // OXM_OF_MPLS_TC: 3 bits
	FieldMPLSBoS                  // OXM_OF_MPLS_BOS: 1 bit
	FieldPBBUCA                   // OXM_OF_PBB_UCA: 1 bit of the I-TAG
	FieldPBBISID                  // OXM_OF_PBB_ISID: 24 bits of the I-TAG
	FieldIPv6FLabel               // OXM_OF_IPV6_FLABEL: 20 bits
	FieldNwTTL                    // NXM_NX_IP_TTL: the IPv4 TTL or IPv6 hop limit, 8 bits, no mask
	FieldIPFrag                   // NXM_NX_IP_FRAG: IPFragAny | IPFragLater, 2 bits
	FieldTunFlags                 // NXM_NX_TUN_FLAGS: the public tunnel flags, 1 bit (TunFlagOAM)
	FieldPktMark                  // NXM_NX_PKT_MARK: packet metadata, 32 bits
	FieldXReg0                    // NXM_NX_REG0 and REG1 (OXM_OF_PKT_REG0): reg0<<32 | reg1
	FieldXReg1                    // reg2<<32 | reg3
	FieldXReg2                    // reg4<<32 | reg5
	FieldXReg3                    // reg6<<32 | reg7
	FieldXReg4                    // reg8<<32 | reg9
	FieldXReg5                    // reg10<<32 | reg11
	FieldXReg6                    // reg12<<32 | reg13
	FieldXReg7                    // reg14<<32 | reg15
	FieldTunSrc                   // NXM_NX_TUN_IPV4_SRC: a tunnel's outer IPv4 source, 32 bits
	FieldTunDst                   // NXM_NX_TUN_IPV4_DST: a tunnel's outer IPv4 destination, 32 bits
	FieldTunIPv6Src               // NXM_NX_TUN_IPV6_SRC: a tunnel's outer IPv6 source (128 bits)
	FieldTunIPv6Dst               // NXM_NX_TUN_IPV6_DST: a tunnel's outer IPv6 destination (128 bits)
	FieldTunGbpID                 // NXM_NX_TUN_GBP_ID: VXLAN Group Policy ID, 16 bits
	FieldTunGbpFlags              // NXM_NX_TUN_GBP_FLAGS: VXLAN Group Policy flags, 8 bits
	FieldTunOpts0                 // bytes 0-7 of the tunnel metadata option space (tun_metadata0-63 as a TLV table maps them)
	FieldTunOpts1                 // bytes 8-15 of the option space
	FieldTunOpts2                 // bytes 16-23 of the option space
	FieldTunOpts3                 // bytes 24-31 of the option space
	numFields
)

// NumFields is the number of Fields.
const NumFields = int(numFields)

type fieldInfo struct {
	name     string
	word     uint8 // first word; 128-bit fields use word and word+1
	shift    uint8
	bits     uint8 // 1..64, or 128
	maskable bool  // OpenFlow 1.3 allows a mask (L4 ports: as an OVS extension)
}

var fields = [numFields]fieldInfo{
	FieldInPort:   {"in_port", 1, 32, 32, false},
	FieldMetadata: {"metadata", 4, 0, 64, true},
	FieldEthDst:   {"eth_dst", 3, 16, 48, true},
	FieldEthSrc:   {"eth_src", 9, 16, 48, true},
	FieldEthType:  {"eth_type", 1, 16, 16, false},
	FieldVLANVID:  {"vlan_vid", 1, 0, 13, true},
	FieldVLANPCP:  {"vlan_pcp", 9, 8, 3, false},
	FieldIPDSCP:   {"ip_dscp", 9, 2, 6, false},
	FieldIPECN:    {"ip_ecn", 9, 0, 2, false},
	FieldIPProto:  {"ip_proto", 3, 0, 8, false},
	FieldIPv4Src:  {"ipv4_src", 0, 32, 32, true},
	FieldIPv4Dst:  {"ipv4_dst", 0, 0, 32, true},
	FieldIPv6Src:  {"ipv6_src", 5, 0, 128, true},
	FieldIPv6Dst:  {"ipv6_dst", 7, 0, 128, true},
	FieldL4Src:    {"l4_src", 2, 48, 16, true},
	FieldL4Dst:    {"l4_dst", 2, 32, 16, true},
	FieldICMPType: {"icmp_type", 2, 24, 8, false},
	FieldICMPCode: {"icmp_code", 2, 16, 8, false},
	FieldARPOp:    {"arp_op", 2, 0, 16, false},
	FieldARPSPA:   {"arp_spa", 10, 32, 32, true},
	FieldARPTPA:   {"arp_tpa", 10, 0, 32, true},
	FieldARPSHA:   {"arp_sha", 11, 0, 48, true},
	FieldARPTHA:   {"arp_tha", 12, 0, 48, true},
	FieldTCPFlags: {"tcp_flags", 11, 48, 12, true},

	FieldIPv6Exthdr: {"ipv6_exthdr", 12, 48, 9, true},
	FieldTunnelID:   {"tunnel_id", 13, 0, 64, true},
	FieldNDTarget:   {"ipv6_nd_target", 14, 0, 128, true},
	FieldMPLSLabel:  {"mpls_label", 16, 44, 20, false},
	FieldMPLSTC:     {"mpls_tc", 16, 41, 3, false},
	FieldMPLSBoS:    {"mpls_bos", 16, 40, 1, false},
	FieldPBBUCA:     {"pbb_uca", 16, 32, 1, false},
	FieldPBBISID:    {"pbb_isid", 16, 0, 24, true},
	FieldIPv6FLabel: {"ipv6_flabel", 17, 44, 20, true},
	FieldNwTTL:      {"nw_ttl", 17, 36, 8, false},
	FieldIPFrag:     {"ip_frag", 17, 34, 2, true},
	FieldTunFlags:   {"tun_flags", 17, 32, 1, true},
	FieldPktMark:    {"pkt_mark", 17, 0, 32, true},
	FieldXReg0:      {"xreg0", 18, 0, 64, true},
	FieldXReg1:      {"xreg1", 19, 0, 64, true},
	FieldXReg2:      {"xreg2", 20, 0, 64, true},
	FieldXReg3:      {"xreg3", 21, 0, 64, true},
	FieldXReg4:      {"xreg4", 22, 0, 64, true},
	FieldXReg5:      {"xreg5", 23, 0, 64, true},
	FieldXReg6:      {"xreg6", 24, 0, 64, true},
	FieldXReg7:      {"xreg7", 25, 0, 64, true},
	FieldTunSrc:     {"tun_src", 26, 32, 32, true},
	FieldTunDst:     {"tun_dst", 26, 0, 32, true},

	FieldTunIPv6Src:  {"tun_ipv6_src", 27, 0, 128, true},
	FieldTunIPv6Dst:  {"tun_ipv6_dst", 29, 0, 128, true},
	FieldTunGbpID:    {"tun_gbp_id", 31, 0, 16, true},
	FieldTunGbpFlags: {"tun_gbp_flags", 31, 16, 8, true},
	FieldTunOpts0:    {"tun_opts0", 32, 0, 64, true},
	FieldTunOpts1:    {"tun_opts1", 33, 0, 64, true},
	FieldTunOpts2:    {"tun_opts2", 34, 0, 64, true},
	FieldTunOpts3:    {"tun_opts3", 35, 0, 64, true},
}

// TunOptsBytes is the size of the tunnel metadata option space,
// FieldTunOpts0 to FieldTunOpts3: byte i of it is byte i%8 (big-endian)
// of FieldTunOpts0 + i/8.
const TunOptsBytes = 32

// NumRegs is the number of 32-bit registers, reg0 to reg15.
const NumRegs = 16

// RegField returns the field that holds register n (0 to 15) and the
// register's shift in it: reg(2N) is the high half of xregN, reg(2N+1)
// the low half, as in Open vSwitch.
func RegField(n int) (f Field, shift uint) {
	return FieldXReg0 + Field(n/2), 32 * uint(1-n%2)
}

// Reg returns the value and mask register n (0 to 15) is matched with.
func (m *Match) Reg(n int) (v, mask uint32) {
	f, sh := RegField(n)
	return uint32(m.Key.Get(f) >> sh), uint32(m.Mask.Get(f) >> sh)
}

// SetReg makes register n (0 to 15) match v under mask, leaving the other
// register of its pair as it was. A zero mask wildcards it.
func (m *Match) SetReg(n int, v, mask uint32) {
	f, sh := RegField(n)
	keep := ^(uint64(0xffffffff) << sh)
	kv, km := m.Get(f)
	m.Set(f, kv&keep|uint64(v&mask)<<sh, km&keep|uint64(mask)<<sh)
}

// The bits of FieldIPFrag, as Open vSwitch's FLOW_NW_FRAG_ANY and
// FLOW_NW_FRAG_LATER: a fragment of an IPv4 or IPv6 datagram has
// IPFragAny, and one at a non-zero offset also IPFragLater.
const (
	IPFragAny   = 1
	IPFragLater = 2
)

// TunFlagOAM is FieldTunFlags' one bit, Open vSwitch's FLOW_TNL_F_OAM (the
// only tunnel flag it lets a flow match). No packet of this switch comes
// from a tunnel, so the data plane leaves it 0.
const TunFlagOAM = 1

// String returns the field's OXM-style name, e.g. "ipv4_src".
func (f Field) String() string {
	if f < numFields {
		return fields[f].name
	}
	return fmt.Sprintf("field(%d)", uint8(f))
}

// Bits returns the width of the field: 1 to 64, or 128 for IPv6 addresses.
func (f Field) Bits() int { return int(fields[f].bits) }

// Maskable reports whether the field accepts an arbitrary bit mask. OpenFlow
// 1.3 forbids masks on TCP/UDP/SCTP ports; like Open vSwitch, this package
// accepts them, and ValidateStrict rejects them.
func (f Field) Maskable() bool { return fields[f].maskable }

// FullMask returns the all-ones mask of a field of at most 64 bits.
func (f Field) FullMask() uint64 {
	b := fields[f].bits
	if b >= 64 {
		return ^uint64(0)
	}
	return 1<<b - 1
}

// PrefixMask returns the mask of a prefix of bits bits of a field of at
// most 64 bits: its top bits bits set, 0 for bits <= 0, FullMask for bits
// >= f.Bits(). The text formats (packages ofctl and classbench) read and
// print address prefixes with it.
func (f Field) PrefixMask(bits int) uint64 { return prefixMask(f.Bits(), bits) }

// Get returns the value of a field of at most 64 bits. For IPv6 addresses
// use Get128.
func (k *Key) Get(f Field) uint64 {
	fi := &fields[f]
	if fi.bits > 64 {
		panic("rules: Get on 128-bit field " + fi.name)
	}
	return k[fi.word] >> fi.shift & (^uint64(0) >> (64 - fi.bits)) // FullMask, bits 1..64
}

// Set stores v into a field of at most 64 bits; bits of v beyond the field's
// width are dropped.
func (k *Key) Set(f Field, v uint64) {
	fi := &fields[f]
	if fi.bits > 64 {
		panic("rules: Set on 128-bit field " + fi.name)
	}
	m := ^uint64(0) >> (64 - fi.bits) // FullMask, bits 1..64
	k[fi.word] = k[fi.word]&^(m<<fi.shift) | (v&m)<<fi.shift
}

// Get128 returns a 128-bit field (an IPv6 address) as its high and low
// 64-bit halves.
func (k *Key) Get128(f Field) (hi, lo uint64) {
	fi := &fields[f]
	if fi.bits != 128 {
		panic("rules: Get128 on field " + fi.name)
	}
	return k[fi.word], k[fi.word+1]
}

// Set128 stores a 128-bit field (an IPv6 address) from its two halves.
func (k *Key) Set128(f Field, hi, lo uint64) {
	fi := &fields[f]
	if fi.bits != 128 {
		panic("rules: Set128 on field " + fi.name)
	}
	k[fi.word], k[fi.word+1] = hi, lo
}

// And returns k with every bit not in m cleared.
func (k *Key) And(m *Key) Key {
	var r Key
	for i := range r {
		r[i] = k[i] & m[i]
	}
	return r
}

// String lists the non-zero fields of k as name=hex pairs.
func (k Key) String() string {
	var b strings.Builder
	for f := Field(0); f < numFields; f++ {
		if f.Bits() == 128 {
			hi, lo := k.Get128(f)
			if hi|lo != 0 {
				fmt.Fprintf(&b, "%s=%016x%016x,", f, hi, lo)
			}
			continue
		}
		if v := k.Get(f); v != 0 {
			fmt.Fprintf(&b, "%s=%#x,", f, v)
		}
	}
	return strings.TrimSuffix(b.String(), ",")
}
