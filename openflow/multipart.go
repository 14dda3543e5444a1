package openflow

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// MultipartType is ofp_multipart_request.type (OpenFlow 1.3.5 §7.3.5, enum
// ofp_multipart_type).
type MultipartType uint16

// Multipart types.
const (
	MultipartDesc          MultipartType = 0      // OFPMP_DESC
	MultipartFlow          MultipartType = 1      // OFPMP_FLOW
	MultipartAggregate     MultipartType = 2      // OFPMP_AGGREGATE
	MultipartTable         MultipartType = 3      // OFPMP_TABLE
	MultipartPortStats     MultipartType = 4      // OFPMP_PORT_STATS
	MultipartQueue         MultipartType = 5      // OFPMP_QUEUE
	MultipartGroup         MultipartType = 6      // OFPMP_GROUP
	MultipartGroupDesc     MultipartType = 7      // OFPMP_GROUP_DESC
	MultipartGroupFeatures MultipartType = 8      // OFPMP_GROUP_FEATURES
	MultipartMeter         MultipartType = 9      // OFPMP_METER
	MultipartMeterConfig   MultipartType = 10     // OFPMP_METER_CONFIG
	MultipartMeterFeatures MultipartType = 11     // OFPMP_METER_FEATURES
	MultipartTableFeatures MultipartType = 12     // OFPMP_TABLE_FEATURES
	MultipartPortDesc      MultipartType = 13     // OFPMP_PORT_DESC
	MultipartTableDesc     MultipartType = 14     // OFPMP_TABLE_DESC (OpenFlow 1.4)
	MultipartQueueDesc     MultipartType = 15     // OFPMP_QUEUE_DESC (OpenFlow 1.4)
	MultipartExperimenter  MultipartType = 0xffff // OFPMP_EXPERIMENTER
)

// String returns the spec name, e.g. "OFPMP_FLOW".
func (t MultipartType) String() string {
	if t == MultipartExperimenter {
		return "OFPMP_EXPERIMENTER"
	}
	return enumName([]string{"OFPMP_DESC", "OFPMP_FLOW", "OFPMP_AGGREGATE", "OFPMP_TABLE",
		"OFPMP_PORT_STATS", "OFPMP_QUEUE", "OFPMP_GROUP", "OFPMP_GROUP_DESC", "OFPMP_GROUP_FEATURES",
		"OFPMP_METER", "OFPMP_METER_CONFIG", "OFPMP_METER_FEATURES", "OFPMP_TABLE_FEATURES",
		"OFPMP_PORT_DESC", "OFPMP_TABLE_DESC", "OFPMP_QUEUE_DESC"}, int(t), "OFPMP_")
}

// Multipart flags (OpenFlow 1.3.5 §7.3.5): more parts follow.
const (
	MultipartRequestMore uint16 = 1 // OFPMPF_REQ_MORE
	MultipartReplyMore   uint16 = 1 // OFPMPF_REPLY_MORE
)

// MultipartRequest is an OFPT_MULTIPART_REQUEST (OpenFlow 1.3.5 §7.3.5).
// Part selects the body, a tagged union over the other fields:
//
//	MultipartFlow, MultipartAggregate  Flow
//	MultipartPortStats                 PortNo
//	MultipartQueue, MultipartQueueDesc PortNo, QueueID
//	MultipartGroup                     GroupID
//	MultipartMeter, MultipartMeterConfig  MeterID
//	MultipartTableFeatures             TableFeatures (empty: query only)
//	MultipartExperimenter              Experimenter, ExpType, Data
//
// DESC, TABLE, GROUP_DESC, GROUP_FEATURES, METER_FEATURES, PORT_DESC and
// TABLE_DESC have empty bodies.
type MultipartRequest struct {
	Header
	Part          MultipartType
	Flags         uint16 // MultipartRequestMore
	Flow          FlowStatsRequest
	PortNo        uint32
	QueueID       uint32
	GroupID       uint32
	MeterID       uint32
	TableFeatures []TableFeatures
	Experimenter  uint32
	ExpType       uint32
	Data          []byte
}

