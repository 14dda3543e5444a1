package controller

import (
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/ofrules"
	"github.com/ofswitch/ofswitch/openflow"
	"github.com/ofswitch/ofswitch/rules"
)

// TestFlowStatsSelectRanged: a flow-stats request selects a rule added
// with port ranges through the Go API by its port sets. tp_dst=0/0xfc00
// (ports 0-1023) covers the range 22-1000 and selects the rule; tp_dst=80
// does not cover it.
func TestFlowStatsSelectRanged(t *testing.T) {
	a, _ := startAgent(t, &Config{Tables: 1})
	u := rules.Update{Command: rules.CmdAdd, Priority: 5, ID: 1}
	u.Match.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
	u.Match.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
	u.SetPortRange(rules.FieldL4Dst, 22, 1000)
	var res rules.BurstResult
	if failed := a.FlowTables().Apply(&res, []rules.Update{u}, false, time.Now(), 0); failed != 0 {
		t.Fatalf("ranged add failed: %v", res.Errs)
	}
	count := func(dst, mask uint16) int {
		fr := openflow.FlowStatsRequest{TableID: 0xff, OutPort: openflow.PortAny, OutGroup: openflow.GroupAny}
		var m rules.Match
		m.SetExact(rules.FieldEthType, rules.EthTypeIPv4)
		m.SetExact(rules.FieldIPProto, rules.IPProtoTCP)
		m.Set(rules.FieldL4Dst, uint64(dst), uint64(mask))
		fr.Match = ofrules.WireMatch(&m)
		n := 0
		if err := a.selectRules(&fr, func(*rules.Rule) { n++ }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(0, 0xfc00); n != 1 {
		t.Errorf("tp_dst=0/0xfc00 selected %d rules, want the ranged one", n)
	}
	if n := count(80, 0xffff); n != 0 {
		t.Errorf("tp_dst=80 selected %d rules, want none", n)
	}
}
