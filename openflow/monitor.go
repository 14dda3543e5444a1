package openflow

import (
	"encoding/binary"
	"fmt"
)

// Flow monitoring (OpenFlow 1.4.1 §7.3.5.19, OFPMP_FLOW_MONITOR) tells a
// controller about the flow entries of a switch: the entries a monitor
// selects when it is created, then every entry added, modified or removed
// that it selects. OpenFlow 1.3 has no such message; Open vSwitch carries
// the same thing over 1.3 as the ONF experimenter multipart
// ONFST_FLOW_MONITOR (experimenter 0x4f4e4600, type 1870), whose request
// and update layouts are those of Open vSwitch's Nicira extension
// NXST_FLOW_MONITOR with an ofp_match and instructions in place of an
// nx_match and actions, and cancels a monitor with the experimenter
// message ONFT_FLOW_MONITOR_CANCEL (same type number, 1870). ovs-ofctl
// monitor SWITCH watch: sends the ONF form at -O OpenFlow13 and the
// standard one at -O OpenFlow14.
//
// The values here carry both forms: the header's Version chooses the form
// when encoding (Version14 and later the standard one, Version13 and the
// zero Version the ONF one), and decoding refuses a form that does not go
// with the message's version.

// Flow monitor wire numbers.
const (
	MultipartFlowMonitor MultipartType = 16   // OFPMP_FLOW_MONITOR (OpenFlow 1.4)
	ONFTypeFlowMonitor   uint32        = 1870 // ONFST_FLOW_MONITOR multipart and ONFT_FLOW_MONITOR_CANCEL message

	ONFTypeFlowMonitorPaused  uint32 = 1871 // ONFT_FLOW_MONITOR_PAUSED message
	ONFTypeFlowMonitorResumed uint32 = 1872 // ONFT_FLOW_MONITOR_RESUMED message
)

// Flow monitor commands (ofp_flow_monitor_request.command, OpenFlow 1.4.1
// enum ofp_flow_monitor_command). The ONF form has no command: it only
// adds.
const (
	FlowMonitorAdd    uint8 = 0 // OFPFMC_ADD
	FlowMonitorModify uint8 = 1 // OFPFMC_MODIFY
	FlowMonitorDelete uint8 = 2 // OFPFMC_DELETE
)

// Flow monitor flags of the standard form (OpenFlow 1.4.1 enum
// ofp_flow_monitor_flags).
const (
	FlowMonitorInitial      uint16 = 1 << 0 // OFPFMF_INITIAL: the entries it selects now
	FlowMonitorAdded        uint16 = 1 << 1 // OFPFMF_ADD
	FlowMonitorRemoved      uint16 = 1 << 2 // OFPFMF_REMOVED
	FlowMonitorModified     uint16 = 1 << 3 // OFPFMF_MODIFY
	FlowMonitorInstructions uint16 = 1 << 4 // OFPFMF_INSTRUCTIONS: updates carry the instructions
	FlowMonitorNoAbbrev     uint16 = 1 << 5 // OFPFMF_NO_ABBREV
	FlowMonitorOnlyOwn      uint16 = 1 << 6 // OFPFMF_ONLY_OWN
)

// Flow monitor flags of the ONF (and Nicira) form (Open vSwitch's
// ONFFMF_*, equal to NXFMF_*): the first five equal the standard ones.
const (
	ONFFlowMonitorOwn uint16 = 1 << 5 // ONFFMF_OWN: the connection's own changes in full
)

// Flow update events (OpenFlow 1.4.1 enum ofp_flow_update_event). The ONF
// form numbers them as Nicira's NXFME_*: added 0 (also for the initial
// entries), deleted 1, modified 2, abbreviated 3; FlowUpdate.Event always
// holds the standard number.
const (
	FlowUpdateInitial  uint16 = 0 // OFPFME_INITIAL
	FlowUpdateAdded    uint16 = 1 // OFPFME_ADDED
	FlowUpdateRemoved  uint16 = 2 // OFPFME_REMOVED
	FlowUpdateModified uint16 = 3 // OFPFME_MODIFIED
	FlowUpdateAbbrev   uint16 = 4 // OFPFME_ABBREV
	FlowUpdatePaused   uint16 = 5 // OFPFME_PAUSED (standard form only)
	FlowUpdateResumed  uint16 = 6 // OFPFME_RESUMED (standard form only)
)

