package openflow

import "encoding/binary"

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
