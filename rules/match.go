package rules

import (
	"fmt"
	"math/bits"
	"strings"
)

// EtherTypes and IP protocol numbers the prerequisites refer to.
const (
	EthTypeIPv4 = 0x0800
	EthTypeARP  = 0x0806
	EthTypeVLAN = 0x8100
	EthTypeIPv6 = 0x86dd
	EthTypeMPLS = 0x8847
	// EthTypeMPLSMulticast is the EtherType of multicast MPLS.
	EthTypeMPLSMulticast = 0x8848
	EthTypePBB           = 0x88e7 // 802.1ah I-TAG

	IPProtoICMP   = 1
	IPProtoTCP    = 6
	IPProtoUDP    = 17
	IPProtoICMPv6 = 58
	IPProtoSCTP   = 132

	ICMPv6NeighborSolicit = 135
	ICMPv6NeighborAdvert  = 136

	// VIDPresent is OFPVID_PRESENT: set in vlan_vid when a tag is present.
	VIDPresent = 0x1000
)

// Match is a value and a mask over a Key: a packet key k matches when
// k AND Mask equals Key for every word. A zero mask word wildcards all its
// fields; the zero Match matches every packet.
//
// Setters keep Key within Mask, so two Matches that test the same packets
// compare equal with ==.
type Match struct {
	Key  Key // value; bits outside Mask are zero
	Mask Key
}

// Set makes f match v under mask (for fields of at most 64 bits). A zero mask
// wildcards the field.
func (m *Match) Set(f Field, v, mask uint64) {
	// Key.Set of the mask and of the value, the field looked up once.
	fi := &fields[f]
	if fi.bits > 64 {
		panic("rules: Set on 128-bit field " + fi.name)
	}
	full := ^uint64(0) >> (64 - fi.bits) // FullMask, bits 1..64
	mask &= full
	w, sh := fi.word, fi.shift
	m.Mask[w] = m.Mask[w]&^(full<<sh) | mask<<sh
	m.Key[w] = m.Key[w]&^(full<<sh) | (v&mask)<<sh
}

// SetExact makes f match exactly v.
func (m *Match) SetExact(f Field, v uint64) { m.Set(f, v, f.FullMask()) }

// SetPrefix makes an address field (IPv4, ARP SPA/TPA) match the first bits
// bits of v. bits = 0 wildcards it.
func (m *Match) SetPrefix(f Field, v uint64, bits int) {
	m.Set(f, v, prefixMask(f.Bits(), bits))
}

// Set128 makes a 128-bit field (IPv6 address) match value under mask.
func (m *Match) Set128(f Field, vhi, vlo, mhi, mlo uint64) {
	m.Mask.Set128(f, mhi, mlo)
	m.Key.Set128(f, vhi&mhi, vlo&mlo)
}

// SetPrefix128 makes an IPv6 field match the first bits bits of (hi, lo).
func (m *Match) SetPrefix128(f Field, hi, lo uint64, bits int) {
	var mhi, mlo uint64
	switch {
	case bits >= 128:
		mhi, mlo = ^uint64(0), ^uint64(0)
	case bits > 64:
		mhi, mlo = ^uint64(0), ^uint64(0)<<(128-bits)
	case bits > 0:
		mhi = ^uint64(0) << (64 - bits)
	}
	m.Set128(f, hi, lo, mhi, mlo)
}

// Clear wildcards f.
func (m *Match) Clear(f Field) {
	if f.Bits() == 128 {
		m.Set128(f, 0, 0, 0, 0)
		return
	}
	m.Set(f, 0, 0)
}

// Get returns the value and mask of a field of at most 64 bits.
func (m *Match) Get(f Field) (v, mask uint64) { return m.Key.Get(f), m.Mask.Get(f) }

// Has reports whether f is tested (its mask is not all zero).
func (m *Match) Has(f Field) bool {
	if f.Bits() == 128 {
		hi, lo := m.Mask.Get128(f)
		return hi|lo != 0
	}
	return m.Mask.Get(f) != 0
}

