package openflow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors. Every decoding failure unwraps (errors.Is) to exactly one
// of them; ErrorFor maps each to the OFPT_ERROR (type, code) that OpenFlow
// 1.3.5 §7.4.4 prescribes for it.
var (
	ErrShortBuffer          = errors.New("openflow: short buffer")                          // BAD_REQUEST/BAD_LEN
	ErrBadLength            = errors.New("openflow: length field disagrees with data")      // BAD_REQUEST/BAD_LEN
	ErrTooLong              = errors.New("openflow: message longer than allowed")           // BAD_REQUEST/BAD_LEN
	ErrUnsupportedVersion   = errors.New("openflow: unsupported version")                   // BAD_REQUEST/BAD_VERSION
	ErrIncompatible         = errors.New("openflow: no common version")                     // HELLO_FAILED/INCOMPATIBLE
	ErrBadType              = errors.New("openflow: unknown message type")                  // BAD_REQUEST/BAD_TYPE
	ErrBadMultipart         = errors.New("openflow: unknown multipart type")                // BAD_REQUEST/BAD_MULTIPART
	ErrBadExperimenter      = errors.New("openflow: unknown experimenter")                  // BAD_REQUEST/BAD_EXPERIMENTER
	ErrBadMatchType         = errors.New("openflow: unsupported match type")                // BAD_MATCH/BAD_TYPE
	ErrBadMatchLength       = errors.New("openflow: bad match or OXM length")               // BAD_MATCH/BAD_LEN
	ErrBadField             = errors.New("openflow: unknown OXM field")                     // BAD_MATCH/BAD_FIELD
	ErrBadMask              = errors.New("openflow: mask on a field that cannot be masked") // BAD_MATCH/BAD_MASK
	ErrBadValue             = errors.New("openflow: bad OXM value")                         // BAD_MATCH/BAD_VALUE
	ErrBadWildcards         = errors.New("openflow: OXM value has bits outside its mask")   // BAD_MATCH/BAD_WILDCARDS
	ErrDuplicateField       = errors.New("openflow: OXM field appears twice")               // BAD_MATCH/DUP_FIELD
	ErrBadPrereq            = errors.New("openflow: OXM prerequisite not met")              // BAD_MATCH/BAD_PREREQ
	ErrUnknownInstruction   = errors.New("openflow: unknown instruction")                   // BAD_INSTRUCTION/UNKNOWN_INST
	ErrBadInstructionLength = errors.New("openflow: bad instruction length")                // BAD_INSTRUCTION/BAD_LEN
	ErrDuplicateInstruction = errors.New("openflow: instruction type appears twice")        // BAD_INSTRUCTION/DUP_INST
	ErrBadActionType        = errors.New("openflow: unknown action")                        // BAD_ACTION/BAD_TYPE
	ErrBadActionLength      = errors.New("openflow: bad action length")                     // BAD_ACTION/BAD_LEN
	ErrBadSetType           = errors.New("openflow: set_field of an unsupported field")     // BAD_ACTION/BAD_SET_TYPE
	ErrBadSetLength         = errors.New("openflow: bad set_field length")                  // BAD_ACTION/BAD_SET_LEN
	ErrBadSetArgument       = errors.New("openflow: bad set_field argument")                // BAD_ACTION/BAD_SET_ARGUMENT
	ErrBadFlowCommand       = errors.New("openflow: unknown flow_mod command")              // FLOW_MOD_FAILED/BAD_COMMAND
	ErrBadGroupCommand      = errors.New("openflow: unknown group_mod command")             // GROUP_MOD_FAILED/BAD_COMMAND
	ErrBadBucket            = errors.New("openflow: bad group bucket")                      // GROUP_MOD_FAILED/BAD_BUCKET
	ErrBadMeterCommand      = errors.New("openflow: unknown meter_mod command")             // METER_MOD_FAILED/BAD_COMMAND
	ErrBadMeterBand         = errors.New("openflow: bad meter band")                        // METER_MOD_FAILED/BAD_BAND
	ErrBadTableFeatures     = errors.New("openflow: bad table features length")             // TABLE_FEATURES_FAILED/BAD_LEN
	ErrBadProperty          = errors.New("openflow: bad property")                          // BAD_REQUEST/BAD_LEN
	ErrBadBundle            = errors.New("openflow: bad bundle message")                    // BAD_REQUEST/BAD_LEN
	ErrBadPortMod           = errors.New("openflow: bad port_mod")                          // BAD_REQUEST/BAD_LEN
	ErrBadHelloElement      = errors.New("openflow: bad hello element")                     // HELLO_FAILED/INCOMPATIBLE
	ErrBadConfigLength      = errors.New("openflow: bad switch config length")              // SWITCH_CONFIG_FAILED/BAD_LEN
	ErrBadQueueProperty     = errors.New("openflow: bad queue property")                    // QUEUE_OP_FAILED/BAD_QUEUE
	ErrBadErrorMsg          = errors.New("openflow: bad error message")                     // BAD_REQUEST/BAD_LEN
	ErrBadExperimenterType  = errors.New("openflow: unknown experimenter message type")     // BAD_REQUEST/BAD_EXP_TYPE
	ErrBadTableID           = errors.New("openflow: bad table id")                          // BAD_REQUEST/BAD_TABLE_ID
	ErrBadFlowMonitor       = errors.New("openflow: bad flow monitor entry")                // BAD_REQUEST/BAD_LEN
)

