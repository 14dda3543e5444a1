package openflow

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Port is ofp_port, a port description (OpenFlow 1.3.5 §7.2.1), 64 bytes on
// the wire.
type Port struct {
	PortNo     uint32
	HWAddr     [6]byte
	Name       [16]byte // NUL-padded; see NameString
	Config     uint32   // OFPPC_* bits
	State      uint32   // OFPPS_* bits
	Curr       uint32   // OFPPF_* bits
	Advertised uint32
	Supported  uint32
	Peer       uint32
	CurrSpeed  uint32 // kbps
	MaxSpeed   uint32 // kbps
}

const portLen = 64

// NameString returns Name up to its first NUL.
func (p *Port) NameString() string {
	if i := bytes.IndexByte(p.Name[:], 0); i >= 0 {
		return string(p.Name[:i])
	}
	return string(p.Name[:])
}

func (p *Port) appendTo(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, p.PortNo)
	dst = append(dst, 0, 0, 0, 0)
	dst = append(dst, p.HWAddr[:]...)
	dst = append(dst, 0, 0)
	dst = append(dst, p.Name[:]...)
	for _, w := range [...]uint32{p.Config, p.State, p.Curr, p.Advertised, p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed} {
		dst = binary.BigEndian.AppendUint32(dst, w)
	}
	return dst
}

func (p *Port) decode(b []byte) {
	p.PortNo = binary.BigEndian.Uint32(b)
	copy(p.HWAddr[:], b[8:14])
	copy(p.Name[:], b[16:32])
	u := func(i int) uint32 { return binary.BigEndian.Uint32(b[32+4*i:]) }
	p.Config, p.State, p.Curr, p.Advertised = u(0), u(1), u(2), u(3)
	p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed = u(4), u(5), u(6), u(7)
}

// OpenFlow 1.4 port description sizes (OpenFlow 1.4.1 §7.2.1).
const (
	port14Len     = 40 // ofp_port without properties
	port14EthLen  = 32 // ofp_port_desc_prop_ethernet
	port14EthType = 0  // OFPPDPT_ETHERNET
)

// appendTo14 appends p in OpenFlow 1.4's layout, with its Ethernet
// figures in an OFPPDPT_ETHERNET property.
func (p *Port) appendTo14(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, p.PortNo)
	dst = binary.BigEndian.AppendUint16(dst, port14Len+port14EthLen)
	dst = append(dst, 0, 0)
	dst = append(dst, p.HWAddr[:]...)
	dst = append(dst, 0, 0)
	dst = append(dst, p.Name[:]...)
	dst = binary.BigEndian.AppendUint32(dst, p.Config)
	dst = binary.BigEndian.AppendUint32(dst, p.State)
	dst = binary.BigEndian.AppendUint16(dst, port14EthType)
	dst = binary.BigEndian.AppendUint16(dst, port14EthLen)
	dst = append(dst, 0, 0, 0, 0)
	for _, w := range [...]uint32{p.Curr, p.Advertised, p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed} {
		dst = binary.BigEndian.AppendUint32(dst, w)
	}
	return dst
}

// decode14 decodes an OpenFlow 1.4 ofp_port that fills b and carries one
// OFPPDPT_ETHERNET property; off is b's offset in the message.
func (p *Port) decode14(b []byte, off int) error {
	if len(b) != port14Len+port14EthLen {
		return &DecodeError{Type: TypePortStatus, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	if n := binary.BigEndian.Uint16(b[4:]); int(n) != len(b) {
		return &DecodeError{Type: TypePortStatus, Field: "port.length", Offset: off + 4, Err: ErrBadLength}
	}
	prop := b[port14Len:]
	if binary.BigEndian.Uint16(prop) != port14EthType || binary.BigEndian.Uint16(prop[2:]) != port14EthLen {
		return &DecodeError{Type: TypePortStatus, Field: "port.properties[0]", Offset: off + port14Len, Err: ErrBadProperty}
	}
	p.PortNo = binary.BigEndian.Uint32(b)
	copy(p.HWAddr[:], b[8:14])
	copy(p.Name[:], b[16:32])
	p.Config = binary.BigEndian.Uint32(b[32:])
	p.State = binary.BigEndian.Uint32(b[36:])
	u := func(i int) uint32 { return binary.BigEndian.Uint32(prop[8+4*i:]) }
	p.Curr, p.Advertised, p.Supported, p.Peer, p.CurrSpeed, p.MaxSpeed = u(0), u(1), u(2), u(3), u(4), u(5)
	return nil
}

// String formats p like ovs-ofctl show.
func (p *Port) String() string {
	return fmt.Sprintf("%d(%s): addr:%02x:%02x:%02x:%02x:%02x:%02x", p.PortNo, p.NameString(),
		p.HWAddr[0], p.HWAddr[1], p.HWAddr[2], p.HWAddr[3], p.HWAddr[4], p.HWAddr[5])
}

// decodePortDescs decodes the body of an OFPMP_PORT_DESC reply, reusing
// m.PortDescs.
func (m *MultipartReply) decodePortDescs(body []byte) error {
	if m.Version >= Version14 {
		return eachEntry14(body, 4, port14Len, "ports", func(e []byte) error {
			var p Port
			err := p.decode14(e, 0)
			m.PortDescs = append(m.PortDescs, p)
			return err
		})
	}
	n, err := replyEntries(body, portLen)
	if err != nil {
		return err
	}
	m.PortDescs = m.PortDescs[:0]
	for i := 0; i < n; i++ {
		var p Port
		p.decode(body[portLen*i:])
		m.PortDescs = append(m.PortDescs, p)
	}
	return nil
}
