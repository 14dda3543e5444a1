package ofrules

import (
	"errors"
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestConnTrackRefused: a FLOW_MOD that matches an NXM_NX_CT_* field or
// uses NXAST_CT or NXAST_CT_CLEAR (as ovs-ofctl sends ct_state=+trk,
// ct_mark=1, ct(commit) and ct_clear over OpenFlow 1.3) is refused with
// Open vSwitch's NXBMC_CT_DATAPATH_SUPPORT / NXBAC_CT_DATAPATH_SUPPORT,
// and the error's text names connection tracking. set_field of a ct field
// (ct_mark, ct_label, ct_state: NXM_NX_CT_* in OFPAT_SET_FIELD) is
// refused with OFPBAC_BAD_SET_ARGUMENT, Open vSwitch's answer (code 0
// below), and named too.
func TestConnTrackRefused(t *testing.T) {
	ip := openflow.EthType(0x0800)
	ctState := openflow.OXM{Class: 0x0001, Field: 105, HasMask: true, Data: []byte{0, 0, 0, 0x20, 0, 0, 0, 0x20}}
	ctMark := openflow.OXM{Class: 0x0001, Field: 107, Data: []byte{0, 0, 0, 1}}
	otherNXM := openflow.OXM{Class: 0x0001, Field: 111, Data: make([]byte, 16)} // NXM_NX_XXREG0
	nx := func(subtype byte) openflow.Action {
		return openflow.Action{Type: openflow.ActionExperimenter, Experimenter: 0x2320, Data: []byte{0, subtype, 0, 0, 0, 0, 0, 0}}
	}
	for _, tt := range []struct {
		name   string
		fields []openflow.OXM
		act    openflow.Action
		what   string
		code   uint16
	}{
		{"ct_state", []openflow.OXM{ip, ctState}, openflow.Output(1, 0), "ct_state", 43},
		{"ct_mark", []openflow.OXM{ip, ctMark}, openflow.Output(1, 0), "ct_mark", 43},
		{"ct", []openflow.OXM{ip}, nx(35), "ct()", 42},
		{"ct_clear", []openflow.OXM{ip}, nx(43), "ct_clear", 42},
		{"resubmit ct", []openflow.OXM{ip}, openflow.Action{Type: openflow.ActionExperimenter, Experimenter: 0x2320,
			Data: []byte{0, 44, 0xff, 0xf8, 1, 0, 0, 0}}, "resubmit(,,ct)", 42},
		{"other NXM field", []openflow.OXM{ip, otherNXM}, openflow.Output(1, 0), "", 0},
		{"set_field ct_mark", []openflow.OXM{ip}, openflow.SetField(ctMark), "ct_mark", 0},
		{"set_field ct_label", []openflow.OXM{ip}, openflow.SetField(openflow.OXM{Class: 0x0001, Field: 108, Data: make([]byte, 16)}), "ct_label", 0},
		{"set_field ct_state", []openflow.OXM{ip}, openflow.SetField(openflow.OXM{Class: 0x0001, Field: 105, Data: []byte{0, 0, 0, 0x20}}), "ct_state", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fm := openflow.FlowMod{Header: openflow.Header{Version: openflow.Version13, XID: 6}, Priority: 5,
				BufferID: openflow.NoBuffer, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny,
				Match: openflow.Match{Fields: tt.fields}, Instructions: []openflow.Instruction{openflow.ApplyActions(tt.act)}}
			msg, err := fm.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var u rules.Update
			err = NewDecoder(nil).Decode(&u, msg)
			var ct *ConnTrackError
			if tt.what == "" {
				if err == nil || errors.As(err, &ct) {
					t.Fatalf("err = %v, want a refusal that is not connection tracking", err)
				}
				return
			}
			if !errors.As(err, &ct) || ct.What != tt.what {
				t.Fatalf("err = %v, want connection tracking (%s)", err, tt.what)
			}
			if err.Error() != "connection tracking ("+tt.what+") is not supported" {
				t.Errorf("text %q", err.Error())
			}
			var em openflow.ErrorMsg
			if tt.code == 0 {
				if !errors.As(err, &em) || em.Type != openflow.ErrTypeBadAction || em.Code != uint16(openflow.BadActionBadSetArgument) {
					t.Errorf("wire error %+v, want OFPBAC_BAD_SET_ARGUMENT", em)
				}
				return
			}
			if !errors.As(err, &em) || em.Type != openflow.ErrTypeExperimenter || em.Experimenter != 0x2320 || em.Code != tt.code {
				t.Errorf("wire error %+v, want Nicira experimenter error %d", em, tt.code)
			}
		})
	}
}
