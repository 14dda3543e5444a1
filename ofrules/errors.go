package ofrules

import (
	"errors"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

func badMatch(code openflow.BadMatchCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadMatch, Code: uint16(code)}
}

func badAction(code openflow.BadActionCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadAction, Code: uint16(code)}
}

func badInstruction(code openflow.BadInstructionCode) error {
	return openflow.ErrorMsg{Type: openflow.ErrTypeBadInstruction, Code: uint16(code)}
}

// WireError returns the OFPT_ERROR that a *rules.Error in err's chain
// names (the flow tables' errors carry OpenFlow's type and code), or a
// *meters.Error (OFPET_METER_MOD_FAILED and its code), or err itself if
// it holds neither.
func WireError(err error) error {
	var re *rules.Error
	if errors.As(err, &re) {
		return openflow.ErrorMsg{Type: openflow.ErrorType(re.Type), Code: uint16(re.Code)}
	}
	if em, ok := meterError(err); ok {
		return em
	}
	return err
}
