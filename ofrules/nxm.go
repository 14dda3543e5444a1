package ofrules

import (
	"encoding/binary"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// nxmField is how a Nicira-class OXM (NXM_OF_* or NXM_NX_*) maps to a
// rules field.
type nxmField struct {
	f        rules.Field
	size     uint8 // payload bytes of the value
	maskable bool  // Open vSwitch's MFM_FULLY; without, a mask is all-ones or nothing
	kind     uint8 // nxmPlain or a conversion
}

const (
	nxmPlain    = iota // the value is the rules field's value
	nxmInPort          // 16-bit OpenFlow 1.0 port: 0xff00 and up are the reserved ports
	nxmIPTos           // the TOS byte's DSCP bits, ECN bits zero
	nxmIPFrag          // only the low two bits of the mask count
	nxmTunFlags        // only the oam bit of the mask counts
	nxmVLANTCI         // 802.1Q TCI: vlan_vid (id and CFI) and vlan_pcp
	nxmReg             // NXM_NX_REG<field>: one half of an xreg field (rules.RegField)
)

// nxmKey is a Nicira field's class and field number as one index.
func nxmKey(class openflow.OXMClass, field openflow.OXMField) uint32 {
	return uint32(class)<<8 | uint32(field)
}

// nxmFields holds the Nicira fields the flow tables match on, with the
// meaning Open vSwitch's meta-flow.xml gives them. ovs-ofctl sends only the
// NXM_NX fields that have no OXM (nw_ttl, ip_frag, pkt_mark, tun_flags)
// over OpenFlow 1.3 and 1.4; the others are aliases of basic OXMs that an
// NXM controller may still send. NXM_OF_VLAN_TCI, which packs the VLAN id
// and PCP into one masked value, is not among them. The registers
// NXM_NX_REG0-15 are halves of rules' xreg fields; OXM_OF_PKT_REG0-7
// (OXMClassPacketRegs) are the xreg fields whole.
var nxmFields = func() map[uint32]nxmField {
	m := map[uint32]nxmField{}
	for k, v := range nxmNamed {
		m[k] = v
	}
	for n := range rules.NumRegs {
		f, _ := rules.RegField(n)
		m[nxmKey(openflow.OXMClassNXM1, openflow.NXMNxReg0+openflow.OXMField(n))] = nxmField{f, 4, true, nxmReg}
	}
	for n := range rules.NumRegs / 2 {
		m[nxmKey(openflow.OXMClassPacketRegs, openflow.OXMField(n))] = nxmField{rules.FieldXReg0 + rules.Field(n), 8, true, nxmPlain}
	}
	return m
}()

var nxmNamed = map[uint32]nxmField{
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfInPort):   {rules.FieldInPort, 2, false, nxmInPort},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfEthDst):   {rules.FieldEthDst, 6, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfEthSrc):   {rules.FieldEthSrc, 6, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfEthType):  {rules.FieldEthType, 2, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfVLANTCI):  {rules.FieldVLANVID, 2, true, nxmVLANTCI},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfIPTos):    {rules.FieldIPDSCP, 1, false, nxmIPTos},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfIPProto):  {rules.FieldIPProto, 1, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfIPSrc):    {rules.FieldIPv4Src, 4, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfIPDst):    {rules.FieldIPv4Dst, 4, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfTCPSrc):   {rules.FieldL4Src, 2, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfTCPDst):   {rules.FieldL4Dst, 2, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfUDPSrc):   {rules.FieldL4Src, 2, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfUDPDst):   {rules.FieldL4Dst, 2, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfICMPType): {rules.FieldICMPType, 1, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfICMPCode): {rules.FieldICMPCode, 1, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfARPOp):    {rules.FieldARPOp, 2, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfARPSPA):   {rules.FieldARPSPA, 4, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM0, openflow.NXMOfARPTPA):   {rules.FieldARPTPA, 4, true, nxmPlain},

	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunID):      {rules.FieldTunnelID, 8, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxARPSHA):     {rules.FieldARPSHA, 6, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxARPTHA):     {rules.FieldARPTHA, 6, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxIPv6Src):    {rules.FieldIPv6Src, 16, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxIPv6Dst):    {rules.FieldIPv6Dst, 16, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxICMPv6Type): {rules.FieldICMPType, 1, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxICMPv6Code): {rules.FieldICMPCode, 1, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxNDTarget):   {rules.FieldNDTarget, 16, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxNDSLL):      {rules.FieldARPSHA, 6, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxNDTLL):      {rules.FieldARPTHA, 6, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxIPFrag):     {rules.FieldIPFrag, 1, true, nxmIPFrag},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxIPv6Label):  {rules.FieldIPv6FLabel, 4, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxIPECN):      {rules.FieldIPECN, 1, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxIPTTL):      {rules.FieldNwTTL, 1, false, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxPktMark):    {rules.FieldPktMark, 4, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTCPFlags):   {rules.FieldTCPFlags, 2, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunFlags):   {rules.FieldTunFlags, 2, true, nxmTunFlags},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunIPv4Src): {rules.FieldTunSrc, 4, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunIPv4Dst): {rules.FieldTunDst, 4, true, nxmPlain},

	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunIPv6Src):  {rules.FieldTunIPv6Src, 16, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunIPv6Dst):  {rules.FieldTunIPv6Dst, 16, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunGbpID):    {rules.FieldTunGbpID, 2, true, nxmPlain},
	nxmKey(openflow.OXMClassNXM1, openflow.NXMNxTunGbpFlags): {rules.FieldTunGbpFlags, 1, true, nxmPlain},
}

