package replay_test

import (
	"context"
	"fmt"

	"github.com/ofswitch/ofswitch/replay"
)

// Replay the demo capture against the demo rules with two filter
// configurations side by side, without bursts, and read what each saw.
func ExampleRun() {
	ups, tables, err := replay.LoadRules("", "") // no file: the demo flows
	if err != nil {
		fmt.Println(err)
		return
	}
	caps, frames, _ := replay.LoadCaptures(nil) // no file: the demo capture
	filters, _ := replay.ParseFilters([]string{"bcf,none"}, []int{5})
	rep, err := replay.Run(context.Background(), &replay.Config{
		Rules: ups, Tables: tables, Filters: filters, Captures: caps, Workers: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d frames, %d rules in %d tables\n", frames, rep.Rules, tables)
	for _, k := range rep.Kinds {
		top := k.Top[0]
		fmt.Printf("%s: %d packets, %d classified, %d table-0 misses; top rule %s with %d packets\n",
			k.Filter, k.Packets, k.Counters.Packets, k.Counters.MissTable0, top.Flow, top.Packets)
	}
	// Output:
	// 3000 frames, 20 rules in 2 tables
	// bcf t=5: 3000 packets, 2950 classified, 244 table-0 misses; top rule priority=20,tcp,actions=set_field:02:00:00:00:00:01->eth_dst,output:1 with 770 packets
	// none: 3000 packets, 2950 classified, 244 table-0 misses; top rule priority=20,tcp,actions=set_field:02:00:00:00:00:01->eth_dst,output:1 with 770 packets
}
