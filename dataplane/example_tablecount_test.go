package dataplane_test

import (
	"context"
	"fmt"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// Replay the demo capture through two tables and read each table's
// lookups and matches, the counts of OpenFlow's table statistics: table 0
// sends IPv4 on to table 1 and has a table-miss entry, which matches
// every other frame; table 1 has none, so what it does not match is only
// looked up.
func ExampleSwitch_TableCount() {
	pipe, _ := rules.New(&rules.Config{Tables: 2})
	ups, _ := ofctl.ParseFlows("example", []byte(`
table=0,priority=10,ip,actions=goto_table:1
table=0,priority=0,actions=drop
table=1,priority=10,tcp,tp_dst=443,actions=output:2
`), nil)
	pipe.ApplyBurst(ups, true)
	demo, err := dataplane.LoadFile("../replay/testdata/demo.pcap")
	if err != nil {
		fmt.Println(err)
		return
	}
	sw := dataplane.NewSwitch(pipe, &dataplane.Config{Workers: 2, Ports: []uint32{1, 2}})
	if err := sw.Replay(context.Background(), []*dataplane.Capture{demo}, nil); err != nil {
		fmt.Println(err)
		return
	}
	for t := range pipe.NumTables() {
		c := sw.TableCount(uint8(t))
		fmt.Printf("table %d: lookup=%d matched=%d\n", t, c.Lookups, c.Matched)
	}
	// Output:
	// table 0: lookup=2950 matched=2950
	// table 1: lookup=2063 matched=66
}