// sentinelCodes maps each sentinel to its OFPT_ERROR (type, code).
var sentinelCodes = [...]struct {
	err  error
	typ  ErrorType
	code uint16
}{
	{ErrShortBuffer, ErrTypeBadRequest, uint16(BadRequestBadLen)},
	{ErrBadLength, ErrTypeBadRequest, uint16(BadRequestBadLen)},
	{ErrTooLong, ErrTypeBadRequest, uint16(BadRequestBadLen)},
	{ErrUnsupportedVersion, ErrTypeBadRequest, uint16(BadRequestBadVersion)},
	{ErrIncompatible, ErrTypeHelloFailed, uint16(HelloFailedIncompatible)},
	{ErrBadType, ErrTypeBadRequest, uint16(BadRequestBadType)},
	{ErrBadMultipart, ErrTypeBadRequest, uint16(BadRequestBadMultipart)},
	{ErrBadExperimenter, ErrTypeBadRequest, uint16(BadRequestBadExperimenter)},
	{ErrBadExperimenterType, ErrTypeBadRequest, uint16(BadRequestBadExpType)},
	{ErrBadTableID, ErrTypeBadRequest, uint16(BadRequestBadTableID)},
	{ErrBadMatchType, ErrTypeBadMatch, uint16(BadMatchBadType)},
	{ErrBadMatchLength, ErrTypeBadMatch, uint16(BadMatchBadLen)},
	{ErrBadField, ErrTypeBadMatch, uint16(BadMatchBadField)},
	{ErrBadMask, ErrTypeBadMatch, uint16(BadMatchBadMask)},
	{ErrBadValue, ErrTypeBadMatch, uint16(BadMatchBadValue)},
	{ErrBadWildcards, ErrTypeBadMatch, uint16(BadMatchBadWildcards)},
	{ErrDuplicateField, ErrTypeBadMatch, uint16(BadMatchDupField)},
	{ErrBadPrereq, ErrTypeBadMatch, uint16(BadMatchBadPrereq)},
	{ErrUnknownInstruction, ErrTypeBadInstruction, uint16(BadInstructionUnknownInst)},
	{ErrBadInstructionLength, ErrTypeBadInstruction, uint16(BadInstructionBadLen)},
	{ErrDuplicateInstruction, ErrTypeBadInstruction, uint16(BadInstructionDupInst)},
	{ErrBadActionType, ErrTypeBadAction, uint16(BadActionBadType)},
	{ErrBadActionLength, ErrTypeBadAction, uint16(BadActionBadLen)},
	{ErrBadSetType, ErrTypeBadAction, uint16(BadActionBadSetType)},
	{ErrBadSetLength, ErrTypeBadAction, uint16(BadActionBadSetLen)},
	{ErrBadSetArgument, ErrTypeBadAction, uint16(BadActionBadSetArgument)},
	{ErrBadFlowCommand, ErrTypeFlowModFailed, uint16(FlowModFailedBadCommand)},
	{ErrBadGroupCommand, ErrTypeGroupModFailed, uint16(GroupModFailedBadCommand)},
	{ErrBadBucket, ErrTypeGroupModFailed, uint16(GroupModFailedBadBucket)},
	{ErrBadMeterCommand, ErrTypeMeterModFailed, uint16(MeterModFailedBadCommand)},
	{ErrBadMeterBand, ErrTypeMeterModFailed, uint16(MeterModFailedBadBand)},
	{ErrBadTableFeatures, ErrTypeTableFeaturesFailed, uint16(TableFeaturesFailedBadLen)},
	{ErrBadProperty, ErrTypeBadRequest, uint16(BadRequestBadLen)},
	{ErrBadBundle, ErrTypeBadRequest, uint16(BadRequestBadLen)},
	{ErrBadPortMod, ErrTypeBadRequest, uint16(BadRequestBadLen)},
	{ErrBadHelloElement, ErrTypeHelloFailed, uint16(HelloFailedIncompatible)},
	{ErrBadConfigLength, ErrTypeSwitchConfigFailed, uint16(SwitchConfigFailedBadLen)},
	{ErrBadQueueProperty, ErrTypeQueueOpFailed, uint16(QueueOpFailedBadQueue)},
	{ErrBadErrorMsg, ErrTypeBadRequest, uint16(BadRequestBadLen)},
	{ErrBadFlowMonitor, ErrTypeBadRequest, uint16(BadRequestBadLen)},
}

// DecodeError reports where decoding failed. It unwraps to one of the
// sentinels, and ErrorMsg gives the OFPT_ERROR a switch answers with.
type DecodeError struct {
	Type   Type   // message being decoded
	Field  string // e.g. "match.oxm[2].length"
	Offset int    // byte offset from the start of the message
	Err    error  // one of the sentinels
}

// Error implements error.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("openflow: decode %v: %s at offset %d: %v", e.Type, e.Field, e.Offset, e.Err)
}

// Unwrap returns the sentinel.
func (e *DecodeError) Unwrap() error { return e.Err }

// ErrorMsg returns the OFPT_ERROR type and code for this failure, without
// data or XID; ErrorFor fills those in.
func (e *DecodeError) ErrorMsg() ErrorMsg {
	t, c := errorCode(e.Err)
	return ErrorMsg{Type: t, Code: c}
}

// EncodeError reports a value that cannot be encoded, e.g. a message that
// would be longer than 65535 bytes. It unwraps to a sentinel.
type EncodeError struct {
	Type  Type   // message being encoded
	Field string // the field at fault
	Err   error  // one of the sentinels
}

// Error implements error.
func (e *EncodeError) Error() string {
	return fmt.Sprintf("openflow: encode %v: %s: %v", e.Type, e.Field, e.Err)
}

// Unwrap returns the sentinel.
func (e *EncodeError) Unwrap() error { return e.Err }

// errorCode maps a sentinel (or anything wrapping one) to its error code;
// unknown errors map to BAD_REQUEST/EPERM.
func errorCode(err error) (ErrorType, uint16) {
	for _, s := range sentinelCodes {
		if errors.Is(err, s.err) {
			return s.typ, s.code
		}
	}
	return ErrTypeBadRequest, uint16(BadRequestEPerm)
}