// Flow monitor errors (OpenFlow 1.4.1 enum ofp_flow_monitor_failed_code,
// type ErrTypeFlowMonitorFailed).
const (
	FlowMonitorFailedUnknown        uint16 = 0 // OFPMOFC_UNKNOWN
	FlowMonitorFailedMonitorExists  uint16 = 1 // OFPMOFC_MONITOR_EXISTS
	FlowMonitorFailedInvalidMonitor uint16 = 2 // OFPMOFC_INVALID_MONITOR
	FlowMonitorFailedUnknownMonitor uint16 = 3 // OFPMOFC_UNKNOWN_MONITOR
	FlowMonitorFailedBadCommand     uint16 = 4 // OFPMOFC_BAD_COMMAND
	FlowMonitorFailedBadFlags       uint16 = 5 // OFPMOFC_BAD_FLAGS
	FlowMonitorFailedBadTableID     uint16 = 6 // OFPMOFC_BAD_TABLE_ID
	FlowMonitorFailedBadOut         uint16 = 7 // OFPMOFC_BAD_OUT
)

// flowMonitorLen is the fixed part of one monitor request, and of a full
// flow update, in both forms.
const (
	flowMonitorLen    = 16
	flowUpdateFullLen = 24
	flowUpdateAbbrev  = 8
)

// FlowMonitor is one monitor of a flow monitor request: OpenFlow 1.4.1
// ofp_flow_monitor_request, or Open vSwitch's onf_flow_monitor_request.
//
// Flags are as on the wire: FlowMonitor* bits in the standard form,
// ONFFMF_* bits in the ONF one (the same, but for ONFFlowMonitorOwn). The
// ONF form has no command or out_group: decoding sets Command to
// FlowMonitorAdd and OutGroup to GroupAny, and encoding it refuses other
// values. The zero FlowMonitor adds monitor 0 of table 0 for output port
// 0, with no flags.
type FlowMonitor struct {
	ID       uint32
	OutPort  uint32 // PortAny: any
	OutGroup uint32 // GroupAny: any
	Flags    uint16
	TableID  uint8 // TableAll: every table
	Command  uint8 // FlowMonitor{Add,Modify,Delete}
	Match    Match
}

// FlowMonitorRequest is a flow monitor request: an OFPT_MULTIPART_REQUEST
// of type OFPMP_FLOW_MONITOR (OpenFlow 1.4) or of the ONF experimenter
// type ONFST_FLOW_MONITOR (OpenFlow 1.3), with any number of monitors.
type FlowMonitorRequest struct {
	Header
	Flags    uint16 // MultipartRequestMore
	Monitors []FlowMonitor
}

// standardForm reports whether version v uses the OpenFlow 1.4 form.
func standardForm(v uint8) bool { return v >= Version14 }

// appendMonitorPartHeader appends an ofp_multipart_request or _reply
// header for a flow monitor message (and the ONF experimenter header where
// the version wants it).
func appendMonitorPartHeader(dst []byte, h *Header, t Type, flags uint16) []byte {
	dst = appendHeader(dst, h, t)
	if standardForm(h.Version) {
		dst = binary.BigEndian.AppendUint16(dst, uint16(MultipartFlowMonitor))
		dst = binary.BigEndian.AppendUint16(dst, flags)
		return append(dst, 0, 0, 0, 0)
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(MultipartExperimenter))
	dst = binary.BigEndian.AppendUint16(dst, flags)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, ONFExperimenter)
	return binary.BigEndian.AppendUint32(dst, ONFTypeFlowMonitor)
}

