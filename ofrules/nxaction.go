package ofrules

import (
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// nxAction translates a Nicira extension action (vendor 0x2320) other
// than connection tracking's: resubmit, note, exit, controller(...),
// dec_ttl(ids), set_tunnel and set_tunnel64. Open vSwitch answers a
// subtype it does not know with OFPBAC_BAD_EXPERIMENTER_TYPE, and so does
// this for one ofswitch does not run (load, move, learn...), which
// openflow.DecodeNXAction refuses.
//
// A resubmit's 16-bit in_port widens as in Open vSwitch (0xff00 and up
// are the reserved ports); any port and table are taken, as Open vSwitch
// takes them: a table the switch lacks is a miss, which does nothing.
//
// set_tunnel and set_tunnel64 become a set_field of tunnel_id: Open
// vSwitch sends them back over OpenFlow 1.2 and later as that set_field
// (its encode_SET_TUNNEL), so a dump of the flow reads the same from
// either switch.
//
// move and output:field take bits of tun_metadataN as the switch's TLV
// table t maps it (tunSubfield).
func nxAction(x *openflow.NXAction, t *TLVTable) (rules.Action, error) {
	switch x.Subtype {
	case openflow.NXResubmit, openflow.NXResubmitTable:
		a := rules.Action{Kind: rules.ActionResubmit, Port: openflow.Port32(x.InPort), Table: x.Table}
		if x.Subtype == openflow.NXResubmit {
			a.Reason = 1
		}
		return a, nil
	case openflow.NXSetTunnel, openflow.NXSetTunnel64:
		return rules.Action{Kind: rules.ActionSetField, Field: rules.FieldTunnelID, Value: [2]uint64{0, x.TunID}}, nil
	case openflow.NXNote:
		return rules.Action{Kind: rules.ActionNote, Ext: &rules.ActionExt{Note: x.Note}}, nil
	case openflow.NXExit:
		return rules.Action{Kind: rules.ActionExit}, nil
	case openflow.NXController:
		return rules.Action{Kind: rules.ActionController, MaxLen: x.MaxLen, Reason: x.Reason, CtlID: x.ControllerID}, nil
	case openflow.NXDecTTLCntIDs:
		return rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{IDs: x.IDs}}, nil
	case openflow.NXRegLoad:
		if _, ok := tunHeaderIndex(x.Dst); ok {
			return rules.Action{}, badAction(openflow.BadActionBadSetType) // actions' tunRegLoad takes it first
		}
		d, err := subfield(x.Dst, x.Ofs, x.NBits, true, badAction(openflow.BadActionBadSetType))
		if err != nil {
			return rules.Action{}, err
		}
		if d.Bits < 64 && x.Value>>d.Bits != 0 {
			return rules.Action{}, badAction(openflow.BadActionBadArgument)
		}
		var reason uint8
		if int(d.Row) == rules.XRegRow(d.Field) {
			reason = rules.LoadXReg
		}
		return rules.LoadOf(d, 0, x.Value, reason), nil
	case openflow.NXRegLoad2:
		return regLoad2(x)
	case openflow.NXRegMove:
		ext := &rules.ActionExt{}
		src, err := tunOrSubfield(x.Src, x.SrcOfs, x.NBits, false, badMatch(openflow.BadMatchBadField), t, &ext.SrcTun)
		if err != nil {
			return rules.Action{}, err
		}
		dst, err := tunOrSubfield(x.Dst, x.DstOfs, x.NBits, true, badMatch(openflow.BadMatchBadField), t, &ext.DstTun)
		if err != nil {
			return rules.Action{}, err
		}
		ext.Src, ext.Dst = src, dst
		return rules.Action{Kind: rules.ActionMove, Ext: ext}, nil
	case openflow.NXOutputReg, openflow.NXOutputReg2:
		unknown := badAction(openflow.BadActionBadSetType)
		if x.Subtype == openflow.NXOutputReg2 {
			unknown = badMatch(openflow.BadMatchBadField)
		}
		ext := &rules.ActionExt{}
		src, err := tunOrSubfield(x.Src, x.Ofs, x.NBits, false, unknown, t, &ext.SrcTun)
		if err != nil {
			return rules.Action{}, err
		}
		ext.Src = src
		a := rules.Action{Kind: rules.ActionOutputReg, MaxLen: x.MaxLen, Ext: ext}
		if x.Subtype == openflow.NXOutputReg2 {
			a.Reason = 1
		}
		return a, nil
	}
	return rules.Action{}, openflow.ErrNXBadSubtype
}

