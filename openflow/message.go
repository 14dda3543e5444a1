package openflow

import (
	"encoding/binary"
)

// decoders maps each message type to a constructor of its value; nil
// entries are types this package does not decode. Indexed by Type.
var decoders = [...]func() Message{
	TypeHello:                 func() Message { return new(Hello) },
	TypeError:                 func() Message { return new(ErrorMsg) },
	TypeEchoRequest:           func() Message { return new(EchoRequest) },
	TypeEchoReply:             func() Message { return new(EchoReply) },
	TypeExperimenter:          func() Message { return new(Experimenter) },
	TypeFeaturesRequest:       func() Message { return new(Empty) },
	TypeFeaturesReply:         func() Message { return new(FeaturesReply) },
	TypeGetConfigRequest:      func() Message { return new(Empty) },
	TypeGetConfigReply:        func() Message { return new(SwitchConfig) },
	TypeSetConfig:             func() Message { return new(SwitchConfig) },
	TypePacketIn:              func() Message { return new(PacketIn) },
	TypeFlowRemoved:           func() Message { return new(FlowRemoved) },
	TypePortStatus:            func() Message { return new(PortStatus) },
	TypePacketOut:             func() Message { return new(PacketOut) },
	TypeFlowMod:               func() Message { return new(FlowMod) },
	TypeGroupMod:              func() Message { return new(GroupMod) },
	TypePortMod:               func() Message { return new(PortMod) },
	TypeTableMod:              func() Message { return new(TableMod) },
	TypeMultipartRequest:      func() Message { return new(MultipartRequest) },
	TypeMultipartReply:        func() Message { return new(MultipartReply) },
	TypeBarrierRequest:        func() Message { return new(Empty) },
	TypeBarrierReply:          func() Message { return new(Empty) },
	TypeQueueGetConfigRequest: func() Message { return new(QueueGetConfigRequest) },
	TypeQueueGetConfigReply:   func() Message { return new(QueueGetConfigReply) },
	TypeRoleRequest:           func() Message { return new(Role) },
	TypeRoleReply:             func() Message { return new(Role) },
	TypeGetAsyncRequest:       func() Message { return new(Empty) },
	TypeGetAsyncReply:         func() Message { return new(AsyncConfig) },
	TypeSetAsync:              func() Message { return new(AsyncConfig) },
	TypeMeterMod:              func() Message { return new(MeterMod) },
	TypeBundleControl:         func() Message { return new(BundleControl) },
	TypeBundleAddMessage:      func() Message { return new(BundleAddMessage) },
}

// v14ok lists the types whose OpenFlow 1.4 layout equals the 1.3 one (or
// that exist only in 1.4) and which Decode therefore accepts at version
// 0x05: what ovs-ofctl sends in an OpenFlow 1.4 bundle session.
var v14ok = [...]bool{
	TypeHello: true, TypeError: true, TypeEchoRequest: true, TypeEchoReply: true,
	TypeExperimenter: true, TypeFeaturesRequest: true, TypeFlowMod: true, TypeBarrierRequest: true,
	TypeBarrierReply: true, TypeBundleControl: true, TypeBundleAddMessage: true,
}

// Decode decodes one whole message (as returned by Reader.Next) into a new
// value of its type, chosen through a table indexed by Type. It accepts a
// HELLO of any version, OpenFlow 1.3 messages, and at version 0x05 the
// messages OpenFlow 1.4 bundles use. ONF EXT-230 experimenter messages
// decode as *BundleControl and *BundleAddMessage; other experimenter
// messages as *Experimenter.
func Decode(b []byte) (Message, error) {
	m, err := newFor(b)
	if err != nil {
		return nil, err
	}
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return m, nil
}

// newFor returns a zero value of the message type of b, after checking the
// version.
func newFor(b []byte) (Message, error) {
	var h Header
	if err := h.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	if int(h.Type) >= len(decoders) || decoders[h.Type] == nil {
		return nil, &DecodeError{Type: h.Type, Field: "header.type", Offset: 1, Err: ErrBadType}
	}
	switch {
	case h.Type == TypeHello:
	case h.Version == Version13 && h.Type < TypeRoleStatus:
	case h.Version == Version14 && int(h.Type) < len(v14ok) && v14ok[h.Type]:
	default:
		return nil, &DecodeError{Type: h.Type, Field: "header.version", Offset: 0, Err: ErrUnsupportedVersion}
	}
	if h.Type == TypeExperimenter && len(b) >= onfHeaderLen && binary.BigEndian.Uint32(b[8:]) == ONFExperimenter {
		switch binary.BigEndian.Uint32(b[12:]) {
		case ONFTypeBundleControl:
			return new(BundleControl), nil
		case ONFTypeBundleAddMessage:
			return new(BundleAddMessage), nil
		}
	}
	return decoders[h.Type](), nil
}
