package openflow

import (
	"encoding/binary"
	"fmt"
)

// FlowModCommand is ofp_flow_mod.command (OpenFlow 1.3.5 §7.3.4.1, enum
// ofp_flow_mod_command).
type FlowModCommand uint8

// Flow mod commands.
const (
	FlowAdd          FlowModCommand = 0 // OFPFC_ADD
	FlowModify       FlowModCommand = 1 // OFPFC_MODIFY
	FlowModifyStrict FlowModCommand = 2 // OFPFC_MODIFY_STRICT
	FlowDelete       FlowModCommand = 3 // OFPFC_DELETE
	FlowDeleteStrict FlowModCommand = 4 // OFPFC_DELETE_STRICT
)

// String returns the spec name, e.g. "OFPFC_ADD".
func (c FlowModCommand) String() string {
	return enumName([]string{"OFPFC_ADD", "OFPFC_MODIFY", "OFPFC_MODIFY_STRICT",
		"OFPFC_DELETE", "OFPFC_DELETE_STRICT"}, int(c), "OFPFC_")
}

// Flow mod flags (OpenFlow 1.3.5 §7.3.4.1, enum ofp_flow_mod_flags).
const (
	FlowSendFlowRem  uint16 = 1 << 0 // OFPFF_SEND_FLOW_REM
	FlowCheckOverlap uint16 = 1 << 1 // OFPFF_CHECK_OVERLAP
	FlowResetCounts  uint16 = 1 << 2 // OFPFF_RESET_COUNTS
	FlowNoPktCounts  uint16 = 1 << 3 // OFPFF_NO_PKT_COUNTS
	FlowNoBytCounts  uint16 = 1 << 4 // OFPFF_NO_BYT_COUNTS
)

// Special table and buffer ids.
const (
	TableMax uint8  = 0xfe       // OFPTT_MAX
	TableAll uint8  = 0xff       // OFPTT_ALL
	NoBuffer uint32 = 0xffffffff // OFP_NO_BUFFER
)

// FlowModMatchOffset is the offset of ofp_match in an ofp_flow_mod
// (OpenFlow 1.3.5 §7.3.4.1): the header and the fixed fields before it.
// FlowModMinLen is the length of the shortest FLOW_MOD, the fixed part and
// an empty match: the least that UnmarshalBinary and Check accept, and
// what the accessors and setters of a FlowModView read or write within.
const (
	FlowModMatchOffset = 48
	FlowModMinLen      = FlowModMatchOffset + 8
)

// FlowMod is an OFPT_FLOW_MOD message (OpenFlow 1.3.5 §7.3.4.1, "Modify
// Flow Entry Message"): it adds, modifies or deletes flow entries in one
// table.
//
// The zero FlowMod adds a priority-0 drop-all entry to table 0. Its
// BufferID is 0, not NoBuffer: set BufferID unless answering a PACKET_IN.
// Importance is the OpenFlow 1.4 field that replaced the 2 pad bytes; it is
// encoded only when Version >= Version14.
type FlowMod struct {
	Header
	Cookie       uint64
	CookieMask   uint64
	TableID      uint8
	Command      FlowModCommand
	IdleTimeout  uint16
	HardTimeout  uint16
	Priority     uint16
	BufferID     uint32
	OutPort      uint32
	OutGroup     uint32
	Flags        uint16
	Importance   uint16 // OpenFlow 1.4 only
	Match        Match
	Instructions []Instruction
}

// AppendBinary appends the wire form of m to dst. It allocates only if dst
// lacks room.
func (m *FlowMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeFlowMod)
	dst = binary.BigEndian.AppendUint64(dst, m.Cookie)
	dst = binary.BigEndian.AppendUint64(dst, m.CookieMask)
	dst = append(dst, m.TableID, uint8(m.Command))
	dst = binary.BigEndian.AppendUint16(dst, m.IdleTimeout)
	dst = binary.BigEndian.AppendUint16(dst, m.HardTimeout)
	dst = binary.BigEndian.AppendUint16(dst, m.Priority)
	dst = binary.BigEndian.AppendUint32(dst, m.BufferID)
	dst = binary.BigEndian.AppendUint32(dst, m.OutPort)
	dst = binary.BigEndian.AppendUint32(dst, m.OutGroup)
	dst = binary.BigEndian.AppendUint16(dst, m.Flags)
	imp := m.Importance
	if m.Version < Version14 {
		imp = 0
	}
	dst = binary.BigEndian.AppendUint16(dst, imp)
	var err error
	if dst, err = m.Match.AppendBinary(dst); err != nil {
		return dst[:start], encodeCtx(err, TypeFlowMod)
	}
	if dst, err = appendInstructions(dst, m.Instructions); err != nil {
		return dst[:start], encodeCtx(err, TypeFlowMod)
	}
	return finish(dst, start, TypeFlowMod)
}