// AppendBinary appends the wire form of m to dst.
func (m *MultipartRequest) AppendBinary(dst []byte) ([]byte, error) {
	const t = TypeMultipartRequest
	start := len(dst)
	dst = appendHeader(dst, &m.Header, t)
	dst = binary.BigEndian.AppendUint16(dst, uint16(m.Part))
	dst = binary.BigEndian.AppendUint16(dst, m.Flags)
	dst = append(dst, 0, 0, 0, 0)
	var err error
	switch m.Part {
	case MultipartFlow, MultipartAggregate:
		dst, err = m.Flow.appendTo(dst)
	case MultipartPortStats:
		dst = binary.BigEndian.AppendUint32(dst, m.PortNo)
		dst = append(dst, 0, 0, 0, 0)
	case MultipartQueue, MultipartQueueDesc:
		dst = binary.BigEndian.AppendUint32(dst, m.PortNo)
		dst = binary.BigEndian.AppendUint32(dst, m.QueueID)
	case MultipartGroup:
		dst = binary.BigEndian.AppendUint32(dst, m.GroupID)
		dst = append(dst, 0, 0, 0, 0)
	case MultipartMeter, MultipartMeterConfig:
		dst = binary.BigEndian.AppendUint32(dst, m.MeterID)
		dst = append(dst, 0, 0, 0, 0)
	case MultipartTableFeatures:
		dst, err = appendTableFeatures(dst, m.TableFeatures)
	case MultipartExperimenter:
		dst = binary.BigEndian.AppendUint32(dst, m.Experimenter)
		dst = binary.BigEndian.AppendUint32(dst, m.ExpType)
		dst = append(dst, m.Data...)
	case MultipartDesc, MultipartTable, MultipartGroupDesc, MultipartGroupFeatures, MultipartMeterFeatures, MultipartPortDesc, MultipartTableDesc:
	default:
		return dst[:start], &EncodeError{Type: t, Field: "type", Err: ErrBadMultipart}
	}
	if err != nil {
		return dst[:start], encodeCtx(err, t)
	}
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *MultipartRequest) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one MULTIPART_REQUEST.
func (m *MultipartRequest) UnmarshalBinary(b []byte) error {
	const t = TypeMultipartRequest
	if err := decodeHeader(&m.Header, b, t, 16); err != nil {
		return err
	}
	m.Part = MultipartType(binary.BigEndian.Uint16(b[8:]))
	m.Flags = binary.BigEndian.Uint16(b[10:])
	// Clear what a previous decode of another part left, keeping capacity.
	m.Flow.TableID, m.Flow.OutPort, m.Flow.OutGroup, m.Flow.Cookie, m.Flow.CookieMask = 0, 0, 0, 0, 0
	m.Flow.Match.Fields = m.Flow.Match.Fields[:0]
	m.PortNo, m.QueueID, m.GroupID, m.MeterID, m.Experimenter, m.ExpType = 0, 0, 0, 0, 0, 0
	m.TableFeatures, m.Data = m.TableFeatures[:0], m.Data[:0]
	body := b[16:]
	fixed := func(n int) error {
		if len(body) != n {
			return &DecodeError{Type: t, Field: "body", Offset: 16, Err: ErrBadLength}
		}
		return nil
	}
	switch m.Part {
	case MultipartFlow, MultipartAggregate:
		return m.Flow.decode(body)
	case MultipartPortStats:
		if err := fixed(8); err != nil {
			return err
		}
		m.PortNo = binary.BigEndian.Uint32(body)
	case MultipartQueue, MultipartQueueDesc:
		if err := fixed(8); err != nil {
			return err
		}
		m.PortNo = binary.BigEndian.Uint32(body)
		m.QueueID = binary.BigEndian.Uint32(body[4:])
	case MultipartGroup:
		if err := fixed(8); err != nil {
			return err
		}
		m.GroupID = binary.BigEndian.Uint32(body)
	case MultipartMeter, MultipartMeterConfig:
		if err := fixed(8); err != nil {
			return err
		}
		m.MeterID = binary.BigEndian.Uint32(body)
	case MultipartTableFeatures:
		if err := decodeTableFeatures(&m.TableFeatures, body, 16); err != nil {
			return decodeCtx(err, t, 0)
		}
	case MultipartExperimenter:
		if len(body) < 8 {
			return &DecodeError{Type: t, Field: "body", Offset: 16, Err: ErrBadLength}
		}
		m.Experimenter = binary.BigEndian.Uint32(body)
		m.ExpType = binary.BigEndian.Uint32(body[4:])
		m.Data = append(m.Data[:0], body[8:]...)
	case MultipartDesc, MultipartTable, MultipartGroupDesc, MultipartGroupFeatures, MultipartMeterFeatures, MultipartPortDesc, MultipartTableDesc:
		return fixed(0)
	default:
		return &DecodeError{Type: t, Field: "type", Offset: 8, Err: ErrBadMultipart}
	}
	return nil
}

