package ofctl

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ofswitch/ofswitch/rules"
)

// subfield parses a field's bits as ovs-ofctl does (mf_parse_subfield):
// NAME (the whole field), NAME[] (the same), NAME[bit] or
// NAME[start..end], NAME an NXM or OXM name (NXM_OF_ETH_DST) or a field
// name (eth_dst). NXM_NX_TUN_METADATAn (tun_metadatan) is read through
// ParseOptions.TunMetadata, with *tun set to n+1: bits in one option
// space word (rules.TunMetadataSubfield), as the switch's subfields hold
// them.
func (p *flowParser) subfield(s string, col int, tun *uint8) (rules.Subfield, error) {
	s = strings.TrimSpace(s)
	name, rng, hasRange := strings.Cut(s, "[")
	if n, ok := regNumber(strings.ToLower(strings.TrimPrefix(name, "NXM_NX_")), "tun_metadata", 64); ok {
		return p.tunSubfield(s, name, rng, hasRange, n, col, tun)
	}
	r := rules.SubfieldByName(name)
	if r < 0 {
		if connTrackField(name) {
			return rules.Subfield{}, p.errAt(col, "connection tracking (%s) is not supported", name)
		}
		return rules.Subfield{}, p.errAt(col, "%s: unknown field, or one load, move and output do not take", name)
	}
	row := &rules.SubfieldFields[r]
	sf := rules.SubfieldOf(r, 0, row.Bits)
	if !hasRange {
		return sf, nil
	}
	rng, ok := strings.CutSuffix(rng, "]")
	if !ok {
		return sf, p.errAt(col, "%s: missing ] after the bit range", s)
	}
	if rng == "" {
		return sf, nil
	}
	lo, hi, isRange := strings.Cut(rng, "..")
	a, err1 := strconv.Atoi(lo)
	b := a
	var err2 error
	if isRange {
		b, err2 = strconv.Atoi(hi)
	}
	if err1 != nil || err2 != nil || a < 0 || b < a {
		return sf, p.errAt(col, "%s: bad bit range %q", s, rng)
	}
	if b >= int(row.Bits) {
		// ovs-ofctl's words.
		return sf, p.errAt(col, "%s: ending bit %d is not valid because field is only %d bits wide", s, b, row.Bits)
	}
	return rules.SubfieldOf(r, uint8(a), uint8(b-a+1)), nil
}

// tunSubfield is subfield for tun_metadata<n>.
func (p *flowParser) tunSubfield(s, name, rng string, hasRange bool, n, col int, tun *uint8) (rules.Subfield, error) {
	var buf [rules.TunOptsBytes]uint8
	var place []uint8
	ok := false
	if p.opt != nil && p.opt.TunMetadata != nil {
		place, ok = p.opt.TunMetadata.TunMetadataPlace(buf[:0], n)
	}
	if !ok {
		e := p.errAt(col, "%s is not mapped (no TLV table maps it: add-tlv-map)", name)
		e.Err = ErrNotMapped
		return rules.Subfield{}, e
	}
	a, b := 0, 8*len(place)-1
	if rng, _ = strings.CutSuffix(rng, "]"); hasRange && rng != "" {
		lo, hi, isRange := strings.Cut(rng, "..")
		var err1, err2 error
		a, err1 = strconv.Atoi(lo)
		b = a
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return rules.Subfield{}, p.errAt(col, "%s: bad bit range %q", s, rng)
		}
	}
	if b >= 8*len(place) {
		return rules.Subfield{}, p.errAt(col, "%s: ending bit %d is not valid because field is only %d bits wide", s, b, 8*len(place))
	}
	sf, ok := rules.TunMetadataSubfield(place, a, b-a+1)
	if !ok {
		return rules.Subfield{}, p.errAt(col, "%s: bits across two words of the option space, which ofswitch does not take", s)
	}
	*tun = uint8(n) + 1
	return sf, nil
}