// MarshalBinary returns the wire form of m.
func (m *FlowMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one FLOW_MOD, reusing m's slices. It checks
// lengths, types and the command, not prerequisites: call m.Match.Validate
// before installing the entry.
func (m *FlowMod) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeFlowMod, FlowModMinLen); err != nil {
		return err
	}
	m.Cookie = binary.BigEndian.Uint64(b[8:])
	m.CookieMask = binary.BigEndian.Uint64(b[16:])
	m.TableID = b[24]
	m.Command = FlowModCommand(b[25])
	if m.Command > FlowDeleteStrict {
		return &DecodeError{Type: TypeFlowMod, Field: "command", Offset: 25, Err: ErrBadFlowCommand}
	}
	m.IdleTimeout = binary.BigEndian.Uint16(b[26:])
	m.HardTimeout = binary.BigEndian.Uint16(b[28:])
	m.Priority = binary.BigEndian.Uint16(b[30:])
	m.BufferID = binary.BigEndian.Uint32(b[32:])
	m.OutPort = binary.BigEndian.Uint32(b[36:])
	m.OutGroup = binary.BigEndian.Uint32(b[40:])
	m.Flags = binary.BigEndian.Uint16(b[44:])
	m.Importance = 0
	if m.Version >= Version14 {
		m.Importance = binary.BigEndian.Uint16(b[46:])
	}
	n, err := m.Match.decode(b[FlowModMatchOffset:])
	if err != nil {
		return decodeCtx(err, TypeFlowMod, FlowModMatchOffset)
	}
	if err := decodeInstructions(&m.Instructions, b[FlowModMatchOffset+n:], FlowModMatchOffset+n); err != nil {
		return decodeCtx(err, TypeFlowMod, 0)
	}
	return nil
}

// decodeCtx stamps the message type on a *DecodeError from a nested decoder
// and shifts its offset by base.
func decodeCtx(err error, t Type, base int) error {
	if de, ok := err.(*DecodeError); ok {
		de.Type = t
		de.Offset += base
	}
	return err
}

func encodeCtx(err error, t Type) error {
	if ee, ok := err.(*EncodeError); ok {
		ee.Type = t
	}
	return err
}

// String formats m in ovs-ofctl style.
func (m *FlowMod) String() string {
	s := fmt.Sprintf("%v table:%d priority=%d", m.Command, m.TableID, m.Priority)
	if m.Cookie != 0 {
		s += fmt.Sprintf(" cookie:0x%x", m.Cookie)
	}
	if m.IdleTimeout != 0 {
		s += fmt.Sprintf(" idle:%d", m.IdleTimeout)
	}
	if m.HardTimeout != 0 {
		s += fmt.Sprintf(" hard:%d", m.HardTimeout)
	}
	if len(m.Match.Fields) > 0 {
		s += "," + m.Match.String()
	}
	return s + " actions=" + instructionsString(m.Instructions)
}

func instructionsString(is []Instruction) string {
	if len(is) == 0 {
		return "drop"
	}
	s := ""
	for i := range is {
		if i > 0 {
			s += ","
		}
		s += is[i].String()
	}
	return s
}

// FlowModView is a FLOW_MOD in wire form, read in place: after Check has
// validated every length once, the accessors index the bytes directly and
// allocate nothing. A view aliases the buffer it was made from (e.g. the
// Reader's), so it is valid only as long as those bytes are.
type FlowModView []byte

