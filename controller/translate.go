package controller

// The one place where an openflow.Match becomes a rules.Match, and back.
// rules keeps TCP, UDP and SCTP ports in one pair of L4 fields and ICMPv4
// and ICMPv6 type and code in one pair; the wire field is recovered from
// ip_proto and eth_type, which the prerequisites force every such match to
// carry.

import (
	"encoding/binary"
	"errors"

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
		openflow.FieldIPv6Dst: rules.FieldIPv6Dst,
	} {
		m[of] = r
	}
	return m
}()

const noField = rules.Field(255)

func badMatch(code openflow.BadMatchCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadMatch, Code: uint16(code)}
}

func badAction(code openflow.BadActionCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadAction, Code: uint16(code)}
}

func badInstruction(code openflow.BadInstructionCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadInstruction, Code: uint16(code)}
}

// wireError turns a rules.Error into the OFPT_ERROR it names.
func wireError(err error) error {
	var re *rules.Error
	if errors.As(err, &re) {
		return openflow.ErrorMsg{Type: openflow.ErrorType(re.Type), Code: uint16(re.Code)}
	}
	return err
}

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

// matchFromWire translates and validates a wire match (OpenFlow 1.3.5
// §7.2.3.6 prerequisites, §7.2.3.5 masks).
//
// With check false the rules-level validation is left to the pipeline,
// which repeats it when the update is applied and answers a failure with
// the same error.
func matchFromWire(m *openflow.Match, strict, check bool) (rules.Match, error) {
	return matchFromWireCached(m, strict, check, nil)
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

	// wire is a shape that came twice in a row in FLOW_MODs that
	// onFlowMod accepted, as it is on the wire, for fastFlowMod
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

// matchFromWireCached is matchFromWire; with a shape, a match of the same
// shape skips the checks that only the shape decides (known fields, no
// duplicate, prerequisites), and one that passes them becomes the shape.
func matchFromWireCached(m *openflow.Match, strict, check bool, shape *matchShape) (rules.Match, error) {
	var out rules.Match
	err := matchFromWireInto(&out, m, strict, check, shape)
	return out, err
}

// matchFromWireInto is matchFromWireCached writing into *out, which must be
// the zero Match.
func matchFromWireInto(out *rules.Match, m *openflow.Match, strict, check bool, shape *matchShape) error {
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
			if f.Bits() == 128 {
				out.Set128(f, vhi, vlo, mhi, mlo)
			} else {
				out.Set(f, vlo, mlo)
			}
		}
		return checkRulesMatch(out, strict, check)
	}
	if err := matchFromWireChecked(out, m); err != nil {
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
		return wireError(err)
	}
	return nil
}

// matchFromWireChecked translates m into *out with every wire-level check.
func matchFromWireChecked(out *rules.Match, m *openflow.Match) error {
	var seen [64]bool
	seenFlags := false
	for i := range m.Fields {
		o := &m.Fields[i]
		if o.Class == openflow.OXMClassExperimenter && o.Experimenter == openflow.ONFExperimenter && o.Field == openflow.ONFFieldTCPFlags {
			if seenFlags {
				return badMatch(openflow.BadMatchDupField)
			}
			seenFlags = true
			if err := tcpFlagsFromWire(out, o); err != nil {
				return err
			}
			continue
		}
		if o.Class != openflow.OXMClassOpenFlow || int(o.Field) >= len(fieldMap) || fieldMap[o.Field] == noField {
			return badMatch(openflow.BadMatchBadField)
		}
		if seen[o.Field] {
			return badMatch(openflow.BadMatchDupField)
		}
		seen[o.Field] = true
		f := fieldMap[o.Field]
		vhi, vlo, mhi, mlo := oxmValue(o)
		if (vhi&^mhi) != 0 || (vlo&^mlo) != 0 {
			return badMatch(openflow.BadMatchBadWildcards) // value bits outside the mask
		}
		if f.Bits() == 128 {
			out.Set128(f, vhi, vlo, mhi, mlo)
		} else {
			out.Set(f, vlo, mlo)
		}
	}
	return m.Validate()
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
	if len(b) == 16 {
		binary.BigEndian.PutUint64(b[:8], hi)
		binary.BigEndian.PutUint64(b[8:], lo)
		return
	}
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = byte(lo)
		lo >>= 8
	}
}

// matchToWire translates a rules match back to OXMs, in field order.
func matchToWire(m *rules.Match) openflow.Match {
	return openflow.Match{Fields: appendMatch(nil, m)}
}

