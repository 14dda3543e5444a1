package openflow

import (
	"encoding/binary"
)

// EchoRequest is an OFPT_ECHO_REQUEST (OpenFlow 1.3.5 §7.5.2). Data is
// arbitrary and is echoed back in the reply.
type EchoRequest struct {
	Header
	Data []byte
}

// EchoReply is an OFPT_ECHO_REPLY (OpenFlow 1.3.5 §7.5.3).
type EchoReply struct {
	Header
	Data []byte
}

// AppendBinary appends the wire form of m to dst.
func (m *EchoRequest) AppendBinary(dst []byte) ([]byte, error) {
	return appendOpaque(dst, &m.Header, TypeEchoRequest, m.Data)
}

// MarshalBinary returns the wire form of m.
func (m *EchoRequest) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one message; Data is copied.
func (m *EchoRequest) UnmarshalBinary(b []byte) error {
	return decodeOpaque(&m.Header, &m.Data, b, TypeEchoRequest)
}

// AppendBinary appends the wire form of m to dst.
func (m *EchoReply) AppendBinary(dst []byte) ([]byte, error) {
	return appendOpaque(dst, &m.Header, TypeEchoReply, m.Data)
}

// MarshalBinary returns the wire form of m.
func (m *EchoReply) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one message; Data is copied.
func (m *EchoReply) UnmarshalBinary(b []byte) error {
	return decodeOpaque(&m.Header, &m.Data, b, TypeEchoReply)
}

func appendOpaque(dst []byte, h *Header, t Type, data []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, h, t)
	dst = append(dst, data...)
	return finish(dst, start, t)
}

func decodeOpaque(h *Header, data *[]byte, b []byte, t Type) error {
	if err := decodeHeader(h, b, t, HeaderLen); err != nil {
		return err
	}
	*data = append((*data)[:0], b[HeaderLen:]...)
	return nil
}

// Empty is a message that is only a header: FEATURES_REQUEST,
// GET_CONFIG_REQUEST, BARRIER_REQUEST/REPLY and GET_ASYNC_REQUEST
// (OpenFlow 1.3.5 §7.3.1, §7.3.2, §7.3.8, §7.3.10). Its Header.Type says
// which; a zero Type encodes as OFPT_HELLO, so always set it.
type Empty struct {
	Header
}

// AppendBinary appends the wire form of m (its Header with Length 8).
func (m *Empty) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, m.Type)
	return finish(dst, start, m.Type)
}

// MarshalBinary returns the wire form of m.
func (m *Empty) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes a header-only message of any type; a body is an
// error (BAD_REQUEST/BAD_LEN).
func (m *Empty) UnmarshalBinary(b []byte) error {
	if len(b) < 2 {
		return m.Header.UnmarshalBinary(b)
	}
	if err := decodeHeader(&m.Header, b, Type(b[1]), HeaderLen); err != nil {
		return err
	}
	if len(b) != HeaderLen {
		return &DecodeError{Type: m.Type, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	return nil
}

// NewBarrierRequest returns an OFPT_BARRIER_REQUEST.
func NewBarrierRequest(xid uint32) Empty {
	return Empty{Header{Version: Version13, Type: TypeBarrierRequest, XID: xid}}
}

// Switch capabilities (OpenFlow 1.3.5 §7.3.1, enum ofp_capabilities).
const (
	CapFlowStats   uint32 = 1 << 0 // OFPC_FLOW_STATS
	CapTableStats  uint32 = 1 << 1 // OFPC_TABLE_STATS
	CapPortStats   uint32 = 1 << 2 // OFPC_PORT_STATS
	CapGroupStats  uint32 = 1 << 3 // OFPC_GROUP_STATS
	CapIPReasm     uint32 = 1 << 5 // OFPC_IP_REASM
	CapQueueStats  uint32 = 1 << 6 // OFPC_QUEUE_STATS
	CapPortBlocked uint32 = 1 << 8 // OFPC_PORT_BLOCKED
	// CapBundles says the switch takes bundles, on OpenFlow 1.4 and later
	// (bit 9, which Open vSwitch names OFPC14_BUNDLES and ovs-ofctl shows
	// as BUNDLES).
	CapBundles uint32 = 1 << 9
)

// FeaturesReply is an OFPT_FEATURES_REPLY (OpenFlow 1.3.5 §7.3.1,
// ofp_switch_features).
type FeaturesReply struct {
	Header
	DatapathID   uint64
	NBuffers     uint32
	NTables      uint8
	AuxiliaryID  uint8
	Capabilities uint32 // CapFlowStats | ...
	Reserved     uint32
}

const featuresReplyLen = 32

// AppendBinary appends the wire form of m to dst.
func (m *FeaturesReply) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeFeaturesReply)
	dst = binary.BigEndian.AppendUint64(dst, m.DatapathID)
	dst = binary.BigEndian.AppendUint32(dst, m.NBuffers)
	dst = append(dst, m.NTables, m.AuxiliaryID, 0, 0)
	dst = binary.BigEndian.AppendUint32(dst, m.Capabilities)
	dst = binary.BigEndian.AppendUint32(dst, m.Reserved)
	return finish(dst, start, TypeFeaturesReply)
}