// Check validates the whole message: header, command, match and
// instruction/action lengths and types, exactly as FlowMod.UnmarshalBinary
// does, without allocating or copying. Accessors may be used only after
// Check returned nil.
func (v FlowModView) Check() error {
	var h Header
	if err := decodeHeader(&h, v, TypeFlowMod, FlowModMinLen); err != nil {
		return err
	}
	if v[25] > uint8(FlowDeleteStrict) {
		return &DecodeError{Type: TypeFlowMod, Field: "command", Offset: 25, Err: ErrBadFlowCommand}
	}
	m := v[FlowModMatchOffset:]
	if binary.BigEndian.Uint16(m) != MatchTypeOXM {
		return &DecodeError{Type: TypeFlowMod, Field: "match.type", Offset: FlowModMatchOffset, Err: ErrBadMatchType}
	}
	ml := int(binary.BigEndian.Uint16(m[2:]))
	if ml < 4 || (ml+7)&^7 > len(m) {
		return &DecodeError{Type: TypeFlowMod, Field: "match.length", Offset: FlowModMatchOffset + 2, Err: ErrBadMatchLength}
	}
	for off, i := 4, 0; off < ml; i++ {
		if ml-off >= 4 {
			// Fast path: a basic-class OXM whose length is the one its
			// field and hasmask bit call for.
			h := m[off : off+4]
			if h[0] == 0x80 && h[1] == 0 && h[3] != 0 && oxmBasicLen[h[2]] == h[3] && off+4+int(h[3]) <= ml {
				off += 4 + int(h[3])
				continue
			}
		}
		k, err := checkOXM(m[off:ml])
		if err != nil {
			err.Field = fmt.Sprintf("match.oxm[%d].%s", i, err.Field)
			return decodeCtx(err, TypeFlowMod, FlowModMatchOffset+off)
		}
		off += k
	}
	ins := FlowModMatchOffset + (ml+7)&^7
	var seen uint8
	for off, i := ins, 0; off < len(v); i++ {
		if len(v)-off < 8 {
			return &DecodeError{Type: TypeFlowMod, Field: fmt.Sprintf("instructions[%d].len", i), Offset: off, Err: ErrBadInstructionLength}
		}
		n := int(binary.BigEndian.Uint16(v[off+2:]))
		if n < 8 || n%8 != 0 || off+n > len(v) {
			return &DecodeError{Type: TypeFlowMod, Field: fmt.Sprintf("instructions[%d].len", i), Offset: off + 2, Err: ErrBadInstructionLength}
		}
		if err := checkInstruction(v[off:off+n], off); err != nil {
			err.Field = fmt.Sprintf("instructions[%d].%s", i, err.Field)
			return err
		}
		if typ := binary.BigEndian.Uint16(v[off:]); typ >= 1 && typ <= 6 {
			if seen&(1<<typ) != 0 {
				return &DecodeError{Type: TypeFlowMod, Field: fmt.Sprintf("instructions[%d].type", i), Offset: off, Err: ErrDuplicateInstruction}
			}
			seen |= 1 << typ
		}
		off += n
	}
	return nil
}

// checkInstruction validates one instruction (b is exactly its bytes,
// at its offset in the message) without decoding it.
func checkInstruction(b []byte, at int) *DecodeError {
	n := len(b)
	switch InstructionType(binary.BigEndian.Uint16(b)) {
	case InstructionGotoTable, InstructionClearActions, InstructionMeter:
		if n != 8 {
			return &DecodeError{Type: TypeFlowMod, Field: "len", Offset: at + 2, Err: ErrBadInstructionLength}
		}
	case InstructionWriteMetadata:
		if n != 24 {
			return &DecodeError{Type: TypeFlowMod, Field: "len", Offset: at + 2, Err: ErrBadInstructionLength}
		}
	case InstructionWriteActions, InstructionApplyActions:
		for off, j := 8, 0; off < n; j++ {
			if n-off >= 16 && b[off] == 0 && b[off+1] == 0 && b[off+2] == 0 && b[off+3] == 16 {
				off += 16 // OUTPUT, the commonest action, is always 16 bytes
				continue
			}
			k, err := checkAction(b[off:])
			if err != nil {
				err.Field = fmt.Sprintf("actions[%d].%s", j, err.Field)
				err.Type = TypeFlowMod
				err.Offset += at + off
				return err
			}
			off += k
		}
	case InstructionExperimenter:
	default:
		return &DecodeError{Type: TypeFlowMod, Field: "type", Offset: at, Err: ErrUnknownInstruction}
	}
	return nil
}

