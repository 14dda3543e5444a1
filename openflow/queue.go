package openflow

import (
	"encoding/binary"
	"fmt"
)

// QueueAll is OFPQ_ALL, the queue id that names every queue of a port in
// queue statistics requests (OpenFlow 1.3.5 §7.3.5.8).
const QueueAll uint32 = 0xffffffff

// QueueGetConfigRequest is an OFPT_QUEUE_GET_CONFIG_REQUEST (OpenFlow 1.3.5
// §7.3.6).
type QueueGetConfigRequest struct {
	Header
	Port uint32 // PortAny for all ports
}

// AppendBinary appends the wire form of m to dst.
func (m *QueueGetConfigRequest) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeQueueGetConfigRequest)
	dst = binary.BigEndian.AppendUint32(dst, m.Port)
	dst = append(dst, 0, 0, 0, 0)
	return finish(dst, start, TypeQueueGetConfigRequest)
}

// MarshalBinary returns the wire form of m.
func (m *QueueGetConfigRequest) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one QUEUE_GET_CONFIG_REQUEST.
func (m *QueueGetConfigRequest) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeQueueGetConfigRequest, 16); err != nil {
		return err
	}
	if len(b) != 16 {
		return &DecodeError{Type: TypeQueueGetConfigRequest, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	m.Port = binary.BigEndian.Uint32(b[8:])
	return nil
}

// Queue property types (OpenFlow 1.3.5 §7.3.6, enum ofp_queue_properties).
const (
	QueuePropMinRate      uint16 = 1      // OFPQT_MIN_RATE
	QueuePropMaxRate      uint16 = 2      // OFPQT_MAX_RATE
	QueuePropExperimenter uint16 = 0xffff // OFPQT_EXPERIMENTER
)

// QueueProp is one queue property: Rate (in 1/10 %) for MIN_RATE and
// MAX_RATE, Experimenter and Data for EXPERIMENTER.
type QueueProp struct {
	Type         uint16
	Rate         uint16
	Experimenter uint32
	Data         []byte
}

// PacketQueue is ofp_packet_queue (OpenFlow 1.3.5 §7.3.6).
type PacketQueue struct {
	QueueID    uint32
	Port       uint32
	Properties []QueueProp
}

// QueueGetConfigReply is an OFPT_QUEUE_GET_CONFIG_REPLY (OpenFlow 1.3.5
// §7.3.6).
type QueueGetConfigReply struct {
	Header
	Port   uint32
	Queues []PacketQueue
}

// AppendBinary appends the wire form of m to dst.
func (m *QueueGetConfigReply) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeQueueGetConfigReply)
	dst = binary.BigEndian.AppendUint32(dst, m.Port)
	dst = append(dst, 0, 0, 0, 0)
	for i := range m.Queues {
		q := &m.Queues[i]
		qs := len(dst)
		dst = binary.BigEndian.AppendUint32(dst, q.QueueID)
		dst = binary.BigEndian.AppendUint32(dst, q.Port)
		dst = append(dst, 0, 0, 0, 0, 0, 0, 0, 0)
		for _, p := range q.Properties {
			ps := len(dst)
			dst = binary.BigEndian.AppendUint16(dst, p.Type)
			dst = append(dst, 0, 0, 0, 0, 0, 0)
			if p.Type == QueuePropExperimenter {
				dst = binary.BigEndian.AppendUint32(dst, p.Experimenter)
				dst = append(dst, 0, 0, 0, 0)
				dst = append(dst, p.Data...)
			} else {
				dst = binary.BigEndian.AppendUint16(dst, p.Rate)
				dst = append(dst, 0, 0, 0, 0, 0, 0)
			}
			binary.BigEndian.PutUint16(dst[ps+2:], uint16(len(dst)-ps))
		}
		if len(dst)-qs > 0xffff {
			return dst[:start], &EncodeError{Type: TypeQueueGetConfigReply, Field: "queues.len", Err: ErrTooLong}
		}
		binary.BigEndian.PutUint16(dst[qs+8:], uint16(len(dst)-qs))
	}
	return finish(dst, start, TypeQueueGetConfigReply)
}

