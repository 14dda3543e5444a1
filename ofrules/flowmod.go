package ofrules

import (
	"slices"

	"github.com/ofswitch/ofswitch/groups"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// Options describe the switch that a translation is for. The zero Options,
// like a nil *Options, describe a switch of one table that checks matches
// with rules.Match.Validate.
type Options struct {
	// Tables is the number of flow tables: a FLOW_MOD names one of tables
	// 0 to Tables-1 (a delete also OFPTT_ALL), and goto_table a later
	// one. 0 means 1.
	Tables int
	// StrictPorts checks matches with rules.Match.ValidateStrict, which
	// refuses masked TCP, UDP and SCTP ports (OFPBMC_BAD_MASK) as strict
	// OpenFlow 1.3 requires.
	StrictPorts bool
	// TLV is the switch's TLV table, which gives the fields
	// tun_metadata0-63 their length and place in the option space; nil
	// maps none of them.
	TLV *TLVTables
}

func (o *Options) tables() int {
	if o == nil || o.Tables <= 0 {
		return 1
	}
	return o.Tables
}

func (o *Options) strict() bool { return o != nil && o.StrictPorts }

// tlv returns the current TLV table (nil: none maps anything).
func (o *Options) tlv() *TLVTable {
	if o == nil {
		return nil
	}
	return o.TLV.Load()
}

// Actions translates an action list (OpenFlow 1.3.5 §7.2.5), that of a
// PACKET_OUT say. A failure is the OFPT_ERROR to answer with: an output to
// a port no packet can go to, a reserved group number, an unknown
// action or a set_field of a field the flow tables do not hold.
//
// A set_field, load, move or output:field of tun_metadata0-63 is
// NXFMFC_INVALID_TLV_FIELD here: ActionsTLV translates them.
func Actions(as []openflow.Action) ([]rules.Action, error) { return actions(as, nil) }

// ActionsTLV is Actions with the switch's TLV table t, which maps the
// fields tun_metadata0-63 that a set_field, load, move or output:field
// names (the actions of a PACKET_OUT, translated once and run at once).
func ActionsTLV(as []openflow.Action, t *TLVTable) ([]rules.Action, error) { return actions(as, t) }

// actions is Actions with the switch's TLV table t, which maps the
// fields tun_metadata0-63 that a set_field may write.
func actions(as []openflow.Action, t *TLVTable) ([]rules.Action, error) {
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
			// Whether the group exists is the group table's to say,
			// when the flow or group goes in (tables, groups).
			if a.GroupID > groups.Max {
				return nil, badAction(openflow.BadActionBadOutGroup)
			}
			out = append(out, rules.Action{Kind: rules.ActionGroup, Group: a.GroupID})
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
		case openflow.ActionPushMPLS, openflow.ActionPopMPLS, openflow.ActionSetMPLSTTL, openflow.ActionDecMPLSTTL,
			openflow.ActionPushPBB, openflow.ActionPopPBB, openflow.ActionCopyTTLOut, openflow.ActionCopyTTLIn:
			ra, err := tagAction(a)
			if err != nil {
				return nil, err
			}
			out = append(out, ra)
		case openflow.ActionSetNWTTL:
			out = append(out, rules.Action{Kind: rules.ActionSetNwTTL, TTL: a.TTL})
		case openflow.ActionSetField:
			o := &a.Field
			if idx, ok := tunMetadataIndex(o); ok {
				if o.HasMask {
					return nil, openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter, Code: onfBadSetMask,
						Experimenter: openflow.ONFExperimenter}
				}
				var err error
				if out, err = tunMetadataSet(out, idx, o.Data, false, t); err != nil {
					return nil, err
				}
				break
			}
			if o.IsNXM() {
				ra, err := nxmSetField(o)
				if err != nil {
					return nil, err
				}
				out = append(out, ra)
				break
			}
			if o.Class != openflow.OXMClassOpenFlow || int(o.Field) >= len(fieldMap) || fieldMap[o.Field] == noField {
				return nil, badAction(openflow.BadActionBadSetType)
			}
			if o.HasMask {
				return nil, badAction(openflow.BadActionBadSetArgument)
			}
			vhi, vlo, _, _ := oxmValue(o)
			if f := fieldMap[o.Field]; tagField(f) && vlo > f.FullMask() {
				return nil, badAction(openflow.BadActionBadSetArgument) // e.g. a label beyond 20 bits
			}
			out = append(out, rules.Action{Kind: rules.ActionSetField, Field: fieldMap[o.Field], Value: [2]uint64{vhi, vlo}})
		case openflow.ActionExperimenter:
			// The connection tracking refusal first: it names what
			// was asked for.
			if err := ctAction(a); err != nil {
				return nil, err
			}
			if a.Experimenter != openflow.NXExperimenter {
				return nil, badAction(openflow.BadActionBadExperimenter)
			}
			x, err := openflow.DecodeNXAction(a)
			if err != nil {
				return nil, err
			}
			if idx, ok := tunHeaderIndex(x.Dst); ok && x.Subtype == openflow.NXRegLoad {
				// load:V->tun_metadataN[a..b]: a set_field under a mask.
				if out, err = tunRegLoad(out, idx, int(x.Ofs), int(x.NBits), x.Value, t); err != nil {
					return nil, err
				}
				break
			}
			if idx, ok := tunHeaderIndex(x.Dst); ok && x.Subtype == openflow.NXRegLoad2 {
				// set_field:V/M->tun_metadataN, as ovs-ofctl sends it.
				if out, err = tunMetadataSet(out, idx, x.Payload, x.Dst.HasMask(), t); err != nil {
					return nil, err
				}
				break
			}
			ra, err := nxAction(&x, t)
			if err != nil {
				return nil, err
			}
			out = append(out, ra)
		default:
			return nil, badAction(openflow.BadActionBadType)
		}
	}
	return out, nil
}

