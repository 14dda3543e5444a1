package openflow

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// NXExperimenter is the Nicira experimenter id (NX_VENDOR_ID) of the Open
// vSwitch extension actions.
const NXExperimenter uint32 = 0x00002320

// NXActionSubtype is the subtype of a Nicira extension action (enum
// nx_action_subtype, Open vSwitch lib/ofp-actions.c).
type NXActionSubtype uint16

// The Nicira actions NXAction decodes.
const (
	NXResubmit      NXActionSubtype = 1  // NXAST_RESUBMIT: InPort (Table 0xff)
	NXSetTunnel     NXActionSubtype = 2  // NXAST_SET_TUNNEL: TunID (32 bits)
	NXRegMove       NXActionSubtype = 6  // NXAST_REG_MOVE: NBits, SrcOfs, DstOfs, Src, Dst
	NXRegLoad       NXActionSubtype = 7  // NXAST_REG_LOAD: Ofs, NBits, Dst, Value
	NXNote          NXActionSubtype = 8  // NXAST_NOTE: Note
	NXSetTunnel64   NXActionSubtype = 9  // NXAST_SET_TUNNEL64: TunID
	NXResubmitTable NXActionSubtype = 14 // NXAST_RESUBMIT_TABLE: InPort, Table
	NXExit          NXActionSubtype = 17 // NXAST_EXIT
	NXController    NXActionSubtype = 20 // NXAST_CONTROLLER: MaxLen, ControllerID, Reason
	NXDecTTLCntIDs  NXActionSubtype = 21 // NXAST_DEC_TTL_CNT_IDS: IDs
	NXOutputReg     NXActionSubtype = 15 // NXAST_OUTPUT_REG: Ofs, NBits, Src, MaxLen
	NXOutputReg2    NXActionSubtype = 32 // NXAST_OUTPUT_REG2: Ofs, NBits, MaxLen, Src
	NXRegLoad2      NXActionSubtype = 33 // NXAST_REG_LOAD2: Dst (an OXM header, masked or not), Payload
	NXController2   NXActionSubtype = 37 // NXAST_CONTROLLER2 (properties; not decoded)
	// NXResubmitTableCT is resubmit(port,table,ct), a resubmit that
	// looks up with the connection tracking 5-tuple: not decoded
	// (connection tracking is refused by name, see ofrules).
	NXResubmitTableCT NXActionSubtype = 44
)

// nxActionHdrSize is struct nx_action_header with its pad, the shortest
// Nicira action.
const nxActionHdrSize = 16

// Errors of DecodeNXAction, as Open vSwitch answers them (its
// ofpact_pull_raw and the decode_NXAST_RAW_* functions).
var (
	// ErrNXBadSubtype is OFPBAC_BAD_EXPERIMENTER_TYPE (OVS's
	// OFPBAC_BAD_VENDOR_TYPE): a subtype this codec does not decode.
	ErrNXBadSubtype = ErrorMsg{Type: ErrTypeBadAction, Code: uint16(BadActionBadExpType)}
	// ErrNXBadLen is OFPBAC_BAD_LEN: a length outside the subtype's range
	// or one that does not hold the ids it announces.
	ErrNXBadLen = ErrorMsg{Type: ErrTypeBadAction, Code: uint16(BadActionBadLen)}
	// ErrNXBadArgument is OFPBAC_BAD_ARGUMENT: resubmit_table's pad
	// bytes are not zero.
	ErrNXBadArgument = ErrorMsg{Type: ErrTypeBadAction, Code: uint16(BadActionBadArgument)}
	// ErrNXBadSetType is OFPBAC_BAD_SET_TYPE: a header that names no
	// field (Open vSwitch's nx_pull_header__ for an action).
	ErrNXBadSetType = ErrorMsg{Type: ErrTypeBadAction, Code: uint16(BadActionBadSetType)}
	// ErrNXBadSetArgument is OFPBAC_BAD_SET_ARGUMENT: reg_load2's
	// padding is not zero.
	ErrNXBadSetArgument = ErrorMsg{Type: ErrTypeBadAction, Code: uint16(BadActionBadSetArgument)}
	// ErrNXBadOXMLen is OFPBMC_BAD_LEN: a field header cut short, or an
	// OXM entry whose payload the action does not hold.
	ErrNXBadOXMLen = ErrorMsg{Type: ErrTypeBadMatch, Code: uint16(BadMatchBadLen)}
	// ErrNXMustBeZero is NXBRC_MUST_BE_ZERO (NX1.2+ experimenter error
	// 4): dec_ttl(ids)'s zeros are not zero.
	ErrNXMustBeZero = ErrorMsg{Type: ErrTypeExperimenter, Code: 4, Experimenter: NXExperimenter}
)