// Exact reports whether f is tested on all of its bits with value v.
func (m *Match) Exact(f Field, v uint64) bool {
	return m.Mask.Get(f) == f.FullMask() && m.Key.Get(f) == v
}

// Matches reports whether the packet key k matches.
func (m *Match) Matches(k *Key) bool {
	for i := range k {
		if k[i]&m.Mask[i] != m.Key[i] {
			return false
		}
	}
	return true
}

// Covers reports whether every packet that matches o also matches m: m's
// mask is a subset of o's and they agree on it. This is the non-strict
// selection rule of FLOW_MOD MODIFY and DELETE.
func (m *Match) Covers(o *Match) bool {
	for i := range m.Key {
		if m.Mask[i]&^o.Mask[i] != 0 || o.Key[i]&m.Mask[i] != m.Key[i] {
			return false
		}
	}
	return true
}

// Overlaps reports whether some packet matches both m and o.
func (m *Match) Overlaps(o *Match) bool {
	for i := range m.Key {
		if (m.Key[i]^o.Key[i])&m.Mask[i]&o.Mask[i] != 0 {
			return false
		}
	}
	return true
}

// Normalize clears value bits outside the mask.
func (m *Match) Normalize() {
	for i := range m.Key {
		m.Key[i] &= m.Mask[i]
	}
}

func prefixMask(width, bits int) uint64 {
	if bits <= 0 {
		return 0
	}
	if bits >= width {
		bits = width
	}
	full := uint64(1)<<width - 1
	if width == 64 {
		full = ^uint64(0)
	}
	return full &^ (full >> bits)
}

// Validate checks m the way an Open vSwitch OpenFlow 1.3 switch does: value
// bits outside the mask (OFPBMC_BAD_WILDCARDS), masks on fields that take none
// (OFPBMC_BAD_MASK; masked L4 ports are accepted as OVS accepts them) and the
// prerequisites of OpenFlow 1.3.5 table 12 (OFPBMC_BAD_PREREQ). The error is
// an *Error that errors.Is matches against ErrBadWildcards, ErrBadMask or
// ErrBadPrereq.
func (m *Match) Validate() error { return m.validate(false) }

// ValidateStrict is Validate, but also rejects masked TCP/UDP/SCTP ports with
// OFPBMC_BAD_MASK as a strict OpenFlow 1.3 switch must.
func (m *Match) ValidateStrict() error { return m.validate(true) }

func (m *Match) validate(strict bool) error { return m.validateCached(strict, nil, nil) }

// maskCache remembers the last mask that passed validation's mask checks,
// and the fields it tests: the rules of a burst mostly share a mask.
type maskCache struct {
	ok      bool
	strict  bool
	mask    Key
	present uint64
}

// This does not compile unless KeyWords is a multiple of four.
var _ [0]struct{} = [KeyWords % 4]struct{}{}