// ErrorFor builds the OFPT_ERROR a switch sends back when handling request
// failed with err (OpenFlow 1.3.5 §7.4.4): the (type, code) the spec
// prescribes for err, the request's XID, its version if it is one this
// package speaks (else OpenFlow 1.3), and the first 64 bytes of the request
// as data. If err is or wraps an ErrorMsg, that message's type
// and code are used as they are.
func ErrorFor(err error, request []byte) ErrorMsg {
	var m ErrorMsg
	var em ErrorMsg
	var pem *ErrorMsg
	switch {
	case errors.As(err, &pem) && pem != nil:
		m.Type, m.Code = pem.Type, pem.Code
	case errors.As(err, &em):
		m.Type, m.Code = em.Type, em.Code
	default:
		m.Type, m.Code = errorCode(err)
	}
	if len(request) >= HeaderLen {
		if v := request[0]; v == Version13 || v == Version14 {
			m.Version = v // otherwise 0: the reply goes out as OpenFlow 1.3
		}
		m.XID = binary.BigEndian.Uint32(request[4:])
	}
	if m.Type == ErrTypeHelloFailed {
		m.Data = append(m.Data, err.Error()...)
		return m
	}
	n := min(len(request), 64)
	m.Data = append(m.Data, request[:n]...)
	return m
}

// ErrorType is ofp_error_msg.type (OpenFlow 1.3.5 §7.4.4, enum
// ofp_error_type).
type ErrorType uint16

// Error types.
const (
	ErrTypeHelloFailed         ErrorType = 0      // OFPET_HELLO_FAILED
	ErrTypeBadRequest          ErrorType = 1      // OFPET_BAD_REQUEST
	ErrTypeBadAction           ErrorType = 2      // OFPET_BAD_ACTION
	ErrTypeBadInstruction      ErrorType = 3      // OFPET_BAD_INSTRUCTION
	ErrTypeBadMatch            ErrorType = 4      // OFPET_BAD_MATCH
	ErrTypeFlowModFailed       ErrorType = 5      // OFPET_FLOW_MOD_FAILED
	ErrTypeGroupModFailed      ErrorType = 6      // OFPET_GROUP_MOD_FAILED
	ErrTypePortModFailed       ErrorType = 7      // OFPET_PORT_MOD_FAILED
	ErrTypeTableModFailed      ErrorType = 8      // OFPET_TABLE_MOD_FAILED
	ErrTypeQueueOpFailed       ErrorType = 9      // OFPET_QUEUE_OP_FAILED
	ErrTypeSwitchConfigFailed  ErrorType = 10     // OFPET_SWITCH_CONFIG_FAILED
	ErrTypeRoleRequestFailed   ErrorType = 11     // OFPET_ROLE_REQUEST_FAILED
	ErrTypeMeterModFailed      ErrorType = 12     // OFPET_METER_MOD_FAILED
	ErrTypeTableFeaturesFailed ErrorType = 13     // OFPET_TABLE_FEATURES_FAILED
	ErrTypeBadProperty         ErrorType = 14     // OFPET_BAD_PROPERTY (OpenFlow 1.4)
	ErrTypeAsyncConfigFailed   ErrorType = 15     // OFPET_ASYNC_CONFIG_FAILED (OpenFlow 1.4)
	ErrTypeFlowMonitorFailed   ErrorType = 16     // OFPET_FLOW_MONITOR_FAILED (OpenFlow 1.4)
	ErrTypeBundleFailed        ErrorType = 17     // OFPET_BUNDLE_FAILED (OpenFlow 1.4)
	ErrTypeExperimenter        ErrorType = 0xffff // OFPET_EXPERIMENTER
)

var errorTypeNames = [...]string{
	"OFPET_HELLO_FAILED", "OFPET_BAD_REQUEST", "OFPET_BAD_ACTION",
	"OFPET_BAD_INSTRUCTION", "OFPET_BAD_MATCH", "OFPET_FLOW_MOD_FAILED",
	"OFPET_GROUP_MOD_FAILED", "OFPET_PORT_MOD_FAILED", "OFPET_TABLE_MOD_FAILED",
	"OFPET_QUEUE_OP_FAILED", "OFPET_SWITCH_CONFIG_FAILED",
	"OFPET_ROLE_REQUEST_FAILED", "OFPET_METER_MOD_FAILED",
	"OFPET_TABLE_FEATURES_FAILED", "OFPET_BAD_PROPERTY",
	"OFPET_ASYNC_CONFIG_FAILED", "OFPET_FLOW_MONITOR_FAILED",
	"OFPET_BUNDLE_FAILED",
}

// String returns the spec name, e.g. "OFPET_BAD_MATCH".
func (t ErrorType) String() string {
	if t == ErrTypeExperimenter {
		return "OFPET_EXPERIMENTER"
	}
	return enumName(errorTypeNames[:], int(t), "OFPET_")
}

func enumName(names []string, i int, prefix string) string {
	if i >= 0 && i < len(names) && names[i] != "" {
		return names[i]
	}
	return prefix + strconv.Itoa(i)
}

// HelloFailedCode is the code of an OFPET_HELLO_FAILED error.
type HelloFailedCode uint16

// OFPET_HELLO_FAILED codes.
const (
	HelloFailedIncompatible HelloFailedCode = 0 // OFPHFC_INCOMPATIBLE
	HelloFailedEPerm        HelloFailedCode = 1 // OFPHFC_EPERM
)