// NXAction is a decoded Nicira extension action, a tagged struct: Subtype
// says which other fields mean something.
//
// Open vSwitch checks no pad bytes of these actions but dec_ttl(ids)'s
// zeros and resubmit_table's pad, and neither does DecodeNXAction: Action writes them as zeros, so
// a decode and encode gives the input back when its pads were zero. A
// note keeps its trailing bytes, padding included, as Open vSwitch keeps
// them (it prints note:01.02 back as note:01.02.00.00.00.00).
type NXAction struct {
	Subtype      NXActionSubtype
	TunID        uint64   // NXSetTunnel (at most 32 bits), NXSetTunnel64
	Note         []byte   // NXNote: at least 6 bytes, len(Note)%8 == 6
	MaxLen       uint16   // NXController
	ControllerID uint16   // NXController
	Reason       uint8    // NXController: ofp_packet_in_reason
	IDs          []uint16 // NXDecTTLCntIDs: the controller ids
	// InPort is a resubmit's in_port, a 16-bit port number:
	// PortIn16 (OFPP_IN_PORT) keeps the packet's. Port32 widens it.
	InPort uint16 // NXResubmit, NXResubmitTable
	Table  uint8  // NXResubmitTable: the table, 0xff for the current one

	// Ofs and NBits are the bits [Ofs, Ofs+NBits) of a field: of Dst for
	// NXRegLoad, of Src for NXOutputReg and NXOutputReg2; for NXRegMove
	// NBits is the width moved. MaxLen above is an output_reg's.
	Ofs, NBits uint16
	// SrcOfs and DstOfs are NXRegMove's offsets in Src and Dst.
	SrcOfs, DstOfs uint16
	// Src and Dst are NXM or OXM headers naming fields: NXRegMove's
	// both, NXRegLoad's and NXRegLoad2's Dst, NXOutputReg's Src. They
	// are taken as they came; which field they name is the flow
	// tables' question (package ofrules). Dst of NXRegLoad2 is the
	// header of its OXM entry, its hasmask and length included.
	Src, Dst OXMHeader
	Value    uint64 // NXRegLoad: the value, in the low NBits bits
	Payload  []byte // NXRegLoad2: the OXM entry's payload, value then mask
}

// PortIn16 is OFPP_IN_PORT in the 16-bit port numbers of Nicira actions.
const PortIn16 uint16 = 0xfff8

// Port32 widens a 16-bit port number of a Nicira action to OpenFlow 1.1+'s
// 32 bits as Open vSwitch does (u16_to_ofp): the reserved ports from
// 0xff00 up become 0xffffff00 up.
func Port32(p uint16) uint32 {
	if p >= 0xff00 {
		return 0xffff0000 | uint32(p)
	}
	return uint32(p)
}

// Port16 narrows a 32-bit port number to a Nicira action's 16 bits, the
// inverse of Port32 (ofp_to_u16): a number that has no 16-bit form
// (above 0xfeff and below 0xffffff00) keeps its low 16 bits.
func Port16(p uint32) uint16 { return uint16(p) }

