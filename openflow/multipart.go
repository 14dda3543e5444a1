package openflow

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/ofswitch/ofswitch/internal/wire"
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
		f := &m.Flow
		dst = append(dst, f.TableID, 0, 0, 0)
		dst = binary.BigEndian.AppendUint32(dst, f.OutPort)
		dst = binary.BigEndian.AppendUint32(dst, f.OutGroup)
		dst = append(dst, 0, 0, 0, 0)
		dst = binary.BigEndian.AppendUint64(dst, f.Cookie)
		dst = binary.BigEndian.AppendUint64(dst, f.CookieMask)
		dst, err = f.Match.AppendBinary(dst)
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
		if len(body) < 40 {
			return &DecodeError{Type: t, Field: "body", Offset: 16, Err: ErrBadLength}
		}
		f := &m.Flow
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

// Desc is ofp_desc, the OFPMP_DESC reply body (OpenFlow 1.3.5 §7.3.5.1):
// NUL-padded ASCII strings.
type Desc struct {
	MfrDesc   [256]byte
	HWDesc    [256]byte
	SWDesc    [256]byte
	SerialNum [32]byte
	DPDesc    [256]byte
}

// CString returns a NUL-padded field as a string.
func CString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
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

// AggregateStats is ofp_aggregate_stats_reply (OpenFlow 1.3.5 §7.3.5.3).
type AggregateStats struct {
	PacketCount uint64
	ByteCount   uint64
	FlowCount   uint32
}

// TableStats is ofp_table_stats (OpenFlow 1.3.5 §7.3.5.4).
type TableStats struct {
	TableID      uint8
	ActiveCount  uint32
	LookupCount  uint64
	MatchedCount uint64
}

