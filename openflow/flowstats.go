package openflow

import (
	"encoding/binary"
	"fmt"
)

// FlowStatsRequest is ofp_flow_stats_request, also used for OFPMP_AGGREGATE
// (OpenFlow 1.3.5 §7.3.5.2).
type FlowStatsRequest struct {
	TableID    uint8 // TableAll for all tables
	OutPort    uint32
	OutGroup   uint32
	Cookie     uint64
	CookieMask uint64
	Match      Match
}

// appendTo appends f, the body of an OFPMP_FLOW or OFPMP_AGGREGATE request.
func (f *FlowStatsRequest) appendTo(dst []byte) ([]byte, error) {
	dst = append(dst, f.TableID, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, f.OutPort)
	dst = binary.BigEndian.AppendUint32(dst, f.OutGroup)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint64(dst, f.Cookie)
	dst = binary.BigEndian.AppendUint64(dst, f.CookieMask)
	return f.Match.AppendBinary(dst)
}

// decode decodes the body of an OFPMP_FLOW or OFPMP_AGGREGATE request;
// errors give offsets in the message.
func (f *FlowStatsRequest) decode(body []byte) error {
	const t = TypeMultipartRequest
	if len(body) < 40 {
		return &DecodeError{Type: t, Field: "body", Offset: 16, Err: ErrBadLength}
	}
	f.TableID = body[0]
	f.OutPort = binary.BigEndian.Uint32(body[4:])
	f.OutGroup = binary.BigEndian.Uint32(body[8:])
	f.Cookie = binary.BigEndian.Uint64(body[16:])
	f.CookieMask = binary.BigEndian.Uint64(body[24:])
	n, err := f.Match.decode(body[32:])
	if err != nil {
		return decodeCtx(err, t, 48)
	}
	if 32+n != len(body) {
		return &DecodeError{Type: t, Field: "match.length", Offset: 50, Err: ErrBadLength}
	}
	return nil
}

// FlowStats is ofp_flow_stats, one entry of an OFPMP_FLOW reply (OpenFlow
// 1.3.5 §7.3.5.2). Importance is OpenFlow 1.4's field in what 1.3 pads
// (1.4.1 §7.3.5.2): it is encoded and decoded only in replies of version
// 1.4 or later.
type FlowStats struct {
	TableID      uint8
	DurationSec  uint32
	DurationNsec uint32
	Priority     uint16
	IdleTimeout  uint16
	HardTimeout  uint16
	Flags        uint16
	Importance   uint16 // OpenFlow 1.4 only
	Cookie       uint64
	PacketCount  uint64
	ByteCount    uint64
	Match        Match
	Instructions []Instruction
}

const flowStatsFixedLen = 48

// appendTo appends s as a reply of version v has it.
func (s *FlowStats) appendTo(dst []byte, v uint8) ([]byte, error) {
	start := len(dst)
	be := binary.BigEndian
	dst = append(dst, 0, 0, s.TableID, 0)
	dst = be.AppendUint32(dst, s.DurationSec)
	dst = be.AppendUint32(dst, s.DurationNsec)
	dst = be.AppendUint16(dst, s.Priority)
	dst = be.AppendUint16(dst, s.IdleTimeout)
	dst = be.AppendUint16(dst, s.HardTimeout)
	dst = be.AppendUint16(dst, s.Flags)
	imp := s.Importance
	if v < Version14 {
		imp = 0
	}
	dst = be.AppendUint16(dst, imp)
	dst = append(dst, 0, 0)
	dst = be.AppendUint64(dst, s.Cookie)
	dst = be.AppendUint64(dst, s.PacketCount)
	dst = be.AppendUint64(dst, s.ByteCount)
	var err error
	if dst, err = s.Match.AppendBinary(dst); err != nil {
		return dst[:start], err
	}
	if dst, err = appendInstructions(dst, s.Instructions); err != nil {
		return dst[:start], err
	}
	if len(dst)-start > 0xffff {
		return dst[:start], &EncodeError{Field: "flow_stats.length", Err: ErrTooLong}
	}
	be.PutUint16(dst[start:], uint16(len(dst)-start))
	return dst, nil
}

// decode reads one ofp_flow_stats of a reply of version v from the start
// of b; errors are relative to b.
func (s *FlowStats) decode(b []byte, v uint8) (int, error) {
	be := binary.BigEndian
	if len(b) < flowStatsFixedLen+8 {
		return 0, &DecodeError{Field: "length", Offset: 0, Err: ErrBadLength}
	}
	n := int(be.Uint16(b))
	if n < flowStatsFixedLen+8 || n > len(b) {
		return 0, &DecodeError{Field: "length", Offset: 0, Err: ErrBadLength}
	}
	b = b[:n]
	s.TableID = b[2]
	s.DurationSec = be.Uint32(b[4:])
	s.DurationNsec = be.Uint32(b[8:])
	s.Priority = be.Uint16(b[12:])
	s.IdleTimeout = be.Uint16(b[14:])
	s.HardTimeout = be.Uint16(b[16:])
	s.Flags = be.Uint16(b[18:])
	s.Importance = 0
	if v >= Version14 {
		s.Importance = be.Uint16(b[20:])
	}
	s.Cookie = be.Uint64(b[24:])
	s.PacketCount = be.Uint64(b[32:])
	s.ByteCount = be.Uint64(b[40:])
	k, err := s.Match.decode(b[flowStatsFixedLen:])
	if err != nil {
		return 0, decodeCtx(err, 0, flowStatsFixedLen)
	}
	if err := decodeInstructions(&s.Instructions, b[flowStatsFixedLen+k:], flowStatsFixedLen+k); err != nil {
		return 0, err
	}
	return n, nil
}

// decodeFlows decodes the body of an OFPMP_FLOW reply, reusing m.Flows.
func (m *MultipartReply) decodeFlows(body []byte) error {
	m.Flows = m.Flows[:0]
	for off, i := 0, 0; off < len(body); i++ {
		if cap(m.Flows) > len(m.Flows) {
			m.Flows = m.Flows[:len(m.Flows)+1]
		} else {
			m.Flows = append(m.Flows, FlowStats{})
		}
		n, err := m.Flows[len(m.Flows)-1].decode(body[off:], m.Version)
		if err != nil {
			de := err.(*DecodeError)
			de.Field = fmt.Sprintf("flows[%d].%s", i, de.Field)
			return decodeCtx(err, TypeMultipartReply, 16+off)
		}
		off += n
	}
	return nil
}

// AggregateStats is ofp_aggregate_stats_reply (OpenFlow 1.3.5 §7.3.5.3).
type AggregateStats struct {
	PacketCount uint64
	ByteCount   uint64
	FlowCount   uint32
}

// appendTo appends s, the body of an OFPMP_AGGREGATE reply.
func (s *AggregateStats) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint64(dst, s.PacketCount)
	dst = be.AppendUint64(dst, s.ByteCount)
	dst = be.AppendUint32(dst, s.FlowCount)
	return append(dst, 0, 0, 0, 0)
}

// decodeAggregate decodes the body of an OFPMP_AGGREGATE reply.
func (m *MultipartReply) decodeAggregate(body []byte) error {
	be := binary.BigEndian
	if len(body) != 24 {
		return replyBad("body", 0)
	}
	m.Aggregate = AggregateStats{be.Uint64(body), be.Uint64(body[8:]), be.Uint32(body[16:])}
	return nil
}
