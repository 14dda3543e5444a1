package openflow

import "encoding/binary"

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
