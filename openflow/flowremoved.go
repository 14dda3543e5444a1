package openflow

import "encoding/binary"

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