// MarshalBinary returns the wire form of m.
func (m *QueueGetConfigReply) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one QUEUE_GET_CONFIG_REPLY.
func (m *QueueGetConfigReply) UnmarshalBinary(b []byte) error {
	const t = TypeQueueGetConfigReply
	if err := decodeHeader(&m.Header, b, t, 16); err != nil {
		return err
	}
	m.Port = binary.BigEndian.Uint32(b[8:])
	m.Queues = m.Queues[:0]
	for off, i := 16, 0; off < len(b); i++ {
		if len(b)-off < 16 {
			return &DecodeError{Type: t, Field: fmt.Sprintf("queues[%d]", i), Offset: off, Err: ErrBadLength}
		}
		n := int(binary.BigEndian.Uint16(b[off+8:]))
		if n < 16 || off+n > len(b) {
			return &DecodeError{Type: t, Field: fmt.Sprintf("queues[%d].len", i), Offset: off + 8, Err: ErrBadLength}
		}
		q := PacketQueue{QueueID: binary.BigEndian.Uint32(b[off:]), Port: binary.BigEndian.Uint32(b[off+4:])}
		for po, j := off+16, 0; po < off+n; j++ {
			if off+n-po < 16 {
				return &DecodeError{Type: t, Field: fmt.Sprintf("queues[%d].properties[%d]", i, j), Offset: po, Err: ErrBadQueueProperty}
			}
			typ := binary.BigEndian.Uint16(b[po:])
			pl := int(binary.BigEndian.Uint16(b[po+2:]))
			if pl < 16 || po+pl > off+n || (typ != QueuePropExperimenter && pl != 16) {
				return &DecodeError{Type: t, Field: fmt.Sprintf("queues[%d].properties[%d].len", i, j), Offset: po + 2, Err: ErrBadQueueProperty}
			}
			p := QueueProp{Type: typ}
			if typ == QueuePropExperimenter {
				p.Experimenter = binary.BigEndian.Uint32(b[po+8:])
				p.Data = append([]byte(nil), b[po+16:po+pl]...)
			} else {
				p.Rate = binary.BigEndian.Uint16(b[po+8:])
			}
			q.Properties = append(q.Properties, p)
			po += pl
		}
		m.Queues = append(m.Queues, q)
		off += n
	}
	return nil
}

// QueueStats is ofp_queue_stats (OpenFlow 1.3.5 §7.3.5.8).
type QueueStats struct {
	PortNo       uint32
	QueueID      uint32
	TxBytes      uint64
	TxPackets    uint64
	TxErrors     uint64
	DurationSec  uint32
	DurationNsec uint32
}

// appendTo appends s as an entry of an OFPMP_QUEUE reply.
func (s *QueueStats) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint32(dst, s.PortNo)
	dst = be.AppendUint32(dst, s.QueueID)
	dst = be.AppendUint64(dst, s.TxBytes)
	dst = be.AppendUint64(dst, s.TxPackets)
	dst = be.AppendUint64(dst, s.TxErrors)
	dst = be.AppendUint32(dst, s.DurationSec)
	return be.AppendUint32(dst, s.DurationNsec)
}

// decodeQueues decodes the body of an OFPMP_QUEUE reply, reusing m.Queues.
func (m *MultipartReply) decodeQueues(body []byte) error {
	be := binary.BigEndian
	n, err := replyEntries(body, 40)
	if err != nil {
		return err
	}
	m.Queues = m.Queues[:0]
	for i := 0; i < n; i++ {
		e := body[40*i:]
		m.Queues = append(m.Queues, QueueStats{be.Uint32(e), be.Uint32(e[4:]), be.Uint64(e[8:]), be.Uint64(e[16:]),
			be.Uint64(e[24:]), be.Uint32(e[32:]), be.Uint32(e[36:])})
	}
	return nil
}

// QueueDesc is ofp_queue_desc, an entry of the OFPMP_QUEUE_DESC reply
// (OpenFlow 1.4.1 §7.3.5.16): a queue of a port and its properties, kept
// as they are on the wire.
type QueueDesc struct {
	PortNo     uint32
	QueueID    uint32
	Properties []byte // whole ofp_queue_desc_prop TLVs
}

// queueDescLen is the size of ofp_queue_desc without properties.
const queueDescLen = 16

// appendTo appends d as entry i of an OFPMP_QUEUE_DESC reply.
func (d *QueueDesc) appendTo(dst []byte, i int) ([]byte, error) {
	be := binary.BigEndian
	n := queueDescLen + len(d.Properties)
	if n > 0xffff || n%8 != 0 {
		return dst, &EncodeError{Field: fmt.Sprintf("queue_descs[%d].properties", i), Err: ErrBadLength}
	}
	dst = be.AppendUint32(dst, d.PortNo)
	dst = be.AppendUint32(dst, d.QueueID)
	dst = be.AppendUint16(dst, uint16(n))
	dst = append(dst, 0, 0, 0, 0, 0, 0)
	return append(dst, d.Properties...), nil
}

// decodeQueueDescs decodes the body of an OFPMP_QUEUE_DESC reply.
func (m *MultipartReply) decodeQueueDescs(body []byte) error {
	be := binary.BigEndian
	return eachEntry14(body, 8, queueDescLen, "queue_descs", func(e []byte) error {
		m.QueueDescs = append(m.QueueDescs, QueueDesc{PortNo: be.Uint32(e), QueueID: be.Uint32(e[4:]), Properties: cloneOrNil(e[queueDescLen:])})
		return nil
	})
}