// validateCached is validate; c, when not nil, skips the mask checks of a
// mask that passed them last time, and mi, when not nil the maskInfo of
// m's mask, of a mask that passed them once: churn over many masks misses
// c at almost every update, and working out the fields a mask tests
// (present) then was some 3% of an update.
func (m *Match) validateCached(strict bool, c *maskCache, mi *maskInfo) error {
	// Four accumulators, four words a step (KeyWords is a multiple of
	// four): every add reads the whole Match here, and one dependent OR
	// chain over the 36 words cost more than the loads.
	var o0, o1, o2, o3 uint64
	for i := range KeyWords / 4 {
		j := 4 * i
		o0 |= m.Key[j] &^ m.Mask[j]
		o1 |= m.Key[j+1] &^ m.Mask[j+1]
		o2 |= m.Key[j+2] &^ m.Mask[j+2]
		o3 |= m.Key[j+3] &^ m.Mask[j+3]
	}
	if o0|o1|o2|o3 != 0 {
		for i := range m.Key {
			if bad := m.Key[i] &^ m.Mask[i]; bad != 0 {
				return &Error{Type: ErrTypeBadMatch, Code: BadMatchBadWildcards, Field: wordFields(i, bad),
					Why: "value has bits set outside the mask"}
			}
		}
	}
	passed := uint8(1)
	if strict {
		passed = 2
	}
	if mi != nil && mi.passed&passed != 0 {
		return m.checkPrereqsOf(mi.present)
	}
	if c != nil && c.ok && c.strict == strict && c.mask == m.Mask {
		// mi's mask is c's: the next update of it skips the compare.
		if mi != nil {
			mi.passed |= passed
			mi.present = c.present
		}
		return m.checkPrereqsOf(c.present)
	}
	p := m.present()
	unmaskable := unmaskableFields
	if strict {
		unmaskable |= 1<<FieldL4Src | 1<<FieldL4Dst
	}
	for q := p & unmaskable; q != 0; q &= q - 1 {
		f := Field(bits.TrailingZeros64(q))
		if wm := fieldWordMask[f]; m.Mask[fields[f].word]&wm != wm {
			return &Error{Type: ErrTypeBadMatch, Code: BadMatchBadMask, Field: f.String(),
				Why: fmt.Sprintf("mask %#x on a field that takes no mask", m.Mask.Get(f))}
		}
	}
	if c != nil {
		*c = maskCache{ok: true, strict: strict, mask: m.Mask, present: p}
	}
	if mi != nil {
		mi.passed |= passed
		mi.present = p
	}
	return m.checkPrereqsOf(p)
}

// fieldWordMask is, for each field of at most 64 bits, its bits in its word.
var fieldWordMask = func() (wm [numFields]uint64) {
	for f := range numFields {
		if fields[f].bits <= 64 {
			wm[f] = f.FullMask() << fields[f].shift
		}
	}
	return wm
}()

// unmaskableFields is the set of fields of at most 64 bits that take no mask.
var unmaskableFields = func() (s uint64) {
	for f := range numFields {
		if fields[f].bits <= 64 && !fields[f].maskable {
			s |= 1 << f
		}
	}
	return s
}()

// present returns the set of fields m tests, bit f for Field f.
func (m *Match) present() uint64 {
	var p uint64
	for f := range numFields {
		fi := &fields[f]
		t := m.Mask[fi.word] & fieldWordMask[f]
		if fi.bits == 128 {
			t = m.Mask[fi.word] | m.Mask[fi.word+1]
		}
		if t != 0 {
			p |= 1 << f
		}
	}
	return p
}

func wordFields(w int, bits uint64) string {
	var names []string
	for f := Field(0); f < numFields; f++ {
		fi := &fields[f]
		if int(fi.word) == w || (fi.bits == 128 && int(fi.word)+1 == w) {
			if fi.bits == 128 {
				names = append(names, fi.name)
				continue
			}
			if bits&(f.FullMask()<<fi.shift) != 0 {
				names = append(names, fi.name)
			}
		}
	}
	return strings.Join(names, ",")
}

func prereq(f Field, why string) error {
	return &Error{Type: ErrTypeBadMatch, Code: BadMatchBadPrereq, Field: f.String(), Why: why}
}

// checkPrereqs applies OpenFlow 1.3.5 table 12.
func (m *Match) checkPrereqs() error { return m.checkPrereqsOf(m.present()) }

