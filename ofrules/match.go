package ofrules

import (
	"encoding/binary"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// fieldMap maps an OpenFlow-basic OXM field to the rules field that holds
// it; fields rules does not match on map to noField.
var fieldMap = func() (m [64]rules.Field) {
	for i := range m {
		m[i] = noField
	}
	for of, r := range map[openflow.OXMField]rules.Field{
		openflow.FieldInPort: rules.FieldInPort, openflow.FieldMetadata: rules.FieldMetadata,
		openflow.FieldEthDst: rules.FieldEthDst, openflow.FieldEthSrc: rules.FieldEthSrc,
		openflow.FieldEthType: rules.FieldEthType, openflow.FieldVLANVID: rules.FieldVLANVID,
		openflow.FieldVLANPCP: rules.FieldVLANPCP, openflow.FieldIPDSCP: rules.FieldIPDSCP,
		openflow.FieldIPECN: rules.FieldIPECN, openflow.FieldIPProto: rules.FieldIPProto,
		openflow.FieldIPv4Src: rules.FieldIPv4Src, openflow.FieldIPv4Dst: rules.FieldIPv4Dst,
		openflow.FieldTCPSrc: rules.FieldL4Src, openflow.FieldTCPDst: rules.FieldL4Dst,
		openflow.FieldUDPSrc: rules.FieldL4Src, openflow.FieldUDPDst: rules.FieldL4Dst,
		openflow.FieldSCTPSrc: rules.FieldL4Src, openflow.FieldSCTPDst: rules.FieldL4Dst,
		openflow.FieldICMPv4Type: rules.FieldICMPType, openflow.FieldICMPv4Code: rules.FieldICMPCode,
		openflow.FieldICMPv6Type: rules.FieldICMPType, openflow.FieldICMPv6Code: rules.FieldICMPCode,
		openflow.FieldARPOp: rules.FieldARPOp, openflow.FieldARPSPA: rules.FieldARPSPA,
		openflow.FieldARPTPA: rules.FieldARPTPA, openflow.FieldARPSHA: rules.FieldARPSHA,
		openflow.FieldARPTHA: rules.FieldARPTHA, openflow.FieldIPv6Src: rules.FieldIPv6Src,
		openflow.FieldIPv6Dst: rules.FieldIPv6Dst, openflow.FieldIPv6FLabel: rules.FieldIPv6FLabel,
		openflow.FieldIPv6NDTarget: rules.FieldNDTarget, openflow.FieldIPv6NDSLL: rules.FieldARPSHA,
		openflow.FieldIPv6NDTLL: rules.FieldARPTHA, openflow.FieldTunnelID: rules.FieldTunnelID,
		openflow.FieldIPv6ExtHdr: rules.FieldIPv6Exthdr,
		openflow.FieldMPLSLabel:  rules.FieldMPLSLabel, openflow.FieldMPLSTC: rules.FieldMPLSTC,
		openflow.FieldMPLSBOS: rules.FieldMPLSBoS, openflow.FieldPBBISID: rules.FieldPBBISID,
		openflow.FieldPBBUCA: rules.FieldPBBUCA,
	} {
		m[of] = r
	}
	return m
}()

const noField = rules.Field(255)

func beUint(b []byte) uint64 {
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return v
}

// oxmValue returns the value and mask of a basic OXM as rules stores
// them: hi and lo words for 128-bit fields, lo alone otherwise.
func oxmValue(o *openflow.OXM) (vhi, vlo, mhi, mlo uint64) {
	n := o.Field.Size()
	if n == 16 {
		vhi, vlo = binary.BigEndian.Uint64(o.Value[:8]), binary.BigEndian.Uint64(o.Value[8:16])
		mhi, mlo = ^uint64(0), ^uint64(0)
		if o.HasMask {
			mhi, mlo = binary.BigEndian.Uint64(o.Mask[:8]), binary.BigEndian.Uint64(o.Mask[8:16])
		}
		return
	}
	vlo, mlo = beUint(o.Value[:n]), ^uint64(0)>>(64-8*uint(n))
	if o.HasMask {
		mlo = beUint(o.Mask[:n])
	}
	return
}

// Match translates the wire match m into *out and validates it: the
// wire-level checks of OpenFlow 1.3.5 (§7.2.3.6 prerequisites, §7.2.3.5
// masks, known fields, no duplicate) and the flow tables' own
// (rules.Match.Validate, or ValidateStrict with opt.StrictPorts). A
// failure is the OFPT_ERROR to answer with (an openflow.ErrorMsg, or an
// *openflow.DecodeError that maps to one); *out is then partly written.
func Match(out *rules.Match, m *openflow.Match, opt *Options) error {
	*out = rules.Match{}
	return matchInto(out, m, opt.strict(), true, nil, opt.tlv())
}

// matchShape is what the checks of a wire match depend on besides the
// values of its fields: the fields in order, which are masked, and the
// value and mask of the fields that prerequisites test (ETH_TYPE,
// IP_PROTO, ICMPV6_TYPE, VLAN_VID). A match with the shape of one that
// passed openflow's Validate passes it too; a connection keeps the shape
// of the last one, since controllers send long runs of one shape.
type matchShape struct {
	n      int
	fields [maxShapeFields]uint8  // Field<<1 | HasMask
	pre    [maxShapeFields]uint32 // value and mask bytes of prerequisite fields, else 0

	// repeat says whether the last match translated with this shape had
	// it already, i.e. whether its shape came twice in a row.
	repeat bool

	// wire is a shape that came twice in a row in FLOW_MODs that a
	// Decoder accepted, as it is on the wire, for fastFlowMod
	// (fastmatch.go).
	wire wireShape
}

const maxShapeFields = 16

func preSig(o *openflow.OXM) uint32 {
	switch o.Field {
	case openflow.FieldEthType, openflow.FieldIPProto, openflow.FieldICMPv6Type, openflow.FieldVLANVID:
		return uint32(o.Value[0])<<24 | uint32(o.Value[1])<<16 | uint32(o.Mask[0])<<8 | uint32(o.Mask[1])
	}
	return 0
}

func shapeField(o *openflow.OXM) uint8 {
	f := uint8(o.Field) << 1
	if o.HasMask {
		f |= 1
	}
	return f
}

// is reports whether m has shape s (only basic-class fields have a shape).
func (s *matchShape) is(m *openflow.Match) bool {
	if s.n == 0 || len(m.Fields) != s.n {
		return false
	}
	for i := range m.Fields {
		o := &m.Fields[i]
		if o.Class != openflow.OXMClassOpenFlow || shapeField(o) != s.fields[i] || preSig(o) != s.pre[i] {
			return false
		}
	}
	return true
}

// set makes s the shape of m, which passed the checks; a match with more
// fields than a shape holds is not kept.
func (s *matchShape) set(m *openflow.Match) {
	s.n = 0
	if len(m.Fields) == 0 || len(m.Fields) > maxShapeFields {
		return
	}
	for i := range m.Fields {
		s.fields[i], s.pre[i] = shapeField(&m.Fields[i]), preSig(&m.Fields[i])
	}
	s.n = len(m.Fields)
}

// matchInto translates m into *out, which must be the zero Match, and
// validates it (OpenFlow 1.3.5 §7.2.3.6 prerequisites, §7.2.3.5 masks).
// With check false the rules-level validation is left to the pipeline,
// which repeats it when the update is applied and answers a failure with
// the same error. With a shape, a match of the same shape skips the
// checks that only the shape decides (known fields, no duplicate,
// prerequisites), and one that passes them becomes the shape.
//
// tlv is the switch's TLV table, which maps the fields tun_metadata0-63
// to the option space; nil maps none.
func matchInto(out *rules.Match, m *openflow.Match, strict, check bool, shape *matchShape, tlv *TLVTable) error {
	if shape != nil {
		shape.repeat = shape.is(m)
	}
	if shape != nil && shape.repeat {
		for i := range m.Fields {
			o := &m.Fields[i]
			f := fieldMap[o.Field]
			vhi, vlo, mhi, mlo := oxmValue(o)
			if (vhi&^mhi) != 0 || (vlo&^mlo) != 0 {
				return badMatch(openflow.BadMatchBadWildcards)
			}
			if !valueFits(f, vlo) {
				return badMatch(openflow.BadMatchBadValue)
			}
			if f.Bits() == 128 {
				out.Set128(f, vhi, vlo, mhi, mlo)
			} else {
				out.Set(f, vlo, mlo)
			}
		}
		return checkRulesMatch(out, strict, check)
	}
	if err := matchChecked(out, m, tlv); err != nil {
		return err
	}
	if shape != nil {
		shape.set(m)
	}
	return checkRulesMatch(out, strict, check)
}

// checkRulesMatch runs the flow tables' own checks on out when check is set.
func checkRulesMatch(out *rules.Match, strict, check bool) error {
	if !check {
		return nil
	}
	validate := out.Validate
	if strict {
		validate = out.ValidateStrict
	}
	if err := validate(); err != nil {
		return WireError(err)
	}
	return nil
}

// matchChecked translates m into *out with every wire-level check.
func matchChecked(out *rules.Match, m *openflow.Match, tlv *TLVTable) error {
	var seen [64]bool
	seenFlags := false
	// seenRules has the rules fields set so far, bit f for Field f; a
	// Nicira field that sets one a basic OXM set, or the other way round,
	// is a duplicate. Among basic OXMs seen decides alone: the L4 and
	// ICMP OXMs of other protocols share rules fields, and their
	// prerequisites refuse them.
	var seenRules uint64
	seenNXM := false
	for i := range m.Fields {
		o := &m.Fields[i]
		seenNXM = seenNXM || o.IsNXM()
		if o.Class == openflow.OXMClassExperimenter && o.Experimenter == openflow.ONFExperimenter && o.Field == openflow.ONFFieldTCPFlags {
			if seenFlags || seenRules&(1<<rules.FieldTCPFlags) != 0 {
				return badMatch(openflow.BadMatchDupField)
			}
			seenFlags = true
			seenRules |= 1 << rules.FieldTCPFlags
			if err := tcpFlagsFromWire(out, o); err != nil {
				return err
			}
			continue
		}
		if idx, ok := tunMetadataIndex(o); ok {
			if err := tunMetadataMatch(out, o, idx, tlv); err != nil {
				return err
			}
			continue
		}
		if o.IsNXM() {
			// A Nicira field: one of those no basic OXM holds, or an
			// alias of one that does, which may not come twice either.
			var nx rules.Match
			f, cover, err := nxmMatch(&nx, o)
			if err != nil {
				return err
			}
			if f >= rules.FieldXReg0 && f <= rules.FieldXReg7 {
				// A register, or a pair of them: a duplicate when the
				// match tests any of its bits already, as Open
				// vSwitch's nx_pull_raw finds it not all-wildcarded
				// (reg0 and reg1 are not, reg0 and xreg0 are).
				kv, km := out.Get(f)
				if km&cover != 0 {
					return badMatch(openflow.BadMatchDupField)
				}
				v, mk := nx.Get(f)
				out.Set(f, kv|v, km|mk)
				continue
			}
			if seenRules&(1<<f) != 0 || f == rules.FieldVLANVID && seenRules&(1<<rules.FieldVLANPCP) != 0 {
				return badMatch(openflow.BadMatchDupField)
			}
			seenRules |= 1 << f
			if f == rules.FieldVLANVID { // NXM_OF_VLAN_TCI holds both
				seenRules |= 1 << rules.FieldVLANPCP
				if v, mk := nx.Get(rules.FieldVLANPCP); mk != 0 {
					out.Set(rules.FieldVLANPCP, v, mk)
				}
			}
			if f.Bits() == 128 {
				vhi, vlo := nx.Key.Get128(f)
				mhi, mlo := nx.Mask.Get128(f)
				out.Set128(f, vhi, vlo, mhi, mlo)
			} else {
				v, mk := nx.Get(f)
				out.Set(f, v, mk)
			}
			continue
		}
		if o.Class == openflow.OXMClassOpenFlow && o.Field == openflow.FieldPacketType {
			// Every frame here is Ethernet, packet_type (0,0): a match
			// on it is no match at all; another type is refused.
			if seen[o.Field] {
				return badMatch(openflow.BadMatchDupField)
			}
			seen[o.Field] = true
			if o.Uint() != 0 {
				return badMatch(openflow.BadMatchBadValue)
			}
			continue
		}
		if o.Class != openflow.OXMClassOpenFlow || int(o.Field) >= len(fieldMap) || fieldMap[o.Field] == noField {
			if err := ctMatch(o); err != nil {
				return err
			}
			return badMatch(openflow.BadMatchBadField)
		}
		if seen[o.Field] || seenRules&(1<<fieldMap[o.Field]) != 0 && seenNXM {
			return badMatch(openflow.BadMatchDupField)
		}
		seen[o.Field] = true
		f := fieldMap[o.Field]
		seenRules |= 1 << f
		vhi, vlo, mhi, mlo := oxmValue(o)
		if (vhi&^mhi) != 0 || (vlo&^mlo) != 0 {
			return badMatch(openflow.BadMatchBadWildcards) // value bits outside the mask
		}
		if !valueFits(f, vlo) {
			return badMatch(openflow.BadMatchBadValue) // an MPLS label of 21 bits, say
		}
		if f.Bits() == 128 {
			out.Set128(f, vhi, vlo, mhi, mlo)
		} else {
			out.Set(f, vlo, mlo)
		}
	}
	return m.Validate()
}

// valueFits reports whether v, read from an OXM, fits in rules field f:
// an OXM is whole bytes, and a value beyond the field's bits (an MPLS
// label over 20 bits, a VLAN PCP over 7) is OFPBMC_BAD_VALUE rather than
// a value to cut short.
func valueFits(f rules.Field, v uint64) bool {
	return f.Bits() >= 64 || v <= f.FullMask()
}

// tcpFlagsFromWire sets out's tcp_flags from the ONF experimenter OXM o:
// 12 flag bits, so a value or mask beyond them is refused, as is a value
// bit outside the mask.
func tcpFlagsFromWire(out *rules.Match, o *openflow.OXM) error {
	v, mk, ok := o.TCPFlags()
	if !ok {
		return badMatch(openflow.BadMatchBadLen)
	}
	if !o.HasMask {
		mk = 0x0fff
	}
	if v&^0x0fff != 0 {
		return badMatch(openflow.BadMatchBadValue)
	}
	if mk&^0x0fff != 0 {
		return badMatch(openflow.BadMatchBadMask)
	}
	if v&^mk != 0 {
		return badMatch(openflow.BadMatchBadWildcards)
	}
	out.Set(rules.FieldTCPFlags, uint64(v), uint64(mk))
	return nil
}

// l4Fields returns the wire fields of rules' L4 and ICMP fields for a
// match with this ip_proto and eth_type.
func l4Fields(proto, ethType uint64) (src, dst, typ, code openflow.OXMField) {
	switch proto {
	case 17:
		src, dst = openflow.FieldUDPSrc, openflow.FieldUDPDst
	case 132:
		src, dst = openflow.FieldSCTPSrc, openflow.FieldSCTPDst
	default:
		src, dst = openflow.FieldTCPSrc, openflow.FieldTCPDst
	}
	typ, code = openflow.FieldICMPv4Type, openflow.FieldICMPv4Code
	if ethType == 0x86dd {
		typ, code = openflow.FieldICMPv6Type, openflow.FieldICMPv6Code
	}
	return
}

// wireField returns the OXM field that holds rules field f in a match
// with this ip_proto and eth_type.
func wireField(f rules.Field, proto, ethType uint64) openflow.OXMField {
	src, dst, typ, code := l4Fields(proto, ethType)
	switch f {
	case rules.FieldL4Src:
		return src
	case rules.FieldL4Dst:
		return dst
	case rules.FieldICMPType:
		return typ
	case rules.FieldICMPCode:
		return code
	case rules.FieldARPSHA, rules.FieldARPTHA:
		// ipv6_nd_sll and ipv6_nd_tll share arp_sha's and arp_tha's bits.
		if ethType == 0x86dd {
			if f == rules.FieldARPSHA {
				return openflow.FieldIPv6NDSLL
			}
			return openflow.FieldIPv6NDTLL
		}
	}
	if int(f) >= len(wireFields) {
		return 0
	}
	return wireFields[f]
}

// wireFields maps each rules field that one OXM field holds to that field.
var wireFields = func() (w [rules.NumFields]openflow.OXMField) {
	for of, rf := range fieldMap {
		if rf == noField || w[rf] != 0 {
			continue
		}
		w[rf] = openflow.OXMField(of)
	}
	return w
}()

// oxmOf builds the OXM for a rules field's value and mask.
func oxmOf(of openflow.OXMField, vhi, vlo, mhi, mlo uint64, full bool) openflow.OXM {
	var o openflow.OXM
	setOXM(&o, of, vhi, vlo, mhi, mlo, full)
	return o
}

// appendOXM appends oxmOf(...) to dst, built in place.
func appendOXM(dst []openflow.OXM, of openflow.OXMField, vhi, vlo, mhi, mlo uint64, full bool) []openflow.OXM {
	if len(dst) < cap(dst) {
		dst = dst[:len(dst)+1]
	} else {
		dst = append(dst, openflow.OXM{})
	}
	setOXM(&dst[len(dst)-1], of, vhi, vlo, mhi, mlo, full)
	return dst
}

func setOXM(o *openflow.OXM, of openflow.OXMField, vhi, vlo, mhi, mlo uint64, full bool) {
	*o = openflow.OXM{Class: openflow.OXMClassOpenFlow, Field: of, HasMask: !full}
	n := of.Size()
	putValue(o.Value[:n], vhi, vlo)
	if !full {
		putValue(o.Mask[:n], mhi, mlo)
	}
}

// putValue writes the low len(b) bytes of hi:lo to b, big-endian.
func putValue(b []byte, hi, lo uint64) {
	// The usual sizes a store each: a loop of a byte a step mispredicts
	// its end where sizes vary from field to field.
	switch len(b) {
	case 1:
		b[0] = byte(lo)
	case 2:
		binary.BigEndian.PutUint16(b, uint16(lo))
	case 4:
		binary.BigEndian.PutUint32(b, uint32(lo))
	case 8:
		binary.BigEndian.PutUint64(b, lo)
	case 16:
		binary.BigEndian.PutUint64(b[:8], hi)
		binary.BigEndian.PutUint64(b[8:], lo)
	default:
		for i := len(b) - 1; i >= 0; i-- {
			b[i] = byte(lo)
			lo >>= 8
		}
	}
}

// WireMatch translates a rules match back to OXMs, in field order: rules'
// L4 and ICMP fields become the OXMs that its ip_proto and eth_type name,
// tcp_flags the ONF experimenter OXM that Open vSwitch sends.
//
// The fields of the tunnel option space are left out: WireMatchTLV writes
// them as the switch's TLV table maps them.
func WireMatch(m *rules.Match) openflow.Match {
	return openflow.Match{Fields: appendMatch(nil, m)}
}

// WireMatchTLV is WireMatch with the switch's TLV table t: the bytes of
// the option space that m tests go out as the fields tun_metadata0-63
// (NXM_NX_TUN_METADATA<N>) that t maps there, after the other fields.
// A table a flow uses cannot lose the mappings it uses
// (NXTTMFC_INVALID_TLV_DEL), so the current table is the flow's.
func WireMatchTLV(m *rules.Match, t *TLVTable) openflow.Match {
	return openflow.Match{Fields: appendTunMetadata(appendMatch(nil, m), m, t)}
}

// optionField reports whether f is one of the option space's fields,
// which only a TLV table names on the wire.
func optionField(f rules.Field) bool { return f >= rules.FieldTunOpts0 && f <= rules.FieldTunOpts3 }

// usedWords returns the set of m's mask words with a bit set, bit w for
// word w.
func usedWords(m *rules.Match) uint64 {
	var used uint64
	for w, x := range m.Mask {
		if x != 0 {
			used |= 1 << w
		}
	}
	return used
}

// fieldKeyBits holds the bits of a rules.Key that each rules field
// occupies, as Match.Set and Match.Set128 place it.
var fieldKeyBits = func() (b [rules.NumFields]rules.Key) {
	for f := rules.Field(0); int(f) < rules.NumFields; f++ {
		var m rules.Match
		if f.Bits() == 128 {
			m.Set128(f, 0, 0, ^uint64(0), ^uint64(0))
		} else {
			m.Set(f, 0, ^uint64(0))
		}
		b[f] = m.Mask
	}
	return b
}()

// fieldWords has, for each field, a bit for each word of a rules.Key that
// the field occupies.
var fieldWords = func() (fw [rules.NumFields]uint64) {
	for f := range fieldKeyBits {
		fw[f] = usedWords(&rules.Match{Mask: fieldKeyBits[f]})
	}
	return fw
}()

// appendMatch appends the OXMs of m to dst.
func appendMatch(dst []openflow.OXM, m *rules.Match) []openflow.OXM {
	out := openflow.Match{Fields: dst}
	proto, _ := m.Get(rules.FieldIPProto)
	eth, _ := m.Get(rules.FieldEthType)
	used := usedWords(m)
	for f := rules.Field(0); int(f) < rules.NumFields; f++ {
		if fieldWords[f]&used == 0 || !m.Has(f) || optionField(f) {
			continue
		}
		if f == rules.FieldTCPFlags {
			v, mask := m.Get(f)
			out.Fields = append(out.Fields, openflow.TCPFlags(uint16(v), uint16(mask)))
			continue
		}
		if _, ok := nxmOnly[f]; ok {
			if f.Bits() == 128 {
				vhi, vlo, mhi, mlo := get128(m, f)
				out.Fields = appendNXM128(out.Fields, f, vhi, vlo, mhi, mlo)
				continue
			}
			v, mask := m.Get(f)
			out.Fields = appendNXM(out.Fields, f, v, mask)
			continue
		}
		of := wireField(f, proto, eth)
		if f.Bits() == 128 {
			vhi, vlo, mhi, mlo := get128(m, f)
			full := mhi == ^uint64(0) && mlo == ^uint64(0)
			out.Fields = appendOXM(out.Fields, of, vhi, vlo, mhi, mlo, full)
			continue
		}
		v, mask := m.Get(f)
		out.Fields = appendOXM(out.Fields, of, 0, v, 0, mask, mask == f.FullMask())
	}
	return out.Fields
}

// matchPlan is the list of OXMs that matches with one mask (and one
// ip_proto and eth_type, which name the L4 and ICMP fields) encode to:
// a client pushes long runs of flows with the same mask.
type matchPlan struct {
	mask       rules.Key
	proto, eth uint64
	fields     []planField
	ok         bool
}

type planField struct {
	f          rules.Field
	of         openflow.OXMField
	full, wide bool // exact; 128 bits
	nxm        bool // a Nicira field (nxmOnly)
}

// appendMatchPlanned is appendMatch with the field list kept in p.
func appendMatchPlanned(dst []openflow.OXM, m *rules.Match, p *matchPlan) []openflow.OXM {
	proto, _ := m.Get(rules.FieldIPProto)
	eth, _ := m.Get(rules.FieldEthType)
	if !p.ok || p.mask != m.Mask || p.proto != proto || p.eth != eth {
		p.build(m, proto, eth)
	}
	for _, pf := range p.fields {
		if pf.f == rules.FieldTCPFlags {
			dst = append(dst, openflow.TCPFlags(uint16(m.Key.Get(pf.f)), uint16(m.Mask.Get(pf.f))))
			continue
		}
		if pf.nxm {
			if pf.wide {
				vhi, vlo, mhi, mlo := get128(m, pf.f)
				dst = appendNXM128(dst, pf.f, vhi, vlo, mhi, mlo)
				continue
			}
			dst = appendNXM(dst, pf.f, m.Key.Get(pf.f), m.Mask.Get(pf.f))
			continue
		}
		if pf.wide {
			vhi, vlo, mhi, mlo := get128(m, pf.f)
			dst = appendOXM(dst, pf.of, vhi, vlo, mhi, mlo, pf.full)
			continue
		}
		dst = appendOXM(dst, pf.of, 0, m.Key.Get(pf.f), 0, m.Mask.Get(pf.f), pf.full)
	}
	return dst
}

// build makes p the plan of m's mask, as appendMatch walks it.
func (p *matchPlan) build(m *rules.Match, proto, eth uint64) {
	*p = matchPlan{mask: m.Mask, proto: proto, eth: eth, fields: p.fields[:0], ok: true}
	used := usedWords(m)
	for f := rules.Field(0); int(f) < rules.NumFields; f++ {
		if fieldWords[f]&used == 0 || !m.Has(f) || optionField(f) {
			continue
		}
		pf := planField{f: f, of: wireField(f, proto, eth), wide: f.Bits() == 128}
		_, pf.nxm = nxmOnly[f]
		if pf.wide {
			_, _, mhi, mlo := get128(m, f)
			pf.full = mhi == ^uint64(0) && mlo == ^uint64(0)
		} else {
			pf.full = m.Mask.Get(f) == f.FullMask()
		}
		p.fields = append(p.fields, pf)
	}
}

// get128 reads a 128-bit field of m.
func get128(m *rules.Match, f rules.Field) (vhi, vlo, mhi, mlo uint64) {
	vhi, vlo = m.Key.Get128(f)
	mhi, mlo = m.Mask.Get128(f)
	return
}
