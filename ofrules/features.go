package ofrules

import (
	"errors"
	"slices"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Features is what the translation accepts, as a switch's TABLE_FEATURES
// reply (OpenFlow 1.3.5 §7.3.5.5) lists it: the fields a match may hold
// and which of them take a mask, the fields set_field may write, and the
// action and instruction types. SupportedFeatures derives it from the
// translation itself, so that what it learns to translate is listed
// with no second list to keep.
type Features struct {
	// Match lists the OpenFlow-basic fields a match may hold, in field
	// order (OFPTFPT_MATCH, OFPTFPT_WILDCARDS: any may be left out).
	Match []openflow.OXMField
	// Maskable lists those of Match that take an arbitrary mask.
	Maskable []openflow.OXMField
	// TCPFlags reports the ONF experimenter field tcp_flags (Open
	// vSwitch's over OpenFlow 1.3), maskable.
	TCPFlags bool
	// SetFields lists the OpenFlow-basic fields set_field may write
	// (OFPTFPT_WRITE_SETFIELD, OFPTFPT_APPLY_SETFIELD).
	SetFields []openflow.OXMField
	// Actions lists the action types, set_field included if SetFields
	// is not empty, in type order (OFPTFPT_WRITE_ACTIONS,
	// OFPTFPT_APPLY_ACTIONS).
	Actions []openflow.ActionType
	// Instructions lists the instruction types of an entry in a table
	// that has a later one, in type order (OFPTFPT_INSTRUCTIONS); the
	// last table has no goto_table.
	Instructions []openflow.InstructionType
}

// probeActions holds one action of each type OpenFlow 1.3 defines but
// set_field, with arguments the spec allows.
var probeActions = []openflow.Action{
	{Type: openflow.ActionOutput, Port: 1},
	{Type: openflow.ActionCopyTTLOut},
	{Type: openflow.ActionCopyTTLIn},
	{Type: openflow.ActionSetMPLSTTL, TTL: 64},
	{Type: openflow.ActionDecMPLSTTL},
	{Type: openflow.ActionPushVLAN, EtherType: 0x8100},
	{Type: openflow.ActionPopVLAN},
	{Type: openflow.ActionPushMPLS, EtherType: 0x8847},
	{Type: openflow.ActionPopMPLS, EtherType: 0x0800},
	{Type: openflow.ActionSetQueue, QueueID: 1},
	{Type: openflow.ActionGroup, GroupID: 1},
	{Type: openflow.ActionSetNWTTL, TTL: 64},
	{Type: openflow.ActionDecNWTTL},
	{Type: openflow.ActionPushPBB, EtherType: 0x88e7},
	{Type: openflow.ActionPopPBB},
}

// probeInstructions holds one instruction of each type OpenFlow 1.3
// defines but experimenter, for an entry of table 0 of two.
var probeInstructions = []openflow.Instruction{
	{Type: openflow.InstructionGotoTable, TableID: 1},
	{Type: openflow.InstructionWriteMetadata, Metadata: 1, MetadataMask: 1},
	{Type: openflow.InstructionWriteActions},
	{Type: openflow.InstructionApplyActions},
	{Type: openflow.InstructionClearActions},
	{Type: openflow.InstructionMeter, MeterID: 1},
}

// SupportedFeatures returns what the translation for a switch described
// by opt accepts. Match fields are those the match translation maps to
// a rules field, maskable when that field takes a mask (for TCP, UDP and
// SCTP ports, unless opt.StrictPorts). The rest is found by translating
// one of each: a set_field of each field (with the value 0, then 1), an
// action of each type, and a FLOW_MOD with one instruction of each type.
// An action or instruction refused for its argument (a group or meter
// that does not exist) is of a supported type; one refused as
// OFPBAC_BAD_TYPE, OFPBIC_UNSUP_INST or OFPBIC_UNKNOWN_INST is not.
func SupportedFeatures(opt *Options) Features {
	var f Features
	for of := range openflow.OXMField(len(fieldMap)) {
		r := fieldMap[of]
		if r == noField || of.Size() == 0 {
			continue
		}
		f.Match = append(f.Match, of)
		if r.Maskable() && !(opt.strict() && (r == rules.FieldL4Src || r == rules.FieldL4Dst)) {
			f.Maskable = append(f.Maskable, of)
		}
	}
	f.TCPFlags = true // tcpFlagsFromWire
	for of := range openflow.OXMField(len(fieldMap)) {
		if of.Size() == 0 {
			continue
		}
		for _, v := range []byte{0, 1} {
			val := make([]byte, of.Size())
			val[len(val)-1] = v
			acts, err := Actions([]openflow.Action{openflow.SetField(openflow.NewOXM(of, val, nil))})
			if err == nil && len(acts) == 1 && acts[0].Field.Writable() {
				f.SetFields = append(f.SetFields, of)
				break
			}
		}
	}
	for _, a := range probeActions {
		_, err := Actions([]openflow.Action{a})
		if !refused(err, openflow.ErrTypeBadAction, uint16(openflow.BadActionBadType)) {
			f.Actions = append(f.Actions, a.Type)
		}
	}
	if len(f.SetFields) > 0 {
		f.Actions = append(f.Actions, openflow.ActionSetField)
		slices.Sort(f.Actions)
	}
	for _, in := range probeInstructions {
		fm := openflow.FlowMod{Command: openflow.FlowAdd, BufferID: openflow.NoBuffer, OutPort: openflow.PortAny,
			OutGroup: openflow.GroupAny, Instructions: []openflow.Instruction{in}}
		var u rules.Update
		err := FlowMod(&u, &fm, &Options{Tables: 2, StrictPorts: opt.strict()})
		if !refused(err, openflow.ErrTypeBadInstruction, uint16(openflow.BadInstructionUnsupInst)) &&
			!refused(err, openflow.ErrTypeBadInstruction, uint16(openflow.BadInstructionUnknownInst)) {
			f.Instructions = append(f.Instructions, in.Type)
		}
	}
	return f
}

// refused reports whether err is the OFPT_ERROR of type typ and code code.
func refused(err error, typ openflow.ErrorType, code uint16) bool {
	var em openflow.ErrorMsg
	return errors.As(err, &em) && em.Type == typ && em.Code == code
}