// nxmOnly is, for each rules field that no basic OXM holds, the Nicira
// field a reply encodes it as, as Open vSwitch sends it (nx_put_raw in
// lib/nx-match.c). Other fields go out as basic OXMs.
//
// The registers (xreg fields) go out as their NXM_NX_REG halves
// (appendNXM). noSet marks the fields no set_field of this package
// writes.
var nxmOnly = map[rules.Field]struct {
	of    openflow.OXMField
	size  int
	noSet bool
}{
	rules.FieldNwTTL:    {openflow.NXMNxIPTTL, 1, false},
	rules.FieldIPFrag:   {openflow.NXMNxIPFrag, 1, false},
	rules.FieldTunFlags: {openflow.NXMNxTunFlags, 2, false},
	rules.FieldPktMark:  {openflow.NXMNxPktMark, 4, false},
	rules.FieldTunSrc:   {openflow.NXMNxTunIPv4Src, 4, false},
	rules.FieldTunDst:   {openflow.NXMNxTunIPv4Dst, 4, false},
	rules.FieldXReg0:    {0, 4, true},
	rules.FieldXReg1:    {0, 4, true},
	rules.FieldXReg2:    {0, 4, true},
	rules.FieldXReg3:    {0, 4, true},
	rules.FieldXReg4:    {0, 4, true},
	rules.FieldXReg5:    {0, 4, true},
	rules.FieldXReg6:    {0, 4, true},
	rules.FieldXReg7:    {0, 4, true},

	rules.FieldTunIPv6Src:  {openflow.NXMNxTunIPv6Src, 16, false},
	rules.FieldTunIPv6Dst:  {openflow.NXMNxTunIPv6Dst, 16, false},
	rules.FieldTunGbpID:    {openflow.NXMNxTunGbpID, 2, false},
	rules.FieldTunGbpFlags: {openflow.NXMNxTunGbpFlags, 1, false},
}

