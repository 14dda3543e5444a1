package rules_test

import (
	"testing"

	"github.com/ofswitch/ofswitch/rules"
)

// TestNiciraActionsRule: controller(...) counts as an output to
// CONTROLLER for the out_port filter, as in Open vSwitch; Equal compares
// the note and ids by content.
func TestNiciraActionsRule(t *testing.T) {
	r := &rules.Rule{Instructions: []rules.Instruction{{Kind: rules.InstApplyActions, Actions: []rules.Action{
		{Kind: rules.ActionNote, Ext: &rules.ActionExt{Note: []byte{1}}},
		{Kind: rules.ActionController, Reason: 0, MaxLen: 64, CtlID: 3}}}}}
	if !r.OutputsTo(rules.PortController) {
		t.Error("controller(...) does not output to CONTROLLER")
	}
	if r.OutputsTo(2) {
		t.Error("controller(...) outputs to port 2")
	}
	a := rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{IDs: []uint16{1, 2}}}
	for _, tt := range []struct {
		b    rules.Action
		want bool
	}{
		{rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{IDs: []uint16{1, 2}}}, true},
		{rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{IDs: []uint16{1}}}, false},
		{rules.Action{Kind: rules.ActionDecNwTTL}, false},
		{rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{}}, false},
	} {
		if got := a.Equal(&tt.b); got != tt.want {
			t.Errorf("Equal(%+v) = %v, want %v", tt.b.Ext, got, tt.want)
		}
	}
	plain := rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{IDs: []uint16{}}}
	if plain.Equal(&rules.Action{Kind: rules.ActionDecNwTTL, Ext: &rules.ActionExt{}}) {
		t.Error("dec_ttl() with no ids equals dec_ttl without the ids form")
	}
}