// subfield is bits [ofs, ofs+n) of the field whose NXM or OXM header is
// h, checked as Open vSwitch's mf_check_src and mf_check_dst (dst) check
// it: a field load and move do not know is unknown (OFPBAC_BAD_SET_TYPE
// for the header of a load or output_reg, which Open vSwitch reads with
// mf_vl_mff_mf_from_nxm_header; OFPBMC_BAD_FIELD for those it pulls as
// OXM headers: move's, output_reg2's), bits beyond it OFPBAC_BAD_SET_LEN,
// a destination not written OFPBAC_BAD_SET_ARGUMENT. The header's
// hasmask and length are not looked at, as Open vSwitch's lookup of it
// does not.
func subfield(h openflow.OXMHeader, ofs, n uint16, dst bool, unknown error) (rules.Subfield, error) {
	r := rules.SubfieldByHeader(uint16(h.Class()), uint8(h.Field()))
	if r < 0 {
		return rules.Subfield{}, unknown
	}
	row := &rules.SubfieldFields[r]
	if n == 0 || int(ofs)+int(n) > int(row.Bits) {
		return rules.Subfield{}, badAction(openflow.BadActionBadSetLen)
	}
	if dst && !row.Writable {
		return rules.Subfield{}, badAction(openflow.BadActionBadSetArgument)
	}
	return rules.SubfieldOf(r, uint8(ofs), uint8(n)), nil
}

// tunOrSubfield is subfield, or for NXM_NX_TUN_METADATA<N> (h) the bits
// [ofs, ofs+n) of the field as the TLV table t maps it, with *tun set to
// N+1: an unmapped field is NXFMFC_INVALID_TLV_FIELD, bits beyond its
// mapped length OFPBAC_BAD_SET_LEN, and bits across two option space
// words or two runs of the space (which ofswitch's subfields cannot
// hold; Open vSwitch takes them) OFPBAC_BAD_SET_ARGUMENT.
func tunOrSubfield(h openflow.OXMHeader, ofs, n uint16, dst bool, unknown error, t *TLVTable, tun *uint8) (rules.Subfield, error) {
	if h.Class() != openflow.OXMClassNXM1 || h.Field() < nxmTunMetadata0 || h.Field() >= nxmTunMetadata0+openflow.TLVMaxFields {
		return subfield(h, ofs, n, dst, unknown)
	}
	idx := int(h.Field() - nxmTunMetadata0)
	var pb [OptionSpace]uint8
	place, ok := t.TunMetadataPlace(pb[:0], idx)
	if !ok {
		return rules.Subfield{}, openflow.ErrInvalidTLVField
	}
	if n == 0 || int(ofs)+int(n) > 8*len(place) {
		return rules.Subfield{}, badAction(openflow.BadActionBadSetLen)
	}
	s, ok := rules.TunMetadataSubfield(place, int(ofs), int(n))
	if !ok {
		return rules.Subfield{}, badAction(openflow.BadActionBadSetArgument)
	}
	*tun = uint8(idx) + 1
	return s, nil
}

// tunHeader returns the header and offset that name s, bits of
// tun_metadata<tun-1> (tun not 0), as the TLV table t maps it; ok is
// false when t no longer maps it there.
func tunHeader(s rules.Subfield, tun uint8, t *TLVTable) (h openflow.OXMHeader, ofs uint16, ok bool) {
	idx := int(tun) - 1
	var pb [OptionSpace]uint8
	place, ok := t.TunMetadataPlace(pb[:0], idx)
	if !ok {
		return 0, 0, false
	}
	o, ok := rules.TunMetadataOfs(place, s)
	h = openflow.OXMHeader(uint32(openflow.OXMClassNXM1)<<16 | uint32(nxmTunMetadata0+idx)<<9 | uint32(len(place)))
	return h, uint16(o), ok
}

