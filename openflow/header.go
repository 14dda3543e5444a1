package openflow

import (
	"encoding/binary"
	"strconv"
)

// Wire protocol versions (ofp_header.version, OpenFlow 1.3.5 §7.1.1).
const (
	Version10 uint8 = 0x01 // OpenFlow 1.0
	Version11 uint8 = 0x02 // OpenFlow 1.1
	Version12 uint8 = 0x03 // OpenFlow 1.2
	Version13 uint8 = 0x04 // OpenFlow 1.3, the version this package speaks
	Version14 uint8 = 0x05 // OpenFlow 1.4, used only for bundles
	Version15 uint8 = 0x06 // OpenFlow 1.5
)

// HeaderLen is the size of ofp_header.
const HeaderLen = 8

// MaxMessageLen is the largest length an ofp_header can state.
const MaxMessageLen = 0xffff

// Type is ofp_header.type, the message type (OpenFlow 1.3.5 §7.1.1, enum
// ofp_type). Types 30..34 are OpenFlow 1.4 additions; only the bundle
// messages among them are decoded.
type Type uint8

// Message types.
const (
	TypeHello                 Type = 0  // OFPT_HELLO
	TypeError                 Type = 1  // OFPT_ERROR
	TypeEchoRequest           Type = 2  // OFPT_ECHO_REQUEST
	TypeEchoReply             Type = 3  // OFPT_ECHO_REPLY
	TypeExperimenter          Type = 4  // OFPT_EXPERIMENTER
	TypeFeaturesRequest       Type = 5  // OFPT_FEATURES_REQUEST
	TypeFeaturesReply         Type = 6  // OFPT_FEATURES_REPLY
	TypeGetConfigRequest      Type = 7  // OFPT_GET_CONFIG_REQUEST
	TypeGetConfigReply        Type = 8  // OFPT_GET_CONFIG_REPLY
	TypeSetConfig             Type = 9  // OFPT_SET_CONFIG
	TypePacketIn              Type = 10 // OFPT_PACKET_IN
	TypeFlowRemoved           Type = 11 // OFPT_FLOW_REMOVED
	TypePortStatus            Type = 12 // OFPT_PORT_STATUS
	TypePacketOut             Type = 13 // OFPT_PACKET_OUT
	TypeFlowMod               Type = 14 // OFPT_FLOW_MOD
	TypeGroupMod              Type = 15 // OFPT_GROUP_MOD
	TypePortMod               Type = 16 // OFPT_PORT_MOD
	TypeTableMod              Type = 17 // OFPT_TABLE_MOD
	TypeMultipartRequest      Type = 18 // OFPT_MULTIPART_REQUEST
	TypeMultipartReply        Type = 19 // OFPT_MULTIPART_REPLY
	TypeBarrierRequest        Type = 20 // OFPT_BARRIER_REQUEST
	TypeBarrierReply          Type = 21 // OFPT_BARRIER_REPLY
	TypeQueueGetConfigRequest Type = 22 // OFPT_QUEUE_GET_CONFIG_REQUEST
	TypeQueueGetConfigReply   Type = 23 // OFPT_QUEUE_GET_CONFIG_REPLY
	TypeRoleRequest           Type = 24 // OFPT_ROLE_REQUEST
	TypeRoleReply             Type = 25 // OFPT_ROLE_REPLY
	TypeGetAsyncRequest       Type = 26 // OFPT_GET_ASYNC_REQUEST
	TypeGetAsyncReply         Type = 27 // OFPT_GET_ASYNC_REPLY
	TypeSetAsync              Type = 28 // OFPT_SET_ASYNC
	TypeMeterMod              Type = 29 // OFPT_METER_MOD
	TypeRoleStatus            Type = 30 // OFPT_ROLE_STATUS (OpenFlow 1.4)
	TypeTableStatus           Type = 31 // OFPT_TABLE_STATUS (OpenFlow 1.4)
	TypeRequestForward        Type = 32 // OFPT_REQUESTFORWARD (OpenFlow 1.4)
	TypeBundleControl         Type = 33 // OFPT_BUNDLE_CONTROL (OpenFlow 1.4)
	TypeBundleAddMessage      Type = 34 // OFPT_BUNDLE_ADD_MESSAGE (OpenFlow 1.4)
)