// nxmMatch sets out's field from the Nicira-class OXM o, with the checks
// of Open vSwitch's nx_pull_match_entry: the payload's length
// (OFPBMC_BAD_LEN), value bits outside the mask (OFPBMC_BAD_WILDCARDS), a
// mask on a field that takes none other than all-ones (OFPBMC_BAD_MASK)
// and values out of the field's range (OFPBMC_BAD_VALUE). A field it does
// not know is OFPBMC_BAD_FIELD (or the connection tracking or Nicira
// field refusal). It returns the rules field set (NXM_OF_VLAN_TCI:
// vlan_vid, and vlan_pcp if set) and the bits of it that o stands for:
// its full mask, but one half of its xreg field for a register.
func nxmMatch(out *rules.Match, o *openflow.OXM) (rules.Field, uint64, error) {
	f, err := nxmMatchField(out, o)
	if err != nil {
		return 0, 0, err
	}
	if o.Class == openflow.OXMClassNXM1 && o.Field < openflow.NXMNxReg0+rules.NumRegs {
		_, sh := rules.RegField(int(o.Field - openflow.NXMNxReg0))
		return f, 0xffffffff << sh, nil
	}
	return f, f.FullMask(), nil
}

func nxmMatchField(out *rules.Match, o *openflow.OXM) (rules.Field, error) {
	nf, ok := nxmFields[nxmKey(o.Class, o.Field)]
	if !ok {
		if err := ctMatch(o); err != nil {
			return 0, err
		}
		if err := refusedNXM(o); err != nil {
			return 0, err
		}
		return 0, badMatch(openflow.BadMatchBadField)
	}
	n := int(nf.size)
	val, mask, ok := o.NXMPayload(n)
	if !ok {
		return 0, badMatch(openflow.BadMatchBadLen)
	}
	f := nf.f
	if n == 16 {
		vhi, vlo := binary.BigEndian.Uint64(val), binary.BigEndian.Uint64(val[8:])
		mhi, mlo := ^uint64(0), ^uint64(0)
		if mask != nil {
			mhi, mlo = binary.BigEndian.Uint64(mask), binary.BigEndian.Uint64(mask[8:])
		}
		if vhi&^mhi != 0 || vlo&^mlo != 0 {
			return 0, badMatch(openflow.BadMatchBadWildcards)
		}
		out.Set128(f, vhi, vlo, mhi, mlo)
		return f, nil
	}
	v, mk := beUint(val), ^uint64(0)>>(64-8*uint(n))
	full := mk
	if mask != nil {
		mk = beUint(mask)
	}
	if v&^mk != 0 {
		return 0, badMatch(openflow.BadMatchBadWildcards)
	}
	if !nf.maskable && mk != 0 && mk != full {
		return 0, badMatch(openflow.BadMatchBadMask)
	}
	switch nf.kind {
	case nxmInPort:
		if v >= 0xff00 {
			v |= 0xffff0000 // OFPP_* reserved ports, as OpenFlow 1.0 numbers them
		}
		mk = 0xffffffff
	case nxmIPTos:
		if v&3 != 0 {
			return 0, badMatch(openflow.BadMatchBadValue)
		}
		v, mk = v>>2, 0x3f
	case nxmIPFrag:
		if v&^3 != 0 {
			return 0, badMatch(openflow.BadMatchBadValue)
		}
		mk &= 3
	case nxmVLANTCI:
		// The id and CFI bits are vlan_vid's, CFI standing for
		// OFPVID_PRESENT. The priority bits are vlan_pcp, which the
		// flow tables match exactly or not at all, and only on a tagged
		// frame: a partial priority mask is OFPBMC_BAD_MASK, priority
		// bits under a CFI of 0 (an untagged frame) OFPBMC_BAD_VALUE.
		pm := mk >> 13
		if pm != 0 && pm != 7 {
			return 0, badMatch(openflow.BadMatchBadMask)
		}
		if pm == 7 {
			if v&rules.VIDPresent == 0 || mk&rules.VIDPresent == 0 {
				if v>>13 != 0 {
					return 0, badMatch(openflow.BadMatchBadValue)
				}
			} else {
				out.Set(rules.FieldVLANPCP, v>>13, 7)
			}
		}
		v, mk = v&0x1fff, mk&0x1fff
	case nxmTunFlags:
		if v&^rules.TunFlagOAM != 0 {
			return 0, badMatch(openflow.BadMatchBadValue)
		}
		// match_set_tun_flags_masked: only the public flags are matched.
		mk &= rules.TunFlagOAM
		v &= mk
	case nxmReg:
		out.SetReg(int(o.Field-openflow.NXMNxReg0), uint32(v), uint32(mk))
		return f, nil
	}
	if !valueFits(f, v) {
		return 0, badMatch(openflow.BadMatchBadValue)
	}
	// A mask wider than the field (a 32-bit mask on the 20-bit flow
	// label) keeps only the field's bits, as the value has no others.
	mk &= f.FullMask()
	out.Set(f, v, mk)
	return f, nil
}