// load parses load:VALUE->DST, which ovs-ofctl sends as NXAST_REG_LOAD,
// in a flow whose match is m: a field of one protocol (tcp_dst) needs
// that protocol in m, which the rules field (shared by TCP, UDP and
// SCTP) does not tell afterwards.
func (p *flowParser) load(arg string, col int, m *rules.Match) (rules.Action, error) {
	vs, ds, ok := strings.Cut(arg, "->")
	if !ok {
		return rules.Action{}, p.errAt(col, "expected load:value->field[bits], found %q", arg)
	}
	var tun uint8
	d, err := p.subfield(ds, col+len(vs)+2, &tun)
	if err != nil {
		return rules.Action{}, err
	}
	vhi, v, err := p.num128(strings.TrimSpace(vs), col, "load value")
	if err != nil {
		return rules.Action{}, err
	}
	if hi, lo := rules.Shr128(vhi, v, uint(d.Bits)); hi != 0 || lo != 0 {
		return rules.Action{}, p.errAt(col, "%s: value %s does not fit into %d bits", arg, strings.TrimSpace(vs), d.Bits)
	}
	if err := rules.CheckSubfield(d, true); err != nil {
		return rules.Action{}, p.errAt(col+len(vs)+2, "%v", err)
	}
	if pr := rules.SubfieldFields[d.Row].Proto; pr != 0 && m != nil && !m.Exact(rules.FieldIPProto, uint64(pr)) {
		return rules.Action{}, p.errAt(col+len(vs)+2, "%s: the match needs ip_proto=%d (ovs-ofctl: actions are invalid with specified match)", ds, pr)
	}
	var reason uint8
	if isXReg(&rules.SubfieldFields[d.Row]) {
		reason = rules.LoadXReg
	}
	a := rules.LoadOf(d, vhi, v, reason)
	if tun != 0 {
		// Bits of one word: the one load of the set_field ovs-ofctl
		// makes of it.
		a.Ext = &rules.ActionExt{TunMetadata: tun, TunFirst: true}
	}
	return a, nil
}

// num128 reads a number of up to 128 bits, decimal or 0x hex, as
// ovs-ofctl reads a load's value (parse_int_string into the field's
// bytes), as its high and low words.
func (p *flowParser) num128(val string, col int, what string) (hi, lo uint64, err error) {
	if v, ok := shortDecimal(val); ok {
		return 0, v, nil
	}
	s, base := val, 10
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		s, base = s[2:], 16
	}
	n, ok := new(big.Int).SetString(s, base)
	if !ok || s == "" || n.Sign() < 0 || n.BitLen() > 128 {
		return 0, 0, p.errAt(col, "expected %s (a number of up to 128 bits), found %q", what, val)
	}
	lo = new(big.Int).And(n, new(big.Int).SetUint64(^uint64(0))).Uint64()
	hi = new(big.Int).Rsh(n, 64).Uint64()
	return hi, lo, nil
}

// move parses move:SRC->DST, the two as wide.
func (p *flowParser) move(arg string, col int) (rules.Action, error) {
	ss, ds, ok := strings.Cut(arg, "->")
	if !ok {
		return rules.Action{}, p.errAt(col, "expected move:field[bits]->field[bits], found %q", arg)
	}
	ext := &rules.ActionExt{}
	src, err := p.subfield(ss, col, &ext.SrcTun)
	if err != nil {
		return rules.Action{}, err
	}
	dst, err := p.subfield(ds, col+len(ss)+2, &ext.DstTun)
	if err != nil {
		return rules.Action{}, err
	}
	if src.Bits != dst.Bits {
		return rules.Action{}, p.errAt(col, "%s: source field is %d bits wide but destination is %d bits wide", arg, src.Bits, dst.Bits)
	}
	if err := rules.CheckSubfield(dst, true); err != nil {
		return rules.Action{}, p.errAt(col+len(ss)+2, "%v", err)
	}
	ext.Src, ext.Dst = src, dst
	return rules.Action{Kind: rules.ActionMove, Ext: ext}, nil
}

