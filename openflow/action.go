package openflow

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/ofswitch/ofswitch/internal/wire"
)

// ActionType is ofp_action_header.type (OpenFlow 1.3.5 §7.2.5, enum
// ofp_action_type).
type ActionType uint16

// Action types.
const (
	ActionOutput       ActionType = 0      // OFPAT_OUTPUT
	ActionCopyTTLOut   ActionType = 11     // OFPAT_COPY_TTL_OUT
	ActionCopyTTLIn    ActionType = 12     // OFPAT_COPY_TTL_IN
	ActionSetMPLSTTL   ActionType = 15     // OFPAT_SET_MPLS_TTL
	ActionDecMPLSTTL   ActionType = 16     // OFPAT_DEC_MPLS_TTL
	ActionPushVLAN     ActionType = 17     // OFPAT_PUSH_VLAN
	ActionPopVLAN      ActionType = 18     // OFPAT_POP_VLAN
	ActionPushMPLS     ActionType = 19     // OFPAT_PUSH_MPLS
	ActionPopMPLS      ActionType = 20     // OFPAT_POP_MPLS
	ActionSetQueue     ActionType = 21     // OFPAT_SET_QUEUE
	ActionGroup        ActionType = 22     // OFPAT_GROUP
	ActionSetNWTTL     ActionType = 23     // OFPAT_SET_NW_TTL
	ActionDecNWTTL     ActionType = 24     // OFPAT_DEC_NW_TTL
	ActionSetField     ActionType = 25     // OFPAT_SET_FIELD
	ActionPushPBB      ActionType = 26     // OFPAT_PUSH_PBB
	ActionPopPBB       ActionType = 27     // OFPAT_POP_PBB
	ActionExperimenter ActionType = 0xffff // OFPAT_EXPERIMENTER
)

var actionNames = map[ActionType]string{
	ActionOutput: "output", ActionCopyTTLOut: "copy_ttl_out", ActionCopyTTLIn: "copy_ttl_in",
	ActionSetMPLSTTL: "set_mpls_ttl", ActionDecMPLSTTL: "dec_mpls_ttl", ActionPushVLAN: "push_vlan",
	ActionPopVLAN: "pop_vlan", ActionPushMPLS: "push_mpls", ActionPopMPLS: "pop_mpls",
	ActionSetQueue: "set_queue", ActionGroup: "group", ActionSetNWTTL: "set_nw_ttl",
	ActionDecNWTTL: "dec_nw_ttl", ActionSetField: "set_field", ActionPushPBB: "push_pbb",
	ActionPopPBB: "pop_pbb", ActionExperimenter: "experimenter",
}

// String returns the ovs-ofctl name of the action, e.g. "push_vlan".
func (t ActionType) String() string {
	if s, ok := actionNames[t]; ok {
		return s
	}
	return "action" + strconv.Itoa(int(t))
}

// Reserved port numbers (OpenFlow 1.3.5 §7.2.1, enum ofp_port_no).
const (
	PortMax        uint32 = 0xffffff00 // OFPP_MAX
	PortInPort     uint32 = 0xfffffff8 // OFPP_IN_PORT
	PortTable      uint32 = 0xfffffff9 // OFPP_TABLE
	PortNormal     uint32 = 0xfffffffa // OFPP_NORMAL
	PortFlood      uint32 = 0xfffffffb // OFPP_FLOOD
	PortAll        uint32 = 0xfffffffc // OFPP_ALL
	PortController uint32 = 0xfffffffd // OFPP_CONTROLLER
	PortLocal      uint32 = 0xfffffffe // OFPP_LOCAL
	PortAny        uint32 = 0xffffffff // OFPP_ANY
)

// Reserved group numbers (OpenFlow 1.3.5 §7.3.4.2, enum ofp_group).
const (
	GroupMax uint32 = 0xffffff00 // OFPG_MAX
	GroupAll uint32 = 0xfffffffc // OFPG_ALL
	GroupAny uint32 = 0xffffffff // OFPG_ANY
)