// String returns the spec name.
func (c HelloFailedCode) String() string {
	return enumName([]string{"OFPHFC_INCOMPATIBLE", "OFPHFC_EPERM"}, int(c), "OFPHFC_")
}

// BadRequestCode is the code of an OFPET_BAD_REQUEST error.
type BadRequestCode uint16

// OFPET_BAD_REQUEST codes.
const (
	BadRequestBadVersion              BadRequestCode = 0  // OFPBRC_BAD_VERSION
	BadRequestBadType                 BadRequestCode = 1  // OFPBRC_BAD_TYPE
	BadRequestBadMultipart            BadRequestCode = 2  // OFPBRC_BAD_MULTIPART
	BadRequestBadExperimenter         BadRequestCode = 3  // OFPBRC_BAD_EXPERIMENTER
	BadRequestBadExpType              BadRequestCode = 4  // OFPBRC_BAD_EXP_TYPE
	BadRequestEPerm                   BadRequestCode = 5  // OFPBRC_EPERM
	BadRequestBadLen                  BadRequestCode = 6  // OFPBRC_BAD_LEN
	BadRequestBufferEmpty             BadRequestCode = 7  // OFPBRC_BUFFER_EMPTY
	BadRequestBufferUnknown           BadRequestCode = 8  // OFPBRC_BUFFER_UNKNOWN
	BadRequestBadTableID              BadRequestCode = 9  // OFPBRC_BAD_TABLE_ID
	BadRequestIsSlave                 BadRequestCode = 10 // OFPBRC_IS_SLAVE
	BadRequestBadPort                 BadRequestCode = 11 // OFPBRC_BAD_PORT
	BadRequestBadPacket               BadRequestCode = 12 // OFPBRC_BAD_PACKET
	BadRequestMultipartBufferOverflow BadRequestCode = 13 // OFPBRC_MULTIPART_BUFFER_OVERFLOW
)

// String returns the spec name.
func (c BadRequestCode) String() string {
	return enumName([]string{"OFPBRC_BAD_VERSION", "OFPBRC_BAD_TYPE", "OFPBRC_BAD_MULTIPART",
		"OFPBRC_BAD_EXPERIMENTER", "OFPBRC_BAD_EXP_TYPE", "OFPBRC_EPERM", "OFPBRC_BAD_LEN",
		"OFPBRC_BUFFER_EMPTY", "OFPBRC_BUFFER_UNKNOWN", "OFPBRC_BAD_TABLE_ID", "OFPBRC_IS_SLAVE",
		"OFPBRC_BAD_PORT", "OFPBRC_BAD_PACKET", "OFPBRC_MULTIPART_BUFFER_OVERFLOW"}, int(c), "OFPBRC_")
}

// BadActionCode is the code of an OFPET_BAD_ACTION error.
type BadActionCode uint16

// OFPET_BAD_ACTION codes.
const (
	BadActionBadType           BadActionCode = 0  // OFPBAC_BAD_TYPE
	BadActionBadLen            BadActionCode = 1  // OFPBAC_BAD_LEN
	BadActionBadExperimenter   BadActionCode = 2  // OFPBAC_BAD_EXPERIMENTER
	BadActionBadExpType        BadActionCode = 3  // OFPBAC_BAD_EXP_TYPE
	BadActionBadOutPort        BadActionCode = 4  // OFPBAC_BAD_OUT_PORT
	BadActionBadArgument       BadActionCode = 5  // OFPBAC_BAD_ARGUMENT
	BadActionEPerm             BadActionCode = 6  // OFPBAC_EPERM
	BadActionTooMany           BadActionCode = 7  // OFPBAC_TOO_MANY
	BadActionBadQueue          BadActionCode = 8  // OFPBAC_BAD_QUEUE
	BadActionBadOutGroup       BadActionCode = 9  // OFPBAC_BAD_OUT_GROUP
	BadActionMatchInconsistent BadActionCode = 10 // OFPBAC_MATCH_INCONSISTENT
	BadActionUnsupportedOrder  BadActionCode = 11 // OFPBAC_UNSUPPORTED_ORDER
	BadActionBadTag            BadActionCode = 12 // OFPBAC_BAD_TAG
	BadActionBadSetType        BadActionCode = 13 // OFPBAC_BAD_SET_TYPE
	BadActionBadSetLen         BadActionCode = 14 // OFPBAC_BAD_SET_LEN
	BadActionBadSetArgument    BadActionCode = 15 // OFPBAC_BAD_SET_ARGUMENT
)

// String returns the spec name.
func (c BadActionCode) String() string {
	return enumName([]string{"OFPBAC_BAD_TYPE", "OFPBAC_BAD_LEN", "OFPBAC_BAD_EXPERIMENTER",
		"OFPBAC_BAD_EXP_TYPE", "OFPBAC_BAD_OUT_PORT", "OFPBAC_BAD_ARGUMENT", "OFPBAC_EPERM",
		"OFPBAC_TOO_MANY", "OFPBAC_BAD_QUEUE", "OFPBAC_BAD_OUT_GROUP", "OFPBAC_MATCH_INCONSISTENT",
		"OFPBAC_UNSUPPORTED_ORDER", "OFPBAC_BAD_TAG", "OFPBAC_BAD_SET_TYPE", "OFPBAC_BAD_SET_LEN",
		"OFPBAC_BAD_SET_ARGUMENT"}, int(c), "OFPBAC_")
}

// BadInstructionCode is the code of an OFPET_BAD_INSTRUCTION error.
type BadInstructionCode uint16

