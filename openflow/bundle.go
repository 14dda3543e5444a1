package openflow

import (
	"encoding/binary"

	"github.com/ofswitch/ofswitch/internal/wire"
)

// ONF experimenter id and the EXT-230 message types that carry bundles over
// OpenFlow 1.3 (ONF extension 230, as sent by ovs-ofctl --bundle).
const (
	ONFExperimenter         uint32 = 0x4f4e4600 // ONF_EXPERIMENTER_ID
	ONFTypeBundleControl    uint32 = 2300       // ONFT_BUNDLE_CONTROL
	ONFTypeBundleAddMessage uint32 = 2301       // ONFT_BUNDLE_ADD_MESSAGE
)

// Bundle control types (OpenFlow 1.4.1 §7.3.9.1, enum ofp_bundle_ctrl_type).
const (
	BundleOpenRequest    uint16 = 0 // OFPBCT_OPEN_REQUEST
	BundleOpenReply      uint16 = 1 // OFPBCT_OPEN_REPLY
	BundleCloseRequest   uint16 = 2 // OFPBCT_CLOSE_REQUEST
	BundleCloseReply     uint16 = 3 // OFPBCT_CLOSE_REPLY
	BundleCommitRequest  uint16 = 4 // OFPBCT_COMMIT_REQUEST
	BundleCommitReply    uint16 = 5 // OFPBCT_COMMIT_REPLY
	BundleDiscardRequest uint16 = 6 // OFPBCT_DISCARD_REQUEST
	BundleDiscardReply   uint16 = 7 // OFPBCT_DISCARD_REPLY
)

// Bundle flags (OpenFlow 1.4.1 §7.3.9, enum ofp_bundle_flags).
const (
	BundleAtomic  uint16 = 1 << 0 // OFPBF_ATOMIC
	BundleOrdered uint16 = 1 << 1 // OFPBF_ORDERED
)

// onfHeaderLen is the size of the experimenter header in front of an
// EXT-230 body.
const onfHeaderLen = 16

// BundleControl is a bundle control message (OpenFlow 1.4.1 §7.3.9.1,
// ofp_bundle_ctrl_msg). Header.Type chooses the form: TypeBundleControl
// is the OpenFlow 1.4 message, TypeExperimenter the ONF EXT-230
// experimenter message ONFT_BUNDLE_CONTROL with the same body. With any
// other Type (e.g. zero) the version decides: OpenFlow 1.4 and later use the
// standard form, OpenFlow 1.3 (and the zero Version) the ONF one. Decoding
// sets Type to the form found. Properties are kept opaque.
type BundleControl struct {
	Header
	BundleID   uint32
	Type       uint16 // Bundle*Request / Bundle*Reply
	Flags      uint16 // BundleAtomic | BundleOrdered
	Properties []byte
}

// BundleAddMessage adds one message to a bundle (OpenFlow 1.4.1 §7.3.9.6,
// ofp_bundle_add_msg); Header.Type and Version choose the form as for
// BundleControl (TypeBundleAddMessage or TypeExperimenter).
// Message holds the complete inner message, header included.
type BundleAddMessage struct {
	Header
	BundleID   uint32
	Flags      uint16
	Message    []byte
	Properties []byte
}

func bundleStart(dst []byte, h *Header, exp uint32) ([]byte, Type) {
	standard := h.Version >= Version14
	switch h.Type {
	case TypeExperimenter:
		standard = false
	case TypeBundleControl, TypeBundleAddMessage:
		standard = true
	}
	if standard {
		t := TypeBundleControl
		if exp == ONFTypeBundleAddMessage {
			t = TypeBundleAddMessage
		}
		return appendHeader(dst, h, t), t
	}
	dst = appendHeader(dst, h, TypeExperimenter)
	dst = binary.BigEndian.AppendUint32(dst, ONFExperimenter)
	return binary.BigEndian.AppendUint32(dst, exp), TypeExperimenter
}