// Action is one action (OpenFlow 1.3.5 §7.2.5) as a tagged struct: Type
// says which of the other fields are meaningful.
//
//	ActionOutput                       Port, MaxLen
//	ActionSetMPLSTTL, ActionSetNWTTL   TTL
//	ActionPush*, ActionPopMPLS         EtherType
//	ActionSetQueue                     QueueID
//	ActionGroup                        GroupID
//	ActionSetField                     Field
//	ActionExperimenter                 Experimenter, Data (after the id, padding included)
//
// The zero Action is output to port 0 with max_len 0.
type Action struct {
	Type         ActionType
	Port         uint32
	MaxLen       uint16
	TTL          uint8
	EtherType    uint16
	QueueID      uint32
	GroupID      uint32
	Field        OXM
	Experimenter uint32
	Data         []byte
}

// Output returns an output action; maxLen applies to PortController.
func Output(port uint32, maxLen uint16) Action {
	return Action{Type: ActionOutput, Port: port, MaxLen: maxLen}
}

// SetField returns a set_field action that writes the value of f.
func SetField(f OXM) Action { return Action{Type: ActionSetField, Field: f} }

// Len returns the encoded size of a.
func (a *Action) Len() int {
	switch a.Type {
	case ActionOutput:
		return 16
	case ActionSetField:
		return wire.Align8(4 + a.Field.Len())
	case ActionExperimenter:
		return 8 + len(a.Data)
	}
	return 8
}

// AppendBinary appends the action.
func (a *Action) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	if a.Type == ActionOutput {
		p, l := a.Port, a.MaxLen
		return append(dst, 0, 0, 0, 16, byte(p>>24), byte(p>>16), byte(p>>8), byte(p), byte(l>>8), byte(l), 0, 0, 0, 0, 0, 0), nil
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(a.Type))
	dst = append(dst, 0, 0)
	switch a.Type {
	case ActionCopyTTLOut, ActionCopyTTLIn, ActionDecMPLSTTL, ActionPopVLAN, ActionDecNWTTL, ActionPopPBB:
		dst = append(dst, 0, 0, 0, 0)
	case ActionSetMPLSTTL, ActionSetNWTTL:
		dst = append(dst, a.TTL, 0, 0, 0)
	case ActionPushVLAN, ActionPushMPLS, ActionPopMPLS, ActionPushPBB:
		dst = binary.BigEndian.AppendUint16(dst, a.EtherType)
		dst = append(dst, 0, 0)
	case ActionSetQueue:
		dst = binary.BigEndian.AppendUint32(dst, a.QueueID)
	case ActionGroup:
		dst = binary.BigEndian.AppendUint32(dst, a.GroupID)
	case ActionSetField:
		var err error
		if dst, err = a.Field.AppendBinary(dst); err != nil {
			return dst[:start], err
		}
		dst = wire.PadTo8(dst, start)
	case ActionExperimenter:
		dst = binary.BigEndian.AppendUint32(dst, a.Experimenter)
		dst = append(dst, a.Data...)
	default:
		return dst[:start], &EncodeError{Field: "action.type", Err: ErrBadActionType}
	}
	n := len(dst) - start
	if n > 0xffff || n%8 != 0 {
		return dst[:start], &EncodeError{Field: "action.len", Err: ErrBadActionLength}
	}
	binary.BigEndian.PutUint16(dst[start+2:], uint16(n))
	return dst, nil
}

// checkAction validates the action at the start of b and returns its
// length, reading in place; errors are relative to b.
func checkAction(b []byte) (int, *DecodeError) {
	if len(b) < 8 {
		return 0, &DecodeError{Field: "len", Offset: 0, Err: ErrBadActionLength}
	}
	typ := ActionType(binary.BigEndian.Uint16(b))
	n := int(binary.BigEndian.Uint16(b[2:]))
	if n < 8 || n%8 != 0 || n > len(b) {
		return 0, &DecodeError{Field: "len", Offset: 2, Err: ErrBadActionLength}
	}
	want := 8
	switch typ {
	case ActionOutput:
		want = 16
	case ActionCopyTTLOut, ActionCopyTTLIn, ActionDecMPLSTTL, ActionPopVLAN, ActionDecNWTTL, ActionPopPBB,
		ActionSetMPLSTTL, ActionSetNWTTL, ActionPushVLAN, ActionPushMPLS, ActionPopMPLS, ActionPushPBB,
		ActionSetQueue, ActionGroup:
	case ActionSetField:
		k, err := checkOXM(b[4:n])
		if err != nil {
			err.Field = "field." + err.Field
			err.Offset += 4
			if err.Err == ErrBadField {
				err.Err = ErrBadSetType
			} else {
				err.Err = ErrBadSetLength
			}
			return 0, err
		}
		if b[6]&1 != 0 && OXMClass(binary.BigEndian.Uint16(b[4:])) == OXMClassOpenFlow {
			return 0, &DecodeError{Field: "field.hasmask", Offset: 6, Err: ErrBadSetArgument}
		}
		want = (4 + k + 7) &^ 7
	case ActionExperimenter:
		want = n
	default:
		return 0, &DecodeError{Field: "type", Offset: 0, Err: ErrBadActionType}
	}
	if n != want {
		return 0, &DecodeError{Field: "len", Offset: 2, Err: ErrBadActionLength}
	}
	return n, nil
}