// regLoad2 translates NXAST_REG_LOAD2, whose OXM entry sets its field
// under its mask, with the checks of Open vSwitch's nx_pull_entry: an
// unknown field is OFPBMC_BAD_FIELD, a length not of the field's size
// OFPBAC_BAD_SET_LEN, value bits outside the mask OFPBMC_BAD_WILDCARDS; a
// field not written is OFPBAC_BAD_SET_ARGUMENT.
func regLoad2(x *openflow.NXAction) (rules.Action, error) {
	r := rules.SubfieldByHeader(uint16(x.Dst.Class()), uint8(x.Dst.Field()))
	if r < 0 {
		return rules.Action{}, badMatch(openflow.BadMatchBadField)
	}
	row := &rules.SubfieldFields[r]
	n := row.Len()
	p := x.Payload
	if x.Dst.HasMask() && len(p) != 2*n || !x.Dst.HasMask() && len(p) != n {
		return rules.Action{}, badAction(openflow.BadActionBadSetLen)
	}
	v, mk := beUint128(p[:n]), [2]uint64{^uint64(0), ^uint64(0)}
	if row.Bits < 128 {
		mk = [2]uint64{0, ^uint64(0) >> (64 - uint(row.Bits))}
	}
	if x.Dst.HasMask() {
		mk = beUint128(p[n:])
	}
	if v[0]&^mk[0] != 0 || v[1]&^mk[1] != 0 {
		return rules.Action{}, badMatch(openflow.BadMatchBadWildcards)
	}
	if !row.Writable {
		return rules.Action{}, badAction(openflow.BadActionBadSetArgument)
	}
	reason := uint8(1)
	if r == rules.XRegRow(row.Field) {
		reason |= rules.LoadXReg
	}
	return rules.LoadRowValue(r, mk, v, reason), nil
}

// beUint128 reads big-endian b, of up to 16 bytes, as a 128-bit number,
// high word first.
func beUint128(b []byte) [2]uint64 {
	if len(b) > 8 {
		return [2]uint64{beUint(b[:len(b)-8]), beUint(b[len(b)-8:])}
	}
	return [2]uint64{0, beUint(b)}
}

// subfieldHeader is the NXM or OXM header of the field of row r of
// rules.SubfieldFields, unmasked.
func subfieldHeader(r int) openflow.OXMHeader {
	row := &rules.SubfieldFields[r]
	return openflow.OXMHeader(uint32(row.Class)<<16 | uint32(row.Num)<<9 | uint32(row.Len()))
}

// loadsToWire appends the wire form of load a, whose field is that of row
// r (of an xreg field, the register that holds the mask's bits), as Open
// vSwitch encodes a set_field that came as a load (set_field_to_nxast):
// NXAST_REG_LOAD2 with the value and mask if it came so, OFPAT_SET_FIELD
// of the register for a register's set_field, else one NXAST_REG_LOAD
// for each run of ones in the mask. Values and offsets count from the
// row's bit 0.
func loadsToWire(out []openflow.Action, a *rules.Action, r int) []openflow.Action {
	h := subfieldHeader(r)
	row := &rules.SubfieldFields[r]
	if row.Bits > 64 {
		return loads128ToWire(out, a, h, row)
	}
	m, v := a.Load128()
	mask, val := m[1]>>row.Shift, v[1]>>row.Shift
	if a.Reason&rules.LoadWire == rules.LoadSetField {
		var b [8]byte
		n := row.Len()
		putValue(b[:n], 0, val)
		return append(out, openflow.SetField(openflow.NXM(openflow.OXMClass(row.Class), openflow.OXMField(row.Num), b[:n], nil)))
	}
	if a.Reason&rules.LoadWire == 1 {
		n := row.Len()
		var b [16]byte
		putValue(b[:n], 0, val)
		pay := b[:n]
		full := ^uint64(0) >> (64 - uint(row.Bits))
		if mask != full {
			putValue(b[n:2*n], 0, mask)
			pay = b[:2*n]
			h = h&^0xff | openflow.OXMHeader(2*n) | 1<<8
		}
		x := openflow.NXAction{Subtype: openflow.NXRegLoad2, Dst: h, Payload: pay}
		return append(out, x.Action())
	}
	for _, seg := range rules.LoadSegments(mask, row.Bits) {
		x := openflow.NXAction{Subtype: openflow.NXRegLoad, Dst: h, Ofs: uint16(seg.Ofs), NBits: uint16(seg.Bits),
			Value: val >> seg.Ofs & (^uint64(0) >> (64 - uint(seg.Bits)))}
		out = append(out, x.Action())
	}
	return out
}