// OFPET_BAD_INSTRUCTION codes.
const (
	BadInstructionUnknownInst       BadInstructionCode = 0 // OFPBIC_UNKNOWN_INST
	BadInstructionUnsupInst         BadInstructionCode = 1 // OFPBIC_UNSUP_INST
	BadInstructionBadTableID        BadInstructionCode = 2 // OFPBIC_BAD_TABLE_ID
	BadInstructionUnsupMetadata     BadInstructionCode = 3 // OFPBIC_UNSUP_METADATA
	BadInstructionUnsupMetadataMask BadInstructionCode = 4 // OFPBIC_UNSUP_METADATA_MASK
	BadInstructionBadExperimenter   BadInstructionCode = 5 // OFPBIC_BAD_EXPERIMENTER
	BadInstructionBadExpType        BadInstructionCode = 6 // OFPBIC_BAD_EXP_TYPE
	BadInstructionBadLen            BadInstructionCode = 7 // OFPBIC_BAD_LEN
	BadInstructionEPerm             BadInstructionCode = 8 // OFPBIC_EPERM
	BadInstructionDupInst           BadInstructionCode = 9 // OFPBIC_DUP_INST
)

// String returns the spec name.
func (c BadInstructionCode) String() string {
	return enumName([]string{"OFPBIC_UNKNOWN_INST", "OFPBIC_UNSUP_INST", "OFPBIC_BAD_TABLE_ID",
		"OFPBIC_UNSUP_METADATA", "OFPBIC_UNSUP_METADATA_MASK", "OFPBIC_BAD_EXPERIMENTER",
		"OFPBIC_BAD_EXP_TYPE", "OFPBIC_BAD_LEN", "OFPBIC_EPERM", "OFPBIC_DUP_INST"}, int(c), "OFPBIC_")
}

// BadMatchCode is the code of an OFPET_BAD_MATCH error.
type BadMatchCode uint16

// OFPET_BAD_MATCH codes.
const (
	BadMatchBadType       BadMatchCode = 0  // OFPBMC_BAD_TYPE
	BadMatchBadLen        BadMatchCode = 1  // OFPBMC_BAD_LEN
	BadMatchBadTag        BadMatchCode = 2  // OFPBMC_BAD_TAG
	BadMatchBadDLAddrMask BadMatchCode = 3  // OFPBMC_BAD_DL_ADDR_MASK
	BadMatchBadNWAddrMask BadMatchCode = 4  // OFPBMC_BAD_NW_ADDR_MASK
	BadMatchBadWildcards  BadMatchCode = 5  // OFPBMC_BAD_WILDCARDS
	BadMatchBadField      BadMatchCode = 6  // OFPBMC_BAD_FIELD
	BadMatchBadValue      BadMatchCode = 7  // OFPBMC_BAD_VALUE
	BadMatchBadMask       BadMatchCode = 8  // OFPBMC_BAD_MASK
	BadMatchBadPrereq     BadMatchCode = 9  // OFPBMC_BAD_PREREQ
	BadMatchDupField      BadMatchCode = 10 // OFPBMC_DUP_FIELD
	BadMatchEPerm         BadMatchCode = 11 // OFPBMC_EPERM
)

// String returns the spec name.
func (c BadMatchCode) String() string {
	return enumName([]string{"OFPBMC_BAD_TYPE", "OFPBMC_BAD_LEN", "OFPBMC_BAD_TAG",
		"OFPBMC_BAD_DL_ADDR_MASK", "OFPBMC_BAD_NW_ADDR_MASK", "OFPBMC_BAD_WILDCARDS",
		"OFPBMC_BAD_FIELD", "OFPBMC_BAD_VALUE", "OFPBMC_BAD_MASK", "OFPBMC_BAD_PREREQ",
		"OFPBMC_DUP_FIELD", "OFPBMC_EPERM"}, int(c), "OFPBMC_")
}

// FlowModFailedCode is the code of an OFPET_FLOW_MOD_FAILED error.
type FlowModFailedCode uint16

// OFPET_FLOW_MOD_FAILED codes.
const (
	FlowModFailedUnknown    FlowModFailedCode = 0 // OFPFMFC_UNKNOWN
	FlowModFailedTableFull  FlowModFailedCode = 1 // OFPFMFC_TABLE_FULL
	FlowModFailedBadTableID FlowModFailedCode = 2 // OFPFMFC_BAD_TABLE_ID
	FlowModFailedOverlap    FlowModFailedCode = 3 // OFPFMFC_OVERLAP
	FlowModFailedEPerm      FlowModFailedCode = 4 // OFPFMFC_EPERM
	FlowModFailedBadTimeout FlowModFailedCode = 5 // OFPFMFC_BAD_TIMEOUT
	FlowModFailedBadCommand FlowModFailedCode = 6 // OFPFMFC_BAD_COMMAND
	FlowModFailedBadFlags   FlowModFailedCode = 7 // OFPFMFC_BAD_FLAGS
)

// String returns the spec name.
func (c FlowModFailedCode) String() string {
	return enumName([]string{"OFPFMFC_UNKNOWN", "OFPFMFC_TABLE_FULL", "OFPFMFC_BAD_TABLE_ID",
		"OFPFMFC_OVERLAP", "OFPFMFC_EPERM", "OFPFMFC_BAD_TIMEOUT", "OFPFMFC_BAD_COMMAND",
		"OFPFMFC_BAD_FLAGS"}, int(c), "OFPFMFC_")
}

// GroupModFailedCode is the code of an OFPET_GROUP_MOD_FAILED error.
type GroupModFailedCode uint16

