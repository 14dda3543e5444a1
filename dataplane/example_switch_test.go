package dataplane_test

import (
	"context"
	"fmt"

	"github.com/ofswitch/ofswitch/dataplane"
	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// Replay the demo capture against two rules on two workers and read the
// per-rule and table-miss counters.
func ExampleSwitch_Replay() {
	pipe, _ := rules.New(nil)
	ups, _ := ofctl.ParseFlows("example", []byte("priority=10,tcp,tp_dst=443,actions=output:2\npriority=5,arp,actions=flood\n"), nil)
	pipe.ApplyBurst(ups, true)
	demo, err := dataplane.LoadFile("../replay/testdata/demo.pcap") // the replay laboratory's demo capture
	if err != nil {
		fmt.Println(err)
		return
	}
	sw := dataplane.NewSwitch(pipe, &dataplane.Config{Workers: 2, Ports: []uint32{1, 2}})
	if err := sw.Replay(context.Background(), []*dataplane.Capture{demo}, nil); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range pipe.Rules(0) {
		fmt.Printf("%s: %d packets\n", ofctl.FormatMatch(&r.Match, r.Priority), r.Packets())
	}
	st := sw.Stats()
	fmt.Printf("read %d, classified %d, table misses %d, outputs %d\n", st.Parse.Read, st.Packets, st.MissTable0, st.Outputs)
	// Output:
	// priority=10,tcp,tp_dst=443: 66 packets
	// priority=5,arp: 81 packets
	// read 3000, classified 2950, table misses 2803, outputs 147
}