// Header returns the message header.
func (v FlowModView) Header() Header {
	return Header{Version: v[0], Type: Type(v[1]), Length: binary.BigEndian.Uint16(v[2:]), XID: binary.BigEndian.Uint32(v[4:])}
}

// XID returns the transaction id.
func (v FlowModView) XID() uint32 { return binary.BigEndian.Uint32(v[4:]) }

// Importance returns the flow's importance: OpenFlow 1.4's field in the
// bytes that are padding in 1.3, so 0 for a message of an older version.
func (v FlowModView) Importance() uint16 {
	if v[0] < Version14 {
		return 0
	}
	return binary.BigEndian.Uint16(v[46:])
}

// Cookie returns the cookie.
func (v FlowModView) Cookie() uint64 { return binary.BigEndian.Uint64(v[8:]) }

// CookieMask returns the cookie mask.
func (v FlowModView) CookieMask() uint64 { return binary.BigEndian.Uint64(v[16:]) }

// TableID returns the table id.
func (v FlowModView) TableID() uint8 { return v[24] }

// Command returns the command.
func (v FlowModView) Command() FlowModCommand { return FlowModCommand(v[25]) }

// IdleTimeout returns the idle timeout in seconds.
func (v FlowModView) IdleTimeout() uint16 { return binary.BigEndian.Uint16(v[26:]) }

// HardTimeout returns the hard timeout in seconds.
func (v FlowModView) HardTimeout() uint16 { return binary.BigEndian.Uint16(v[28:]) }

// Priority returns the priority.
func (v FlowModView) Priority() uint16 { return binary.BigEndian.Uint16(v[30:]) }

// BufferID returns the buffer id.
func (v FlowModView) BufferID() uint32 { return binary.BigEndian.Uint32(v[32:]) }

// OutPort returns the out_port filter of delete commands.
func (v FlowModView) OutPort() uint32 { return binary.BigEndian.Uint32(v[36:]) }

// OutGroup returns the out_group filter of delete commands.
func (v FlowModView) OutGroup() uint32 { return binary.BigEndian.Uint32(v[40:]) }

// Flags returns the OFPFF_* flags.
func (v FlowModView) Flags() uint16 { return binary.BigEndian.Uint16(v[44:]) }

// The setters below write a field of the fixed part in place, for a
// client that sends copies of one encoded FLOW_MOD with fields changed
// (see FlowModTemplate). Like the accessors they need a view of at least
// FlowModMinLen bytes, and they change no length.

// SetXID sets the transaction id.
func (v FlowModView) SetXID(xid uint32) { binary.BigEndian.PutUint32(v[4:], xid) }

// SetCookie sets the cookie.
func (v FlowModView) SetCookie(c uint64) { binary.BigEndian.PutUint64(v[8:], c) }

// SetCookieMask sets the cookie mask.
func (v FlowModView) SetCookieMask(m uint64) { binary.BigEndian.PutUint64(v[16:], m) }

// SetTableID sets the table id.
func (v FlowModView) SetTableID(id uint8) { v[24] = id }

// SetCommand sets the command.
func (v FlowModView) SetCommand(c FlowModCommand) { v[25] = uint8(c) }

// SetIdleTimeout sets the idle timeout in seconds.
func (v FlowModView) SetIdleTimeout(s uint16) { binary.BigEndian.PutUint16(v[26:], s) }

// SetHardTimeout sets the hard timeout in seconds.
func (v FlowModView) SetHardTimeout(s uint16) { binary.BigEndian.PutUint16(v[28:], s) }

// SetPriority sets the priority.
func (v FlowModView) SetPriority(p uint16) { binary.BigEndian.PutUint16(v[30:], p) }

// SetBufferID sets the buffer id.
func (v FlowModView) SetBufferID(id uint32) { binary.BigEndian.PutUint32(v[32:], id) }

// SetOutPort sets the out_port filter.
func (v FlowModView) SetOutPort(p uint32) { binary.BigEndian.PutUint32(v[36:], p) }

// SetOutGroup sets the out_group filter.
func (v FlowModView) SetOutGroup(g uint32) { binary.BigEndian.PutUint32(v[40:], g) }

