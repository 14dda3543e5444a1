package openflow

// Port-status reasons (OpenFlow 1.3.5 §7.4.3, enum ofp_port_reason).
const (
	PortAdd    uint8 = 0 // OFPPR_ADD
	PortDelete uint8 = 1 // OFPPR_DELETE
	PortModify uint8 = 2 // OFPPR_MODIFY
)

// PortStatus is an OFPT_PORT_STATUS message (OpenFlow 1.3.5 §7.4.3).
//
// At Version14 the port is encoded in OpenFlow 1.4's ofp_port layout
// (OpenFlow 1.4.1 §7.2.1): config and state in the port, the Ethernet
// figures in one OFPPDPT_ETHERNET property. Decoding accepts that one
// property and no other (ErrBadProperty).
type PortStatus struct {
	Header
	Reason uint8 // Port*
	Desc   Port
}

// AppendBinary appends the wire form of m to dst.
func (m *PortStatus) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypePortStatus)
	dst = append(dst, m.Reason, 0, 0, 0, 0, 0, 0, 0)
	if m.Version >= Version14 {
		dst = m.Desc.appendTo14(dst)
	} else {
		dst = m.Desc.appendTo(dst)
	}
	return finish(dst, start, TypePortStatus)
}

// MarshalBinary returns the wire form of m.
func (m *PortStatus) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one PORT_STATUS.
func (m *PortStatus) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypePortStatus, 80); err != nil {
		return err
	}
	m.Reason = b[8]
	if m.Version >= Version14 {
		return m.Desc.decode14(b[16:], 16)
	}
	if len(b) != 80 {
		return &DecodeError{Type: TypePortStatus, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	m.Desc.decode(b[16:])
	return nil
}
