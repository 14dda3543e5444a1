package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/controller/push"
	"github.com/ofswitch/ofswitch/internal/netnstest"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// BenchmarkPushCLI measures `ofswitch push --batch 256` as users run it:
// the push client, the switch and the baseline are each a process of
// their own, as `ofswitch push` into `ofswitch run` and into Open vSwitch
// (userspace ovs-vswitchd in a network namespace of the benchmark's own;
// ofswitch runs in the same namespace, so that both are reached over the
// same loopback). The figures are push's own (--json): flows/s from its
// first FLOW_MOD to its last barrier reply, so neither the processes'
// start nor the parsing of the flow file counts, and barrier latencies.
//
// Sub-benchmarks, each on both switches:
//   - flows=N: N exact 5-tuple flows into an empty table; "flows/s", the
//     median barrier latency of the batches, and "switch-cpu-ns/flow", the
//     switch process's CPU time per flow while the push ran. An untimed
//     push of the same flows goes first, so that every switch runs with
//     its memory for such a table warm; "first-flows/s" is that push's
//     rate (in a switch process that has held no table that large, the
//     cost of mapping new memory is in it).
//   - batch256/installed=N: one 256-flow batch, each from a new push
//     process (a new connection), into a table of N flows; "µs/batch".
//   - steady/installed=N: 40 batches of 256 on one connection, each sent
//     after the barrier reply of the one before (--window 1), as a
//     controller that keeps its connection sends them; the median and 99th
//     percentile of the 40 barrier latencies. As for flows=N, an untimed
//     push of the same batches goes first: the table grows by 10240 flows
//     beyond any it held before, and in a switch that has never held them
//     the first push pays for mapping their memory ("first-µs-p50/batch",
//     its median).
//
// A third target, "floor", is a peer that frames the messages and answers
// the barriers, nothing else (runFloorPeer): the share of the client and
// of loopback in every figure, what no switch can go below.
//
// Between pushes, untimed, the flows are deleted again and the switch is
// left idle for 150 ms (ofswitch tidies its tables when idle for 2 ms).
// Needs root (a network namespace) for Open vSwitch; without it only
// ofswitch runs, in the root namespace.
func BenchmarkPushCLI(b *testing.B) {
	bin := ofswitchBinary(b)
	dir := b.TempDir()
	file := func(name string, n, offset int, del bool) string {
		var buf bytes.Buffer
		for i := range n {
			k := i + offset
			if del {
				buf.WriteString("delete ")
			}
			fmt.Fprintf(&buf, "priority=100,tcp,nw_src=127.%d.%d.%d,nw_dst=127.%d.%d.%d,tp_src=%d,tp_dst=80",
				16+k>>16&0xf, k>>8&0xff, k&0xff, 32+k>>16&0xf, k>>8&0xff, k&0xff, 1024+k%50000)
			if !del {
				buf.WriteString(",actions=output:2")
			}
			buf.WriteByte('\n')
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		return path
	}
	var targets []pushTarget
	ns := ""
	if err := ovstest.Available(testutil.RepoRoot(b)); err != nil {
		b.Logf("no Open vSwitch baseline: %v", err)
	} else {
		ovs := ovstest.Start(b)
		ns = ovs.NS
		pid, err := ovs.VswitchdPID()
		if err != nil {
			b.Fatal(err)
		}
		targets = append(targets, pushTarget{"openvswitch", ns, ovs.Target(), pid})
	}
	// In the benchmark's own namespace only Open vSwitch listens, on
	// ovstest.Port.
	port := ovstest.Port + 1
	if ns == "" {
		port = freePort(b)
	}
	args := []string{"run", "--listen", "ptcp:" + strconv.Itoa(port) + ":127.0.0.1"}
	sw := netnstest.Start(b, ns, nil, bin, args...)
	// ip netns exec runs the program in its own place: the pid is the switch's.
	of := pushTarget{"ofswitch", ns, "tcp:127.0.0.1:" + strconv.Itoa(port), sw.Cmd.Process.Pid}
	targets = append([]pushTarget{of}, targets...)
	// The floor: the test binary as a peer that only frames messages and
	// answers barriers (runFloorPeer), beside ofswitch.
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	floorAddr := "127.0.0.1:" + strconv.Itoa(port+1)
	if ns == "" {
		floorAddr = "127.0.0.1:" + strconv.Itoa(freePort(b))
	}
	fp := netnstest.Start(b, ns, nil, "env", floorPeerEnv+"="+floorAddr, self)
	targets = append(targets, pushTarget{"floor", ns, "tcp:" + floorAddr, fp.Cmd.Process.Pid})
	deleteAll := filepath.Join(dir, "delete-all")
	if err := os.WriteFile(deleteAll, []byte("delete\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	pushFile := func(t pushTarget, path string, extra ...string) *push.Result {
		b.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args := append([]string{"push", "--switch", t.addr, "--json"}, extra...)
		args = append(args, path)
		cmd := t.command(ctx, bin, args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("%s: ofswitch %s: %v\n%s\nswitch log:\n%s", t.name, strings.Join(args, " "), err, stderr.String(), sw.Log())
		}
		var res push.Result
		if err := json.Unmarshal(out, &res); err != nil {
			b.Fatalf("%s: push --json: %v\n%s", t.name, err, out)
		}
		return &res
	}
	// quiet waits until the switches are idle (see waitIdle). Open
	// vSwitch goes on working for some 400 ms after it deleted 100K flows,
	// and whatever is measured meanwhile shares the two processors with it.
	quiet := func() {
		pids := make([]int, len(targets))
		for i, t := range targets {
			pids[i] = t.pid
		}
		waitIdle(b, pids)
	}
	settle := func(t pushTarget, path string, extra ...string) {
		if res := pushFile(t, path, extra...); res.Flows == 0 {
			b.Fatalf("%s: push %s sent nothing", t.name, path)
		}
		// ofswitch unlinks deleted flows once idle for 2 ms: 100K take
		// it some 30 ms, which the next push should not share.
		time.Sleep(150 * time.Millisecond)
		quiet()
	}
	wait := func(t pushTarget) {
		// The switch answers before the first benchmark runs.
		waitFor(b, "answer from "+t.name, sw.Log, func() (bool, string) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := t.command(ctx, bin, "push", "--switch", t.addr, deleteAll).CombinedOutput()
			return err == nil, string(out)
		})
	}
	for _, t := range targets {
		wait(t)
	}

	for _, n := range []int{1000, 10_000, 100_000} {
		flows := file(fmt.Sprintf("flows-%d", n), n, 0, false)
		for _, t := range targets {
			b.Run(fmt.Sprintf("%s/flows=%d", t.name, n), func(b *testing.B) {
				settle(t, deleteAll)
				// One untimed push first: the timed ones run with the
				// memory of such a table mapped already, as in a switch
				// that has held one before. The first is reported on
				// its own: into a fresh process it pays for the page
				// faults of new memory.
				first := pushFile(t, flows, "--batch", "256")
				settle(t, deleteAll)
				var pushed, p50, cpu float64
				var elapsed time.Duration
				for b.Loop() {
					u0, s0 := cpuSeconds(b, t.pid)
					res := pushFile(t, flows, "--batch", "256")
					u1, s1 := cpuSeconds(b, t.pid)
					cpu += u1 - u0 + s1 - s0
					if res.Flows != n || res.ErrCount != 0 {
						b.Fatalf("%s: pushed %d flows with %d errors, want %d and none", t.name, res.Flows, res.ErrCount, n)
					}
					pushed += float64(res.Flows)
					elapsed += res.Elapsed
					p50 += float64(res.LatencyP50.Microseconds())
					b.StopTimer()
					settle(t, deleteAll)
					b.StartTimer()
				}
				b.ReportMetric(pushed/elapsed.Seconds(), "flows/s")
				b.ReportMetric(first.PerSec, "first-flows/s")
				b.ReportMetric(p50/float64(b.N), "µs-p50-batch")
				// The switch process's CPU time (user and system, in
				// 10 ms ticks) per flow pushed, the client's work aside.
				b.ReportMetric(cpu*1e9/pushed, "switch-cpu-ns/flow")
				b.ReportMetric(0, "ns/op")
			})
		}
	}

	installed := file("installed", 100_000, 1<<20, false)
	batch := file("batch", 256, 1<<19, false)
	unbatch := file("unbatch", 256, 1<<19, true)
	steady := file("steady", 40*256, 1<<19, false)
	unsteady := file("unsteady", 40*256, 1<<19, true)
	for _, size := range []int{0, 100_000} {
		for _, t := range targets {
			b.Run(fmt.Sprintf("%s/batch256/installed=%d", t.name, size), func(b *testing.B) {
				settle(t, deleteAll)
				if size > 0 {
					settle(t, installed, "--batch", "1024")
				}
				var lat float64
				for b.Loop() {
					lat += float64(pushFile(t, batch, "--batch", "256").LatencyMax.Microseconds())
					b.StopTimer()
					settle(t, unbatch, "--strict", "--batch", "256")
					b.StartTimer()
				}
				b.ReportMetric(lat/float64(b.N), "µs/batch")
				b.ReportMetric(0, "ns/op")
			})
			b.Run(fmt.Sprintf("%s/steady/installed=%d", t.name, size), func(b *testing.B) {
				first := pushFile(t, steady, "--batch", "256", "--window", "1")
				settle(t, unsteady, "--strict", "--batch", "1024")
				var p50, p99 float64
				for b.Loop() {
					res := pushFile(t, steady, "--batch", "256", "--window", "1")
					if res.Batches != 40 {
						b.Fatalf("%s: %d batches, want 40", t.name, res.Batches)
					}
					p50 += float64(res.LatencyP50.Microseconds())
					p99 += float64(res.LatencyP99.Microseconds())
					b.StopTimer()
					settle(t, unsteady, "--strict", "--batch", "1024")
					b.StartTimer()
				}
				b.ReportMetric(p50/float64(b.N), "µs-p50/batch")
				b.ReportMetric(p99/float64(b.N), "µs-p99/batch")
				b.ReportMetric(float64(first.LatencyP50.Microseconds()), "first-µs-p50/batch")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

// pushTarget is a switch BenchmarkPushCLI pushes into: its OpenFlow
// target, reached from network namespace ns ("" for the benchmark's own),
// and the process id of the switch.
type pushTarget struct {
	name, ns, addr string
	pid            int
}

// command runs name in t's namespace.
func (t pushTarget) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	if t.ns == "" {
		return exec.CommandContext(ctx, name, args...)
	}
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", t.ns, name}, args...)...)
}

// waitIdle waits until the processes pids are idle: at most 15 ms of
// processor time among them (a tick and a half of /proc's) in 100 ms,
// for at most 5 s.
func waitIdle(tb testing.TB, pids []int) {
	tb.Helper()
	busy := func() float64 {
		var sum float64
		for _, pid := range pids {
			u, s := cpuSeconds(tb, pid)
			sum += u + s
		}
		return sum
	}
	last := busy()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		now := busy()
		if now-last < 0.015 {
			return
		}
		last = now
	}
}
