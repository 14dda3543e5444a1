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
	TypeRoleStatus:            func() Message { return new(RoleStatus) },
	TypeBundleControl:         func() Message { return new(BundleControl) },
	TypeBundleAddMessage:      func() Message { return new(BundleAddMessage) },
}

// v14ok lists the types whose OpenFlow 1.4 layout equals the 1.3 one (or
// that exist only in 1.4, or whose 1.4 layout the value decodes at that
// version, as PortStatus, AsyncConfig, TableMod, PortMod and MultipartReply
// do) and
// which Decode therefore accepts at
// version 0x05: what ovs-ofctl sends in an OpenFlow 1.4 bundle session,
// and the asynchronous messages a switch sends a 1.4 controller.
var v14ok = [...]bool{
	TypeHello: true, TypeError: true, TypeEchoRequest: true, TypeEchoReply: true,
	TypeExperimenter: true, TypeFeaturesRequest: true, TypeFlowMod: true, TypeBarrierRequest: true,
	TypeBarrierReply: true, TypeBundleControl: true, TypeBundleAddMessage: true, TypeRoleStatus: true,
	TypePacketIn: true, TypePortStatus: true, TypeGetAsyncRequest: true, TypeGetAsyncReply: true, TypeSetAsync: true,
	TypeTableMod: true, TypeMultipartReply: true, TypePortMod: true,
}

// kindONFBundleControl and kindONFBundleAdd extend the Type index of
// decoders for the ONF EXT-230 experimenter messages.
const (
	kindONFBundleControl = len(decoders)
	kindONFBundleAdd     = len(decoders) + 1
	kindONFRoleStatus    = len(decoders) + 2
	kindFlowMonitorReq   = len(decoders) + 3
	kindFlowMonitorRep   = len(decoders) + 4
	kindONFMonitorCancel = len(decoders) + 5
	kindONFMonitorPause  = len(decoders) + 6
	kindNXTLVTableMod    = len(decoders) + 7
	kindNXTLVTableReq    = len(decoders) + 8
	kindNXTLVTableReply  = len(decoders) + 9
	numKinds             = len(decoders) + 10
)

func newKind(k int) Message {
	switch k {
	case kindONFBundleControl:
		return new(BundleControl)
	case kindONFBundleAdd:
		return new(BundleAddMessage)
	case kindONFRoleStatus:
		return new(RoleStatus)
	case kindFlowMonitorReq:
		return new(FlowMonitorRequest)
	case kindFlowMonitorRep:
		return new(FlowMonitorReply)
	case kindONFMonitorCancel:
		return new(FlowMonitorCancel)
	case kindONFMonitorPause:
		return new(FlowMonitorPause)
	case kindNXTLVTableMod:
		return new(TLVTableMod)
	case kindNXTLVTableReq:
		return new(TLVTableRequest)
	case kindNXTLVTableReply:
		return new(TLVTableReply)
	}
	return decoders[k]()
}

// Decode decodes one whole message (as returned by Reader.Next) into a new
// value of its type, chosen through a table indexed by Type. It accepts a
// HELLO of any version, OpenFlow 1.3 messages, and at version 0x05 the
// messages OpenFlow 1.4 bundles use. ONF EXT-230 experimenter messages
// decode as *BundleControl and *BundleAddMessage; other experimenter
// messages as *Experimenter, except ONFT_ROLE_STATUS, which decodes as
// *RoleStatus, as does OFPT_ROLE_STATUS at version 0x05. Flow monitor
// requests and replies (OFPMP_FLOW_MONITOR at version 0x05,
// ONFST_FLOW_MONITOR at 0x04) decode as *FlowMonitorRequest and
// *FlowMonitorReply, ONFT_FLOW_MONITOR_CANCEL as *FlowMonitorCancel,
// ONFT_FLOW_MONITOR_PAUSED and _RESUMED as *FlowMonitorPause, and
// Nicira's NXT_TLV_TABLE_MOD, _REQUEST and _REPLY as *TLVTableMod,
// *TLVTableRequest and *TLVTableReply.
func Decode(b []byte) (Message, error) {
	k, err := kindOf(b)
	if err != nil {
		return nil, err
	}
	m := newKind(k)
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return m, nil
}

// Decoder is Decode with memory: it keeps one value per message type and
// decodes into it again, reusing its slices, so that a connection's steady
// stream of messages decodes without allocating. The value returned by
// Decode is valid until the next call that returns the same type.
//
// A Decoder is not safe for concurrent use; its zero value is ready.
type Decoder struct {
	values [numKinds]Message
}

// Decode decodes b like the package-level Decode, into a reused value.
func (d *Decoder) Decode(b []byte) (Message, error) {
	k, err := kindOf(b)
	if err != nil {
		return nil, err
	}
	m := d.values[k]
	if m == nil {
		m = newKind(k)
		d.values[k] = m
	}
	if err := m.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return m, nil
}

// kindOf returns the decoders index for b (its Type, or one of the ONF
// kinds), after checking the version.
func kindOf(b []byte) (int, error) {
	var h Header
	if err := h.UnmarshalBinary(b); err != nil {
		return 0, err
	}
	if int(h.Type) >= len(decoders) || decoders[h.Type] == nil {
		return 0, &DecodeError{Type: h.Type, Field: "header.type", Offset: 1, Err: ErrBadType}
	}
	if (h.Version == Version13 || h.Version == Version14) && IsFlowMonitor(b) {
		if h.Type == TypeMultipartRequest {
			return kindFlowMonitorReq, nil
		}
		return kindFlowMonitorRep, nil
	}
	switch {
	case h.Type == TypeHello:
	case h.Version == Version13 && h.Type < TypeRoleStatus:
	case h.Version == Version14 && int(h.Type) < len(v14ok) && v14ok[h.Type]:
	default:
		return 0, &DecodeError{Type: h.Type, Field: "header.version", Offset: 0, Err: ErrUnsupportedVersion}
	}
	if h.Type == TypeExperimenter && len(b) >= onfHeaderLen && binary.BigEndian.Uint32(b[8:]) == ONFExperimenter {
		switch binary.BigEndian.Uint32(b[12:]) {
		case ONFTypeBundleControl:
			return kindONFBundleControl, nil
		case ONFTypeBundleAddMessage:
			return kindONFBundleAdd, nil
		case ONFTypeRoleStatus:
			return kindONFRoleStatus, nil
		case ONFTypeFlowMonitor:
			return kindONFMonitorCancel, nil
		case ONFTypeFlowMonitorPaused, ONFTypeFlowMonitorResumed:
			return kindONFMonitorPause, nil
		}
	}
	if h.Type == TypeExperimenter && len(b) >= onfHeaderLen && binary.BigEndian.Uint32(b[8:]) == NXExperimenter {
		switch binary.BigEndian.Uint32(b[12:]) {
		case NXTypeTLVTableMod:
			return kindNXTLVTableMod, nil
		case NXTypeTLVTableRequest:
			return kindNXTLVTableReq, nil
		case NXTypeTLVTableReply:
			return kindNXTLVTableReply, nil
		}
	}
	return int(h.Type), nil
}
