package openflow

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Packet-in reasons (OpenFlow 1.3.5 §7.4.1, enum ofp_packet_in_reason).
const (
	PacketInNoMatch    uint8 = 0 // OFPR_NO_MATCH
	PacketInAction     uint8 = 1 // OFPR_ACTION
	PacketInInvalidTTL uint8 = 2 // OFPR_INVALID_TTL
)

// PacketIn is an OFPT_PACKET_IN message (OpenFlow 1.3.5 §7.4.1): a packet
// (or its first bytes) sent to the controller, with its pipeline fields in
// Match.
type PacketIn struct {
	Header
	BufferID uint32 // NoBuffer if the whole packet is in Data
	TotalLen uint16 // full length of the frame
	Reason   uint8  // PacketIn*
	TableID  uint8
	Cookie   uint64
	Match    Match
	Data     []byte // the Ethernet frame
}

// AppendBinary appends the wire form of m to dst.
func (m *PacketIn) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypePacketIn)
	dst = binary.BigEndian.AppendUint32(dst, m.BufferID)
	dst = binary.BigEndian.AppendUint16(dst, m.TotalLen)
	dst = append(dst, m.Reason, m.TableID)
	dst = binary.BigEndian.AppendUint64(dst, m.Cookie)
	var err error
	if dst, err = m.Match.AppendBinary(dst); err != nil {
		return dst[:start], encodeCtx(err, TypePacketIn)
	}
	dst = append(dst, 0, 0)
	dst = append(dst, m.Data...)
	return finish(dst, start, TypePacketIn)
}

// MarshalBinary returns the wire form of m.
func (m *PacketIn) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one PACKET_IN; Data is copied.
func (m *PacketIn) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypePacketIn, 34); err != nil {
		return err
	}
	m.BufferID = binary.BigEndian.Uint32(b[8:])
	m.TotalLen = binary.BigEndian.Uint16(b[12:])
	m.Reason = b[14]
	m.TableID = b[15]
	m.Cookie = binary.BigEndian.Uint64(b[16:])
	n, err := m.Match.decode(b[24:])
	if err != nil {
		return decodeCtx(err, TypePacketIn, 24)
	}
	off := 24 + n
	if len(b)-off < 2 {
		return &DecodeError{Type: TypePacketIn, Field: "pad", Offset: off, Err: ErrShortBuffer}
	}
	m.Data = append(m.Data[:0], b[off+2:]...)
	return nil
}

// PacketOut is an OFPT_PACKET_OUT message (OpenFlow 1.3.5 §7.3.7): send a
// packet (Data, or a buffered one) through Actions.
type PacketOut struct {
	Header
	BufferID uint32 // NoBuffer when Data holds the frame
	InPort   uint32 // ingress port for the actions, or PortController
	Actions  []Action
	Data     []byte
}

// AppendBinary appends the wire form of m to dst.
func (m *PacketOut) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypePacketOut)
	dst = binary.BigEndian.AppendUint32(dst, m.BufferID)
	dst = binary.BigEndian.AppendUint32(dst, m.InPort)
	al := actionsLen(m.Actions)
	if al > 0xffff {
		return dst[:start], &EncodeError{Type: TypePacketOut, Field: "actions_len", Err: ErrTooLong}
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(al))
	dst = append(dst, 0, 0, 0, 0, 0, 0)
	var err error
	if dst, err = appendActions(dst, m.Actions); err != nil {
		return dst[:start], encodeCtx(err, TypePacketOut)
	}
	dst = append(dst, m.Data...)
	return finish(dst, start, TypePacketOut)
}

// MarshalBinary returns the wire form of m.
func (m *PacketOut) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one PACKET_OUT; Data is copied.
func (m *PacketOut) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypePacketOut, 24); err != nil {
		return err
	}
	m.BufferID = binary.BigEndian.Uint32(b[8:])
	m.InPort = binary.BigEndian.Uint32(b[12:])
	al := int(binary.BigEndian.Uint16(b[16:]))
	if 24+al > len(b) {
		return &DecodeError{Type: TypePacketOut, Field: "actions_len", Offset: 16, Err: ErrBadLength}
	}
	if err := decodeActions(&m.Actions, b[24:24+al], "actions", 24); err != nil {
		return decodeCtx(err, TypePacketOut, 0)
	}
	m.Data = append(m.Data[:0], b[24+al:]...)
	return nil
}

// Flow-removed reasons (OpenFlow 1.3.5 §7.4.2, enum ofp_flow_removed_reason).
const (
	FlowRemovedIdleTimeout uint8 = 0 // OFPRR_IDLE_TIMEOUT
	FlowRemovedHardTimeout uint8 = 1 // OFPRR_HARD_TIMEOUT
	FlowRemovedDelete      uint8 = 2 // OFPRR_DELETE
	FlowRemovedGroupDelete uint8 = 3 // OFPRR_GROUP_DELETE
)