// decodeMonitorPartHeader checks the multipart header of a flow monitor
// message of type t and returns its flags and the offset of its body.
func decodeMonitorPartHeader(h *Header, b []byte, t Type) (uint16, int, error) {
	if err := decodeHeader(h, b, t, 16); err != nil {
		return 0, 0, err
	}
	part := MultipartType(binary.BigEndian.Uint16(b[8:]))
	flags := binary.BigEndian.Uint16(b[10:])
	if standardForm(h.Version) {
		if part != MultipartFlowMonitor {
			return 0, 0, &DecodeError{Type: t, Field: "type", Offset: 8, Err: ErrBadMultipart}
		}
		return flags, 16, nil
	}
	if part != MultipartExperimenter {
		return 0, 0, &DecodeError{Type: t, Field: "type", Offset: 8, Err: ErrBadMultipart}
	}
	if len(b) < 24 {
		return 0, 0, &DecodeError{Type: t, Field: "experimenter", Offset: 16, Err: ErrBadLength}
	}
	if binary.BigEndian.Uint32(b[16:]) != ONFExperimenter {
		return 0, 0, &DecodeError{Type: t, Field: "experimenter", Offset: 16, Err: ErrBadExperimenter}
	}
	if binary.BigEndian.Uint32(b[20:]) != ONFTypeFlowMonitor {
		return 0, 0, &DecodeError{Type: t, Field: "exp_type", Offset: 20, Err: ErrBadMultipart}
	}
	return flags, 24, nil
}

// AppendBinary appends the wire form of m to dst.
func (m *FlowMonitorRequest) AppendBinary(dst []byte) ([]byte, error) {
	const t = TypeMultipartRequest
	start := len(dst)
	dst = appendMonitorPartHeader(dst, &m.Header, t, m.Flags)
	std := standardForm(m.Version)
	for i := range m.Monitors {
		fm := &m.Monitors[i]
		if std {
			dst = binary.BigEndian.AppendUint32(dst, fm.ID)
			dst = binary.BigEndian.AppendUint32(dst, fm.OutPort)
			dst = binary.BigEndian.AppendUint32(dst, fm.OutGroup)
			dst = binary.BigEndian.AppendUint16(dst, fm.Flags)
			dst = append(dst, fm.TableID, fm.Command)
		} else {
			if fm.Command != FlowMonitorAdd || fm.OutGroup != GroupAny {
				return dst[:start], &EncodeError{Type: t, Field: fmt.Sprintf("monitors[%d]", i), Err: ErrBadFlowMonitor}
			}
			dst = binary.BigEndian.AppendUint32(dst, fm.ID)
			dst = binary.BigEndian.AppendUint16(dst, fm.Flags)
			dst = binary.BigEndian.AppendUint16(dst, uint16(fm.Match.unpaddedLen()))
			dst = binary.BigEndian.AppendUint32(dst, fm.OutPort)
			dst = append(dst, fm.TableID, 0, 0, 0)
		}
		var err error
		if dst, err = fm.Match.AppendBinary(dst); err != nil {
			return dst[:start], encodeCtx(err, t)
		}
	}
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *FlowMonitorRequest) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes a flow monitor request of either form, reusing
// m's slices.
func (m *FlowMonitorRequest) UnmarshalBinary(b []byte) error {
	const t = TypeMultipartRequest
	flags, off, err := decodeMonitorPartHeader(&m.Header, b, t)
	if err != nil {
		return err
	}
	m.Flags = flags
	m.Monitors = m.Monitors[:0]
	std := standardForm(m.Version)
	for i := 0; off < len(b); i++ {
		if len(b)-off < flowMonitorLen {
			return &DecodeError{Type: t, Field: fmt.Sprintf("monitors[%d]", i), Offset: off, Err: ErrBadLength}
		}
		if cap(m.Monitors) > len(m.Monitors) {
			m.Monitors = m.Monitors[:len(m.Monitors)+1]
		} else {
			m.Monitors = append(m.Monitors, FlowMonitor{})
		}
		fm := &m.Monitors[len(m.Monitors)-1]
		e := b[off:]
		fm.ID = binary.BigEndian.Uint32(e)
		if std {
			fm.OutPort = binary.BigEndian.Uint32(e[4:])
			fm.OutGroup = binary.BigEndian.Uint32(e[8:])
			fm.Flags = binary.BigEndian.Uint16(e[12:])
			fm.TableID, fm.Command = e[14], e[15]
		} else {
			// match_len repeats the length of the ofp_match that
			// follows, which is what is read, as Open vSwitch does.
			fm.Flags = binary.BigEndian.Uint16(e[4:])
			fm.OutPort = binary.BigEndian.Uint32(e[8:])
			fm.TableID, fm.Command, fm.OutGroup = e[12], FlowMonitorAdd, GroupAny
			if e[13]|e[14]|e[15] != 0 {
				return &DecodeError{Type: t, Field: fmt.Sprintf("monitors[%d].zeros", i), Offset: off + 13, Err: ErrBadFlowMonitor}
			}
		}
		n, err := fm.Match.decode(e[flowMonitorLen:])
		if err != nil {
			de := err.(*DecodeError)
			de.Field = fmt.Sprintf("monitors[%d].%s", i, de.Field)
			return decodeCtx(de, t, off+flowMonitorLen)
		}
		off += flowMonitorLen + n
	}
	return nil
}

