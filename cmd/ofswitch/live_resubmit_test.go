//go:build linux

package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLiveResubmit: h1 pings h2 through resubmits (the switch defers
// outputs once a flow holds one), and a PACKET_OUT whose translation
// runs into a resubmit loop sends nothing, the output before the loop
// included, as Open vSwitch drops it, and is answered OFPFMFC_UNKNOWN:
// port 2's transmit count moves for a plain PACKET_OUT to 2, not for
// that one, and the switch counts the translation error
// (ofswitch_xlate_errors_total).
func TestLiveResubmit(t *testing.T) {
	needLive(t, "ovs-ofctl")
	tp := newTopo(t, "")
	sw := startSwitch(t, tp, "--metrics", "127.0.0.1:9100")
	for _, f := range []string{
		"table=0,in_port=1,actions=resubmit(,1)",
		"table=1,in_port=1,icmp,actions=output:2",
		"table=1,in_port=1,arp,actions=output:2",
		"table=0,in_port=2,actions=resubmit(,2),output:1", // table 2 is empty: the resubmit misses
		"table=3,actions=resubmit(,3)",
	} {
		if out, err := ovsOfctl(tp.sw, ofPort, "add-flow", f); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	if out, ok := tp.ping(t, 3); !ok {
		t.Fatalf("h1 cannot ping h2 through resubmits:\n%s\nswitch log:\n%s", out, sw.Log())
	}
	txRe := regexp.MustCompile(`port\s+"?s?2"?: rx pkts=\d+[^\n]*\n\s+tx pkts=(\d+)`)
	tx := func() int {
		out, err := ovsOfctl(tp.sw, ofPort, "dump-ports", "2")
		if err != nil {
			t.Fatal(err)
		}
		m := txRe.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no port 2 tx count in dump-ports:\n%s", out)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	const udp = "02ee0000000202ee0000000108004500001c00000000401166cf0a0000010a00000203e8003500080000000000000000000000000000000000000000"
	packetOut := func(actions string) {
		if out, err := ovsOfctl(tp.sw, ofPort, "packet-out", "in_port=controller packet="+udp+" actions="+actions); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	before := tx()
	packetOut("output:2")
	waitFor(t, "the PACKET_OUT to port 2 counted", sw.Log, func() (bool, string) {
		n := tx()
		return n == before+1, "tx " + strconv.Itoa(n)
	})
	// Answered as Open vSwitch answers it: OFPFMFC_UNKNOWN.
	if out, err := ovsOfctl(tp.sw, ofPort, "packet-out", "in_port=controller packet="+udp+" actions=output:2,resubmit(,3)"); err == nil || !strings.Contains(out, "OFPFMFC_UNKNOWN") {
		t.Fatalf("a PACKET_OUT into a resubmit loop: %v\n%s", err, out)
	}
	waitFor(t, "the translation error counted", sw.Log, func() (bool, string) {
		m := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
		return strings.Contains(m, "ofswitch_xlate_errors_total 1\n"), m
	})
	if n := tx(); n != before+1 {
		t.Errorf("port 2 sent %d frames since, want 1: the PACKET_OUT into a resubmit loop sent its output", n-before)
	}
}