// Counter is a (packets, bytes) pair: ofp_bucket_counter and
// ofp_meter_band_stats.
type Counter struct {
	PacketCount uint64
	ByteCount   uint64
}

// MultipartReply is an OFPT_MULTIPART_REPLY (OpenFlow 1.3.5 §7.3.5). Part
// selects which body field is meaningful (Desc, Flows, Aggregate, Tables,
// Ports, Queues, Groups, GroupDescs, GroupFeatures, Meters, MeterConfigs,
// MeterFeatures, TableFeatures, PortDescs, or Experimenter/ExpType/Data).
// Flags carries MultipartReplyMore on every part but the last.
type MultipartReply struct {
	Header
	Part          MultipartType
	Flags         uint16
	Desc          Desc
	Flows         []FlowStats
	Aggregate     AggregateStats
	Tables        []TableStats
	Ports         []PortStats
	Queues        []QueueStats
	Groups        []GroupStats
	GroupDescs    []GroupDesc
	GroupFeatures GroupFeatures
	Meters        []MeterStats
	MeterConfigs  []MeterConfig
	MeterFeatures MeterFeatures
	TableFeatures []TableFeatures
	PortDescs     []Port
	TableDescs    []TableDesc // OpenFlow 1.4
	QueueDescs    []QueueDesc // OpenFlow 1.4
	Experimenter  uint32
	ExpType       uint32
	Data          []byte
}

// AppendBinary appends the wire form of m to dst as one message; see
// AppendSplit for bodies that may not fit.
func (m *MultipartReply) AppendBinary(dst []byte) ([]byte, error) {
	const t = TypeMultipartReply
	start := len(dst)
	dst = m.appendPartHeader(dst, m.Flags)
	var err error
	if n := m.entryCount(); n >= 0 {
		for i := 0; i < n && err == nil; i++ {
			dst, err = m.appendEntry(dst, i)
		}
	} else {
		dst, err = m.appendSingleBody(dst)
	}
	if err != nil {
		return dst[:start], encodeCtx(err, t)
	}
	return finish(dst, start, t)
}

// AppendSplit appends m as as many OFPT_MULTIPART_REPLY messages as its
// body needs (OpenFlow 1.3.5 §7.3.5): each at most maxLen bytes (0 means
// MaxMessageLen), whole entries only, OFPMPF_REPLY_MORE set on all but the
// last. Bodies that are not lists (DESC, AGGREGATE, GROUP_FEATURES,
// METER_FEATURES, EXPERIMENTER) go out as one message. It returns how many
// messages it appended.
func (m *MultipartReply) AppendSplit(dst []byte, maxLen int) ([]byte, int, error) {
	const t = TypeMultipartReply
	if maxLen <= 0 || maxLen > MaxMessageLen {
		maxLen = MaxMessageLen
	}
	n := m.entryCount()
	if n < 0 {
		dst, err := m.AppendBinary(dst)
		return dst, 1, err
	}
	msgs := 0
	for i := 0; ; {
		start := len(dst)
		dst = m.appendPartHeader(dst, m.Flags&^MultipartReplyMore)
		count := 0
		for ; i < n; i++ {
			before := len(dst)
			var err error
			if dst, err = m.appendEntry(dst, i); err != nil {
				return dst[:start], msgs, encodeCtx(err, t)
			}
			if len(dst)-start > maxLen {
				if count == 0 {
					return dst[:start], msgs, &EncodeError{Type: t, Field: fmt.Sprintf("entry[%d]", i), Err: ErrTooLong}
				}
				dst = dst[:before]
				break
			}
			count++
		}
		if i < n {
			binary.BigEndian.PutUint16(dst[start+10:], m.Flags|MultipartReplyMore)
		}
		binary.BigEndian.PutUint16(dst[start+2:], uint16(len(dst)-start))
		msgs++
		if i >= n {
			return dst, msgs, nil
		}
	}
}

