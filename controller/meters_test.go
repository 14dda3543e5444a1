package controller

import (
	"testing"

	"github.com/ofswitch/ofswitch/openflow"
)

// TestTableFeaturesMeter: the tables of an agent with a meter table list
// the meter instruction among those their entries may use.
func TestTableFeaturesMeter(t *testing.T) {
	a, err := New(&Config{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range a.tableFeatures()[0].Properties {
		if p.Type != openflow.TFPInstructions {
			continue
		}
		for _, id := range p.IDs {
			found = found || id.Type == uint16(openflow.InstructionMeter)
		}
	}
	if !found || a.FlowTables().Meters() == nil {
		t.Error("TABLE_FEATURES of an agent with meters lacks OFPIT_METER")
	}
}