// onfBadSetMask is OFPBAC_BAD_SET_MASK as the ONF experimenter error of
// OpenFlow 1.3 (Open vSwitch's ONF1.3(4250)).
const onfBadSetMask = 4250

// nxmSetField translates a set_field whose field is of a Nicira class:
// ovs-ofctl sends set_field of nw_ttl, pkt_mark and tun_flags so over
// OpenFlow 1.2 and later (set_field_to_set_field in Open vSwitch's
// lib/ofp-actions.c), as their NXM_NX fields. It checks as Open vSwitch's
// decode_ofpat_set_field: a payload not of the field's size is
// OFPBAC_BAD_SET_LEN, a mask OFPBAC_BAD_SET_MASK (ONF 4250), a
// connection tracking field OFPBAC_BAD_SET_ARGUMENT (refused by name).
// Whether the field is writable (ip_frag is not: OFPBAC_BAD_SET_ARGUMENT),
// the value's range and the prerequisites are rules.CheckActions'. The
// other Nicira fields, aliases of basic OXMs, are OFPBAC_BAD_SET_TYPE.
func nxmSetField(o *openflow.OXM) (rules.Action, error) {
	if err := ctSetField(o); err != nil {
		return rules.Action{}, err
	}
	if o.Class == openflow.OXMClassNXM0 && o.Field == openflow.NXMOfIPTos {
		// nw_tos: the DSCP bits of a TOS byte, the ECN bits zero.
		switch {
		case o.HasMask:
			return rules.Action{}, openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter, Code: onfBadSetMask,
				Experimenter: openflow.ONFExperimenter}
		case len(o.Data) != 1:
			return rules.Action{}, badAction(openflow.BadActionBadSetLen)
		case o.Data[0]&3 != 0:
			return rules.Action{}, badAction(openflow.BadActionBadSetArgument)
		}
		return rules.Action{Kind: rules.ActionSetField, Field: rules.FieldIPDSCP, Reason: rules.SetFieldNwTOS,
			Value: [2]uint64{0, uint64(o.Data[0] >> 2)}}, nil
	}
	nf, ok := nxmFields[nxmKey(o.Class, o.Field)]
	reg := ok && (nf.kind == nxmReg || o.Class == openflow.OXMClassPacketRegs)
	if reg && !o.HasMask && len(o.Data) == int(nf.size) {
		// A register: a load of all its bits (a 32-bit one's half of
		// its xreg field), sent back as this set_field.
		if o.Class == openflow.OXMClassPacketRegs {
			return rules.Action{Kind: rules.ActionLoad, Field: nf.f, Reason: rules.LoadSetField | rules.LoadXReg,
				Value: [2]uint64{^uint64(0), beUint(o.Data)}}, nil
		}
		_, sh := rules.RegField(int(o.Field - openflow.NXMNxReg0))
		return rules.Action{Kind: rules.ActionLoad, Field: nf.f, Reason: rules.LoadSetField,
			Value: [2]uint64{0xffffffff << sh, beUint(o.Data) << sh}}, nil
	}
	if only, in := nxmOnly[nf.f]; !ok || !in || (only.noSet && !reg) {
		return rules.Action{}, badAction(openflow.BadActionBadSetType)
	}
	size := int(nf.size)
	if o.HasMask {
		size *= 2
	}
	if len(o.Data) != size {
		return rules.Action{}, badAction(openflow.BadActionBadSetLen)
	}
	if o.HasMask {
		// OFPBAC_BAD_SET_MASK, which OpenFlow 1.3 and 1.4 lack: Open
		// vSwitch sends it as the ONF extension error 4250.
		return rules.Action{}, openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter, Code: onfBadSetMask,
			Experimenter: openflow.ONFExperimenter}
	}
	if size == 16 {
		// tun_ipv6_src, tun_ipv6_dst: the address's two halves.
		return rules.Action{Kind: rules.ActionSetField, Field: nf.f,
			Value: [2]uint64{binary.BigEndian.Uint64(o.Data), binary.BigEndian.Uint64(o.Data[8:])}}, nil
	}
	return rules.Action{Kind: rules.ActionSetField, Field: nf.f, Value: [2]uint64{0, beUint(o.Data)}}, nil
}