// FlowUpdate is one entry of a flow monitor reply: OpenFlow 1.4.1
// ofp_flow_update_full, _abbrev or _paused, or Open vSwitch's
// onf_flow_update_full or _abbrev. Event is the standard OFPFME_* number
// in both forms; in the ONF form FlowUpdateInitial encodes as "added",
// which it decodes as, and FlowUpdatePaused and FlowUpdateResumed do not
// exist. An abbreviated update carries only XID, a paused or resumed one
// nothing; a full one all but XID. Reason is OFPRR_* for a removed entry
// (16 bits in the ONF form, 8 in the standard one).
type FlowUpdate struct {
	Event        uint16
	Reason       uint16
	TableID      uint8
	Priority     uint16
	IdleTimeout  uint16
	HardTimeout  uint16
	Cookie       uint64
	Match        Match
	Instructions []Instruction
	XID          uint32
}

// FlowMonitorReply is a flow monitor reply (OFPT_MULTIPART_REPLY of type
// OFPMP_FLOW_MONITOR or ONFST_FLOW_MONITOR). A switch sends one in answer
// to a request, with the initial entries, and later ones with xid 0 as
// entries change.
type FlowMonitorReply struct {
	Header
	Flags   uint16 // MultipartReplyMore
	Updates []FlowUpdate
}

// onfEvent maps a standard event to the ONF (Nicira) number.
func onfEvent(e uint16) (uint16, bool) {
	switch e {
	case FlowUpdateInitial, FlowUpdateAdded:
		return 0, true
	case FlowUpdateRemoved:
		return 1, true
	case FlowUpdateModified:
		return 2, true
	case FlowUpdateAbbrev:
		return 3, true
	}
	return 0, false
}