// DecodeNXAction decodes a, an experimenter action of NXExperimenter, as
// Open vSwitch 3.1 does. The error is the ErrorMsg Open vSwitch answers
// with (ErrNXBadSubtype, ErrNXBadLen, ErrNXMustBeZero).
func DecodeNXAction(a *Action) (NXAction, error) {
	var x NXAction
	if a.Type != ActionExperimenter || a.Experimenter != NXExperimenter {
		return x, ErrorMsg{Type: ErrTypeBadAction, Code: uint16(BadActionBadExperimenter)}
	}
	d := a.Data // the action from its subtype on: offset 8 of the action
	n := 8 + len(d)
	if n < nxActionHdrSize {
		return x, ErrNXBadLen
	}
	x.Subtype = NXActionSubtype(binary.BigEndian.Uint16(d))
	fixed := 0 // the exact length of a fixed-size subtype
	switch x.Subtype {
	case NXSetTunnel, NXExit, NXController, NXResubmit, NXResubmitTable:
		fixed = 16
	case NXSetTunnel64:
		fixed = 24
	case NXRegLoad, NXOutputReg:
		fixed = 24
	case NXNote, NXDecTTLCntIDs, NXRegMove, NXOutputReg2, NXRegLoad2:
	default:
		return x, ErrNXBadSubtype
	}
	if fixed != 0 && n != fixed || n%8 != 0 {
		return x, ErrNXBadLen
	}
	switch x.Subtype {
	case NXResubmit:
		// NXAST_RESUBMIT ignores its table and pad bytes.
		x.InPort, x.Table = binary.BigEndian.Uint16(d[2:]), 0xff
	case NXResubmitTable:
		if d[5]|d[6]|d[7] != 0 {
			return NXAction{}, ErrNXBadArgument
		}
		x.InPort, x.Table = binary.BigEndian.Uint16(d[2:]), d[4]
	case NXSetTunnel:
		x.TunID = uint64(binary.BigEndian.Uint32(d[4:]))
	case NXSetTunnel64:
		x.TunID = binary.BigEndian.Uint64(d[8:])
	case NXNote:
		x.Note = append([]byte(nil), d[2:]...)
	case NXController:
		x.MaxLen = binary.BigEndian.Uint16(d[2:])
		x.ControllerID = binary.BigEndian.Uint16(d[4:])
		x.Reason = d[6]
	case NXDecTTLCntIDs:
		cnt := int(binary.BigEndian.Uint16(d[2:]))
		if d[4]|d[5]|d[6]|d[7] != 0 {
			return NXAction{}, ErrNXMustBeZero
		}
		if n-16 < 2*cnt {
			return NXAction{}, ErrNXBadLen
		}
		x.IDs = make([]uint16, cnt)
		for i := range x.IDs {
			x.IDs[i] = binary.BigEndian.Uint16(d[8+2*i:])
		}
	case NXRegLoad:
		x.Ofs, x.NBits = ofsNBits(binary.BigEndian.Uint16(d[2:]))
		x.Dst = OXMHeader(binary.BigEndian.Uint32(d[4:]))
		x.Value = binary.BigEndian.Uint64(d[8:])
	case NXOutputReg:
		x.Ofs, x.NBits = ofsNBits(binary.BigEndian.Uint16(d[2:]))
		x.Src = OXMHeader(binary.BigEndian.Uint32(d[4:]))
		x.MaxLen = binary.BigEndian.Uint16(d[8:])
		if !allZero(d[10:16]) {
			return NXAction{}, ErrNXBadArgument
		}
	case NXOutputReg2:
		if n < 24 {
			return NXAction{}, ErrNXBadLen
		}
		x.Ofs, x.NBits = ofsNBits(binary.BigEndian.Uint16(d[2:]))
		x.MaxLen = binary.BigEndian.Uint16(d[4:])
		rest, err := pullHeader(d[6:], &x.Src)
		if err != nil {
			return NXAction{}, err
		}
		if !allZero(rest) {
			return NXAction{}, ErrNXMustBeZero
		}
	case NXRegMove:
		x.NBits = binary.BigEndian.Uint16(d[2:])
		x.SrcOfs = binary.BigEndian.Uint16(d[4:])
		x.DstOfs = binary.BigEndian.Uint16(d[6:])
		rest, err := pullHeader(d[8:], &x.Src)
		if err == nil {
			rest, err = pullHeader(rest, &x.Dst)
		}
		if err != nil {
			return NXAction{}, err
		}
		if !allZero(rest) {
			return NXAction{}, ErrNXMustBeZero
		}
	case NXRegLoad2:
		rest, err := pullHeader(d[2:], &x.Dst)
		if err != nil {
			return NXAction{}, err
		}
		if len(rest) < x.Dst.Len() || x.Dst.HasMask() && x.Dst.Len()%2 != 0 {
			return NXAction{}, ErrNXBadOXMLen
		}
		x.Payload = append([]byte(nil), rest[:x.Dst.Len()]...)
		if !allZero(rest[x.Dst.Len():]) {
			return NXAction{}, ErrNXBadSetArgument
		}
	}
	return x, nil
}