// usedWords returns the set of m's mask words with a bit set, bit w for
// word w.
func usedWords(m *rules.Match) uint32 {
	var used uint32
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
var fieldWords = func() (fw [rules.NumFields]uint32) {
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
		if fieldWords[f]&used == 0 || !m.Has(f) {
			continue
		}
		if f == rules.FieldTCPFlags {
			v, mask := m.Get(f)
			out.Fields = append(out.Fields, openflow.TCPFlags(uint16(v), uint16(mask)))
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
		if fieldWords[f]&used == 0 || !m.Has(f) {
			continue
		}
		pf := planField{f: f, of: wireField(f, proto, eth), wide: f.Bits() == 128}
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

// actionsFromWire translates an action list (OpenFlow 1.3.5 §7.2.5).
func actionsFromWire(as []openflow.Action) ([]rules.Action, error) {
	out := make([]rules.Action, 0, len(as))
	for i := range as {
		a := &as[i]
		switch a.Type {
		case openflow.ActionOutput:
			if a.Port == 0 || a.Port == openflow.PortAny || (a.Port > openflow.PortMax && a.Port < openflow.PortInPort) {
				return nil, badAction(openflow.BadActionBadOutPort)
			}
			out = append(out, rules.Action{Kind: rules.ActionOutput, Port: a.Port, MaxLen: a.MaxLen})
		case openflow.ActionGroup:
			return nil, badAction(openflow.BadActionBadOutGroup) // no group exists
		case openflow.ActionSetQueue:
			out = append(out, rules.Action{Kind: rules.ActionSetQueue, Queue: a.QueueID})
		case openflow.ActionPushVLAN:
			if a.EtherType != 0x8100 && a.EtherType != 0x88a8 {
				return nil, badAction(openflow.BadActionBadArgument)
			}
			out = append(out, rules.Action{Kind: rules.ActionPushVLAN, EthType: a.EtherType})
		case openflow.ActionPopVLAN:
			out = append(out, rules.Action{Kind: rules.ActionPopVLAN})
		case openflow.ActionDecNWTTL:
			out = append(out, rules.Action{Kind: rules.ActionDecNwTTL})
		case openflow.ActionSetField:
			o := &a.Field
			if o.Class != openflow.OXMClassOpenFlow || int(o.Field) >= len(fieldMap) || fieldMap[o.Field] == noField {
				return nil, badAction(openflow.BadActionBadSetType)
			}
			if o.HasMask {
				return nil, badAction(openflow.BadActionBadSetArgument)
			}
			vhi, vlo, _, _ := oxmValue(o)
			out = append(out, rules.Action{Kind: rules.ActionSetField, Field: fieldMap[o.Field], Value: [2]uint64{vhi, vlo}})
		default:
			return nil, badAction(openflow.BadActionBadType)
		}
	}
	return out, nil
}

// instructionsFromWire translates the instructions of an entry of table
// (OpenFlow 1.3.5 §7.2.4): at most one of each type, goto_table forward
// only and to a table that exists.
func instructionsFromWire(ins []openflow.Instruction, table uint8, tables int) ([]rules.Instruction, error) {
	out := make([]rules.Instruction, 0, len(ins))
	var seen [8]bool
	for i := range ins {
		in := &ins[i]
		if int(in.Type) < len(seen) {
			if seen[in.Type] {
				return nil, badInstruction(openflow.BadInstructionDupInst)
			}
			seen[in.Type] = true
		}
		switch in.Type {
		case openflow.InstructionGotoTable:
			if in.TableID <= table || int(in.TableID) >= tables {
				return nil, badInstruction(openflow.BadInstructionBadTableID)
			}
			out = append(out, rules.Instruction{Kind: rules.InstGotoTable, Table: in.TableID})
		case openflow.InstructionWriteMetadata:
			out = append(out, rules.Instruction{Kind: rules.InstWriteMetadata, Metadata: in.Metadata, MetadataMask: in.MetadataMask})
		case openflow.InstructionWriteActions, openflow.InstructionApplyActions:
			as, err := actionsFromWire(in.Actions)
			if err != nil {
				return nil, err
			}
			kind := rules.InstApplyActions
			if in.Type == openflow.InstructionWriteActions {
				kind = rules.InstWriteActions
			}
			out = append(out, rules.Instruction{Kind: kind, Actions: as})
		case openflow.InstructionClearActions:
			out = append(out, rules.Instruction{Kind: rules.InstClearActions})
		case openflow.InstructionMeter:
			return nil, badInstruction(openflow.BadInstructionUnsupInst) // no meters
		case openflow.InstructionExperimenter:
			return nil, badInstruction(openflow.BadInstructionBadExperimenter)
		default:
			return nil, badInstruction(openflow.BadInstructionUnknownInst)
		}
	}
	return out, nil
}

// actionsToWire translates actions of an entry whose match is m.
func actionsToWire(as []rules.Action, m *rules.Match) []openflow.Action {
	proto, _ := m.Get(rules.FieldIPProto)
	eth, _ := m.Get(rules.FieldEthType)
	out := make([]openflow.Action, 0, len(as))
	for _, a := range as {
		switch a.Kind {
		case rules.ActionOutput:
			out = append(out, openflow.Output(a.Port, a.MaxLen))
		case rules.ActionGroup:
			out = append(out, openflow.Action{Type: openflow.ActionGroup, GroupID: a.Group})
		case rules.ActionSetQueue:
			out = append(out, openflow.Action{Type: openflow.ActionSetQueue, QueueID: a.Queue})
		case rules.ActionPushVLAN:
			out = append(out, openflow.Action{Type: openflow.ActionPushVLAN, EtherType: a.EthType})
		case rules.ActionPopVLAN:
			out = append(out, openflow.Action{Type: openflow.ActionPopVLAN})
		case rules.ActionDecNwTTL:
			out = append(out, openflow.Action{Type: openflow.ActionDecNWTTL})
		case rules.ActionSetField:
			of := wireField(a.Field, proto, eth)
			out = append(out, openflow.SetField(oxmOf(of, a.Value[0], a.Value[1], 0, 0, true)))
		}
	}
	return out
}

// instructionsToWire translates an entry's instructions back.
func instructionsToWire(ins []rules.Instruction, m *rules.Match) []openflow.Instruction {
	out := make([]openflow.Instruction, 0, len(ins))
	for _, in := range ins {
		switch in.Kind {
		case rules.InstGotoTable:
			out = append(out, openflow.GotoTable(in.Table))
		case rules.InstWriteMetadata:
			out = append(out, openflow.Instruction{Type: openflow.InstructionWriteMetadata, Metadata: in.Metadata, MetadataMask: in.MetadataMask})
		case rules.InstWriteActions:
			out = append(out, openflow.Instruction{Type: openflow.InstructionWriteActions, Actions: actionsToWire(in.Actions, m)})
		case rules.InstApplyActions:
			out = append(out, openflow.Instruction{Type: openflow.InstructionApplyActions, Actions: actionsToWire(in.Actions, m)})
		case rules.InstClearActions:
			out = append(out, openflow.Instruction{Type: openflow.InstructionClearActions})
		case rules.InstMeter:
			out = append(out, openflow.Instruction{Type: openflow.InstructionMeter, MeterID: in.Meter})
		}
	}
	return out
}

// updateFromWire translates a FLOW_MOD into a rules.Update, validated
// completely (a bundle's messages must be, when they are added).
func updateFromWire(fm *openflow.FlowMod, tables int, strict bool) (rules.Update, error) {
	return translateFlowMod(fm, tables, strict, true, nil, nil)
}

// translateFlowMod is updateFromWire; with check false the match's
// rules-level validation is left to the pipeline (see matchFromWire), and
// ins, when not nil, is used as the already translated instructions.
func translateFlowMod(fm *openflow.FlowMod, tables int, strict, check bool, ins []rules.Instruction, shape *matchShape) (rules.Update, error) {
	u := rules.Update{
		Command: rules.Command(fm.Command), Table: fm.TableID, Priority: fm.Priority,
		Cookie: fm.Cookie, CookieMask: fm.CookieMask, IdleTimeout: fm.IdleTimeout,
		HardTimeout: fm.HardTimeout, Flags: rules.FlowFlags(fm.Flags), Importance: fm.Importance,
		OutPort: fm.OutPort, OutGroup: fm.OutGroup,
	}
	if fm.Command > openflow.FlowDeleteStrict {
		return u, openflow.ErrorMsg{Type: openflow.ErrTypeFlowModFailed, Code: uint16(openflow.FlowModFailedBadCommand)}
	}
	isDelete := fm.Command == openflow.FlowDelete || fm.Command == openflow.FlowDeleteStrict
	if int(fm.TableID) >= tables && !(isDelete && fm.TableID == 0xff) {
		return u, openflow.ErrorMsg{Type: openflow.ErrTypeFlowModFailed, Code: uint16(openflow.FlowModFailedBadTableID)}
	}
	if fm.BufferID != 0xffffffff && fm.Command <= openflow.FlowModifyStrict {
		// The switch buffers no packets (n_buffers 0).
		return u, openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBufferUnknown)}
	}
	var err error
	if err = matchFromWireInto(&u.Match, &fm.Match, strict, check, shape); err != nil {
		return u, err
	}
	if ins != nil && !isDelete {
		u.Instructions = ins
	} else if !isDelete {
		if u.Instructions, err = instructionsFromWire(fm.Instructions, fm.TableID, tables); err != nil {
			return u, err
		}
	}
	return u, nil
}

// flowStats describes a rule for an OFPMP_FLOW reply.
func flowStats(r *rules.Rule, now int64) openflow.FlowStats {
	d := max(now-r.Created().UnixNano(), 0)
	return openflow.FlowStats{
		// Millisecond precision, as Open vSwitch reports durations.
		TableID: r.Table(), DurationSec: uint32(d / 1e9), DurationNsec: uint32(d % 1e9 / 1e6 * 1e6),
		Priority: r.Priority, IdleTimeout: r.IdleTimeout, HardTimeout: r.HardTimeout,
		Flags: uint16(r.Flags), Importance: r.Importance, Cookie: r.Cookie, PacketCount: r.Packets(), ByteCount: r.Bytes(),
		Match: matchToWire(&r.Match), Instructions: instructionsToWire(r.Instructions, &r.Match),
	}
}
