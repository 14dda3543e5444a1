package main

import (
	"testing"
)

// TestLiveGroups: ofswitch run forwards through groups that ovs-ofctl
// adds: h1's frames through an ALL group, h2's through an INDIRECT one;
// the groups count what they forwarded; a FAST_FAILOVER group whose
// watched port is administratively down (mod-port down) sends through its
// next bucket, and deleting the groups removes their flows.
func TestLiveGroups(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp)
	for _, c := range [][]string{
		{"add-group", "group_id=1,type=all,bucket=output:2"},
		{"add-group", "group_id=2,type=indirect,bucket=output:1"},
		{"add-flow", "in_port=1,actions=group:1"},
		{"add-flow", "in_port=2,actions=group:2"},
	} {
		if out, err := ovsOfctl(tp.sw, ofPort, c[0], c[1]); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if out, ok := tp.ping(t, 3); !ok {
		t.Fatalf("h1 cannot ping h2 through groups:\n%s\nswitch log:\n%s", out, sw.Log())
	}
	stats, err := ovsOfctl(tp.sw, ofPort, "dump-group-stats")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"group_id=1,", "group_id=2,"} {
		if n := counter(stats, "packet_count", g); n < 4 {
			t.Errorf("%s packet_count=%d, want >= 4 after 3 pings:\n%s", g, n, stats)
		}
		if n := counter(stats, "ref_count", g); n != 1 {
			t.Errorf("%s ref_count=%d, want 1:\n%s", g, n, stats)
		}
	}
	// Fast failover: h1's frames go through group 3, out of port 2
	// while it is up, else back out of port 1 (h1 drops them).
	for _, c := range [][]string{
		{"add-group", "group_id=3,type=fast_failover,bucket=watch_port:2,actions=output:2,bucket=watch_port:1,actions=in_port"},
		{"mod-flows", "in_port=1,actions=group:3"},
	} {
		if out, err := ovsOfctl(tp.sw, ofPort, c[0], c[1]); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if out, ok := tp.ping(t, 2); !ok {
		t.Fatalf("h1 cannot ping h2 through group 3's first bucket:\n%s", out)
	}
	if out, err := ovsOfctl(tp.sw, ofPort, "mod-port", "2", "down"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	waitFor(t, "group 3 to fail over to its second bucket", sw.Log, func() (bool, string) {
		tp.ping(t, 1)
		s, _ := ovsOfctl(tp.sw, ofPort, "dump-group-stats")
		return counter(s, "bucket1:packet_count", "group_id=3,") > 0, s
	})
	if out, err := ovsOfctl(tp.sw, ofPort, "mod-port", "2", "up"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	waitFor(t, "h1 to ping h2 through group 3's first bucket again", sw.Log, func() (bool, string) {
		out, ok := tp.ping(t, 1)
		return ok, out
	})
	if out, err := ovsOfctl(tp.sw, ofPort, "del-groups"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if flows, err := ovsOfctl(tp.sw, ofPort, "dump-flows"); err != nil || counter(flows, "n_packets") != -1 {
		t.Errorf("flows left after del-groups (%v):\n%s", err, flows)
	}
}
