package ofrules

import (
	"slices"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// prereqs returns OXMs that satisfy the prerequisites of field f
// (OpenFlow 1.3.5 §7.2.3.8, Table 12).
func prereqs(f openflow.OXMField) []openflow.OXM {
	eth := func(t uint16) openflow.OXM { return openflow.EthType(t) }
	ip4 := func(p uint8) []openflow.OXM { return []openflow.OXM{eth(0x0800), openflow.IPProto(p)} }
	icmp6 := func(typ uint8) []openflow.OXM {
		return []openflow.OXM{eth(0x86dd), openflow.IPProto(58), openflow.NewOXM(openflow.FieldICMPv6Type, []byte{typ}, nil)}
	}
	switch f {
	case openflow.FieldInPhyPort:
		return []openflow.OXM{openflow.InPort(1)}
	case openflow.FieldVLANPCP:
		return []openflow.OXM{openflow.VLANVID(0x1006)}
	case openflow.FieldIPDSCP, openflow.FieldIPECN, openflow.FieldIPProto, openflow.FieldIPv4Src, openflow.FieldIPv4Dst:
		return []openflow.OXM{eth(0x0800)}
	case openflow.FieldTCPSrc, openflow.FieldTCPDst:
		return ip4(6)
	case openflow.FieldUDPSrc, openflow.FieldUDPDst:
		return ip4(17)
	case openflow.FieldSCTPSrc, openflow.FieldSCTPDst:
		return ip4(132)
	case openflow.FieldICMPv4Type, openflow.FieldICMPv4Code:
		return ip4(1)
	case openflow.FieldARPOp, openflow.FieldARPSPA, openflow.FieldARPTPA, openflow.FieldARPSHA, openflow.FieldARPTHA:
		return []openflow.OXM{eth(0x0806)}
	case openflow.FieldIPv6Src, openflow.FieldIPv6Dst, openflow.FieldIPv6FLabel, openflow.FieldIPv6ExtHdr:
		return []openflow.OXM{eth(0x86dd)}
	case openflow.FieldICMPv6Type, openflow.FieldICMPv6Code:
		return []openflow.OXM{eth(0x86dd), openflow.IPProto(58)}
	case openflow.FieldIPv6NDTarget, openflow.FieldIPv6NDSLL:
		return icmp6(135)
	case openflow.FieldIPv6NDTLL:
		return icmp6(136)
	case openflow.FieldMPLSLabel, openflow.FieldMPLSTC, openflow.FieldMPLSBOS:
		return []openflow.OXM{eth(0x8847)}
	case openflow.FieldPBBISID:
		return []openflow.OXM{eth(0x88e7)}
	}
	return nil
}

// probeOXM returns an OXM of field f with a value its prerequisites and
// the other fields accept: exact, or 0 with an arbitrary mask (every bit
// of the field but the lowest; ok is false for a 1-bit field, which has
// no such mask).
func probeOXM(f openflow.OXMField, masked bool) (o openflow.OXM, ok bool) {
	v := uint64(1)
	switch f {
	case openflow.FieldEthType:
		v = 0x0800
	case openflow.FieldVLANVID:
		v = 0x1006
	case openflow.FieldIPProto:
		v = 6
	}
	n := f.Size()
	full := ^uint64(0)
	if r := fieldMap[f]; r != noField && r.Bits() <= 64 {
		full = r.FullMask() // no mask bit beyond the field's
	}
	if masked {
		if full == 1 {
			return o, false
		}
		v = 0
		if f == openflow.FieldVLANVID {
			v = 0x1000
		}
	}
	val, mask := make([]byte, n), make([]byte, n)
	for i := range n {
		mask[i] = 0xff
		if i < 8 {
			val[n-1-i], mask[n-1-i] = byte(v>>(8*i)), byte(full>>(8*i))
		}
	}
	if !masked {
		return openflow.NewOXM(f, val, nil), true
	}
	mask[n-1] &^= 1
	return openflow.NewOXM(f, val, mask), true
}

// TestSupportedFeaturesMatch holds the match fields SupportedFeatures
// lists to what FlowMod does with them: a listed field is accepted in a
// match (with its prerequisites), with an arbitrary mask if listed as
// maskable and refused with OFPBMC_BAD_MASK if not; an unlisted one is
// refused with OFPBMC_BAD_FIELD.
func TestSupportedFeaturesMatch(t *testing.T) {
	for _, strict := range []bool{false, true} {
		opt := &Options{Tables: 2, StrictPorts: strict}
		sup := SupportedFeatures(opt)
		if len(sup.Match) < 29 {
			t.Errorf("strict=%v: %d match fields, want at least 29: %v", strict, len(sup.Match), sup.Match)
		}
		for f := range openflow.OXMField(40) {
			for _, masked := range []bool{false, true} {
				fm := openflow.FlowMod{Command: openflow.FlowAdd, BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}
				o, ok := probeOXM(f, masked)
				if !ok {
					continue
				}
				fm.Match.Fields = append(prereqs(f), o)
				var u rules.Update
				err := FlowMod(&u, &fm, opt)
				var want error
				switch {
				case !slices.Contains(sup.Match, f):
					want = badMatch(openflow.BadMatchBadField)
				case masked && !slices.Contains(sup.Maskable, f):
					want = badMatch(openflow.BadMatchBadMask)
				}
				if (err == nil) != (want == nil) || err != nil && err.Error() != want.Error() {
					t.Errorf("strict=%v: match %v (masked %v): %v, want %v", strict, fm.Match.Fields, masked, err, want)
				}
			}
		}
		tcpMaskable := slices.Contains(sup.Maskable, openflow.FieldTCPSrc)
		if tcpMaskable == strict {
			t.Errorf("strict=%v: tcp_src maskable %v", strict, tcpMaskable)
		}
	}
}

// TestSupportedFeaturesActions checks the actions, set_field fields and
// instructions SupportedFeatures lists: at least those the switch has
// always translated, each listed set_field accepted, and the last
// listed exactly when the translation does not refuse its type.
func TestSupportedFeaturesActions(t *testing.T) {
	sup := SupportedFeatures(nil)
	for _, a := range []openflow.ActionType{openflow.ActionOutput, openflow.ActionPushVLAN, openflow.ActionPopVLAN,
		openflow.ActionSetQueue, openflow.ActionDecNWTTL, openflow.ActionSetField} {
		if !slices.Contains(sup.Actions, a) {
			t.Errorf("actions %v lack %v", sup.Actions, a)
		}
	}
	if !slices.IsSorted(sup.Actions) || !slices.IsSorted(sup.Instructions) || !slices.IsSorted(sup.Match) {
		t.Errorf("lists out of order: %v %v %v", sup.Actions, sup.Instructions, sup.Match)
	}
	for _, a := range probeActions {
		_, err := Actions([]openflow.Action{a})
		unsupported := refused(err, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadType))
		if slices.Contains(sup.Actions, a.Type) == unsupported {
			t.Errorf("action %v: listed %v, translation answers %v", a.Type, !unsupported, err)
		}
	}
	for _, f := range []openflow.OXMField{openflow.FieldEthDst, openflow.FieldEthSrc, openflow.FieldVLANVID, openflow.FieldIPv4Src,
		openflow.FieldIPv6Dst, openflow.FieldTCPDst, openflow.FieldARPTHA, openflow.FieldICMPv6Code} {
		if !slices.Contains(sup.SetFields, f) {
			t.Errorf("set_field fields %v lack %v", sup.SetFields, f)
		}
	}
	for _, f := range sup.SetFields {
		o, _ := probeOXM(f, false)
		if _, err := Actions([]openflow.Action{openflow.SetField(o)}); err != nil {
			t.Errorf("listed set_field %v: %v", f, err)
		}
	}
	for _, in := range []openflow.InstructionType{openflow.InstructionGotoTable, openflow.InstructionWriteMetadata,
		openflow.InstructionWriteActions, openflow.InstructionApplyActions, openflow.InstructionClearActions} {
		if !slices.Contains(sup.Instructions, in) {
			t.Errorf("instructions %v lack %v", sup.Instructions, in)
		}
	}
}