// bundleBody checks the header of a bundle message in either form and
// returns the offset of its body.
func bundleBody(h *Header, b []byte, t Type, exp uint32, min int) (int, error) {
	if len(b) >= 2 && Type(b[1]) == TypeExperimenter {
		if err := decodeHeader(h, b, TypeExperimenter, onfHeaderLen+min); err != nil {
			return 0, err
		}
		if binary.BigEndian.Uint32(b[8:]) != ONFExperimenter {
			return 0, &DecodeError{Type: TypeExperimenter, Field: "experimenter", Offset: 8, Err: ErrBadExperimenter}
		}
		if binary.BigEndian.Uint32(b[12:]) != exp {
			return 0, &DecodeError{Type: TypeExperimenter, Field: "exp_type", Offset: 12, Err: ErrBadExperimenterType}
		}
		return onfHeaderLen, nil
	}
	if err := decodeHeader(h, b, t, HeaderLen+min); err != nil {
		return 0, err
	}
	return HeaderLen, nil
}

// AppendBinary appends the wire form of m to dst.
func (m *BundleControl) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst, t := bundleStart(dst, &m.Header, ONFTypeBundleControl)
	dst = binary.BigEndian.AppendUint32(dst, m.BundleID)
	dst = binary.BigEndian.AppendUint16(dst, m.Type)
	dst = binary.BigEndian.AppendUint16(dst, m.Flags)
	dst = append(dst, m.Properties...)
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *BundleControl) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an OFPT_BUNDLE_CONTROL or an ONF EXT-230
// ONFT_BUNDLE_CONTROL experimenter message.
func (m *BundleControl) UnmarshalBinary(b []byte) error {
	off, err := bundleBody(&m.Header, b, TypeBundleControl, ONFTypeBundleControl, 8)
	if err != nil {
		return err
	}
	m.BundleID = binary.BigEndian.Uint32(b[off:])
	m.Type = binary.BigEndian.Uint16(b[off+4:])
	m.Flags = binary.BigEndian.Uint16(b[off+6:])
	m.Properties = append(m.Properties[:0], b[off+8:]...)
	return nil
}

// AppendBinary appends the wire form of m to dst.
func (m *BundleAddMessage) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst, t := bundleStart(dst, &m.Header, ONFTypeBundleAddMessage)
	dst = binary.BigEndian.AppendUint32(dst, m.BundleID)
	dst = append(dst, 0, 0)
	dst = binary.BigEndian.AppendUint16(dst, m.Flags)
	if len(m.Message) < HeaderLen || int(binary.BigEndian.Uint16(m.Message[2:])) != len(m.Message) {
		return dst[:start], &EncodeError{Type: t, Field: "message", Err: ErrBadBundle}
	}
	ms := len(dst)
	dst = append(dst, m.Message...)
	if len(m.Properties) > 0 {
		dst = wire.PadTo8(dst, ms)
		dst = append(dst, m.Properties...)
	}
	return finish(dst, start, t)
}

// MarshalBinary returns the wire form of m.
func (m *BundleAddMessage) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes an OFPT_BUNDLE_ADD_MESSAGE or an ONF EXT-230
// ONFT_BUNDLE_ADD_MESSAGE. The inner message is framed by its own length
// and copied; use Inner to decode it.
func (m *BundleAddMessage) UnmarshalBinary(b []byte) error {
	off, err := bundleBody(&m.Header, b, TypeBundleAddMessage, ONFTypeBundleAddMessage, 8+HeaderLen)
	if err != nil {
		return err
	}
	m.BundleID = binary.BigEndian.Uint32(b[off:])
	m.Flags = binary.BigEndian.Uint16(b[off+6:])
	ms := off + 8
	n := int(binary.BigEndian.Uint16(b[ms+2:]))
	if n < HeaderLen || ms+n > len(b) {
		return &DecodeError{Type: m.Header.Type, Field: "message.length", Offset: ms + 2, Err: ErrBadBundle}
	}
	m.Message = append(m.Message[:0], b[ms:ms+n]...)
	rest := b[ms+n:]
	m.Properties = m.Properties[:0]
	if len(rest) > 0 {
		pad := wire.Align8(n) - n
		if len(rest) <= pad {
			return &DecodeError{Type: m.Header.Type, Field: "properties", Offset: ms + n, Err: ErrBadBundle}
		}
		m.Properties = append(m.Properties, rest[pad:]...)
	}
	return nil
}

// Inner decodes the bundled message.
func (m *BundleAddMessage) Inner() (Message, error) { return Decode(m.Message) }
