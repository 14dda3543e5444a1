//go:build linux

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLiveMeter meters h1's pings through `ofswitch run`: a 1 pps drop
// band with a burst of 2 lets 2 + about 2 of 10 echo requests (sent 0.2 s
// apart) through; meter-stats counts the rest in its band, and deleting
// the meter removes its flow.
func TestLiveMeter(t *testing.T) {
	needLive(t, "ovs-ofctl", "ping")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp)
	for _, c := range [][]string{
		{"add-meter", "meter=1,pktps,burst,stats,bands=type=drop,rate=1,burst_size=2"},
		{"add-flow", "priority=40000,in_port=1,icmp,actions=meter:1,output:2"},
		{"add-flow", "in_port=1,actions=output:2"},
		{"add-flow", "in_port=2,actions=output:1"},
	} {
		if out, err := ovsOfctl(tp.sw, ofPort, c[0], c[1:]...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	out, _ := tp.ping(t, 10)
	m := regexp.MustCompile(`(\d+) received`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("ping:\n%s\nswitch log:\n%s", out, sw.Log())
	}
	got, _ := strconv.Atoi(m[1])
	if got < 3 || got > 5 {
		t.Errorf("%d of 10 echo requests answered through a 1 pps meter with a burst of 2, want 3..5:\n%s", got, out)
	}
	st, err := ovsOfctl(tp.sw, ofPort, "meter-stats")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"meter:1 flow_count:1 packet_in_count:10 ", "0: packet_count:" + strconv.Itoa(10-got) + " "} {
		if !strings.Contains(st, want) {
			t.Errorf("meter-stats lacks %q:\n%s", want, st)
		}
	}
	if out, err := ovsOfctl(tp.sw, ofPort, "del-meter", "meter=1"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if flows, _ := ovsOfctl(tp.sw, ofPort, "dump-flows"); strings.Contains(flows, "meter:1") || strings.Count(flows, "actions=") != 2 {
		t.Errorf("the metered flow outlived its meter:\n%s", flows)
	}
}