// instructionsFromWire translates the instructions of an entry of table
// (OpenFlow 1.3.5 §7.2.4): at most one of each type, goto_table forward
// only and to a table that exists.
func instructionsFromWire(ins []openflow.Instruction, table uint8, tables int, t *TLVTable) ([]rules.Instruction, error) {
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
			as, err := actions(in.Actions, t)
			if err != nil {
				return nil, err
			}
			kind := rules.InstApplyActions
			if in.Type == openflow.InstructionWriteActions {
				kind = rules.InstWriteActions
				for _, a := range as {
					if !inActionSet(a.Kind) {
						return nil, badAction(openflow.BadActionBadType)
					}
				}
			}
			out = append(out, rules.Instruction{Kind: kind, Actions: as})
		case openflow.InstructionClearActions:
			out = append(out, rules.Instruction{Kind: rules.InstClearActions})
		case openflow.InstructionMeter:
			// First, where the data plane runs it (§5.9; see
			// rules.Pipeline.SetMeterCheck); the flow tables check
			// that the meter exists when the entry is applied.
			out = slices.Insert(out, 0, rules.Instruction{Kind: rules.InstMeter, Meter: in.MeterID})
		case openflow.InstructionExperimenter:
			return nil, badInstruction(openflow.BadInstructionBadExperimenter)
		default:
			return nil, badInstruction(openflow.BadInstructionUnknownInst)
		}
	}
	return out, nil
}

// inActionSet reports whether an action of kind k may be written to the
// action set. Open vSwitch refuses note, exit and controller(...) there
// with OFPBAC_BAD_TYPE (its action_set_classify): the set has no slot
// for them. A resubmit has one: a final action, run when the set holds no
// group and no output.
func inActionSet(k rules.ActionKind) bool {
	switch k {
	case rules.ActionNote, rules.ActionExit, rules.ActionController, rules.ActionOutputReg:
		return false
	}
	return true
}

// actionsToWire translates actions of an entry whose match is m.
//
// t is the switch's TLV table, which names the loads of a set_field of
// tun_metadataN; without it they are left out.
func actionsToWire(as []rules.Action, m *rules.Match, t *TLVTable) []openflow.Action {
	proto, _ := m.Get(rules.FieldIPProto)
	eth, _ := m.Get(rules.FieldEthType)
	out := make([]openflow.Action, 0, len(as))
	for i := 0; i < len(as); i++ {
		a := as[i]
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
			if a.Ext != nil && a.Ext.IDs != nil {
				out = append(out, nxActionToWire(&a, t))
				break
			}
			out = append(out, openflow.Action{Type: openflow.ActionDecNWTTL})
		case rules.ActionPushMPLS, rules.ActionPopMPLS, rules.ActionSetMPLSTTL, rules.ActionDecMPLSTTL,
			rules.ActionPushPBB, rules.ActionPopPBB, rules.ActionCopyTTLOut, rules.ActionCopyTTLIn:
			out = append(out, tagActionToWire(&a))
		case rules.ActionNote, rules.ActionExit, rules.ActionController, rules.ActionResubmit,
			rules.ActionMove, rules.ActionOutputReg:
			out = append(out, nxActionToWire(&a, t))
		case rules.ActionLoad:
			if a.Ext != nil && a.Ext.TunMetadata != 0 {
				var n int
				out, n = tunMetadataToWire(out, as[i:], t)
				i += n - 1
				break
			}
			if r := rules.LoadRow(&a, proto); r >= 0 {
				out = loadsToWire(out, &a, r)
			}
		case rules.ActionSetNwTTL:
			out = append(out, openflow.Action{Type: openflow.ActionSetNWTTL, TTL: a.TTL})
		case rules.ActionSetField:
			if a.Field == rules.FieldIPDSCP && a.Reason == rules.SetFieldNwTOS {
				out = append(out, openflow.SetField(openflow.NXM(openflow.OXMClassNXM0, openflow.NXMOfIPTos, []byte{byte(a.Value[1] << 2)}, nil)))
				break
			}
			if _, ok := nxmOnly[a.Field]; ok {
				out = append(out, openflow.SetField(nxmSetFieldOXM(a.Field, a.Value[0], a.Value[1])))
				break
			}
			of := wireField(a.Field, proto, eth)
			out = append(out, openflow.SetField(oxmOf(of, a.Value[0], a.Value[1], 0, 0, true)))
		}
	}
	return out
}

