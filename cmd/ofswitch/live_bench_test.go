//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// rxTx returns the frames interface dev of namespace ns received and
// transmitted, from its kernel counters.
func rxTx(tb testing.TB, ns, dev string) (rx, tx uint64) {
	tb.Helper()
	out, err := exec.Command("ip", "-n", ns, "-j", "-s", "link", "show", "dev", dev).Output()
	if err != nil {
		tb.Fatalf("ip -n %s -s link show %s: %v", ns, dev, err)
	}
	var links []struct {
		Stats64 struct {
			RX struct{ Packets uint64 } `json:"rx"`
			TX struct{ Packets uint64 } `json:"tx"`
		} `json:"stats64"`
	}
	if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
		tb.Fatalf("ip -j -s link show %s: %v\n%s", dev, err, out)
	}
	return links[0].Stats64.RX.Packets, links[0].Stats64.TX.Packets
}

// BenchmarkLive measures live forwarding between two veth ports: tcpreplay
// --topspeed --preload-pcap sends testdata/pcaps/mix.pcap (1,200 frames of every kind,
// malformed ones included) in a loop from h1 into the switch, which has
// the flows in_port=1,actions=output:2 and back, and the frames h2's
// interface receives are counted from its kernel counters. The same
// setup runs `ofswitch run` (its own binary; "ofswitch" with the default
// one receive queue per port, "ofswitch-2q" with --workers 2) and Open
// vSwitch's userspace datapath (netdev bridge, the same veth ports and
// flows), one after the other in the same run.
//
// Reported per switch: "fwd-pps", frames delivered to h2 per second
// (from the first frame sent until h2's counter stops moving), "sent-pps"
// (what tcpreplay managed to push into h1's interface) and "delivered",
// the share of sent frames that reached h2. Compare the two with
// benchstat; each b.Loop iteration is one tcpreplay of 200 loops (240,000
// frames), so use a small -benchtime such as 3x.
func BenchmarkLive(b *testing.B) {
	capture := filepath.Join(testutil.RepoRoot(b), "testdata", "pcaps", "mix.pcap")
	flows := []string{"in_port=1,actions=output:2", "in_port=2,actions=output:1"}
	for _, kind := range []string{"ofswitch", "ofswitch-2q", "ovs"} {
		b.Run("switch="+kind, func(b *testing.B) {
			needLive(b, "tcpreplay", "ovs-ofctl")
			var tp *topo
			if kind == "ovs" {
				ovs := ovstest.Start(b)
				tp = newTopo(b, ovs.NS)
				ovs.AddPort(b, tp.swIf[0], 1)
				ovs.AddPort(b, tp.swIf[1], 2)
				for _, f := range flows {
					if out, err := ovs.Ofctl("", "add-flow", f); err != nil {
						b.Fatalf("%v\n%s", err, out)
					}
				}
			} else {
				tp = newTopo(b, "")
				if kind == "ofswitch-2q" {
					startSwitch(b, tp, "--workers", "2")
				} else {
					startSwitch(b, tp)
				}
				for _, f := range flows {
					if out, err := ofctl(tp.sw, ofPort, "add-flow", f); err != nil {
						b.Fatalf("%v\n%s", err, out)
					}
				}
			}
			if out, ok := tp.ping(b, 1); !ok {
				b.Fatalf("h1 cannot ping h2 before the measurement:\n%s", out)
			}
			h1, h2 := tp.hosts[0], tp.hosts[1]
			_, tx0 := rxTx(b, h1, "eth0")
			rx0, _ := rxTx(b, h2, "eth0")
			start := time.Now()
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				out, err := nsExec(ctx, h1, "tcpreplay", "--topspeed", "--preload-pcap", "--loop=200", "-i", "eth0", capture).CombinedOutput()
				cancel()
				if err != nil {
					b.Fatalf("tcpreplay: %v\n%s", err, out)
				}
				if !regexp.MustCompile(`Successful packets:\s+[1-9]`).Match(out) {
					b.Fatalf("tcpreplay sent nothing:\n%s", out)
				}
			}
			// Wait (bounded) until h2's counter stops moving.
			rx, last := rx0, time.Now()
			for i := 0; i < 100; i++ {
				time.Sleep(20 * time.Millisecond)
				now, _ := rxTx(b, h2, "eth0")
				if now == rx && i >= 5 {
					break
				}
				if now != rx {
					rx, last = now, time.Now()
				}
			}
			_, tx := rxTx(b, h1, "eth0")
			secs := last.Sub(start).Seconds()
			sent, got := float64(tx-tx0), float64(rx-rx0)
			b.ReportMetric(got/secs, "fwd-pps")
			b.ReportMetric(sent/secs, "sent-pps")
			if sent > 0 {
				b.ReportMetric(got/sent, "delivered")
			}
			b.ReportMetric(0, "ns/op")
			b.Logf("%s: %s frames sent, %s delivered in %.2f s", kind, strconv.FormatFloat(sent, 'f', 0, 64),
				strconv.FormatFloat(got, 'f', 0, 64), secs)
		})
	}
}