// decode reads one action from the start of b and returns its length.
func (a *Action) decode(b []byte) (int, error) {
	n, derr := checkAction(b)
	if derr != nil {
		return 0, derr
	}
	data, fdata := a.Data[:0], a.Field.Data
	*a = Action{Type: ActionType(binary.BigEndian.Uint16(b))}
	body := b[4:n]
	switch a.Type {
	case ActionOutput:
		a.Port = binary.BigEndian.Uint32(body)
		a.MaxLen = binary.BigEndian.Uint16(body[4:])
	case ActionSetMPLSTTL, ActionSetNWTTL:
		a.TTL = body[0]
	case ActionPushVLAN, ActionPushMPLS, ActionPopMPLS, ActionPushPBB:
		a.EtherType = binary.BigEndian.Uint16(body)
	case ActionSetQueue:
		a.QueueID = binary.BigEndian.Uint32(body)
	case ActionGroup:
		a.GroupID = binary.BigEndian.Uint32(body)
	case ActionSetField:
		a.Field.Data = fdata
		if _, err := a.Field.decode(body); err != nil {
			return 0, err
		}
	case ActionExperimenter:
		a.Experimenter = binary.BigEndian.Uint32(body)
		a.Data = append(data, body[4:]...)
	}
	return n, nil
}

// decodeActions decodes the action list b into *as, reusing its slots.
func decodeActions(as *[]Action, b []byte, field string, base int) error {
	*as = (*as)[:0]
	for off, i := 0, 0; off < len(b); i++ {
		if cap(*as) > len(*as) {
			*as = (*as)[:len(*as)+1]
		} else {
			*as = append(*as, Action{})
		}
		k, err := (*as)[len(*as)-1].decode(b[off:])
		if err != nil {
			de := err.(*DecodeError)
			de.Field = fmt.Sprintf("%s[%d].%s", field, i, de.Field)
			de.Offset += base + off
			return err
		}
		off += k
	}
	return nil
}

