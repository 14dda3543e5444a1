//go:build linux

package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// faucetHosts is how many hosts TestLiveFaucet joins: enough that a flood
// group has more than one bucket.
const faucetHosts = 3

// faucetPipeline is the flows, groups and meter TestLiveFaucet gives a
// switch of n ports, in the shape Faucet gives a VLAN of n untagged
// ports: table 0 admits each port's frames; table 1 (Faucet's eth_src
// table, with no host learned) sends every frame to the controller and
// on to table 2; table 2 (eth_dst) outputs a host's MAC to its port and
// floods broadcasts, and unknown unicast below them, through the ALL
// group of the frame's in_port, whose buckets output to every other
// port. The Controller meter limits the packet-ins to 2 per second, as
// Faucet's packetin_pps does, with a burst of 2.
func faucetPipeline(n int) [][]string {
	cmds := [][]string{
		{"add-meter", "meter=controller,pktps,burst,stats,bands=type=drop,rate=2,burst_size=2"},
	}
	for i := 1; i <= n; i++ {
		var buckets []string
		for j := 1; j <= n; j++ {
			if j != i {
				buckets = append(buckets, "bucket=output:"+strconv.Itoa(j))
			}
		}
		cmds = append(cmds, []string{"add-group", fmt.Sprintf("group_id=%d,type=all,%s", i, strings.Join(buckets, ","))})
	}
	cmds = append(cmds,
		[]string{"add-flow", "table=0,priority=0,actions=drop"},
		[]string{"add-flow", "table=1,priority=0,actions=controller:128,goto_table:2"},
		[]string{"add-flow", "table=2,priority=0,actions=drop"},
	)
	for i := 1; i <= n; i++ {
		cmds = append(cmds,
			[]string{"add-flow", fmt.Sprintf("table=0,priority=9000,in_port=%d,actions=goto_table:1", i)},
			[]string{"add-flow", fmt.Sprintf("table=2,priority=9000,dl_dst=%s,actions=output:%d", hostMAC(i), i)},
			[]string{"add-flow", fmt.Sprintf("table=2,priority=8240,in_port=%d,dl_dst=ff:ff:ff:ff:ff:ff,actions=group:%d", i, i)},
			[]string{"add-flow", fmt.Sprintf("table=2,priority=8000,in_port=%d,actions=group:%d", i, i)},
		)
	}
	return cmds
}

// TestLiveFaucet runs a Faucet-style pipeline (faucetPipeline) in `ofswitch
// run` between three hosts, with `ovs-ofctl monitor` as the controller:
// every host pings every other, its neighbour table flushed first so that
// each ping starts with an ARP broadcast through the pinging host's flood
// group. Every ping is answered; each group counts the broadcasts of its
// port in every bucket; the Controller meter counts every frame as a
// packet-in and drops some in its band, and the controller receives
// exactly the others.
func TestLiveFaucet(t *testing.T) {
	needLive(t, "ovs-ofctl")
	const n, count = faucetHosts, 2
	tp := newTopoN(t, "", n)
	sw := startSwitch(t, tp, "--metrics", "127.0.0.1:9100")
	for _, c := range faucetPipeline(n) {
		if out, err := ovsOfctl(tp.sw, ofPort, c[0], c[1:]...); err != nil {
			t.Fatalf("%v\n%s\nswitch log:\n%s", err, out, sw.Log())
		}
	}
	mon := startMonitor(t, tp, ofPort)
	log := func() string { return "monitor:\n" + mon.String() + "\nofswitch:\n" + sw.Log() }
	waitFor(t, "ovs-ofctl monitor connected", log, func() (bool, string) {
		m := httpGetIn(t, tp, "127.0.0.1:9100", "/metrics")
		return strings.Contains(m, "\nofswitch_openflow_connections 1\n"), ""
	})

	for from := 1; from <= n; from++ {
		for to := 1; to <= n; to++ {
			if from == to {
				continue
			}
			sh(t, "ip", "-n", tp.hosts[from-1], "neigh", "flush", "all")
			if out, ok := tp.pingHost(t, from, to, count); !ok {
				flows, _ := ovsOfctl(tp.sw, ofPort, "dump-flows")
				t.Errorf("h%d cannot ping h%d:\n%s\nflows:\n%s", from, to, out, flows)
			}
		}
	}
	if t.Failed() {
		t.Fatalf("%s", log())
	}

	// Host i broadcast an ARP request before each of its n-1 pings, out
	// of every other port.
	gs, err := ovsOfctl(tp.sw, ofPort, "dump-group-stats")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		g := fmt.Sprintf("group_id=%d,", i)
		if c := counter(gs, "packet_count", g); c < n-1 {
			t.Errorf("%s packet_count=%d, want >= %d ARP broadcasts:\n%s", g, c, n-1, gs)
		}
		if c := counter(gs, "ref_count", g); c != 2 {
			t.Errorf("%s ref_count=%d, want 2 flows:\n%s", g, c, gs)
		}
		for b := 0; b < n-1; b++ {
			if c := counter(gs, fmt.Sprintf("bucket%d:packet_count", b), g); c < n-1 {
				t.Errorf("%s bucket %d packet_count=%d, want >= %d:\n%s", g, b, c, n-1, gs)
			}
		}
	}

	// Every frame the switch took in went to the controller through the
	// meter: at least each echo request and reply, and each ARP request
	// and reply. Far more than 2 per second for a burst of 2.
	ms, err := ovsOfctl(tp.sw, ofPort, "meter-stats")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dump-group-stats:\n%smeter-stats:\n%s", gs, ms)
	in := meterCounter(ms, "packet_in_count")
	dropped := meterCounter(ms, "0: packet_count")
	if pings := n * (n - 1); in < pings*(2*count+2) {
		t.Errorf("controller meter packet_in_count=%d, want >= %d for %d pings of %d echo requests:\n%s", in, pings*(2*count+2), pings, count, ms)
	}
	if dropped <= 0 || dropped >= in {
		t.Errorf("controller meter dropped %d of %d packet-ins, want some but not all:\n%s", dropped, in, ms)
	}
	waitFor(t, fmt.Sprintf("%d packet-ins at the controller", in-dropped), log, func() (bool, string) {
		got := strings.Count(mon.String(), "OFPT_PACKET_IN")
		return got == in-dropped, fmt.Sprintf("%d packet-ins at the controller, meter passed %d of %d", got, in-dropped, in)
	})
}

// meterCounter returns the integer after key: in meter-stats' text, or -1.
func meterCounter(text, key string) int {
	m := regexp.MustCompile(regexp.QuoteMeta(key) + `:(\d+)`).FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	v, _ := strconv.Atoi(m[1])
	return v
}