// OFPET_GROUP_MOD_FAILED codes.
const (
	GroupModFailedGroupExists         GroupModFailedCode = 0  // OFPGMFC_GROUP_EXISTS
	GroupModFailedInvalidGroup        GroupModFailedCode = 1  // OFPGMFC_INVALID_GROUP
	GroupModFailedWeightUnsupported   GroupModFailedCode = 2  // OFPGMFC_WEIGHT_UNSUPPORTED
	GroupModFailedOutOfGroups         GroupModFailedCode = 3  // OFPGMFC_OUT_OF_GROUPS
	GroupModFailedOutOfBuckets        GroupModFailedCode = 4  // OFPGMFC_OUT_OF_BUCKETS
	GroupModFailedChainingUnsupported GroupModFailedCode = 5  // OFPGMFC_CHAINING_UNSUPPORTED
	GroupModFailedWatchUnsupported    GroupModFailedCode = 6  // OFPGMFC_WATCH_UNSUPPORTED
	GroupModFailedLoop                GroupModFailedCode = 7  // OFPGMFC_LOOP
	GroupModFailedUnknownGroup        GroupModFailedCode = 8  // OFPGMFC_UNKNOWN_GROUP
	GroupModFailedChainedGroup        GroupModFailedCode = 9  // OFPGMFC_CHAINED_GROUP
	GroupModFailedBadType             GroupModFailedCode = 10 // OFPGMFC_BAD_TYPE
	GroupModFailedBadCommand          GroupModFailedCode = 11 // OFPGMFC_BAD_COMMAND
	GroupModFailedBadBucket           GroupModFailedCode = 12 // OFPGMFC_BAD_BUCKET
	GroupModFailedBadWatch            GroupModFailedCode = 13 // OFPGMFC_BAD_WATCH
	GroupModFailedEPerm               GroupModFailedCode = 14 // OFPGMFC_EPERM
)

// String returns the spec name.
func (c GroupModFailedCode) String() string {
	return enumName([]string{"OFPGMFC_GROUP_EXISTS", "OFPGMFC_INVALID_GROUP",
		"OFPGMFC_WEIGHT_UNSUPPORTED", "OFPGMFC_OUT_OF_GROUPS", "OFPGMFC_OUT_OF_BUCKETS",
		"OFPGMFC_CHAINING_UNSUPPORTED", "OFPGMFC_WATCH_UNSUPPORTED", "OFPGMFC_LOOP",
		"OFPGMFC_UNKNOWN_GROUP", "OFPGMFC_CHAINED_GROUP", "OFPGMFC_BAD_TYPE",
		"OFPGMFC_BAD_COMMAND", "OFPGMFC_BAD_BUCKET", "OFPGMFC_BAD_WATCH", "OFPGMFC_EPERM"}, int(c), "OFPGMFC_")
}

// PortModFailedCode is the code of an OFPET_PORT_MOD_FAILED error.
type PortModFailedCode uint16

// OFPET_PORT_MOD_FAILED codes.
const (
	PortModFailedBadPort      PortModFailedCode = 0 // OFPPMFC_BAD_PORT
	PortModFailedBadHWAddr    PortModFailedCode = 1 // OFPPMFC_BAD_HW_ADDR
	PortModFailedBadConfig    PortModFailedCode = 2 // OFPPMFC_BAD_CONFIG
	PortModFailedBadAdvertise PortModFailedCode = 3 // OFPPMFC_BAD_ADVERTISE
	PortModFailedEPerm        PortModFailedCode = 4 // OFPPMFC_EPERM
)

// String returns the spec name.
func (c PortModFailedCode) String() string {
	return enumName([]string{"OFPPMFC_BAD_PORT", "OFPPMFC_BAD_HW_ADDR", "OFPPMFC_BAD_CONFIG",
		"OFPPMFC_BAD_ADVERTISE", "OFPPMFC_EPERM"}, int(c), "OFPPMFC_")
}

// TableModFailedCode is the code of an OFPET_TABLE_MOD_FAILED error.
type TableModFailedCode uint16

// OFPET_TABLE_MOD_FAILED codes.
const (
	TableModFailedBadTable  TableModFailedCode = 0 // OFPTMFC_BAD_TABLE
	TableModFailedBadConfig TableModFailedCode = 1 // OFPTMFC_BAD_CONFIG
	TableModFailedEPerm     TableModFailedCode = 2 // OFPTMFC_EPERM
)

// String returns the spec name.
func (c TableModFailedCode) String() string {
	return enumName([]string{"OFPTMFC_BAD_TABLE", "OFPTMFC_BAD_CONFIG", "OFPTMFC_EPERM"}, int(c), "OFPTMFC_")
}

// QueueOpFailedCode is the code of an OFPET_QUEUE_OP_FAILED error.
type QueueOpFailedCode uint16

// OFPET_QUEUE_OP_FAILED codes.
const (
	QueueOpFailedBadPort  QueueOpFailedCode = 0 // OFPQOFC_BAD_PORT
	QueueOpFailedBadQueue QueueOpFailedCode = 1 // OFPQOFC_BAD_QUEUE
	QueueOpFailedEPerm    QueueOpFailedCode = 2 // OFPQOFC_EPERM
)

// String returns the spec name.
func (c QueueOpFailedCode) String() string {
	return enumName([]string{"OFPQOFC_BAD_PORT", "OFPQOFC_BAD_QUEUE", "OFPQOFC_EPERM"}, int(c), "OFPQOFC_")
}

// SwitchConfigFailedCode is the code of an OFPET_SWITCH_CONFIG_FAILED error.
type SwitchConfigFailedCode uint16

// OFPET_SWITCH_CONFIG_FAILED codes.
const (
	SwitchConfigFailedBadFlags SwitchConfigFailedCode = 0 // OFPSCFC_BAD_FLAGS
	SwitchConfigFailedBadLen   SwitchConfigFailedCode = 1 // OFPSCFC_BAD_LEN
	SwitchConfigFailedEPerm    SwitchConfigFailedCode = 2 // OFPSCFC_EPERM
)