// SetFlags sets the OFPFF_* flags.
func (v FlowModView) SetFlags(f uint16) { binary.BigEndian.PutUint16(v[44:], f) }

// SetImportance sets the flow's importance in a message of OpenFlow 1.4
// or later. In an older one the two bytes are padding, which it leaves
// alone, as AppendBinary encodes no importance there.
func (v FlowModView) SetImportance(imp uint16) {
	if v[0] >= Version14 {
		binary.BigEndian.PutUint16(v[46:], imp)
	}
}

// MatchBytes returns the OXM TLVs of the match, without the ofp_match
// header and padding.
func (v FlowModView) MatchBytes() []byte {
	_, n := MatchHeader(v[FlowModMatchOffset:])
	return v[FlowModMatchOffset+MatchHeaderLen : FlowModMatchOffset+int(n)]
}

// InstructionBytes returns the instruction list.
func (v FlowModView) InstructionBytes() []byte {
	_, n := MatchHeader(v[FlowModMatchOffset:])
	return v[FlowModMatchOffset+MatchPaddedLen(int(n)):]
}

// OXMs iterates over the match: each call to next returns the next OXM
// TLV's header and payload (value then mask) until ok is false.
func (v FlowModView) OXMs() OXMIter { return OXMIter(v.MatchBytes()) }

// OXMIter walks OXM TLVs in place. It is a value; Next advances it.
type OXMIter []byte

// Next returns the next OXM's header and payload. It reports false at
// the end, and where the TLVs left are too short for their headers: it
// is then not empty.
func (it *OXMIter) Next() (header OXMHeader, payload []byte, ok bool) {
	b := *it
	if len(b) < 4 {
		return 0, nil, false
	}
	h := OXMHeader(binary.BigEndian.Uint32(b))
	n := 4 + h.Len()
	if n > len(b) {
		return 0, nil, false
	}
	*it = b[n:]
	return h, b[4:n], true
}

// OXMHeader is the 32-bit header of an OXM TLV (OpenFlow 1.3.5 §7.2.3.2):
// oxm_class, oxm_field, oxm_hasmask and oxm_length, from the high bits
// down.
type OXMHeader uint32

// Class returns oxm_class.
func (h OXMHeader) Class() OXMClass { return OXMClass(h >> 16) }

// Field returns oxm_field.
func (h OXMHeader) Field() OXMField { return OXMField(h >> 9 & 0x7f) }

// HasMask returns oxm_hasmask: the payload is a value and then a mask of
// the same length.
func (h OXMHeader) HasMask() bool { return h&(1<<8) != 0 }

// Len returns oxm_length, the length of the payload that follows the
// header.
func (h OXMHeader) Len() int { return int(h & 0xff) }

// Lookup returns the payload of the first basic-class OXM with field f in
// the match (value, then mask if masked), or nil.
func (v FlowModView) Lookup(f OXMField) (payload []byte, masked bool) {
	it := v.OXMs()
	for {
		h, p, ok := it.Next()
		if !ok {
			return nil, false
		}
		if h.Class() == OXMClassOpenFlow && h.Field() == f {
			return p, h.HasMask()
		}
	}
}

// Decode fills m from the view (m's slices are reused).
func (v FlowModView) Decode(m *FlowMod) error { return m.UnmarshalBinary(v) }

// FlowModTemplate is a FLOW_MOD encoded once, to be sent again and again
// with fields changed. A client that pushes runs of flows which differ
// only in the fixed part's fields and in the values of their OXMs encodes
// the first in full (FlowMod.AppendBinary) and each next as a patched copy
// of it, without building an OXM or an Instruction: Copy writes the
// template into a buffer as a FlowModView, whose setters change the fixed
// part, and OXMs says where the value (and mask) of each OXM lies in the
// message, to be written over with one of the same length. The copy is
// then the message that AppendBinary encodes for the FlowMod with those
// fields and values (TestFlowModTemplate).
//
// The zero FlowModTemplate holds no message. A FlowModTemplate is not safe
// for concurrent use.
type FlowModTemplate struct {
	msg  []byte
	oxms []TemplateOXM
}

