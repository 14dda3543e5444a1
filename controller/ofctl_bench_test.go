package controller

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeExactFlowFile writes n distinct exact 5-tuple flows in ovs-ofctl
// add-flows syntax (the flows exactFlows makes) and returns the path.
func writeExactFlowFile(b *testing.B, n int) string {
	var sb strings.Builder
	for i := range n {
		k := uint32(i)
		fmt.Fprintf(&sb, "priority=100,tcp,nw_src=127.%d.%d.%d,nw_dst=127.%d.%d.%d,tp_src=%d,tp_dst=80,actions=output:2\n",
			16|k>>16&0xf, k>>8&0xff, k&0xff, 32|k>>16&0xf, k>>8&0xff, k&0xff, 1024+k%50000)
	}
	p := filepath.Join(b.TempDir(), fmt.Sprintf("exact%d.flows", n))
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkOfctlAddFlows times `ovs-ofctl add-flows` and `ovs-ofctl
// --bundle add-flows` of 1K, 10K and 100K exact flows into ofswitch and,
// where it runs, into Open vSwitch, in the same run. ovs-ofctl is the
// client for both, so its own cost bounds both rates.
func BenchmarkOfctlAddFlows(b *testing.B) {
	ofctl, err := exec.LookPath("ovs-ofctl")
	if err != nil {
		b.Skip("ovs-ofctl not installed (apt-get install openvswitch-common)")
	}
	_, addr := startBenchAgent(b)
	type target struct {
		name string
		run  func(args ...string) error
	}
	targets := []target{{"ofswitch", func(args ...string) error {
		cmd := append([]string{"-O", "OpenFlow13", args[0], "tcp:" + addr}, args[1:]...)
		out, err := exec.Command(ofctl, cmd...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ovs-ofctl %s: %w\n%s", strings.Join(cmd, " "), err, out)
		}
		return nil
	}}}
	if ovs := startOVS(b); ovs != nil {
		targets = append(targets, target{"openvswitch", func(args ...string) error {
			_, err := ovs.Ofctl("", args[0], args[1:]...)
			return err
		}})
	}
	for _, n := range []int{1_000, 10_000, 100_000} {
		file := writeExactFlowFile(b, n)
		for _, t := range targets {
			for _, bundle := range []bool{false, true} {
				name := fmt.Sprintf("%s/flows=%d/bundle=%v", t.name, n, bundle)
				b.Run(name, func(b *testing.B) {
					args := []string{"add-flows", file}
					if bundle {
						args = []string{"add-flows", "--bundle", file}
					}
					if err := t.run("del-flows"); err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						if err := t.run(args...); err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						if err := t.run("del-flows"); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "flows/s")
				})
			}
		}
	}
}

// startBenchAgent serves an agent with one table on a loopback port until
// the benchmark ends.
func startBenchAgent(b *testing.B) (*Agent, string) {
	a, err := New(&Config{Logger: quiet, Tables: 1})
	if err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go a.Serve(ctx, l)
	b.Cleanup(cancel)
	return a, l.Addr().String()
}
