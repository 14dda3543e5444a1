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
//   - versus-openvswitch: a push of each per round, alternated;
//     "ofswitch-flows/s" and "ovs-flows/s" (medians) and "ratio", the
//     ofswitch median over Open vSwitch's. Skipped, with the reason,
//     where Open vSwitch cannot run (no root, no packages).
//   - versus-baseline: the same against another ofswitch binary, named by
//     $OFSWITCH_BASELINE (another commit's, go build -o), its push into its
//     own ofswitch run: "flows/s" and "baseline-flows/s" (medians) and
//     "ratio", this binary's median over the baseline's. Skipped without
//     it.
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
	// alternate runs x and y once untimed, then in turn at every
	// iteration, and returns the median of each.
	alternate := func(b *testing.B, x, y func() time.Duration) (mx, my time.Duration) {
		x()
		y()
		var xs, ys []time.Duration
		for b.Loop() {
			b.StopTimer()
			xs = append(xs, x())
			ys = append(ys, y())
			b.StartTimer()
		}
		return median(xs), median(ys)
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
		ofs, ovss := alternate(b, pushOfswitch, pushOVS)
		b.ReportMetric(rate(ofs), "ofswitch-flows/s")
		b.ReportMetric(rate(ovss), "ovs-flows/s")
		b.ReportMetric(ovss.Seconds()/ofs.Seconds(), "ratio")
		b.ReportMetric(0, "ns/op")
	})
	b.Run("versus-baseline", func(b *testing.B) {
		baseBin := os.Getenv("OFSWITCH_BASELINE")
		if baseBin == "" {
			b.Skip("$OFSWITCH_BASELINE names no ofswitch binary to compare with")
		}
		basePort := ovstest.Port + 2
		if ns == "" {
			basePort = freePort(b)
		}
		baseSw := netnstest.Start(b, ns, nil, baseBin, "run", "--listen", "ptcp:"+strconv.Itoa(basePort)+":127.0.0.1")
		base := pushTarget{"baseline", ns, "tcp:127.0.0.1:" + strconv.Itoa(basePort), baseSw.Cmd.Process.Pid}
		// Both switches idle before each timed push.
		all := append(slices.Clone(pids), base.pid)
		waitFor(b, "answer from the baseline", baseSw.Log, func() (bool, string) {
			out, err := pushWith(baseBin, base, deleteAll).CombinedOutput()
			return err == nil, string(out)
		})
		pushTo := func(bin string, to pushTarget) time.Duration {
			run(pushWith(bin, to, deleteAll))
			time.Sleep(150 * time.Millisecond)
			waitIdle(b, all)
			return run(pushWith(bin, to, flows, "--batch", "256"))
		}
		pushOfswitch := func() time.Duration { return pushTo(bin, of) }
		pushBase := func() time.Duration { return pushTo(baseBin, base) }
		ofs, bases := alternate(b, pushOfswitch, pushBase)
		b.ReportMetric(rate(ofs), "flows/s")
		b.ReportMetric(rate(bases), "baseline-flows/s")
		b.ReportMetric(bases.Seconds()/ofs.Seconds(), "ratio")
		b.ReportMetric(0, "ns/op")
	})
}
