package openflow

import (
	"encoding/binary"
	"fmt"
)

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

// appendTo appends s as an entry of an OFPMP_METER reply.
func (s *MeterStats) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint32(dst, s.MeterID)
	dst = be.AppendUint16(dst, uint16(40+16*len(s.BandStats)))
	dst = append(dst, 0, 0, 0, 0, 0, 0)
	dst = be.AppendUint32(dst, s.FlowCount)
	dst = be.AppendUint64(dst, s.PacketInCount)
	dst = be.AppendUint64(dst, s.ByteInCount)
	dst = be.AppendUint32(dst, s.DurationSec)
	dst = be.AppendUint32(dst, s.DurationNsec)
	return appendCounters(dst, s.BandStats)
}

// decodeMeters decodes the body of an OFPMP_METER reply, reusing m.Meters.
func (m *MultipartReply) decodeMeters(body []byte) error {
	be := binary.BigEndian
	m.Meters = m.Meters[:0]
	for off, i := 0, 0; off < len(body); i++ {
		if len(body)-off < 40 {
			return replyBad(fmt.Sprintf("meters[%d]", i), off)
		}
		e := body[off:]
		n := int(be.Uint16(e[4:]))
		if n < 40 || (n-40)%16 != 0 || off+n > len(body) {
			return replyBad(fmt.Sprintf("meters[%d].len", i), off+4)
		}
		s := MeterStats{MeterID: be.Uint32(e), FlowCount: be.Uint32(e[12:]), PacketInCount: be.Uint64(e[16:]),
			ByteInCount: be.Uint64(e[24:]), DurationSec: be.Uint32(e[32:]), DurationNsec: be.Uint32(e[36:])}
		s.BandStats = decodeCounters(s.BandStats, e[40:n])
		m.Meters = append(m.Meters, s)
		off += n
	}
	return nil
}

// appendTo appends c as an entry of an OFPMP_METER_CONFIG reply.
func (c *MeterConfig) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	cs := len(dst)
	dst = append(dst, 0, 0)
	dst = be.AppendUint16(dst, c.Flags)
	dst = be.AppendUint32(dst, c.MeterID)
	dst = appendBands(dst, c.Bands)
	be.PutUint16(dst[cs:], uint16(len(dst)-cs))
	return dst
}

// decodeMeterConfigs decodes the body of an OFPMP_METER_CONFIG reply,
// reusing m.MeterConfigs.
func (m *MultipartReply) decodeMeterConfigs(body []byte) error {
	be := binary.BigEndian
	m.MeterConfigs = m.MeterConfigs[:0]
	for off, i := 0, 0; off < len(body); i++ {
		if len(body)-off < 8 {
			return replyBad(fmt.Sprintf("meter_configs[%d]", i), off)
		}
		n := int(be.Uint16(body[off:]))
		if n < 8 || off+n > len(body) {
			return replyBad(fmt.Sprintf("meter_configs[%d].length", i), off)
		}
		c := MeterConfig{Flags: be.Uint16(body[off+2:]), MeterID: be.Uint32(body[off+4:])}
		if err := decodeBands(&c.Bands, body[off+8:off+n], 16+off+8); err != nil {
			return decodeCtx(err, TypeMultipartReply, 0)
		}
		m.MeterConfigs = append(m.MeterConfigs, c)
		off += n
	}
	return nil
}

// appendTo appends f, the body of an OFPMP_METER_FEATURES reply.
func (f *MeterFeatures) appendTo(dst []byte) []byte {
	be := binary.BigEndian
	dst = be.AppendUint32(dst, f.MaxMeter)
	dst = be.AppendUint32(dst, f.BandTypes)
	dst = be.AppendUint32(dst, f.Capabilities)
	return append(dst, f.MaxBands, f.MaxColor, 0, 0)
}

// decodeMeterFeatures decodes the body of an OFPMP_METER_FEATURES reply.
func (m *MultipartReply) decodeMeterFeatures(body []byte) error {
	be := binary.BigEndian
	if len(body) != 16 {
		return replyBad("body", 0)
	}
	m.MeterFeatures = MeterFeatures{be.Uint32(body), be.Uint32(body[4:]), be.Uint32(body[8:]), body[12], body[13]}
	return nil
}
