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
	NXNote          NXActionSubtype = 8  // NXAST_NOTE: Note
	NXSetTunnel64   NXActionSubtype = 9  // NXAST_SET_TUNNEL64: TunID
	NXResubmitTable NXActionSubtype = 14 // NXAST_RESUBMIT_TABLE: InPort, Table
	NXExit          NXActionSubtype = 17 // NXAST_EXIT
	NXController    NXActionSubtype = 20 // NXAST_CONTROLLER: MaxLen, ControllerID, Reason
	NXDecTTLCntIDs  NXActionSubtype = 21 // NXAST_DEC_TTL_CNT_IDS: IDs
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
	case NXNote, NXDecTTLCntIDs:
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
	}
	return x, nil
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
	}
	return fmt.Sprintf("nx_action(%d)", x.Subtype)
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