// ofsNBits splits an ofs_nbits field: the offset in its high 10 bits,
// the width less one in its low 6.
func ofsNBits(v uint16) (ofs, nbits uint16) { return v >> 6, v&0x3f + 1 }

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// pullHeader reads the NXM or OXM header at the start of b into *h and
// returns what follows it. A header of the experimenter class (8 bytes
// with its experimenter id) names no field this codec knows: it is
// OFPBAC_BAD_SET_TYPE, as Open vSwitch answers an unknown field. Too few
// bytes are OFPBMC_BAD_LEN (Open vSwitch's nx_pull_header).
func pullHeader(b []byte, h *OXMHeader) ([]byte, error) {
	if len(b) < 4 {
		return nil, ErrNXBadOXMLen
	}
	*h = OXMHeader(binary.BigEndian.Uint32(b))
	if h.Class() == OXMClassExperimenter {
		return nil, ErrNXBadSetType
	}
	return b[4:], nil
}

// Action encodes x as an experimenter action, with Open vSwitch's lengths:
// a note padded to a multiple of 8 bytes (at least 16), dec_ttl's ids
// padded with zeros.
func (x *NXAction) Action() Action {
	var d []byte
	d = binary.BigEndian.AppendUint16(d, uint16(x.Subtype))
	switch x.Subtype {
	case NXResubmit:
		d = binary.BigEndian.AppendUint16(d, x.InPort)
	case NXResubmitTable:
		d = binary.BigEndian.AppendUint16(d, x.InPort)
		d = append(d, x.Table)
	case NXSetTunnel:
		d = append(d, 0, 0)
		d = binary.BigEndian.AppendUint32(d, uint32(x.TunID))
	case NXSetTunnel64:
		d = append(d, 0, 0, 0, 0, 0, 0)
		d = binary.BigEndian.AppendUint64(d, x.TunID)
	case NXNote:
		d = append(d, x.Note...)
	case NXController:
		d = binary.BigEndian.AppendUint16(d, x.MaxLen)
		d = binary.BigEndian.AppendUint16(d, x.ControllerID)
		d = append(d, x.Reason, 0)
	case NXDecTTLCntIDs:
		d = binary.BigEndian.AppendUint16(d, uint16(len(x.IDs)))
		d = append(d, 0, 0, 0, 0)
		for _, id := range x.IDs {
			d = binary.BigEndian.AppendUint16(d, id)
		}
	case NXRegLoad:
		d = binary.BigEndian.AppendUint16(d, x.Ofs<<6|(x.NBits-1)&0x3f)
		d = binary.BigEndian.AppendUint32(d, uint32(x.Dst))
		d = binary.BigEndian.AppendUint64(d, x.Value)
	case NXOutputReg:
		d = binary.BigEndian.AppendUint16(d, x.Ofs<<6|(x.NBits-1)&0x3f)
		d = binary.BigEndian.AppendUint32(d, uint32(x.Src))
		d = binary.BigEndian.AppendUint16(d, x.MaxLen)
	case NXOutputReg2:
		d = binary.BigEndian.AppendUint16(d, x.Ofs<<6|(x.NBits-1)&0x3f)
		d = binary.BigEndian.AppendUint16(d, x.MaxLen)
		d = binary.BigEndian.AppendUint32(d, uint32(x.Src))
		for len(d) < 16 { // 24 bytes at least, as Open vSwitch's struct
			d = append(d, 0)
		}
	case NXRegMove:
		d = binary.BigEndian.AppendUint16(d, x.NBits)
		d = binary.BigEndian.AppendUint16(d, x.SrcOfs)
		d = binary.BigEndian.AppendUint16(d, x.DstOfs)
		d = binary.BigEndian.AppendUint32(d, uint32(x.Src))
		d = binary.BigEndian.AppendUint32(d, uint32(x.Dst))
	case NXRegLoad2:
		d = binary.BigEndian.AppendUint32(d, uint32(x.Dst))
		d = append(d, x.Payload...)
	}
	for (8+len(d))%8 != 0 || 8+len(d) < nxActionHdrSize {
		d = append(d, 0)
	}
	return Action{Type: ActionExperimenter, Experimenter: NXExperimenter, Data: d}
}

// packetInReasons are the ofp_packet_in_reason names of ovs-ofctl.
var packetInReasons = [...]string{"no_match", "action", "invalid_ttl", "action_set", "group", "packet_out"}

// PacketInReasonString names a packet-in reason as ovs-ofctl does
// ("no_match", "invalid_ttl"...), a number if it has no name.
func PacketInReasonString(r uint8) string {
	if int(r) < len(packetInReasons) {
		return packetInReasons[r]
	}
	return fmt.Sprint(r)
}