// AppendUpdate appends the wire form of one update of a reply of version
// v (the form the version uses) to dst.
func AppendUpdate(dst []byte, v uint8, u *FlowUpdate) ([]byte, error) {
	start := len(dst)
	std := standardForm(v)
	ev := u.Event
	if !std {
		var ok bool
		if ev, ok = onfEvent(u.Event); !ok {
			return dst, &EncodeError{Field: "update.event", Err: ErrBadFlowMonitor}
		}
	}
	dst = append(dst, 0, 0, byte(ev>>8), byte(ev))
	switch u.Event {
	case FlowUpdateAbbrev:
		dst = binary.BigEndian.AppendUint32(dst, u.XID)
	case FlowUpdatePaused, FlowUpdateResumed:
		dst = append(dst, 0, 0, 0, 0)
	case FlowUpdateInitial, FlowUpdateAdded, FlowUpdateRemoved, FlowUpdateModified:
		if std {
			if u.Reason > 0xff {
				return dst[:start], &EncodeError{Field: "update.reason", Err: ErrBadFlowMonitor}
			}
			dst = append(dst, u.TableID, byte(u.Reason))
			dst = binary.BigEndian.AppendUint16(dst, u.IdleTimeout)
			dst = binary.BigEndian.AppendUint16(dst, u.HardTimeout)
			dst = binary.BigEndian.AppendUint16(dst, u.Priority)
			dst = append(dst, 0, 0, 0, 0)
		} else {
			dst = binary.BigEndian.AppendUint16(dst, u.Reason)
			dst = binary.BigEndian.AppendUint16(dst, u.Priority)
			dst = binary.BigEndian.AppendUint16(dst, u.IdleTimeout)
			dst = binary.BigEndian.AppendUint16(dst, u.HardTimeout)
			dst = binary.BigEndian.AppendUint16(dst, uint16(u.Match.unpaddedLen()))
			dst = append(dst, u.TableID, 0)
		}
		dst = binary.BigEndian.AppendUint64(dst, u.Cookie)
		var err error
		if dst, err = u.Match.AppendBinary(dst); err != nil {
			return dst[:start], err
		}
		if dst, err = appendInstructions(dst, u.Instructions); err != nil {
			return dst[:start], err
		}
	default:
		return dst, &EncodeError{Field: "update.event", Err: ErrBadFlowMonitor}
	}
	n := len(dst) - start
	if n > 0xffff {
		return dst[:start], &EncodeError{Field: "update.length", Err: ErrTooLong}
	}
	binary.BigEndian.PutUint16(dst[start:], uint16(n))
	return dst, nil
}

// AppendBinary appends the wire form of m to dst as one message.
func (m *FlowMonitorReply) AppendBinary(dst []byte) ([]byte, error) {
	const t = TypeMultipartReply
	start := len(dst)
	dst = appendMonitorPartHeader(dst, &m.Header, t, m.Flags)
	for i := range m.Updates {
		var err error
		if dst, err = AppendUpdate(dst, m.Version, &m.Updates[i]); err != nil {
			return dst[:start], encodeCtx(err, t)
		}
	}
	return finish(dst, start, t)
}

// AppendReplyHeader appends the header of a flow monitor reply of the
// given version, xid and flags, with no updates: append updates with
// AppendUpdate, then set the length with FinishReply.
func AppendReplyHeader(dst []byte, version uint8, xid uint32, flags uint16) []byte {
	return appendMonitorPartHeader(dst, &Header{Version: version, XID: xid}, TypeMultipartReply, flags)
}

// FinishReply writes the length of the message that starts at dst[start].
func FinishReply(dst []byte, start int) ([]byte, error) {
	return finish(dst, start, TypeMultipartReply)
}