// loads128ToWire is loadsToWire of a load of a 128-bit field, of row row
// and header h: NXAST_REG_LOAD2 if it came so, else an NXAST_REG_LOAD for
// each run of ones of the mask, cut after 64 bits (next_load_segment).
func loads128ToWire(out []openflow.Action, a *rules.Action, h openflow.OXMHeader, row *rules.SubfieldField) []openflow.Action {
	mask, val := a.Load128()
	if a.Reason&rules.LoadWire == 1 {
		var b [32]byte
		putValue(b[:16], val[0], val[1])
		pay := b[:16]
		if mask != [2]uint64{^uint64(0), ^uint64(0)} {
			putValue(b[16:], mask[0], mask[1])
			pay = b[:]
			h = h&^0xff | 32 | 1<<8
		}
		x := openflow.NXAction{Subtype: openflow.NXRegLoad2, Dst: h, Payload: pay}
		return append(out, x.Action())
	}
	for _, seg := range rules.LoadSegments128(mask[0], mask[1], row.Bits) {
		_, v := rules.Shr128(val[0], val[1], uint(seg.Ofs))
		if seg.Bits < 64 {
			v &= 1<<seg.Bits - 1
		}
		x := openflow.NXAction{Subtype: openflow.NXRegLoad, Dst: h, Ofs: uint16(seg.Ofs), NBits: uint16(seg.Bits), Value: v}
		out = append(out, x.Action())
	}
	return out
}

// nxActionToWire encodes a Nicira extension action of the rules: as it
// came in, so that ovs-ofctl prints the flow as Open vSwitch prints it.
//
// Bits of tun_metadataN are named as the TLV table t maps them.
func nxActionToWire(a *rules.Action, t *TLVTable) openflow.Action {
	var x openflow.NXAction
	switch a.Kind {
	case rules.ActionResubmit:
		// NXAST_RESUBMIT only as it came, and only if it has no table
		// (Open vSwitch's encode_RESUBMIT).
		x = openflow.NXAction{Subtype: openflow.NXResubmitTable, InPort: openflow.Port16(a.Port), Table: a.Table}
		if a.Reason == 1 && a.Table == rules.TableAll {
			x.Subtype = openflow.NXResubmit
		}
	case rules.ActionNote:
		x = openflow.NXAction{Subtype: openflow.NXNote}
		if a.Ext != nil {
			x.Note = a.Ext.Note
		}
	case rules.ActionExit:
		x = openflow.NXAction{Subtype: openflow.NXExit}
	case rules.ActionController:
		x = openflow.NXAction{Subtype: openflow.NXController, MaxLen: a.MaxLen, ControllerID: a.CtlID, Reason: a.Reason}
	case rules.ActionDecNwTTL:
		x = openflow.NXAction{Subtype: openflow.NXDecTTLCntIDs}
		if a.Ext != nil {
			x.IDs = a.Ext.IDs
		}
	case rules.ActionMove:
		s, d := a.Ext.Src, a.Ext.Dst
		x = openflow.NXAction{Subtype: openflow.NXRegMove, NBits: uint16(s.Bits), SrcOfs: uint16(s.RowOfs()), DstOfs: uint16(d.RowOfs()),
			Src: subfieldHeader(int(s.Row)), Dst: subfieldHeader(int(d.Row))}
		if a.Ext.SrcTun != 0 {
			x.Src, x.SrcOfs, _ = tunHeader(s, a.Ext.SrcTun, t)
		}
		if a.Ext.DstTun != 0 {
			x.Dst, x.DstOfs, _ = tunHeader(d, a.Ext.DstTun, t)
		}
	case rules.ActionOutputReg:
		s := a.Ext.Src
		x = openflow.NXAction{Subtype: openflow.NXOutputReg, Ofs: uint16(s.RowOfs()), NBits: uint16(s.Bits),
			Src: subfieldHeader(int(s.Row)), MaxLen: a.MaxLen}
		if a.Ext.SrcTun != 0 {
			x.Src, x.Ofs, _ = tunHeader(s, a.Ext.SrcTun, t)
		}
		if a.Reason == 1 {
			x.Subtype = openflow.NXOutputReg2
		}
	}
	return x.Action()
}