// checkPrereqsOf is checkPrereqs given m.present().
func (m *Match) checkPrereqsOf(p uint64) error {
	if p&prereqFields == 0 {
		return nil
	}
	ethType, ethMask := m.Get(FieldEthType)
	ethIs := func(t uint64) bool { return ethMask == 0xffff && ethType == t }
	proto, protoMask := m.Get(FieldIPProto)
	protoIs := func(t uint64) bool { return protoMask == 0xff && proto == t }
	isIP := ethIs(EthTypeIPv4) || ethIs(EthTypeIPv6)
	first := func(s uint64) Field { return Field(bits.TrailingZeros64(s)) }
	if p&(1<<FieldVLANPCP) != 0 {
		v, mask := m.Get(FieldVLANVID)
		if mask&VIDPresent == 0 || v&VIDPresent == 0 {
			return prereq(FieldVLANPCP, "needs vlan_vid with OFPVID_PRESENT")
		}
	}
	if s := p & (1<<FieldIPDSCP | 1<<FieldIPECN | 1<<FieldIPProto | 1<<FieldNwTTL | 1<<FieldIPFrag); s != 0 && !isIP {
		return prereq(first(s), "needs eth_type=0x0800 or 0x86dd")
	}
	if s := p & (1<<FieldIPv4Src | 1<<FieldIPv4Dst); s != 0 && !ethIs(EthTypeIPv4) {
		return prereq(first(s), "needs eth_type=0x0800")
	}
	if s := p & (1<<FieldIPv6Src | 1<<FieldIPv6Dst | 1<<FieldIPv6FLabel | 1<<FieldIPv6Exthdr); s != 0 && !ethIs(EthTypeIPv6) {
		return prereq(first(s), "needs eth_type=0x86dd")
	}
	if s := p & arpFields; s != 0 && !ethIs(EthTypeARP) {
		// arp_sha and arp_tha also hold ipv6_nd_sll and ipv6_nd_tll,
		// whose prerequisite is an ICMPv6 neighbor solicitation (sll) or
		// advertisement (tll).
		nd := func(want uint64) bool { return m.isND(want, want) }
		if s&^(1<<FieldARPSHA|1<<FieldARPTHA) != 0 || s&(1<<FieldARPSHA) != 0 && !nd(ICMPv6NeighborSolicit) ||
			s&(1<<FieldARPTHA) != 0 && !nd(ICMPv6NeighborAdvert) {
			return prereq(first(s), "needs eth_type=0x0806, or icmpv6_type=135 for ipv6_nd_sll, 136 for ipv6_nd_tll")
		}
	}
	if s := p & (1<<FieldL4Src | 1<<FieldL4Dst); s != 0 && !(protoIs(IPProtoTCP) || protoIs(IPProtoUDP) || protoIs(IPProtoSCTP)) {
		return prereq(first(s), "needs ip_proto=6, 17 or 132")
	}
	if p&(1<<FieldTCPFlags) != 0 && !protoIs(IPProtoTCP) {
		return prereq(FieldTCPFlags, "needs ip_proto=6")
	}
	if s := p & (1<<FieldICMPType | 1<<FieldICMPCode); s != 0 && !(protoIs(IPProtoICMP) && ethIs(EthTypeIPv4) ||
		protoIs(IPProtoICMPv6) && ethIs(EthTypeIPv6)) {
		return prereq(first(s), "needs ip_proto=1 with eth_type=0x0800 or ip_proto=58 with eth_type=0x86dd")
	}
	if p&(1<<FieldNDTarget) != 0 && !m.isND(ICMPv6NeighborSolicit, ICMPv6NeighborAdvert) {
		return prereq(FieldNDTarget, "needs icmpv6_type=135 or 136 (and icmpv6_code=0 if any)")
	}
	if s := p & mplsFields; s != 0 && !(ethIs(EthTypeMPLS) || ethIs(EthTypeMPLSMulticast)) {
		return prereq(first(s), "needs eth_type=0x8847 or 0x8848")
	}
	if s := p & (1<<FieldPBBISID | 1<<FieldPBBUCA); s != 0 && !ethIs(EthTypePBB) {
		return prereq(first(s), "needs eth_type=0x88e7")
	}
	return nil
}

// isND reports whether m matches ICMPv6 neighbor discovery messages of type
// a or b only: eth_type 0x86dd, ip_proto 58, icmpv6_type a or b and, as
// Open vSwitch also requires, no icmpv6_code but 0.
func (m *Match) isND(a, b uint64) bool {
	typ, typMask := m.Get(FieldICMPType)
	code, _ := m.Get(FieldICMPCode)
	return m.Exact(FieldEthType, EthTypeIPv6) && m.Exact(FieldIPProto, IPProtoICMPv6) && typMask == 0xff &&
		(typ == a || typ == b) && code == 0
}

