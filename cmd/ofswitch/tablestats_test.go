//go:build linux

package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ofswitch/ofswitch/internal/ovstest"
)

// TestLiveTableStats: after pings and packet-outs through a two-table
// pipeline on two workers per port, ovs-ofctl dump-tables shows each
// table's lookups and matches as the flows' counters imply (a frame
// that finds no entry is a lookup, not a match) and its active entries.
func TestLiveTableStats(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp, "--workers", "2", "--metrics", "127.0.0.1:9100")
	for _, f := range []string{
		"table=0,in_port=1,actions=goto_table:1",
		"table=0,in_port=2,actions=output:1",
		"table=1,priority=10,icmp,actions=output:2",
		"table=1,priority=10,arp,actions=output:2",
	} {
		if out, err := ovsOfctl(tp.sw, ofPort, "add-flow", f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if out, ok := tp.ping(t, 3); !ok {
		t.Fatalf("h1 cannot ping h2 through the two tables:\n%s\nswitch log:\n%s", out, sw.Log())
	}
	// A UDP frame through the tables from the controller (no entry in
	// table 0) and from port 1 (goto_table:1, then no entry).
	const udp = "02ee0000000202ee0000000108004500001c00000000401166cf0a0000010a00000203e8003500080000000000000000000000000000000000000000"
	for _, in := range []string{"controller", "1"} {
		if out, err := ovsOfctl(tp.sw, ofPort, "packet-out", "in_port="+in+" packet="+udp+" actions=table"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}

	// The flows' counters and the tables' are read one after the other:
	// take a reading between two equal dumps of the flows.
	var flows, tablesOut string
	waitFor(t, "two equal dump-flows around a dump-tables", sw.Log, func() (bool, string) {
		f1, err := ovsOfctl(tp.sw, ofPort, "dump-flows")
		if err != nil {
			return false, err.Error()
		}
		tablesOut, err = ovsOfctl(tp.sw, ofPort, "dump-tables")
		if err != nil {
			return false, err.Error()
		}
		flows, err = ovsOfctl(tp.sw, ofPort, "dump-flows")
		return err == nil && stripDurations(f1) == stripDurations(flows), flows
	})
	n := func(near ...string) int {
		v := counter(flows, "n_packets", near...)
		if v < 0 {
			t.Fatalf("no flow with %q in dump-flows:\n%s", near, flows)
		}
		return v
	}
	a, b := n("table=0", "in_port=1"), n("table=0", "in_port=2")
	icmp, arp := n("table=1", "icmp"), n("table=1", "arp")
	if a < 5 || b < 4 || icmp < 3 {
		t.Fatalf("too few packets through the flows after 3 pings:\n%s", flows)
	}
	got := ovstest.Tables(tablesOut)
	u := func(n int) uint64 { return uint64(n) }
	want := map[int]ovstest.TableLine{
		0: {Active: 2, Lookup: u(a + b + 1), Matched: u(a + b)}, // + the packet-out from the controller, which no entry matches
		1: {Active: 2, Lookup: u(a), Matched: u(icmp + arp)},
		2: {},
	}
	for tb, w := range want {
		if got[tb] != w {
			t.Errorf("dump-tables: table %d: %+v, want %+v\ndump-tables:\n%s\ndump-flows:\n%s", tb, got[tb], w, tablesOut, flows)
		}
	}
	metrics := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
	for tb, w := range want {
		for _, m := range []string{fmt.Sprintf("ofswitch_table_lookups_total{table=%q} %d\n", strconv.Itoa(tb), w.Lookup),
			fmt.Sprintf("ofswitch_table_matched_total{table=%q} %d\n", strconv.Itoa(tb), w.Matched)} {
			if !strings.Contains(metrics, m) {
				t.Errorf("metrics lack %q", m)
			}
		}
	}
	if a-icmp-arp != 1 {
		t.Errorf("table 1: %d misses, want 1 (the UDP packet-out from port 1):\n%s", a-icmp-arp, flows)
	}
}

// stripDurations removes the durations and ages from dump-flows output.
func stripDurations(s string) string {
	return regexp.MustCompile(` duration=[0-9.]+s,| idle_age=\d+,| hard_age=\d+,`).ReplaceAllString(s, "")
}
