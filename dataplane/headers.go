package dataplane

import "fmt"

// MaxVLANs is the deepest stack of 802.1Q/802.1ad tags the parser accepts;
// a frame with more tags is counted as [ReasonVLANDepth]. The outer two tags
// are recorded in [Headers]; deeper ones are skipped.
const MaxVLANs = 4

// MaxIPv6Ext is the longest chain of IPv6 extension headers the parser
// walks; a longer chain is counted as [ReasonIPv6ExtDepth].
const MaxIPv6Ext = 8

// Fragment flags in [Headers.Frag], with the meaning of OpenFlow's (and
// Open vSwitch's) nw_frag bits.
const (
	FragAny   = 1 << 0 // the packet is a fragment (IPv4 MF or offset, any IPv6 fragment header)
	FragLater = 1 << 1 // the fragment offset is not zero: no L4 header
)

// Flags of [Headers.IPv6Exthdr]: the OFPIEH_* bits of OXM_OF_IPV6_EXTHDR
// (OpenFlow 1.3.5 §7.2.3.8), which say which IPv6 extension headers a
// packet carries and whether they break RFC 8200's order (§4.1: hop-by-hop,
// destination options, routing, fragment, authentication, ESP, destination
// options) or repeat (each header once, destination options twice).
const (
	ExthdrNoNext = 1 << 0 // OFPIEH_NONEXT: a next header is 59 (no next header)
	ExthdrESP    = 1 << 1 // OFPIEH_ESP: encrypted security payload
	ExthdrAuth   = 1 << 2 // OFPIEH_AUTH: authentication header
	ExthdrDest   = 1 << 3 // OFPIEH_DEST: one or two destination options headers
	ExthdrFrag   = 1 << 4 // OFPIEH_FRAG: fragment header
	ExthdrRouter = 1 << 5 // OFPIEH_ROUTER: routing header
	ExthdrHop    = 1 << 6 // OFPIEH_HOP: hop-by-hop options
	ExthdrUnrep  = 1 << 7 // OFPIEH_UNREP: a header repeated more than allowed
	ExthdrUnseq  = 1 << 8 // OFPIEH_UNSEQ: headers out of the preferred order
)

// EtherType values the parser dispatches on or reports.
const (
	EtherTypeIPv4    = 0x0800
	EtherTypeARP     = 0x0806
	EtherTypeVLAN    = 0x8100 // 802.1Q C-tag
	EtherTypeQinQ    = 0x88a8 // 802.1ad S-tag
	EtherTypeQinQOld = 0x9100 // pre-standard S-tag
	EtherTypeIPv6    = 0x86dd
	EtherTypeMPLS    = 0x8847 // MPLS unicast
	EtherTypeMPLSMC  = 0x8848 // MPLS multicast
	EtherTypePBB     = 0x88e7 // 802.1ah backbone service instance tag (I-TAG)
	// EtherTypeNone is the eth_type OpenFlow reports for 802.3 frames
	// whose type/length field is a length (OFP_DL_TYPE_NOT_ETH_TYPE).
	EtherTypeNone = 0x05ff
)

// IP protocol numbers the parser decodes an L4 header for.
const (
	ProtoICMPv4 = 1
	ProtoTCP    = 6
	ProtoUDP    = 17
	ProtoICMPv6 = 58
	ProtoSCTP   = 132
)