// setFieldMasked parses the VALUE/MASK of set_field:VALUE/MASK->FIELD, FIELD
// that of row r of rules.SubfieldFields. ovs-ofctl sends one of all of
// the field's bits as a set_field, any other as loads.
func (p *flowParser) setFieldMasked(vs string, col, r int) (rules.Action, error) {
	row := &rules.SubfieldFields[r]
	if !row.Field.Maskable() {
		return rules.Action{}, p.errAt(col, "%s: invalid mask for field %s", vs, row.Alias[0]) // ovs-ofctl's words
	}
	if row.Bits > 64 {
		hi, lo, mhi, mlo, err := p.ipv6(vs, col)
		switch {
		case err != nil:
			return rules.Action{}, err
		case mhi == ^uint64(0) && mlo == ^uint64(0):
			return rules.Action{Kind: rules.ActionSetField, Field: row.Field, Value: [2]uint64{hi, lo}}, nil
		case mhi == 0 && mlo == 0:
			return rules.Action{}, p.errAt(col, "set_field %s: a mask of 0 sets nothing", vs)
		}
		return rules.NewLoad(row.Field, [2]uint64{mhi, mlo}, [2]uint64{hi & mhi, lo & mlo}, 0), nil
	}
	var v, mk uint64
	var err error
	switch row.Field {
	case rules.FieldEthDst, rules.FieldEthSrc, rules.FieldARPSHA, rules.FieldARPTHA:
		v, mk, err = p.macMask(vs, col)
	case rules.FieldIPv4Src, rules.FieldIPv4Dst, rules.FieldARPSPA, rules.FieldARPTPA, rules.FieldTunSrc, rules.FieldTunDst:
		v, mk, err = p.ipv4(vs, col)
	default:
		v, mk, err = p.numMask(vs, col, int(row.Bits), row.Alias[0]+" value")
	}
	if err != nil {
		return rules.Action{}, err
	}
	full := ^uint64(0) >> (64 - uint(row.Bits))
	if mk == full {
		if isReg(row) || isXReg(row) {
			return regSetField(r, v), nil
		}
		return rules.Action{Kind: rules.ActionSetField, Field: row.Field, Value: [2]uint64{0, v}}, nil
	}
	if mk == 0 {
		return rules.Action{}, p.errAt(col, "set_field %s: a mask of 0 sets nothing", vs)
	}
	a := rules.Action{Kind: rules.ActionLoad, Field: row.Field, Value: [2]uint64{mk << row.Shift, (v & mk) << row.Shift}}
	if isXReg(row) {
		a.Reason = rules.LoadXReg
	}
	return a, nil
}

// isXReg reports whether row is a 64-bit register's (an xreg field
// whole, OXM_OF_PKT_REGn).
func isXReg(row *rules.SubfieldField) bool {
	return row.Field >= rules.FieldXReg0 && row.Field <= rules.FieldXReg7 && row.Bits == 64
}

// isReg reports whether row is a 32-bit register's (half of an xreg
// field).
func isReg(row *rules.SubfieldField) bool {
	return row.Field >= rules.FieldXReg0 && row.Field <= rules.FieldXReg7 && row.Bits == 32
}

// regSetField is set_field:V->regN or ->xregN, the register of row r: a
// load of all the register's bits (a 32-bit one's half of its xreg
// field) that came as a set_field (Reason rules.LoadSetField), which
// ovs-ofctl sends as OFPAT_SET_FIELD with the NXM_NX_REG or
// OXM_OF_PKT_REG header and Open vSwitch prints as set_field.
func regSetField(r int, v uint64) rules.Action {
	row := &rules.SubfieldFields[r]
	a := rules.Action{Kind: rules.ActionLoad, Field: row.Field, Reason: rules.LoadSetField,
		Value: [2]uint64{rules.RowMask(r), v << row.Shift}}
	if isXReg(row) {
		a.Reason |= rules.LoadXReg
	}
	return a
}

