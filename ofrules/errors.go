package ofrules

import (
	"errors"
	"strconv"

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

// Connection tracking (Open vSwitch's ct_* match fields, the ct and
// ct_clear actions) is not supported: a FLOW_MOD that uses it is refused
// with the error Open vSwitch itself answers when its datapath lacks
// connection tracking, the Nicira experimenter errors
// NXBMC_CT_DATAPATH_SUPPORT (a match) and NXBAC_CT_DATAPATH_SUPPORT (an
// action). ovs-ofctl prints those by name, which says what is missing
// where OFPBMC_BAD_FIELD or OFPBAC_BAD_EXPERIMENTER_TYPE would not.
const (
	nxmClass1              = 0x0001     // NXM_NX fields
	nxExperimenter         = 0x00002320 // NX_VENDOR_ID
	nxbacCTDatapathSupport = 42         // NXBAC_CT_DATAPATH_SUPPORT, NX1.2+(42)
	nxbmcCTDatapathSupport = 43         // NXBMC_CT_DATAPATH_SUPPORT, NX1.2+(43)
	nxastCT                = 35         // NXAST_CT
	nxastNAT               = 36         // NXAST_NAT
	nxastCTClear           = 43         // NXAST_CT_CLEAR
	nxastResubmitTableCT   = 44         // NXAST_RESUBMIT_TABLE_CT: resubmit(port,table,ct)
)

// ctFields names the NXM_NX connection tracking fields by number.
var ctFields = map[openflow.OXMField]string{
	105: "ct_state", 106: "ct_zone", 107: "ct_mark", 108: "ct_label",
	119: "ct_nw_proto", 120: "ct_nw_src", 121: "ct_nw_dst", 122: "ct_ipv6_src",
	123: "ct_ipv6_dst", 124: "ct_tp_src", 125: "ct_tp_dst",
}

// ConnTrackError is the refusal of a flow that uses connection tracking.
// Its text names what was used; it unwraps to the OFPT_ERROR sent.
type ConnTrackError struct {
	What string // "ct_state", "ct()", ...
	Msg  openflow.ErrorMsg
}

func (e *ConnTrackError) Error() string {
	return "connection tracking (" + e.What + ") is not supported"
}

// Unwrap returns the OFPT_ERROR that answers the flow.
func (e *ConnTrackError) Unwrap() error { return e.Msg }

// ctMatch returns the refusal of o if it is a connection tracking field.
func ctMatch(o *openflow.OXM) error {
	if o.Class != nxmClass1 {
		return nil
	}
	name, ok := ctFields[o.Field]
	if !ok {
		return nil
	}
	return &ConnTrackError{What: name, Msg: openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter,
		Code: nxbmcCTDatapathSupport, Experimenter: nxExperimenter}}
}

// ctSetField returns the refusal of a set_field of o if o is a connection
// tracking field. Open vSwitch answers OFPBAC_BAD_SET_ARGUMENT there
// whether or not its datapath tracks connections: ct_mark and ct_label
// are written only inside ct(...), the others not at all.
func ctSetField(o *openflow.OXM) error {
	if o.Class != nxmClass1 {
		return nil
	}
	name, ok := ctFields[o.Field]
	if !ok {
		return nil
	}
	return &ConnTrackError{What: name, Msg: openflow.ErrorMsg{Type: openflow.ErrTypeBadAction,
		Code: uint16(openflow.BadActionBadSetArgument)}}
}

// ctAction returns the refusal of a if it is a Nicira connection tracking
// action (ct, its nat, ct_clear, resubmit(port,table,ct)).
func ctAction(a *openflow.Action) error {
	if a.Type != openflow.ActionExperimenter || a.Experimenter != nxExperimenter || len(a.Data) < 2 {
		return nil
	}
	var what string
	switch int(a.Data[0])<<8 | int(a.Data[1]) {
	case nxastCT:
		what = "ct()"
	case nxastNAT:
		what = "nat"
	case nxastCTClear:
		what = "ct_clear"
	case nxastResubmitTableCT:
		what = "resubmit(,,ct)"
	default:
		return nil
	}
	return &ConnTrackError{What: what, Msg: openflow.ErrorMsg{Type: openflow.ErrTypeExperimenter,
		Code: nxbacCTDatapathSupport, Experimenter: nxExperimenter}}
}

// UnsupportedFieldError is the refusal of a flow that matches on an Open
// vSwitch field this switch knows by name but does not match on: the
// 128-bit registers xxreg0-7. Its text names the
// field; it unwraps to OFPBMC_BAD_FIELD, which Open vSwitch answers for a
// field it does not know.
type UnsupportedFieldError struct {
	Field string // Open vSwitch's name: "xxreg0", ...
	Msg   openflow.ErrorMsg
}

func (e *UnsupportedFieldError) Error() string {
	return "match field " + e.Field + " is not supported"
}

// Unwrap returns the OFPT_ERROR that answers the flow.
func (e *UnsupportedFieldError) Unwrap() error { return e.Msg }

// refusedNXMName returns Open vSwitch's name of the NXM_NX field f if it
// is one that UnsupportedFieldError refuses, else "".
func refusedNXMName(f openflow.OXMField) string {
	if f >= 111 && f <= 118 {
		return "xxreg" + strconv.Itoa(int(f-111))
	}
	return ""
}

// refusedNXM returns the refusal of o if it is one of the fields
// UnsupportedFieldError names.
func refusedNXM(o *openflow.OXM) error {
	if o.Class != nxmClass1 {
		return nil
	}
	name := refusedNXMName(o.Field)
	if name == "" {
		return nil
	}
	return &UnsupportedFieldError{Field: name, Msg: openflow.ErrorMsg{Type: openflow.ErrTypeBadMatch,
		Code: uint16(openflow.BadMatchBadField)}}
}
