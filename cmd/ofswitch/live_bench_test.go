//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/netnstest"
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
// the share of sent frames that reached h2, and "cpu-ns/fwd", the CPU time
// (user and system, all threads) of the switch's process per delivered
// frame, of which "sys-ns/fwd" is system time: the kernel's work in the
// switch's system calls, mostly sending each frame through the veth pair
// and up the receiving host's stack, which no switch can do without. Where
// tcpreplay, not the switch, sets the pace, fwd-pps cannot tell the
// switches apart, but cpu-ns/fwd still does. Compare the runs
// with benchstat; each b.Loop iteration is one tcpreplay of 200 loops
// (240,000 frames), so use a small -benchtime such as 3x.
func BenchmarkLive(b *testing.B) {
	capture := filepath.Join(testutil.RepoRoot(b), "testdata", "pcaps", "mix.pcap")
	flows := []string{"in_port=1,actions=output:2", "in_port=2,actions=output:1"}
	for _, kind := range []string{"ofswitch", "ofswitch-2q", "ovs"} {
		b.Run("switch="+kind, func(b *testing.B) {
			needLive(b, "tcpreplay", "ovs-ofctl")
			var (
				tp  *topo
				pid int
			)
			if kind == "ovs" {
				ovs := ovstest.Start(b)
				tp = newTopo(b, ovs.NS)
				ovs.AddPort(b, tp.swIf[0], 1)
				ovs.AddPort(b, tp.swIf[1], 2)
				var err error
				if pid, err = ovs.VswitchdPID(); err != nil {
					b.Fatal(err)
				}
				for _, f := range flows {
					if out, err := ovs.Ofctl("", "add-flow", f); err != nil {
						b.Fatalf("%v\n%s", err, out)
					}
				}
			} else {
				tp = newTopo(b, "")
				var p *netnstest.Proc
				if kind == "ofswitch-2q" {
					p = startSwitch(b, tp, "--workers", "2")
				} else {
					p = startSwitch(b, tp)
				}
				pid = p.Cmd.Process.Pid
				for _, f := range flows {
					if out, err := ovsOfctl(tp.sw, ofPort, "add-flow", f); err != nil {
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
			user0, sys0 := cpuSeconds(b, pid)
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
			user, sys := cpuSeconds(b, pid)
			user, sys = user-user0, sys-sys0
			cpu := user + sys
			secs := last.Sub(start).Seconds()
			sent, got := float64(tx-tx0), float64(rx-rx0)
			b.ReportMetric(got/secs, "fwd-pps")
			b.ReportMetric(sent/secs, "sent-pps")
			if sent > 0 {
				b.ReportMetric(got/sent, "delivered")
			}
			if got > 0 {
				b.ReportMetric(cpu*1e9/got, "cpu-ns/fwd")
				b.ReportMetric(sys*1e9/got, "sys-ns/fwd")
			}
			b.ReportMetric(0, "ns/op")
			b.Logf("%s: %s frames sent, %s delivered in %.2f s; the switch used %.2f s of CPU (%.2f s system)", kind,
				strconv.FormatFloat(sent, 'f', 0, 64), strconv.FormatFloat(got, 'f', 0, 64), secs, cpu, sys)
		})
	}
}

// cpuSeconds returns the CPU time in user and in system mode of all
// threads of process pid so far.
func cpuSeconds(tb testing.TB, pid int) (user, sys float64) {
	tb.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	user, sys, err = parseStatCPU(string(b))
	if err != nil {
		tb.Fatalf("/proc/%d/stat: %v", pid, err)
	}
	return user, sys
}

// parseStatCPU returns utime and stime, in seconds, from the text of a
// /proc/PID/stat file (proc(5)): fields 14 and 15, counted in USER_HZ
// ticks, which Linux fixes at 100 a second. The command name (field 2) is
// in parentheses and may hold spaces and parentheses itself, so the fields
// are counted from the last ')'.
func parseStatCPU(stat string) (user, sys float64, err error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("no ')' after the command name in %q", stat)
	}
	f := strings.Fields(stat[i+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	var ticks [2]uint64
	for j, s := range f[11:13] {
		if ticks[j], err = strconv.ParseUint(s, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("utime/stime %q: %v", s, err)
		}
	}
	return float64(ticks[0]) / 100, float64(ticks[1]) / 100, nil
}

func TestParseStatCPU(t *testing.T) {
	// A stat line of a process whose name has a space and a ')': utime
	// 250 and stime 75 ticks.
	line := "4242 (of sw) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 9 0 100 2000000 500 18446744073709551615\n"
	user, sys, err := parseStatCPU(line)
	if err != nil || user != 2.5 || sys != 0.75 {
		t.Errorf("parseStatCPU = %v, %v, %v; want 2.5, 0.75", user, sys, err)
	}
	for _, bad := range []string{"4242 (ofswitch S 1 2", "4242 (ofswitch) S 1 2 3", "4242 (a) S 1 2 3 4 5 6 7 8 9 10 x 75 0", "4242 (a) S 1 2 3 4 5 6 7 8 9 10 250 y 0"} {
		if _, _, err := parseStatCPU(bad); err == nil {
			t.Errorf("parseStatCPU(%q): no error", bad)
		}
	}
	// This process's own CPU time grows while it spins (bounded: 5 s).
	u0, s0 := cpuSeconds(t, os.Getpid())
	x := uint64(1)
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		for range 1 << 16 {
			x = x*6364136223846793005 + 1
		}
		if u, _ := cpuSeconds(t, os.Getpid()); u > u0 {
			return
		}
	}
	t.Errorf("user CPU time stayed at %v s (system %v s) through 5 s of spinning (%d)", u0, s0, x)
}
