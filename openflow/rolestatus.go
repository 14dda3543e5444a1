package openflow

import (
	"encoding/binary"
)

// ONFTypeRoleStatus is the ONF experimenter type of ROLE_STATUS over
// OpenFlow 1.3 (ONF extension 1911, ONFT_ROLE_STATUS), which Open vSwitch
// sends where OpenFlow 1.4 has OFPT_ROLE_STATUS.
const ONFTypeRoleStatus uint32 = 1911

// Role status reasons (OpenFlow 1.4.1 §7.4.4, enum ofp_controller_role_reason).
const (
	RoleReasonMasterRequest uint8 = 0 // OFPCRR_MASTER_REQUEST: another controller asked to be master
	RoleReasonConfig        uint8 = 1 // OFPCRR_CONFIG: the switch's configuration changed it
	RoleReasonExperimenter  uint8 = 2 // OFPCRR_EXPERIMENTER
)

// roleStatusLen is the body of ofp_role_status after its header.
const roleStatusLen = 16

// RoleStatus tells a controller that its role changed (OpenFlow 1.4.1
// §7.4.4, ofp_role_status). Header.Type chooses the form: TypeRoleStatus
// is the OpenFlow 1.4 message, TypeExperimenter the ONF experimenter
// message ONFT_ROLE_STATUS (experimenter 0x4f4e4600, type 1911) with the
// same body, which OpenFlow 1.3 connections get. With any other Type (e.g.
// zero) the version decides: OpenFlow 1.4 and later use the standard form,
// OpenFlow 1.3 (and the zero Version) the ONF one. Decoding sets Type to
// the form found. Properties are kept opaque.
//
// The zero RoleStatus tells an OpenFlow 1.3 controller that it is
// OFPCR_ROLE_NOCHANGE at generation 0 because another asked to be master.
type RoleStatus struct {
	Header
	Role         uint32 // Role*
	Reason       uint8  // RoleReason*
	GenerationID uint64
	Properties   []byte
}

// AppendBinary appends the wire form of m to dst.
func (m *RoleStatus) AppendBinary(dst []byte) ([]byte, error) {
	standard := m.Version >= Version14
	switch m.Type {
	case TypeExperimenter:
		standard = false
	case TypeRoleStatus:
		standard = true
	}
	start := len(dst)
	t := TypeRoleStatus
	if standard {
		dst = appendHeader(dst, &m.Header, t)
	} else {
		t = TypeExperimenter
		dst = appendHeader(dst, &m.Header, t)
		dst = binary.BigEndian.AppendUint32(dst, ONFExperimenter)
		dst = binary.BigEndian.AppendUint32(dst, ONFTypeRoleStatus)
	}
	dst = binary.BigEndian.AppendUint32(dst, m.Role)
	dst = append(dst, m.Reason, 0, 0, 0)
	dst = binary.BigEndian.AppendUint64(dst, m.GenerationID)
	dst = append(dst, m.Properties...)
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *RoleStatus) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an OFPT_ROLE_STATUS or an ONF ONFT_ROLE_STATUS
// experimenter message; Properties are copied.
func (m *RoleStatus) UnmarshalBinary(b []byte) error {
	off := HeaderLen
	if len(b) >= 2 && Type(b[1]) == TypeExperimenter {
		if err := decodeHeader(&m.Header, b, TypeExperimenter, onfHeaderLen+roleStatusLen); err != nil {
			return err
		}
		if binary.BigEndian.Uint32(b[8:]) != ONFExperimenter {
			return &DecodeError{Type: TypeExperimenter, Field: "experimenter", Offset: 8, Err: ErrBadExperimenter}
		}
		if binary.BigEndian.Uint32(b[12:]) != ONFTypeRoleStatus {
			return &DecodeError{Type: TypeExperimenter, Field: "exp_type", Offset: 12, Err: ErrBadExperimenterType}
		}
		off = onfHeaderLen
	} else if err := decodeHeader(&m.Header, b, TypeRoleStatus, HeaderLen+roleStatusLen); err != nil {
		return err
	}
	m.Role = binary.BigEndian.Uint32(b[off:])
	m.Reason = b[off+4]
	m.GenerationID = binary.BigEndian.Uint64(b[off+8:])
	m.Properties = append(m.Properties[:0], b[off+roleStatusLen:]...)
	return nil
}