// MarshalBinary returns the wire form of m.
func (m *FeaturesReply) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one message.
func (m *FeaturesReply) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeFeaturesReply, featuresReplyLen); err != nil {
		return err
	}
	if len(b) != featuresReplyLen {
		return &DecodeError{Type: TypeFeaturesReply, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	m.DatapathID = binary.BigEndian.Uint64(b[8:])
	m.NBuffers = binary.BigEndian.Uint32(b[16:])
	m.NTables = b[20]
	m.AuxiliaryID = b[21]
	m.Capabilities = binary.BigEndian.Uint32(b[24:])
	m.Reserved = binary.BigEndian.Uint32(b[28:])
	return nil
}

// Switch configuration flags (OpenFlow 1.3.5 §7.3.2, enum ofp_config_flags).
const (
	ConfigFragNormal uint16 = 0 // OFPC_FRAG_NORMAL
	ConfigFragDrop   uint16 = 1 // OFPC_FRAG_DROP
	ConfigFragReasm  uint16 = 2 // OFPC_FRAG_REASM
	ConfigFragMask   uint16 = 3 // OFPC_FRAG_MASK
)

// ControllerMaxLenNoBuffer (OFPCML_NO_BUFFER) asks for whole packets.
const ControllerMaxLenNoBuffer uint16 = 0xffff

// SwitchConfig is ofp_switch_config, the body of OFPT_GET_CONFIG_REPLY and
// OFPT_SET_CONFIG (OpenFlow 1.3.5 §7.3.2). Header.Type says which; a zero
// Type encodes as OFPT_SET_CONFIG.
type SwitchConfig struct {
	Header
	Flags       uint16 // ConfigFrag*
	MissSendLen uint16 // bytes of a table-miss packet sent to the controller
}

// AppendBinary appends the wire form of m to dst.
func (m *SwitchConfig) AppendBinary(dst []byte) ([]byte, error) {
	t := m.Type
	if t != TypeGetConfigReply {
		t = TypeSetConfig
	}
	start := len(dst)
	dst = appendHeader(dst, &m.Header, t)
	dst = binary.BigEndian.AppendUint16(dst, m.Flags)
	dst = binary.BigEndian.AppendUint16(dst, m.MissSendLen)
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *SwitchConfig) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes a GET_CONFIG_REPLY or SET_CONFIG.
func (m *SwitchConfig) UnmarshalBinary(b []byte) error {
	t := TypeSetConfig
	if len(b) > 1 && Type(b[1]) == TypeGetConfigReply {
		t = TypeGetConfigReply
	}
	if err := decodeHeader(&m.Header, b, t, 12); err != nil {
		return err
	}
	if len(b) != 12 {
		return &DecodeError{Type: t, Field: "header.length", Offset: 2, Err: ErrBadConfigLength}
	}
	m.Flags = binary.BigEndian.Uint16(b[8:])
	m.MissSendLen = binary.BigEndian.Uint16(b[10:])
	return nil
}

// Controller roles (OpenFlow 1.3.5 §7.3.9, enum ofp_controller_role).
const (
	RoleNoChange uint32 = 0 // OFPCR_ROLE_NOCHANGE
	RoleEqual    uint32 = 1 // OFPCR_ROLE_EQUAL
	RoleMaster   uint32 = 2 // OFPCR_ROLE_MASTER
	RoleSlave    uint32 = 3 // OFPCR_ROLE_SLAVE
)

// Role is ofp_role_request, the body of OFPT_ROLE_REQUEST and
// OFPT_ROLE_REPLY (OpenFlow 1.3.5 §7.3.9). Header.Type says which; a zero
// Type encodes as OFPT_ROLE_REQUEST.
type Role struct {
	Header
	Role         uint32 // Role*
	GenerationID uint64
}

// AppendBinary appends the wire form of m to dst.
func (m *Role) AppendBinary(dst []byte) ([]byte, error) {
	t := m.Type
	if t != TypeRoleReply {
		t = TypeRoleRequest
	}
	start := len(dst)
	dst = appendHeader(dst, &m.Header, t)
	dst = binary.BigEndian.AppendUint32(dst, m.Role)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint64(dst, m.GenerationID)
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *Role) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes a ROLE_REQUEST or ROLE_REPLY.
func (m *Role) UnmarshalBinary(b []byte) error {
	t := TypeRoleRequest
	if len(b) > 1 && Type(b[1]) == TypeRoleReply {
		t = TypeRoleReply
	}
	if err := decodeHeader(&m.Header, b, t, 24); err != nil {
		return err
	}
	if len(b) != 24 {
		return &DecodeError{Type: t, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	m.Role = binary.BigEndian.Uint32(b[8:])
	m.GenerationID = binary.BigEndian.Uint64(b[16:])
	return nil
}

// AsyncConfig is ofp_async_config, the body of OFPT_GET_ASYNC_REPLY and
// OFPT_SET_ASYNC (OpenFlow 1.3.5 §7.3.10). Index 0 of each mask applies to
// the master and equal roles, index 1 to the slave role; bit n of a mask
// enables reason n. Header.Type says which message; a zero Type encodes as
// OFPT_SET_ASYNC.
//
// At Version14 the message is OpenFlow 1.4's (OpenFlow 1.4.1 §7.3.10): a
// list of 8-byte OFPACPT_* properties, one per mask and role, of which
// Props says which are present (a SET_ASYNC changes only those). The
// masks of ROLE_STATUS, TABLE_STATUS and REQUESTFORWARD exist only there.
// Experimenter properties, and a type given twice, are refused
// (ErrBadProperty).
type AsyncConfig struct {
	Header
	PacketInMask    [2]uint32
	PortStatusMask  [2]uint32
	FlowRemovedMask [2]uint32

	RoleStatusMask     [2]uint32 // Version14 only
	TableStatusMask    [2]uint32 // Version14 only
	RequestForwardMask [2]uint32 // Version14 only
	// Props has bit t set when the property of type t (AsyncProp*) is
	// present; Version14 only.
	Props uint16
}

// OpenFlow 1.4 asynchronous configuration property types (enum
// ofp_async_config_prop_type): even types are the slave's mask, odd ones
// the master's (and equal's).
const (
	AsyncPropPacketInSlave        = 0  // OFPACPT_PACKET_IN_SLAVE
	AsyncPropPacketInMaster       = 1  // OFPACPT_PACKET_IN_MASTER
	AsyncPropPortStatusSlave      = 2  // OFPACPT_PORT_STATUS_SLAVE
	AsyncPropPortStatusMaster     = 3  // OFPACPT_PORT_STATUS_MASTER
	AsyncPropFlowRemovedSlave     = 4  // OFPACPT_FLOW_REMOVED_SLAVE
	AsyncPropFlowRemovedMaster    = 5  // OFPACPT_FLOW_REMOVED_MASTER
	AsyncPropRoleStatusSlave      = 6  // OFPACPT_ROLE_STATUS_SLAVE
	AsyncPropRoleStatusMaster     = 7  // OFPACPT_ROLE_STATUS_MASTER
	AsyncPropTableStatusSlave     = 8  // OFPACPT_TABLE_STATUS_SLAVE
	AsyncPropTableStatusMaster    = 9  // OFPACPT_TABLE_STATUS_MASTER
	AsyncPropRequestForwardSlave  = 10 // OFPACPT_REQUESTFORWARD_SLAVE
	AsyncPropRequestForwardMaster = 11 // OFPACPT_REQUESTFORWARD_MASTER
	// AsyncPropsAll has the bit of every property type above.
	AsyncPropsAll uint16 = 1<<12 - 1
)

// mask returns the mask that property type t sets.
func (m *AsyncConfig) mask(t int) *uint32 {
	pairs := [...]*[2]uint32{&m.PacketInMask, &m.PortStatusMask, &m.FlowRemovedMask,
		&m.RoleStatusMask, &m.TableStatusMask, &m.RequestForwardMask}
	role := 0 // master and equal
	if t%2 == 0 {
		role = 1 // slave
	}
	return &pairs[t/2][role]
}

// AppendBinary appends the wire form of m to dst.
func (m *AsyncConfig) AppendBinary(dst []byte) ([]byte, error) {
	t := m.Type
	if t != TypeGetAsyncReply {
		t = TypeSetAsync
	}
	start := len(dst)
	dst = appendHeader(dst, &m.Header, t)
	if m.Version >= Version14 {
		for p := 0; p < 12; p++ {
			if m.Props&(1<<p) != 0 {
				dst = binary.BigEndian.AppendUint16(dst, uint16(p))
				dst = binary.BigEndian.AppendUint16(dst, 8)
				dst = binary.BigEndian.AppendUint32(dst, *m.mask(p))
			}
		}
		return finish(dst, start, t)
	}
	for _, w := range [...]uint32{m.PacketInMask[0], m.PacketInMask[1], m.PortStatusMask[0],
		m.PortStatusMask[1], m.FlowRemovedMask[0], m.FlowRemovedMask[1]} {
		dst = binary.BigEndian.AppendUint32(dst, w)
	}
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *AsyncConfig) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes a GET_ASYNC_REPLY or SET_ASYNC.
func (m *AsyncConfig) UnmarshalBinary(b []byte) error {
	t := TypeSetAsync
	if len(b) > 1 && Type(b[1]) == TypeGetAsyncReply {
		t = TypeGetAsyncReply
	}
	min := 32
	if len(b) > 0 && b[0] >= Version14 {
		min = HeaderLen
	}
	if err := decodeHeader(&m.Header, b, t, min); err != nil {
		return err
	}
	m.RoleStatusMask, m.TableStatusMask, m.RequestForwardMask, m.Props = [2]uint32{}, [2]uint32{}, [2]uint32{}, 0
	if m.Version >= Version14 {
		m.PacketInMask, m.PortStatusMask, m.FlowRemovedMask = [2]uint32{}, [2]uint32{}, [2]uint32{}
		for off := HeaderLen; off < len(b); off += 8 {
			if len(b)-off < 8 || binary.BigEndian.Uint16(b[off+2:]) != 8 {
				return &DecodeError{Type: t, Field: "properties.length", Offset: off + 2, Err: ErrBadProperty}
			}
			p := int(binary.BigEndian.Uint16(b[off:]))
			if p >= 12 || m.Props&(1<<p) != 0 {
				// Unknown, experimenter, or twice.
				return &DecodeError{Type: t, Field: "properties.type", Offset: off, Err: ErrBadProperty}
			}
			*m.mask(p) = binary.BigEndian.Uint32(b[off+4:])
			m.Props |= 1 << p
		}
		return nil
	}
	if len(b) != 32 {
		return &DecodeError{Type: t, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	u := func(i int) uint32 { return binary.BigEndian.Uint32(b[8+4*i:]) }
	m.PacketInMask = [2]uint32{u(0), u(1)}
	m.PortStatusMask = [2]uint32{u(2), u(3)}
	m.FlowRemovedMask = [2]uint32{u(4), u(5)}
	return nil
}

// Experimenter is an OFPT_EXPERIMENTER message (OpenFlow 1.3.5 §7.5.4),
// kept opaque. ONF bundle messages (EXT-230) travel as experimenter messages
// over OpenFlow 1.3; Decode turns those into BundleControl and
// BundleAddMessage instead.
type Experimenter struct {
	Header
	Experimenter uint32 // experimenter id (OUI or ONF-assigned)
	ExpType      uint32 // experimenter-defined type
	Data         []byte // experimenter-defined body
}

// AppendBinary appends the wire form of m to dst.
func (m *Experimenter) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeExperimenter)
	dst = binary.BigEndian.AppendUint32(dst, m.Experimenter)
	dst = binary.BigEndian.AppendUint32(dst, m.ExpType)
	dst = append(dst, m.Data...)
	return finish(dst, start, TypeExperimenter)
}

// MarshalBinary returns the wire form of m.
func (m *Experimenter) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one message; Data is copied.
func (m *Experimenter) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeExperimenter, 16); err != nil {
		return err
	}
	m.Experimenter = binary.BigEndian.Uint32(b[8:])
	m.ExpType = binary.BigEndian.Uint32(b[12:])
	m.Data = append(m.Data[:0], b[16:]...)
	return nil
}