// nxmSetFieldOXM is the OXM of a set_field of rules field f (one of
// nxmOnly) to hi:lo (hi only for a 128-bit field), as Open vSwitch sends
// it: its NXM_NX field, unmasked.
func nxmSetFieldOXM(f rules.Field, hi, lo uint64) openflow.OXM {
	nx := nxmOnly[f]
	var b [16]byte
	putValue(b[:nx.size], hi, lo)
	return openflow.NXM(openflow.OXMClassNXM1, nx.of, b[:nx.size], nil)
}

// appendNXM appends the Nicira OXM of rules field f (one of nxmOnly) with
// value v under mask mk as Open vSwitch encodes it: unmasked when mk is the
// field's full mask (ip_frag's two bits included, nx_put_frag), except
// tun_flags, whose one public bit is always sent under a 16-bit mask. An
// xreg field goes out as its two registers, NXM_NX_REG(2N) then
// REG(2N+1), each only if its mask is not zero, as nx_put_raw sends them
// before OpenFlow 1.5.
func appendNXM(dst []openflow.OXM, f rules.Field, v, mk uint64) []openflow.OXM {
	if f >= rules.FieldXReg0 && f <= rules.FieldXReg7 {
		for half := range 2 {
			sh := 32 * uint(1-half)
			rv, rm := uint32(v>>sh), uint32(mk>>sh)
			if rm == 0 {
				continue
			}
			var b [8]byte
			binary.BigEndian.PutUint32(b[:4], rv)
			binary.BigEndian.PutUint32(b[4:], rm)
			of := openflow.NXMNxReg0 + openflow.OXMField(2*int(f-rules.FieldXReg0)+half)
			if rm == 0xffffffff {
				dst = append(dst, openflow.NXM(openflow.OXMClassNXM1, of, b[:4], nil))
			} else {
				dst = append(dst, openflow.NXM(openflow.OXMClassNXM1, of, b[:4], b[4:]))
			}
		}
		return dst
	}
	nx := nxmOnly[f]
	var b [16]byte
	putValue(b[:nx.size], 0, v)
	if mk == f.FullMask() && f != rules.FieldTunFlags {
		return append(dst, openflow.NXM(openflow.OXMClassNXM1, nx.of, b[:nx.size], nil))
	}
	putValue(b[8:8+nx.size], 0, mk)
	return append(dst, openflow.NXM(openflow.OXMClassNXM1, nx.of, b[:nx.size], b[8:8+nx.size]))
}

// appendNXM128 appends the Nicira OXM of the 128-bit rules field f (one
// of nxmOnly: tun_ipv6_src, tun_ipv6_dst) with value vhi:vlo under mask
// mhi:mlo, unmasked when the mask is all ones (nxm_put_ipv6).
func appendNXM128(dst []openflow.OXM, f rules.Field, vhi, vlo, mhi, mlo uint64) []openflow.OXM {
	nx := nxmOnly[f]
	var v, mk [16]byte
	putValue(v[:], vhi, vlo)
	if mhi == ^uint64(0) && mlo == ^uint64(0) {
		return append(dst, openflow.NXM(openflow.OXMClassNXM1, nx.of, v[:], nil))
	}
	putValue(mk[:], mhi, mlo)
	return append(dst, openflow.NXM(openflow.OXMClassNXM1, nx.of, v[:], mk[:]))
}