// subfieldString formats s as Open vSwitch does (mf_format_subfield):
// NAME[] for the whole field, NAME[bit] for one bit, else
// NAME[start..end].
func subfieldString(s rules.Subfield) string {
	row := &rules.SubfieldFields[s.Row]
	ofs := s.RowOfs()
	switch {
	case ofs == 0 && s.Bits == row.Bits:
		return row.Name + "[]"
	case s.Bits == 1:
		return fmt.Sprintf("%s[%d]", row.Name, ofs)
	}
	return fmt.Sprintf("%s[%d..%d]", row.Name, ofs, int(ofs)+int(s.Bits)-1)
}

// formatLoad formats a load as Open vSwitch prints it: one load: for
// each run of ones of its mask (format_SET_FIELD of an NXAST_REG_LOAD),
// or set_field:VALUE/MASK->FIELD for one that came as NXAST_REG_LOAD2 or,
// a register's, as a set_field. The row is the one that holds the mask's
// bits (of an xreg field, the register they are in), and the values
// print counted from its bit 0.
func (nm fieldNamer) formatLoad(a *rules.Action) string {
	r := rules.LoadRow(a, nm.proto)
	if r < 0 {
		return fmt.Sprintf("load(%v)", a.Field)
	}
	row := &rules.SubfieldFields[r]
	if row.Bits > 64 {
		return nm.formatLoad128(a, r)
	}
	m, v := a.Load128()
	mask, val := m[1]>>row.Shift, v[1]>>row.Shift
	if (isReg(row) || isXReg(row)) && a.Reason&rules.LoadWire != 0 {
		return "set_field:" + hexMasked(val, mask, ^uint64(0)>>(64-uint(row.Bits))) + "->" + row.Alias[0]
	}
	if a.Reason&rules.LoadWire == 1 {
		// mf_format: addresses as addresses, the rest in hex.
		var v string
		switch a.Field {
		case rules.FieldEthDst, rules.FieldEthSrc, rules.FieldARPSHA, rules.FieldARPTHA:
			v = macMasked(a.Value[1], a.Value[0])
		case rules.FieldIPv4Src, rules.FieldIPv4Dst, rules.FieldARPSPA, rules.FieldARPTPA:
			v = ipv4Masked(a.Value[1], a.Value[0])
		default:
			v = hexMasked(val, mask, ^uint64(0)>>(64-uint(row.Bits)))
		}
		name := nm.name(a.Field)
		if row.Pack != 0 {
			name = row.Alias[0]
		}
		return "set_field:" + v + "->" + name
	}
	var parts []string
	for _, seg := range rules.LoadSegments(mask, row.Bits) {
		s := rules.SubfieldOf(r, seg.Ofs, seg.Bits)
		parts = append(parts, "load:"+cHex(val>>seg.Ofs&(^uint64(0)>>(64-uint(seg.Bits))))+"->"+subfieldString(s))
	}
	return strings.Join(parts, ",")
}

// formatLoad128 is formatLoad of a load of a 128-bit field, that of row
// r: set_field:ADDR/MASK->FIELD for one that came as NXAST_REG_LOAD2,
// else a load: for each run of ones of its mask, cut after 64 bits.
func (nm fieldNamer) formatLoad128(a *rules.Action, r int) string {
	row := &rules.SubfieldFields[r]
	mask, val := a.Load128()
	if a.Reason&rules.LoadWire == 1 {
		var m rules.Match
		m.Set128(row.Field, val[0], val[1], mask[0], mask[1])
		return "set_field:" + ipv6Masked(&m, row.Field) + "->" + nm.name(a.Field)
	}
	var parts []string
	for _, seg := range rules.LoadSegments128(mask[0], mask[1], row.Bits) {
		s := rules.SubfieldOf(r, seg.Ofs, seg.Bits)
		_, v := rules.Shr128(val[0], val[1], uint(seg.Ofs))
		if seg.Bits < 64 {
			v &= 1<<seg.Bits - 1
		}
		parts = append(parts, "load:"+cHex(v)+"->"+subfieldString(s))
	}
	return strings.Join(parts, ",")
}
