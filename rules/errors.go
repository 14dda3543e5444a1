package rules

import (
	"errors"
	"fmt"
)

// OpenFlow 1.3.5 error types (enum ofp_error_type) that this package reports.
// They are plain numbers so that rules need not import the wire codec; the
// controller copies them into an OFPT_ERROR message unchanged.
const (
	ErrTypeBadRequest     = 1 // OFPET_BAD_REQUEST
	ErrTypeBadAction      = 2 // OFPET_BAD_ACTION
	ErrTypeBadInstruction = 3 // OFPET_BAD_INSTRUCTION
	ErrTypeBadMatch       = 4 // OFPET_BAD_MATCH
	ErrTypeFlowModFailed  = 5 // OFPET_FLOW_MOD_FAILED
)

// Error codes of OFPET_BAD_MATCH (enum ofp_bad_match_code).
const (
	BadMatchBadType      = 0  // OFPBMC_BAD_TYPE
	BadMatchBadLen       = 1  // OFPBMC_BAD_LEN
	BadMatchBadTag       = 2  // OFPBMC_BAD_TAG
	BadMatchBadDLAddr    = 3  // OFPBMC_BAD_DL_ADDR_MASK
	BadMatchBadNWAddr    = 4  // OFPBMC_BAD_NW_ADDR_MASK
	BadMatchBadWildcards = 5  // OFPBMC_BAD_WILDCARDS
	BadMatchBadField     = 6  // OFPBMC_BAD_FIELD
	BadMatchBadValue     = 7  // OFPBMC_BAD_VALUE
	BadMatchBadMask      = 8  // OFPBMC_BAD_MASK
	BadMatchBadPrereq    = 9  // OFPBMC_BAD_PREREQ
	BadMatchDupField     = 10 // OFPBMC_DUP_FIELD
	BadMatchEPerm        = 11 // OFPBMC_EPERM
)

// Error codes of OFPET_FLOW_MOD_FAILED (enum ofp_flow_mod_failed_code).
const (
	FlowModUnknown    = 0 // OFPFMFC_UNKNOWN
	FlowModTableFull  = 1 // OFPFMFC_TABLE_FULL
	FlowModBadTableID = 2 // OFPFMFC_BAD_TABLE_ID
	FlowModOverlap    = 3 // OFPFMFC_OVERLAP
	FlowModEPerm      = 4 // OFPFMFC_EPERM
	FlowModBadTimeout = 5 // OFPFMFC_BAD_TIMEOUT
	FlowModBadCommand = 6 // OFPFMFC_BAD_COMMAND
	FlowModBadFlags   = 7 // OFPFMFC_BAD_FLAGS
)

// Error codes of OFPET_BAD_INSTRUCTION (enum ofp_bad_instruction_code).
const (
	BadInstUnknown      = 0 // OFPBIC_UNKNOWN_INST
	BadInstUnsupported  = 1 // OFPBIC_UNSUP_INST
	BadInstBadTableID   = 2 // OFPBIC_BAD_TABLE_ID
	BadInstUnsupMeta    = 3 // OFPBIC_UNSUP_METADATA
	BadInstUnsupMetaMsk = 4 // OFPBIC_UNSUP_METADATA_MASK
)

// Error codes of OFPET_BAD_ACTION (enum ofp_bad_action_code).
const (
	BadActionBadType           = 0  // OFPBAC_BAD_TYPE
	BadActionBadOutPort        = 4  // OFPBAC_BAD_OUT_PORT
	BadActionBadArgument       = 5  // OFPBAC_BAD_ARGUMENT
	BadActionMatchInconsistent = 10 // OFPBAC_MATCH_INCONSISTENT
	BadActionBadSetType        = 13 // OFPBAC_BAD_SET_TYPE
	BadActionBadSetLen         = 14 // OFPBAC_BAD_SET_LEN
	BadActionBadSetArg         = 15 // OFPBAC_BAD_SET_ARGUMENT
)

// Error is an OpenFlow protocol failure: the (type, code) pair of the
// OFPT_ERROR the switch answers with, and where and why it happened. Two
// Errors match under errors.Is when their Type and Code are equal, so the
// sentinels below can be tested for directly.
type Error struct {
	Type  int    // OFPET_*
	Code  int    // the type's code
	Field string // match field or request part at fault, if any
	Why   string
}

// Error formats the error with its OpenFlow names.
func (e *Error) Error() string {
	s := fmt.Sprintf("rules: %s", errName(e.Type, e.Code))
	if e.Field != "" {
		s += " (" + e.Field + ")"
	}
	if e.Why != "" {
		s += ": " + e.Why
	}
	return s
}

// Is reports whether target is an *Error with the same type and code.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Type == e.Type && t.Code == e.Code
}