// instructionsToWire translates an entry's instructions back.
func instructionsToWire(ins []rules.Instruction, m *rules.Match, t *TLVTable) []openflow.Instruction {
	out := make([]openflow.Instruction, 0, len(ins))
	for _, in := range ins {
		switch in.Kind {
		case rules.InstGotoTable:
			out = append(out, openflow.GotoTable(in.Table))
		case rules.InstWriteMetadata:
			out = append(out, openflow.Instruction{Type: openflow.InstructionWriteMetadata, Metadata: in.Metadata, MetadataMask: in.MetadataMask})
		case rules.InstWriteActions:
			out = append(out, openflow.Instruction{Type: openflow.InstructionWriteActions, Actions: actionsToWire(in.Actions, m, t)})
		case rules.InstApplyActions:
			out = append(out, openflow.Instruction{Type: openflow.InstructionApplyActions, Actions: actionsToWire(in.Actions, m, t)})
		case rules.InstClearActions:
			out = append(out, openflow.Instruction{Type: openflow.InstructionClearActions})
		case rules.InstMeter:
			out = append(out, openflow.Instruction{Type: openflow.InstructionMeter, MeterID: in.Meter})
		}
	}
	return out
}

// FlowMod translates the FLOW_MOD fm into *u, validated completely: the
// command, the table and the buffer (OpenFlow 1.3.5 §7.3.4), the match as
// Match validates it and the instructions (§7.2.4: at most one of each
// type, goto_table forward only, to a table that exists). A failure is the
// OFPT_ERROR to answer fm with; *u is then partly written.
//
// FlowMod suits a FLOW_MOD that must be checked when it arrives, one
// added to a bundle say; a connection's stream of them goes through a
// Decoder.
func FlowMod(u *rules.Update, fm *openflow.FlowMod, opt *Options) error {
	return translate(u, fm, opt.tables(), opt.strict(), true, nil, nil, opt.tlv())
}

// translate is FlowMod with its options spelt out; with check false the
// match's rules-level validation is left to the pipeline (see matchInto),
// ins, when not nil, is used as the already translated instructions, and
// shape is the connection's match shape (see matchInto).
func translate(u *rules.Update, fm *openflow.FlowMod, tables int, strict, check bool, ins []rules.Instruction, shape *matchShape, tlv *TLVTable) error {
	*u = rules.Update{
		Command: rules.Command(fm.Command), Table: fm.TableID, Priority: fm.Priority,
		Cookie: fm.Cookie, CookieMask: fm.CookieMask, IdleTimeout: fm.IdleTimeout,
		HardTimeout: fm.HardTimeout, Flags: rules.FlowFlags(fm.Flags), Importance: fm.Importance,
		OutPort: fm.OutPort, OutGroup: fm.OutGroup,
	}
	if fm.Command > openflow.FlowDeleteStrict {
		return openflow.ErrorMsg{Type: openflow.ErrTypeFlowModFailed, Code: uint16(openflow.FlowModFailedBadCommand)}
	}
	isDelete := fm.Command == openflow.FlowDelete || fm.Command == openflow.FlowDeleteStrict
	if int(fm.TableID) >= tables && !(isDelete && fm.TableID == 0xff) {
		return openflow.ErrorMsg{Type: openflow.ErrTypeFlowModFailed, Code: uint16(openflow.FlowModFailedBadTableID)}
	}
	if fm.BufferID != 0xffffffff && fm.Command <= openflow.FlowModifyStrict {
		// The switch buffers no packets (n_buffers 0).
		return openflow.ErrorMsg{Type: openflow.ErrTypeBadRequest, Code: uint16(openflow.BadRequestBufferUnknown)}
	}
	var err error
	if err = matchInto(&u.Match, &fm.Match, strict, check, shape, tlv); err != nil {
		return err
	}
	if ins != nil && !isDelete {
		u.Instructions = ins
	} else if !isDelete {
		if u.Instructions, err = instructionsFromWire(fm.Instructions, fm.TableID, tables, tlv); err != nil {
			return err
		}
	}
	if !isDelete {
		return setFieldsNamed(fm.Instructions, &u.Match)
	}
	return nil
}