func (m *MultipartReply) appendPartHeader(dst []byte, flags uint16) []byte {
	dst = appendHeader(dst, &m.Header, TypeMultipartReply)
	dst = binary.BigEndian.AppendUint16(dst, uint16(m.Part))
	dst = binary.BigEndian.AppendUint16(dst, flags)
	return append(dst, 0, 0, 0, 0)
}

// entryCount returns the number of entries of a list body, or -1 for the
// other parts.
func (m *MultipartReply) entryCount() int {
	switch m.Part {
	case MultipartFlow:
		return len(m.Flows)
	case MultipartTable:
		return len(m.Tables)
	case MultipartPortStats:
		return len(m.Ports)
	case MultipartQueue:
		return len(m.Queues)
	case MultipartGroup:
		return len(m.Groups)
	case MultipartGroupDesc:
		return len(m.GroupDescs)
	case MultipartMeter:
		return len(m.Meters)
	case MultipartMeterConfig:
		return len(m.MeterConfigs)
	case MultipartTableFeatures:
		return len(m.TableFeatures)
	case MultipartPortDesc:
		return len(m.PortDescs)
	case MultipartTableDesc:
		return len(m.TableDescs)
	case MultipartQueueDesc:
		return len(m.QueueDescs)
	}
	return -1
}

// appendEntry appends entry i of a list body.
func (m *MultipartReply) appendEntry(dst []byte, i int) ([]byte, error) {
	switch m.Part {
	case MultipartFlow:
		return m.Flows[i].appendTo(dst, m.Version)
	case MultipartTable:
		return m.Tables[i].appendTo(dst), nil
	case MultipartPortStats:
		if m.Version >= Version14 {
			return m.Ports[i].appendTo14(dst), nil
		}
		return m.Ports[i].appendTo(dst), nil
	case MultipartQueue:
		return m.Queues[i].appendTo(dst), nil
	case MultipartGroup:
		return m.Groups[i].appendTo(dst), nil
	case MultipartGroupDesc:
		return m.GroupDescs[i].appendTo(dst)
	case MultipartMeter:
		return m.Meters[i].appendTo(dst), nil
	case MultipartMeterConfig:
		return m.MeterConfigs[i].appendTo(dst), nil
	case MultipartTableFeatures:
		return appendTableFeatures(dst, m.TableFeatures[i:i+1])
	case MultipartPortDesc:
		if m.Version >= Version14 {
			return m.PortDescs[i].appendTo14(dst), nil
		}
		return m.PortDescs[i].appendTo(dst), nil
	case MultipartTableDesc:
		return m.TableDescs[i].appendTo(dst, i)
	case MultipartQueueDesc:
		return m.QueueDescs[i].appendTo(dst, i)
	}
	return dst, &EncodeError{Field: "type", Err: ErrBadMultipart}
}

// appendSingleBody appends a body that is not a list.
func (m *MultipartReply) appendSingleBody(dst []byte) ([]byte, error) {
	be := binary.BigEndian
	switch m.Part {
	case MultipartDesc:
		return m.Desc.appendTo(dst), nil
	case MultipartAggregate:
		return m.Aggregate.appendTo(dst), nil
	case MultipartGroupFeatures:
		return m.GroupFeatures.appendTo(dst), nil
	case MultipartMeterFeatures:
		return m.MeterFeatures.appendTo(dst), nil
	case MultipartExperimenter:
		dst = be.AppendUint32(dst, m.Experimenter)
		dst = be.AppendUint32(dst, m.ExpType)
		return append(dst, m.Data...), nil
	}
	return dst, &EncodeError{Field: "type", Err: ErrBadMultipart}
}