func appendActions(dst []byte, as []Action) ([]byte, error) {
	var err error
	for i := range as {
		if dst, err = as[i].AppendBinary(dst); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func actionsLen(as []Action) int {
	n := 0
	for i := range as {
		n += as[i].Len()
	}
	return n
}

// String formats a in ovs-ofctl style, e.g. "output:2".
func (a *Action) String() string {
	switch a.Type {
	case ActionOutput:
		switch a.Port {
		case PortController:
			return fmt.Sprintf("CONTROLLER:%d", a.MaxLen)
		case PortAny: // no output port: printed as its number
		default:
			if name := PortName(a.Port); name[0] > '9' { // a reserved port by name
				return name
			}
		}
		return fmt.Sprintf("output:%d", a.Port)
	case ActionSetMPLSTTL:
		return fmt.Sprintf("set_mpls_ttl(%d)", a.TTL) // as ovs-ofctl writes it
	case ActionSetNWTTL:
		return fmt.Sprintf("%v:%d", a.Type, a.TTL)
	case ActionPushVLAN, ActionPushMPLS, ActionPopMPLS, ActionPushPBB:
		return fmt.Sprintf("%v:0x%04x", a.Type, a.EtherType)
	case ActionSetQueue:
		return fmt.Sprintf("set_queue:%d", a.QueueID)
	case ActionGroup:
		return fmt.Sprintf("group:%d", a.GroupID)
	case ActionSetField:
		return "set_field:" + a.Field.String()
	case ActionExperimenter:
		if x, err := DecodeNXAction(a); err == nil {
			return x.String()
		}
		return fmt.Sprintf("experimenter(0x%08x,%x)", a.Experimenter, a.Data)
	}
	return a.Type.String()
}

// InstructionType is ofp_instruction.type (OpenFlow 1.3.5 §7.2.4, enum
// ofp_instruction_type).
type InstructionType uint16

// Instruction types.
const (
	InstructionGotoTable     InstructionType = 1      // OFPIT_GOTO_TABLE
	InstructionWriteMetadata InstructionType = 2      // OFPIT_WRITE_METADATA
	InstructionWriteActions  InstructionType = 3      // OFPIT_WRITE_ACTIONS
	InstructionApplyActions  InstructionType = 4      // OFPIT_APPLY_ACTIONS
	InstructionClearActions  InstructionType = 5      // OFPIT_CLEAR_ACTIONS
	InstructionMeter         InstructionType = 6      // OFPIT_METER
	InstructionExperimenter  InstructionType = 0xffff // OFPIT_EXPERIMENTER
)

// String returns the ovs-ofctl name, e.g. "apply_actions".
func (t InstructionType) String() string {
	switch t {
	case InstructionGotoTable:
		return "goto_table"
	case InstructionWriteMetadata:
		return "write_metadata"
	case InstructionWriteActions:
		return "write_actions"
	case InstructionApplyActions:
		return "apply_actions"
	case InstructionClearActions:
		return "clear_actions"
	case InstructionMeter:
		return "meter"
	case InstructionExperimenter:
		return "experimenter"
	}
	return "instruction" + strconv.Itoa(int(t))
}

// Instruction is one instruction (OpenFlow 1.3.5 §7.2.4) as a tagged
// struct: Type says which fields are meaningful.
//
//	InstructionGotoTable                             TableID
//	InstructionWriteMetadata                         Metadata, MetadataMask
//	InstructionWriteActions, InstructionApplyActions Actions
//	InstructionMeter                                 MeterID
//	InstructionExperimenter                          Experimenter, Data
type Instruction struct {
	Type         InstructionType
	TableID      uint8
	Metadata     uint64
	MetadataMask uint64
	Actions      []Action
	MeterID      uint32
	Experimenter uint32
	Data         []byte
}

// ApplyActions returns an APPLY_ACTIONS instruction.
func ApplyActions(as ...Action) Instruction {
	return Instruction{Type: InstructionApplyActions, Actions: as}
}

// GotoTable returns a GOTO_TABLE instruction.
func GotoTable(table uint8) Instruction {
	return Instruction{Type: InstructionGotoTable, TableID: table}
}

// Len returns the encoded size of in.
func (in *Instruction) Len() int {
	switch in.Type {
	case InstructionWriteMetadata:
		return 24
	case InstructionWriteActions, InstructionApplyActions:
		return 8 + actionsLen(in.Actions)
	case InstructionExperimenter:
		return 8 + len(in.Data)
	}
	return 8
}

// AppendBinary appends the instruction.
func (in *Instruction) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = binary.BigEndian.AppendUint16(dst, uint16(in.Type))
	dst = append(dst, 0, 0)
	switch in.Type {
	case InstructionGotoTable:
		dst = append(dst, in.TableID, 0, 0, 0)
	case InstructionWriteMetadata:
		dst = append(dst, 0, 0, 0, 0)
		dst = binary.BigEndian.AppendUint64(dst, in.Metadata)
		dst = binary.BigEndian.AppendUint64(dst, in.MetadataMask)
	case InstructionWriteActions, InstructionApplyActions:
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = appendActions(dst, in.Actions); err != nil {
			return dst[:start], err
		}
	case InstructionClearActions:
		dst = append(dst, 0, 0, 0, 0)
	case InstructionMeter:
		dst = binary.BigEndian.AppendUint32(dst, in.MeterID)
	case InstructionExperimenter:
		dst = binary.BigEndian.AppendUint32(dst, in.Experimenter)
		dst = append(dst, in.Data...)
	default:
		return dst[:start], &EncodeError{Field: "instruction.type", Err: ErrUnknownInstruction}
	}
	n := len(dst) - start
	if n > 0xffff {
		return dst[:start], &EncodeError{Field: "instruction.len", Err: ErrBadInstructionLength}
	}
	binary.BigEndian.PutUint16(dst[start+2:], uint16(n))
	return dst, nil
}

// decode reads one instruction from the start of b and returns its length.
func (in *Instruction) decode(b []byte) (int, error) {
	if len(b) < 8 {
		return 0, &DecodeError{Field: "len", Offset: 0, Err: ErrBadInstructionLength}
	}
	typ := InstructionType(binary.BigEndian.Uint16(b))
	n := int(binary.BigEndian.Uint16(b[2:]))
	if n < 8 || n%8 != 0 || n > len(b) {
		return 0, &DecodeError{Field: "len", Offset: 2, Err: ErrBadInstructionLength}
	}
	actions, data := in.Actions[:0], in.Data[:0]
	*in = Instruction{Type: typ}
	body := b[4:n]
	want := 8
	switch typ {
	case InstructionGotoTable:
		in.TableID = body[0]
	case InstructionWriteMetadata:
		want = 24
		if n == 24 {
			in.Metadata = binary.BigEndian.Uint64(body[4:])
			in.MetadataMask = binary.BigEndian.Uint64(body[12:])
		}
	case InstructionWriteActions, InstructionApplyActions:
		in.Actions = actions
		if err := decodeActions(&in.Actions, body[4:], "actions", 8); err != nil {
			return 0, err
		}
		want = n
	case InstructionClearActions:
	case InstructionMeter:
		in.MeterID = binary.BigEndian.Uint32(body)
	case InstructionExperimenter:
		in.Experimenter = binary.BigEndian.Uint32(body)
		in.Data = append(data, body[4:]...)
		want = n
	default:
		return 0, &DecodeError{Field: "type", Offset: 0, Err: ErrUnknownInstruction}
	}
	if n != want {
		return 0, &DecodeError{Field: "len", Offset: 2, Err: ErrBadInstructionLength}
	}
	return n, nil
}

// decodeInstructions decodes the instruction list b into *is, reusing its
// slots (and their action slices). A second instruction of the same type
// gives BAD_INSTRUCTION/DUP_INST (OpenFlow 1.3.5 §5.9).
func decodeInstructions(is *[]Instruction, b []byte, base int) error {
	*is = (*is)[:0]
	var seen uint8
	for off, i := 0, 0; off < len(b); i++ {
		if cap(*is) > len(*is) {
			*is = (*is)[:len(*is)+1]
		} else {
			*is = append(*is, Instruction{})
		}
		in := &(*is)[len(*is)-1]
		k, err := in.decode(b[off:])
		if err != nil {
			de := err.(*DecodeError)
			de.Field = fmt.Sprintf("instructions[%d].%s", i, de.Field)
			de.Offset += base + off
			return err
		}
		if in.Type >= 1 && in.Type <= 6 {
			if seen&(1<<in.Type) != 0 {
				return &DecodeError{Field: fmt.Sprintf("instructions[%d].type", i), Offset: base + off, Err: ErrDuplicateInstruction}
			}
			seen |= 1 << in.Type
		}
		off += k
	}
	return nil
}

func appendInstructions(dst []byte, is []Instruction) ([]byte, error) {
	var err error
	for i := range is {
		if dst, err = is[i].AppendBinary(dst); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// String formats in in ovs-ofctl style.
func (in *Instruction) String() string {
	switch in.Type {
	case InstructionGotoTable:
		return fmt.Sprintf("goto_table:%d", in.TableID)
	case InstructionWriteMetadata:
		return fmt.Sprintf("write_metadata:0x%x/0x%x", in.Metadata, in.MetadataMask)
	case InstructionWriteActions, InstructionApplyActions:
		s := ""
		for i := range in.Actions {
			if i > 0 {
				s += ","
			}
			s += in.Actions[i].String()
		}
		if in.Type == InstructionWriteActions {
			return "write_actions(" + s + ")"
		}
		return s
	case InstructionClearActions:
		return "clear_actions"
	case InstructionMeter:
		return fmt.Sprintf("meter:%d", in.MeterID)
	}
	return fmt.Sprintf("experimenter(0x%08x,%x)", in.Experimenter, in.Data)
}
