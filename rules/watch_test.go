package rules_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/rules"
	"github.com/ofswitch/ofswitch/rules/ofctl"
)

// TestWatch: a watching pipeline records every change of a burst, in
// order and with the index of its update (adds, the replacing add,
// modifies with the instructions they replaced, deletes), the removals
// Expire makes, and nothing for an all-or-none burst that failed; an
// unwatched pipeline records nothing.
func TestWatch(t *testing.T) {
	now := time.Unix(1000, 0)
	for _, recycle := range []bool{false, true} {
		p, err := rules.New(&rules.Config{Tables: 2, Recycle: recycle, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		burst := func(atomic bool, lines ...string) rules.BurstResult {
			t.Helper()
			var ups []rules.Update
			for _, l := range lines {
				cmd := rules.CmdAdd
				switch {
				case strings.HasPrefix(l, "modify "):
					cmd, l = rules.CmdModify, l[7:]
				case strings.HasPrefix(l, "delete "):
					cmd, l = rules.CmdDelete, l[7:]
				}
				u, err := ofctl.ParseFlow(l)
				if err != nil {
					t.Fatal(err)
				}
				u.Command = cmd
				ups = append(ups, u)
			}
			var res rules.BurstResult
			p.ApplyBurstTo(&res, ups, atomic, nil)
			return res
		}
		show := func(cs []rules.Change) string {
			var b strings.Builder
			for _, c := range cs {
				fmt.Fprintf(&b, "%d:%d/%d/%v p%d %s", c.Update, c.Kind, c.Reason, c.Replaced, c.Rule.Priority, ofctl.FormatActions(c.Rule.Instructions))
				if c.Kind == rules.ChangeModified {
					fmt.Fprintf(&b, " was %s", ofctl.FormatActions(c.OldInstructions))
				}
				b.WriteString("; ")
			}
			return b.String()
		}
		if res := burst(false, "priority=1,ip,actions=drop"); len(res.Changes) != 0 {
			t.Fatalf("unwatched: %s", show(res.Changes))
		}
		p.Watch(true)
		res := burst(false, "priority=5,ip,actions=output:1", "priority=5,ip,actions=output:2",
			"priority=6,hard_timeout=2,arp,actions=output:1", "modify ip,actions=output:3", "delete arp,actions=drop")
		want := "0:0/0/false p5 output:1; 1:0/0/true p5 output:2; 2:0/0/false p6 output:1; " +
			"3:1/0/false p5 output:3 was output:2; 3:1/0/false p1 output:3 was drop; 4:2/2/false p6 output:1; "
		if got := show(res.Changes); got != want {
			t.Errorf("burst:\n got %s\nwant %s", got, want)
		}
		burst(false, "priority=7,hard_timeout=2,udp,actions=drop")
		now = now.Add(3 * time.Second)
		_, cs := p.ExpireChanges(nil)
		if got := show(cs); got != "-1:2/1/false p7 drop; " {
			t.Errorf("expire: %s", got)
		}
		// An all-or-none burst that fails takes its changes back.
		good, _ := ofctl.ParseFlow("priority=8,ip,actions=drop")
		bad, _ := ofctl.ParseFlow("table=9,priority=8,ip,actions=drop")
		var all rules.BurstResult
		if failed := p.ApplyAllTo(&all, []rules.Update{good, bad}, nil, nil); failed != 1 || len(all.Changes) != 0 {
			t.Errorf("failed all-or-none burst: failed %d, changes %s", failed, show(all.Changes))
		}
		p.Watch(false)
		if res := burst(false, "priority=9,ip,actions=drop"); len(res.Changes) != 0 {
			t.Errorf("after Watch(false): %s", show(res.Changes))
		}
	}
}