// Headers is the set of header fields the parser extracts from one frame:
// a fixed-size value, copied field by field into the classifier's key.
//
// A field the frame does not carry is zero; presence is told by EthType
// (0x0800, 0x86dd, 0x0806), VLANs, Frag and L4Off. The zero Headers is a
// frame with no recognised field on port 0.
type Headers struct {
	InPort uint32 // ingress port (OpenFlow in_port)

	EthDst, EthSrc [6]byte // zero for loopback frames
	// EthType is the innermost EtherType, after any VLAN tags
	// (EtherTypeNone for 802.3 length frames).
	EthType uint16

	VLANs    uint8     // number of VLAN tags in the frame (0..MaxVLANs)
	VLANPCP  [2]uint8  // priority of the outer [0] and inner [1] tag
	VLANVID  [2]uint16 // 12-bit VLAN ID of the outer [0] and inner [1] tag
	VLANTPID [2]uint16 // TPID that introduced the outer [0] and inner [1] tag

	IPProto uint8 // IPv4 protocol or IPv6 last next-header; also set for later fragments
	IPDSCP  uint8 // DSCP (upper 6 bits of ToS / traffic class)
	IPECN   uint8 // ECN (lower 2 bits)
	IPTTL   uint8 // IPv4 TTL or IPv6 hop limit
	Frag    uint8 // FragAny | FragLater

	IPv4Src, IPv4Dst [4]byte
	IPv6Src, IPv6Dst [16]byte
	IPv6Label        uint32 // 20-bit flow label
	IPv6Exthdr       uint16 // OFPIEH_* flags of the extension headers (see ExthdrHop)
	// NDTarget is the target address of an ICMPv6 neighbor solicitation
	// or advertisement (code 0); its link-layer address options are in
	// ARPSha (source, of a solicitation) and ARPTha (target, of an
	// advertisement), as OpenFlow's key holds them.
	NDTarget [16]byte

	L4Src, L4Dst uint16 // TCP, UDP or SCTP ports
	TCPFlags     uint16 // 12 bits: NS, CWR, ECE, URG, ACK, PSH, RST, SYN, FIN
	ICMPType     uint8  // ICMPv4 or ICMPv6 type
	ICMPCode     uint8  // ICMPv4 or ICMPv6 code

	ARPOp          uint16  // ARP opcode (Ethernet/IPv4 ARP only)
	ARPSpa, ARPTpa [4]byte // sender and target protocol address
	ARPSha, ARPTha [6]byte // sender and target hardware address; ND's SLL and TLL options

	// The outermost MPLS label stack entry, of a frame whose EthType is
	// EtherTypeMPLS or EtherTypeMPLSMC; the labels behind it and the
	// payload are not parsed.
	MPLSLabel uint32 // 20 bits
	MPLSTC    uint8  // 3 bits
	MPLSBoS   uint8  // bottom of stack: 1 or 0
	MPLSTTL   uint8

	// The I-TAG of a frame whose EthType is EtherTypePBB; the customer
	// frame behind it is not parsed (the L2 fields are the backbone's).
	PBBISID uint32 // 24-bit service instance identifier
	PBBUCA  uint8  // use customer address: 1 or 0

	// L3Off and L4Off are byte offsets from the start of the frame of the
	// network and transport headers (0: absent), for rewriting headers.
	L3Off, L4Off uint16
}

// HasL4 reports whether the frame carried a transport header that was
// decoded (TCP, UDP, SCTP, ICMPv4 or ICMPv6).
func (h *Headers) HasL4() bool { return h.L4Off != 0 }

// Reason says why a frame was counted as malformed and skipped.
type Reason uint8

// Reasons for skipping a frame.
const (
	ReasonEthernet     Reason = iota // shorter than an Ethernet header
	ReasonLoopback                   // shorter than the 4-byte loopback header
	ReasonVLAN                       // VLAN tag cut short
	ReasonVLANDepth                  // more than MaxVLANs tags
	ReasonARP                        // ARP header shorter than its declared addresses
	ReasonIPv4Header                 // IPv4 shorter than 20 bytes or than its IHL, or IHL < 5
	ReasonIPv4Version                // EtherType IPv4 but version is not 4
	ReasonIPv4Length                 // IPv4 total length smaller than the header
	ReasonIPv6Header                 // IPv6 shorter than 40 bytes
	ReasonIPv6Version                // EtherType IPv6 but version is not 6
	ReasonIPv6Ext                    // IPv6 extension header cut short
	ReasonIPv6ExtDepth               // more than MaxIPv6Ext extension headers
	ReasonTCP                        // TCP header cut short or data offset < 5 or beyond the data
	ReasonUDP                        // UDP header cut short
	ReasonSCTP                       // SCTP common header cut short
	ReasonICMPv4                     // ICMPv4 header cut short
	ReasonICMPv6                     // ICMPv6 header cut short
	ReasonMPLS                       // EtherType MPLS but no complete label stack entry
	ReasonPBB                        // EtherType PBB but the I-TAG (TCI, C-DA, C-SA) cut short
	ReasonPanic                      // a decoder panicked (a bug; the packet is skipped)
	NumReasons                       // number of reasons
)