var typeNames = [...]string{
	"OFPT_HELLO", "OFPT_ERROR", "OFPT_ECHO_REQUEST", "OFPT_ECHO_REPLY",
	"OFPT_EXPERIMENTER", "OFPT_FEATURES_REQUEST", "OFPT_FEATURES_REPLY",
	"OFPT_GET_CONFIG_REQUEST", "OFPT_GET_CONFIG_REPLY", "OFPT_SET_CONFIG",
	"OFPT_PACKET_IN", "OFPT_FLOW_REMOVED", "OFPT_PORT_STATUS", "OFPT_PACKET_OUT",
	"OFPT_FLOW_MOD", "OFPT_GROUP_MOD", "OFPT_PORT_MOD", "OFPT_TABLE_MOD",
	"OFPT_MULTIPART_REQUEST", "OFPT_MULTIPART_REPLY", "OFPT_BARRIER_REQUEST",
	"OFPT_BARRIER_REPLY", "OFPT_QUEUE_GET_CONFIG_REQUEST",
	"OFPT_QUEUE_GET_CONFIG_REPLY", "OFPT_ROLE_REQUEST", "OFPT_ROLE_REPLY",
	"OFPT_GET_ASYNC_REQUEST", "OFPT_GET_ASYNC_REPLY", "OFPT_SET_ASYNC",
	"OFPT_METER_MOD", "OFPT_ROLE_STATUS", "OFPT_TABLE_STATUS",
	"OFPT_REQUESTFORWARD", "OFPT_BUNDLE_CONTROL", "OFPT_BUNDLE_ADD_MESSAGE",
}

// String returns the spec name, e.g. "OFPT_FLOW_MOD".
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "OFPT_" + strconv.Itoa(int(t))
}

// Header is ofp_header (OpenFlow 1.3.5 §7.1.1), the first 8 bytes of every
// message.
//
// When a message is encoded its Type and Length are computed, and a zero
// Version means Version13; only Version and XID are taken from the value.
type Header struct {
	Version uint8  // wire version; 0 encodes as Version13
	Type    Type   // message type; set by decoding, ignored by encoding
	Length  uint16 // total message length; set by decoding, ignored by encoding
	XID     uint32 // transaction id, copied from request to reply
}

// UnmarshalBinary decodes the first HeaderLen bytes of b. It checks only
// that the length field is at least HeaderLen, not that b holds the message.
func (h *Header) UnmarshalBinary(b []byte) error {
	if len(b) < HeaderLen {
		return &DecodeError{Field: "header", Offset: len(b), Err: ErrShortBuffer}
	}
	h.Version = b[0]
	h.Type = Type(b[1])
	h.Length = binary.BigEndian.Uint16(b[2:])
	h.XID = binary.BigEndian.Uint32(b[4:])
	if h.Length < HeaderLen {
		return &DecodeError{Type: h.Type, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	return nil
}

// AppendBinary appends the 8 header bytes as they are, Length included.
func (h Header) AppendBinary(dst []byte) ([]byte, error) {
	return append(dst, h.Version, uint8(h.Type), byte(h.Length>>8), byte(h.Length), byte(h.XID>>24), byte(h.XID>>16), byte(h.XID>>8), byte(h.XID)), nil
}

// MsgHeader returns h itself; every message embeds Header and so inherits
// this method, which is part of Message.
func (h *Header) MsgHeader() *Header { return h }

// appendHeader starts a message of type t at the end of dst. The length is
// filled in by finish.
func appendHeader(dst []byte, h *Header, t Type) []byte {
	v := h.Version
	if v == 0 {
		v = Version13
	}
	return append(dst, v, uint8(t), 0, 0, byte(h.XID>>24), byte(h.XID>>16), byte(h.XID>>8), byte(h.XID))
}

// finish writes the length of the message that starts at dst[start].
func finish(dst []byte, start int, t Type) ([]byte, error) {
	n := len(dst) - start
	if n > MaxMessageLen {
		return dst[:start], &EncodeError{Type: t, Field: "header.length", Err: ErrTooLong}
	}
	binary.BigEndian.PutUint16(dst[start+2:], uint16(n))
	return dst, nil
}

// decodeHeader fills h from b, checking that b is exactly one message of
// type t (or of one of the types alt, for messages that share a layout) and at
// least min bytes long.
func decodeHeader(h *Header, b []byte, t Type, min int) error {
	if err := h.UnmarshalBinary(b); err != nil {
		if de, ok := err.(*DecodeError); ok {
			de.Type = t
		}
		return err
	}
	if h.Type != t {
		return &DecodeError{Type: t, Field: "header.type", Offset: 1, Err: ErrBadType}
	}
	if h.Version == 0 {
		return &DecodeError{Type: t, Field: "header.version", Offset: 0, Err: ErrUnsupportedVersion}
	}
	if int(h.Length) != len(b) {
		return &DecodeError{Type: t, Field: "header.length", Offset: 2, Err: ErrBadLength}
	}
	if len(b) < min {
		return &DecodeError{Type: t, Field: "body", Offset: len(b), Err: ErrShortBuffer}
	}
	return nil
}
