package ofrules

import (
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestResubmitWire: NXAST_RESUBMIT and NXAST_RESUBMIT_TABLE become
// rules.ActionResubmit with the 16-bit port widened as Open vSwitch
// widens it, and go back as they came: NXAST_RESUBMIT only for a resubmit
// that came so and has no table (encode_RESUBMIT), NXAST_RESUBMIT_TABLE
// otherwise.
func TestResubmitWire(t *testing.T) {
	nx := func(d ...byte) openflow.Action {
		return openflow.Action{Type: openflow.ActionExperimenter, Experimenter: openflow.NXExperimenter, Data: d}
	}
	for _, tt := range []struct {
		name string
		in   openflow.Action
		want rules.Action
		out  openflow.Action
	}{
		{"resubmit", nx(0, 1, 0, 3, 0, 0, 0, 0), rules.Action{Kind: rules.ActionResubmit, Port: 3, Table: 0xff, Reason: 1}, nx(0, 1, 0, 3, 0, 0, 0, 0)},
		{"resubmit ignores its table", nx(0, 1, 0xff, 0xfe, 7, 1, 2, 3), rules.Action{Kind: rules.ActionResubmit, Port: rules.PortLocal, Table: 0xff, Reason: 1},
			nx(0, 1, 0xff, 0xfe, 0, 0, 0, 0)},
		{"resubmit_table", nx(0, 14, 0xff, 0xf8, 2, 0, 0, 0), rules.Action{Kind: rules.ActionResubmit, Port: rules.PortInPort, Table: 2}, nx(0, 14, 0xff, 0xf8, 2, 0, 0, 0)},
		{"resubmit_table port only", nx(0, 14, 0, 9, 0xff, 0, 0, 0), rules.Action{Kind: rules.ActionResubmit, Port: 9, Table: 0xff}, nx(0, 14, 0, 9, 0xff, 0, 0, 0)},
		{"resubmit_table to 200", nx(0, 14, 0, 9, 200, 0, 0, 0), rules.Action{Kind: rules.ActionResubmit, Port: 9, Table: 200}, nx(0, 14, 0, 9, 200, 0, 0, 0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			as, err := Actions([]openflow.Action{tt.in})
			if err != nil {
				t.Fatal(err)
			}
			if !as[0].Equal(&tt.want) {
				t.Fatalf("got %+v, want %+v", as[0], tt.want)
			}
			var m rules.Match
			out := actionsToWire(as, &m, nil)
			if len(out) != 1 || string(out[0].Data) != string(tt.out.Data) {
				t.Fatalf("back to the wire: %x, want %x", out[0].Data, tt.out.Data)
			}
		})
	}
	for _, tt := range []struct {
		name string
		in   openflow.Action
		code openflow.BadActionCode
	}{
		{"pad", nx(0, 14, 0, 3, 1, 0, 1, 0), openflow.BadActionBadArgument},
		{"long", nx(0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), openflow.BadActionBadLen},
	} {
		_, err := Actions([]openflow.Action{tt.in})
		em, ok := err.(openflow.ErrorMsg)
		if !ok || em.Type != openflow.ErrTypeBadAction || em.Code != uint16(tt.code) {
			t.Errorf("%s: %v, want OFPET_BAD_ACTION code %d", tt.name, err, tt.code)
		}
	}
	// A resubmit may be written to the action set (a final action in
	// Open vSwitch), unlike note, exit and controller(...).
	ins := []openflow.Instruction{{Type: openflow.InstructionWriteActions, Actions: []openflow.Action{nx(0, 14, 0xff, 0xf8, 2, 0, 0, 0)}}}
	if _, err := instructionsFromWire(ins, 0, 4, nil); err != nil {
		t.Errorf("write_actions(resubmit(,2)): %v", err)
	}
}