// MarshalBinary returns the wire form of m.
func (m *MultipartReply) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one MULTIPART_REPLY, reusing m's slices.
func (m *MultipartReply) UnmarshalBinary(b []byte) error {
	const t = TypeMultipartReply
	if err := decodeHeader(&m.Header, b, t, 16); err != nil {
		return err
	}
	be := binary.BigEndian
	m.Part = MultipartType(be.Uint16(b[8:]))
	m.Flags = be.Uint16(b[10:])
	// Clear what a previous decode of another part left, keeping capacity.
	m.Desc, m.Aggregate, m.GroupFeatures, m.MeterFeatures = Desc{}, AggregateStats{}, GroupFeatures{}, MeterFeatures{}
	m.Flows, m.Tables, m.Ports, m.Queues = m.Flows[:0], m.Tables[:0], m.Ports[:0], m.Queues[:0]
	m.Groups, m.GroupDescs, m.Meters, m.MeterConfigs = m.Groups[:0], m.GroupDescs[:0], m.Meters[:0], m.MeterConfigs[:0]
	m.TableFeatures, m.PortDescs, m.Data = m.TableFeatures[:0], m.PortDescs[:0], m.Data[:0]
	m.TableDescs, m.QueueDescs = m.TableDescs[:0], m.QueueDescs[:0]
	m.Experimenter, m.ExpType = 0, 0
	body := b[16:]
	switch m.Part {
	case MultipartDesc:
		return m.decodeDesc(body)
	case MultipartFlow:
		return m.decodeFlows(body)
	case MultipartAggregate:
		return m.decodeAggregate(body)
	case MultipartTable:
		return m.decodeTables(body)
	case MultipartPortStats:
		return m.decodePorts(body)
	case MultipartQueue:
		return m.decodeQueues(body)
	case MultipartGroup:
		return m.decodeGroups(body)
	case MultipartGroupDesc:
		return m.decodeGroupDescs(body)
	case MultipartGroupFeatures:
		return m.decodeGroupFeatures(body)
	case MultipartMeter:
		return m.decodeMeters(body)
	case MultipartMeterConfig:
		return m.decodeMeterConfigs(body)
	case MultipartMeterFeatures:
		return m.decodeMeterFeatures(body)
	case MultipartTableFeatures:
		if err := decodeTableFeatures(&m.TableFeatures, body, 16); err != nil {
			return decodeCtx(err, t, 0)
		}
	case MultipartPortDesc:
		return m.decodePortDescs(body)
	case MultipartTableDesc:
		return m.decodeTableDescs(body)
	case MultipartQueueDesc:
		return m.decodeQueueDescs(body)
	case MultipartExperimenter:
		if len(body) < 8 {
			return replyBad("body", 0)
		}
		m.Experimenter = be.Uint32(body)
		m.ExpType = be.Uint32(body[4:])
		m.Data = append(m.Data[:0], body[8:]...)
	default:
		return &DecodeError{Type: t, Field: "type", Offset: 8, Err: ErrBadMultipart}
	}
	return nil
}

// eachEntry14 calls fn with each entry of an OpenFlow 1.4 multipart reply
// body: a list of entries that each give their own 16-bit length at
// lenOff, at least min, a multiple of 8, within the body. An error, fn's
// or the walk's, names the entry of list, and its offset (relative to the
// entry) becomes one in the message.
func eachEntry14(body []byte, lenOff, min int, list string, fn func(e []byte) error) error {
	for off, i := 0, 0; off < len(body); i++ {
		b := body[off:]
		n := 0
		var err error
		if len(b) < min {
			err = &DecodeError{Field: "length", Err: ErrBadLength}
		} else if n = int(binary.BigEndian.Uint16(b[lenOff:])); n < min || n%8 != 0 || n > len(b) {
			err = &DecodeError{Field: "length", Offset: lenOff, Err: ErrBadLength}
		} else {
			err = fn(b[:n])
		}
		if err != nil {
			if de, ok := err.(*DecodeError); ok {
				de.Field = fmt.Sprintf("%s[%d].%s", list, i, de.Field)
			}
			return decodeCtx(err, TypeMultipartReply, 16+off)
		}
		off += n
	}
	return nil
}

// cloneOrNil returns a copy of b, or nil when b is empty.
func cloneOrNil(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return bytes.Clone(b)
}

// replyBad reports a MULTIPART_REPLY body field of the wrong length; off
// is relative to the body.
func replyBad(field string, off int) error {
	return &DecodeError{Type: TypeMultipartReply, Field: field, Offset: 16 + off, Err: ErrBadLength}
}

// replyEntries returns how many size-byte entries body holds, or an error
// if it is not a whole number of them.
func replyEntries(body []byte, size int) (int, error) {
	if len(body)%size != 0 {
		return 0, replyBad("body", len(body)-len(body)%size)
	}
	return len(body) / size, nil
}