// FlowRemoved is an OFPT_FLOW_REMOVED message (OpenFlow 1.3.5 §7.4.2).
type FlowRemoved struct {
	Header
	Cookie       uint64
	Priority     uint16
	Reason       uint8 // FlowRemoved*
	TableID      uint8
	DurationSec  uint32
	DurationNsec uint32
	IdleTimeout  uint16
	HardTimeout  uint16
	PacketCount  uint64
	ByteCount    uint64
	Match        Match
}

// AppendBinary appends the wire form of m to dst.
func (m *FlowRemoved) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeFlowRemoved)
	dst = binary.BigEndian.AppendUint64(dst, m.Cookie)
	dst = binary.BigEndian.AppendUint16(dst, m.Priority)
	dst = append(dst, m.Reason, m.TableID)
	dst = binary.BigEndian.AppendUint32(dst, m.DurationSec)
	dst = binary.BigEndian.AppendUint32(dst, m.DurationNsec)
	dst = binary.BigEndian.AppendUint16(dst, m.IdleTimeout)
	dst = binary.BigEndian.AppendUint16(dst, m.HardTimeout)
	dst = binary.BigEndian.AppendUint64(dst, m.PacketCount)
	dst = binary.BigEndian.AppendUint64(dst, m.ByteCount)
	var err error
	if dst, err = m.Match.AppendBinary(dst); err != nil {
		return dst[:start], encodeCtx(err, TypeFlowRemoved)
	}
	return finish(dst, start, TypeFlowRemoved)
}

// MarshalBinary returns the wire form of m.
func (m *FlowRemoved) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one FLOW_REMOVED.
func (m *FlowRemoved) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeFlowRemoved, 56); err != nil {
		return err
	}
	m.Cookie = binary.BigEndian.Uint64(b[8:])
	m.Priority = binary.BigEndian.Uint16(b[16:])
	m.Reason = b[18]
	m.TableID = b[19]
	m.DurationSec = binary.BigEndian.Uint32(b[20:])
	m.DurationNsec = binary.BigEndian.Uint32(b[24:])
	m.IdleTimeout = binary.BigEndian.Uint16(b[28:])
	m.HardTimeout = binary.BigEndian.Uint16(b[30:])
	m.PacketCount = binary.BigEndian.Uint64(b[32:])
	m.ByteCount = binary.BigEndian.Uint64(b[40:])
	n, err := m.Match.decode(b[48:])
	if err != nil {
		return decodeCtx(err, TypeFlowRemoved, 48)
	}
	if 48+n != len(b) {
		return &DecodeError{Type: TypeFlowRemoved, Field: "match.length", Offset: 50, Err: ErrBadLength}
	}
	return nil
}

// Port is ofp_port, a port description (OpenFlow 1.3.5 §7.2.1), 64 bytes on
// the wire.
type Port struct {
	PortNo     uint32
	HWAddr     [6]byte
	Name       [16]byte // NUL-padded; see NameString
	Config     uint32   // OFPPC_* bits
	State      uint32   // OFPPS_* bits
	Curr       uint32   // OFPPF_* bits
	Advertised uint32
	Supported  uint32
	Peer       uint32
	CurrSpeed  uint32 // kbps
	MaxSpeed   uint32 // kbps
}

const portLen = 64

// NameString returns Name up to its first NUL.
func (p *Port) NameString() string {
	if i := bytes.IndexByte(p.Name[:], 0); i >= 0 {
		return string(p.Name[:i])
	}
	return string(p.Name[:])
}

func (p *Port) appendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, p.PortNo)
	dst = append(dst, 0, 0, 0, 0)
	dst = append(dst, p.HWAddr[:]...)
	dst = append(dst, 0, 0)
	dst = append(dst, p.Name[:]...)
	for _, w := range [...]uint32{p.Config, p.State, p.Curr, p.Advertised, p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed} {
		dst = binary.BigEndian.AppendUint32(dst, w)
	}
	return dst
}

func (p *Port) decode(b []byte) {
	p.PortNo = binary.BigEndian.Uint32(b)
	copy(p.HWAddr[:], b[8:14])
	copy(p.Name[:], b[16:32])
	u := func(i int) uint32 { return binary.BigEndian.Uint32(b[32+4*i:]) }
	p.Config, p.State, p.Curr, p.Advertised = u(0), u(1), u(2), u(3)
	p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed = u(4), u(5), u(6), u(7)
}