// String returns the spec name.
func (c SwitchConfigFailedCode) String() string {
	return enumName([]string{"OFPSCFC_BAD_FLAGS", "OFPSCFC_BAD_LEN", "OFPSCFC_EPERM"}, int(c), "OFPSCFC_")
}

// RoleRequestFailedCode is the code of an OFPET_ROLE_REQUEST_FAILED error.
type RoleRequestFailedCode uint16

// OFPET_ROLE_REQUEST_FAILED codes.
const (
	RoleRequestFailedStale   RoleRequestFailedCode = 0 // OFPRRFC_STALE
	RoleRequestFailedUnsup   RoleRequestFailedCode = 1 // OFPRRFC_UNSUP
	RoleRequestFailedBadRole RoleRequestFailedCode = 2 // OFPRRFC_BAD_ROLE
)

// String returns the spec name.
func (c RoleRequestFailedCode) String() string {
	return enumName([]string{"OFPRRFC_STALE", "OFPRRFC_UNSUP", "OFPRRFC_BAD_ROLE"}, int(c), "OFPRRFC_")
}

// MeterModFailedCode is the code of an OFPET_METER_MOD_FAILED error.
type MeterModFailedCode uint16

// OFPET_METER_MOD_FAILED codes.
const (
	MeterModFailedUnknown      MeterModFailedCode = 0  // OFPMMFC_UNKNOWN
	MeterModFailedMeterExists  MeterModFailedCode = 1  // OFPMMFC_METER_EXISTS
	MeterModFailedInvalidMeter MeterModFailedCode = 2  // OFPMMFC_INVALID_METER
	MeterModFailedUnknownMeter MeterModFailedCode = 3  // OFPMMFC_UNKNOWN_METER
	MeterModFailedBadCommand   MeterModFailedCode = 4  // OFPMMFC_BAD_COMMAND
	MeterModFailedBadFlags     MeterModFailedCode = 5  // OFPMMFC_BAD_FLAGS
	MeterModFailedBadRate      MeterModFailedCode = 6  // OFPMMFC_BAD_RATE
	MeterModFailedBadBurst     MeterModFailedCode = 7  // OFPMMFC_BAD_BURST
	MeterModFailedBadBand      MeterModFailedCode = 8  // OFPMMFC_BAD_BAND
	MeterModFailedBadBandValue MeterModFailedCode = 9  // OFPMMFC_BAD_BAND_VALUE
	MeterModFailedOutOfMeters  MeterModFailedCode = 10 // OFPMMFC_OUT_OF_METERS
	MeterModFailedOutOfBands   MeterModFailedCode = 11 // OFPMMFC_OUT_OF_BANDS
)

// String returns the spec name.
func (c MeterModFailedCode) String() string {
	return enumName([]string{"OFPMMFC_UNKNOWN", "OFPMMFC_METER_EXISTS", "OFPMMFC_INVALID_METER",
		"OFPMMFC_UNKNOWN_METER", "OFPMMFC_BAD_COMMAND", "OFPMMFC_BAD_FLAGS", "OFPMMFC_BAD_RATE",
		"OFPMMFC_BAD_BURST", "OFPMMFC_BAD_BAND", "OFPMMFC_BAD_BAND_VALUE", "OFPMMFC_OUT_OF_METERS",
		"OFPMMFC_OUT_OF_BANDS"}, int(c), "OFPMMFC_")
}

// TableFeaturesFailedCode is the code of an OFPET_TABLE_FEATURES_FAILED error.
type TableFeaturesFailedCode uint16

// OFPET_TABLE_FEATURES_FAILED codes.
const (
	TableFeaturesFailedBadTable    TableFeaturesFailedCode = 0 // OFPTFFC_BAD_TABLE
	TableFeaturesFailedBadMetadata TableFeaturesFailedCode = 1 // OFPTFFC_BAD_METADATA
	TableFeaturesFailedBadType     TableFeaturesFailedCode = 2 // OFPTFFC_BAD_TYPE
	TableFeaturesFailedBadLen      TableFeaturesFailedCode = 3 // OFPTFFC_BAD_LEN
	TableFeaturesFailedBadArgument TableFeaturesFailedCode = 4 // OFPTFFC_BAD_ARGUMENT
	TableFeaturesFailedEPerm       TableFeaturesFailedCode = 5 // OFPTFFC_EPERM
)

// String returns the spec name.
func (c TableFeaturesFailedCode) String() string {
	return enumName([]string{"OFPTFFC_BAD_TABLE", "OFPTFFC_BAD_METADATA", "OFPTFFC_BAD_TYPE",
		"OFPTFFC_BAD_LEN", "OFPTFFC_BAD_ARGUMENT", "OFPTFFC_EPERM"}, int(c), "OFPTFFC_")
}

// BundleFailedCode is the code of an OFPET_BUNDLE_FAILED error (OpenFlow
// 1.4).
type BundleFailedCode uint16