// MarshalBinary returns the wire form of m.
func (m *FlowMonitorReply) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes a flow monitor reply of either form, reusing m's
// slices.
func (m *FlowMonitorReply) UnmarshalBinary(b []byte) error {
	const t = TypeMultipartReply
	flags, off, err := decodeMonitorPartHeader(&m.Header, b, t)
	if err != nil {
		return err
	}
	m.Flags = flags
	m.Updates = m.Updates[:0]
	std := standardForm(m.Version)
	for i := 0; off < len(b); i++ {
		field := func(s string) string { return fmt.Sprintf("updates[%d].%s", i, s) }
		if len(b)-off < 4 {
			return &DecodeError{Type: t, Field: field("length"), Offset: off, Err: ErrBadLength}
		}
		n := int(binary.BigEndian.Uint16(b[off:]))
		if n < 8 || n%8 != 0 || n > len(b)-off {
			return &DecodeError{Type: t, Field: field("length"), Offset: off, Err: ErrBadLength}
		}
		e := b[off : off+n]
		if cap(m.Updates) > len(m.Updates) {
			m.Updates = m.Updates[:len(m.Updates)+1]
		} else {
			m.Updates = append(m.Updates, FlowUpdate{})
		}
		u := &m.Updates[len(m.Updates)-1]
		ins := u.Instructions[:0]
		match := u.Match.Fields[:0]
		*u = FlowUpdate{Instructions: ins, Match: Match{Fields: match}}
		ev := binary.BigEndian.Uint16(e[2:])
		if !std {
			switch ev {
			case 0:
				ev = FlowUpdateAdded
			case 1:
				ev = FlowUpdateRemoved
			case 2:
				ev = FlowUpdateModified
			case 3:
				ev = FlowUpdateAbbrev
			default:
				return &DecodeError{Type: t, Field: field("event"), Offset: off + 2, Err: ErrBadFlowMonitor}
			}
		}
		u.Event = ev
		switch ev {
		case FlowUpdateAbbrev, FlowUpdatePaused, FlowUpdateResumed:
			if n != flowUpdateAbbrev {
				return &DecodeError{Type: t, Field: field("length"), Offset: off, Err: ErrBadLength}
			}
			if ev == FlowUpdateAbbrev {
				u.XID = binary.BigEndian.Uint32(e[4:])
			} else if binary.BigEndian.Uint32(e[4:]) != 0 {
				return &DecodeError{Type: t, Field: field("zeros"), Offset: off + 4, Err: ErrBadFlowMonitor}
			}
		case FlowUpdateInitial, FlowUpdateAdded, FlowUpdateRemoved, FlowUpdateModified:
			if n < flowUpdateFullLen+8 {
				return &DecodeError{Type: t, Field: field("length"), Offset: off, Err: ErrBadLength}
			}
			if std {
				u.TableID, u.Reason = e[4], uint16(e[5])
				u.IdleTimeout = binary.BigEndian.Uint16(e[6:])
				u.HardTimeout = binary.BigEndian.Uint16(e[8:])
				u.Priority = binary.BigEndian.Uint16(e[10:])
				if binary.BigEndian.Uint32(e[12:]) != 0 {
					return &DecodeError{Type: t, Field: field("zeros"), Offset: off + 12, Err: ErrBadFlowMonitor}
				}
			} else {
				u.Reason = binary.BigEndian.Uint16(e[4:])
				u.Priority = binary.BigEndian.Uint16(e[6:])
				u.IdleTimeout = binary.BigEndian.Uint16(e[8:])
				u.HardTimeout = binary.BigEndian.Uint16(e[10:])
				u.TableID = e[14]
				if e[15] != 0 {
					return &DecodeError{Type: t, Field: field("pad"), Offset: off + 15, Err: ErrBadFlowMonitor}
				}
			}
			u.Cookie = binary.BigEndian.Uint64(e[16:])
			k, err := u.Match.decode(e[flowUpdateFullLen:])
			if err != nil {
				de := err.(*DecodeError)
				de.Field = field(de.Field)
				return decodeCtx(de, t, off+flowUpdateFullLen)
			}
			at := flowUpdateFullLen + k
			if err := decodeInstructions(&u.Instructions, e[at:], at); err != nil {
				de := err.(*DecodeError)
				de.Field = field(de.Field)
				return decodeCtx(de, t, off)
			}
		default:
			return &DecodeError{Type: t, Field: field("event"), Offset: off + 2, Err: ErrBadFlowMonitor}
		}
		off += n
	}
	return nil
}

// FlowMonitorCancel is Open vSwitch's ONFT_FLOW_MONITOR_CANCEL, the
// OpenFlow 1.3 experimenter message (experimenter 0x4f4e4600, type 1870)
// that removes monitor ID from the connection. OpenFlow 1.4 cancels with a
// FlowMonitorRequest whose command is FlowMonitorDelete.
type FlowMonitorCancel struct {
	Header
	ID uint32
}

// AppendBinary appends the wire form of m to dst.
func (m *FlowMonitorCancel) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendONFHeader(dst, &m.Header, ONFTypeFlowMonitor)
	dst = binary.BigEndian.AppendUint32(dst, m.ID)
	return finish(dst, start, TypeExperimenter)
}

