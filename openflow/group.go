package openflow

import (
	"encoding/binary"
	"fmt"
)

// Group types (OpenFlow 1.3.5 §7.3.4.2, enum ofp_group_type).
const (
	GroupTypeAll      uint8 = 0 // OFPGT_ALL
	GroupTypeSelect   uint8 = 1 // OFPGT_SELECT
	GroupTypeIndirect uint8 = 2 // OFPGT_INDIRECT
	GroupTypeFF       uint8 = 3 // OFPGT_FF
)

// Group mod commands (OpenFlow 1.3.5 §7.3.4.2, enum ofp_group_mod_command).
const (
	GroupAdd    uint16 = 0 // OFPGC_ADD
	GroupModify uint16 = 1 // OFPGC_MODIFY
	GroupDelete uint16 = 2 // OFPGC_DELETE
)

// Bucket is ofp_bucket (OpenFlow 1.3.5 §7.3.4.2), one action bucket of a
// group.
type Bucket struct {
	Weight     uint16
	WatchPort  uint32
	WatchGroup uint32
	Actions    []Action
}

func (bk *Bucket) len() int { return 16 + actionsLen(bk.Actions) }

func appendBuckets(dst []byte, bs []Bucket) ([]byte, error) {
	for i := range bs {
		bk := &bs[i]
		n := bk.len()
		if n > 0xffff {
			return dst, &EncodeError{Field: fmt.Sprintf("buckets[%d].len", i), Err: ErrBadBucket}
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
		dst = binary.BigEndian.AppendUint16(dst, bk.Weight)
		dst = binary.BigEndian.AppendUint32(dst, bk.WatchPort)
		dst = binary.BigEndian.AppendUint32(dst, bk.WatchGroup)
		dst = append(dst, 0, 0, 0, 0)
		var err error
		if dst, err = appendActions(dst, bk.Actions); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func decodeBuckets(bs *[]Bucket, b []byte, base int) error {
	*bs = (*bs)[:0]
	for off, i := 0, 0; off < len(b); i++ {
		if len(b)-off < 16 {
			return &DecodeError{Field: fmt.Sprintf("buckets[%d]", i), Offset: base + off, Err: ErrBadBucket}
		}
		n := int(binary.BigEndian.Uint16(b[off:]))
		if n < 16 || n%8 != 0 || off+n > len(b) {
			return &DecodeError{Field: fmt.Sprintf("buckets[%d].len", i), Offset: base + off, Err: ErrBadBucket}
		}
		*bs = append(*bs, Bucket{})
		bk := &(*bs)[len(*bs)-1]
		bk.Weight = binary.BigEndian.Uint16(b[off+2:])
		bk.WatchPort = binary.BigEndian.Uint32(b[off+4:])
		bk.WatchGroup = binary.BigEndian.Uint32(b[off+8:])
		if err := decodeActions(&bk.Actions, b[off+16:off+n], fmt.Sprintf("buckets[%d].actions", i), base+off+16); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// GroupMod is an OFPT_GROUP_MOD message (OpenFlow 1.3.5 §7.3.4.2).
type GroupMod struct {
	Header
	Command uint16 // GroupAdd, GroupModify, GroupDelete
	Type    uint8  // GroupType*
	GroupID uint32
	Buckets []Bucket
}

// AppendBinary appends the wire form of m to dst.
func (m *GroupMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeGroupMod)
	dst = binary.BigEndian.AppendUint16(dst, m.Command)
	dst = append(dst, m.Type, 0)
	dst = binary.BigEndian.AppendUint32(dst, m.GroupID)
	var err error
	if dst, err = appendBuckets(dst, m.Buckets); err != nil {
		return dst[:start], encodeCtx(err, TypeGroupMod)
	}
	return finish(dst, start, TypeGroupMod)
}

// MarshalBinary returns the wire form of m.
func (m *GroupMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one GROUP_MOD.
func (m *GroupMod) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeGroupMod, 16); err != nil {
		return err
	}
	m.Command = binary.BigEndian.Uint16(b[8:])
	if m.Command > GroupDelete {
		return &DecodeError{Type: TypeGroupMod, Field: "command", Offset: 8, Err: ErrBadGroupCommand}
	}
	m.Type = b[10]
	m.GroupID = binary.BigEndian.Uint32(b[12:])
	return decodeCtx(decodeBuckets(&m.Buckets, b[16:], 16), TypeGroupMod, 0)
}

// PortMod is an OFPT_PORT_MOD message (OpenFlow 1.3.5 §7.3.4.3). From
// OpenFlow 1.4 on (1.4.1 §7.3.4.3) the fixed part ends after mask and the
// advertised features travel in an OFPPMPT_ETHERNET property.
type PortMod struct {
	Header
	PortNo    uint32
	HWAddr    [6]byte
	Config    uint32 // OFPPC_* bits to set
	Mask      uint32 // OFPPC_* bits to change
	Advertise uint32 // OFPPF_* bits; 0 leaves them unchanged
	// Properties is the raw property list of an OpenFlow 1.4 PORT_MOD,
	// as decoded (framing checked; Advertise read from its Ethernet
	// property, optical and experimenter ones left to the caller). When
	// it is nil, encoding writes an Ethernet property for a non-zero
	// Advertise, as Open vSwitch does; when not, it is written as it is.
	Properties []byte
}

// portModPropEthernet is OFPPMPT_ETHERNET, the OpenFlow 1.4 PORT_MOD
// property that carries advertise, and its length.
const (
	portModPropEthernet    = 0
	portModPropEthernetLen = 8
)

// AppendBinary appends the wire form of m to dst.
func (m *PortMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypePortMod)
	dst = binary.BigEndian.AppendUint32(dst, m.PortNo)
	dst = append(dst, 0, 0, 0, 0)
	dst = append(dst, m.HWAddr[:]...)
	dst = append(dst, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, m.Config)
	dst = binary.BigEndian.AppendUint32(dst, m.Mask)
	if m.Version >= Version14 {
		if m.Properties != nil {
			dst = append(dst, m.Properties...)
		} else if m.Advertise != 0 {
			dst = binary.BigEndian.AppendUint16(dst, portModPropEthernet)
			dst = binary.BigEndian.AppendUint16(dst, portModPropEthernetLen)
			dst = binary.BigEndian.AppendUint32(dst, m.Advertise)
		}
		return finish(dst, start, TypePortMod)
	}
	dst = binary.BigEndian.AppendUint32(dst, m.Advertise)
	dst = append(dst, 0, 0, 0, 0)
	return finish(dst, start, TypePortMod)
}

// MarshalBinary returns the wire form of m.
func (m *PortMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one PORT_MOD: 40 bytes in OpenFlow 1.3; in 1.4
// and later 32 bytes and properties, each at least 4 bytes and padded to 8
// (ErrBadPortMod otherwise, as for a 1.3 message of another length).
// m.Properties aliases b.
func (m *PortMod) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypePortMod, 32); err != nil {
		return err
	}
	bad := func(field string, off int) error {
		return &DecodeError{Type: TypePortMod, Field: field, Offset: off, Err: ErrBadPortMod}
	}
	if m.Version < Version14 && len(b) != 40 {
		return bad("header.length", 2)
	}
	m.PortNo = binary.BigEndian.Uint32(b[8:])
	copy(m.HWAddr[:], b[16:22])
	m.Config = binary.BigEndian.Uint32(b[24:])
	m.Mask = binary.BigEndian.Uint32(b[28:])
	m.Properties = nil
	if m.Version < Version14 {
		m.Advertise = binary.BigEndian.Uint32(b[32:])
		return nil
	}
	m.Advertise = 0
	if len(b) > 32 {
		m.Properties = b[32:]
	}
	if field, off := eachProp(b, 32, func(t uint16, p []byte) bool {
		if t != portModPropEthernet {
			return true
		}
		if len(p) != portModPropEthernetLen {
			return false
		}
		m.Advertise = binary.BigEndian.Uint32(p[4:])
		return true
	}); field != "" {
		return bad(field, off)
	}
	return nil
}

// eachProp walks the OpenFlow 1.4 property list b[off:] (each a type, a
// length of at least 4 that leaves out the padding to 8 bytes, and a
// body), calling fn with each property's type and bytes without the
// padding. It returns "" when every property frames and fn takes it, else
// the field and offset (in b) at fault.
func eachProp(b []byte, off int, fn func(t uint16, p []byte) bool) (string, int) {
	for off < len(b) {
		if len(b)-off < 4 {
			return "properties", off
		}
		t, n := binary.BigEndian.Uint16(b[off:]), int(binary.BigEndian.Uint16(b[off+2:]))
		if n < 4 || off+(n+7)&^7 > len(b) || !fn(t, b[off:off+n]) {
			return "property.length", off + 2
		}
		off += (n + 7) &^ 7
	}
	return "", 0
}

// TableMod is an OFPT_TABLE_MOD message (OpenFlow 1.3.5 §7.3.3; 1.4.1
// §7.3.3 adds eviction and vacancy events, as config bits and properties).
type TableMod struct {
	Header
	TableID uint8
	Config  uint32 // OFPTC_* bits: 1.3 defines none (its two are deprecated); 1.4 TableConfigEviction and TableConfigVacancyEvents
	// Properties is the raw property list of an OpenFlow 1.4 TABLE_MOD
	// (ofp_table_mod_prop_*: type, length, body, padding to 8 bytes),
	// checked for framing only; empty in 1.3.
	Properties []byte
}

// Table config bits (OpenFlow 1.4.1 §7.3.3, enum ofp_table_config).
const (
	TableConfigDeprecatedMask uint32 = 3      // OFPTC_DEPRECATED_MASK: OpenFlow 1.1's table-miss bits
	TableConfigEviction       uint32 = 1 << 2 // OFPTC_EVICTION (1.4)
	TableConfigVacancyEvents  uint32 = 1 << 3 // OFPTC_VACANCY_EVENTS (1.4)
)

// AppendBinary appends the wire form of m to dst; Properties only from
// OpenFlow 1.4 on.
func (m *TableMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeTableMod)
	dst = append(dst, m.TableID, 0, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, m.Config)
	if m.Version >= Version14 {
		dst = append(dst, m.Properties...)
	}
	return finish(dst, start, TypeTableMod)
}