const (
	arpFields  = 1<<FieldARPOp | 1<<FieldARPSPA | 1<<FieldARPTPA | 1<<FieldARPSHA | 1<<FieldARPTHA
	mplsFields = 1<<FieldMPLSLabel | 1<<FieldMPLSTC | 1<<FieldMPLSBoS
	// prereqFields are the fields that have prerequisites.
	prereqFields = 1<<FieldVLANPCP | 1<<FieldIPDSCP | 1<<FieldIPECN | 1<<FieldIPProto | 1<<FieldIPv4Src |
		1<<FieldIPv4Dst | 1<<FieldIPv6Src | 1<<FieldIPv6Dst | arpFields | 1<<FieldL4Src | 1<<FieldL4Dst |
		1<<FieldICMPType | 1<<FieldICMPCode | 1<<FieldTCPFlags | 1<<FieldIPv6FLabel | 1<<FieldIPv6Exthdr |
		1<<FieldNDTarget | mplsFields | 1<<FieldPBBISID | 1<<FieldPBBUCA | 1<<FieldNwTTL | 1<<FieldIPFrag
)

// FixPrereqs returns the matches that m becomes once its missing
// prerequisites are added, the way a lenient loader repairs rule sets such as
// ClassBench's OpenFlow sets: IPv4 fields (or an IP protocol or DSCP without
// any address family) add eth_type=0x0800, IPv6 fields 0x86dd, ARP fields
// 0x0806, ICMP type/code ip_proto 1 (58 under IPv6), nw_ttl and ip_frag
// 0x0800 like an IP protocol, and L4 ports without a
// protocol become two matches, one for TCP and one for UDP. A match that
// needs nothing comes back unchanged; a contradiction (IPv4 and IPv6 fields
// together, say) is reported with the Validate error.
func (m Match) FixPrereqs() ([]Match, error) {
	if m.checkPrereqs() == nil {
		return []Match{m}, nil
	}
	if m.Has(FieldVLANPCP) && !m.Has(FieldVLANVID) {
		m.Set(FieldVLANVID, VIDPresent, VIDPresent)
	}
	if !m.Has(FieldEthType) {
		v4 := m.Has(FieldIPv4Src) || m.Has(FieldIPv4Dst)
		v6 := m.Has(FieldIPv6Src) || m.Has(FieldIPv6Dst)
		arp := m.Has(FieldARPOp) || m.Has(FieldARPSPA) || m.Has(FieldARPTPA) || m.Has(FieldARPSHA) || m.Has(FieldARPTHA)
		l3 := m.Has(FieldIPProto) || m.Has(FieldIPDSCP) || m.Has(FieldIPECN) || m.Has(FieldL4Src) || m.Has(FieldL4Dst) || m.Has(FieldICMPType) || m.Has(FieldICMPCode) || m.Has(FieldTCPFlags) || m.Has(FieldNwTTL) || m.Has(FieldIPFrag)
		switch {
		case v6 && !v4 && !arp:
			m.SetExact(FieldEthType, EthTypeIPv6)
		case arp && !v4 && !v6 && !l3:
			m.SetExact(FieldEthType, EthTypeARP)
		case (v4 || l3) && !v6 && !arp:
			m.SetExact(FieldEthType, EthTypeIPv4)
		}
	}
	if !m.Has(FieldIPProto) && (m.Has(FieldICMPType) || m.Has(FieldICMPCode)) {
		if m.Exact(FieldEthType, EthTypeIPv6) {
			m.SetExact(FieldIPProto, IPProtoICMPv6)
		} else {
			m.SetExact(FieldIPProto, IPProtoICMP)
		}
	}
	if !m.Has(FieldIPProto) && m.Has(FieldTCPFlags) {
		m.SetExact(FieldIPProto, IPProtoTCP)
	}
	out := []Match{m}
	if !m.Has(FieldIPProto) && (m.Has(FieldL4Src) || m.Has(FieldL4Dst)) {
		tcp, udp := m, m
		tcp.SetExact(FieldIPProto, IPProtoTCP)
		udp.SetExact(FieldIPProto, IPProtoUDP)
		out = []Match{tcp, udp}
	}
	for i := range out {
		if err := out[i].checkPrereqs(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