// TemplateOXM is one OXM of a FlowModTemplate's match: its header, and the
// offset in the message of its payload, the value and then, if the header
// has a mask, the mask, each of Header.Len()/2 bytes.
type TemplateOXM struct {
	Header OXMHeader
	Offset int
}

// Reset makes a copy of msg, a FLOW_MOD, the template, reusing the
// template's memory. It checks the header's length and the match's, and
// that the match's OXMs fill it; the rest is copied as it is, so msg
// should be one that AppendBinary encoded. On error the template is empty.
func (t *FlowModTemplate) Reset(msg []byte) error {
	t.msg, t.oxms = t.msg[:0], t.oxms[:0]
	if len(msg) < FlowModMinLen || Type(msg[1]) != TypeFlowMod || int(binary.BigEndian.Uint16(msg[2:])) != len(msg) {
		return &DecodeError{Type: TypeFlowMod, Field: "length", Offset: 2, Err: ErrBadLength}
	}
	ml := int(binary.BigEndian.Uint16(msg[FlowModMatchOffset+2:]))
	if ml < 4 || FlowModMatchOffset+(ml+7)&^7 > len(msg) {
		return &DecodeError{Type: TypeFlowMod, Field: "match.length", Offset: FlowModMatchOffset + 2, Err: ErrBadMatchLength}
	}
	it := OXMIter(msg[FlowModMatchOffset+4 : FlowModMatchOffset+ml])
	off := FlowModMatchOffset + 4 // of the OXM that it.Next returns next
	for h, p, ok := it.Next(); ok; h, p, ok = it.Next() {
		t.oxms = append(t.oxms, TemplateOXM{Header: h, Offset: off + 4})
		off += 4 + len(p)
	}
	if len(it) != 0 {
		t.oxms = t.oxms[:0]
		return &DecodeError{Type: TypeFlowMod, Field: fmt.Sprintf("match.oxm[%d].length", len(t.oxms)), Offset: off, Err: ErrBadMatchLength}
	}
	t.msg = append(t.msg, msg...)
	return nil
}

// Len returns the length of the template's message; 0 if it holds none.
func (t *FlowModTemplate) Len() int { return len(t.msg) }

// OXMs returns the OXMs of the template's match, in order. The slice is
// the template's, valid until the next Reset.
func (t *FlowModTemplate) OXMs() []TemplateOXM { return t.oxms }

// Copy copies the template's message into b, which must be Len() bytes
// long, and returns b as a view to write fields over.
func (t *FlowModTemplate) Copy(b []byte) FlowModView {
	copy(b, t.msg)
	return FlowModView(b)
}

// Instructions iterates over the instruction list in place. For
// APPLY_ACTIONS and WRITE_ACTIONS, Actions(tlv) iterates over the actions
// of the instruction tlv that Next returned.
func (v FlowModView) Instructions() TLVIter { return TLVIter(v.InstructionBytes()) }

// Actions returns an iterator over the actions of an APPLY_ACTIONS or
// WRITE_ACTIONS instruction as returned by TLVIter.Next (OpenFlow 1.3.5
// §7.2.4: the action list starts 8 bytes into the instruction).
func Actions(instruction []byte) TLVIter {
	if len(instruction) < 8 {
		return nil
	}
	return TLVIter(instruction[8:])
}

// TLVIter walks, in place, a list of structures that each start with a
// 16-bit type and a 16-bit length covering the whole structure:
// instructions and actions. Use it only on bytes a Check has validated.
type TLVIter []byte

// Next returns the next structure's type and bytes (header included).
func (it *TLVIter) Next() (typ uint16, tlv []byte, ok bool) {
	b := *it
	if len(b) < 4 {
		return 0, nil, false
	}
	n := int(binary.BigEndian.Uint16(b[2:]))
	if n < 4 || n > len(b) {
		return 0, nil, false
	}
	*it = b[n:]
	return binary.BigEndian.Uint16(b), b[:n], true
}

// oxmBasicLen maps the third byte of a basic-class OXM header (field<<1 |
// hasmask) to the oxm_length it must have, 0 for unknown fields.
var oxmBasicLen = func() (t [256]uint8) {
	for f := OXMField(0); f < numFields; f++ {
		t[f<<1] = uint8(f.Size())
		t[f<<1|1] = uint8(2 * f.Size())
	}
	return t
}()