// MarshalBinary returns the wire form of m.
func (m *FlowMonitorCancel) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an ONFT_FLOW_MONITOR_CANCEL.
func (m *FlowMonitorCancel) UnmarshalBinary(b []byte) error {
	typ, err := decodeONFMessage(&m.Header, b, 4)
	if err == nil && typ != ONFTypeFlowMonitor {
		err = &DecodeError{Type: TypeExperimenter, Field: "exp_type", Offset: 12, Err: ErrBadExperimenter}
	}
	if err != nil {
		return err
	}
	m.ID = binary.BigEndian.Uint32(b[16:])
	return nil
}

// FlowMonitorPause is Open vSwitch's ONFT_FLOW_MONITOR_PAUSED or, with
// Resumed, ONFT_FLOW_MONITOR_RESUMED: the OpenFlow 1.3 experimenter
// messages (experimenter 0x4f4e4600, types 1871 and 1872, no body) that
// tell a monitoring controller that the switch stopped sending flow
// updates because too many wait unread, and that it sent the entries
// that changed meanwhile and goes on. OpenFlow 1.4 says the same with a
// flow monitor reply whose one update is FlowUpdatePaused or
// FlowUpdateResumed.
type FlowMonitorPause struct {
	Header
	Resumed bool
}

// AppendBinary appends the wire form of m to dst.
func (m *FlowMonitorPause) AppendBinary(dst []byte) ([]byte, error) {
	typ := ONFTypeFlowMonitorPaused
	if m.Resumed {
		typ = ONFTypeFlowMonitorResumed
	}
	start := len(dst)
	return finish(appendONFHeader(dst, &m.Header, typ), start, TypeExperimenter)
}

// MarshalBinary returns the wire form of m.
func (m *FlowMonitorPause) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an ONFT_FLOW_MONITOR_PAUSED or _RESUMED.
func (m *FlowMonitorPause) UnmarshalBinary(b []byte) error {
	typ, err := decodeONFMessage(&m.Header, b, 0)
	switch {
	case err != nil:
		return err
	case typ == ONFTypeFlowMonitorPaused:
		m.Resumed = false
	case typ == ONFTypeFlowMonitorResumed:
		m.Resumed = true
	default:
		return &DecodeError{Type: TypeExperimenter, Field: "exp_type", Offset: 12, Err: ErrBadExperimenter}
	}
	return nil
}

// appendONFHeader appends the header of an ONF experimenter message of
// type typ (experimenter 0x4f4e4600) with h's version and xid.
func appendONFHeader(dst []byte, h *Header, typ uint32) []byte {
	dst = appendHeader(dst, h, TypeExperimenter)
	dst = binary.BigEndian.AppendUint32(dst, ONFExperimenter)
	return binary.BigEndian.AppendUint32(dst, typ)
}

// decodeONFMessage decodes the header of an ONF experimenter message
// whose body after the experimenter and its type is body bytes long, and
// returns the type.
func decodeONFMessage(h *Header, b []byte, body int) (uint32, error) {
	const t = TypeExperimenter
	if err := decodeHeader(h, b, t, onfHeaderLen+body); err != nil {
		return 0, err
	}
	if len(b) != onfHeaderLen+body {
		return 0, &DecodeError{Type: t, Field: "body", Offset: onfHeaderLen, Err: ErrBadLength}
	}
	if binary.BigEndian.Uint32(b[8:]) != ONFExperimenter {
		return 0, &DecodeError{Type: t, Field: "experimenter", Offset: 8, Err: ErrBadExperimenter}
	}
	return binary.BigEndian.Uint32(b[12:]), nil
}

// IsFlowMonitor reports whether b, a whole multipart request or reply,
// is a flow monitor message of a form its version uses.
func IsFlowMonitor(b []byte) bool {
	if len(b) < 16 || (Type(b[1]) != TypeMultipartRequest && Type(b[1]) != TypeMultipartReply) {
		return false
	}
	part := MultipartType(binary.BigEndian.Uint16(b[8:]))
	if standardForm(b[0]) {
		return part == MultipartFlowMonitor
	}
	return part == MultipartExperimenter && len(b) >= 24 &&
		binary.BigEndian.Uint32(b[16:]) == ONFExperimenter && binary.BigEndian.Uint32(b[20:]) == ONFTypeFlowMonitor
}