// OFPET_BUNDLE_FAILED codes (OpenFlow 1.4.1 §7.4.4, ofp_bundle_failed_code).
const (
	BundleFailedUnknown          BundleFailedCode = 0  // OFPBFC_UNKNOWN
	BundleFailedEPerm            BundleFailedCode = 1  // OFPBFC_EPERM
	BundleFailedBadID            BundleFailedCode = 2  // OFPBFC_BAD_ID
	BundleFailedBundleExist      BundleFailedCode = 3  // OFPBFC_BUNDLE_EXIST
	BundleFailedBundleClosed     BundleFailedCode = 4  // OFPBFC_BUNDLE_CLOSED
	BundleFailedOutOfBundles     BundleFailedCode = 5  // OFPBFC_OUT_OF_BUNDLES
	BundleFailedBadType          BundleFailedCode = 6  // OFPBFC_BAD_TYPE
	BundleFailedBadFlags         BundleFailedCode = 7  // OFPBFC_BAD_FLAGS
	BundleFailedMsgBadLen        BundleFailedCode = 8  // OFPBFC_MSG_BAD_LEN
	BundleFailedMsgBadXID        BundleFailedCode = 9  // OFPBFC_MSG_BAD_XID
	BundleFailedMsgUnsup         BundleFailedCode = 10 // OFPBFC_MSG_UNSUP
	BundleFailedMsgConflict      BundleFailedCode = 11 // OFPBFC_MSG_CONFLICT
	BundleFailedMsgTooMany       BundleFailedCode = 12 // OFPBFC_MSG_TOO_MANY
	BundleFailedMsgFailed        BundleFailedCode = 13 // OFPBFC_MSG_FAILED
	BundleFailedTimeout          BundleFailedCode = 14 // OFPBFC_TIMEOUT
	BundleFailedBundleInProgress BundleFailedCode = 15 // OFPBFC_BUNDLE_IN_PROGRESS
)

// String returns the spec name.
func (c BundleFailedCode) String() string {
	return enumName([]string{"OFPBFC_UNKNOWN", "OFPBFC_EPERM", "OFPBFC_BAD_ID", "OFPBFC_BUNDLE_EXIST",
		"OFPBFC_BUNDLE_CLOSED", "OFPBFC_OUT_OF_BUNDLES", "OFPBFC_BAD_TYPE", "OFPBFC_BAD_FLAGS",
		"OFPBFC_MSG_BAD_LEN", "OFPBFC_MSG_BAD_XID", "OFPBFC_MSG_UNSUP", "OFPBFC_MSG_CONFLICT",
		"OFPBFC_MSG_TOO_MANY", "OFPBFC_MSG_FAILED", "OFPBFC_TIMEOUT", "OFPBFC_BUNDLE_IN_PROGRESS"}, int(c), "OFPBFC_")
}

// CodeString names the code of an error of type t, e.g. "OFPBMC_BAD_FIELD".
func (t ErrorType) CodeString(code uint16) string {
	switch t {
	case ErrTypeHelloFailed:
		return HelloFailedCode(code).String()
	case ErrTypeBadRequest:
		return BadRequestCode(code).String()
	case ErrTypeBadAction:
		return BadActionCode(code).String()
	case ErrTypeBadInstruction:
		return BadInstructionCode(code).String()
	case ErrTypeBadMatch:
		return BadMatchCode(code).String()
	case ErrTypeFlowModFailed:
		return FlowModFailedCode(code).String()
	case ErrTypeGroupModFailed:
		return GroupModFailedCode(code).String()
	case ErrTypePortModFailed:
		return PortModFailedCode(code).String()
	case ErrTypeTableModFailed:
		return TableModFailedCode(code).String()
	case ErrTypeQueueOpFailed:
		return QueueOpFailedCode(code).String()
	case ErrTypeSwitchConfigFailed:
		return SwitchConfigFailedCode(code).String()
	case ErrTypeRoleRequestFailed:
		return RoleRequestFailedCode(code).String()
	case ErrTypeMeterModFailed:
		return MeterModFailedCode(code).String()
	case ErrTypeTableFeaturesFailed:
		return TableFeaturesFailedCode(code).String()
	case ErrTypeBundleFailed:
		return BundleFailedCode(code).String()
	}
	return strconv.Itoa(int(code))
}

// ErrorMsg is an OFPT_ERROR message (OpenFlow 1.3.5 §7.4.4). It implements
// error, so a handler can return one and the channel sends it as it is.
//
// For Type == ErrTypeExperimenter, Code is ofp_error_experimenter_msg.exp_type
// and Experimenter holds the experimenter id; otherwise Experimenter is 0.
type ErrorMsg struct {
	Header
	Type         ErrorType
	Code         uint16
	Experimenter uint32 // only for ErrTypeExperimenter
	Data         []byte // usually at least 64 bytes of the failed request
}

// Error implements error: "OFPET_BAD_MATCH/OFPBMC_BAD_FIELD".
func (m ErrorMsg) Error() string {
	return "openflow: " + m.Type.String() + "/" + m.Type.CodeString(m.Code)
}

// AppendBinary appends the wire form of m to dst.
func (m *ErrorMsg) AppendBinary(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = appendHeader(dst, &m.Header, TypeError)
	dst = binary.BigEndian.AppendUint16(dst, uint16(m.Type))
	dst = binary.BigEndian.AppendUint16(dst, m.Code)
	if m.Type == ErrTypeExperimenter {
		dst = binary.BigEndian.AppendUint32(dst, m.Experimenter)
	}
	dst = append(dst, m.Data...)
	return finish(dst, start, TypeError)
}

// MarshalBinary returns the wire form of m.
func (m *ErrorMsg) MarshalBinary() ([]byte, error) { return m.AppendBinary(nil) }

// UnmarshalBinary decodes one OFPT_ERROR message; Data is copied.
func (m *ErrorMsg) UnmarshalBinary(b []byte) error {
	if err := decodeHeader(&m.Header, b, TypeError, 12); err != nil {
		return err
	}
	m.Type = ErrorType(binary.BigEndian.Uint16(b[8:]))
	m.Code = binary.BigEndian.Uint16(b[10:])
	m.Experimenter = 0
	data := b[12:]
	if m.Type == ErrTypeExperimenter {
		if len(data) < 4 {
			return &DecodeError{Type: TypeError, Field: "experimenter", Offset: 12, Err: ErrShortBuffer}
		}
		m.Experimenter = binary.BigEndian.Uint32(data)
		data = data[4:]
	}
	m.Data = append(m.Data[:0], data...)
	return nil
}