// PortStats is ofp_port_stats (OpenFlow 1.3.5 §7.3.5.6).
type PortStats struct {
	PortNo       uint32
	RxPackets    uint64
	TxPackets    uint64
	RxBytes      uint64
	TxBytes      uint64
	RxDropped    uint64
	TxDropped    uint64
	RxErrors     uint64
	TxErrors     uint64
	RxFrameErr   uint64
	RxOverErr    uint64
	RxCRCErr     uint64
	Collisions   uint64
	DurationSec  uint32
	DurationNsec uint32
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

// OpenFlow 1.4 port statistics sizes (OpenFlow 1.4.1 §7.3.5.7): the
// counters of 1.3's ofp_port_stats but the Ethernet ones, which move into
// an OFPPSPT_ETHERNET property.
const (
	portStats14Len     = 80 // ofp_port_stats without properties
	portStats14EthLen  = 40 // ofp_port_stats_prop_ethernet
	portStats14EthType = 0  // OFPPSPT_ETHERNET
)

// appendTo14 appends s in OpenFlow 1.4's layout, with its Ethernet
// counters in an OFPPSPT_ETHERNET property.
func (s *PortStats) appendTo14(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint16(dst, portStats14Len+portStats14EthLen)
	dst = append(dst, 0, 0)
	dst = be.AppendUint32(dst, s.PortNo)
	dst = be.AppendUint32(dst, s.DurationSec)
	dst = be.AppendUint32(dst, s.DurationNsec)
	for _, c := range [...]uint64{s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes, s.RxDropped, s.TxDropped, s.RxErrors, s.TxErrors} {
		dst = be.AppendUint64(dst, c)
	}
	dst = be.AppendUint16(dst, portStats14EthType)
	dst = be.AppendUint16(dst, portStats14EthLen)
	dst = append(dst, 0, 0, 0, 0)
	for _, c := range [...]uint64{s.RxFrameErr, s.RxOverErr, s.RxCRCErr, s.Collisions} {
		dst = be.AppendUint64(dst, c)
	}
	return dst
}

// decode14 decodes an OpenFlow 1.4 ofp_port_stats that fills b: its
// properties may be one OFPPSPT_ETHERNET and no other (ErrBadProperty).
func (s *PortStats) decode14(b []byte) error {
	be := binary.BigEndian
	*s = PortStats{PortNo: be.Uint32(b[4:]), DurationSec: be.Uint32(b[8:]), DurationNsec: be.Uint32(b[12:])}
	c := func(k int) uint64 { return be.Uint64(b[16+8*k:]) }
	s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes = c(0), c(1), c(2), c(3)
	s.RxDropped, s.TxDropped, s.RxErrors, s.TxErrors = c(4), c(5), c(6), c(7)
	switch prop := b[portStats14Len:]; {
	case len(prop) == 0:
	case len(prop) == portStats14EthLen && be.Uint16(prop) == portStats14EthType && be.Uint16(prop[2:]) == portStats14EthLen:
		e := func(k int) uint64 { return be.Uint64(prop[8+8*k:]) }
		s.RxFrameErr, s.RxOverErr, s.RxCRCErr, s.Collisions = e(0), e(1), e(2), e(3)
	default:
		return &DecodeError{Field: "properties[0]", Offset: portStats14Len, Err: ErrBadProperty}
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

// Counter is a (packets, bytes) pair: ofp_bucket_counter and
// ofp_meter_band_stats.
type Counter struct {
	PacketCount uint64
	ByteCount   uint64
}

// GroupStats is ofp_group_stats (OpenFlow 1.3.5 §7.3.5.9).
type GroupStats struct {
	GroupID      uint32
	RefCount     uint32
	PacketCount  uint64
	ByteCount    uint64
	DurationSec  uint32
	DurationNsec uint32
	BucketStats  []Counter
}

// GroupDesc is ofp_group_desc (OpenFlow 1.3.5 §7.3.5.10).
type GroupDesc struct {
	Type    uint8
	GroupID uint32
	Buckets []Bucket
}

// GroupFeatures is ofp_group_features (OpenFlow 1.3.5 §7.3.5.11).
type GroupFeatures struct {
	Types        uint32
	Capabilities uint32
	MaxGroups    [4]uint32
	Actions      [4]uint32
}

// MeterStats is ofp_meter_stats (OpenFlow 1.3.5 §7.3.5.12).
type MeterStats struct {
	MeterID       uint32
	FlowCount     uint32
	PacketInCount uint64
	ByteInCount   uint64
	DurationSec   uint32
	DurationNsec  uint32
	BandStats     []Counter
}

// MeterConfig is ofp_meter_config (OpenFlow 1.3.5 §7.3.5.13).
type MeterConfig struct {
	Flags   uint16
	MeterID uint32
	Bands   []MeterBand
}

// MeterFeatures is ofp_meter_features (OpenFlow 1.3.5 §7.3.5.14).
type MeterFeatures struct {
	MaxMeter     uint32
	BandTypes    uint32
	Capabilities uint32
	MaxBands     uint8
	MaxColor     uint8
}

// TableDesc is ofp_table_desc, an entry of the OFPMP_TABLE_DESC reply
// (OpenFlow 1.4.1 §7.3.5.5.3): a table's configuration (OFPTC_EVICTION,
// OFPTC_VACANCY_EVENTS) and its properties, kept as they are on the wire.
type TableDesc struct {
	TableID    uint8
	Config     uint32
	Properties []byte // whole ofp_table_mod_prop TLVs
}

// QueueDesc is ofp_queue_desc, an entry of the OFPMP_QUEUE_DESC reply
// (OpenFlow 1.4.1 §7.3.5.16): a queue of a port and its properties, kept
// as they are on the wire.
type QueueDesc struct {
	PortNo     uint32
	QueueID    uint32
	Properties []byte // whole ofp_queue_desc_prop TLVs
}

// Entry sizes of the OpenFlow 1.4 description replies without properties.
const (
	tableDescLen = 8
	queueDescLen = 16
)

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
	be := binary.BigEndian
	switch m.Part {
	case MultipartFlow:
		return m.Flows[i].appendTo(dst, m.Version)
	case MultipartTable:
		s := &m.Tables[i]
		dst = append(dst, s.TableID, 0, 0, 0)
		dst = be.AppendUint32(dst, s.ActiveCount)
		dst = be.AppendUint64(dst, s.LookupCount)
		return be.AppendUint64(dst, s.MatchedCount), nil
	case MultipartPortStats:
		s := &m.Ports[i]
		if m.Version >= Version14 {
			return s.appendTo14(dst), nil
		}
		dst = be.AppendUint32(dst, s.PortNo)
		dst = append(dst, 0, 0, 0, 0)
		for _, c := range [...]uint64{s.RxPackets, s.TxPackets, s.RxBytes, s.TxBytes, s.RxDropped, s.TxDropped,
			s.RxErrors, s.TxErrors, s.RxFrameErr, s.RxOverErr, s.RxCRCErr, s.Collisions} {
			dst = be.AppendUint64(dst, c)
		}
		dst = be.AppendUint32(dst, s.DurationSec)
		return be.AppendUint32(dst, s.DurationNsec), nil
	case MultipartQueue:
		s := &m.Queues[i]
		dst = be.AppendUint32(dst, s.PortNo)
		dst = be.AppendUint32(dst, s.QueueID)
		dst = be.AppendUint64(dst, s.TxBytes)
		dst = be.AppendUint64(dst, s.TxPackets)
		dst = be.AppendUint64(dst, s.TxErrors)
		dst = be.AppendUint32(dst, s.DurationSec)
		return be.AppendUint32(dst, s.DurationNsec), nil
	case MultipartGroup:
		s := &m.Groups[i]
		dst = be.AppendUint16(dst, uint16(40+16*len(s.BucketStats)))
		dst = append(dst, 0, 0)
		dst = be.AppendUint32(dst, s.GroupID)
		dst = be.AppendUint32(dst, s.RefCount)
		dst = append(dst, 0, 0, 0, 0)
		dst = be.AppendUint64(dst, s.PacketCount)
		dst = be.AppendUint64(dst, s.ByteCount)
		dst = be.AppendUint32(dst, s.DurationSec)
		dst = be.AppendUint32(dst, s.DurationNsec)
		for _, c := range s.BucketStats {
			dst = be.AppendUint64(dst, c.PacketCount)
			dst = be.AppendUint64(dst, c.ByteCount)
		}
		return dst, nil
	case MultipartGroupDesc:
		g := &m.GroupDescs[i]
		gs := len(dst)
		dst = append(dst, 0, 0, g.Type, 0)
		dst = be.AppendUint32(dst, g.GroupID)
		dst, err := appendBuckets(dst, g.Buckets)
		if err != nil {
			return dst[:gs], err
		}
		be.PutUint16(dst[gs:], uint16(len(dst)-gs))
		return dst, nil
	case MultipartMeter:
		s := &m.Meters[i]
		dst = be.AppendUint32(dst, s.MeterID)
		dst = be.AppendUint16(dst, uint16(40+16*len(s.BandStats)))
		dst = append(dst, 0, 0, 0, 0, 0, 0)
		dst = be.AppendUint32(dst, s.FlowCount)
		dst = be.AppendUint64(dst, s.PacketInCount)
		dst = be.AppendUint64(dst, s.ByteInCount)
		dst = be.AppendUint32(dst, s.DurationSec)
		dst = be.AppendUint32(dst, s.DurationNsec)
		for _, c := range s.BandStats {
			dst = be.AppendUint64(dst, c.PacketCount)
			dst = be.AppendUint64(dst, c.ByteCount)
		}
		return dst, nil
	case MultipartMeterConfig:
		c := &m.MeterConfigs[i]
		cs := len(dst)
		dst = append(dst, 0, 0)
		dst = be.AppendUint16(dst, c.Flags)
		dst = be.AppendUint32(dst, c.MeterID)
		dst = appendBands(dst, c.Bands)
		be.PutUint16(dst[cs:], uint16(len(dst)-cs))
		return dst, nil
	case MultipartTableFeatures:
		return appendTableFeatures(dst, m.TableFeatures[i:i+1])
	case MultipartPortDesc:
		if m.Version >= Version14 {
			return m.PortDescs[i].appendTo14(dst), nil
		}
		return m.PortDescs[i].appendTo(dst), nil
	case MultipartTableDesc:
		d := &m.TableDescs[i]
		n := tableDescLen + len(d.Properties)
		if n > 0xffff || n%8 != 0 {
			return dst, &EncodeError{Field: fmt.Sprintf("table_descs[%d].properties", i), Err: ErrBadLength}
		}
		dst = be.AppendUint16(dst, uint16(n))
		dst = append(dst, d.TableID, 0)
		dst = be.AppendUint32(dst, d.Config)
		return append(dst, d.Properties...), nil
	case MultipartQueueDesc:
		d := &m.QueueDescs[i]
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
	return dst, &EncodeError{Field: "type", Err: ErrBadMultipart}
}

// appendSingleBody appends a body that is not a list.
func (m *MultipartReply) appendSingleBody(dst []byte) ([]byte, error) {
	be := binary.BigEndian
	switch m.Part {
	case MultipartDesc:
		d := &m.Desc
		dst = append(dst, d.MfrDesc[:]...)
		dst = append(dst, d.HWDesc[:]...)
		dst = append(dst, d.SWDesc[:]...)
		dst = append(dst, d.SerialNum[:]...)
		return append(dst, d.DPDesc[:]...), nil
	case MultipartAggregate:
		dst = be.AppendUint64(dst, m.Aggregate.PacketCount)
		dst = be.AppendUint64(dst, m.Aggregate.ByteCount)
		dst = be.AppendUint32(dst, m.Aggregate.FlowCount)
		return append(dst, 0, 0, 0, 0), nil
	case MultipartGroupFeatures:
		g := &m.GroupFeatures
		dst = be.AppendUint32(dst, g.Types)
		dst = be.AppendUint32(dst, g.Capabilities)
		for _, w := range g.MaxGroups {
			dst = be.AppendUint32(dst, w)
		}
		for _, w := range g.Actions {
			dst = be.AppendUint32(dst, w)
		}
		return dst, nil
	case MultipartMeterFeatures:
		f := &m.MeterFeatures
		dst = be.AppendUint32(dst, f.MaxMeter)
		dst = be.AppendUint32(dst, f.BandTypes)
		dst = be.AppendUint32(dst, f.Capabilities)
		return append(dst, f.MaxBands, f.MaxColor, 0, 0), nil
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
	bad := func(field string, off int) error {
		return &DecodeError{Type: t, Field: field, Offset: 16 + off, Err: ErrBadLength}
	}
	// entries checks that body is a whole number of size-byte entries.
	entries := func(size int) (int, error) {
		if len(body)%size != 0 {
			return 0, bad("body", len(body)-len(body)%size)
		}
		return len(body) / size, nil
	}
	switch m.Part {
	case MultipartDesc:
		if len(body) != 1056 {
			return bad("body", 0)
		}
		d := &m.Desc
		copy(d.MfrDesc[:], body[0:])
		copy(d.HWDesc[:], body[256:])
		copy(d.SWDesc[:], body[512:])
		copy(d.SerialNum[:], body[768:])
		copy(d.DPDesc[:], body[800:])
	case MultipartFlow:
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
				return decodeCtx(err, t, 16+off)
			}
			off += n
		}
	case MultipartAggregate:
		if len(body) != 24 {
			return bad("body", 0)
		}
		m.Aggregate = AggregateStats{be.Uint64(body), be.Uint64(body[8:]), be.Uint32(body[16:])}
	case MultipartTable:
		n, err := entries(24)
		if err != nil {
			return err
		}
		m.Tables = m.Tables[:0]
		for i := 0; i < n; i++ {
			e := body[24*i:]
			m.Tables = append(m.Tables, TableStats{e[0], be.Uint32(e[4:]), be.Uint64(e[8:]), be.Uint64(e[16:])})
		}
	case MultipartPortStats:
		if m.Version >= Version14 {
			return eachEntry14(body, 0, portStats14Len, "ports", func(e []byte) error {
				var ps PortStats
				err := ps.decode14(e)
				m.Ports = append(m.Ports, ps)
				return err
			})
		}
		n, err := entries(112)
		if err != nil {
			return err
		}
		m.Ports = m.Ports[:0]
		for i := 0; i < n; i++ {
			e := body[112*i:]
			c := func(k int) uint64 { return be.Uint64(e[8+8*k:]) }
			m.Ports = append(m.Ports, PortStats{PortNo: be.Uint32(e), RxPackets: c(0), TxPackets: c(1), RxBytes: c(2),
				TxBytes: c(3), RxDropped: c(4), TxDropped: c(5), RxErrors: c(6), TxErrors: c(7), RxFrameErr: c(8),
				RxOverErr: c(9), RxCRCErr: c(10), Collisions: c(11), DurationSec: be.Uint32(e[104:]), DurationNsec: be.Uint32(e[108:])})
		}
	case MultipartQueue:
		n, err := entries(40)
		if err != nil {
			return err
		}
		m.Queues = m.Queues[:0]
		for i := 0; i < n; i++ {
			e := body[40*i:]
			m.Queues = append(m.Queues, QueueStats{be.Uint32(e), be.Uint32(e[4:]), be.Uint64(e[8:]), be.Uint64(e[16:]),
				be.Uint64(e[24:]), be.Uint32(e[32:]), be.Uint32(e[36:])})
		}
	case MultipartGroup:
		m.Groups = m.Groups[:0]
		for off, i := 0, 0; off < len(body); i++ {
			if len(body)-off < 40 {
				return bad(fmt.Sprintf("groups[%d]", i), off)
			}
			n := int(be.Uint16(body[off:]))
			if n < 40 || (n-40)%16 != 0 || off+n > len(body) {
				return bad(fmt.Sprintf("groups[%d].length", i), off)
			}
			e := body[off:]
			g := GroupStats{GroupID: be.Uint32(e[4:]), RefCount: be.Uint32(e[8:]), PacketCount: be.Uint64(e[16:]),
				ByteCount: be.Uint64(e[24:]), DurationSec: be.Uint32(e[32:]), DurationNsec: be.Uint32(e[36:])}
			for k := 40; k < n; k += 16 {
				g.BucketStats = append(g.BucketStats, Counter{be.Uint64(e[k:]), be.Uint64(e[k+8:])})
			}
			m.Groups = append(m.Groups, g)
			off += n
		}
	case MultipartGroupDesc:
		m.GroupDescs = m.GroupDescs[:0]
		for off, i := 0, 0; off < len(body); i++ {
			if len(body)-off < 8 {
				return bad(fmt.Sprintf("group_descs[%d]", i), off)
			}
			n := int(be.Uint16(body[off:]))
			if n < 8 || off+n > len(body) {
				return bad(fmt.Sprintf("group_descs[%d].length", i), off)
			}
			g := GroupDesc{Type: body[off+2], GroupID: be.Uint32(body[off+4:])}
			if err := decodeBuckets(&g.Buckets, body[off+8:off+n], 16+off+8); err != nil {
				return decodeCtx(err, t, 0)
			}
			m.GroupDescs = append(m.GroupDescs, g)
			off += n
		}
	case MultipartGroupFeatures:
		if len(body) != 40 {
			return bad("body", 0)
		}
		g := &m.GroupFeatures
		g.Types, g.Capabilities = be.Uint32(body), be.Uint32(body[4:])
		for i := 0; i < 4; i++ {
			g.MaxGroups[i] = be.Uint32(body[8+4*i:])
			g.Actions[i] = be.Uint32(body[24+4*i:])
		}
	case MultipartMeter:
		m.Meters = m.Meters[:0]
		for off, i := 0, 0; off < len(body); i++ {
			if len(body)-off < 40 {
				return bad(fmt.Sprintf("meters[%d]", i), off)
			}
			e := body[off:]
			n := int(be.Uint16(e[4:]))
			if n < 40 || (n-40)%16 != 0 || off+n > len(body) {
				return bad(fmt.Sprintf("meters[%d].len", i), off+4)
			}
			s := MeterStats{MeterID: be.Uint32(e), FlowCount: be.Uint32(e[12:]), PacketInCount: be.Uint64(e[16:]),
				ByteInCount: be.Uint64(e[24:]), DurationSec: be.Uint32(e[32:]), DurationNsec: be.Uint32(e[36:])}
			for k := 40; k < n; k += 16 {
				s.BandStats = append(s.BandStats, Counter{be.Uint64(e[k:]), be.Uint64(e[k+8:])})
			}
			m.Meters = append(m.Meters, s)
			off += n
		}
	case MultipartMeterConfig:
		m.MeterConfigs = m.MeterConfigs[:0]
		for off, i := 0, 0; off < len(body); i++ {
			if len(body)-off < 8 {
				return bad(fmt.Sprintf("meter_configs[%d]", i), off)
			}
			n := int(be.Uint16(body[off:]))
			if n < 8 || off+n > len(body) {
				return bad(fmt.Sprintf("meter_configs[%d].length", i), off)
			}
			c := MeterConfig{Flags: be.Uint16(body[off+2:]), MeterID: be.Uint32(body[off+4:])}
			if err := decodeBands(&c.Bands, body[off+8:off+n], 16+off+8); err != nil {
				return decodeCtx(err, t, 0)
			}
			m.MeterConfigs = append(m.MeterConfigs, c)
			off += n
		}
	case MultipartMeterFeatures:
		if len(body) != 16 {
			return bad("body", 0)
		}
		m.MeterFeatures = MeterFeatures{be.Uint32(body), be.Uint32(body[4:]), be.Uint32(body[8:]), body[12], body[13]}
	case MultipartTableFeatures:
		if err := decodeTableFeatures(&m.TableFeatures, body, 16); err != nil {
			return decodeCtx(err, t, 0)
		}
	case MultipartPortDesc:
		if m.Version >= Version14 {
			return eachEntry14(body, 4, port14Len, "ports", func(e []byte) error {
				var p Port
				err := p.decode14(e, 0)
				m.PortDescs = append(m.PortDescs, p)
				return err
			})
		}
		n, err := entries(portLen)
		if err != nil {
			return err
		}
		m.PortDescs = m.PortDescs[:0]
		for i := 0; i < n; i++ {
			var p Port
			p.decode(body[portLen*i:])
			m.PortDescs = append(m.PortDescs, p)
		}
	case MultipartTableDesc:
		return eachEntry14(body, 0, tableDescLen, "table_descs", func(e []byte) error {
			m.TableDescs = append(m.TableDescs, TableDesc{TableID: e[2], Config: be.Uint32(e[4:]), Properties: cloneOrNil(e[tableDescLen:])})
			return nil
		})
	case MultipartQueueDesc:
		return eachEntry14(body, 8, queueDescLen, "queue_descs", func(e []byte) error {
			m.QueueDescs = append(m.QueueDescs, QueueDesc{PortNo: be.Uint32(e), QueueID: be.Uint32(e[4:]), Properties: cloneOrNil(e[queueDescLen:])})
			return nil
		})
	case MultipartExperimenter:
		if len(body) < 8 {
			return bad("body", 0)
		}
		m.Experimenter = be.Uint32(body)
		m.ExpType = be.Uint32(body[4:])
		m.Data = append(m.Data[:0], body[8:]...)
	default:
		return &DecodeError{Type: t, Field: "type", Offset: 8, Err: ErrBadMultipart}
	}
	return nil
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

// Table feature property types (OpenFlow 1.3.5 §7.3.5.5.2, enum
// ofp_table_feature_prop_type).
type TableFeaturePropType uint16

// Table feature property types.
const (
	TFPInstructions      TableFeaturePropType = 0      // OFPTFPT_INSTRUCTIONS
	TFPInstructionsMiss  TableFeaturePropType = 1      // OFPTFPT_INSTRUCTIONS_MISS
	TFPNextTables        TableFeaturePropType = 2      // OFPTFPT_NEXT_TABLES
	TFPNextTablesMiss    TableFeaturePropType = 3      // OFPTFPT_NEXT_TABLES_MISS
	TFPWriteActions      TableFeaturePropType = 4      // OFPTFPT_WRITE_ACTIONS
	TFPWriteActionsMiss  TableFeaturePropType = 5      // OFPTFPT_WRITE_ACTIONS_MISS
	TFPApplyActions      TableFeaturePropType = 6      // OFPTFPT_APPLY_ACTIONS
	TFPApplyActionsMiss  TableFeaturePropType = 7      // OFPTFPT_APPLY_ACTIONS_MISS
	TFPMatch             TableFeaturePropType = 8      // OFPTFPT_MATCH
	TFPWildcards         TableFeaturePropType = 10     // OFPTFPT_WILDCARDS
	TFPWriteSetField     TableFeaturePropType = 12     // OFPTFPT_WRITE_SETFIELD
	TFPWriteSetFieldMiss TableFeaturePropType = 13     // OFPTFPT_WRITE_SETFIELD_MISS
	TFPApplySetField     TableFeaturePropType = 14     // OFPTFPT_APPLY_SETFIELD
	TFPApplySetFieldMiss TableFeaturePropType = 15     // OFPTFPT_APPLY_SETFIELD_MISS
	TFPExperimenter      TableFeaturePropType = 0xfffe // OFPTFPT_EXPERIMENTER
	TFPExperimenterMiss  TableFeaturePropType = 0xffff // OFPTFPT_EXPERIMENTER_MISS
)

// String returns the spec name.
func (t TableFeaturePropType) String() string {
	switch t {
	case TFPExperimenter:
		return "OFPTFPT_EXPERIMENTER"
	case TFPExperimenterMiss:
		return "OFPTFPT_EXPERIMENTER_MISS"
	}
	return enumName([]string{"OFPTFPT_INSTRUCTIONS", "OFPTFPT_INSTRUCTIONS_MISS", "OFPTFPT_NEXT_TABLES",
		"OFPTFPT_NEXT_TABLES_MISS", "OFPTFPT_WRITE_ACTIONS", "OFPTFPT_WRITE_ACTIONS_MISS",
		"OFPTFPT_APPLY_ACTIONS", "OFPTFPT_APPLY_ACTIONS_MISS", "OFPTFPT_MATCH", "", "OFPTFPT_WILDCARDS", "",
		"OFPTFPT_WRITE_SETFIELD", "OFPTFPT_WRITE_SETFIELD_MISS", "OFPTFPT_APPLY_SETFIELD",
		"OFPTFPT_APPLY_SETFIELD_MISS"}, int(t), "OFPTFPT_"+strconv.Itoa(int(t)))
}

// FeatureID is an instruction or action id in a table feature property:
// the type, and for experimenter ids the bytes after the 4-byte header
// (experimenter id and any subtype).
type FeatureID struct {
	Type uint16
	Data []byte
}

// TableFeatureProp is one table feature property (OpenFlow 1.3.5
// §7.3.5.5.2), a tagged struct: IDs for the instruction and action
// properties, TableIDs for NEXT_TABLES, OXMIDs for MATCH, WILDCARDS and the
// SETFIELD properties (experimenter OXM ids carry the experimenter id in
// the low 32 bits of a 64-bit entry, with Header<<32), and Experimenter,
// ExpType, Data for the experimenter properties.
type TableFeatureProp struct {
	Type         TableFeaturePropType
	IDs          []FeatureID
	TableIDs     []uint8
	OXMIDs       []uint64
	Experimenter uint32
	ExpType      uint32
	Data         []byte
}

// OXMID builds an OXMIDs entry for a 32-bit OXM header.
func OXMID(header uint32) uint64 { return uint64(header) << 32 }

// TableFeatures is ofp_table_features (OpenFlow 1.3.5 §7.3.5.5.1).
type TableFeatures struct {
	TableID       uint8
	Name          [32]byte // NUL-padded
	MetadataMatch uint64
	MetadataWrite uint64
	Config        uint32
	MaxEntries    uint32
	Properties    []TableFeatureProp
}

func propKind(t TableFeaturePropType) int {
	switch t {
	case TFPInstructions, TFPInstructionsMiss, TFPWriteActions, TFPWriteActionsMiss, TFPApplyActions, TFPApplyActionsMiss:
		return 1
	case TFPNextTables, TFPNextTablesMiss:
		return 2
	case TFPMatch, TFPWildcards, TFPWriteSetField, TFPWriteSetFieldMiss, TFPApplySetField, TFPApplySetFieldMiss:
		return 3
	case TFPExperimenter, TFPExperimenterMiss:
		return 4
	}
	return 0
}

func appendTableFeatures(dst []byte, tfs []TableFeatures) ([]byte, error) {
	be := binary.BigEndian
	for i := range tfs {
		tf := &tfs[i]
		ts := len(dst)
		dst = append(dst, 0, 0, tf.TableID, 0, 0, 0, 0, 0)
		dst = append(dst, tf.Name[:]...)
		dst = be.AppendUint64(dst, tf.MetadataMatch)
		dst = be.AppendUint64(dst, tf.MetadataWrite)
		dst = be.AppendUint32(dst, tf.Config)
		dst = be.AppendUint32(dst, tf.MaxEntries)
		for j := range tf.Properties {
			p := &tf.Properties[j]
			ps := len(dst)
			dst = be.AppendUint16(dst, uint16(p.Type))
			dst = append(dst, 0, 0)
			switch propKind(p.Type) {
			case 1:
				for _, id := range p.IDs {
					dst = be.AppendUint16(dst, id.Type)
					dst = be.AppendUint16(dst, uint16(4+len(id.Data)))
					dst = append(dst, id.Data...)
				}
			case 2:
				dst = append(dst, p.TableIDs...)
			case 3:
				for _, id := range p.OXMIDs {
					dst = be.AppendUint32(dst, uint32(id>>32))
					if uint16(id>>48) == uint16(OXMClassExperimenter) {
						dst = be.AppendUint32(dst, uint32(id))
					}
				}
			case 4:
				dst = be.AppendUint32(dst, p.Experimenter)
				dst = be.AppendUint32(dst, p.ExpType)
				dst = append(dst, p.Data...)
			default:
				dst = append(dst, p.Data...)
			}
			if len(dst)-ps > 0xffff {
				return dst, &EncodeError{Field: "table_features.properties.length", Err: ErrTooLong}
			}
			be.PutUint16(dst[ps+2:], uint16(len(dst)-ps))
			dst = wire.PadTo8(dst, ps)
		}
		if len(dst)-ts > 0xffff {
			return dst, &EncodeError{Field: "table_features.length", Err: ErrTooLong}
		}
		be.PutUint16(dst[ts:], uint16(len(dst)-ts))
	}
	return dst, nil
}

func decodeTableFeatures(tfs *[]TableFeatures, b []byte, base int) error {
	be := binary.BigEndian
	*tfs = (*tfs)[:0]
	bad := func(field string, off int) error {
		return &DecodeError{Field: field, Offset: base + off, Err: ErrBadTableFeatures}
	}
	for off, i := 0, 0; off < len(b); i++ {
		if len(b)-off < 64 {
			return bad(fmt.Sprintf("table_features[%d]", i), off)
		}
		n := int(be.Uint16(b[off:]))
		if n < 64 || off+n > len(b) {
			return bad(fmt.Sprintf("table_features[%d].length", i), off)
		}
		e := b[off : off+n]
		tf := TableFeatures{TableID: e[2], MetadataMatch: be.Uint64(e[40:]), MetadataWrite: be.Uint64(e[48:]),
			Config: be.Uint32(e[56:]), MaxEntries: be.Uint32(e[60:])}
		copy(tf.Name[:], e[8:40])
		for po, j := 64, 0; po < n; j++ {
			field := fmt.Sprintf("table_features[%d].properties[%d]", i, j)
			if n-po < 4 {
				return bad(field, off+po)
			}
			p := TableFeatureProp{Type: TableFeaturePropType(be.Uint16(e[po:]))}
			pl := int(be.Uint16(e[po+2:]))
			if pl < 4 || po+pl > n {
				return bad(field+".length", off+po+2)
			}
			body := e[po+4 : po+pl]
			switch propKind(p.Type) {
			case 1:
				for k := 0; k < len(body); {
					if len(body)-k < 4 {
						return bad(field+".ids", off+po+4+k)
					}
					il := int(be.Uint16(body[k+2:]))
					if il < 4 || k+il > len(body) {
						return bad(field+".ids.len", off+po+4+k+2)
					}
					id := FeatureID{Type: be.Uint16(body[k:])}
					if il > 4 {
						id.Data = append([]byte(nil), body[k+4:k+il]...)
					}
					p.IDs = append(p.IDs, id)
					k += il
				}
			case 2:
				p.TableIDs = append([]byte(nil), body...)
			case 3:
				for k := 0; k < len(body); {
					if len(body)-k < 4 {
						return bad(field+".oxm_ids", off+po+4+k)
					}
					h := be.Uint32(body[k:])
					id := uint64(h) << 32
					k += 4
					if uint16(h>>16) == uint16(OXMClassExperimenter) {
						if len(body)-k < 4 {
							return bad(field+".oxm_ids", off+po+4+k)
						}
						id |= uint64(be.Uint32(body[k:]))
						k += 4
					}
					p.OXMIDs = append(p.OXMIDs, id)
				}
			case 4:
				if len(body) < 8 {
					return bad(field+".length", off+po+2)
				}
				p.Experimenter = be.Uint32(body)
				p.ExpType = be.Uint32(body[4:])
				p.Data = append([]byte(nil), body[8:]...)
			default:
				return &DecodeError{Field: field + ".type", Offset: base + off + po, Err: ErrBadProperty}
			}
			tf.Properties = append(tf.Properties, p)
			po += wire.Align8(pl)
			if po > n {
				return bad(field+".padding", off+n)
			}
		}
		*tfs = append(*tfs, tf)
		off += n
	}
	return nil
}