// MarshalBinary returns the wire form of m.
func (m *TableMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one TABLE_MOD: 16 bytes in OpenFlow 1.3, and
// from 1.4 on properties after them, each at least 4 bytes long and padded
// to 8 (ErrBadLength otherwise). m.Properties aliases b.
func (m *TableMod) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeTableMod, 16); err != nil {
		return err
	}
	if m.Version < Version14 && len(b) != 16 {
		return &DecodeError{Type: TypeTableMod, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	m.TableID = b[8]
	m.Config = binary.BigEndian.Uint32(b[12:])
	m.Properties = nil
	if len(b) > 16 {
		m.Properties = b[16:]
	}
	if field, off := eachProp(b, 16, func(uint16, []byte) bool { return true }); field != "" {
		return &DecodeError{Type: TypeTableMod, Field: field, Offset: off, Err: ErrBadLength}
	}
	return nil
}

// Meter mod commands and band types (OpenFlow 1.3.5 §7.3.4.4).
const (
	MeterAdd    uint16 = 0 // OFPMC_ADD
	MeterModify uint16 = 1 // OFPMC_MODIFY
	MeterDelete uint16 = 2 // OFPMC_DELETE

	MeterBandDrop         uint16 = 1      // OFPMBT_DROP
	MeterBandDSCPRemark   uint16 = 2      // OFPMBT_DSCP_REMARK
	MeterBandExperimenter uint16 = 0xffff // OFPMBT_EXPERIMENTER
)

// MeterBand is one meter band (ofp_meter_band_*, OpenFlow 1.3.5 §7.3.4.4)
// as a tagged struct: PrecLevel is for DSCP_REMARK, Experimenter and Data
// for EXPERIMENTER bands.
type MeterBand struct {
	Type         uint16
	Rate         uint32
	BurstSize    uint32
	PrecLevel    uint8
	Experimenter uint32
	Data         []byte
}

func appendBands(dst []byte, bs []MeterBand) []byte {
	for i := range bs {
		bd := &bs[i]
		n := 16
		if bd.Type == MeterBandExperimenter {
			n += len(bd.Data)
		}
		dst = binary.BigEndian.AppendUint16(dst, bd.Type)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
		dst = binary.BigEndian.AppendUint32(dst, bd.Rate)
		dst = binary.BigEndian.AppendUint32(dst, bd.BurstSize)
		switch bd.Type {
		case MeterBandDSCPRemark:
			dst = append(dst, bd.PrecLevel, 0, 0, 0)
		case MeterBandExperimenter:
			dst = binary.BigEndian.AppendUint32(dst, bd.Experimenter)
			dst = append(dst, bd.Data...)
		default:
			dst = append(dst, 0, 0, 0, 0)
		}
	}
	return dst
}

func decodeBands(bs *[]MeterBand, b []byte, base int) error {
	*bs = (*bs)[:0]
	for off, i := 0, 0; off < len(b); i++ {
		if len(b)-off < 16 {
			return &DecodeError{Field: fmt.Sprintf("bands[%d]", i), Offset: base + off, Err: ErrBadMeterBand}
		}
		typ := binary.BigEndian.Uint16(b[off:])
		n := int(binary.BigEndian.Uint16(b[off+2:]))
		if n < 16 || off+n > len(b) || (typ != MeterBandExperimenter && n != 16) {
			return &DecodeError{Field: fmt.Sprintf("bands[%d].len", i), Offset: base + off + 2, Err: ErrBadMeterBand}
		}
		bd := MeterBand{Type: typ, Rate: binary.BigEndian.Uint32(b[off+4:]), BurstSize: binary.BigEndian.Uint32(b[off+8:])}
		switch typ {
		case MeterBandDSCPRemark:
			bd.PrecLevel = b[off+12]
		case MeterBandExperimenter:
			bd.Experimenter = binary.BigEndian.Uint32(b[off+12:])
			bd.Data = append([]byte(nil), b[off+16:off+n]...)
		}
		*bs = append(*bs, bd)
		off += n
	}
	return nil
}

// MeterMod is an OFPT_METER_MOD message (OpenFlow 1.3.5 §7.3.4.4).
type MeterMod struct {
	Header
	Command uint16 // MeterAdd, MeterModify, MeterDelete
	Flags   uint16 // OFPMF_* bits
	MeterID uint32
	Bands   []MeterBand
}

// AppendBinary appends the wire form of m to dst.
func (m *MeterMod) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeMeterMod)
	dst = binary.BigEndian.AppendUint16(dst, m.Command)
	dst = binary.BigEndian.AppendUint16(dst, m.Flags)
	dst = binary.BigEndian.AppendUint32(dst, m.MeterID)
	dst = appendBands(dst, m.Bands)
	return finish(dst, start, TypeMeterMod)
}

// MarshalBinary returns the wire form of m.
func (m *MeterMod) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one METER_MOD.
func (m *MeterMod) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeMeterMod, 16); err != nil {
		return err
	}
	m.Command = binary.BigEndian.Uint16(b[8:])
	if m.Command > MeterDelete {
		return &DecodeError{Type: TypeMeterMod, Field: "command", Offset: 8, Err: ErrBadMeterCommand}
	}
	m.Flags = binary.BigEndian.Uint16(b[10:])
	m.MeterID = binary.BigEndian.Uint32(b[12:])
	return decodeCtx(decodeBands(&m.Bands, b[16:], 16), TypeMeterMod, 0)
}

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
