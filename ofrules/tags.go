package ofrules

import (
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// The MPLS, PBB and TTL-copy actions (OpenFlow 1.3.5 §7.2.5), translated
// one to one; rules.ActionKind and openflow.ActionType name the same
// actions in the same order.
var tagKinds = [...]struct {
	of openflow.ActionType
	r  rules.ActionKind
}{
	{openflow.ActionPushMPLS, rules.ActionPushMPLS},
	{openflow.ActionPopMPLS, rules.ActionPopMPLS},
	{openflow.ActionSetMPLSTTL, rules.ActionSetMPLSTTL},
	{openflow.ActionDecMPLSTTL, rules.ActionDecMPLSTTL},
	{openflow.ActionPushPBB, rules.ActionPushPBB},
	{openflow.ActionPopPBB, rules.ActionPopPBB},
	{openflow.ActionCopyTTLOut, rules.ActionCopyTTLOut},
	{openflow.ActionCopyTTLIn, rules.ActionCopyTTLIn},
}

// tagAction translates one MPLS, PBB or TTL-copy action. push_mpls takes
// only the MPLS EtherTypes (0x8847, 0x8848) and push_pbb only 0x88e7, as
// §7.2.5 says; another is OFPBAC_BAD_ARGUMENT, as Open vSwitch answers.
// pop_mpls takes any EtherType: it becomes the frame's.
func tagAction(a *openflow.Action) (rules.Action, error) {
	var out rules.Action
	for _, k := range tagKinds {
		if k.of == a.Type {
			out.Kind = k.r
		}
	}
	switch a.Type {
	case openflow.ActionPushMPLS:
		if a.EtherType != rules.EthTypeMPLS && a.EtherType != rules.EthTypeMPLSMulticast {
			return out, badAction(openflow.BadActionBadArgument)
		}
		out.EthType = a.EtherType
	case openflow.ActionPushPBB:
		if a.EtherType != rules.EthTypePBB {
			return out, badAction(openflow.BadActionBadArgument)
		}
		out.EthType = a.EtherType
	case openflow.ActionPopMPLS:
		out.EthType = a.EtherType
	case openflow.ActionSetMPLSTTL:
		out.TTL = a.TTL
	}
	return out, nil
}

// tagActionToWire is tagAction's inverse.
func tagActionToWire(a *rules.Action) openflow.Action {
	var out openflow.Action
	for _, k := range tagKinds {
		if k.r == a.Kind {
			out.Type = k.of
		}
	}
	switch a.Kind {
	case rules.ActionPushMPLS, rules.ActionPopMPLS, rules.ActionPushPBB:
		out.EtherType = a.EthType
	case rules.ActionSetMPLSTTL:
		out.TTL = a.TTL
	}
	return out
}

// tagField reports whether f is a field of an MPLS label or a PBB I-TAG,
// whose OXM is wider than the field: a set_field value beyond the field's
// bits is OFPBAC_BAD_SET_ARGUMENT.
func tagField(f rules.Field) bool {
	switch f {
	case rules.FieldMPLSLabel, rules.FieldMPLSTC, rules.FieldMPLSBoS, rules.FieldPBBISID, rules.FieldPBBUCA:
		return true
	}
	return false
}