// sharedField reports whether rules field f holds several OXM fields, the
// one meant following from the match (see wireField).
func sharedField(f rules.Field) bool {
	switch f {
	case rules.FieldL4Src, rules.FieldL4Dst, rules.FieldICMPType, rules.FieldICMPCode, rules.FieldARPSHA, rules.FieldARPTHA:
		return true
	}
	return false
}

// setFieldsNamed checks that each set_field of ins names the OXM field
// that its rules field is in a packet that m matches: udp_src, not
// tcp_src, under ip_proto=17; ipv6_nd_sll, not arp_sha, under eth_type
// 0x86dd. Open vSwitch answers OFPBAC_MATCH_INCONSISTENT otherwise; the
// rules field alone cannot tell.
func setFieldsNamed(ins []openflow.Instruction, m *rules.Match) error {
	proto, _ := m.Get(rules.FieldIPProto)
	eth, _ := m.Get(rules.FieldEthType)
	for i := range ins {
		for j := range ins[i].Actions {
			a := &ins[i].Actions[j]
			if err := loadNamed(a, proto, eth); err != nil {
				return err
			}
			if a.Type != openflow.ActionSetField || a.Field.Class != openflow.OXMClassOpenFlow || int(a.Field.Field) >= len(fieldMap) {
				continue
			}
			if f := fieldMap[a.Field.Field]; f != noField && sharedField(f) && wireField(f, proto, eth) != a.Field.Field {
				return badAction(openflow.BadActionMatchInconsistent)
			}
		}
	}
	return nil
}

// loadNamed checks that a load (NXAST_REG_LOAD or _LOAD2) into a field
// that several protocols share names the field of the protocol the match
// has: a load of NXM_OF_TCP_DST under ip_proto=17 is
// OFPBAC_MATCH_INCONSISTENT in Open vSwitch, though the rules field
// (FieldL4Dst) would take it.
func loadNamed(a *openflow.Action, proto, eth uint64) error {
	if a.Type != openflow.ActionExperimenter || a.Experimenter != openflow.NXExperimenter || len(a.Data) < 2 {
		return nil
	}
	st := openflow.NXActionSubtype(uint16(a.Data[0])<<8 | uint16(a.Data[1]))
	if st != openflow.NXRegLoad && st != openflow.NXRegLoad2 {
		return nil
	}
	x, err := openflow.DecodeNXAction(a)
	if err != nil {
		return nil // refused where the actions are translated
	}
	r := rules.SubfieldByHeader(uint16(x.Dst.Class()), uint8(x.Dst.Field()))
	if r >= 0 {
		if p := rules.SubfieldFields[r].Proto; p != 0 && uint64(p) != proto {
			return badAction(openflow.BadActionMatchInconsistent)
		}
	}
	return nil
}

// matchDependent reports whether the translation ins of a FLOW_MOD's
// instructions holds a set_field that setFieldsNamed must check against
// each match.
func matchDependent(ins []rules.Instruction) bool {
	for i := range ins {
		for _, a := range ins[i].Actions {
			if (a.Kind == rules.ActionSetField || a.Kind == rules.ActionLoad) && sharedField(a.Field) {
				return true
			}
		}
	}
	return false
}

// FlowStats describes a rule for an OFPMP_FLOW reply, its duration as of
// now (Unix nanoseconds).
//
// The fields of the tunnel option space are left out: FlowStatsTLV writes
// them as the switch's TLV table maps them.
func FlowStats(r *rules.Rule, now int64) openflow.FlowStats { return FlowStatsTLV(r, now, nil) }

// FlowStatsTLV is FlowStats with the switch's TLV table t, which writes
// the bytes of the option space that the match tests as the fields
// tun_metadata0-63 (NXM_NX_TUN_METADATA<N>) it maps there.
func FlowStatsTLV(r *rules.Rule, now int64, t *TLVTable) openflow.FlowStats {
	d := max(now-r.Created().UnixNano(), 0)
	return openflow.FlowStats{
		// Millisecond precision, as Open vSwitch reports durations.
		TableID: r.Table(), DurationSec: uint32(d / 1e9), DurationNsec: uint32(d % 1e9 / 1e6 * 1e6),
		Priority: r.Priority, IdleTimeout: r.IdleTimeout, HardTimeout: r.HardTimeout,
		Flags: uint16(r.Flags), Importance: r.Importance, Cookie: r.Cookie, PacketCount: r.Packets(), ByteCount: r.Bytes(),
		Match: WireMatchTLV(&r.Match, t), Instructions: instructionsToWire(r.Instructions, &r.Match, t),
	}
}
