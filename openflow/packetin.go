package openflow

import "encoding/binary"

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