// String formats x as ovs-ofctl prints the action.
func (x *NXAction) String() string {
	switch x.Subtype {
	case NXResubmit, NXResubmitTable:
		return ResubmitString(Port32(x.InPort), x.Table)
	case NXSetTunnel:
		return fmt.Sprintf("set_tunnel:%#x", x.TunID)
	case NXSetTunnel64:
		return fmt.Sprintf("set_tunnel64:%#x", x.TunID)
	case NXNote:
		var b strings.Builder
		b.WriteString("note:")
		for i, c := range x.Note {
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprintf(&b, "%02x", c)
		}
		return b.String()
	case NXExit:
		return "exit"
	case NXController:
		if x.Reason == PacketInAction && x.ControllerID == 0 {
			return fmt.Sprintf("CONTROLLER:%d", x.MaxLen)
		}
		s := "controller("
		if x.Reason != PacketInAction {
			s += "reason=" + PacketInReasonString(x.Reason) + ","
		}
		if x.MaxLen != 0xffff {
			s += fmt.Sprintf("max_len=%d,", x.MaxLen)
		}
		if x.ControllerID != 0 {
			s += fmt.Sprintf("id=%d,", x.ControllerID)
		}
		return strings.TrimSuffix(s, ",") + ")"
	case NXDecTTLCntIDs:
		ids := make([]string, len(x.IDs))
		for i, id := range x.IDs {
			ids[i] = fmt.Sprint(id)
		}
		return "dec_ttl(" + strings.Join(ids, ",") + ")"
	case NXRegLoad:
		return fmt.Sprintf("load:%#x->%s", x.Value, subfieldString(x.Dst, x.Ofs, x.NBits))
	case NXRegLoad2:
		return fmt.Sprintf("set_field:%x->%s", x.Payload, headerName(x.Dst))
	case NXRegMove:
		return "move:" + subfieldString(x.Src, x.SrcOfs, x.NBits) + "->" + subfieldString(x.Dst, x.DstOfs, x.NBits)
	case NXOutputReg, NXOutputReg2:
		s := "output:" + subfieldString(x.Src, x.Ofs, x.NBits)
		if x.MaxLen != 0 {
			s += fmt.Sprintf(",max_len=%d", x.MaxLen)
		}
		return s
	}
	return fmt.Sprintf("nx_action(%d)", x.Subtype)
}

// headerName names the field of NXM or OXM header h: its NXM name, the
// basic OXM's OXM_OF_ name, or its class and field.
func headerName(h OXMHeader) string {
	if n := NXMName(h.Class(), h.Field()); n != "" {
		return n
	}
	if h.Class() == OXMClassOpenFlow && h.Field().known() {
		return "OXM_OF_" + strings.ToUpper(h.Field().String())
	}
	return fmt.Sprintf("OXM(0x%04x,%d)", uint16(h.Class()), h.Field())
}

// subfieldString formats bits [ofs, ofs+n) of header h's field as Open
// vSwitch does when it does not know the field's width: NAME[ofs..end],
// NAME[bit] for one bit.
func subfieldString(h OXMHeader, ofs, n uint16) string {
	if n == 1 {
		return fmt.Sprintf("%s[%d]", headerName(h), ofs)
	}
	return fmt.Sprintf("%s[%d..%d]", headerName(h), ofs, int(ofs)+int(n)-1)
}

// ResubmitString formats a resubmit to port (32 bits; PortInPort keeps the
// packet's) and table (0xff: the current one) as Open vSwitch prints it
// (format_RESUBMIT): resubmit:P when only the port is given, else
// resubmit(P,T) with an empty slot for what is not, ports as PortName
// formats them.
func ResubmitString(port uint32, table uint8) string {
	if port != PortInPort && table == 0xff {
		return "resubmit:" + PortName(port)
	}
	s := "resubmit("
	if port != PortInPort {
		s += PortName(port)
	}
	s += ","
	if table != 0xff {
		s += fmt.Sprint(table)
	}
	return s + ")"
}

// PortName formats a port number as Open vSwitch does
// (ofputil_format_port): a reserved port by name, another as a number.
func PortName(p uint32) string {
	switch p {
	case PortInPort:
		return "IN_PORT"
	case PortTable:
		return "TABLE"
	case PortNormal:
		return "NORMAL"
	case PortFlood:
		return "FLOOD"
	case PortAll:
		return "ALL"
	case PortController:
		return "CONTROLLER"
	case PortLocal:
		return "LOCAL"
	case PortAny:
		return "ANY"
	}
	if p >= PortMax {
		return fmt.Sprint(p & 0xffff) // as its 16-bit form prints
	}
	return fmt.Sprint(p)
}