// Sentinels for errors.Is; each is the bare (type, code) pair.
var (
	ErrBadPrereq    = &Error{Type: ErrTypeBadMatch, Code: BadMatchBadPrereq}
	ErrBadMask      = &Error{Type: ErrTypeBadMatch, Code: BadMatchBadMask}
	ErrBadWildcards = &Error{Type: ErrTypeBadMatch, Code: BadMatchBadWildcards}
	ErrBadValue     = &Error{Type: ErrTypeBadMatch, Code: BadMatchBadValue}
	ErrOverlap      = &Error{Type: ErrTypeFlowModFailed, Code: FlowModOverlap}
	ErrBadTableID   = &Error{Type: ErrTypeFlowModFailed, Code: FlowModBadTableID}
	ErrBadCommand   = &Error{Type: ErrTypeFlowModFailed, Code: FlowModBadCommand}
	ErrBadFlags     = &Error{Type: ErrTypeFlowModFailed, Code: FlowModBadFlags}
	ErrTableFull    = &Error{Type: ErrTypeFlowModFailed, Code: FlowModTableFull}
	ErrBadGotoTable = &Error{Type: ErrTypeBadInstruction, Code: BadInstBadTableID}
	ErrBadOutPort   = &Error{Type: ErrTypeBadAction, Code: BadActionBadOutPort}
)

// The group mod failures and OFPBAC_BAD_OUT_GROUP (OpenFlow 1.3.5
// §7.4.4), which package groups answers with, named here for Error.
const (
	errTypeGroupModFailed = 6 // OFPET_GROUP_MOD_FAILED
	badActionBadOutGroup  = 9 // OFPBAC_BAD_OUT_GROUP
)

func errName(typ, code int) string {
	names := map[int]string{
		ErrTypeBadRequest: "OFPET_BAD_REQUEST", ErrTypeBadAction: "OFPET_BAD_ACTION",
		ErrTypeBadInstruction: "OFPET_BAD_INSTRUCTION", ErrTypeBadMatch: "OFPET_BAD_MATCH",
		ErrTypeFlowModFailed: "OFPET_FLOW_MOD_FAILED", ErrTypeMeterModFailed: "OFPET_METER_MOD_FAILED",
		errTypeGroupModFailed: "OFPET_GROUP_MOD_FAILED",
	}
	codes := map[[2]int]string{
		{ErrTypeBadMatch, BadMatchBadWildcards}:        "OFPBMC_BAD_WILDCARDS",
		{ErrTypeBadMatch, BadMatchBadField}:            "OFPBMC_BAD_FIELD",
		{ErrTypeBadMatch, BadMatchBadValue}:            "OFPBMC_BAD_VALUE",
		{ErrTypeBadMatch, BadMatchBadMask}:             "OFPBMC_BAD_MASK",
		{ErrTypeBadMatch, BadMatchBadPrereq}:           "OFPBMC_BAD_PREREQ",
		{ErrTypeFlowModFailed, FlowModTableFull}:       "OFPFMFC_TABLE_FULL",
		{ErrTypeFlowModFailed, FlowModBadTableID}:      "OFPFMFC_BAD_TABLE_ID",
		{ErrTypeFlowModFailed, FlowModOverlap}:         "OFPFMFC_OVERLAP",
		{ErrTypeFlowModFailed, FlowModBadCommand}:      "OFPFMFC_BAD_COMMAND",
		{ErrTypeFlowModFailed, FlowModBadFlags}:        "OFPFMFC_BAD_FLAGS",
		{ErrTypeBadInstruction, BadInstBadTableID}:     "OFPBIC_BAD_TABLE_ID",
		{ErrTypeBadAction, BadActionBadOutPort}:        "OFPBAC_BAD_OUT_PORT",
		{ErrTypeBadAction, BadActionBadArgument}:       "OFPBAC_BAD_ARGUMENT",
		{ErrTypeMeterModFailed, MeterModInvalidMeter}:  "OFPMMFC_INVALID_METER",
		{ErrTypeBadInstruction, BadInstUnsupported}:    "OFPBIC_UNSUP_INST",
		{ErrTypeBadAction, BadActionMatchInconsistent}: "OFPBAC_MATCH_INCONSISTENT",
		{ErrTypeBadAction, BadActionBadSetType}:        "OFPBAC_BAD_SET_TYPE",
		{ErrTypeBadAction, BadActionBadSetLen}:         "OFPBAC_BAD_SET_LEN",
		{ErrTypeBadAction, BadActionBadSetArg}:         "OFPBAC_BAD_SET_ARGUMENT",
		{ErrTypeBadAction, badActionBadOutGroup}:       "OFPBAC_BAD_OUT_GROUP",
	}
	// The group table's refusals (package groups) travel as Errors too.
	for c, n := range []string{"GROUP_EXISTS", "INVALID_GROUP", "WEIGHT_UNSUPPORTED", "OUT_OF_GROUPS",
		"OUT_OF_BUCKETS", "CHAINING_UNSUPPORTED", "WATCH_UNSUPPORTED", "LOOP", "UNKNOWN_GROUP",
		"CHAINED_GROUP", "BAD_TYPE", "BAD_COMMAND", "BAD_BUCKET", "BAD_WATCH", "EPERM"} {
		codes[[2]int{errTypeGroupModFailed, c}] = "OFPGMFC_" + n
	}
	t, ok := names[typ]
	if !ok {
		t = fmt.Sprintf("type %d", typ)
	}
	c, ok := codes[[2]int{typ, code}]
	if !ok {
		c = fmt.Sprintf("code %d", code)
	}
	return t + "/" + c
}