var reasonNames = [NumReasons]string{
	"eth", "loopback", "vlan", "vlan-depth", "arp", "ipv4-header", "ipv4-version",
	"ipv4-length", "ipv6-header", "ipv6-version", "ipv6-ext", "ipv6-ext-depth",
	"tcp", "udp", "sctp", "icmpv4", "icmpv6", "mpls", "pbb", "panic",
}

// String returns the short name of r used in reports ("ipv4-header").
func (r Reason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return "reason?"
}

// Kind is a class of parsed frame that [Stats] counts.
type Kind uint8

// Kinds of parsed frames. A frame counts once among KindARP, KindIPv4,
// KindIPv6 and KindOtherL2, at most once among the L4 kinds, and also in
// KindVLAN, KindFragFirst, KindFragLater and KindTruncated when they apply.
const (
	KindARP       Kind = iota // EtherType ARP
	KindIPv4                  // EtherType IPv4
	KindIPv6                  // EtherType IPv6
	KindOtherL2               // any other EtherType (LLDP, MPLS, PBB, 802.3 LLC, ...)
	KindTCP                   // TCP header decoded
	KindUDP                   // UDP header decoded
	KindSCTP                  // SCTP header decoded
	KindICMPv4                // ICMPv4 header decoded
	KindICMPv6                // ICMPv6 header decoded
	KindVLAN                  // at least one VLAN tag
	KindFragFirst             // fragment with offset 0 (L4 decoded if present)
	KindFragLater             // fragment with offset > 0 (no L4)
	KindTruncated             // IP length beyond the captured bytes (parsed up to what is there)
	NumKinds                  // number of kinds
)

var kindNames = [NumKinds]string{
	"arp", "ipv4", "ipv6", "other-l2", "tcp", "udp", "sctp", "icmpv4", "icmpv6",
	"vlan", "frag-first", "frag-later", "truncated",
}

// String returns the short name of k used in reports ("frag-first").
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "kind?"
}

// Stats are one parser's counters: plain integers owned by one worker and
// merged by whoever reads them (see [Stats.Add]). Read == Parsed +
// the sum of Malformed always holds between calls.
type Stats struct {
	Read      uint64             // frames handed to the parser
	Parsed    uint64             // frames parsed into Headers
	Malformed [NumReasons]uint64 // frames skipped, by reason
	Kinds     [NumKinds]uint64   // parsed frames, by kind
}

// Add adds o's counters to s.
func (s *Stats) Add(o *Stats) {
	s.Read += o.Read
	s.Parsed += o.Parsed
	for i := range s.Malformed {
		s.Malformed[i] += o.Malformed[i]
	}
	for i := range s.Kinds {
		s.Kinds[i] += o.Kinds[i]
	}
}

// MalformedTotal returns the number of frames skipped for any reason.
func (s *Stats) MalformedTotal() uint64 {
	var n uint64
	for _, v := range s.Malformed {
		n += v
	}
	return n
}

// String formats s on one line as "packets=N kind=n ... malformed:reason=n
// ...", leaving out zero counts: the format testdata/pcaps/README.md uses.
func (s *Stats) String() string {
	b := make([]byte, 0, 256)
	b = fmt.Appendf(b, "packets=%d", s.Read)
	for k := Kind(0); k < NumKinds; k++ {
		if s.Kinds[k] != 0 {
			b = fmt.Appendf(b, " %s=%d", k, s.Kinds[k])
		}
	}
	for r := Reason(0); r < NumReasons; r++ {
		if s.Malformed[r] != 0 {
			b = fmt.Appendf(b, " malformed:%s=%d", r, s.Malformed[r])
		}
	}
	return string(b)
}