// Port-status reasons (OpenFlow 1.3.5 §7.4.3, enum ofp_port_reason).
const (
	PortAdd    uint8 = 0 // OFPPR_ADD
	PortDelete uint8 = 1 // OFPPR_DELETE
	PortModify uint8 = 2 // OFPPR_MODIFY
)

// PortStatus is an OFPT_PORT_STATUS message (OpenFlow 1.3.5 §7.4.3).
//
// At Version14 the port is encoded in OpenFlow 1.4's ofp_port layout
// (OpenFlow 1.4.1 §7.2.1): config and state in the port, the Ethernet
// figures in one OFPPDPT_ETHERNET property. Decoding accepts that one
// property and no other (ErrBadProperty).
type PortStatus struct {
	Header
	Reason uint8 // Port*
	Desc   Port
}

// AppendBinary appends the wire form of m to dst.
func (m *PortStatus) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypePortStatus)
	dst = append(dst, m.Reason, 0, 0, 0, 0, 0, 0, 0)
	if m.Version >= Version14 {
		dst = m.Desc.appendTo14(dst)
	} else {
		dst = m.Desc.appendTo(dst)
	}
	return finish(dst, start, TypePortStatus)
}

// MarshalBinary returns the wire form of m.
func (m *PortStatus) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one PORT_STATUS.
func (m *PortStatus) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypePortStatus, 80); err != nil {
		return err
	}
	m.Reason = b[8]
	if m.Version >= Version14 {
		return m.Desc.decode14(b[16:], 16)
	}
	if len(b) != 80 {
		return &DecodeError{Type: TypePortStatus, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	m.Desc.decode(b[16:])
	return nil
}

// OpenFlow 1.4 port description sizes (OpenFlow 1.4.1 §7.2.1).
const (
	port14Len     = 40 // ofp_port without properties
	port14EthLen  = 32 // ofp_port_desc_prop_ethernet
	port14EthType = 0  // OFPPDPT_ETHERNET
)

// appendTo14 appends p in OpenFlow 1.4's layout, with its Ethernet
// figures in an OFPPDPT_ETHERNET property.
func (p *Port) appendTo14(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, p.PortNo)
	dst = binary.BigEndian.AppendUint16(dst, port14Len+port14EthLen)
	dst = append(dst, 0, 0)
	dst = append(dst, p.HWAddr[:]...)
	dst = append(dst, 0, 0)
	dst = append(dst, p.Name[:]...)
	dst = binary.BigEndian.AppendUint32(dst, p.Config)
	dst = binary.BigEndian.AppendUint32(dst, p.State)
	dst = binary.BigEndian.AppendUint16(dst, port14EthType)
	dst = binary.BigEndian.AppendUint16(dst, port14EthLen)
	dst = append(dst, 0, 0, 0, 0)
	for _, w := range [...]uint32{p.Curr, p.Advertised, p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed} {
		dst = binary.BigEndian.AppendUint32(dst, w)
	}
	return dst
}

// decode14 decodes an OpenFlow 1.4 ofp_port that fills b and carries one
// OFPPDPT_ETHERNET property; off is b's offset in the message.
func (p *Port) decode14(b []byte, off int) error {
	if len(b) != port14Len+port14EthLen {
		return &DecodeError{Type: TypePortStatus, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	if n := binary.BigEndian.Uint16(b[4:]); int(n) != len(b) {
		return &DecodeError{Type: TypePortStatus, Field: "port.length", Offset: off + 4, Err: ErrBadLength}
	}
	prop := b[port14Len:]
	if binary.BigEndian.Uint16(prop) != port14EthType || binary.BigEndian.Uint16(prop[2:]) != port14EthLen {
		return &DecodeError{Type: TypePortStatus, Field: "port.properties[0]", Offset: off + port14Len, Err: ErrBadProperty}
	}
	p.PortNo = binary.BigEndian.Uint32(b)
	copy(p.HWAddr[:], b[8:14])
	copy(p.Name[:], b[16:32])
	p.Config = binary.BigEndian.Uint32(b[32:])
	p.State = binary.BigEndian.Uint32(b[36:])
	u := func(i int) uint32 { return binary.BigEndian.Uint32(prop[8+4*i:]) }
	p.Curr, p.Advertised, p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed = u(0), u(1), u(2), u(3), u(4), u(5)
	return nil
}

// String formats p like ovs-ofctl show.
func (p *Port) String() string {
	return fmt.Sprintf("%d(%s): addr:%02x:%02x:%02x:%02x:%02x:%02x", p.PortNo, p.NameString(),
		p.HWAddr[0], p.HWAddr[1], p.HWAddr[2], p.HWAddr[3], p.HWAddr[4], p.HWAddr[5])
}
