package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ofswitch/ofswitch/internal/netnstest"
	"github.com/ofswitch/ofswitch/internal/ovstest"
	"github.com/ofswitch/ofswitch/internal/testutil"
)

// BenchmarkPushProcess times what a user waits for: `ofswitch push
// --batch 256 FILE` of 100K ordinary flows (a protocol, two addresses,
// two ports, one output), from the start of the process to its exit, into
// `ofswitch run` on loopback; and, beside it, `ovs-ofctl -O OpenFlow14
// --bundle add-flows` of the same file into Open vSwitch (userspace
// ovs-vswitchd in a network namespace of the benchmark's own, ofswitch run
// in the same namespace, both clients started there by ip netns exec).
// Unlike BenchmarkPushCLI, whose clock starts at the first FLOW_MOD, the
// figures include the process's start, the reading, checking and parsing
// of the file and the wait for the last reply.
//
// Sub-benchmarks:
//   - ofswitch: "flows/s" (median of the pushes) and "s/push".
//   - versus-openvswitch: a push of each per round, the one pushed first
//     swapped from round to round; "ofswitch-flows/s" and "ovs-flows/s"
//     (medians) and "ratio", the median of the rounds' ratios, Open
//     vSwitch's time over ofswitch's. Skipped, with the reason, where
//     Open vSwitch cannot run (no root, no packages).
//   - versus-baseline: the same against another ofswitch binary, named by
//     $OFSWITCH_BASELINE (another commit's, go build -o): each binary
//     pushes into an ofswitch run of its own binary, both switches started
//     for this sub-benchmark and given the same untimed pushes, so that
//     neither comes to the race warmer, and the first to push swapped
//     from round to round: "flows/s" and "baseline-flows/s" (medians) and
//     "ratio", the median of the rounds' ratios, the baseline's time over
//     this binary's (about 1.00 for a binary against a copy of itself);
//     and the same in CPU time, the client's and its switch's: "cpu-ratio",
//     "cpu-s/push" and "baseline-cpu-s/push". Skipped without it.
//
// Before each timed push, untimed, the table is emptied (push of
// "delete", ovs-ofctl del-flows) and the switches left to go idle.
func BenchmarkPushProcess(b *testing.B) {
	const n = 100_000
	bin := ofswitchBinary(b)
	dir := b.TempDir()
	var buf bytes.Buffer
	for k := range n {
		fmt.Fprintf(&buf, "priority=100,tcp,nw_src=10.%d.%d.%d,nw_dst=10.%d.%d.%d,tp_src=%d,tp_dst=80,actions=output:2\n",
			16+k>>16&0xf, k>>8&0xff, k&0xff, 32+k>>16&0xf, k>>8&0xff, k&0xff, 1024+k%50000)
	}
	flows := filepath.Join(dir, "flows")
	deleteAll := filepath.Join(dir, "delete-all")
	if err := os.WriteFile(flows, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(deleteAll, []byte("delete\n"), 0o644); err != nil {
		b.Fatal(err)
	}

	var ovs *ovstest.Switch
	ovsMissing := ovstest.Available(testutil.RepoRoot(b))
	ns := ""
	if ovsMissing == nil {
		ovs = ovstest.Start(b)
		ns = ovs.NS
	}
	port := ovstest.Port + 1
	if ns == "" {
		port = freePort(b)
	}
	sw := netnstest.Start(b, ns, nil, bin, "run", "--listen", "ptcp:"+strconv.Itoa(port)+":127.0.0.1")
	of := pushTarget{"ofswitch", ns, "tcp:127.0.0.1:" + strconv.Itoa(port), sw.Cmd.Process.Pid}
	pids := []int{of.pid}
	if ovs != nil {
		pid, err := ovs.VswitchdPID()
		if err != nil {
			b.Fatal(err)
		}
		pids = append(pids, pid)
	}
	// run runs a command to its end and returns its wall time.
	run := func(cmd *exec.Cmd) time.Duration {
		b.Helper()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		if err != nil {
			b.Fatalf("%s: %v\n%s\nswitch log:\n%s", cmd, err, out.String(), sw.Log())
		}
		return d
	}
	pushWith := func(bin string, to pushTarget, path string, args ...string) *exec.Cmd {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		b.Cleanup(cancel)
		return to.command(ctx, bin, append(append([]string{"push", "--switch", to.addr}, args...), path)...)
	}
	pushCmd := func(path string, args ...string) *exec.Cmd { return pushWith(bin, of, path, args...) }
	ofctlCmd := func(args ...string) *exec.Cmd {
		return ovs.Exec("ovs-ofctl", append([]string{"-O", "OpenFlow14"}, args...)...)
	}
	// idle waits until the switches are idle (Open vSwitch works on for
	// some 400 ms after deleting 100K flows).
	idle := func() {
		time.Sleep(150 * time.Millisecond)
		waitIdle(b, pids)
	}
	waitFor(b, "answer from ofswitch", sw.Log, func() (bool, string) {
		out, err := pushCmd(deleteAll).CombinedOutput()
		return err == nil, string(out)
	})
	pushOfswitch := func() time.Duration {
		run(pushCmd(deleteAll))
		idle()
		return run(pushCmd(flows, "--batch", "256"))
	}
	pushOVS := func() time.Duration {
		run(ofctlCmd("del-flows", ovs.Target()))
		idle()
		return run(ofctlCmd("--bundle", "add-flows", ovs.Target(), flows))
	}
	median := func(ds []time.Duration) time.Duration {
		ds = slices.Clone(ds)
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	rate := func(d time.Duration) float64 { return n / d.Seconds() }
	// alternate runs x and y warm times each untimed, then both at every
	// iteration, x first at even ones and y first at odd ones (whichever
	// runs second may find the machine in another state: caches, the
	// other helpers' load), and returns the median of each and the median
	// of the rounds' ratios y/x: a round's two pushes run back to back,
	// under much the same load, where the load changes over a run.
	alternate := func(b *testing.B, warm int, x, y func() time.Duration) (mx, my time.Duration, ratio float64) {
		for range warm {
			x()
			y()
		}
		var xs, ys []time.Duration
		var rs []float64
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			var dx, dy time.Duration
			if i%2 == 0 {
				dx = x()
				dy = y()
			} else {
				dy = y()
				dx = x()
			}
			xs, ys = append(xs, dx), append(ys, dy)
			rs = append(rs, dy.Seconds()/dx.Seconds())
			b.StartTimer()
		}
		slices.Sort(rs)
		return median(xs), median(ys), rs[len(rs)/2]
	}

	b.Run("ofswitch", func(b *testing.B) {
		pushOfswitch() // the switch's memory for such a table mapped once
		var ds []time.Duration
		for b.Loop() {
			b.StopTimer()
			d := pushOfswitch()
			b.StartTimer()
			ds = append(ds, d)
		}
		b.ReportMetric(rate(median(ds)), "flows/s")
		b.ReportMetric(median(ds).Seconds(), "s/push")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("versus-openvswitch", func(b *testing.B) {
		if ovs == nil {
			b.Skipf("no Open vSwitch to compare with: %v", ovsMissing)
		}
		ofs, ovss, ratio := alternate(b, 1, pushOfswitch, pushOVS)
		b.ReportMetric(rate(ofs), "ofswitch-flows/s")
		b.ReportMetric(rate(ovss), "ovs-flows/s")
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("versus-baseline", func(b *testing.B) {
		baseBin := os.Getenv("OFSWITCH_BASELINE")
		if baseBin == "" {
			b.Skip("$OFSWITCH_BASELINE names no ofswitch binary to compare with")
		}
		// Two switches of the benchmark's own, this binary's and the
		// baseline's, started alike.
		start := func(bin, name string, port int) pushTarget {
			if ns == "" {
				port = freePort(b)
			}
			sw := netnstest.Start(b, ns, nil, bin, "run", "--listen", "ptcp:"+strconv.Itoa(port)+":127.0.0.1")
			to := pushTarget{name, ns, "tcp:127.0.0.1:" + strconv.Itoa(port), sw.Cmd.Process.Pid}
			waitFor(b, "answer from "+name, sw.Log, func() (bool, string) {
				out, err := pushWith(bin, to, deleteAll).CombinedOutput()
				return err == nil, string(out)
			})
			return to
		}
		mine := start(bin, "ofswitch", ovstest.Port+2)
		base := start(baseBin, "baseline", ovstest.Port+3)
		// Every switch idle before each timed push.
		all := append(slices.Clone(pids), mine.pid, base.pid)
		// cpus[name] are the CPU times of the timed pushes to name's
		// switch, the client's and the switch's together, in the order
		// of the pushes.
		cpus := map[string][]time.Duration{}
		pushTo := func(bin string, to pushTarget) time.Duration {
			run(pushWith(bin, to, deleteAll))
			time.Sleep(150 * time.Millisecond)
			waitIdle(b, all)
			sw0 := threadsCPU(b, to.pid)
			cmd := pushWith(bin, to, flows, "--batch", "256")
			d := run(cmd)
			cpu := threadsCPU(b, to.pid) - sw0 + cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			cpus[to.name] = append(cpus[to.name], cpu)
			return d
		}
		pushOfswitch := func() time.Duration { return pushTo(bin, mine) }
		pushBase := func() time.Duration { return pushTo(baseBin, base) }
		// Two untimed pushes each: the first maps a switch's memory for
		// such a table, as the ofswitch sub-benchmark's does.
		ofs, bases, ratio := alternate(b, 2, pushOfswitch, pushBase)
		b.ReportMetric(rate(ofs), "flows/s")
		b.ReportMetric(rate(bases), "baseline-flows/s")
		b.ReportMetric(ratio, "ratio")
		// The same ratio in CPU time, the warm-up pushes left out: on a
		// machine whose cores other processes share, what a push costs
		// where its wall time also counts its waits for a core.
		mc, bc := cpus[mine.name][2:], cpus[base.name][2:]
		rs := make([]float64, len(mc))
		for i := range mc {
			rs[i] = bc[i].Seconds() / mc[i].Seconds()
		}
		slices.Sort(rs)
		b.ReportMetric(rs[len(rs)/2], "cpu-ratio")
		b.ReportMetric(median(mc).Seconds(), "cpu-s/push")
		b.ReportMetric(median(bc).Seconds(), "baseline-cpu-s/push")
		b.ReportMetric(0, "ns/op")
	})
}

// threadsCPU returns the CPU time process pid's threads have run, in
// nanoseconds (/proc/PID/task/*/schedstat, proc(5)), where /proc/PID/stat
// counts 10 ms ticks. A thread that exited is no longer counted: a Go
// process keeps its threads.
func threadsCPU(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	paths, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("threads of process %d: %v", pid, err)
	}
	var sum time.Duration
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			tb.Fatalf("%s: %q", p, b)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		sum += time.Duration(ns)
	}
	return sum
}
