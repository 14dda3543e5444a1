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
)

// nxmKey is a Nicira field's class and field number as one index.
func nxmKey(class openflow.OXMClass, field openflow.OXMField) uint16 {
	return uint16(class)<<7 | uint16(field)
}

// nxmFields holds the Nicira fields the flow tables match on, with the
// meaning Open vSwitch's meta-flow.xml gives them. ovs-ofctl sends only the
// NXM_NX fields that have no OXM (nw_ttl, ip_frag, pkt_mark, tun_flags)
// over OpenFlow 1.3 and 1.4; the others are aliases of basic OXMs that an
// NXM controller may still send. NXM_OF_VLAN_TCI, which packs the VLAN id
// and PCP into one masked value, is not among them.
var nxmFields = map[uint16]nxmField{
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
}

// nxmOnly is, for each rules field that no basic OXM holds, the Nicira
// field a reply encodes it as, as Open vSwitch sends it (nx_put_raw in
// lib/nx-match.c). Other fields go out as basic OXMs.
var nxmOnly = map[rules.Field]struct {
	of   openflow.OXMField
	size int
}{
	rules.FieldNwTTL:    {openflow.NXMNxIPTTL, 1},
	rules.FieldIPFrag:   {openflow.NXMNxIPFrag, 1},
	rules.FieldTunFlags: {openflow.NXMNxTunFlags, 2},
	rules.FieldPktMark:  {openflow.NXMNxPktMark, 4},
}

// nxmMatch sets out's field from the Nicira-class OXM o, with the checks
// of Open vSwitch's nx_pull_match_entry: the payload's length
// (OFPBMC_BAD_LEN), value bits outside the mask (OFPBMC_BAD_WILDCARDS), a
// mask on a field that takes none other than all-ones (OFPBMC_BAD_MASK)
// and values out of the field's range (OFPBMC_BAD_VALUE). A field it does
// not know is OFPBMC_BAD_FIELD (or the connection tracking refusal). It
// returns the rules field set (NXM_OF_VLAN_TCI: vlan_vid, and vlan_pcp if
// set).
func nxmMatch(out *rules.Match, o *openflow.OXM) (rules.Field, error) {
	nf, ok := nxmFields[nxmKey(o.Class, o.Field)]
	if !ok {
		if err := ctMatch(o); err != nil {
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

// appendNXM appends the Nicira OXM of rules field f (one of nxmOnly) with
// value v under mask mk as Open vSwitch encodes it: unmasked when mk is the
// field's full mask (ip_frag's two bits included, nx_put_frag), except
// tun_flags, whose one public bit is always sent under a 16-bit mask.
func appendNXM(dst []openflow.OXM, f rules.Field, v, mk uint64) []openflow.OXM {
	nx := nxmOnly[f]
	var b [16]byte
	putValue(b[:nx.size], 0, v)
	if mk == f.FullMask() && f != rules.FieldTunFlags {
		return append(dst, openflow.NXM(openflow.OXMClassNXM1, nx.of, b[:nx.size], nil))
	}
	putValue(b[8:8+nx.size], 0, mk)
	return append(dst, openflow.NXM(openflow.OXMClassNXM1, nx.of, b[:nx.size], b[8:8+nx.size]))
}
